#include "side.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estim.h"

#define SIDE_MAX_MEDIANS 64 /* compare.py files per side that count */

void side_val_none(struct side_val *v, const char *fmt, ...) {
    va_list ap;
    v->ok = false;
    v->v = 0;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
}

void side_val_set(struct side_val *v, double x) {
    if (!isfinite(x)) {
        side_val_none(v, "not a finite number");
        return;
    }
    v->ok = true;
    v->v = x;
    v->why[0] = '\0';
}

bool side_rate(int S, int L, double med_s, double med_l, double *rate, double *fixed) {
    double dw = med_l - med_s;
    if (!(dw > 0) || L <= S) return false;
    *rate = (L - S) / dw;
    *fixed = med_s - S * dw / (L - S);
    return true;
}

static int side_nomem(struct buf *err) {
    buf_fail(err, SIDE_ERR_NOMEM, "out of memory");
    return SIDE_ERR_NOMEM;
}

static int side_add_run(struct side *s, const struct src *src, const char *what, double v) {
    struct side_run *r = realloc(s->runs, (s->nruns + 1) * sizeof *r);
    if (!r) return -1;
    s->runs = r;
    r[s->nruns].src = src;
    snprintf(r[s->nruns].what, sizeof r[s->nruns].what, "%s", what);
    r[s->nruns].v = v;
    s->nruns++;
    return 0;
}

