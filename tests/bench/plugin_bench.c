/* The plugin's per-request work, outside wrk and the network: a reply parsed by
 * the scanner and by cJSON, a call finished (parse and checks), a record
 * journalled (serialised and copied into the journal's mapping). A benchmark,
 * not a test.
 *
 *   plugin_bench REPLY_FILE [SECONDS]   -> "name microseconds" lines */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "call.h"
#include "record.h"
#include "reply.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct bench_ctx {
    const char *body;
    size_t len;
    struct call *call;
    struct rec_recorder *rec;
    size_t file;
};

typedef int bench_fn(struct bench_ctx *c);

static int bench_parse(struct bench_ctx *c, unsigned flags) {
    struct reply r;
    reply_init(&r);
    int rc = reply_parse_with(200, NULL, c->body, c->len, flags, &r);
    if (!rc && (r.error_code || r.completion_tokens < 0)) rc = -1;
    reply_clear(&r);
    return rc;
}

static int bench_scan(struct bench_ctx *c) {
    return bench_parse(c, 0);
}

static int bench_cjson(struct bench_ctx *c) {
    return bench_parse(c, REPLY_NO_SCAN);
}

static int bench_finish(struct bench_ctx *c) {
    struct call_reply in = {.status = 200, .body = c->body, .len = c->len};
    struct call_result out;
    call_result_init(&out);
    int rc = call_finish(c->call, &in, &out);
    call_result_clear(&out);
    return rc;
}

static int bench_journal(struct bench_ctx *c) {
    static const struct rec_record r = {
        .endpoint = "bench",
        .phase = "sweep",
        .max_tokens = 256,
        .prompt_tokens = 21,
        .completion_tokens = 256,
        .finish_reason = "length",
        .status = 200,
        .ok = true,
        .t_start_us = 1234567,
        .t_end_us = 1334567,
        .wall_start_us = 1796035639023045LL,
        .correct = -1,
    };
    struct buf err;
    buf_init(&err, 256);
    int rc = rec_write(c->rec, c->file, &r, &err);
    buf_free(&err);
    return rc;
}

/* Microseconds per call of fn, run for about seconds. */
static double bench_run(bench_fn *fn, struct bench_ctx *c, double seconds) {
    long n = 0;
    double start = now_s(), end = start;
    while (end - start < seconds) {
        for (int i = 0; i < 1000; i++, n++)
            if (fn(c)) return -1;
        end = now_s();
    }
    return (end - start) / (double)n * 1e6;
}

static int bench_setup(struct bench_ctx *c, char *dir) {
    static const struct call_spec spec = {.fixed = {.endpoint = "bench", .phase = "sweep"},
                                          .expect_tokens = -1};
    char path[300], journal[300];
    struct buf err;
    buf_init(&err, 256);
    cJSON *header = cJSON_Parse("{\"label\":\"bench\"}");
    snprintf(path, sizeof path, "%s/bench.json", dir);
    snprintf(journal, sizeof journal, "%s/bench.journal.jsonl", dir);
    int rc =
        header && call_new(&spec, &c->call) == CALL_OK && rec_new(&c->rec) == REC_OK &&
                rec_add_file(c->rec, path, journal, NULL, header, false, &c->file, &err) == REC_OK
            ? 0
            : -1;
    cJSON_Delete(header);
    buf_free(&err);
    return rc;
}

int main(int argc, char **argv) {
    static const struct {
        const char *name;
        bench_fn *fn;
    } benches[] = {{"reply_scan_us", bench_scan},
                   {"reply_cjson_us", bench_cjson},
                   {"call_finish_us", bench_finish},
                   {"journal_write_us", bench_journal}};
    if (argc < 2) {
        fprintf(stderr, "usage: plugin_bench REPLY_FILE [SECONDS]\n");
        return 2;
    }
    char *rest = NULL;
    double seconds = argc > 2 ? strtod(argv[2], &rest) : 1.0;
    if (rest && (rest == argv[2] || *rest || !(seconds > 0))) {
        fprintf(stderr, "plugin_bench: SECONDS '%s' is not a positive number\n", argv[2]);
        return 2;
    }
    static char body[1 << 20];
    FILE *f = fopen(argv[1], "rb");
    struct bench_ctx c = {.body = body, .len = f ? fread(body, 1, sizeof body, f) : 0};
    if (f) fclose(f);
    char dir[] = "/tmp/plugin-bench-XXXXXX";
    if (!c.len || !mkdtemp(dir) || bench_setup(&c, dir)) {
        fprintf(stderr, "plugin_bench: cannot read %s or set up in %s\n", argv[1], dir);
        return 2;
    }
    int rc = 0;
    for (size_t i = 0; i < sizeof benches / sizeof benches[0] && !rc; i++) {
        double us = bench_run(benches[i].fn, &c, seconds);
        if (us < 0) {
            fprintf(stderr, "plugin_bench: %s failed on %s\n", benches[i].name, argv[1]);
            rc = 1;
        }
        printf("%s %.3f\n", benches[i].name, us);
    }
    rec_free(c.rec);
    call_free(c.call);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) rc = 1;
    return rc;
}
