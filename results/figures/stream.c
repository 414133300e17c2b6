#include "stream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "climit.h"
#include "tscale.h"

const double stream_quantiles[STREAM_QUANTILES] = {0.50, 0.90, 0.99};

const char *stream_name(enum stream_metric k) {
    static const char *const names[STREAM_ALL_METRICS] = {
        "ttft", "itl", "tpot", "e2e", "ttfot", "itl_answer", "tpot_answer"};
    return names[k];
}

static int stream_push(struct stream_sample *s, double v, uint32_t w, uint32_t cl) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        struct estim_cval *x = realloc(s->x, cap * sizeof *x);
        if (!x) return -1;
        s->x = x;
        s->cap = cap;
    }
    s->x[s->n++] = (struct estim_cval){v, w, cl};
    s->total += w;
    return 0;
}

/* The per-token gaps of r: the gap before a chunk of k tokens, k times gap / k;
 * those after the first answer chunk came also as the answer's. */
static int stream_add_itl(struct stream_meas *m, const struct rfile *rf, const struct rfile_rec *r,
                          uint32_t cluster, double scale) {
    int64_t at = r->t_first_us; /* when chunk j - 1 came */
    bool answer_rows = r->t_first_output_us != r->t_first_us;
    for (int32_t j = 1; j < r->chunks; j++) {
        uint32_t tokens;
        double itl = stream_itl(rf, r, (size_t)j, scale, &tokens);
        if (stream_push(&m->s[STREAM_ITL], itl, tokens, cluster) < 0) return -1;
        if (answer_rows && r->t_first_output_us != RFILE_NONE && at >= r->t_first_output_us &&
            stream_push(&m->s[STREAM_ITL_ANSWER], itl, tokens, cluster) < 0)
            return -1;
        at += rf->gaps[r->gaps + (size_t)j - 1];
    }
    m->s[STREAM_ITL].requests += r->chunks > 1;
    m->itl_token += r->chunks > 1 && r->itl_unit == RFILE_ITL_TOKEN;
    m->itl_chunk += r->chunks > 1 && r->itl_unit == RFILE_ITL_CHUNK;
    if (r->chunks > 1) {
        m->gaps += (uint64_t)r->chunks - 1;
        m->burst += climit_bursts(rf->gaps + r->gaps, (size_t)r->chunks - 1);
    }
    return 0;
}

/* A record that reasoned before it answered: its answer's TTFOT and TPOT (the
 * answer's ITL comes with stream_itl); a record that did not gives none. */
static int stream_answer(struct stream_meas *m, const struct rfile_rec *r, uint32_t cluster,
                         double scale) {
    if (r->t_first_output_us == r->t_first_us && r->reasoning_tokens <= 0) return 0;
    m->reasoned++;
    if (r->t_first_output_us == RFILE_NONE) return 0; /* all reasoning, no answer */
    if (stream_push(&m->s[STREAM_TTFOT], tscale_since_start(r, scale, r->t_first_output_us), 1,
                    cluster) < 0)
        return -1;
    m->s[STREAM_TTFOT].requests++;
    int64_t answer = r->completion_tokens - (r->reasoning_tokens > 0 ? r->reasoning_tokens : 0);
    if (r->completion_tokens == RFILE_NONE || answer < 2) return 0;
    double tpot =
        (double)(r->t_end_us - r->t_first_output_us) * (scale / 1e6) / (double)(answer - 1);
    if (stream_push(&m->s[STREAM_TPOT_ANSWER], tpot, 1, cluster) < 0) return -1;
    m->s[STREAM_TPOT_ANSWER].requests++;
    return 0;
}

/* ---- a record's figures: each defined here once ---- */

double stream_e2e(const struct rfile_rec *r, double scale) {
    return tscale_since_start(r, scale, r->t_end_us);
}