static void side_lengths_text(const int *l, size_t n, char *out, size_t cap) {
    size_t k = (size_t)snprintf(out, cap, "[");
    for (size_t i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%d", i ? ", " : "", l[i]);
    if (k < cap) snprintf(out + k, cap - k, "]");
}

/* ---- decode ---- */

/* Appends part p's walls at the shortest and longest length to the pool. */
static int side_pool_walls(struct side_decode *dc, const struct src_decode *p, size_t *caps) {
    int S = dc->lengths[0], L = dc->lengths[dc->nlengths - 1];
    for (size_t i = 0; i < p->n; i++) {
        if (p->tokens[i] == S && src_push(&dc->ws, &dc->ns, &caps[0], p->walls[i]) < 0) return -1;
        if (p->tokens[i] == L && src_push(&dc->wl, &dc->nl, &caps[1], p->walls[i]) < 0) return -1;
    }
    return 0;
}

/* The two-length rate of walls ws/wl (not changed) into dc's rate, fixed and medians. */
static void side_two_length(int S, int L, const double *ws, size_t ns, const double *wl, size_t nl,
                            struct side_decode *dc) {
    if (!ns || !nl) {
        side_val_none(&dc->rate, "no successful replies of %d tokens", ns ? L : S);
        dc->fixed = dc->med_s = dc->med_l = dc->rate;
        return;
    }
    double ms = estim_median_of(ws, ns), ml = estim_median_of(wl, nl), rate, fixed;
    side_val_set(&dc->med_s, ms);
    side_val_set(&dc->med_l, ml);
    if (!side_rate(S, L, ms, ml, &rate, &fixed)) {
        side_val_none(&dc->rate, "replies of %d tokens were not slower than those of %d", L, S);
        dc->fixed = dc->rate;
        return;
    }
    side_val_set(&dc->rate, rate);
    side_val_set(&dc->fixed, fixed);
}

/* The least-squares line wall = fixed + tokens / rate over every reply. */
static int side_least_squares(struct side *s, struct buf *err) {
    struct side_decode *dc = &s->dec;
    double *x = NULL, *y = NULL, a, b;
    size_t n = 0, nx = 0, cx = 0, cy = 0;
    int rc = 0;
    if (dc->nlengths < 3) {
        side_val_none(&dc->ls_rate, "a fit needs three or more lengths");
        dc->ls_fixed = dc->ls_rate;
        return 0;
    }
    for (size_t i = 0; i < s->in.n && !rc; i++) {
        const struct src_decode *p = s->in.srcs[i].decode;
        for (size_t k = 0; p && !p->medians_only && k < p->n && !rc; k++)
            if (src_push(&x, &nx, &cx, p->tokens[k]) < 0 || src_push(&y, &n, &cy, p->walls[k]) < 0)
                rc = side_nomem(err);
    }
    if (!rc && (estim_linfit(x, y, n, &a, &b) < 0 || !(b > 0))) {
        side_val_none(&dc->ls_rate, "wall time does not grow with the length");
        dc->ls_fixed = dc->ls_rate;
    } else if (!rc) {
        side_val_set(&dc->ls_rate, 1 / b);
        side_val_set(&dc->ls_fixed, a);
    }
    free(x);
    free(y);
    return rc;
}

/* Checks that src's decode was measured with the lengths of the side's first. */
static int side_same_decode(const struct side *s, const struct src *src, struct buf *err) {
    const struct side_decode *dc = &s->dec;
    const struct src_decode *p = src->decode;
    if (p->nlengths == dc->nlengths &&
        memcmp(p->lengths, dc->lengths, p->nlengths * sizeof p->lengths[0]) == 0)
        return 0;
    char a[160], b[160];
    side_lengths_text(p->lengths, p->nlengths, a, sizeof a);
    side_lengths_text(dc->lengths, dc->nlengths, b, sizeof b);
    return buf_fail(err, SIDE_ERR_INPUT,
                    "%s: decode lengths %s differ from %s's %s (both on the %s side)", src->path, a,
                    dc->first->path, b, s->role);
}

/* A run's own decode rate, for the agreement table. */
static double side_run_rate(const struct side_decode *dc, const struct src_decode *p) {
    if (p->medians_only) return p->rate;
    int S = dc->lengths[0], L = dc->lengths[dc->nlengths - 1];
    struct side_decode one;
    double *ws = malloc((p->n + 1) * sizeof *ws), *wl = malloc((p->n + 1) * sizeof *wl);
    size_t ns = 0, nl = 0;
    double rate = NAN;
    memset(&one, 0, sizeof one);
    if (ws && wl) {
        for (size_t i = 0; i < p->n; i++) {
            if (p->tokens[i] == S) ws[ns++] = p->walls[i];
            if (p->tokens[i] == L) wl[nl++] = p->walls[i];
        }
        side_two_length(S, L, ws, ns, wl, nl, &one);
        if (one.rate.ok) rate = one.rate.v;
    }
    free(ws);
    free(wl);
    return rate;
}

/* compare.py's saved figures of one side. */
struct side_medians {
    double rate[SIDE_MAX_MEDIANS], fixed[SIDE_MAX_MEDIANS];
    double ms[SIDE_MAX_MEDIANS], ml[SIDE_MAX_MEDIANS];
    size_t n, ns, nl;
};

static void side_keep_medians(struct side_medians *m, const struct src_decode *p) {
    if (m->n == SIDE_MAX_MEDIANS) return;
    m->rate[m->n] = p->rate;
    m->fixed[m->n++] = p->fixed;
    if (isfinite(p->med_short)) m->ms[m->ns++] = p->med_short;
    if (isfinite(p->med_long)) m->ml[m->nl++] = p->med_long;
}

/* Pools every decode input of the side into dc; *nsrc counts them. */
static int side_pool_decode(struct side *s, struct side_medians *m, size_t *nsrc, struct buf *err) {
    struct side_decode *dc = &s->dec;
    size_t caps[2] = {0, 0};
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *src = &s->in.srcs[i];
        const struct src_decode *p = src->decode;
        int rc;
        if (!p) continue;
        if (!dc->have) {
            dc->have = true;
            dc->first = src;
            memcpy(dc->lengths, p->lengths, sizeof dc->lengths);
            dc->nlengths = p->nlengths;
            dc->repeats = p->repeats;
        } else if ((rc = side_same_decode(s, src, err)) < 0) {
            return rc;
        }
        (*nsrc)++;
        dc->streamed |= src->streamed;
        if (src_tally_merge(&dc->tally, &p->tally) < 0 || stream_merge(&dc->stream, &p->stream) < 0)
            return side_nomem(err);
        if (p->medians_only)
            side_keep_medians(m, p);
        else if (dc->nlengths >= 2 && side_pool_walls(dc, p, caps) < 0)
            return side_nomem(err);
    }
    return 0;
}

