/* CloudWatch alarms (cwalarm.h, cwaquery.h): the state each datapoint series
 * and missing-data treatment gives (rows), the alarms kept, described and
 * deleted over both protocols with their refusals, and the evaluation over the
 * emulator's own metrics: a period over the threshold runs the alarm's actions
 * with its newest datapoint, every period it stays in ALARM, none once
 * deleted. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "aascale.h"
#include "cwalarm.h"
#include "cwaquery.h"

#define X NAN

struct judge_row {
    const char *what;
    long eval, to_alarm;
    enum cwalarm_cmp cmp;
    enum cwalarm_missing missing;
    double pts[5];
    enum cwalarm_state was, want;
};

/* Threshold 10 over 3 periods, oldest first. */
static const struct judge_row judge_rows[] = {
    {"3 of 3 over", 3, 0, CWALARM_GT, CWALARM_MISSING, {11, 12, 13}, CWALARM_OK, CWALARM_ALARM},
    {"2 of 3 over, 3 needed",
     3,
     0,
     CWALARM_GT,
     CWALARM_MISSING,
     {11, 9, 13},
     CWALARM_OK,
     CWALARM_OK},
    {"2 of 3 over, 2 needed",
     3,
     2,
     CWALARM_GT,
     CWALARM_MISSING,
     {11, 9, 13},
     CWALARM_OK,
     CWALARM_ALARM},
    {"equal is not greater",
     3,
     0,
     CWALARM_GT,
     CWALARM_MISSING,
     {10, 10, 10},
     CWALARM_OK,
     CWALARM_OK},
    {"equal is greater or equal",
     3,
     0,
     CWALARM_GE,
     CWALARM_MISSING,
     {10, 10, 10},
     CWALARM_OK,
     CWALARM_ALARM},
    {"under for less than",
     3,
     0,
     CWALARM_LT,
     CWALARM_MISSING,
     {1, 2, 3},
     CWALARM_OK,
     CWALARM_ALARM},
    {"equal for less or equal",
     3,
     0,
     CWALARM_LE,
     CWALARM_MISSING,
     {10, 10, 10},
     CWALARM_OK,
     CWALARM_ALARM},
    {"all missing: insufficient",
     3,
     0,
     CWALARM_GT,
     CWALARM_MISSING,
     {X, X, X},
     CWALARM_ALARM,
     CWALARM_INSUFFICIENT},
    {"all missing, ignore: kept",
     3,
     0,
     CWALARM_GT,
     CWALARM_IGNORE,
     {X, X, X},
     CWALARM_ALARM,
     CWALARM_ALARM},
    {"all missing, breaching",
     3,
     0,
     CWALARM_GT,
     CWALARM_BREACHING,
     {X, X, X},
     CWALARM_OK,
     CWALARM_ALARM},
    {"all missing, not breaching",
     3,
     0,
     CWALARM_GT,
     CWALARM_NOT_BREACHING,
     {X, X, X},
     CWALARM_ALARM,
     CWALARM_OK},
    {"missing counts breaching",
     3,
     0,
     CWALARM_GT,
     CWALARM_BREACHING,
     {11, X, 12},
     CWALARM_OK,
     CWALARM_ALARM},
    {"missing skipped: 2 of 3 not enough",
     3,
     0,
     CWALARM_GT,
     CWALARM_MISSING,
     {11, X, 12},
     CWALARM_INSUFFICIENT,
     CWALARM_OK},
};

static void test_judge(void) {
    for (size_t i = 0; i < sizeof judge_rows / sizeof *judge_rows; i++) {
        const struct judge_row *r = &judge_rows[i];
        struct cwalarm_spec s;
        cwalarm_spec_init(&s);
        s.eval_periods = r->eval;
        s.to_alarm = r->to_alarm;
        s.cmp = r->cmp;
        s.missing = r->missing;
        s.threshold = 10;
        double value;
        enum cwalarm_state got = cwalarm_judge(&s, r->pts, (size_t)r->eval, r->was, &value);
        if (got != r->want) fprintf(stderr, "row '%s'\n", r->what);
        CHECK_INT(got, r->want);
    }
    struct cwalarm_spec s;
    cwalarm_spec_init(&s);
    s.eval_periods = 3;
    double pts[] = {11, 12, X}, value;
    (void)cwalarm_judge(&s, pts, 3, CWALARM_OK, &value);
    CHECK(value == 12); /* the newest datapoint there is */
}

