/* climit: which figures the client limited (bursts of chunks read together, late
 * sends, a busy CPU, a stalled loop, a host whose CPU was stolen) and the
 * verdict's caveat on a ratio of one. */
#include <math.h>
#include <string.h>

#include "../check.h"
#include "climit.h"
#include "cmp.h"
#include "verdict.h"

/* Gaps below the read resolution (0 us: read with the chunk before) are bursts. */
static void test_bursts(void) {
    static const struct {
        uint32_t gaps[6];
        size_t n, burst;
    } rows[] = {
        {{0, 0, 0, 0, 0, 0}, 6, 6},         /* all in one read */
        {{20000, 0, 0, 19000, 1, 0}, 6, 3}, /* a gap of 1 us is two reads */
        {{20000, 21000, 0, 0, 0, 0}, 2, 0}, /* only n are the record's */
        {{0}, 0, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_INT(climit_bursts(rows[i].gaps, rows[i].n), rows[i].burst);
}

static void test_itl(void) {
    static const struct {
        uint64_t gaps, burst;
        bool resolved;
        const char *why;
    } rows[] = {
        {100, 10, true, ""}, /* CLIMIT_BURST_SHARE exactly: resolved */
        {100, 11, false, "ITL not resolved: 11% of chunks read in bursts"},
        {50, 31, false, "ITL not resolved: 62% of chunks read in bursts"},
        {0, 0, true, ""}, /* no gap: nothing to resolve */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char why[CLIMIT_WHY];
        CHECK_INT(climit_itl(rows[i].gaps, rows[i].burst, why, sizeof why), rows[i].resolved);
        CHECK_STR(why, rows[i].why);
    }
}

static struct rfmt_round round_of(long round, double wall, double cpu, long threads, bool busy,
                                  long long stall_us, long long stall_max, double steal) {
    return (struct rfmt_round){.round = round,
                               .wall_s = wall,
                               .cpu_s = cpu,
                               .cpus = 2,
                               .threads = threads,
                               .busy_poll = busy,
                               .stalls_of = "event loop",
                               .stalls = stall_us ? 3 : 0,
                               .stall_us = stall_us,
                               .stall_max_us = stall_max,
                               .steal_share = steal};
}

/* The client-limited verdict of a figure, row by row. */
static void test_judge(void) {
    static const struct {
        struct {
            long round;
            double wall, cpu;
            long threads;
            bool busy;
            long long stall_us, stall_max;
            double steal; /* 0 in most rows: none stolen */
        } r[2];
        size_t n;
        double late;
        const char *why;
    } rows[] = {
        {{{0, 10, 5, 1, false, 0, 0, 0}}, 1, NAN, ""}, /* half a CPU: fine */
        {{{0, 10, 9.7, 1, false, 0, 0, 0}}, 1, NAN, "client CPU 97% (round 0)"},
        {{{0, 10, 9.7, 4, false, 0, 0, 0}}, 1, NAN, ""}, /* of 2 CPUs: 48% */
        {{{0, 10, 19.4, 4, false, 0, 0, 0}}, 1, NAN, "client CPU 97% (round 0)"},
        {{{0, 10, 10, 1, true, 0, 0, 0}}, 1, NAN, ""},    /* busy polling: not judged */
        {{{0, 0.5, 0.5, 1, false, 0, 0, 0}}, 1, NAN, ""}, /* too short to judge */
        {{{0, 10, 1, 1, false, 0, 0, 0}}, 1, 0.05, ""},   /* 5% late: the limit */
        {{{0, 10, 1, 1, false, 0, 0, 0}}, 1, 0.38, "38% of sends >1 ms late"},
        {{{0, 10, 1, 1, false, 400000, 200000, 0}, {3, 2, 1.96, 1, false, 0, 0, 0}},
         2,
         0.98,
         "98% of sends >1 ms late; client CPU 98% (round 3)"},
        {{{1, 2, 0.1, 1, false, 200000, 150000, 0}},
         1,
         NAN,
         "event loop stalls 10% of a round (longest 150.0 ms)"},
        {{{1, 2, 0.1, 1, false, 100000, 50000, 0}}, 1, NAN, ""}, /* 5%: the limit */
        {{{0, 10, 1, 1, false, 0, 0, 0.05}}, 1, NAN, ""},        /* 5% stolen: the limit */
        {{{0, 10, 1, 1, false, 0, 0, -1}}, 1, NAN, ""},          /* not known: not judged */
        {{{0, 10, 1, 1, false, 0, 0, 0.01}, {4, 10, 1, 1, true, 0, 0, 0.12}},
         2,
         0.02,
         "host CPU 12% stolen by its hypervisor (round 4)"}, /* busy polling is no shield */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct climit_run c, side;
        climit_init(&c);
        climit_init(&side);
        for (size_t k = 0; k < rows[i].n; k++) {
            struct rfmt_round r =
                round_of(rows[i].r[k].round, rows[i].r[k].wall, rows[i].r[k].cpu,
                         rows[i].r[k].threads, rows[i].r[k].busy, rows[i].r[k].stall_us,
                         rows[i].r[k].stall_max, rows[i].r[k].steal);
            climit_add_round(&c, &r);
        }
        climit_merge(&side, &c); /* a side's inputs merged judge as the one */
        char why[CLIMIT_WHY];
        bool limited = climit_judge(&side, rows[i].late, why, sizeof why);
        if (strcmp(why, rows[i].why) != 0) fprintf(stderr, "row %zu\n", i);
        CHECK_STR(why, rows[i].why);
        CHECK_INT(limited, rows[i].why[0] != '\0');
    }
}

static struct cmp_row row_of(const char *name, int load_c, double ratio, const char *lb,
                             const char *lc) {
    struct cmp_row r = {.load_c = load_c, .decimals = 2};
    snprintf(r.name, sizeof r.name, "%s", name);
    r.b = (struct side_val){.ok = true, .v = 1};
    r.c = (struct side_val){.ok = true, .v = ratio};
    r.ratio = (struct side_val){.ok = true, .v = ratio};
    snprintf(r.limited_b, sizeof r.limited_b, "%s", lb);
    snprintf(r.limited_c, sizeof r.limited_c, "%s", lc);
    return r;
}

/* The verdict states no ratio of a client-limited figure without saying so. */
static void test_verdict(void) {
    static const struct {
        const char *lb, *lc, *want;
    } rows[] = {
        {"", "",
         "qat decodes 2.00x as fast as bf16. Under load it serves 1.50x the tokens per "
         "second (c4)."},
        {"", "client CPU 97% (round 0)",
         "qat decodes 2.00x as fast as bf16 (client-limited, so a figure of the client rather "
         "than of the server: qat: client CPU 97% (round 0)). Under load it serves 1.50x the "
         "tokens per second (c4) (client-limited, so a figure of the client rather than of the "
         "server: qat: client CPU 97% (round 0))."},
        {"38% of sends >1 ms late", "",
         "qat decodes 2.00x as fast as bf16 (client-limited, so a figure of the client rather "
         "than of the server: bf16: 38% of sends >1 ms late). Under load it serves 1.50x the "
         "tokens per second (c4) (client-limited, so a figure of the client rather than of the "
         "server: bf16: 38% of sends >1 ms late)."},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        static struct side b, c; /* nothing measured: no failures, no quiz, no open loop */
        struct cmp_row r[2] = {row_of("decode_tokens_per_second", 0, 2, rows[i].lb, rows[i].lc),
                               row_of("load_c4_tokens_per_second", 4, 1.5, rows[i].lb, rows[i].lc)};
        struct cmp m = {.b = &b, .c = &c, .rows = r, .nrows = 2};
        snprintf(m.bname, sizeof m.bname, "bf16");
        snprintf(m.cname, sizeof m.cname, "qat");
        struct buf out;
        buf_init(&out, BUF_NO_CAP);
        CHECK(verdict_build(&m, &out) == 0);
        CHECK_STR(buf_str(&out), rows[i].want);
        buf_free(&out);
    }
}

/* A verdict is never cut: with long names and reasons it runs past the 2000
 * bytes the model once held it in, and still ends with its last sentence whole. */
static void test_verdict_long_is_whole(void) {
    static struct side b, c;
    char lb[CLIMIT_WHY], lc[CLIMIT_WHY];
    memset(lb, 'b', sizeof lb - 1);
    lb[sizeof lb - 1] = '\0';
    memset(lc, 'c', sizeof lc - 1);
    lc[sizeof lc - 1] = '\0';
    struct cmp_row r[2] = {row_of("decode_tokens_per_second", 0, 2, lb, lc),
                           row_of("load_c4_tokens_per_second", 4, 1.5, lb, lc)};
    struct cmp m = {.b = &b, .c = &c, .rows = r, .nrows = 2};
    memset(m.bname, 'B', sizeof m.bname - 1);
    memset(m.cname, 'C', sizeof m.cname - 1);
    struct buf out, tail;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&tail, BUF_NO_CAP);
    CHECK(verdict_build(&m, &out) == 0);
    CHECK(buf_addf(&tail,
                   "the tokens per second (c4) (client-limited, so a figure of the client "
                   "rather than of the server: %s: %s; %s: %s).",
                   m.bname, lb, m.cname, lc) == 0);
    CHECK(out.len > 2000);
    CHECK(out.len >= tail.len && strcmp(buf_str(&out) + out.len - tail.len, buf_str(&tail)) == 0);
    buf_free(&out);
    buf_free(&tail);
}

int main(void) {
    test_bursts();
    test_itl();
    test_judge();
    test_verdict();
    test_verdict_long_is_whole();
    return check_exit();
}