static void side_decode_figures(struct side *s, const struct side_medians *m, struct warnings *w) {
    struct side_decode *dc = &s->dec;
    side_val_none(&dc->med_s, "not in the compare.py file");
    dc->med_l = dc->med_s;
    if (dc->nlengths < 2) {
        side_val_none(&dc->rate, "decode needs two lengths");
        dc->fixed = dc->rate;
    } else if (dc->medians_only) {
        side_val_set(&dc->rate, estim_median_of(m->rate, m->n));
        side_val_set(&dc->fixed, estim_median_of(m->fixed, m->n));
        if (m->ns) side_val_set(&dc->med_s, estim_median_of(m->ms, m->ns));
        if (m->nl) side_val_set(&dc->med_l, estim_median_of(m->ml, m->nl));
    } else {
        int S = dc->lengths[0], L = dc->lengths[dc->nlengths - 1];
        side_two_length(S, L, dc->ws, dc->ns, dc->wl, dc->nl, dc);
        if (m->n)
            warnings_add(w,
                         "%s side: the decode figure pools the result files; the compare.py "
                         "figures appear only in the agreement table",
                         s->role);
    }
}

static int side_build_decode(struct side *s, struct warnings *w, struct buf *err) {
    struct side_decode *dc = &s->dec;
    struct side_medians m;
    size_t nsrc = 0;
    memset(&m, 0, sizeof m);
    int rc = side_pool_decode(s, &m, &nsrc, err);
    if (rc < 0) return rc;
    if (!dc->have) {
        side_val_none(&dc->rate, "no decode measurement on the %s side", s->role);
        dc->fixed = dc->med_s = dc->med_l = dc->ls_rate = dc->ls_fixed = dc->rate;
        return 0;
    }
    dc->medians_only = m.n == nsrc;
    if (stream_finish(&dc->stream) < 0) return side_nomem(err);
    side_decode_figures(s, &m, w);
    if ((rc = side_least_squares(s, err)) < 0) return rc;
    for (size_t i = 0; nsrc > 1 && dc->nlengths >= 2 && i < s->in.n; i++)
        if (s->in.srcs[i].decode && side_add_run(s, &s->in.srcs[i], "decode_tokens_per_second",
                                                 side_run_rate(dc, s->in.srcs[i].decode)) < 0)
            return side_nomem(err);
    return 0;
}

/* ---- levels ---- */

/* The side's level of p->c into *out (added when new); an error when p does not fit it. */
static int side_find_level(struct side *s, const struct src *src, const struct src_level *p,
                           struct side_level **out, struct buf *err) {
    for (size_t i = 0; i < s->nlv; i++) {
        struct side_level *l = &s->lv[i];
        if (l->c != p->c) continue;
        *out = l;
        if (l->steady == p->steady &&
            (l->max_tokens == p->max_tokens || l->max_tokens < 0 || p->max_tokens < 0))
            return 0;
        return buf_fail(err, SIDE_ERR_INPUT,
                        "%s: c%d was measured %s with %ld tokens, %s %s with %ld (both on the %s "
                        "side)",
                        src->path, p->c, p->steady ? "steady" : "in batches", p->max_tokens,
                        l->first->path, l->steady ? "steady" : "in batches", l->max_tokens,
                        s->role);
    }
    struct side_level *lv = realloc(s->lv, (s->nlv + 1) * sizeof *lv);
    if (!lv) return side_nomem(err);
    s->lv = lv;
    struct side_level *l = &lv[s->nlv++];
    *l = (struct side_level){.c = p->c,
                             .steady = p->steady,
                             .max_tokens = p->max_tokens,
                             .measure = src->kind == SRC_MEASURE,
                             .first = src};
    *out = l;
    return 0;
}