static int call(struct cwalarm *al, const char *op, const char *body, struct cplane_reply *r) {
    return cwalarm_call(al, op, body, strlen(body), "us-east-1", 1e9, r);
}

#define PUT_BASE                                                                                   \
    "{\"AlarmName\":\"hi\",\"Namespace\":\"AWS/SageMaker\",\"MetricName\":"                        \
    "\"InvocationsPerInstance\",\"Statistic\":\"Sum\",\"EvaluationPeriods\":2,\"Threshold\":5,"    \
    "\"Dimensions\":[{\"Name\":\"EndpointName\",\"Value\":\"ep\"},{\"Name\":\"VariantName\","      \
    "\"Value\":\"AllTraffic\"}],\"AlarmActions\":[\"arn:aws:autoscaling:us-east-1:1:"              \
    "scalingPolicy:x\"]"
#define PUT_JSON PUT_BASE ",\"Period\":60,\"ComparisonOperator\":\"GreaterThanThreshold\""

static void test_json(void) {
    struct cwalarm al;
    struct cplane_reply r = {0};
    buf_init(&r.body, 1 << 20);
    cwalarm_init(&al, "123456789012");
    CHECK_INT(call(&al, "PutMetricAlarm", PUT_JSON "}", &r), 0);
    CHECK_INT(r.status, 200);
    CHECK_INT(call(&al, "DescribeAlarms", "{\"AlarmNames\":[\"hi\"]}", &r), 0);
    CHECK(
        strstr(r.body.data, "\"AlarmArn\":\"arn:aws:cloudwatch:us-east-1:123456789012:alarm:hi\""));
    CHECK(strstr(r.body.data, "\"StateValue\":\"INSUFFICIENT_DATA\""));
    CHECK(strstr(r.body.data,
                 "\"AlarmActions\":[\"arn:aws:autoscaling:us-east-1:1:scalingPolicy:x\"]"));
    CHECK(strstr(r.body.data, "\"DatapointsToAlarm\":2,\"Threshold\":5,"));
    /* refusals, one line naming the member */
    CHECK_INT(call(&al, "PutMetricAlarm", PUT_JSON ",\"DatapointsToAlarm\":3}", &r), 0);
    CHECK_INT(r.status, 400);
    CHECK(strstr(r.body.data, "DatapointsToAlarm (3) must be less than or equal to "
                              "EvaluationPeriods (2)"));
    CHECK_INT(call(&al, "PutMetricAlarm",
                   PUT_BASE ",\"Period\":60,\"ComparisonOperator\":\"Sideways\"}", &r),
              0);
    CHECK(r.status == 400 && strstr(r.body.data, "ComparisonOperator 'Sideways'"));
    CHECK_INT(call(&al, "PutMetricAlarm",
                   PUT_BASE ",\"Period\":45,\"ComparisonOperator\":\"GreaterThanThreshold\"}", &r),
              0);
    CHECK(r.status == 400 && strstr(r.body.data, "InvalidParameterValueException") &&
          strstr(r.body.data, "Period must be 10, 30 or a multiple of 60"));
    CHECK_INT(call(&al, "DeleteAlarms", "{\"AlarmNames\":[\"hi\",\"nope\"]}", &r), 0);
    CHECK(r.status == 404 && strstr(r.body.data, "Alarm nope does not exist in us-east-1"));
    CHECK_INT((int)al.n, 1); /* all or none */
    CHECK_INT(call(&al, "DeleteAlarms", "{\"AlarmNames\":[\"hi\"]}", &r), 0);
    CHECK_INT(r.status, 200);
    CHECK_INT((int)al.n, 0);
    cwalarm_free(&al);
    buf_free(&r.body);
}

