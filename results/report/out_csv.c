#include "out_csv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "esc.h"
#include "fmt.h"
#include "scaling.h"
#include "tokreport.h"

#define OUT_CSV_COLS 17

int out_csv_cells(struct buf *b, const char *const *cells, size_t n) {
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = esc_csv(b, cells[i] ? cells[i] : "") || buf_adds(b, i == n - 1 ? "\r\n" : ",");
    return rc;
}

static int out_csv_line(struct buf *b, const char *const *cells) {
    return out_csv_cells(b, cells, OUT_CSV_COLS);
}

static void out_csv_num(double x, char *out, size_t cap) {
    if (isfinite(x))
        snprintf(out, cap, "%.15g", x);
    else
        out[0] = '\0';
}

static void out_csv_ci(const struct interval *ci, char *lo, char *hi) {
    lo[0] = hi[0] = '\0';
    if (!ci->ok) return;
    out_csv_num(ci->lo, lo, FMT_CELL);
    out_csv_num(ci->hi, hi, FMT_CELL);
}

static void out_csv_note(const struct cmp_row *r, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    if (!r->b.ok) k += (size_t)snprintf(out + k, cap - k, "baseline: %s", r->b.why);
    if (!r->c.ok && k < cap)
        k += (size_t)snprintf(out + k, cap - k, "%scandidate: %s", k ? "; " : "", r->c.why);
    if (!r->no_ratio && !r->ratio.ok && r->b.ok && r->c.ok && k < cap)
        k += (size_t)snprintf(out + k, cap - k, "ratio: %s", r->ratio.why);
    if (r->method && !r->ci_r.ok && k < cap)
        k += (size_t)snprintf(out + k, cap - k, "%sinterval: %s", k ? "; " : "", r->ci_r.why);
    const enum cmp_bound bound[] = {r->bound_b, r->bound_c, r->bound_ratio};
    static const char *const who[] = {"baseline", "candidate", "ratio"};
    static const char *const words[] = {"", "at least", "at most", "more than", "less than"};
    for (int i = 0; i < 3 && k < cap; i++) /* a value that is a bound says so */
        if (bound[i] != CMP_EXACT)
            k += (size_t)snprintf(out + k, cap - k, "%s%s: %s the value", k ? "; " : "", who[i],
                                  words[bound[i]]);
    if (r->limited_b[0] && k < cap)
        k += (size_t)snprintf(out + k, cap - k, "%sbaseline client-limited: %s", k ? "; " : "",
                              r->limited_b);
    if (r->limited_c[0] && k < cap)
        snprintf(out + k, cap - k, "%scandidate client-limited: %s", k ? "; " : "", r->limited_c);
}

static void out_csv_count(const struct src_tally *t, char *ok, char *sent) {
    ok[0] = sent[0] = '\0';
    if (!t) return;
    snprintf(ok, 32, "%ld", t->ok);
    snprintf(sent, 32, "%ld", t->sent);
}

static void out_csv_n(const struct side_val *v, const struct cmp_n *n, char *out, size_t cap) {
    if (v->ok)
        snprintf(out, cap, "%llu",
                 n->tokens ? (unsigned long long)n->tokens : (unsigned long long)n->requests);
}

static int out_csv_row(struct buf *b, const struct cmp_row *r) {
    char v[3][FMT_CELL], lo[3][FMT_CELL], hi[3][FMT_CELL], note[1200];
    char okb[32], sb[32], okc[32], sc[32], tb[32] = "", tc[32] = "";
    out_csv_num(r->b.ok ? r->b.v : NAN, v[0], FMT_CELL);
    out_csv_num(r->c.ok ? r->c.v : NAN, v[1], FMT_CELL);
    out_csv_num(!r->no_ratio && r->ratio.ok ? r->ratio.v : NAN, v[2], FMT_CELL);
    out_csv_ci(&r->ci_b, lo[0], hi[0]);
    out_csv_ci(&r->ci_c, lo[1], hi[1]);
    out_csv_ci(&r->ci_r, lo[2], hi[2]);
    out_csv_count(r->tb, okb, sb);
    out_csv_count(r->tc, okc, sc);
    if (r->b_total > 0) snprintf(tb, sizeof tb, "%ld", r->b_total);
    if (r->c_total > 0) snprintf(tc, sizeof tc, "%ld", r->c_total);
    if (r->group == CMP_STREAM) { /* the sample: requests, or ITL's tokens */
        out_csv_n(&r->b, &r->n_b, tb, sizeof tb);
        out_csv_n(&r->c, &r->n_c, tc, sizeof tc);
    }
    out_csv_note(r, note, sizeof note);
    const char *cells[OUT_CSV_COLS] = {r->name, v[0], v[1], v[2], lo[0], hi[0], lo[1], hi[1], lo[2],
                                       hi[2],   okb,  sb,   okc,  sc,    tb,    tc,    note};
    return out_csv_line(b, cells);
}

