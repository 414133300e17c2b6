#include "nway_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

#define NWAY_REPORT_COLS 10
#define NWAY_REPORT_NUM  40  /* a number */
#define NWAY_REPORT_RNG  96  /* "[lo, hi]" */
#define NWAY_REPORT_CELL 320 /* a cell */

void nway_report_num(double x, char *out, size_t cap) {
    if (isfinite(x))
        fmt_sig(x, out, cap);
    else
        snprintf(out, cap, "n/a");
}

/* "[lo, hi]" with an open end shown as "..". */
static void nway_report_range(double lo, double hi, char *out, size_t cap) {
    char a[NWAY_REPORT_NUM] = "..", b[NWAY_REPORT_NUM] = "..";
    if (isfinite(lo)) fmt_sig(lo, a, sizeof a);
    if (isfinite(hi)) fmt_sig(hi, b, sizeof b);
    if (!isfinite(lo) && !isfinite(hi))
        out[0] = '\0';
    else
        snprintf(out, cap, "[%s, %s]", a, b);
}

/* The capacity with how it bounds the figure: "2.6", ">= 4", "< 1". */
static void nway_report_cap(const struct openloop_cmp_cap *c, char *out, size_t cap) {
    char v[NWAY_REPORT_NUM], range[NWAY_REPORT_RNG];
    nway_report_num(c->v, v, sizeof v);
    nway_report_range(c->pass, c->fail, range, sizeof range);
    const char *rel = c->rel == OPENLOOP_CMP_GE ? ">= " : c->rel == OPENLOOP_CMP_LT ? "< " : "";
    snprintf(out, cap, "%s%s%s%s", rel, v, range[0] ? " " : "", range);
}

int nway_report_reason(const struct nway *w, struct buf *out) {
    if (w->pr.best < 0)
        return buf_addf(out, "No recommendation: %s.",
                        w->pr.none == PARETO_NONE_EMPTY
                            ? "no candidate"
                            : "every candidate was left out (see why in the table)");
    const struct nway_cand *c = &w->c[w->pr.best];
    char v[NWAY_REPORT_NUM], range[NWAY_REPORT_RNG];
    nway_report_num(c->usd, v, sizeof v);
    nway_report_range(c->usd_lo, c->usd_hi, range, sizeof range);
    int rc = buf_addf(out, "%s is cheapest at %s: %s%s USD per million tokens %s", c->f.label,
                      w->slo_text, c->cap.rel == OPENLOOP_CMP_GE ? "<= " : "", v, range);
    size_t k = 0;
    for (size_t i = 0; i < w->n && !rc; i++)
        if (w->pr.within[i]) rc = buf_addf(out, "%s%s", k++ ? ", " : "; ", w->c[i].f.label);
    if (!rc && k)
        rc = buf_addf(out, " %s within that range: the capacities' brackets cannot order them",
                      k == 1 ? "is" : "are");
    else if (!rc)
        rc = buf_adds(out, "; no other candidate is within that range");
    return rc || buf_adds(out, ".");
}

static int nway_report_cands(const struct nway *w, struct page *r) {
    char head[3][160];
    snprintf(head[0], sizeof head[0], "capacity req/s [bracket]");
    snprintf(head[1], sizeof head[1], "p%g %s at capacity (s)", w->slo.s[0].pct,
             slo_metric_text(w->slo.s[0].metric));
    snprintf(head[2], sizeof head[2], "USD/Mtok [range]");
    const char *const h[NWAY_REPORT_COLS] = {"candidate", "instance", head[0], head[1],
                                             "tokens/s",  "USD/hour", head[2], "quiz",
                                             "requests",  "front"};
    struct page_block *t = page_table(r, 0x3fcu, NWAY_REPORT_COLS, h);
    if (!t) return -1;
    for (size_t i = 0; i < w->n; i++) {
        const struct nway_cand *c = &w->c[i];
        char inst[80], cap[NWAY_REPORT_CELL], lat[NWAY_REPORT_NUM], tok[NWAY_REPORT_NUM + 4],
            usdh[NWAY_REPORT_NUM], usd[NWAY_REPORT_CELL], tmp[NWAY_REPORT_NUM], quiz[64], req[96],
            range[NWAY_REPORT_RNG];
        snprintf(inst, sizeof inst, "%s%s", c->f.instance_type[0] ? c->f.instance_type : "n/a",
                 c->f.instance_count > 1 ? " x" : "");
        if (c->f.instance_count > 1)
            snprintf(inst + strlen(inst), sizeof inst - strlen(inst), "%d", c->f.instance_count);
        nway_report_cap(&c->cap, cap, sizeof cap);
        if (!c->compared) snprintf(cap, sizeof cap, "n/a");
        nway_report_num(c->lat, lat, sizeof lat);
        nway_report_num(c->cap.tokens, tmp, sizeof tmp);
        snprintf(tok, sizeof tok, "%s%s",
                 !isfinite(c->cap.tokens)        ? ""
                 : c->cap.rel == OPENLOOP_CMP_GE ? ">= "
                 : c->cap.rel == OPENLOOP_CMP_LT ? "< "
                                                 : "",
                 tmp);
        if (!c->compared) snprintf(tok, sizeof tok, "n/a");
        nway_report_num(c->f.usd_per_hour, usdh, sizeof usdh);
        nway_report_num(c->usd, tmp, sizeof tmp);
        snprintf(usd, sizeof usd, "%s%s",
                 c->cap.rel == OPENLOOP_CMP_GE && isfinite(c->usd) ? "<= " : "", tmp);
        nway_report_range(c->usd_lo, c->usd_hi, range, sizeof range);
        if (range[0] && isfinite(c->usd))
            snprintf(usd + strlen(usd), sizeof usd - strlen(usd), " %s", range);
        if (c->quiz_total > 0)
            snprintf(quiz, sizeof quiz, "%ld/%ld", c->quiz_correct, c->quiz_total);
        else
            snprintf(quiz, sizeof quiz, "n/a");
        snprintf(req, sizeof req, "%ld/%ld; %zu at the SLO", c->ok, c->sent, c->lat_n);
        const char *cells[NWAY_REPORT_COLS] = {
            c->f.label, inst,
            cap,        lat,
            tok,        usdh,
            usd,        quiz,
            req,        c->excluded[0] ? "left out" : w->pr.front[i] ? "yes" : "no"};
        if (page_row(t, cells) < 0) return -1;
    }
    return 0;
}