static void test_query(void) {
    struct cwalarm al;
    struct cplane_reply r = {0};
    buf_init(&r.body, 1 << 20);
    cwalarm_init(&al, "123456789012");
    const char *form =
        "Action=PutMetricAlarm&Version=2010-08-01&AlarmName=q%26a&Namespace=AWS%2FSageMaker&"
        "MetricName=Invocations&Statistic=Average&Period=60&EvaluationPeriods=3&"
        "DatapointsToAlarm=2&Threshold=2.5&ComparisonOperator=LessThanThreshold&"
        "TreatMissingData=breaching&Dimensions.member.1.Name=EndpointName&"
        "Dimensions.member.1.Value=ep&AlarmActions.member.1=arn%3Ax&ActionsEnabled=false";
    struct cwalarm_spec s;
    cwalarm_spec_init(&s);
    CHECK_INT(cwaquery_read(form, strlen(form), &s), 0);
    CHECK_STR(s.name, "q&a");
    CHECK_STR(s.q.endpoint, "ep");
    CHECK(s.to_alarm == 2 && s.eval_periods == 3 && s.threshold == 2.5 && s.cmp == CWALARM_LT &&
          s.missing == CWALARM_BREACHING && !s.actions_enabled && s.alarm_actions.n == 1);
    CHECK_INT(cwaquery_call(&al, "PutMetricAlarm", form, strlen(form), "us-east-1", 1e9, &r), 0);
    CHECK(r.status == 200 && strstr(r.body.data, "<PutMetricAlarmResponse"));
    const char *d = "Action=DescribeAlarms&StateValue=INSUFFICIENT_DATA";
    CHECK_INT(cwaquery_call(&al, "DescribeAlarms", d, strlen(d), "us-east-1", 1e9, &r), 0);
    CHECK(strstr(r.body.data, "<AlarmName>q&amp;a</AlarmName>"));
    CHECK(strstr(r.body.data, "<Dimensions><member><Name>EndpointName</Name><Value>ep</Value>"
                              "</member></Dimensions>"));
    d = "Action=DescribeAlarms&StateValue=ALARM";
    CHECK_INT(cwaquery_call(&al, "DescribeAlarms", d, strlen(d), "us-east-1", 1e9, &r), 0);
    CHECK(strstr(r.body.data, "<MetricAlarms></MetricAlarms>"));
    d = "Action=PutMetricAlarm&AlarmName=x&EvaluationPeriods=1&ComparisonOperator="
        "GreaterThanThreshold&Namespace=AWS%2FSageMaker&MetricName=Invocations&Statistic=Sum&"
        "Period=60";
    CHECK_INT(cwaquery_call(&al, "PutMetricAlarm", d, strlen(d), "us-east-1", 1e9, &r), 0);
    CHECK(r.status == 400 && strstr(r.body.data, "<Code>MissingParameter</Code>") &&
          strstr(r.body.data, "Threshold is required"));
    d = "Action=DeleteAlarms&AlarmNames.member.1=gone";
    CHECK_INT(cwaquery_call(&al, "DeleteAlarms", d, strlen(d), "us-east-1", 1e9, &r), 0);
    CHECK(r.status == 404 && strstr(r.body.data, "<Code>ResourceNotFound</Code>"));
    cwalarm_free(&al);
    buf_free(&r.body);
}

/* ---- evaluation over the metrics ---- */

struct fired {
    int n;
    double value;
    char arn[64];
};

static void on_fire(void *ud, const struct cwalarm_alarm *a, const char *arn) {
    struct fired *f = ud;
    f->n++;
    f->value = a->value;
    snprintf(f->arn, sizeof f->arn, "%s", arn);
}

static void count_calls(struct cwmetric *m, double t, int n) {
    for (int i = 0; i < n; i++) {
        struct cwmetric_call c = {t, 200, false, true, 1000, 100, 1};
        CHECK_INT(cwmetric_count(m, "ep", "AllTraffic", &c), 0);
    }
}

