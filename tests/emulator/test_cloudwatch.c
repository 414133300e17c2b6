/* The emulator's CloudWatch cores, without a server: Logs (cwlog.h: the store,
 * its bound, FilterLogEvents' windows, streams, patterns, pages and refusals),
 * metrics (cwmetric.h: what each request counts, periods in model time,
 * statistics, order, dimensions, pages, refusals) and the query protocol
 * (cwquery.h: the aws CLI's form read, the XML written and escaped). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../check.h"
#include "cwlog.h"
#include "cwmetric.h"
#include "cwquery.h"

#define T0 1796144040.0 /* a whole minute, 2026-12-01T16:54:00Z */

static struct cplane_reply reply(void) {
    struct cplane_reply r = {0};
    buf_init(&r.body, BUF_NO_CAP);
    return r;
}

/* The messages of a FilterLogEvents reply, "|"-separated, and its nextToken. */
static void messages(const struct cplane_reply *r, char *out, size_t cap, char *token) {
    cJSON *d = cJSON_Parse(buf_str(&r->body)), *e;
    size_t n = 0;
    out[0] = token[0] = '\0';
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "events")) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
        n += (size_t)snprintf(out + n, cap - n, "%s|", m->valuestring);
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(d, "nextToken");
    if (cJSON_IsString(t)) snprintf(token, 32, "%s", t->valuestring);
    cJSON_Delete(d);
}

