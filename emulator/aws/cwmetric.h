/* cwmetric: CloudWatch metrics of the emulated endpoints (GetMetricData,
 * signing name monitoring), over the AWS JSON 1.0 protocol
 * (GraniteServiceVersion20100801.GetMetricData, epoch-second timestamps) and
 * the query protocol the aws CLI 2.9 speaks (a form post Action=GetMetricData,
 * an XML reply: cwquery.h).
 *
 * What it counts, per production variant (dimensions EndpointName and
 * VariantName; EndpointName alone sums the variants), each request at the
 * wall-clock time it was received:
 *   Invocations            every request routed to the variant, whatever came of it
 *   InvocationsPerInstance each one divided by the variant's instance count at the
 *                          time (SageMaker's: Sum is Invocations / instances)
 *   Invocation4XXErrors    1 for a 4xx reply (throttling and ModelError too), else 0
 *   Invocation5XXErrors    1 for a 5xx reply, else 0
 *   InvocationModelErrors  1 when the container failed it (ModelError, the time
 *                          limit, a stream's exception), else 0
 *   ModelLatency           microseconds of model time from the end of the fixed
 *                          per-call overhead to the last byte (requests the
 *                          container answered), to its model end (the planned
 *                          end of its last step, not a late wake-up), rounded
 *                          as x-sm-emulator-service-us is
 *   OverheadLatency        microseconds of that overhead (the same requests)
 * Per inference component (dimension InferenceComponentName alone), each call
 * naming it at the wall-clock time it was received (cwmetric_component):
 *   Invocations                  each call routed to its copies
 *   InvocationsPerCopy           each of those divided by its copies serving
 *   NoCapacityInvocationFailures 1 for a call refused for want of a copy
 *                                serving, 0 for one routed
 * and for the instance, per period: GPUUtilization, the percent of the period
 * a decode step ran; CPUUtilization 2% plus 98% of that share (one scheduling
 * core); GPUMemoryUtilization 90% (vLLM reserves gpu_memory_utilization 0.9 at
 * start); MemoryUtilization 18%. The last two are modelled, not measured.
 * A request that got no reply (a lost or dropped connection, a client that
 * went away) counts as an invocation without an error, as a front end that
 * saw it through would count it.
 *
 * Time: a period is in model seconds (60 = a minute of model time), so at
 * --time-scale K a period lasts 60 / K wall seconds; data points are stamped
 * with the wall clock at the start of their period, periods aligned to the
 * epoch. StartTime is rounded down to its period, EndTime excluded; data
 * points come newest first unless ScanBy is TimestampAscending; at most
 * MaxDatapoints (default 100,800) a page, then NextToken. Statistics: Sum,
 * SampleCount, Average, Minimum, Maximum. Invocation metrics have a data point
 * only where a request came; utilization metrics one per period since the
 * container started. Memory: the last CWMETRIC_CALLS requests and
 * CWMETRIC_BUSY busy spans per variant. Pure: the caller gives the time. */
#ifndef EMU_CWMETRIC_H
#define EMU_CWMETRIC_H

#include <stdbool.h>
#include <stddef.h>

#include "cplane.h"

#define CWMETRIC_CALLS    262144
#define CWMETRIC_BUSY     65536
#define CWMETRIC_NAME_MAX 64

/* One request's end, as counted. */
struct cwmetric_call {
    double t;           /* wall clock it was received, Unix seconds */
    short status;       /* its reply's HTTP status; 0: none came */
    bool model_error;   /* the container failed it */
    bool timed;         /* the container answered: the latencies are set */
    float model_us;     /* model microseconds */
    float overhead_us;  /* model microseconds */
    float per_instance; /* 1 / the variant's instances when it came (0 taken as 1) */
};

struct cwmetric_span {
    double from, to; /* wall clock */
};

struct cwmetric_variant {
    char endpoint[CWMETRIC_NAME_MAX], variant[CWMETRIC_NAME_MAX];
    double since;                /* wall clock its container started */
    struct cwmetric_call *calls; /* a ring of CWMETRIC_CALLS, allocated as it fills */
    size_t n_calls, cap_calls, first_call;
    struct cwmetric_span *busy; /* a ring of CWMETRIC_BUSY */
    size_t n_busy, cap_busy, first_busy;
};

/* One call naming an inference component, as counted. */
struct cwmetric_ic_call {
    double t;       /* wall clock it was received, Unix seconds */
    bool refused;   /* no copy served: NoCapacityInvocationFailures */
    float per_copy; /* routed: 1 / the copies serving when it came */
};

struct cwmetric_ic {
    char name[CWMETRIC_NAME_MAX];
    struct cwmetric_ic_call *calls; /* a ring of CWMETRIC_CALLS */
    size_t n_calls, cap_calls, first_call;
};

struct cwmetric {
    char region[64];   /* the runtime region: the only one with metrics */
    double time_scale; /* model seconds per wall second */
    struct cwmetric_variant *v;
    size_t n;
    struct cwmetric_ic *ic; /* the inference components called, n_ic of them */
    size_t n_ic;
};

enum cwmetric_error { CWMETRIC_OK = 0, CWMETRIC_ERR_NOMEM = -1 };

void cwmetric_init(struct cwmetric *m, const char *region, double time_scale);
void cwmetric_free(struct cwmetric *m);