static void test_run(void) {
    struct cwalarm al;
    struct cwmetric m;
    struct cplane_reply r = {0};
    struct fired f = {0};
    double next, t0 = 1800000000; /* a multiple of 6: periods of 60 model s are 6 wall s */
    buf_init(&r.body, 1 << 20);
    cwalarm_init(&al, "123456789012");
    cwmetric_init(&m, "us-east-1", 10);
    CHECK_INT(cwalarm_call(&al, "PutMetricAlarm", PUT_JSON "}", strlen(PUT_JSON "}"), "us-east-1",
                           t0, &r),
              0);
    CHECK_INT(cwalarm_run(&al, &m, t0, on_fire, &f, &next), 0);
    CHECK_INT(al.a[0].state, CWALARM_INSUFFICIENT); /* no datapoint yet */
    CHECK(next == t0 + 6);
    count_calls(&m, t0 + 1, 6); /* over 5 in the first period */
    CHECK_INT(cwalarm_run(&al, &m, t0 + 6, on_fire, &f, &next), 0);
    CHECK_INT(al.a[0].state, CWALARM_OK); /* one of the two needed */
    CHECK_INT(f.n, 0);
    count_calls(&m, t0 + 7, 9);
    CHECK_INT(cwalarm_run(&al, &m, t0 + 12, on_fire, &f, &next), 0);
    CHECK_INT(al.a[0].state, CWALARM_ALARM);
    CHECK_INT(f.n, 1);
    CHECK(f.value == 9);
    CHECK_STR(f.arn, "arn:aws:autoscaling:us-east-1:1:scalingPolicy:x");
    CHECK_INT(cwalarm_run(&al, &m, t0 + 13, on_fire, &f, &next), 0); /* not due */
    CHECK_INT(f.n, 1);
    count_calls(&m, t0 + 13, 7);
    CHECK_INT(cwalarm_run(&al, &m, t0 + 18, on_fire, &f, &next), 0);
    CHECK_INT(f.n, 2); /* again while in ALARM */
    CHECK(f.value == 7);
    CHECK_INT(
        cwalarm_call(&al, "DeleteAlarms", "{\"AlarmNames\":[\"hi\"]}", 21, "us-east-1", t0, &r), 0);
    count_calls(&m, t0 + 19, 8);
    CHECK_INT(cwalarm_run(&al, &m, t0 + 24, on_fire, &f, &next), 0);
    CHECK_INT(f.n, 2); /* deleted: nothing runs */
    CHECK(isinf(next));
    cwmetric_free(&m);
    cwalarm_free(&al);
    buf_free(&r.body);
}

/* ---- the dimensions an alarm's metric takes ---- */

struct dims_row {
    const char *what, *metric, *dims; /* dims: the Dimensions member's JSON */
    const char *refused;              /* a fragment of the refusal; NULL: accepted */
};

#define DIMS_IC "[{\"Name\":\"InferenceComponentName\",\"Value\":\"ic\"}]"
#define DIMS_EP "[{\"Name\":\"EndpointName\",\"Value\":\"ep\"}]"

static const struct dims_row dims_rows[] = {
    {"the guide's scale-from-zero alarm", "NoCapacityInvocationFailures", DIMS_IC, NULL},
    {"a component's invocations", "Invocations", DIMS_IC, NULL},
    {"a component's invocations per copy", "InvocationsPerCopy", DIMS_IC, NULL},
    {"a variant's invocations", "Invocations", DIMS_EP, NULL},
    {"a variant's metric by component", "ModelLatency", DIMS_IC,
     "The metric ModelLatency of AWS/SageMaker is not served by InferenceComponentName"},
    {"a component's metric by endpoint", "NoCapacityInvocationFailures", DIMS_EP,
     "The metric NoCapacityInvocationFailures is served by InferenceComponentName only"},
    {"a component's metric with no dimension", "NoCapacityInvocationFailures", "[]",
     "The metric NoCapacityInvocationFailures is served by InferenceComponentName only"},
    {"component and endpoint together", "NoCapacityInvocationFailures",
     "[{\"Name\":\"InferenceComponentName\",\"Value\":\"ic\"},"
     "{\"Name\":\"EndpointName\",\"Value\":\"ep\"}]",
     "InferenceComponentName (ic) is served alone: EndpointName was given with it"},
    {"component and variant together", "Invocations",
     "[{\"Name\":\"VariantName\",\"Value\":\"AllTraffic\"},"
     "{\"Name\":\"InferenceComponentName\",\"Value\":\"ic\"}]",
     "InferenceComponentName (ic) is served alone: VariantName was given with it"},
    {"another dimension", "Invocations", "[{\"Name\":\"Host\",\"Value\":\"x\"}]",
     "another dimension was given"},
};