static void test_logs(void) {
    struct cwlog l;
    struct cplane_reply r = reply();
    char got[512], token[32];
    cwlog_init(&l, "us-east-1");
    CHECK_INT(
        cwlog_add(&l, "ep", "bf16/i-emulator", T0, "vLLM API server version 0.30.0", 30, true), 0);
    CHECK_INT(cwlog_add(&l, "ep", "bf16/i-emulator", T0 + 1, "POST /invocations 200", 21, false),
              0);
    CHECK_INT(
        cwlog_add(&l, "ep", "qat/i-emulator", T0 + 2, "GPU KV cache size: 9 tokens", 27, true), 0);
    CHECK_INT(
        cwlog_add(&l, "ep", "bf16/i-emulator", T0 + 3, "Avg generation throughput: 1", 28, false),
        0);
    static const struct {
        const char *req, *want, *token;
    } rows[] = {
        {"{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\"}",
         "vLLM API server version 0.30.0|POST /invocations 200|GPU KV cache size: 9 tokens|Avg "
         "generation throughput: 1|",
         ""},
        /* both ends of the window are in it */
        {"{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\",\"startTime\":1796144041000,"
         "\"endTime\":1796144042000}",
         "POST /invocations 200|GPU KV cache size: 9 tokens|", ""},
        {"{\"logGroupIdentifier\":\"arn:aws:logs:us-east-1:1:log-group:/aws/sagemaker/Endpoints/"
         "ep:*\",\"logStreamNamePrefix\":\"qat/\"}",
         "GPU KV cache size: 9 tokens|", ""},
        {"{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\",\"logStreamNames\":[\"bf16/"
         "i-emulator\"],"
         "\"filterPattern\":\"-POST\"}",
         "vLLM API server version 0.30.0|Avg generation throughput: 1|", ""},
        {"{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\",\"filterPattern\":"
         "\"?\\\"KV cache\\\" ?\\\"server version\\\"\"}",
         "vLLM API server version 0.30.0|GPU KV cache size: 9 tokens|", ""},
        {"{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\",\"filterPattern\":\"Avg generation\"}",
         "Avg generation throughput: 1|", ""},
        /* pages: limit 2, then from the token */
        {"{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\",\"limit\":2}",
         "vLLM API server version 0.30.0|POST /invocations 200|", "3"},
        {"{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\",\"limit\":2,\"nextToken\":\"3\"}",
         "GPU KV cache size: 9 tokens|Avg generation throughput: 1|", ""},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        CHECK_INT(
            cwlog_call(&l, "FilterLogEvents", rows[i].req, strlen(rows[i].req), "us-east-1", &r),
            0);
        CHECK_INT(r.status, 200);
        messages(&r, got, sizeof got, token);
        CHECK_STR(got, rows[i].want);
        CHECK_STR(token, rows[i].token);
    }
    static const struct {
        const char *op, *req, *region, *type;
    } refused[] = {
        {"FilterLogEvents", "{\"logGroupName\":\"/aws/sagemaker/Endpoints/nope\"}", "us-east-1",
         "ResourceNotFoundException"},
        {"FilterLogEvents", "{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\"}", "eu-west-1",
         "ResourceNotFoundException"}, /* no containers there */
        {"FilterLogEvents", "{}", "us-east-1", "InvalidParameterException"},
        {"FilterLogEvents", "{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\",\"limit\":0}",
         "us-east-1", "InvalidParameterException"},
        {"FilterLogEvents",
         "{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\",\"nextToken\":\"x\"}", "us-east-1",
         "InvalidParameterException"},
        {"FilterLogEvents",
         "{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\",\"filterPattern\":\"{ $.a = 1 }\"}",
         "us-east-1", "InvalidParameterException"},
        {"FilterLogEvents", "[]", "us-east-1", "SerializationException"},
        {"DescribeLogGroups", "{}", "us-east-1", "UnknownOperationException"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        CHECK_INT(cwlog_call(&l, refused[i].op, refused[i].req, strlen(refused[i].req),
                             refused[i].region, &r),
                  0);
        CHECK_INT(r.status, 400);
        CHECK_STR(r.type, refused[i].type);
    }
    /* past the bound the oldest lines go, but not the start-up lines */
    l.max_bytes = 4000;
    char line[100];
    memset(line, 'x', sizeof line);
    for (int i = 0; i < 100; i++)
        CHECK_INT(cwlog_add(&l, "ep", "bf16/i-emulator", T0 + 10 + i, line, sizeof line, false), 0);
    CHECK(l.groups[0].bytes <= 4000 && l.groups[0].bytes >= 2900);
    const char *facts = "{\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\",\"filterPattern\":"
                        "\"?version ?KV ?POST\"}";
    CHECK_INT(cwlog_call(&l, "FilterLogEvents", facts, strlen(facts), "us-east-1", &r), 0);
    messages(&r, got, sizeof got, token);
    CHECK_STR(got, "vLLM API server version 0.30.0|GPU KV cache size: 9 tokens|");
    bool bad;
    CHECK(cwlog_match("a -b", "xa", 2, &bad) && !bad);
    CHECK(!cwlog_match("a -b", "ab", 2, &bad) && !bad);
    CHECK(!cwlog_match("\"open", "open", 4, &bad) && bad);
    CHECK(!cwlog_match("?", "x", 1, &bad) && bad);
    buf_free(&r.body);
    cwlog_free(&l);
}

/* A GetMetricData JSON request of one query over [T0, T0 + span). */
static void metric_req(char *out, size_t cap, const char *ns, const char *name, const char *stat,
                       const char *dims, int period, double span, const char *more) {
    snprintf(
        out, cap,
        "{\"MetricDataQueries\":[{\"Id\":\"q\",\"MetricStat\":{\"Metric\":{\"Namespace\":\"%s\","
        "\"MetricName\":\"%s\",\"Dimensions\":[%s]},\"Period\":%d,\"Stat\":\"%s\"}}],"
        "\"StartTime\":%.3f,\"EndTime\":%.3f%s}",
        ns, name, dims, period, stat, T0, T0 + span, more);
}

/* The reply's only result as "t=v,..." (t relative to T0), and its status. */
static void points(const struct cplane_reply *r, char *out, size_t cap, char *status) {
    cJSON *d = cJSON_Parse(buf_str(&r->body));
    const cJSON *res =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "MetricDataResults"), 0);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(res, "Timestamps")->child;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "Values")->child;
    size_t n = 0;
    out[0] = '\0';
    for (; t && v; t = t->next, v = v->next)
        n += (size_t)snprintf(out + n, cap - n, "%g=%g,", t->valuedouble - T0, v->valuedouble);
    snprintf(status, 32, "%s", cJSON_GetObjectItemCaseSensitive(res, "StatusCode")->valuestring);
    cJSON_Delete(d);
}