/* A row without intervals or requests. */
static int out_csv_plain(struct buf *b, const char *name, const char *base, const char *cand,
                         const char *ratio, const char *total, const char *note) {
    const char *cells[OUT_CSV_COLS] = {name, base, cand, ratio, "", "",    "",    "",  "",
                                       "",   "",   "",   "",    "", total, total, note};
    return out_csv_line(b, cells);
}

static int out_csv_dis(struct buf *b, const struct quiz_cmp_dis *d) {
    char name[200], note[300];
    snprintf(name, sizeof name, "disagreement:%s", d->id);
    snprintf(note, sizeof note, "expected %s; right: %s", d->expected ? d->expected : "?",
             d->right);
    const char *bt = !d->bi ? "(not asked)" : d->bi->text ? d->bi->text : "(failed)";
    const char *ct = !d->ci ? "(not asked)" : d->ci->text ? d->ci->text : "(failed)";
    return out_csv_plain(b, name, bt, ct, "", "", note);
}

static int out_csv_quiz(struct buf *b, const struct cmp *m) {
    const struct quiz_cmp *q = &m->quiz;
    char n1[32], n2[32], tot[32], p[FMT_CELL];
    if (!q->have) return 0;
    snprintf(n1, sizeof n1, "%ld", q->identical);
    snprintf(tot, sizeof tot, "%ld", q->both);
    if (out_csv_plain(b, "identical_answers", n1, n1, "", tot,
                      "replies byte-identical on both sides, of the questions both answered"))
        return -1;
    if (q->have_mcnemar) {
        snprintf(n1, sizeof n1, "%u", q->mc_b);
        snprintf(n2, sizeof n2, "%u", q->mc_c);
        out_csv_num(q->mc_p, p, sizeof p);
        if (out_csv_plain(b, "mcnemar_exact_p", n1, n2, p, "",
                          "questions only that side got right; p in the ratio column"))
            return -1;
    }
    for (size_t i = 0; i < q->ndis; i++)
        if (out_csv_dis(b, &q->dis[i])) return -1;
    return 0;
}

/* The prefix cache's and speculation's figures (tokreport.h): n in the totals. */
static int out_csv_tokens(struct buf *b, const struct cmp *m) {
    struct tokreport_fig f[TOKREPORT_FIGS];
    size_t n = tokreport_figs(m, f);
    for (size_t i = 0; i < n; i++) {
        char v[2][FMT_CELL], t[2][32], note[400];
        for (int k = 0; k < 2; k++) {
            out_csv_num(f[i].v[k], v[k], sizeof v[k]);
            snprintf(t[k], sizeof t[k], "%zu", f[i].n[k]);
        }
        snprintf(note, sizeof note, "totals: %s; %s", f[i].n_what, f[i].means);
        const char *cells[OUT_CSV_COLS] = {f[i].name, v[0], v[1], "", "", "",   "",   "",  "",
                                           "",        "",   "",   "", "", t[0], t[1], note};
        if (out_csv_line(b, cells)) return -1;
    }
    return 0;
}

/* The first ramp input of side s (NULL: none), as the Scaling chart takes it. */
static const struct scaling *out_csv_ramp(const struct side *s) {
    for (size_t i = 0; i < s->in.n; i++)
        if (s->in.srcs[i].scaling) return s->in.srcs[i].scaling;
    return NULL;
}

/* The longest cold start that was served, seconds (NAN: none was). */
static double out_csv_longest_cold(const struct scaling *x) {
    double most = NAN;
    for (size_t i = 0; x && i < x->ncold; i++)
        if (isfinite(x->cold[i].seconds) && !(most >= x->cold[i].seconds))
            most = x->cold[i].seconds;
    return most;
}

