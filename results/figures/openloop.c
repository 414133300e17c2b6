#include "openloop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estim.h"

const struct field_rule openloop_rules[] = {
    {"arrivals", FIELD_STR | FIELD_NULL, 0, 0},
    {"rates", FIELD_ARR, 0, 0},
    {"duration_s", FIELD_NUM | FIELD_NULL, 1e-6, 1e9},
    {"burstiness", FIELD_NUM | FIELD_NULL, 1e-6, 1e6},
    {"arrival_seed", FIELD_INT | FIELD_NULL, -9e18, 9e18},
    {"max_concurrency", FIELD_INT | FIELD_NULL, 1, 1e6},
};
const size_t openloop_nrules = sizeof openloop_rules / sizeof openloop_rules[0];

/* The state of reading one file's rounds. */
struct openloop_ctx {
    const struct rfile *rf;
    const struct src *s;
    const struct slo_set *slo;
    struct openloop *o;
    struct buf *err;
    double k;                               /* real seconds per microsecond as measured */
    int64_t *first_at, *last_at, *last_end; /* per round, as measured: intended starts, end */
    struct estim_cval *itl;                 /* one request's per-token gaps (openloop_itl) */
    size_t capitl;
};

static int openloop_nomem(struct openloop_ctx *c) {
    return buf_fail(c->err, OPENLOOP_ERR_NOMEM, "out of memory");
}

/* settings.rates: one round per rate, in the order of the records' batch index. */
static int openloop_rates(struct openloop_ctx *c) {
    static const struct field_rule one = {"", FIELD_NUM, OPENLOOP_MIN_RATE, OPENLOOP_MAX_RATE};
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(c->s->settings, "rates"), *v;
    int n = cJSON_GetArraySize(arr);
    char name[48];
    if (!arr || n < 1 || n > OPENLOOP_MAX_RATES)
        return buf_fail(c->err, OPENLOOP_ERR_INPUT,
                        "%s: settings.rates must list the asked rates (1 to %d of them)",
                        c->rf->path, OPENLOOP_MAX_RATES);
    c->o->r = calloc((size_t)n, sizeof *c->o->r);
    c->first_at = malloc((size_t)n * 3 * sizeof *c->first_at);
    if (!c->o->r || !c->first_at) return openloop_nomem(c);
    c->last_at = c->first_at + n;
    c->last_end = c->last_at + n;
    c->o->n = (size_t)n;
    for (size_t i = 0; i < c->o->n; i++) {
        c->first_at[i] = INT64_MAX;
        c->last_at[i] = c->last_end[i] = INT64_MIN;
    }
    size_t i = 0;
    cJSON_ArrayForEach(v, arr) {
        snprintf(name, sizeof name, "settings.rates[%zu]", i);
        int rc = field_check_value(v, &one, c->rf->path, name, c->err);
        if (rc < 0) return rc;
        c->o->r[i].rate = v->valuedouble;
        i++;
    }
    return 0;
}

/* The q-quantile of the per-token gaps of the streamed record r (chunks >= 2). */
static int openloop_itl(struct openloop_ctx *c, const struct rfile_rec *r, double q, double *out) {
    size_t n = (size_t)r->chunks - 1;
    uint64_t total = 0;
    if (n > c->capitl) {
        struct estim_cval *x = realloc(c->itl, n * sizeof *x);
        if (!x) return -1;
        c->itl = x;
        c->capitl = n;
    }
    for (size_t j = 1; j <= n; j++) {
        uint32_t tokens;
        double itl = stream_itl(c->rf, r, j, c->s->time_scale, &tokens);
        c->itl[j - 1] = (struct estim_cval){itl, tokens, 0};
        total += tokens;
    }
    estim_csort(c->itl, n);
    *out = estim_cquantile(c->itl, n, total, q);
    return 0;
}

/* One SLO's value for the successful record x (its start the intended one);
 * *have false when x has none (a TTFT without content; TPOT and ITL of a
 * request too short to have them). Returns 0, or -1 out of memory. */
static int openloop_value(struct openloop_ctx *c, const struct rfile_rec *x, const struct slo *s,
                          double *v, bool *have) {
    double scale = c->s->time_scale;
    bool first = x->stream && x->t_first_us != RFILE_NONE;
    *have = true;
    *v = 0;
    switch (s->metric) { /* the figures stream.h defines, as the round's samples hold them */
    case STREAM_E2E:
        *v = stream_e2e(x, scale);
        return 0;
    case STREAM_TTFT:
        *have = stream_ttft(x, scale, v);
        return 0;
    case STREAM_TPOT:
        *have = stream_tpot(x, scale, v);
        return 0;
    case STREAM_ITL:
        *have = first && x->chunks >= 2;
        return *have ? openloop_itl(c, x, s->q, v) : 0;
    default: /* the answer-only figures are no SLO's metric (slo.h) */
        *have = false;
        return 0;
    }
}

/* Whether the successful record x met every SLO: a request without a TTFT
 * fails a TTFT bound; one without a TPOT or an ITL (too short) meets theirs. */
