/* Unit tests of esc (text from files made safe for each output format),
 * srvlog (vLLM's throughput lines) and xcheck (the client's throughput
 * against the server's). */
#include <math.h>

#include "../check.h"
#include "esc.h"
#include "rtest.h"
#include "srvlog.h"
#include "xcheck.h"

typedef int (*test_escaper)(struct buf *, const char *);

static void test_one(test_escaper f, const char *in, const char *want) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    CHECK(f(&b, in) == BUF_OK);
    CHECK_STR(buf_str(&b), want);
    buf_free(&b);
}

static void test_esc(void) {
    test_one(esc_text, "plain text, é", "plain text, é");
    test_one(esc_text, "a\x1b[31mred\x7f", "a\\x1b[31mred\\x7f");
    test_one(esc_text, "two\nlines\tand\r", "two\\nlines\\tand\\r");
    test_one(esc_text, "bad \xff\xfe utf-8 \xc3", "bad \\xff\\xfe utf-8 \\xc3");
    test_one(esc_text, "c1 \xc2\x9b bidi \xe2\x80\xae line \xe2\x80\xa8",
             "c1 \\u009b bidi \\u202e line \\u2028");
    test_one(esc_markdown, "load_c1_tokens and _x_ *b* [l](u) a|b <i> & #h ~s `c` \\",
             "load_c1_tokens and \\_x\\_ \\*b\\* \\[l\\](u) a\\|b &lt;i&gt; &amp; \\#h \\~s "
             "\\`c\\` \\\\");
    test_one(esc_markdown, "- a list", "\\- a list");
    test_one(esc_markdown, "x\x1b", "x\\\\x1b");
    test_one(esc_xml, "<a href=\"x\">'&'</a>\x01",
             "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;\\x01");
    test_one(esc_csv, "plain", "plain");
    test_one(esc_csv, "a,b \"q\"", "\"a,b \"\"q\"\"\"");
    test_one(esc_csv, "=cmd()", "'=cmd()");
    test_one(esc_csv, "-275", "-275");
    test_one(esc_csv, "-x", "'-x");
    test_one(esc_csv, "line\nbreak", "line\\nbreak");
    char *u = esc_utf8("ok \xff é");
    CHECK_STR(u, "ok \xef\xbf\xbd é");
    free(u);
}

static void test_srvlog(void) {
    const char *text =
        "2026-09-25T18:40:12.250000+00:00 AllTraffic/i-1 (APIServer pid=1) INFO 09-25 18:40:12 "
        "[loggers.py:123] Engine 000: Avg prompt throughput: 10.5 tokens/s, Avg generation "
        "throughput: 412.3 tokens/s, Running: 4 reqs, Waiting: 0 reqs\n"
        "(APIServer pid=1) INFO 12-31 23:59:50 [loggers.py:123] Avg prompt throughput: 0.0 "
        "tokens/s, Avg generation throughput: 7.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs\n"
        "INFO 09-25 18:40:12 not a throughput line\n"
        "Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s (no time)\n";
    struct srvlog log = {0};
    struct buf err;
    buf_init(&err, 256);
    CHECK(srvlog_scan(&log, text, strlen(text), &err) == SRVLOG_OK);
    CHECK(log.n == 2);
    if (log.n == 2) {
        CHECK(log.lines[0].year_known && fabs(log.lines[0].res - 1e-6) < 1e-12 &&
              log.lines[0].gen_tps == 412.3);
        CHECK(log.lines[0].prompt_tps == 10.5 && fabs(log.lines[0].t - 1790361612.25) < 1e-6);
        CHECK(!log.lines[1].year_known && log.lines[1].res == 1 && log.lines[1].gen_tps == 7);
        /* vLLM's own stamp, no year: nearest to the run (1 January 2027, 00:00:05 UTC) */
        srvlog_place(&log, 1798761605.0);
        CHECK(log.lines[1].year_known && fabs(log.lines[1].t - 1798761590.0) < 1e-6);
    }
    srvlog_free(&log);
    /* lines every 10 s, two skipped while idle: the interval is 10 s */
    char many[4096];
    size_t k = 0;
    for (int i = 0; i < 12; i++) {
        if (i == 5 || i == 6) continue;
        k += (size_t)snprintf(many + k, sizeof many - k,
                              "2026-09-25T18:%02d:%02d.000000Z x Avg prompt throughput: 0.0 "
                              "tokens/s, Avg generation throughput: 5.0 tokens/s\n",
                              40 + i * 10 / 60, i * 10 % 60);
    }
    CHECK(srvlog_scan(&log, many, k, &err) == SRVLOG_OK && log.n == 10);
    srvlog_place(&log, 1790361600.0);
    CHECK(fabs(srvlog_interval(&log) - 10) < 1e-9);
    srvlog_free(&log);
    buf_free(&err);
}

/* A side of one c2 sweep whose requests each generate 100 tokens over 1 s, back to back
 * for 20 s from the wall clock's 1764496800; and a log of lines every 2 s saying rate. */
static void test_xcheck_side(struct side *s, double rate, struct warnings *w, struct buf *err) {
    static char recs[1 << 15], log[8192];
    size_t k = 0, n = 0;
    for (int b = 0; b < 20; b++)
        for (int j = 0; j < 2; j++)
            k += (size_t)snprintf(recs + k, sizeof recs - k, "%s%s", k ? "," : "",
                                  rtest_rec("sweep", b, 100, b * 1000000L, (b + 1) * 1000000L, 1));
    const char *st = "{\"mode\": \"batch\", \"concurrency\": 2, \"max_tokens\": 100}";
    char *paths[2];
    paths[0] = (char *)rtest_result("x.json", "sweep", "a", "1", st, recs);
    for (int t = 2; t <= 22; t += 2)
        n += (size_t)snprintf(log + n, sizeof log - n,
                              "2025-11-30T10:00:%02d.000000+00:00 x Avg prompt throughput: 0.0 "
                              "tokens/s, Avg generation throughput: %.1f tokens/s\n",
                              t, rate);
    paths[1] = (char *)rtest_write("x.log", log);
    CHECK(rtest_side(s, "baseline", paths, 2, w, err) == 0);
    if (err->len) fprintf(stderr, "%s\n", buf_str(err));
}

static void test_xcheck(void) {
    struct side s;
    struct warnings w;
    struct buf err;
    struct xcheck x = {0};
    warnings_init(&w);
    buf_init(&err, 1024);
    test_xcheck_side(&s, 200, &w, &err);
    CHECK(xcheck_side(&x, &s, &err) == XCHECK_OK && x.n == 1);
    if (x.n == 1) {
        const struct xcheck_row *r = &x.rows[0];
        /* the lines at 4 to 18 s hold whole intervals inside the 20 s window, whatever the
         * 50 ms the clocks may differ by: 8 of them */
        CHECK(r->ok && r->c == 2 && r->lines == 8 && fabs(r->seconds - 16) < 1e-9);
        CHECK(fabs(r->client - 200) < 1e-6 && fabs(r->server - 200) < 1e-9 && !r->differs);
    }
    xcheck_free(&x);
    side_free(&s);
    test_xcheck_side(&s, 260, &w, &err);
    CHECK(xcheck_side(&x, &s, &err) == XCHECK_OK && x.n == 1 && x.rows[0].differs);
    xcheck_free(&x);
    side_free(&s);
    warnings_free(&w);
    buf_free(&err);
}

int main(void) {
    test_esc();
    test_srvlog();
    test_xcheck();
    return check_exit();
}
