#include "side.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void val_none(struct val *v, const char *fmt, ...) {
    va_list ap;
    v->ok = false;
    v->v = 0;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
}

void val_set(struct val *v, double x) {
    if (!isfinite(x)) {
        val_none(v, "not a finite number");
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

static int oom(struct diag *d) {
    return diag_error(d, "out of memory");
}

static int add_run(struct side *s, const struct src *src, const char *what, double v) {
    struct side_run *r = realloc(s->runs, (s->nruns + 1) * sizeof *r);
    if (!r) return -1;
    s->runs = r;
    r[s->nruns].src = src;
    snprintf(r[s->nruns].what, sizeof r[s->nruns].what, "%s", what);
    r[s->nruns].v = v;
    s->nruns++;
    return 0;
}

static void lengths_text(const int *l, size_t n, char *out, size_t cap) {
    size_t k = (size_t)snprintf(out, cap, "[");
    for (size_t i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%d", i ? ", " : "", l[i]);
    if (k < cap) snprintf(out + k, cap - k, "]");
}

/* Appends part p's walls at the shortest and longest length to the pool. */
static int pool_walls(struct side_decode *dc, const struct decode_part *p, size_t *caps) {
    int S = dc->lengths[0], L = dc->lengths[dc->nlengths - 1];
    for (size_t i = 0; i < p->n; i++) {
        if (p->tokens[i] == S && src_push(&dc->ws, &dc->ns, &caps[0], p->walls[i]) < 0) return -1;
        if (p->tokens[i] == L && src_push(&dc->wl, &dc->nl, &caps[1], p->walls[i]) < 0) return -1;
    }
    return 0;
}

/* The two-length rate of walls ws/wl into rate and fixed; med_* too when given. */
static void two_length(int S, int L, double *ws, size_t ns, double *wl, size_t nl,
                       struct side_decode *dc) {
    if (!ns || !nl) {
        val_none(&dc->rate, "no successful replies of %d tokens", ns ? L : S);
        dc->fixed = dc->med_s = dc->med_l = dc->rate;
        return;
    }
    double ms = stats_median(ws, ns), ml = stats_median(wl, nl), rate, fixed;
    val_set(&dc->med_s, ms);
    val_set(&dc->med_l, ml);
    if (!side_rate(S, L, ms, ml, &rate, &fixed)) {
        val_none(&dc->rate, "replies of %d tokens were not slower than those of %d", L, S);
        dc->fixed = dc->rate;
        return;
    }
    val_set(&dc->rate, rate);
    val_set(&dc->fixed, fixed);
}

/* The least-squares line wall = fixed + tokens / rate over every reply. */
static int least_squares(struct side *s, struct diag *d) {
    struct side_decode *dc = &s->dec;
    double *x = NULL, *y = NULL, a, b;
    size_t n = 0, nx = 0, cx = 0, cy = 0;
    if (dc->nlengths < 3) {
        val_none(&dc->ls_rate, "a fit needs three or more lengths");
        dc->ls_fixed = dc->ls_rate;
        return 0;
    }
    for (size_t i = 0; i < s->in.n; i++) {
        const struct decode_part *p = s->in.srcs[i].decode;
        for (size_t k = 0; p && !p->medians_only && k < p->n; k++)
            if (src_push(&x, &nx, &cx, p->tokens[k]) < 0 || src_push(&y, &n, &cy, p->walls[k]) < 0)
                goto fail;
    }
    if (stats_linfit(x, y, n, &a, &b) < 0 || !(b > 0)) {
        val_none(&dc->ls_rate, "wall time does not grow with the length");
        dc->ls_fixed = dc->ls_rate;
    } else {
        val_set(&dc->ls_rate, 1 / b);
        val_set(&dc->ls_fixed, a);
    }
    free(x);
    free(y);
    return 0;
fail:
    free(x);
    free(y);
    return oom(d);
}

/* Checks that part p was measured like the side's first decode input. */
static int same_decode(const struct side *s, const struct src *src, struct diag *d) {
    const struct side_decode *dc = &s->dec;
    const struct decode_part *p = src->decode;
    if (p->nlengths != dc->nlengths ||
        memcmp(p->lengths, dc->lengths, p->nlengths * sizeof p->lengths[0]) != 0) {
        char a[160], b[160];
        lengths_text(p->lengths, p->nlengths, a, sizeof a);
        lengths_text(dc->lengths, dc->nlengths, b, sizeof b);
        return diag_error(d, "%s: decode lengths %s differ from %s's %s (both on the %s side)",
                          src->path, a, dc->first->path, b, s->role);
    }
    if (p->prompt && dc->prompt && strcmp(p->prompt, dc->prompt) != 0)
        diag_warn(d, "%s: decode prompt differs from %s's", src->path, dc->first->path);
    return 0;
}

/* A run's own decode rate, for the agreement table. */
static double run_rate(const struct side_decode *dc, const struct decode_part *p) {
    if (p->medians_only) return p->rate;
    int S = dc->lengths[0], L = dc->lengths[dc->nlengths - 1];
    struct side_decode one = {.lengths = {0}};
    double *ws = malloc((p->n + 1) * sizeof *ws), *wl = malloc((p->n + 1) * sizeof *wl);
    size_t ns = 0, nl = 0;
    double rate = NAN;
    if (ws && wl) {
        for (size_t i = 0; i < p->n; i++) {
            if (p->tokens[i] == S) ws[ns++] = p->walls[i];
            if (p->tokens[i] == L) wl[nl++] = p->walls[i];
        }
        two_length(S, L, ws, ns, wl, nl, &one);
        if (one.rate.ok) rate = one.rate.v;
    }
    free(ws);
    free(wl);
    return rate;
}

static int build_decode(struct side *s, struct diag *d) {
    struct side_decode *dc = &s->dec;
    size_t caps[2] = {0, 0}, nsrc = 0, nmed = 0, nms = 0, nml = 0;
    double med_rates[64], med_fixed[64], med_s[64], med_l[64];
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *src = &s->in.srcs[i];
        const struct decode_part *p = src->decode;
        if (!p) continue;
        if (!dc->have) {
            dc->have = true;
            dc->first = src;
            memcpy(dc->lengths, p->lengths, sizeof dc->lengths);
            dc->nlengths = p->nlengths;
            dc->repeats = p->repeats;
            dc->prompt = p->prompt;
        } else if (same_decode(s, src, d) < 0) {
            return -1;
        }
        nsrc++;
        if (tally_merge(&dc->tally, &p->tally) < 0) return oom(d);
        if (p->medians_only && nmed < 64) {
            med_rates[nmed] = p->rate;
            med_fixed[nmed++] = p->fixed;
            if (isfinite(p->med_short)) med_s[nms++] = p->med_short;
            if (isfinite(p->med_long)) med_l[nml++] = p->med_long;
        } else if (dc->nlengths >= 2 && pool_walls(dc, p, caps) < 0) {
            return oom(d);
        }
    }
    if (!dc->have) {
        val_none(&dc->rate, "no decode measurement on the %s side", s->role);
        dc->fixed = dc->med_s = dc->med_l = dc->ls_rate = dc->ls_fixed = dc->rate;
        return 0;
    }
    val_none(&dc->med_s, "not in the compare.py file");
    dc->med_l = dc->med_s;
    dc->medians_only = nmed == nsrc;
    if (dc->nlengths < 2) {
        val_none(&dc->rate, "decode needs two lengths");
        dc->fixed = dc->rate;
    } else if (dc->medians_only) {
        val_set(&dc->rate, stats_median(med_rates, nmed));
        val_set(&dc->fixed, stats_median(med_fixed, nmed));
        if (nms) val_set(&dc->med_s, stats_median(med_s, nms));
        if (nml) val_set(&dc->med_l, stats_median(med_l, nml));
    } else {
        int S = dc->lengths[0], L = dc->lengths[dc->nlengths - 1];
        double *ws = malloc((dc->ns + 1) * sizeof *ws), *wl = malloc((dc->nl + 1) * sizeof *wl);
        if (!ws || !wl) {
            free(ws);
            free(wl);
            return oom(d);
        }
        if (dc->ns) memcpy(ws, dc->ws, dc->ns * sizeof *ws);
        if (dc->nl) memcpy(wl, dc->wl, dc->nl * sizeof *wl);
        two_length(S, L, ws, dc->ns, wl, dc->nl, dc);
        free(ws);
        free(wl);
        if (nmed)
            diag_warn(d,
                      "%s side: the decode figure pools the result files; the compare.py "
                      "figures appear only in the agreement table",
                      s->role);
    }
    if (least_squares(s, d) < 0) return -1;
    for (size_t i = 0; nsrc > 1 && dc->nlengths >= 2 && i < s->in.n; i++)
        if (s->in.srcs[i].decode && add_run(s, &s->in.srcs[i], "decode_tokens_per_second",
                                            run_rate(dc, s->in.srcs[i].decode)) < 0)
            return oom(d);
    return 0;
}

/* The side's level of p->c (added when new); NULL, with the error in d, when p does not fit it. */
static struct side_level *find_level(struct side *s, const struct src *src,
                                     const struct level_part *p, struct diag *d) {
    for (size_t i = 0; i < s->nlv; i++) {
        struct side_level *l = &s->lv[i];
        if (l->c != p->c) continue;
        if (l->steady == p->steady &&
            (l->max_tokens == p->max_tokens || l->max_tokens < 0 || p->max_tokens < 0))
            return l;
        diag_error(d,
                   "%s: c%d was measured %s with %ld tokens, %s %s with %ld (both on the %s side)",
                   src->path, p->c, p->steady ? "steady" : "in batches", p->max_tokens,
                   l->first->path, l->steady ? "steady" : "in batches", l->max_tokens, s->role);
        return NULL;
    }
    struct side_level *lv = realloc(s->lv, (s->nlv + 1) * sizeof *lv);
    if (!lv) {
        oom(d);
        return NULL;
    }
    s->lv = lv;
    struct side_level *l = &lv[s->nlv++];
    *l = (struct side_level){
        .c = p->c, .steady = p->steady, .max_tokens = p->max_tokens, .first = src};
    return l;
}

static int append(double **arr, size_t *n, const double *from, size_t k) {
    if (!k) return 0;
    double *p = realloc(*arr, (*n + k) * sizeof *p);
    if (!p) return -1;
    memcpy(p + *n, from, k * sizeof *p);
    *arr = p;
    *n += k;
    return 0;
}

static int cmp_level(const void *a, const void *b) {
    const struct side_level *x = a, *y = b;
    return (x->c > y->c) - (x->c < y->c);
}

static void level_figures(struct side_level *l) {
    if (l->nb) {
        double *tmp = malloc(l->nb * sizeof *tmp);
        if (tmp) {
            memcpy(tmp, l->tps, l->nb * sizeof *tmp);
            val_set(&l->tput, stats_median(tmp, l->nb));
            free(tmp);
        } else {
            val_none(&l->tput, "out of memory");
        }
    } else if (l->no_counts) {
        val_none(&l->tput, "the replies carried no token counts");
    } else {
        val_none(&l->tput, "no complete batch");
    }
    if (!l->nlat) {
        const char *why = l->first->kind == SRC_MEASURE ? "compare.py saves no per-request times"
                                                        : "no successful request";
        val_none(&l->p50, "%s", why);
        l->p90 = l->p99 = l->p50;
        return;
    }
    val_set(&l->p50, stats_quantile_select(l->lat, l->nlat, 0.50));
    val_set(&l->p90, stats_quantile_select(l->lat, l->nlat, 0.90));
    val_set(&l->p99, stats_quantile_select(l->lat, l->nlat, 0.99));
}

static int build_levels(struct side *s, struct diag *d) {
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *src = &s->in.srcs[i];
        for (size_t k = 0; k < src->nlevels; k++) {
            const struct level_part *p = &src->levels[k];
            struct side_level *l = find_level(s, src, p, d);
            if (!l) return -1;
            if (append(&l->tps, &l->nb, p->tps, p->nb) < 0 ||
                append(&l->lat, &l->nlat, p->lat, p->nlat) < 0 ||
                tally_merge(&l->tally, &p->tally) < 0)
                return oom(d);
            l->no_counts |= p->no_counts;
        }
    }
    if (s->nlv) qsort(s->lv, s->nlv, sizeof *s->lv, cmp_level);
    for (size_t i = 0; i < s->nlv; i++) level_figures(&s->lv[i]);
    return 0;
}

/* Each input's own throughput per level, when a level has several inputs. */
static int level_runs(struct side *s, struct diag *d) {
    for (size_t i = 0; i < s->nlv; i++) {
        size_t n = 0;
        for (size_t k = 0; k < s->in.n; k++)
            for (size_t j = 0; j < s->in.srcs[k].nlevels; j++)
                n += s->in.srcs[k].levels[j].c == s->lv[i].c;
        for (size_t k = 0; n > 1 && k < s->in.n; k++)
            for (size_t j = 0; j < s->in.srcs[k].nlevels; j++) {
                const struct level_part *p = &s->in.srcs[k].levels[j];
                char what[48];
                if (p->c != s->lv[i].c || !p->nb) continue;
                double *tmp = malloc(p->nb * sizeof *tmp);
                if (!tmp) return oom(d);
                memcpy(tmp, p->tps, p->nb * sizeof *tmp);
                snprintf(what, sizeof what, "load_c%d_tokens_per_second", p->c);
                int rc = add_run(s, &s->in.srcs[k], what, stats_median(tmp, p->nb));
                free(tmp);
                if (rc < 0) return oom(d);
            }
    }
    return 0;
}

static int build_quiz(struct side *s, struct diag *d) {
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
        if (s->in.srcs[i].quiz &&
            add_run(s, &s->in.srcs[i], "quality_correct", (double)s->in.srcs[i].quiz->correct) < 0)
            return oom(d);
    if (n > 1)
        diag_warn(d, "%s side: %zu quiz runs; the answers of the first (%s) are compared", s->role,
                  n, s->quiz_src->path);
    return 0;
}

static void describe(struct side *s, struct diag *d) {
    s->name = s->in.n ? s->in.srcs[0].label : s->role;
    s->scale_lo = s->scale_hi = 1;
    for (size_t i = 0; i < s->in.n; i++) {
        const struct src *src = &s->in.srcs[i];
        if (strcmp(src->label, s->name) != 0)
            diag_warn(d, "%s side mixes labels: %s (%s) and %s", s->role, src->label, src->path,
                      s->name);
        if (src->partial)
            diag_warn(d, "%s: partial run (%s)", src->path,
                      src->partial_reason ? src->partial_reason : "no reason given");
        if (i == 0 || src->time_scale < s->scale_lo) s->scale_lo = src->time_scale;
        if (i == 0 || src->time_scale > s->scale_hi) s->scale_hi = src->time_scale;
    }
}

int side_build(struct side *s, const char *role, struct inputs *in, struct diag *d) {
    memset(s, 0, sizeof *s);
    s->role = role;
    s->in = *in;
    memset(in, 0, sizeof *in);
    describe(s, d);
    if (build_decode(s, d) < 0 || build_levels(s, d) < 0 || level_runs(s, d) < 0 ||
        build_quiz(s, d) < 0)
        return -1;
    return 0;
}

void side_free(struct side *s) {
    free(s->dec.ws);
    free(s->dec.wl);
    tally_free(&s->dec.tally);
    for (size_t i = 0; i < s->nlv; i++) {
        free(s->lv[i].tps);
        free(s->lv[i].lat);
        tally_free(&s->lv[i].tally);
    }
    free(s->lv);
    free(s->runs);
    inputs_free(&s->in);
    memset(s, 0, sizeof *s);
}