static int openloop_good(struct openloop_ctx *c, const struct rfile_rec *x, bool *good) {
    *good = true;
    for (size_t i = 0; c->slo && i < c->slo->n && *good; i++) {
        const struct slo *s = &c->slo->s[i];
        double v = 0;
        bool have;
        if (openloop_value(c, x, s, &v, &have) < 0) return -1;
        *good = have ? v <= s->bound : s->metric != STREAM_TTFT;
    }
    return 0;
}

int openloop_record_good(const struct rfile *rf, const struct src *s, const struct slo_set *slo,
                         const struct rfile_rec *rec, bool *good) {
    struct openloop_ctx c = {.rf = rf, .s = s, .slo = slo, .k = s->time_scale / 1e6};
    struct rfile_rec x = *rec;
    if (rec->t_intended_us != RFILE_NONE) x.t_start_us = rec->t_intended_us;
    x.server_us = RFILE_NONE; /* as openloop_ok */
    int rc = openloop_good(&c, &x, good);
    free(c.itl);
    return rc;
}

static int openloop_push_late(struct openloop_round *r, double v) {
    if (r->nlate == r->caplate) {
        size_t cap = r->caplate ? 2 * r->caplate : 64;
        double *p = realloc(r->lateness, cap * sizeof *p);
        if (!p) return -1;
        r->lateness = p;
        r->caplate = cap;
    }
    r->lateness[r->nlate++] = v;
    return 0;
}

/* A successful record of round b. */
static int openloop_ok(struct openloop_ctx *c, struct openloop_round *r,
                       const struct rfile_rec *rec, int64_t at) {
    struct rfile_rec x = *rec;
    bool good;
    x.t_start_us = at;
    /* An open-loop run's latencies are multiplied whole at a time scale
     * (docs/compare.md, Time-scaled runs): they count from the intended start,
     * and server_us splits only the reply's own time. Its figures and its SLOs
     * are then the same values (stream.h). */
    x.server_us = RFILE_NONE;
    if (rec->completion_tokens > 0) r->tokens += rec->completion_tokens;
    if (rec->t_intended_us != RFILE_NONE) {
        int64_t late = rec->t_start_us - rec->t_intended_us;
        r->late += late > OPENLOOP_LATE_US;
        if (openloop_push_late(r, (double)late * c->k) < 0) return -1;
    }
    if (c->s->streamed && !rec->stream) r->stream.unstreamed++;
    if (stream_add(&r->stream, c->rf, &x, r->nreq++, c->s->time_scale) < 0 ||
        openloop_good(c, &x, &good) < 0)
        return -1;
    r->good += good;
    return 0;
}

static int openloop_record(struct openloop_ctx *c, const struct rfile_rec *rec, size_t i) {
    int64_t b = rec->batch < 0 ? 0 : rec->batch;
    if ((uint64_t)b >= c->o->n)
        return buf_fail(c->err, OPENLOOP_ERR_INPUT,
                        "%s: record %zu: batch %lld has no rate (settings.rates lists %zu)",
                        c->rf->path, i + 1, (long long)b, c->o->n);
    struct openloop_round *r = &c->o->r[b];
    int64_t at = rec->t_intended_us != RFILE_NONE ? rec->t_intended_us : rec->t_start_us;
    r->no_intended += rec->t_intended_us == RFILE_NONE;
    if (at < c->first_at[b]) c->first_at[b] = at;
    if (at > c->last_at[b]) c->last_at[b] = at;
    if (rec->t_end_us > c->last_end[b]) c->last_end[b] = rec->t_end_us;
    if (src_tally_add(&r->tally, rec->ok, rfile_str(c->rf, rec->error),
                      rfile_errmsg(c->rf, rec->error)) < 0 ||
        (rec->ok && openloop_ok(c, r, rec, at) < 0))
        return openloop_nomem(c);
    return 0;
}

/* The spans and arrivals of each round, once every record is in. */
static void openloop_spans(struct openloop_ctx *c, struct warnings *w) {
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(c->s->settings, "duration_s");
    double duration = cJSON_IsNumber(d) ? d->valuedouble : NAN;
    size_t none = 0;
    for (size_t b = 0; b < c->o->n; b++) {
        struct openloop_round *r = &c->o->r[b];
        r->streamed = c->s->streamed;
        none += r->no_intended;
        if (!r->tally.sent) {
            warnings_add(w, "%s: no records at %g requests/s (the run stopped before it?)",
                         c->rf->path, r->rate);
            continue;
        }
        r->span_s = (double)(c->last_end[b] - c->first_at[b]) * c->k;
        if (duration > 0) {
            r->arr_n = (double)r->tally.sent;
            r->arr_s = duration;
        } else if (r->tally.sent > 1 && c->last_at[b] > c->first_at[b]) {
            r->arr_n = (double)(r->tally.sent - 1);
            r->arr_s = (double)(c->last_at[b] - c->first_at[b]) * c->k;
        }
    }
    if (none)
        warnings_add(w,
                     "%s: %zu records without t_intended_us: their latency counts from when they "
                     "were sent, not from when they were meant to start",
                     c->rf->path, none);
    if (!(duration > 0))
        warnings_add(w,
                     "%s: no settings.duration_s: the arrival rate is (arrivals - 1) over the "
                     "span of the intended starts",
                     c->rf->path);
}

