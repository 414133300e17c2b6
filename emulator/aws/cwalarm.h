/* cwalarm: CloudWatch metric alarms on the emulator's own metrics
 * (PutMetricAlarm, DescribeAlarms, DeleteAlarms as botocore's monitoring
 * 2010-08-01 model shapes them), over AWS JSON 1.0 here
 * (GraniteServiceVersion20100801.<op>, cwalarm_call) and the query protocol
 * (cwaquery.h); both read into a struct cwalarm_spec that cwalarm_put checks.
 *
 * An alarm watches one metric cwmetric.h serves (Namespace AWS/SageMaker or
 * /aws/sagemaker/Endpoints, its metric names, dimensions EndpointName and
 * VariantName, or an inference component's by InferenceComponentName alone;
 * any other dimension or combination, an ExtendedStatistic or metric math is
 * refused) with Statistic, Period (model seconds: 10, 30 or a multiple of
 * 60), EvaluationPeriods, DatapointsToAlarm, Threshold, ComparisonOperator
 * (the four static ones) and TreatMissingData. It starts INSUFFICIENT_DATA
 * and is evaluated at the end of each period (periods aligned to the epoch
 * on the wall clock, Period / --time-scale wall seconds long, as
 * GetMetricData's) over its last EvaluationPeriods periods (cwalarm_judge).
 * While it is in ALARM with ActionsEnabled, each evaluation runs its
 * AlarmActions (Auto Scaling actions run every period the alarm stays in
 * ALARM: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/
 * AlarmThatSendsEmail.html, "Alarm actions"). Pure: the caller gives the
 * time and runs the actions. A target tracking policy's two alarms are kept
 * here too (cwalarm_sync), listed and evaluated as the others. */
#ifndef EMU_CWALARM_H
#define EMU_CWALARM_H

#include <stdbool.h>
#include <stddef.h>

#include "cplane.h"
#include "cwmetric.h"

#define CWALARM_MAX         1000 /* alarms kept, all regions: LimitExceeded past it */
#define CWALARM_ACTIONS_MAX 5    /* each list's members (ResourceList) */
#define CWALARM_ARN_MAX     1025 /* ResourceName: 1024 characters */
#define CWALARM_NAME_MAX    256  /* AlarmName: 255 */
#define CWALARM_DESC_MAX    1025 /* AlarmDescription: 1024 */
#define CWALARM_POINTS_MAX  1440 /* periods evaluated: a day of minutes */

enum cwalarm_state { CWALARM_OK, CWALARM_ALARM, CWALARM_INSUFFICIENT };
enum cwalarm_cmp { CWALARM_GE, CWALARM_GT, CWALARM_LT, CWALARM_LE };
enum cwalarm_missing {
    CWALARM_MISSING, /* the default */
    CWALARM_IGNORE,
    CWALARM_BREACHING,
    CWALARM_NOT_BREACHING
};

struct cwalarm_list {
    char arn[CWALARM_ACTIONS_MAX][CWALARM_ARN_MAX];
    size_t n;
};

/* An alarm as PutMetricAlarm gives it. */
struct cwalarm_spec {
    char name[CWALARM_NAME_MAX], description[CWALARM_DESC_MAX];
    struct cwmetric_q q; /* Namespace, MetricName, Statistic, Dimensions, Period */
    bool has_endpoint, has_variant;
    long eval_periods, to_alarm; /* 0: not given */
    double threshold;
    bool has_threshold, has_cmp;
    enum cwalarm_cmp cmp;
    enum cwalarm_missing missing;
    bool actions_enabled;
    struct cwalarm_list alarm_actions, ok_actions, insufficient_actions;
    char refused[300]; /* a reader's refusal (a bad value, an unsupported member); "": none */
};

struct cwalarm_alarm {
    char region[CPCONF_REGION_MAX];
    char arn[400];
    struct cwalarm_spec s;
    enum cwalarm_state state;
    char reason[400];
    double state_at, updated; /* wall clock */
    double next;              /* wall clock of the next evaluation; 0: at once */
    double value;             /* the newest datapoint of the last evaluation; NAN: none */
    bool managed;             /* a target tracking policy's (cwalarm_sync) */
};

struct cwalarm {
    char account[32];
    struct cwalarm_alarm *a; /* n of them, in name order within a region */
    size_t n, cap;
};

enum cwalarm_error { CWALARM_OK_RC = 0, CWALARM_ERR_NOMEM = -1 };

/* An empty spec: ActionsEnabled true, TreatMissingData missing. */
void cwalarm_spec_init(struct cwalarm_spec *s);

/* Sets the comparison or the missing-data treatment named v; false when v
 * names none (refused is then set, naming what came). */