/* The container of endpoint's variant started at t (wall clock); a variant
 * started again (an update) keeps its counts. Returns 0 or CWMETRIC_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cwmetric_start(struct cwmetric *m, const char *endpoint,
                                                       const char *variant, double t);
/* Counts one request of the variant. Returns 0 or CWMETRIC_ERR_NOMEM (lost). */
__attribute__((warn_unused_result)) int cwmetric_count(struct cwmetric *m, const char *endpoint,
                                                       const char *variant,
                                                       const struct cwmetric_call *c);
/* Counts one call naming inference component name (of the runtime region).
 * Returns 0 or CWMETRIC_ERR_NOMEM (lost). */
__attribute__((warn_unused_result)) int cwmetric_component(struct cwmetric *m, const char *name,
                                                           const struct cwmetric_ic_call *c);
/* Whether Namespace ns's metric name is one served per inference component
 * (dimension InferenceComponentName). */
bool cwmetric_component_metric(const char *ns, const char *name);
/* Whether Namespace ns's metric name is one served per production variant
 * (dimensions EndpointName and VariantName). */
bool cwmetric_variant_metric(const char *ns, const char *name);

/* The variant's GPU ran from from to to (wall clock). Returns as cwmetric_count. */
__attribute__((warn_unused_result)) int cwmetric_busy(struct cwmetric *m, const char *endpoint,
                                                      const char *variant, double from, double to);

/* ---- the request, whichever protocol carried it (cwquery.h reads the form) ---- */

#define CWMETRIC_QUERIES 500 /* queries of one request, at most (the API's limit) */
#define CWMETRIC_TEXT    256

struct cwmetric_q {
    char id[CWMETRIC_TEXT], label[CWMETRIC_TEXT];
    char ns[CWMETRIC_TEXT], name[CWMETRIC_TEXT], stat[32];
    char endpoint[CWMETRIC_NAME_MAX], variant[CWMETRIC_NAME_MAX]; /* "": not given */
    char component[CWMETRIC_NAME_MAX]; /* InferenceComponentName; "": not given */
    bool other_dims;                   /* a dimension other than those three: no metric */
    bool expression;                   /* an Expression instead of a MetricStat */
    bool hidden;                       /* ReturnData false */
    long period;                       /* seconds (model time); 0: not given */
};

struct cwmetric_req {
    struct cwmetric_q q[CWMETRIC_QUERIES];
    size_t n;
    double start, end; /* wall clock; negative: not given */
    bool ascending;    /* ScanBy TimestampAscending */
    long max_points;   /* 0: the default */
    long from;         /* NextToken: data points already given; -1: a bad token */
    bool too_many;     /* more than CWMETRIC_QUERIES queries came */
};

/* An error the request earns: the query protocol's code (InvalidParameterValue,
 * MissingParameter, InvalidNextToken) and a message; the JSON protocol's types
 * are the error shapes' names (InvalidParameterValueException,
 * MissingRequiredParameterException, InvalidNextToken). */
struct cwmetric_refusal {
    const char *code;
    char message[300];
};

/* One result and the page's token. */
struct cwmetric_result {
    const struct cwmetric_q *q;
    double *t, *v; /* owned */
    size_t n;
    bool partial; /* more of it on the next page */
};

struct cwmetric_page {
    struct cwmetric_result *r; /* owned */
    size_t n;
    long next; /* the NextToken's data points, or -1 when none */
};

/* Sets the dimension name=value of q: EndpointName, VariantName and
 * InferenceComponentName are read, any other makes q ask for no metric the
 * emulator has. */
void cwmetric_dimension(struct cwmetric_q *q, const char *name, const char *value);

/* Empties req (start and end not given). */
void cwmetric_req_init(struct cwmetric_req *req);

/* Checks req; returns true, or false with why. Pure. */
bool cwmetric_check(const struct cwmetric_req *req, struct cwmetric_refusal *why);

/* Checks req, then evaluates its page (as cwmetric_eval). Returns 0 with the
 * page (free it with cwmetric_page_free), 1 with why it is refused, or
 * CWMETRIC_ERR_NOMEM. */
__attribute__((warn_unused_result)) int
cwmetric_answer(const struct cwmetric *m, const struct cwmetric_req *req, const char *region,
                double now, struct cwmetric_page *page, struct cwmetric_refusal *why);

/* The page of req (checked) for region at now. Returns 0 or
 * CWMETRIC_ERR_NOMEM. Free the page with cwmetric_page_free. */
__attribute__((warn_unused_result)) int cwmetric_eval(const struct cwmetric *m,
                                                      const struct cwmetric_req *req,
                                                      const char *region, double now,
                                                      struct cwmetric_page *out);
void cwmetric_page_free(struct cwmetric_page *p);

/* Answers GraniteServiceVersion20100801.<op> (JSON 1.0) with body[0..len) for
 * region at now (wall clock) into r (r->body emptied first). Returns 0 or
 * CPLANE_ERR_NOMEM (r then holds a 500). */
__attribute__((warn_unused_result)) int cwmetric_call(const struct cwmetric *m, const char *op,
                                                      const char *body, size_t len,
                                                      const char *region, double now,
                                                      struct cplane_reply *r);

#endif