static void test_dimensions(void) {
    struct cwalarm al;
    struct cplane_reply r = {0};
    char body[1024];
    buf_init(&r.body, 1 << 20);
    cwalarm_init(&al, "123456789012");
    for (size_t i = 0; i < sizeof dims_rows / sizeof *dims_rows; i++) {
        const struct dims_row *d = &dims_rows[i];
        snprintf(body, sizeof body,
                 "{\"AlarmName\":\"a%zu\",\"Namespace\":\"AWS/SageMaker\",\"MetricName\":\"%s\","
                 "\"Statistic\":\"Sum\",\"Period\":60,\"EvaluationPeriods\":1,\"Threshold\":1,"
                 "\"ComparisonOperator\":\"GreaterThanThreshold\",\"Dimensions\":%s}",
                 i, d->metric, d->dims);
        CHECK_INT(call(&al, "PutMetricAlarm", body, &r), 0);
        if (r.status != (d->refused ? 400 : 200) ||
            (d->refused && !strstr(r.body.data, d->refused)))
            fprintf(stderr, "dims row '%s': %d %s\n", d->what, r.status, r.body.data);
        CHECK_INT(r.status, d->refused ? 400 : 200);
        CHECK(!d->refused || (strstr(r.body.data, d->refused) &&
                              strstr(r.body.data, "InvalidParameterValueException")));
    }
    /* described back with the dimension, over both protocols */
    CHECK_INT(call(&al, "DescribeAlarms", "{\"AlarmNames\":[\"a0\"]}", &r), 0);
    CHECK(strstr(r.body.data, "\"Dimensions\":[{\"Name\":\"InferenceComponentName\",\"Value\":"
                              "\"ic\"}]"));
    const char *q = "Action=DescribeAlarms&AlarmNames.member.1=a0";
    CHECK_INT(cwaquery_call(&al, "DescribeAlarms", q, strlen(q), "us-east-1", 1e9, &r), 0);
    CHECK(strstr(r.body.data, "<Dimensions><member><Name>InferenceComponentName</Name><Value>ic"
                              "</Value></member></Dimensions>"));
    q = "Action=PutMetricAlarm&AlarmName=q&EvaluationPeriods=1&ComparisonOperator="
        "GreaterThanThreshold&Namespace=AWS%2FSageMaker&MetricName=NoCapacityInvocationFailures&"
        "Statistic=Sum&Period=60&Threshold=1&Dimensions.member.1.Name=EndpointName&"
        "Dimensions.member.1.Value=ep";
    CHECK_INT(cwaquery_call(&al, "PutMetricAlarm", q, strlen(q), "us-east-1", 1e9, &r), 0);
    CHECK(r.status == 400 && strstr(r.body.data, "<Code>InvalidParameterValue</Code>") &&
          strstr(r.body.data, "served by InferenceComponentName only"));
    cwalarm_free(&al);
    buf_free(&r.body);
}

/* The guide's alarm on a component's NoCapacityInvocationFailures: Sum over
 * a period, GreaterThanThreshold 1; the refused calls breach it, the calls its
 * copies took count 0. */