bool stream_ttft(const struct rfile_rec *r, double scale, double *out) {
    if (!r->stream || r->t_first_us == RFILE_NONE) return false;
    *out = tscale_since_start(r, scale, r->t_first_us);
    return true;
}

bool stream_tpot(const struct rfile_rec *r, double scale, double *out) {
    if (!r->stream || r->t_first_us == RFILE_NONE || r->completion_tokens < 2) return false;
    *out = (double)(r->t_end_us - r->t_first_us) * (scale / 1e6) / (r->completion_tokens - 1);
    return true;
}

double stream_itl(const struct rfile *rf, const struct rfile_rec *r, size_t j, double scale,
                  uint32_t *tokens) {
    *tokens = r->ctoks == RFILE_NO_CTOKS ? 1 : rf->ctoks[r->ctoks + j];
    return rf->gaps[r->gaps + j - 1] * (scale / 1e6) / *tokens;
}

/* ---- a measurement's samples ---- */

int stream_add(struct stream_meas *m, const struct rfile *rf, const struct rfile_rec *r,
               uint32_t cluster, double scale) {
    double v;
    if (cluster >= m->clusters) m->clusters = cluster + 1;
    if (stream_push(&m->s[STREAM_E2E], stream_e2e(r, scale), 1, cluster) < 0) return -1;
    m->s[STREAM_E2E].requests++;
    rtally_add(&m->tally, r);
    if (!stream_ttft(r, scale, &v)) return 0;
    if (stream_push(&m->s[STREAM_TTFT], v, 1, cluster) < 0) return -1;
    m->s[STREAM_TTFT].requests++;
    if (stream_tpot(r, scale, &v)) {
        if (stream_push(&m->s[STREAM_TPOT], v, 1, cluster) < 0) return -1;
        m->s[STREAM_TPOT].requests++;
    }
    if (stream_answer(m, r, cluster, scale) < 0) return -1;
    return stream_add_itl(m, rf, r, cluster, scale);
}

int stream_merge(struct stream_meas *into, const struct stream_meas *from) {
    uint32_t offset = into->clusters;
    for (int k = 0; k < STREAM_ALL_METRICS; k++) {
        const struct stream_sample *f = &from->s[k];
        for (size_t i = 0; i < f->n; i++)
            if (stream_push(&into->s[k], f->x[i].v, f->x[i].w, f->x[i].cl + offset) < 0) return -1;
        into->s[k].requests += f->requests;
    }
    into->clusters += from->clusters;
    into->reasoned += from->reasoned;
    into->itl_token += from->itl_token;
    into->itl_chunk += from->itl_chunk;
    into->unstreamed += from->unstreamed;
    into->gaps += from->gaps;
    into->burst += from->burst;
    rtally_merge(&into->tally, &from->tally);
    return 0;
}

static int stream_cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Numbers the clusters of s in use 0 to k - 1 (ids below most); returns k,
 * or -1 out of memory. Ids are batch indices or record positions: a table
 * of most entries unless they are far more than the values, else a sort. */
static long stream_dense(struct stream_sample *s, uint32_t most) {
    bool table = most <= 2 * s->n + 1024;
    size_t len = table ? most : s->n;
    uint32_t *ids = malloc((len ? len : 1) * sizeof *ids);
    uint32_t k = 0;
    if (!ids) return -1;
    if (table) {
        memset(ids, 0xff, len * sizeof *ids);
        for (size_t i = 0; i < s->n; i++) ids[s->x[i].cl] = 0;
        for (size_t i = 0; i < len; i++)
            if (ids[i] == 0) ids[i] = k++;
        for (size_t i = 0; i < s->n; i++) s->x[i].cl = ids[s->x[i].cl];
        free(ids);
        return (long)k;
    }
    for (size_t i = 0; i < s->n; i++) ids[i] = s->x[i].cl;
    qsort(ids, s->n, sizeof *ids, stream_cmp_u32);
    for (size_t i = 0; i < s->n; i++)
        if (!k || ids[k - 1] != ids[i]) ids[k++] = ids[i];
    for (size_t i = 0; i < s->n; i++) {
        const uint32_t *at = bsearch(&s->x[i].cl, ids, k, sizeof *ids, stream_cmp_u32);
        s->x[i].cl = (uint32_t)(at - ids);
    }
    free(ids);
    return (long)k;
}

