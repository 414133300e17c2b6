/* Fuzzes sm-compare's reading of one input file: the input is written as a
 * result file (.json) and as a journal (.jsonl), and each is read as a named
 * input (rfile, then native or measure). An error must be one line that names
 * the file and never claims to be out of memory; every tally must add up, and
 * a sweep level's batches must add up too, and the streaming figures of each
 * measurement must come from its successful requests only, in order (p50 <=
 * p90 <= p99) and inside their intervals. An open-loop run is read with an SLO
 * on every metric: each round's good and late requests are among its
 * successful ones, and its rates are numbers from 0 or none. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "openloop.h"
#include "tmpdir.h"

static void fuzz_tally(const struct src_tally *t) {
    long failed = 0;
    for (size_t i = 0; i < t->nerrs; i++) failed += t->errs[i].n;
    if (t->sent != t->ok + t->failed || failed != t->failed || t->ok < 0 || t->failed < 0) abort();
}

/* The streaming values of a measurement whose tally is t (sorted here). */
static void fuzz_stream(struct stream_meas *m, const struct src_tally *t) {
    if ((long)m->s[STREAM_E2E].requests != t->ok) abort();
    for (int k = 0; k < STREAM_METRICS; k++) {
        const struct stream_sample *x = &m->s[k];
        if (x->requests > m->s[STREAM_E2E].requests || x->total < x->n) abort();
        for (size_t i = 0; i < x->n; i++)
            if (!(x->x[i].v >= 0) || !isfinite(x->x[i].v) || x->x[i].cl >= m->clusters) abort();
    }
    if (stream_finish(m) < 0) return;
    for (int k = 0; k < STREAM_METRICS; k++) {
        struct stream_fig f;
        stream_figures(m, (enum stream_metric)k, 2, &f);
        for (int i = 0; f.ok && i < STREAM_QUANTILES; i++) {
            if ((i && f.q[i] < f.q[i - 1]) || (f.ci[i].ok && !(f.ci[i].lo <= f.ci[i].hi))) abort();
            if (f.ci[i].ok &&
                (f.q[i] < f.ci[i].lo * (1 - 1e-9) || f.q[i] > f.ci[i].hi * (1 + 1e-9)))
                abort();
        }
    }
}

static void fuzz_rate(struct openloop *o) {
    for (size_t i = 0; i < o->n; i++) {
        struct openloop_round *r = &o->r[i];
        double x[] = {openloop_arrival_rate(r), openloop_completion_rate(r),
                      openloop_tokens_rate(r),  openloop_goodput(r),
                      openloop_error_share(r),  openloop_late_share(r)};
        fuzz_tally(&r->tally);
        if (r->good > r->tally.ok || r->late > (long)r->nlate || (long)r->nlate > r->tally.ok)
            abort();
        for (size_t k = 0; k < sizeof x / sizeof x[0]; k++)
            if (!isnan(x[k]) && !(x[k] >= 0)) abort();
        fuzz_stream(&r->stream, &r->tally);
    }
}

static void fuzz_check(struct src *s) {
    bool native = s->kind != SRC_MEASURE; /* compare.py's files keep no requests */
    if (s->decode) fuzz_tally(&s->decode->tally);
    if (s->decode && native) fuzz_stream(&s->decode->stream, &s->decode->tally);
    for (size_t i = 0; i < s->nlevels; i++) {
        struct src_level *l = &s->levels[i];
        fuzz_tally(&l->tally);
        if (native) fuzz_stream(&l->stream, &l->tally);
        if (l->batches_failed + l->batches_short + (long)l->nb != l->batches) abort();
        for (size_t k = 0; k < l->nb; k++)
            if (!(l->tps[k] >= 0)) abort();
    }
    if (s->rate) fuzz_rate(s->rate);
    if (s->quiz) {
        fuzz_tally(&s->quiz->tally);
        if (s->quiz->answered > (long)s->quiz->n || s->quiz->correct > s->quiz->answered) abort();
    }
}

/* Whether an error says it ran out of memory (not a file's text echoed in it). */
static bool fuzz_nomem(const char *msg) {
    size_t n = strlen(msg), k = strlen("out of memory");
    return n >= k && strcmp(msg + n - k, "out of memory") == 0;
}

static void fuzz_read(const char *path) {
    static const char *const slos[] = {"e2e:p90:1", "ttft:p50:0.5", "tpot:p99:0.1", "itl:p90:0.05"};
    struct inputs in;
    struct warnings w;
    struct buf err;
    struct slo_set slo;
    char *paths[] = {(char *)path};
    warnings_init(&w);
    buf_init(&err, 4096);
    slo_init(&slo);
    for (size_t i = 0; i < sizeof slos / sizeof slos[0]; i++)
        if (slo_parse(&slo, slos[i], &err) < 0) abort();
    if (inputs_read(paths, 1, NULL, NULL, &slo, &in, &w, &err) == 0) {
        if (err.len || in.n > 1) abort();
        for (size_t i = 0; i < in.n; i++) fuzz_check(&in.srcs[i]);
    } else if (strncmp(buf_str(&err), path, strlen(path)) != 0 || strchr(buf_str(&err), '\n') ||
               fuzz_nomem(buf_str(&err))) {
        abort();
    }
    inputs_free(&in);
    warnings_free(&w);
    buf_free(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_read(tmpdir_write("result.json", data, size));
    fuzz_read(tmpdir_write("run.journal.jsonl", data, size));
    return 0;
}