bool cwalarm_set_cmp(struct cwalarm_spec *s, const char *v);
bool cwalarm_set_missing(struct cwalarm_spec *s, const char *v);
/* Adds arn to list l (what names it, for a refusal). */
void cwalarm_add_action(struct cwalarm_spec *s, struct cwalarm_list *l, const char *what,
                        const char *arn);

void cwalarm_init(struct cwalarm *al, const char *account);
void cwalarm_free(struct cwalarm *al);

/* A refusal: the query protocol's code (InvalidParameterValue,
 * MissingParameter, LimitExceeded, ResourceNotFound, InvalidNextToken) and a
 * message. */
struct cwalarm_refusal {
    const char *code;
    char message[400];
};

/* Creates or replaces the alarm of spec s in region at now. Returns 0, 1 with
 * why it is refused, or CWALARM_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cwalarm_put(struct cwalarm *al,
                                                    const struct cwalarm_spec *s,
                                                    const char *region, double now,
                                                    struct cwalarm_refusal *why);

/* Makes the alarms of region that target tracking policies manage those of
 * specs[0..n) (aascale_tracking_alarms): each one new is created
 * (INSUFFICIENT_DATA), one changed is replaced (its state kept), and every
 * other managed alarm of region is deleted. Returns 0, or 1 with why (past
 * CWALARM_MAX), or CWALARM_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cwalarm_sync(struct cwalarm *al,
                                                     const struct cwalarm_spec *specs, size_t n,
                                                     const char *region, double now,
                                                     struct cwalarm_refusal *why);

/* Deletes the named alarms of region, all or none: returns 0, or 1 with why
 * (ResourceNotFound naming the first unknown one). */
int cwalarm_delete(struct cwalarm *al, const char *const *names, size_t n, const char *region,
                   struct cwalarm_refusal *why);

/* What DescribeAlarms asks. */
#define CWALARM_NAMES_MAX 100
struct cwalarm_filter {
    const char *names[CWALARM_NAMES_MAX]; /* AlarmNames; n_names 0: any */
    size_t n_names;
    const char *prefix;      /* AlarmNamePrefix; NULL: any */
    const char *state;       /* StateValue; NULL: any */
    const char *action;      /* ActionPrefix; NULL: any */
    long max, from;          /* MaxRecords (0: 50), NextToken (alarms skipped) */
    bool metric_alarms_only; /* AlarmTypes without MetricAlarm: none */
    bool no_metric_alarms;
};

/* Whether alarm a of the list is one filter f picks in region. */
bool cwalarm_picked(const struct cwalarm_alarm *a, const struct cwalarm_filter *f,
                    const char *region);

/* Checks f; false with why. */
bool cwalarm_filter_ok(const struct cwalarm_filter *f, struct cwalarm_refusal *why);

const char *cwalarm_state_name(enum cwalarm_state s);
const char *cwalarm_cmp_name(enum cwalarm_cmp c);
const char *cwalarm_missing_name(enum cwalarm_missing m);

/* The state alarm spec s takes over the datapoints of its last n periods
 * (pts, oldest first, NAN for a period without one), was its state before:
 * each datapoint breaches when it compares with the threshold as the
 * operator says; a missing one counts as breaching (breaching), as not
 * breaching (notBreaching), or not at all (missing, ignore). ALARM when at
 * least DatapointsToAlarm (EvaluationPeriods when not given) breach; else OK
 * when one counted; else (none counted) INSUFFICIENT_DATA, or was for ignore.
 * *value: the newest datapoint, NAN when none (https://docs.aws.amazon.com/
 * AmazonCloudWatch/latest/monitoring/AlarmThatSendsEmail.html, "Configuring
 * how CloudWatch alarms treat missing data"). Pure. */
enum cwalarm_state cwalarm_judge(const struct cwalarm_spec *s, const double *pts, size_t n,
                                 enum cwalarm_state was, double *value);

/* An action of an alarm in ALARM: arn with the alarm and its newest datapoint. */
typedef void cwalarm_fire_fn(void *ud, const struct cwalarm_alarm *a, const char *arn);

/* Evaluates every alarm due at now (wall clock) over metrics m, each in its
 * own region, and runs the AlarmActions of those in ALARM through fire.
 * Returns 0 with *next the wall clock of the next evaluation (INFINITY: no
 * alarm), or CWALARM_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cwalarm_run(struct cwalarm *al, const struct cwmetric *m,
                                                    double now, cwalarm_fire_fn *fire, void *ud,
                                                    double *next);

/* Answers GraniteServiceVersion20100801.<op> (JSON 1.0) for PutMetricAlarm,
 * DescribeAlarms and DeleteAlarms with body[0..len) in region at now into r.
 * Returns 0 or CPLANE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cwalarm_call(struct cwalarm *al, const char *op,
                                                     const char *body, size_t len,
                                                     const char *region, double now,
                                                     struct cplane_reply *r);

/* Whether op is one of the alarms' operations. */
bool cwalarm_op(const char *op);

#endif