static void test_run_component(void) {
    struct cwalarm al;
    struct cwmetric m;
    struct cplane_reply r = {0};
    struct fired f = {0};
    double next, t0 = 1800000000; /* periods of 60 model s are 6 wall s */
    const char *put =
        "{\"AlarmName\":\"ic-step-scaling-alarm\",\"Namespace\":\"AWS/SageMaker\",\"MetricName\":"
        "\"NoCapacityInvocationFailures\",\"Statistic\":\"Sum\",\"Period\":60,"
        "\"EvaluationPeriods\":1,\"DatapointsToAlarm\":1,\"Threshold\":1,\"ComparisonOperator\":"
        "\"GreaterThanThreshold\",\"Dimensions\":" DIMS_IC ",\"AlarmActions\":[\"arn:aws:"
        "autoscaling:us-east-1:1:scalingPolicy:z\"]}";
    buf_init(&r.body, 1 << 20);
    cwalarm_init(&al, "123456789012");
    cwmetric_init(&m, "us-east-1", 10);
    CHECK_INT(cwalarm_call(&al, "PutMetricAlarm", put, strlen(put), "us-east-1", t0, &r), 0);
    CHECK_INT(r.status, 200);
    struct cwmetric_ic_call refused = {t0 + 1, true, 0}, served = {t0 + 7, false, 1};
    CHECK_INT(cwmetric_component(&m, "ic", &refused), 0); /* 1: not over 1 */
    CHECK_INT(cwmetric_component(&m, "other", &refused), 0);
    CHECK_INT(cwmetric_component(&m, "other", &refused), 0); /* another component's */
    CHECK_INT(cwalarm_run(&al, &m, t0 + 6, on_fire, &f, &next), 0);
    CHECK_INT(al.a[0].state, CWALARM_OK);
    CHECK_INT(f.n, 0);
    refused.t = t0 + 7;
    for (int i = 0; i < 3; i++) CHECK_INT(cwmetric_component(&m, "ic", &refused), 0);
    CHECK_INT(cwmetric_component(&m, "ic", &served), 0);
    CHECK_INT(cwalarm_run(&al, &m, t0 + 12, on_fire, &f, &next), 0);
    CHECK_INT(al.a[0].state, CWALARM_ALARM);
    CHECK_INT(f.n, 1);
    CHECK(f.value == 3); /* the breach the step policy reads: 3 - 1 */
    CHECK_STR(f.arn, "arn:aws:autoscaling:us-east-1:1:scalingPolicy:z");
    served.t = t0 + 13; /* a copy serves: the period's Sum is 0 */
    CHECK_INT(cwmetric_component(&m, "ic", &served), 0);
    CHECK_INT(cwalarm_run(&al, &m, t0 + 18, on_fire, &f, &next), 0);
    CHECK_INT(al.a[0].state, CWALARM_OK);
    CHECK_INT(f.n, 1);
    cwmetric_free(&m);
    cwalarm_free(&al);
    buf_free(&r.body);
}

/* ---- target tracking's own alarms (aascale_tracking_alarms, cwalarm_sync) ---- */

static void tracking_policy(struct aascale_policy *p, const char *resource, const char *config) {
    memset(p, 0, sizeof *p);
    snprintf(p->region, sizeof p->region, "us-east-1");
    snprintf(p->resource, sizeof p->resource, "%s", resource);
    snprintf(p->name, sizeof p->name, "ipc");
    snprintf(p->arn, sizeof p->arn, "arn:aws:autoscaling:us-east-1:1:scalingPolicy:u:policyName/t");
    snprintf(p->alarm_high, sizeof p->alarm_high, "TargetTracking-%s-AlarmHigh-a1", resource);
    snprintf(p->alarm_low, sizeof p->alarm_low, "TargetTracking-%s-AlarmLow-a2", resource);
    p->kind = AASCALE_TRACKING;
    p->config = (char *)config;
}