int stream_finish(struct stream_meas *m) {
    uint32_t most = 0;
    for (int k = 0; k < STREAM_ALL_METRICS; k++) {
        long n = stream_dense(&m->s[k], m->clusters);
        if (n < 0) return -1;
        m->s[k].clusters = (uint32_t)n;
        if ((uint32_t)n > most) most = (uint32_t)n;
        estim_csort(m->s[k].x, m->s[k].n);
    }
    m->clusters = most;
    return 0;
}

bool stream_streamed(const struct stream_meas *m) {
    return m->s[STREAM_TTFT].n || m->s[STREAM_ITL].n || m->s[STREAM_TPOT].n;
}

void stream_free(struct stream_meas *m) {
    for (int k = 0; k < STREAM_ALL_METRICS; k++) free(m->s[k].x);
    memset(m, 0, sizeof *m);
}

/* The relative bias bounds of a quantile q (seconds) of metric k: a time of a
 * time-scaled run may read up to scale x INTERVAL_SCALED_BIAS_S long. ITL and
 * TPOT are differences of two arrival times of one stream, both read by the same
 * client the same way: the client's share cancels out of them (its jitter is in
 * their spread, which the intervals measure), so they carry no bias bound. */
static void stream_bias(enum stream_metric k, double scale, double q, double *up, double *down) {
    double b = scale != 1 && q > 0 ? scale * INTERVAL_SCALED_BIAS_S / q : 0;
    *up = *down = 0;
    if (k == STREAM_TTFT || k == STREAM_TTFOT || k == STREAM_E2E)
        *down = b; /* one late time: the truth is shorter */
}

/* Whether quantile i of metric k goes without an interval (why in ci): only
 * those whose coverage tests/results/test_results_coverage.c shows get one,
 * every median and ITL's p90. A p90 of requests rests on too few of them (and
 * a batch's requests come in one or two steps: nearly discrete values); a p99
 * on too few batches (its intervals over- or under-cover). */
static bool stream_no_interval(enum stream_metric k, int i, struct interval *ci) {
    if (i == 0 || (i == 1 && (k == STREAM_ITL || k == STREAM_ITL_ANSWER))) return false;
    interval_none(ci, i == 1 ? "no interval for a p90 of requests (too few for a tail)"
                             : "no interval for a p99 (a tail needs more batches)");
    return true;
}

void stream_figures(const struct stream_meas *m, enum stream_metric k, double scale,
                    struct stream_fig *out) {
    const struct stream_sample *s = &m->s[k];
    memset(out, 0, sizeof *out);
    out->requests = s->requests;
    out->tokens = k == STREAM_ITL || k == STREAM_ITL_ANSWER ? s->total : 0;
    out->ok = s->n > 0 && s->total > 0;
    for (int i = 0; i < STREAM_QUANTILES; i++) {
        double up, down;
        if (!out->ok) {
            interval_none(&out->ci[i], "no value");
            snprintf(out->fig[i].why, sizeof out->fig[i].why, "no value");
            continue;
        }
        out->q[i] = estim_cquantile(s->x, s->n, s->total, stream_quantiles[i]);
        if (stream_no_interval(k, i, &out->ci[i])) {
            snprintf(out->fig[i].why, sizeof out->fig[i].why, "%s", out->ci[i].why);
            continue;
        }
        stream_bias(k, scale, out->q[i], &up, &down);
        interval_quantile(s->x, s->n, s->clusters, s->total, stream_quantiles[i], up, down,
                          &out->fig[i], &out->ci[i]);
    }
    out->clusters = s->clusters;
}
