/* Unit tests of conntime (the connection times of sm-stream's records) and warmup
 * (the warm-up requests): a file's records read by rfile, the requests that opened
 * a connection counted, their medians (of those only, pooled over inputs), records
 * without connect_us (wrk's) not timed; warm-up records told apart by their phase. */
#include <math.h>

#include "../check.h"
#include "conntime.h"
#include "rfile.h"
#include "rtest.h"
#include "warmup.h"

#define CONN_REC(phase, connect)                                                                   \
    "{\"phase\": \"" phase "\", \"ok\": true, \"t_start_us\": 1, \"t_end_us\": 9" connect "}"

static struct rfile *conntime_read(const char *name, const char *text) {
    struct rfile *rf = NULL;
    struct buf err;
    buf_init(&err, 1024);
    CHECK(rfile_read(rtest_write(name, text), &rf, &err) == RFILE_OK);
    buf_free(&err);
    return rf;
}

static void test_opened_counted_and_medians_of_those(void) {
    struct rfile *a = conntime_read(
        "a.json",
        "{\"records\": [" CONN_REC("d", ", \"connect_us\": 400, \"tls_us\": 1000") "," CONN_REC(
            "d",
            ", \"connect_us\": 0, \"tls_us\": 0") "," CONN_REC("d",
                                                               ", \"connect_us\": 200, \"tls_us\": "
                                                               "3000") "," CONN_REC("d", "") "]}");
    struct rfile *b = conntime_read(
        "b.json",
        "{\"records\": [" CONN_REC("d", ", \"connect_us\": 900, \"tls_us\": 0") "," CONN_REC(
            "d", ", \"connect_us\": 0, \"tls_us\": 0") "]}");
    if (!a || !b) return;
    struct conntime ta = {0}, tb = {0};
    for (size_t i = 0; i < a->nrecs; i++) CHECK(conntime_add(&ta, &a->recs[i]) == 0);
    for (size_t i = 0; i < b->nrecs; i++) CHECK(conntime_add(&tb, &b->recs[i]) == 0);
    CHECK(ta.timed == 3 && ta.opened == 2); /* the record without connect_us is not timed */
    struct conntime_summary s;
    const struct conntime *one[] = {&ta}, *both[] = {&ta, &tb};
    CHECK(conntime_summarize(one, 1, &s) == 0);
    CHECK(s.timed == 3 && s.opened == 2 && fabs(s.opened_share - 2.0 / 3) < 1e-12);
    /* (200 + 400) / 2 us, (1000 + 3000) / 2 us */
    CHECK(fabs(s.connect_ms - 0.3) < 1e-12 && fabs(s.tls_ms - 2.0) < 1e-12);
    CHECK(conntime_summarize(both, 2, &s) == 0);
    CHECK(s.timed == 5 && s.opened == 3 && fabs(s.connect_ms - 0.4) < 1e-12 &&
          fabs(s.tls_ms - 1.0) < 1e-12);
    conntime_free(&ta);
    conntime_free(&tb);
    rfile_free(a);
    rfile_free(b);
}

static void test_none_timed_or_none_opened(void) {
    struct conntime t = {0};
    struct conntime_summary s;
    const struct conntime *parts[] = {&t};
    CHECK(conntime_summarize(parts, 1, &s) == 0);
    CHECK(s.timed == 0 && isnan(s.opened_share) && isnan(s.connect_ms) && isnan(s.tls_ms));
    struct rfile *rf = conntime_read(
        "reused.json", "{\"records\": [" CONN_REC("d", ", \"connect_us\": 0, \"tls_us\": 0") "]}");
    if (!rf) return;
    CHECK(conntime_add(&t, &rf->recs[0]) == 0);
    CHECK(conntime_summarize(parts, 1, &s) == 0);
    CHECK(s.timed == 1 && s.opened == 0 && s.opened_share == 0 && isnan(s.connect_ms));
    conntime_free(&t);
    rfile_free(rf);
}

static void test_warmup_told_by_phase(void) {
    struct rfile *rf = conntime_read(
        "warm.json", "{\"records\": [" CONN_REC("warmup", "") "," CONN_REC(
                         "decode", "") "," CONN_REC("warmup", "") "," CONN_REC("warm", "") "]}");
    if (!rf) return;
    CHECK(warmup_count(rf) == 2);
    CHECK(warmup_is(rf, &rf->recs[0]) && !warmup_is(rf, &rf->recs[1]) &&
          !warmup_is(rf, &rf->recs[3]));
    rfile_free(rf);
}

int main(void) {
    test_opened_counted_and_medians_of_those();
    test_none_timed_or_none_opened();
    test_warmup_told_by_phase();
    return check_exit();
}