static void test_metrics(void) {
    struct cwmetric m;
    struct cplane_reply r = reply();
    char req[2048], got[512], status[32];
    const char *both = "{\"Name\":\"EndpointName\",\"Value\":\"ep\"},{\"Name\":\"VariantName\","
                       "\"Value\":\"bf16\"}";
    cwmetric_init(&m, "us-east-1", 10); /* a period of 60 model s is 6 wall s */
    CHECK_INT(cwmetric_start(&m, "ep", "bf16", T0), 0);
    const struct cwmetric_call calls[] = {
        /* the first two when the variant ran two instances */
        {T0 + 1, 200, false, true, 2e6, 5e5, 0.5}, {T0 + 2, 200, false, true, 4e6, 5e5, 0.5},
        {T0 + 3, 429, false, false, 0, 0, 1},      {T0 + 7, 424, true, true, 1e6, 5e5, 1},
        {T0 + 8, 503, false, false, 0, 0, 1},      {T0 + 9, 0, false, false, 0, 0, 0}, /* lost */
    };
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        CHECK_INT(cwmetric_count(&m, "ep", "bf16", &calls[i]), 0);
    CHECK_INT(cwmetric_busy(&m, "ep", "bf16", T0 + 1, T0 + 2), 0);
    CHECK_INT(cwmetric_busy(&m, "ep", "bf16", T0 + 2, T0 + 4), 0); /* back to back: one span */
    CHECK_INT(cwmetric_busy(&m, "ep", "bf16", T0 + 5, T0 + 7.5), 0);
    CHECK_INT((int)m.v[0].n_busy, 2);
    CHECK_INT(cwmetric_count(&m, "ep", "qat", &calls[0]), 0);
    static const struct {
        const char *ns, *name, *stat;
        int dims; /* 0 both, 1 the endpoint only, 2 another dimension too */
        const char *more, *want;
    } rows[] = {
        {"AWS/SageMaker", "Invocations", "Sum", 0, "", "6=3,0=3,"},
        {"AWS/SageMaker", "Invocations", "Sum", 0, ",\"ScanBy\":\"TimestampAscending\"",
         "0=3,6=3,"},
        {"AWS/SageMaker", "Invocations", "Sum", 1, ",\"ScanBy\":\"TimestampAscending\"",
         "0=4,6=3,"},
        {"AWS/SageMaker", "Invocations", "Sum", 2, "", ""},
        {"AWS/SageMaker", "InvocationsPerInstance", "Sum", 0, "", "6=3,0=2,"},
        {"AWS/SageMaker", "Invocation4XXErrors", "Sum", 0, "", "6=1,0=1,"},
        {"AWS/SageMaker", "Invocation5XXErrors", "Sum", 0, "", "6=1,0=0,"},
        {"AWS/SageMaker", "Invocation4XXErrors", "Average", 0, "", "6=0.333333,0=0.333333,"},
        {"AWS/SageMaker", "InvocationModelErrors", "Sum", 0, "", "6=1,0=0,"},
        {"AWS/SageMaker", "ModelLatency", "Sum", 0, "", "6=1e+06,0=6e+06,"},
        {"AWS/SageMaker", "ModelLatency", "SampleCount", 0, "", "6=1,0=2,"},
        {"AWS/SageMaker", "ModelLatency", "Maximum", 0, "", "6=1e+06,0=4e+06,"},
        {"AWS/SageMaker", "OverheadLatency", "Average", 0, "", "6=500000,0=500000,"},
        {"/aws/sagemaker/Endpoints", "GPUUtilization", "Average", 0,
         ",\"ScanBy\":\"TimestampAscending\"", "0=66.6667,6=25,"},
        {"/aws/sagemaker/Endpoints", "CPUUtilization", "Average", 0,
         ",\"ScanBy\":\"TimestampAscending\"", "0=67.3333,6=26.5,"},
        {"/aws/sagemaker/Endpoints", "GPUMemoryUtilization", "Maximum", 0,
         ",\"ScanBy\":\"TimestampAscending\"", "0=90,6=90,"},
        {"AWS/SageMaker", "GPUUtilization", "Average", 0, "", ""}, /* not in that namespace */
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const char *dims = rows[i].dims == 0   ? both
                           : rows[i].dims == 1 ? "{\"Name\":\"EndpointName\",\"Value\":\"ep\"}"
                                               : "{\"Name\":\"EndpointName\",\"Value\":\"ep\"},"
                                                 "{\"Name\":\"Host\",\"Value\":\"i\"}";
        metric_req(req, sizeof req, rows[i].ns, rows[i].name, rows[i].stat, dims, 60, 12,
                   rows[i].more);
        CHECK_INT(cwmetric_call(&m, "GetMetricData", req, strlen(req), "us-east-1", T0 + 12, &r),
                  0);
        CHECK_INT(r.status, 200);
        points(&r, got, sizeof got, status);
        if (strcmp(got, rows[i].want) != 0)
            fprintf(stderr, "row %zu: %s %s\n", i, rows[i].name, rows[i].stat);
        CHECK_STR(got, rows[i].want);
    }
    /* a page of one data point, then the rest from its token */
    static const struct {
        const char *more, *want, *status;
        bool next;
    } pages[] = {{",\"MaxDatapoints\":1", "6=3,", "PartialData", true},
                 {",\"MaxDatapoints\":1,\"NextToken\":\"1\"", "0=3,", "Complete", false}};
    for (size_t i = 0; i < 2; i++) {
        metric_req(req, sizeof req, "AWS/SageMaker", "Invocations", "Sum", both, 60, 12,
                   pages[i].more);
        CHECK_INT(cwmetric_call(&m, "GetMetricData", req, strlen(req), "us-east-1", T0 + 12, &r),
                  0);
        points(&r, got, sizeof got, status);
        CHECK_STR(got, pages[i].want);
        CHECK_STR(status, pages[i].status);
        CHECK((strstr(buf_str(&r.body), "\"NextToken\":\"1\"") != NULL) == pages[i].next);
    }
    /* the start is rounded down to its period; the end is left out */
    metric_req(req, sizeof req, "AWS/SageMaker", "Invocations", "Sum", both, 60, 6, "");
    double start_late = T0 + 5;
    char *at = strstr(req, "\"StartTime\":");
    snprintf(at, 80, "\"StartTime\":%.3f,\"EndTime\":%.3f}", start_late, T0 + 6);
    CHECK_INT(cwmetric_call(&m, "GetMetricData", req, strlen(req), "us-east-1", T0 + 12, &r), 0);
    points(&r, got, sizeof got, status);
    CHECK_STR(got, "0=3,");
    static const struct {
        const char *req, *type;
    } refused[] = {
        {"{\"StartTime\":1,\"EndTime\":2}", "MissingRequiredParameterException"},
        {"{\"MetricDataQueries\":[{\"Id\":\"Q\",\"MetricStat\":{\"Metric\":{\"Namespace\":\"n\","
         "\"MetricName\":\"m\"},\"Period\":60,\"Stat\":\"Sum\"}}],\"StartTime\":1,\"EndTime\":2}",
         "InvalidParameterValueException"},
        {"{\"MetricDataQueries\":[{\"Id\":\"q\",\"MetricStat\":{\"Metric\":{\"Namespace\":\"n\","
         "\"MetricName\":\"m\"},\"Period\":7,\"Stat\":\"Sum\"}}],\"StartTime\":1,\"EndTime\":2}",
         "InvalidParameterValueException"},
        {"{\"MetricDataQueries\":[{\"Id\":\"q\",\"MetricStat\":{\"Metric\":{\"Namespace\":\"n\","
         "\"MetricName\":\"m\"},\"Period\":60,\"Stat\":\"p99\"}}],\"StartTime\":1,\"EndTime\":2}",
         "InvalidParameterValueException"},
        {"{\"MetricDataQueries\":[{\"Id\":\"q\",\"Expression\":\"SUM(x)\"}],\"StartTime\":1,"
         "\"EndTime\":2}",
         "InvalidParameterValueException"},
        {"{\"MetricDataQueries\":[{\"Id\":\"q\",\"MetricStat\":{\"Metric\":{\"Namespace\":\"n\","
         "\"MetricName\":\"m\"},\"Period\":60,\"Stat\":\"Sum\"}}],\"StartTime\":3,\"EndTime\":2}",
         "InvalidParameterValueException"},
        {"{\"MetricDataQueries\":[{\"Id\":\"q\",\"MetricStat\":{\"Metric\":{\"Namespace\":\"n\","
         "\"MetricName\":\"m\"},\"Period\":60,\"Stat\":\"Sum\"}}],\"StartTime\":1,\"EndTime\":2,"
         "\"NextToken\":\"x\"}",
         "InvalidNextToken"},
        {"7", "SerializationException"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        CHECK_INT(cwmetric_call(&m, "GetMetricData", refused[i].req, strlen(refused[i].req),
                                "us-east-1", T0, &r),
                  0);
        CHECK_INT(r.status, 400);
        CHECK_STR(r.type, refused[i].type);
    }
    buf_free(&r.body);
    cwmetric_free(&m);
}

static void test_query(void) {
    struct cwmetric m;
    struct cplane_reply r = reply();
    struct cwmetric_req *req = malloc(sizeof *req);
    cwmetric_init(&m, "us-east-1", 1);
    CHECK_INT(cwmetric_start(&m, "ep", "AllTraffic", T0), 0);
    struct cwmetric_call c = {T0 + 5, 200, false, true, 1e6, 1e5, 1};
    CHECK_INT(cwmetric_count(&m, "ep", "AllTraffic", &c), 0);
    /* as the aws CLI 2.9 writes it (members out of order, + for a space, %XX) */
    const char *form =
        "Action=GetMetricData&Version=2010-08-01&MetricDataQueries.member.1.Id=inv&"
        "MetricDataQueries.member.1.Label=all+calls%21&"
        "MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.2.Value=AllTraffic&"
        "MetricDataQueries.member.1.MetricStat.Metric.Namespace=AWS%2FSageMaker&"
        "MetricDataQueries.member.1.MetricStat.Metric.MetricName=Invocations&"
        "MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.1.Name=EndpointName&"
        "MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.1.Value=ep&"
        "MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.2.Name=VariantName&"
        "MetricDataQueries.member.1.MetricStat.Period=60&MetricDataQueries.member.1.MetricStat."
        "Stat=Sum&"
        "MetricDataQueries.member.2.Id=hidden&MetricDataQueries.member.2.ReturnData=false&"
        "MetricDataQueries.member.2.MetricStat.Metric.Namespace=AWS%2FSageMaker&"
        "MetricDataQueries.member.2.MetricStat.Metric.MetricName=Invocations&"
        "MetricDataQueries.member.2.MetricStat.Period=60&MetricDataQueries.member.2.MetricStat."
        "Stat=Sum&"
        "StartTime=2026-12-01T16%3A54%3A00Z&EndTime=2026-12-01T16%3A55%3A00Z";
    CHECK_INT(cwquery_read(form, strlen(form), req), 0);
    CHECK_INT((int)req->n, 2);
    CHECK_STR(req->q[0].label, "all calls!");
    CHECK_STR(req->q[0].endpoint, "ep");
    CHECK_STR(req->q[0].variant, "AllTraffic");
    CHECK_STR(req->q[0].ns, "AWS/SageMaker");
    CHECK(req->q[1].hidden && req->start == T0 && req->end == T0 + 60);
    CHECK_INT(cwquery_call(&m, "GetMetricData", form, strlen(form), "us-east-1", T0 + 60, &r), 0);
    CHECK_INT(r.status, 200);
    const char *want =
        "<GetMetricDataResponse xmlns=\"http://monitoring.amazonaws.com/doc/2010-08-01/\">"
        "<GetMetricDataResult><MetricDataResults><member><Id>inv</Id><Label>all calls!"
        "</Label><Timestamps><member>2026-12-01T16:54:00+00:00</member></Timestamps>"
        "<Values><member>1</member></Values><StatusCode>Complete</StatusCode>"
        "<Messages/></member></MetricDataResults><Messages/></GetMetricDataResult>"
        "<ResponseMetadata><RequestId>";
    CHECK(strncmp(buf_str(&r.body), want, strlen(want)) == 0);
    const char *no_time = "Action=GetMetricData&MetricDataQueries.member.1.Id=a";
    CHECK_INT(cwquery_call(&m, "GetMetricData", no_time, strlen(no_time), "us-east-1", T0, &r), 0);
    CHECK_INT(r.status, 400);
    CHECK_STR(r.type, "MissingParameter");
    CHECK(strstr(buf_str(&r.body),
                 "<Error><Type>Sender</Type><Code>MissingParameter</Code>"
                 "<Message>The parameter StartTime is required.</Message>") != NULL);
    CHECK_INT(cwquery_call(&m, "ListMetrics", "", 0, "us-east-1", T0, &r), 0);
    CHECK_STR(r.type, "InvalidAction");
    /* escaping: markup, quotes, control characters and bytes that are not UTF-8 */
    struct buf x;
    buf_init(&x, BUF_NO_CAP);
    const char *markup = "<a href='x'>&\"\x01\xff\xc3\xa9\t</a>";
    CHECK_INT(cwquery_text(&x, markup, strlen(markup)), 0);
    CHECK_STR(buf_str(&x),
              "&lt;a href=&apos;x&apos;&gt;&amp;&quot;\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\t"
              "&lt;/a&gt;");
    buf_free(&x);
    free(req);
    buf_free(&r.body);
    cwmetric_free(&m);
}

/* An inference component's metrics (dimension InferenceComponentName alone):
 * its refused calls as NoCapacityInvocationFailures, those its copies took as
 * Invocations and InvocationsPerCopy; no variant metric by component and no
 * component metric by variant. */
static void test_component_metrics(void) {
    struct cwmetric m;
    struct cplane_reply r = reply();
    char req[2048], got[512], status[32];
    const char *ic = "{\"Name\":\"InferenceComponentName\",\"Value\":\"ic\"}";
    const char *ep = "{\"Name\":\"EndpointName\",\"Value\":\"ep\"}";
    cwmetric_init(&m, "us-east-1", 10); /* a period of 60 model s is 6 wall s */
    CHECK_INT(cwmetric_start(&m, "ep", "AllTraffic", T0), 0);
    const struct cwmetric_ic_call calls[] = {
        {T0 + 1, true, 0}, {T0 + 2, true, 0},     {T0 + 3, true, 0}, /* no copy */
        {T0 + 7, true, 0}, {T0 + 8, false, 1.0f}, {T0 + 9, false, 0.5f},
    };
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        CHECK_INT(cwmetric_component(&m, "ic", &calls[i]), 0);
    CHECK_INT(cwmetric_component(&m, "other", &calls[0]), 0);
    struct cwmetric_call c = {T0 + 8, 200, false, true, 1e6, 1e5, 1};
    CHECK_INT(cwmetric_count(&m, "ep", "AllTraffic", &c), 0);
    static const struct {
        const char *name, *stat;
        bool by_ic, with_ep;
        const char *want;
    } rows[] = {
        {"NoCapacityInvocationFailures", "Sum", true, false, "6=1,0=3,"},
        {"NoCapacityInvocationFailures", "SampleCount", true, false, "6=3,0=3,"},
        {"Invocations", "Sum", true, false, "6=2,"},
        {"InvocationsPerCopy", "Sum", true, false, "6=1.5,"},
        {"Invocations", "Sum", false, true, "6=1,"},              /* the variant's */
        {"ModelLatency", "Sum", true, false, ""},                 /* not by component */
        {"NoCapacityInvocationFailures", "Sum", false, true, ""}, /* not by variant */
        {"NoCapacityInvocationFailures", "Sum", true, true, ""},  /* not both */
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char dims[256];
        snprintf(dims, sizeof dims, "%s%s%s", rows[i].by_ic ? ic : "",
                 rows[i].by_ic && rows[i].with_ep ? "," : "", rows[i].with_ep ? ep : "");
        metric_req(req, sizeof req, "AWS/SageMaker", rows[i].name, rows[i].stat, dims, 60, 12, "");
        CHECK_INT(cwmetric_call(&m, "GetMetricData", req, strlen(req), "us-east-1", T0 + 12, &r),
                  0);
        CHECK_INT(r.status, 200);
        points(&r, got, sizeof got, status);
        if (strcmp(got, rows[i].want) != 0) fprintf(stderr, "component row %zu:\n", i);
        CHECK_STR(got, rows[i].want);
    }
    /* the aws CLI's query protocol names the dimension the same way (newest first) */
    const char *form =
        "Action=GetMetricData&Version=2010-08-01&MetricDataQueries.member.1.Id=nc&"
        "MetricDataQueries.member.1.MetricStat.Metric.Namespace=AWS%2FSageMaker&"
        "MetricDataQueries.member.1.MetricStat.Metric.MetricName=NoCapacityInvocationFailures&"
        "MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.1.Name="
        "InferenceComponentName&"
        "MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.1.Value=ic&"
        "MetricDataQueries.member.1.MetricStat.Period=60&MetricDataQueries.member.1.MetricStat."
        "Stat=Sum&StartTime=2026-12-01T16%3A54%3A00Z&EndTime=2026-12-01T16%3A54%3A12Z";
    CHECK_INT(cwquery_call(&m, "GetMetricData", form, strlen(form), "us-east-1", T0 + 12, &r), 0);
    CHECK(r.status == 200 && strstr(buf_str(&r.body), "<Values><member>1</member><member>3"
                                                      "</member></Values>"));
    buf_free(&r.body);
    cwmetric_free(&m);
}

int main(void) {
    test_logs();
    test_metrics();
    test_query();
    test_component_metrics();
    return check_exit();
}
