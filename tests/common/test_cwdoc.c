/* CloudWatch's documents (common/cwdoc.h): a FilterLogEvents page and what the
 * aws CLI prints, GetMetricData's JSON 1.0 page (epoch seconds) and the CLI's
 * output (ISO 8601 strings, an Id repeated across pages), the refusals, the
 * bounds, and the writers read back by the readers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "cwdoc.h"

/* Events as "time|stream|id|message;" */
static int collect(void *ud, const struct cwdoc_event *e) {
    struct buf *b = ud;
    return buf_addf(b, "%lld|%s|%s|%.*s;", e->timestamp_ms, e->stream, e->event_id,
                    (int)e->message_len, e->message)
               ? -9
               : 0;
}

static int stop_second(void *ud, const struct cwdoc_event *e) {
    int *n = ud;
    (void)e;
    return ++*n == 2 ? -42 : 0;
}

static void test_events(void) {
    struct buf got, err;
    buf_init(&got, BUF_NO_CAP);
    buf_init(&err, 1024);
    /* a reply page: as FilterLogEvents answers */
    const char *page =
        "{\"events\":[{\"logStreamName\":\"AllTraffic/i-1\",\"timestamp\":"
        "1796144083418,\"message\":\"vLLM API server version 0.30.0\","
        "\"ingestionTime\":1796144083420,\"eventId\":\"3711\"},{\"timestamp\":5,"
        "\"message\":\"two\\nlines\"}],\"searchedLogStreams\":[],\"nextToken\":\"x\"}";
    CHECK_INT(cwdoc_events(page, strlen(page), collect, &got, &err), 0);
    CHECK_STR(buf_str(&got), "1796144083418|AllTraffic/i-1|3711|vLLM API server version 0.30.0;"
                             "5|||two\nlines;");
    /* the callback's code comes back, and nothing after it is read */
    int n = 0;
    CHECK_INT(cwdoc_events(page, strlen(page), stop_second, &n, &err), -42);
    CHECK_INT(n, 2);

    static const struct {
        const char *doc, *why;
    } bad[] = {
        {"[]", "not a JSON object (another JSON value)"},
        {"{\"events\":", "not a JSON object (not JSON)"},
        {"{\"nextToken\":\"x\"}", "no \"events\" list in the object"},
        {"{\"events\":[1]}", "events[0] is not an object"},
        {"{\"events\":[{\"timestamp\":1}]}", "events[0].message is not a string"},
        {"{\"events\":[{\"message\":\"m\"}]}",
         "events[0].timestamp is not a time in milliseconds since 1970"},
        {"{\"events\":[{\"message\":\"m\",\"timestamp\":-1}]}",
         "events[0].timestamp is not a time in milliseconds since 1970"},
        {"{\"events\":[{\"message\":\"m\",\"timestamp\":1.5}]}",
         "events[0].timestamp is not a time in milliseconds since 1970"},
        {"{\"events\":[{\"message\":\"m\",\"timestamp\":1,\"logStreamName\":7}]}",
         "events[0].logStreamName is not a string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        buf_reset(&got);
        CHECK_INT(cwdoc_events(bad[i].doc, strlen(bad[i].doc), collect, &got, &err),
                  CWDOC_ERR_FORMAT);
        CHECK_STR(buf_str(&err), bad[i].why);
    }
    /* a message past the bound is cut before a UTF-8 character */
    struct buf big;
    buf_init(&big, BUF_NO_CAP);
    CHECK_INT(buf_adds(&big, "{\"events\":[{\"timestamp\":1,\"message\":\"a"), 0);
    for (int i = 0; i < CWDOC_MESSAGE_MAX / 2; i++) CHECK_INT(buf_adds(&big, "\xc3\xa9"), 0);
    CHECK_INT(buf_adds(&big, "\"}]}"), 0);
    buf_reset(&got);
    CHECK_INT(cwdoc_events(big.data, big.len, collect, &got, &err), 0);
    CHECK_INT(got.len, strlen("1|||;") + CWDOC_MESSAGE_MAX - 1); /* 'a' + whole characters */
    buf_free(&big);
    buf_free(&got);
    buf_free(&err);
}

/* Results as "id|label|status|t=v,t=v;" */
static int series(void *ud, const struct cwdoc_series *s) {
    struct buf *b = ud;
    int rc = buf_addf(b, "%s|%s|%s|", s->id, s->label, s->status);
    for (size_t i = 0; !rc && i < s->n; i++) rc = buf_addf(b, "%.3f=%g,", s->t[i], s->v[i]);
    return rc || buf_addc(b, ';') ? -9 : 0;
}

static void test_metrics(void) {
    struct buf got, err;
    buf_init(&got, BUF_NO_CAP);
    buf_init(&err, 1024);
    /* the JSON 1.0 reply: epoch seconds (fractional for the emulator's model minutes) */
    const char *page = "{\"MetricDataResults\":[{\"Id\":\"invocations\",\"Label\":\"Invocations\","
                       "\"Timestamps\":[1796144040,1796144046.5],\"Values\":[3,4.5],"
                       "\"StatusCode\":\"Complete\"},{\"Id\":\"gpu\",\"Timestamps\":[],"
                       "\"Values\":[]}],\"Messages\":[],\"NextToken\":\"n\"}";
    CHECK_INT(cwdoc_metrics(page, strlen(page), series, &got, &err), 0);
    CHECK_STR(buf_str(&got),
              "invocations|Invocations|Complete|1796144040.000=3,1796144046.500=4.5,;"
              "gpu|||;");
    /* what the aws CLI prints: ISO 8601, any zone, the same Id from two pages */
    const char *cli = "{\"MetricDataResults\":[{\"Id\":\"inv\",\"Label\":\"Invocations\","
                      "\"Timestamps\":[\"2026-12-01T16:54:00+00:00\"],\"Values\":[3.0],"
                      "\"StatusCode\":\"PartialData\",\"Messages\":[]},{\"Id\":\"inv\","
                      "\"Timestamps\":[\"2026-12-01T17:55:00.250+01:00\",\"2026-12-01 16:56:00Z\"],"
                      "\"Values\":[1.0,2.0],\"StatusCode\":\"Complete\"}],\"Messages\":[]}";
    buf_reset(&got);
    CHECK_INT(cwdoc_metrics(cli, strlen(cli), series, &got, &err), 0);
    CHECK_STR(buf_str(&got), "inv|Invocations|PartialData|1796144040.000=3,;"
                             "inv||Complete|1796144100.250=1,1796144160.000=2,;");
    static const struct {
        const char *doc, *why;
    } bad[] = {
        {"{\"MetricDataResults\":{}}", "no \"MetricDataResults\" list in the object"},
        {"{\"MetricDataResults\":[{\"Timestamps\":[],\"Values\":[]}]}",
         "MetricDataResults[0] has no Id"},
        {"{\"MetricDataResults\":[{\"Id\":\"a\",\"Timestamps\":[1],\"Values\":[]}]}",
         "MetricDataResults[0]: Timestamps and Values are not two lists of one length"},
        {"{\"MetricDataResults\":[{\"Id\":\"a\",\"Timestamps\":[\"yesterday\"],\"Values\":[1]}]}",
         "MetricDataResults[0].Timestamps[0] is not a time"},
        {"{\"MetricDataResults\":[{\"Id\":\"a\",\"Timestamps\":[-5],\"Values\":[1]}]}",
         "MetricDataResults[0].Timestamps[0] is not a time"},
        {"{\"MetricDataResults\":[{\"Id\":\"a\",\"Timestamps\":[1],\"Values\":[\"1\"]}]}",
         "MetricDataResults[0].Values[0] is not a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_INT(cwdoc_metrics(bad[i].doc, strlen(bad[i].doc), series, &got, &err),
                  CWDOC_ERR_FORMAT);
        CHECK_STR(buf_str(&err), bad[i].why);
    }
    buf_free(&got);
    buf_free(&err);
}

static void test_times(void) {
    static const struct {
        const char *s;
        double t; /* < 0: refused */
    } rows[] = {
        {"1970-01-01T00:00:00Z", 0},
        {"2026-09-25T18:40:12.345678+00:00", 1790361612.345678},
        {"2026-09-25T20:40:12+02:00", 1790361612},
        {"2026-09-25T18:40:12-0130", 1790367012},
        {"2026-09-25 18:40:12Z", 1790361612},
        {"2026-09-25T18:40:12", -1},
        {"2026-09-25T18:40:12.Z", -1},
        {"2026-13-25T18:40:12Z", -1},
        {"1969-12-31T23:59:59Z", -1},
        {"2026-09-25T18:40:12+24:00", -1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        double t = -1;
        int rc = cwdoc_time(rows[i].s, strlen(rows[i].s), &t);
        CHECK_INT(rc, rows[i].t < 0 ? CWDOC_ERR_FORMAT : 0);
        if (rows[i].t >= 0 && fabs(t - rows[i].t) > 1e-6) {
            fprintf(stderr, "%s read as %.6f\n", rows[i].s, t);
            CHECK(0);
        }
    }
    char out[CWDOC_TIME_LEN];
    cwdoc_time_format(1790361612, false, out);
    CHECK_STR(out, "2026-09-25T18:40:12+00:00");
    cwdoc_time_format(1790361612, true, out);
    CHECK_STR(out, "2026-09-25T18:40:12.000+00:00");
    cwdoc_time_format(1790361612.9996, false, out); /* rounds into the next second */
    CHECK_STR(out, "2026-09-25T18:40:13+00:00");
    cwdoc_time_format(1790361612.25, false, out);
    CHECK_STR(out, "2026-09-25T18:40:12.250+00:00");
}

/* What the writers write, the readers read back as it was. */
static void test_round_trip(void) {
    struct buf doc, got, err;
    buf_init(&doc, BUF_NO_CAP);
    buf_init(&got, BUF_NO_CAP);
    buf_init(&err, 1024);
    struct cwdoc_event e = {1000, 1001, "v/i", "q\"uote\x01\xff", 8, "7"};
    CHECK_INT(buf_adds(&doc, "{\"events\":["), 0);
    CHECK_INT(cwdoc_event_json(&doc, &e), 0);
    CHECK_INT(buf_adds(&doc, "]}"), 0);
    CHECK_STR(buf_str(&doc),
              "{\"events\":[{\"logStreamName\":\"v/i\",\"timestamp\":1000,\"message\":"
              "\"q\\\"uote\\u0001\xef\xbf\xbd\",\"ingestionTime\":1001,\"eventId\":"
              "\"7\"}]}");
    CHECK_INT(cwdoc_events(doc.data, doc.len, collect, &got, &err), 0);
    CHECK_STR(buf_str(&got), "1000|v/i|7|q\"uote\x01\xef\xbf\xbd;");
    double t[] = {1790361600, 1790361606.5}, v[] = {1, 0.25};
    for (int iso = 0; iso < 2; iso++) {
        struct cwdoc_series s = {"model_latency_sum", "ModelLatency", "", t, v, 2};
        buf_reset(&doc);
        buf_reset(&got);
        CHECK_INT(buf_adds(&doc, "{\"MetricDataResults\":["), 0);
        CHECK_INT(cwdoc_series_json(&doc, &s, iso), 0);
        CHECK_INT(buf_adds(&doc, "]}"), 0);
        CHECK_INT(cwdoc_metrics(doc.data, doc.len, series, &got, &err), 0);
        CHECK_STR(buf_str(&got), "model_latency_sum|ModelLatency|Complete|1790361600.000=1,"
                                 "1790361606.500=0.25,;");
    }
    CHECK_INT(cwdoc_metric_find("gpu"), CWDOC_GPU);
    CHECK_INT(cwdoc_metric_find("GPUUtilization"), -1);
    CHECK_STR(cwdoc_metrics_asked[CWDOC_OVERHEAD_N].stat, "SampleCount");
    buf_free(&doc);
    buf_free(&got);
    buf_free(&err);
}

int main(void) {
    test_events();
    test_metrics();
    test_times();
    test_round_trip();
    return check_exit();
}
