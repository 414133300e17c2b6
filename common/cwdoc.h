/* cwdoc: CloudWatch's JSON documents, read and written in one place.
 *
 * Two documents, each in the shape of one reply page and in the shape the aws
 * CLI prints once it has merged every page (the same object):
 *   FilterLogEvents   {"events": [{"logStreamName", "timestamp" (epoch ms),
 *                     "message", "ingestionTime", "eventId"}, ...], "nextToken"}
 *   GetMetricData     {"MetricDataResults": [{"Id", "Label", "Timestamps",
 *                     "Values", "StatusCode"}, ...], "Messages": [...]}
 * GetMetricData's timestamps are epoch seconds (numbers) in an AWS JSON 1.0
 * reply and ISO 8601 strings ("2026-09-25T18:40:00+00:00") in what the aws CLI
 * prints; both are read. The CLI's paginator appends the results of every
 * page, so one Id may come several times (a reader merges them).
 *
 * Read from outside: every document is bounded by its caller (the file or the
 * reply), and what a reader hands on is bounded here: a message is cut at
 * CWDOC_MESSAGE_MAX bytes (before a UTF-8 character), a name at CWDOC_NAME_MAX.
 * Pure: no clock, no I/O. */
#ifndef SM_CWDOC_H
#define SM_CWDOC_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define CWDOC_MESSAGE_MAX 262144 /* bytes of a log event kept (CloudWatch's event limit) */
#define CWDOC_NAME_MAX    512    /* bytes of a stream name, event id, metric id or label */
#define CWDOC_TIME_LEN    40     /* room for cwdoc_time_format's text */

enum cwdoc_error {
    CWDOC_OK = 0,
    CWDOC_ERR_NOMEM = -1,
    CWDOC_ERR_FORMAT = -2, /* not the document's shape: err says where */
};

/* One log event; the strings are valid during the callback only. */
struct cwdoc_event {
    long long timestamp_ms; /* when it happened, epoch milliseconds */
    long long ingestion_ms; /* when CloudWatch took it (0 when absent) */
    const char *stream;     /* logStreamName ("" when absent) */
    const char *message;    /* NUL-terminated, cut at CWDOC_MESSAGE_MAX; may hold newlines */
    size_t message_len;
    const char *event_id; /* "" when absent */
};

/* Receives one event; returns 0 to go on, or a negative code that the reader returns. */
typedef int cwdoc_event_fn(void *ud, const struct cwdoc_event *e);

/* Reads the events of json[0..len), in document order, into fn. Returns 0,
 * CWDOC_ERR_FORMAT (with one line in err), CWDOC_ERR_NOMEM, or fn's code. */
__attribute__((warn_unused_result)) int cwdoc_events(const char *json, size_t len,
                                                     cwdoc_event_fn *fn, void *ud, struct buf *err);

/* One metric's data points; valid during the callback only. */
struct cwdoc_series {
    const char *id;     /* the query's Id */
    const char *label;  /* "" when absent */
    const char *status; /* StatusCode ("" when absent) */
    const double *t;    /* epoch seconds */
    const double *v;
    size_t n;
};

typedef int cwdoc_series_fn(void *ud, const struct cwdoc_series *s);

/* Reads the results of json[0..len) into fn, one call per result. Returns as
 * cwdoc_events. */
__attribute__((warn_unused_result)) int
cwdoc_metrics(const char *json, size_t len, cwdoc_series_fn *fn, void *ud, struct buf *err);

/* The metrics of an endpoint's production variant that wrk-sagemaker asks
 * for, each one GetMetricData query: its Id (what a reader looks results up
 * by), namespace, metric name and statistic; dimensions EndpointName and
 * VariantName. ModelLatency and OverheadLatency are in microseconds; asked as
 * Sum and SampleCount, their mean over any window is sum / count. */
enum cwdoc_metric_id {
    CWDOC_INVOCATIONS,
    CWDOC_MODEL_LATENCY_SUM,
    CWDOC_MODEL_LATENCY_N,
    CWDOC_OVERHEAD_SUM,
    CWDOC_OVERHEAD_N,
    CWDOC_ERRORS_4XX,
    CWDOC_ERRORS_5XX,
    CWDOC_MODEL_ERRORS,
    CWDOC_GPU,
    CWDOC_GPU_MEMORY,
    CWDOC_CPU,
    CWDOC_MEMORY,
    CWDOC_N_METRICS
};

struct cwdoc_metric {
    const char *id;   /* "invocations", "model_latency_sum", ... */
    const char *ns;   /* AWS/SageMaker or /aws/sagemaker/Endpoints */
    const char *name; /* Invocations, ModelLatency, ... */
    const char *stat; /* Sum, SampleCount or Average */
};

extern const struct cwdoc_metric cwdoc_metrics_asked[CWDOC_N_METRICS];
/* The metric whose Id is id, or -1. */
int cwdoc_metric_find(const char *id);

/* ISO 8601 "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)" (also with a space for
 * the T) in s[0..n) as epoch seconds. Returns 0 or CWDOC_ERR_FORMAT. */
__attribute__((warn_unused_result)) int cwdoc_time(const char *s, size_t n, double *out);
/* t as the aws CLI prints timestamps, "2026-09-25T18:40:00+00:00", with
 * milliseconds (".250") when ms or when t is not a whole second. */
void cwdoc_time_format(double t, bool ms, char out[CWDOC_TIME_LEN]);

/* Appends one event as FilterLogEvents writes it (an object). Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cwdoc_event_json(struct buf *out,
                                                         const struct cwdoc_event *e);
/* Appends one result as GetMetricData writes it (an object); iso: timestamps
 * as ISO 8601 strings (the aws CLI's output), else epoch seconds (the JSON 1.0
 * reply). Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cwdoc_series_json(struct buf *out,
                                                          const struct cwdoc_series *s, bool iso);

#endif