int openloop_read(const struct rfile *rf, uint32_t phase, const struct src *s,
                  const struct slo_set *slo, struct openloop **out, struct warnings *w,
                  struct buf *err) {
    struct openloop_ctx c = {.rf = rf, .s = s, .slo = slo, .err = err, .k = s->time_scale / 1e6};
    int rc;
    if (!(*out = c.o = calloc(1, sizeof *c.o)))
        return buf_fail(err, OPENLOOP_ERR_NOMEM, "out of memory");
    if ((rc = openloop_rates(&c)) < 0) goto done;
    for (size_t i = 0; i < rf->nrecs && rc == 0; i++)
        if (rf->recs[i].phase == phase) rc = openloop_record(&c, &rf->recs[i], i);
    if (rc == 0) openloop_spans(&c, w);
    size_t unstreamed = 0;
    for (size_t b = 0; b < c.o->n; b++) unstreamed += c.o->r[b].stream.unstreamed;
    if (rc == 0 && unstreamed)
        warnings_add(w,
                     "%s: %zu successful records of a streamed run carry no stream times "
                     "(t_first_token_us, chunks, chunk_gaps_us); left out of TTFT, ITL and TPOT",
                     rf->path, unstreamed);
done:
    free(c.first_at);
    free(c.itl);
    return rc;
}

/* ---- a side's rounds ---- */

static int openloop_append(double **arr, size_t *n, size_t *cap, const double *from, size_t k) {
    for (size_t i = 0; i < k; i++)
        if (src_push(arr, n, cap, from[i]) < 0) return -1;
    return 0;
}

static int openloop_merge(struct openloop_round *into, const struct openloop_round *from) {
    into->arr_n += from->arr_n;
    into->arr_s += from->arr_s;
    into->span_s += from->span_s;
    into->tokens += from->tokens;
    into->good += from->good;
    into->late += from->late;
    into->no_intended += from->no_intended;
    into->streamed |= from->streamed;
    into->nreq += from->nreq;
    if (openloop_append(&into->lateness, &into->nlate, &into->caplate, from->lateness,
                        from->nlate) < 0 ||
        stream_merge(&into->stream, &from->stream) < 0 ||
        src_tally_merge(&into->tally, &from->tally) < 0)
        return -1;
    return 0;
}

int openloop_pool(struct openloop *into, const struct openloop *from, const struct src *src) {
    if (!into->first) into->first = src;
    for (size_t i = 0; i < from->n; i++) {
        const struct openloop_round *f = &from->r[i];
        size_t k = 0;
        if (!f->tally.sent) continue;
        while (k < into->n && into->r[k].rate != f->rate) k++;
        if (k == into->n) {
            struct openloop_round *r = realloc(into->r, (into->n + 1) * sizeof *r);
            if (!r) return -1;
            into->r = r;
            memset(&r[into->n], 0, sizeof *r);
            r[into->n++].rate = f->rate;
        }
        if (openloop_merge(&into->r[k], f) < 0) return -1;
    }
    return 0;
}

static int openloop_cmp_rate(const void *a, const void *b) {
    const struct openloop_round *x = a, *y = b;
    return (x->rate > y->rate) - (x->rate < y->rate);
}

int openloop_finish(struct openloop *o) {
    if (o->n) qsort(o->r, o->n, sizeof *o->r, openloop_cmp_rate);
    for (size_t i = 0; i < o->n; i++) {
        estim_sort(o->r[i].lateness, o->r[i].nlate);
        if (stream_finish(&o->r[i].stream) < 0) return -1;
    }
    return 0;
}

void openloop_free(struct openloop *o) {
    for (size_t i = 0; i < o->n; i++) {
        free(o->r[i].lateness);
        stream_free(&o->r[i].stream);
        src_tally_free(&o->r[i].tally);
    }
    free(o->r);
    memset(o, 0, sizeof *o);
}

/* ---- figures ---- */

static double openloop_per(double x, double s) {
    return s > 0 ? x / s : NAN;
}

double openloop_arrival_rate(const struct openloop_round *r) {
    return openloop_per(r->arr_n, r->arr_s);
}

double openloop_completion_rate(const struct openloop_round *r) {
    return openloop_per((double)r->tally.ok, r->span_s);
}

double openloop_tokens_rate(const struct openloop_round *r) {
    return openloop_per(r->tokens, r->span_s);
}

double openloop_goodput(const struct openloop_round *r) {
    return openloop_per((double)r->good, r->span_s);
}

double openloop_attainment(const struct openloop_round *r) {
    return openloop_per((double)r->good, (double)r->tally.sent);
}

double openloop_error_share(const struct openloop_round *r) {
    return openloop_per((double)r->tally.failed, (double)r->tally.sent);
}

double openloop_late_share(const struct openloop_round *r) {
    return openloop_per((double)r->late, (double)r->nlate);
}

double openloop_late_p99(const struct openloop_round *r) {
    return r->nlate ? estim_quantile(r->lateness, r->nlate, 0.99) : NAN;
}