/* One scaling row: a count or figure of each side's first ramp input ("" without one). */
static int out_csv_scaling_row(struct buf *b, const char *name, const struct scaling *const x[2],
                               const double v[2], const char *note) {
    char cell[2][FMT_CELL], sent[2][32];
    for (int k = 0; k < 2; k++) {
        out_csv_num(x[k] ? v[k] : NAN, cell[k], sizeof cell[k]);
        sent[k][0] = '\0';
        if (x[k]) snprintf(sent[k], sizeof sent[k], "%ld", x[k]->sent);
    }
    const char *cells[OUT_CSV_COLS] = {name, cell[0], cell[1], "", "", "",      "",      "",  "",
                                       "",   "",      "",      "", "", sent[0], sent[1], note};
    return out_csv_line(b, cells);
}

/* The Scaling section's calls refused for no capacity and cold starts, whole and per
 * piece of the schedule, of each side's first ramp input (its requests in the totals). */
static int out_csv_scaling(struct buf *b, const struct cmp *m) {
    const struct scaling *const x[2] = {out_csv_ramp(m->b), out_csv_ramp(m->c)};
    if (!x[0] && !x[1]) return 0;
    double v[2];
    for (int k = 0; k < 2; k++) v[k] = x[k] ? (double)x[k]->no_capacity : NAN;
    if (out_csv_scaling_row(b, "scaling_no_capacity", x, v,
                            "calls an inference component refused for having no copy serving"))
        return -1;
    for (int k = 0; k < 2; k++) v[k] = x[k] ? (double)x[k]->ncold : NAN;
    if (out_csv_scaling_row(
            b, "scaling_cold_starts", x, v,
            "from a call refused for no capacity to the first call served after it"))
        return -1;
    for (int k = 0; k < 2; k++) v[k] = out_csv_longest_cold(x[k]);
    if (out_csv_scaling_row(b, "scaling_cold_start_longest_seconds", x, v,
                            "the longest cold start that was served (seconds, real time)"))
        return -1;
    size_t pieces = 0;
    for (int k = 0; k < 2; k++)
        if (x[k] && x[k]->n > pieces) pieces = x[k]->n;
    for (size_t i = 0; i < pieces; i++) {
        char name[64];
        const struct scaling_step *st[2];
        for (int k = 0; k < 2; k++) st[k] = x[k] && i < x[k]->n ? &x[k]->steps[i] : NULL;
        for (int k = 0; k < 2; k++)
            v[k] =
                st[k] ? (double)(st[k]->transition.no_capacity + st[k]->steady.no_capacity) : NAN;
        snprintf(name, sizeof name, "scaling_piece_%zu_no_capacity", i + 1);
        if (out_csv_scaling_row(b, name, x, v, "of the piece's calls")) return -1;
        for (int k = 0; k < 2; k++) v[k] = st[k] ? (double)st[k]->cold_starts : NAN;
        snprintf(name, sizeof name, "scaling_piece_%zu_cold_starts", i + 1);
        if (out_csv_scaling_row(b, name, x, v, "that began in the piece")) return -1;
    }
    return 0;
}

static int out_csv_warnings(struct buf *b, const struct warnings *w) {
    int rc = 0;
    for (size_t i = 0; i < w->n && !rc; i++)
        rc = buf_adds(b, "# warning: ") || esc_text(b, w->items[i]) || buf_adds(b, "\r\n");
    return rc;
}

int out_csv_render(const struct cmp *m, const struct warnings *w, struct buf *out) {
    static const char *const head[OUT_CSV_COLS] = {
        "measurement",     "baseline",      "candidate",      "ratio",          "baseline_low",
        "baseline_high",   "candidate_low", "candidate_high", "ratio_low",      "ratio_high",
        "baseline_ok",     "baseline_sent", "candidate_ok",   "candidate_sent", "baseline_total",
        "candidate_total", "note"};
    int rc = out_csv_warnings(out, w) || out_csv_line(out, head);
    for (size_t i = 0; i < m->nrows && !rc; i++) rc = out_csv_row(out, &m->rows[i]);
    if (!rc) rc = out_csv_quiz(out, m);
    if (!rc) rc = out_csv_tokens(out, m);
    if (!rc) rc = out_csv_scaling(out, m);
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
