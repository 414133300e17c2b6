/* The CloudWatch cross-check (results/compare/cloudwatch_check.h) on a side built by hand: the
 * periods that hold a step (a model minute at a time scale), the client's
 * counts as ranges, which differences are flagged (requests CloudWatch counts
 * that no reply came for, fewer invocations than replies), the latency split
 * and the utilization means, and a step without data points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "cloudwatch_check.h"

#define T0 1796144040.0 /* a whole minute */

/* A metrics document: invocations, errors and latencies at two 6-second periods. */
static const char *const doc =
    "{\"MetricDataResults\":["
    "{\"Id\":\"invocations\",\"Timestamps\":[1796144040,1796144046],\"Values\":[4,3]},"
    "{\"Id\":\"errors_4xx\",\"Timestamps\":[1796144040,1796144046],\"Values\":[1,0]},"
    "{\"Id\":\"errors_5xx\",\"Timestamps\":[1796144040,1796144046],\"Values\":[0,0]},"
    "{\"Id\":\"model_latency_sum\",\"Timestamps\":[1796144040],\"Values\":[6000000]},"
    "{\"Id\":\"model_latency_n\",\"Timestamps\":[1796144040],\"Values\":[3]},"
    "{\"Id\":\"overhead_latency_sum\",\"Timestamps\":[1796144040],\"Values\":[1500000]},"
    "{\"Id\":\"overhead_latency_n\",\"Timestamps\":[1796144040],\"Values\":[3]},"
    "{\"Id\":\"gpu\",\"Timestamps\":[\"2026-12-01T16:54:00Z\",\"2026-12-01T16:54:06Z\"],"
    "\"Values\":[40,20]}]}";

int main(void) {
    struct side s;
    struct src f[2];
    struct buf err;
    memset(&s, 0, sizeof s);
    memset(f, 0, sizeof f);
    buf_init(&err, 1024);
    s.role = "candidate";
    /* step one: four requests in the first period (one throttled) */
    struct src_call one[] = {{T0 + 1, T0 + 3, 200, 20},
                             {T0 + 1.5, T0 + 3.5, 200, 20},
                             {T0 + 2, T0 + 4, 429, 20},
                             {T0 + 2.5, T0 + 5.5, 200, 30}};
    /* step two: three requests in the second, one with no reply; a 403 never counts */
    struct src_call two[] = {{T0 + 7, T0 + 9, 200, 20},
                             {T0 + 7.5, T0 + 9.5, 200, 20},
                             {T0 + 8, T0 + 8.2, 0, 2},
                             {T0 + 8.5, T0 + 8.6, 403, 1}};
    f[0] = (struct src){.path = "decode.json", .time_scale = 10, .calls = one, .ncalls = 4};
    f[1] = (struct src){.path = "sweep-c4.json", .time_scale = 10, .calls = two, .ncalls = 4};
    s.in.srcs = f;
    s.in.n = 2;
    struct cloudwatch_check x = {0};
    CHECK_INT(cloudwatch_check_side(&x, &s, &err), 0); /* no metrics: no rows */
    CHECK_INT((int)x.n, 0);
    CHECK_INT(cloudwatch_side_metrics(&s.in.cw, doc, strlen(doc), &err), 0);
    cloudwatch_side_finish(&s.in.cw);
    CHECK_INT(cloudwatch_check_side(&x, &s, &err), 0);
    CHECK_INT((int)x.n, 2);
    const struct cloudwatch_check_row *a = &x.rows[0], *b = &x.rows[1];
    CHECK(a->ok && b->ok);
    CHECK(a->b0 == T0 && a->b1 == T0 + 6 && b->b0 == T0 + 6 && b->b1 == T0 + 12);
    CHECK(a->invocations == 4 && a->errors_4xx == 1);
    CHECK_INT(a->requests.lo, 4);
    CHECK_INT(a->requests.hi, 4);
    CHECK_INT(a->answered.lo, 3);
    CHECK_INT(a->answered.hi, 3);
    CHECK_INT(a->client_4xx.hi, 1);
    CHECK(!a->lost && !a->unseen);
    CHECK(a->latency && fabs(a->model_ms - 2000) < 1e-9 && fabs(a->overhead_ms - 500) < 1e-9);
    CHECK(fabs(a->client_ms - 1e3 * 70 / 3) < 1e-6);
    CHECK(fabs(a->added_ms - (1e3 * 70 / 3 - 2500)) < 1e-6);
    CHECK(a->gpu == 40 && isnan(a->cpu));
    /* the second period: 3 counted and none an error, but only 2 replies came */
    CHECK(b->invocations == 3);
    CHECK_INT(b->requests.lo, 2);
    CHECK_INT(b->requests.hi, 3);
    CHECK_INT(b->answered.hi, 2);
    CHECK(!b->lost && b->unseen);
    CHECK(!b->latency && b->gpu == 20);
    /* a step later than every data point: no cross-check, and why */
    struct src_call late[] = {{T0 + 100, T0 + 101, 200, 10}};
    f[1].calls = late;
    f[1].ncalls = 1;
    cloudwatch_check_free(&x);
    CHECK_INT(cloudwatch_check_side(&x, &s, &err), 0);
    CHECK(x.n == 2 && !x.rows[1].ok &&
          strstr(x.rows[1].why, "CloudWatch has no Invocations") != NULL);
    cloudwatch_check_free(&x);
    cloudwatch_side_free(&s.in.cw);
    buf_free(&err);
    return check_exit();
}