static void test_tracking_alarms(void) {
    struct aascale_policy p;
    struct cwalarm_spec s[2];
    tracking_policy(&p, "endpoint/ep/variant/AllTraffic",
                    "{\"TargetValue\":70,\"PredefinedMetricSpecification\":{"
                    "\"PredefinedMetricType\":\"SageMakerVariantInvocationsPerInstance\"}}");
    CHECK(aascale_tracking_alarms(&p, s));
    CHECK_STR(s[0].name, "TargetTracking-endpoint/ep/variant/AllTraffic-AlarmHigh-a1");
    CHECK_STR(s[1].name, "TargetTracking-endpoint/ep/variant/AllTraffic-AlarmLow-a2");
    CHECK_STR(s[0].q.name, "InvocationsPerInstance");
    CHECK_STR(s[0].q.endpoint, "ep");
    CHECK_STR(s[0].q.variant, "AllTraffic");
    CHECK(s[0].q.period == 60 && strcmp(s[0].q.stat, "Sum") == 0 && s[0].eval_periods == 3 &&
          s[0].threshold == 70 && s[0].cmp == CWALARM_GT);
    CHECK(s[1].eval_periods == 15 && fabs(s[1].threshold - 63) < 1e-9 && s[1].cmp == CWALARM_LT);
    CHECK(s[0].alarm_actions.n == 1 && strcmp(s[0].alarm_actions.arn[0], p.arn) == 0);
    tracking_policy(
        &p, "inference-component/ic",
        "{\"TargetValue\":1,\"PredefinedMetricSpecification\":{\"PredefinedMetricType\":"
        "\"SageMakerInferenceComponentInvocationsPerCopy\"}}");
    CHECK(aascale_tracking_alarms(&p, s));
    CHECK_STR(s[0].q.name, "InvocationsPerCopy");
    CHECK_STR(s[0].q.component, "ic");
    CHECK(!*s[0].q.endpoint);
    tracking_policy(
        &p, "endpoint/ep/variant/AllTraffic",
        "{\"TargetValue\":5,\"PredefinedMetricSpecification\":{\"PredefinedMetricType\":"
        "\"SageMakerVariantConcurrentRequestsPerModelHighResolution\"}}");
    CHECK(aascale_tracking_alarms(&p, s));
    CHECK(strcmp(s[0].q.name, "ConcurrentRequestsPerModel") == 0 && s[0].q.period == 10 &&
          strcmp(s[0].q.stat, "Average") == 0);
    p.kind = AASCALE_STEP;
    CHECK(!aascale_tracking_alarms(&p, s)); /* a step policy has none */

    /* kept in the alarms by cwalarm_sync: listed, state kept, gone with the policy */
    struct cwalarm al;
    struct cplane_reply r = {0};
    struct cwalarm_refusal why;
    buf_init(&r.body, 1 << 20);
    cwalarm_init(&al, "123456789012");
    CHECK_INT(call(&al, "PutMetricAlarm", PUT_JSON "}", &r), 0); /* a user's: untouched */
    tracking_policy(&p, "endpoint/ep/variant/AllTraffic",
                    "{\"TargetValue\":70,\"PredefinedMetricSpecification\":{"
                    "\"PredefinedMetricType\":\"SageMakerVariantInvocationsPerInstance\"}}");
    CHECK(aascale_tracking_alarms(&p, s));
    CHECK_INT(cwalarm_sync(&al, s, 2, "us-east-1", 1e9, &why), 0);
    CHECK_INT((int)al.n, 3);
    CHECK_INT(call(&al, "DescribeAlarms", "{\"AlarmNamePrefix\":\"TargetTracking-\"}", &r), 0);
    CHECK(strstr(r.body.data, "\"AlarmName\":\"TargetTracking-endpoint/ep/variant/AllTraffic-"
                              "AlarmHigh-a1\""));
    CHECK(strstr(r.body.data, "\"AlarmName\":\"TargetTracking-endpoint/ep/variant/AllTraffic-"
                              "AlarmLow-a2\""));
    CHECK(strstr(r.body.data, "\"AlarmDescription\":\"DO NOT EDIT OR DELETE. For "
                              "TargetTrackingScaling policy arn:aws:autoscaling:"));
    CHECK(strstr(r.body.data, "\"Threshold\":70,\"ComparisonOperator\":\"GreaterThanThreshold\""));
    al.a[1].state = CWALARM_ALARM; /* as an evaluation left it */
    double updated = al.a[1].updated;
    CHECK_INT(cwalarm_sync(&al, s, 2, "us-east-1", 2e9, &why), 0); /* the same: kept as is */
    CHECK_INT(al.a[1].state, CWALARM_ALARM);
    CHECK(al.a[1].updated == updated);
    CHECK_INT(cwalarm_sync(&al, s, 0, "eu-west-3", 2e9, &why), 0); /* another region's */
    CHECK_INT((int)al.n, 3);
    CHECK_INT(cwalarm_sync(&al, s, 0, "us-east-1", 2e9, &why), 0); /* the policy gone */
    CHECK_INT((int)al.n, 1);
    CHECK_STR(al.a[0].s.name, "hi");
    cwalarm_free(&al);
    buf_free(&r.body);
}

int main(void) {
    test_judge();
    test_json();
    test_query();
    test_run();
    test_dimensions();
    test_run_component();
    test_tracking_alarms();
    return check_exit();
}
