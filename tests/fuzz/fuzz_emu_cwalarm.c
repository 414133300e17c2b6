/* Fuzzes the emulator's CloudWatch alarms (cwalarm.h, cwaquery.h) with the
 * bodies a client sends. Input: one control byte (bits 0-1: PutMetricAlarm,
 * DescribeAlarms, DeleteAlarms; bit 2: the query protocol's form instead of
 * JSON 1.0), then the body.
 *
 * One alarm exists first and a request of its metric is counted, so
 * describing, deleting and evaluating reach real data; after the call every
 * alarm kept is evaluated (cwalarm_run). Every reply has status 200, 400 or
 * 404 and is valid UTF-8: a JSON object (an error names its __type) or an XML
 * document (the operation's Response, or an ErrorResponse with a Code). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cwalarm.h"
#include "cwaquery.h"
#include "utf8.h"

#define FUZZ_T0 1796144040.0

static const char *const fuzz_ops[] = {"PutMetricAlarm", "DescribeAlarms", "DeleteAlarms",
                                       "PutMetricAlarm"};

static bool fuzz_utf8(const char *s, size_t n) {
    uint32_t c;
    for (size_t i = 0, k; i < n; i += k)
        if (!(k = utf8_decode((const unsigned char *)s + i, n - i, &c))) return false;
    return true;
}

static void fuzz_check(const struct cplane_reply *r, bool xml) {
    if ((r->status != 200 && r->status != 400 && r->status != 404) ||
        !fuzz_utf8(r->body.data, r->body.len))
        abort();
    const char *b = buf_str(&r->body);
    if (xml) {
        if (r->status == 200 ? b[0] != '<' || strstr(b, "<ErrorResponse")
                             : strncmp(b, "<ErrorResponse ", 15) != 0 || !strstr(b, "<Code>"))
            abort();
        return;
    }
    cJSON *j = cJSON_ParseWithLength(b, r->body.len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "__type");
    if (!cJSON_IsObject(j) || (r->status != 200) != cJSON_IsString(type)) abort();
    cJSON_Delete(j);
}

static void fuzz_fire(void *ud, const struct cwalarm_alarm *a, const char *arn) {
    (void)ud;
    if (a->state != CWALARM_ALARM || !*arn) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char put[] =
        "{\"AlarmName\":\"a\",\"Namespace\":\"AWS/SageMaker\",\"MetricName\":\"Invocations\","
        "\"Statistic\":\"Sum\",\"Period\":60,\"EvaluationPeriods\":1,\"Threshold\":0,"
        "\"ComparisonOperator\":\"GreaterThanThreshold\",\"Dimensions\":[{\"Name\":"
        "\"EndpointName\",\"Value\":\"e\"}],\"AlarmActions\":[\"arn:x\"]}";
    if (size < 1) return 0;
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    bool xml = data[0] & 4;
    const char *op = fuzz_ops[data[0] & 3];
    struct cwalarm al;
    struct cwmetric m;
    struct cplane_reply r = {0};
    double next;
    buf_init(&r.body, BUF_NO_CAP);
    cwalarm_init(&al, "123456789012");
    cwmetric_init(&m, "us-east-1", 60);
    if (cwalarm_call(&al, "PutMetricAlarm", put, strlen(put), "us-east-1", FUZZ_T0, &r) ||
        r.status != 200 ||
        cwmetric_count(&m, "e", "v",
                       &(struct cwmetric_call){FUZZ_T0 + 0.5, 200, false, true, 1e6f, 1e5f, 1}))
        abort();
    int rc = xml ? cwaquery_call(&al, op, p, n, "us-east-1", FUZZ_T0 + 1, &r)
                 : cwalarm_call(&al, op, p, n, "us-east-1", FUZZ_T0 + 1, &r);
    if (rc == 0) fuzz_check(&r, xml);
    if (cwalarm_run(&al, &m, FUZZ_T0 + 2, fuzz_fire, NULL, &next)) abort();
    buf_free(&r.body);
    cwalarm_free(&al);
    cwmetric_free(&m);
    return 0;
}
