/* Fuzzes the emulator's CloudWatch handlers (cwlog.h, cwmetric.h, cwquery.h)
 * with the bodies a client sends. Input: one control byte (bits 0-1: which:
 * FilterLogEvents, GetMetricData over JSON 1.0, GetMetricData as a query-protocol
 * form, a filter pattern alone), then the body.
 *
 * The stores hold a few lines and requests first, so windows, patterns and
 * pages reach real data. Every reply has status 200 or 400 and is valid UTF-8:
 * a JSON object (an error names its __type) or an XML document of the
 * protocol (a GetMetricDataResponse, or an ErrorResponse with a Code). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cwlog.h"
#include "cwmetric.h"
#include "cwquery.h"
#include "utf8.h"

#define FUZZ_T0 1796144040.0

static bool fuzz_utf8(const char *s, size_t n) {
    uint32_t c;
    for (size_t i = 0, k; i < n; i += k)
        if (!(k = utf8_decode((const unsigned char *)s + i, n - i, &c))) return false;
    return true;
}

static void fuzz_json(const struct cplane_reply *r) {
    if ((r->status != 200 && r->status != 400) || !fuzz_utf8(r->body.data, r->body.len)) abort();
    cJSON *j = cJSON_ParseWithLength(buf_str(&r->body), r->body.len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "__type");
    if (!cJSON_IsObject(j) || (r->status == 400) != cJSON_IsString(type)) abort();
    cJSON_Delete(j);
}

static void fuzz_xml(const struct cplane_reply *r) {
    const char *b = buf_str(&r->body);
    if (!fuzz_utf8(r->body.data, r->body.len)) abort();
    if (r->status == 200
            ? strncmp(b, "<GetMetricDataResponse ", 23) != 0
            : r->status != 400 || strncmp(b, "<ErrorResponse ", 15) != 0 || !strstr(b, "<Code>"))
        abort();
}

static void fuzz_fill(struct cwlog *l, struct cwmetric *m) {
    static const char *const lines[] = {
        "vLLM API server version 0.30.0", "GPU KV cache size: 723,484 tokens",
        "\"POST /invocations HTTP/1.1\" 200 OK", "Avg generation throughput: 12.5 tokens/s"};
    for (int i = 0; i < 4; i++)
        if (cwlog_add(l, "e", i % 2 ? "b/i-emulator" : "a/i-emulator", FUZZ_T0 + i, lines[i],
                      strlen(lines[i]), i < 2) ||
            cwmetric_count(m, "e", i % 2 ? "b" : "a",
                           &(struct cwmetric_call){FUZZ_T0 + i, (short)(200 + 100 * i), i == 2,
                                                   i < 2, 1e6f, 1e5f, 1}))
            abort();
    if (cwmetric_start(m, "e", "a", FUZZ_T0) || cwmetric_busy(m, "e", "a", FUZZ_T0, FUZZ_T0 + 2))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    struct cwlog l;
    struct cwmetric m;
    struct cplane_reply r = {0};
    buf_init(&r.body, BUF_NO_CAP);
    cwlog_init(&l, "us-east-1");
    cwmetric_init(&m, "us-east-1", 1 + (data[0] >> 4));
    fuzz_fill(&l, &m);
    switch (data[0] & 3) {
    case 0:
        if (cwlog_call(&l, "FilterLogEvents", p, n, "us-east-1", &r) == 0) fuzz_json(&r);
        break;
    case 1:
        if (cwmetric_call(&m, "GetMetricData", p, n, "us-east-1", FUZZ_T0 + 60, &r) == 0)
            fuzz_json(&r);
        break;
    case 2:
        if (cwquery_call(&m, "GetMetricData", p, n, "us-east-1", FUZZ_T0 + 60, &r) == 0)
            fuzz_xml(&r);
        break;
    default: {
        char *pattern = strndup(p, n);
        bool bad;
        if (pattern) (void)cwlog_match(pattern, "a \"b\" c", 7, &bad);
        free(pattern);
    }
    }
    buf_free(&r.body);
    cwlog_free(&l);
    cwmetric_free(&m);
    return 0;
}