/* The ratio's cell: "1.5x" with its relation. */
static void nway_report_ratio(const struct nway_ratio *q, char *out, size_t cap) {
    char v[NWAY_REPORT_NUM];
    nway_report_num(q->v, v, sizeof v);
    const char *rel = q->rel == OPENLOOP_CMP_GE   ? ">= "
                      : q->rel == OPENLOOP_CMP_GT ? "> "
                      : q->rel == OPENLOOP_CMP_LE ? "<= "
                      : q->rel == OPENLOOP_CMP_LT ? "< "
                                                  : "";
    snprintf(out, cap, "%s%s", q->ok ? rel : "", q->ok ? v : "n/a");
}

static int nway_report_ratio_row(struct page_block *t, const char *label, const char *name,
                                 const struct nway_ratio *q, const char *how) {
    char v[NWAY_REPORT_NUM + 8], range[NWAY_REPORT_RNG];
    nway_report_ratio(q, v, sizeof v);
    nway_report_range(q->lo, q->hi, range, sizeof range);
    const char *cells[4] = {label, name, v, range[0] ? range : how};
    if (range[0] && how[0]) {
        char both[NWAY_REPORT_CELL];
        snprintf(both, sizeof both, "%s (%s)", range, how);
        cells[3] = both;
        return page_row(t, cells);
    }
    return page_row(t, cells);
}

static int nway_report_ratios(const struct nway *w, struct page *r) {
    const char *const h[4] = {"candidate", "figure", "ratio", "95% interval or range"};
    if (w->n < 2) return 0; /* nothing to divide */
    if (page_text(r, PAGE_HEADING, "Ratios to the baseline (%s), candidate / baseline",
                  w->c[w->base].f.label) < 0)
        return -1;
    struct page_block *t = page_table(r, 0x4u, 4, h);
    if (!t) return -1;
    for (size_t i = 0; i < w->n; i++) {
        const struct nway_cand *c = &w->c[i];
        if (i == w->base || !c->compared) continue;
        if (nway_report_ratio_row(t, c->f.label, "capacity", &c->r_cap,
                                  "the brackets, not a confidence interval") < 0 ||
            nway_report_ratio_row(t, c->f.label, "latency at the SLO", &c->r_lat,
                                  "none: an open-loop round's requests queue") < 0 ||
            nway_report_ratio_row(t, c->f.label, "USD/Mtok", &c->r_usd,
                                  "the brackets, not a confidence interval") < 0)
            return -1;
        for (size_t k = 0; k < c->m.nrows; k++) {
            const struct cmp_row *q = &c->m.rows[k];
            if (q->group != CMP_MAIN || q->no_ratio || !q->ratio.ok) continue;
            char v[FMT_CELL], ci[2 * FMT_CELL];
            fmt_ratio(q, v, sizeof v);
            fmt_interval(&q->ci_r, -1, ci, sizeof ci);
            const char *cells[4] = {c->f.label, q->name, v, ci};
            if (page_row(t, cells) < 0) return -1;
        }
    }
    return 0;
}

static int nway_report_front(const struct nway *w, struct page *r) {
    char list[PARETO_MAX * (CANDFILE_LABEL_MAX + 2) + 8] = "";
    for (size_t i = 0; i < w->n; i++)
        if (w->pr.front[i])
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "",
                     w->c[i].f.label);
    return page_text(r, PAGE_PARA,
                     "Pareto front of USD per million tokens against p%g %s at capacity (no "
                     "other candidate is as cheap and as fast, and better in one): %s.",
                     w->slo.s[0].pct, slo_metric_text(w->slo.s[0].metric), list[0] ? list : "none");
}

int nway_report_build(const struct nway *w, const struct warnings *warn, struct page *r) {
    struct buf reason;
    memset(r, 0, sizeof *r);
    buf_init(&reason, BUF_NO_CAP);
    int rc = page_text(r, PAGE_TITLE, "%zu candidate%s at %s (baseline %s)", w->n,
                       w->n == 1 ? "" : "s", w->slo_text, w->c[w->base].f.label) < 0 ||
             nway_report_cands(w, r) < 0 || nway_report_front(w, r) < 0 ||
             nway_report_ratios(w, r) < 0 || page_text(r, PAGE_HEADING, "Recommendation") < 0 ||
             nway_report_reason(w, &reason) != BUF_OK ||
             page_text(r, PAGE_PARA, "%s", buf_str(&reason)) < 0;
    for (size_t i = 0; !rc && i < w->n; i++)
        if (w->c[i].excluded[0])
            rc = page_text(r, PAGE_ITEM, "%s left out: %s", w->c[i].f.label, w->c[i].excluded) < 0;
    if (!rc && warn->n) rc = page_text(r, PAGE_HEADING, "Warnings") < 0;
    for (size_t i = 0; !rc && i < warn->n; i++)
        rc = page_text(r, PAGE_ITEM, "%s", warn->items[i]) < 0;
    buf_free(&reason);
    return rc ? -1 : 0;
}