static int side_append(double **arr, size_t *n, const double *from, size_t k) {
    if (!k) return 0;
    double *p = realloc(*arr, (*n + k) * sizeof *p);
    if (!p) return -1;
    memcpy(p + *n, from, k * sizeof *p);
    *arr = p;
    *n += k;
    return 0;
}

static int side_cmp_level(const void *a, const void *b) {
    const struct side_level *x = a, *y = b;
    return (x->c > y->c) - (x->c < y->c);
}

static void side_level_figures(struct side_level *l) {
    if (l->nb)
        side_val_set(&l->tput, estim_median_of(l->tps, l->nb));
    else if (l->no_counts)
        side_val_none(&l->tput, "the replies carried no token counts");
    else if (l->batches_failed)
        side_val_none(&l->tput, "every batch had a failed request");
    else
        side_val_none(&l->tput, "no complete batch");
    if (!l->nlat) {
        const char *why =
            l->measure ? "compare.py saves no per-request times" : "no successful request";
        side_val_none(&l->p50, "%s", why);
        l->p90 = l->p99 = l->p50;
        return;
    }
    side_val_set(&l->p50, estim_quantile_select(l->lat, l->nlat, 0.50));
    side_val_set(&l->p90, estim_quantile_select(l->lat, l->nlat, 0.90));
    side_val_set(&l->p99, estim_quantile_select(l->lat, l->nlat, 0.99));
}

static int side_build_levels(struct side *s, struct buf *err) {
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *src = &s->in.srcs[i];
        for (size_t k = 0; k < src->nlevels; k++) {
            const struct src_level *p = &src->levels[k];
            size_t nb;
            struct side_level *l = NULL;
            int rc = side_find_level(s, src, p, &l, err);
            if (rc < 0) return rc;
            nb = l->nb;
            if (side_append(&l->tps, &l->nb, p->tps, p->nb) < 0 ||
                side_append(&l->bwall, &nb, p->bwall, p->nb) < 0 ||
                side_append(&l->lat, &l->nlat, p->lat, p->nlat) < 0 ||
                src_tally_merge(&l->tally, &p->tally) < 0 ||
                stream_merge(&l->stream, &p->stream) < 0)
                return side_nomem(err);
            l->streamed |= src->streamed;
            l->batches += p->batches;
            l->batches_failed += p->batches_failed;
            l->batches_short += p->batches_short;
            l->no_counts |= p->no_counts;
            l->measure |= src->kind == SRC_MEASURE;
        }
    }
    if (s->nlv) qsort(s->lv, s->nlv, sizeof *s->lv, side_cmp_level);
    for (size_t i = 0; i < s->nlv; i++) {
        side_level_figures(&s->lv[i]);
        if (stream_finish(&s->lv[i].stream) < 0) return side_nomem(err);
    }
    return 0;
}

/* Each input's own throughput per level, when a level has several inputs. */
static int side_level_runs(struct side *s, struct buf *err) {
    for (size_t i = 0; i < s->nlv; i++) {
        size_t n = 0;
        for (size_t k = 0; k < s->in.n; k++)
            for (size_t j = 0; j < s->in.srcs[k].nlevels; j++)
                n += s->in.srcs[k].levels[j].c == s->lv[i].c;
        for (size_t k = 0; n > 1 && k < s->in.n; k++)
            for (size_t j = 0; j < s->in.srcs[k].nlevels; j++) {
                const struct src_level *p = &s->in.srcs[k].levels[j];
                char what[48];
                if (p->c != s->lv[i].c || !p->nb) continue;
                snprintf(what, sizeof what, "load_c%d_tokens_per_second", p->c);
                if (side_add_run(s, &s->in.srcs[k], what, estim_median_of(p->tps, p->nb)) < 0)
                    return side_nomem(err);
            }
    }
    return 0;
}

/* ---- open loop ---- */

static int side_build_rate(struct side *s, struct buf *err) {
    for (size_t i = 0; i < s->in.n; i++)
        if (s->in.srcs[i].rate && openloop_pool(&s->rate, s->in.srcs[i].rate, &s->in.srcs[i]) < 0)
            return side_nomem(err);
    return openloop_finish(&s->rate) < 0 ? side_nomem(err) : 0;
}

/* ---- quiz ---- */

static int side_build_quiz(struct side *s, struct warnings *w, struct buf *err) {
    size_t n = 0;
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *src = &s->in.srcs[i];
        if (!src->quiz) continue;
        if (!s->quiz) {
            s->quiz = src->quiz;
            s->quiz_src = src;
        }
        n++;
    }
    for (size_t i = 0; n > 1 && i < s->in.n; i++)
        if (s->in.srcs[i].quiz && side_add_run(s, &s->in.srcs[i], "quality_correct",
                                               (double)s->in.srcs[i].quiz->correct) < 0)
            return side_nomem(err);
    if (n > 1)
        warnings_add(w, "%s side: %zu quiz runs; the answers of the first (%s) are compared",
                     s->role, n, s->quiz_src->path);
    return 0;
}

static void side_describe(struct side *s, struct warnings *w) {
    s->name = s->in.n ? s->in.srcs[0].label : s->role;
    s->scale_lo = s->scale_hi = s->bias_hi = 1;
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *src = &s->in.srcs[i];
        if (strcmp(src->label, s->name) != 0)
            warnings_add(w, "%s side mixes labels: %s (%s) and %s", s->role, src->label, src->path,
                         s->name);
        if (src->partial)
            warnings_add(w, "%s: partial run (%s)", src->path,
                         src->partial_reason ? src->partial_reason : "no reason given");
        if (i == 0 || src->time_scale < s->scale_lo) s->scale_lo = src->time_scale;
        if (i == 0 || src->time_scale > s->scale_hi) s->scale_hi = src->time_scale;
        if (src->scale_biased && src->time_scale > s->bias_hi) s->bias_hi = src->time_scale;
    }
}

/* Whether the side's client limited what it measured (climit.h): its lateness
 * is its latest open-loop rate's (each rate is its own schedule). */
static void side_build_client(struct side *s) {
    climit_init(&s->client);
    for (size_t i = 0; i < s->in.n; i++) climit_merge(&s->client, &s->in.srcs[i].self);
    s->late_share = NAN;
    for (size_t i = 0; i < s->rate.n; i++) {
        double share = openloop_late_share(&s->rate.r[i]);
        if (isfinite(share) && !(share <= s->late_share)) s->late_share = share;
    }
    climit_judge(&s->client, s->late_share, s->limited, sizeof s->limited);
}

int side_build(struct side *s, const char *role, struct inputs *in, struct warnings *w,
               struct buf *err) {
    int rc;
    memset(s, 0, sizeof *s);
    s->role = role;
    s->in = *in;
    memset(in, 0, sizeof *in);
    side_describe(s, w);
    if ((rc = side_build_decode(s, w, err)) < 0 || (rc = side_build_levels(s, err)) < 0 ||
        (rc = side_level_runs(s, err)) < 0 || (rc = side_build_rate(s, err)) < 0 ||
        (rc = side_build_quiz(s, w, err)) < 0)
        return rc;
    side_build_client(s);
    return 0;
}

void side_free(struct side *s) {
    free(s->dec.ws);
    free(s->dec.wl);
    stream_free(&s->dec.stream);
    src_tally_free(&s->dec.tally);
    for (size_t i = 0; i < s->nlv; i++) {
        free(s->lv[i].tps);
        free(s->lv[i].bwall);
        free(s->lv[i].lat);
        stream_free(&s->lv[i].stream);
        src_tally_free(&s->lv[i].tally);
    }
    free(s->lv);
    openloop_free(&s->rate);
    free(s->runs);
    inputs_free(&s->in);
    memset(s, 0, sizeof *s);
}
