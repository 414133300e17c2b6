#include "out_csv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

#define NCOLS 13

static int field(struct buf *b, const char *s, bool last) {
    int rc = 0;
    if (strpbrk(s, ",\"\r\n")) {
        rc = buf_addc(b, '"');
        for (const char *p = s; *p && !rc; p++)
            rc = *p == '"' ? buf_adds(b, "\"\"") : buf_addc(b, *p);
        rc = rc || buf_addc(b, '"');
    } else {
        rc = buf_adds(b, s);
    }
    return rc || buf_adds(b, last ? "\r\n" : ",");
}

static int line(struct buf *b, const char *const *cells) {
    int rc = 0;
    for (int i = 0; i < NCOLS && !rc; i++) rc = field(b, cells[i] ? cells[i] : "", i == NCOLS - 1);
    return rc;
}

static void ci_cells(const struct ci *ci, char *lo, char *hi) {
    lo[0] = hi[0] = '\0';
    if (!ci->ok || !isfinite(ci->lo) || !isfinite(ci->hi)) return;
    fmt_num(ci->lo, 4, lo, FMT_CELL);
    fmt_num(ci->hi, 4, hi, FMT_CELL);
}

static void why(const struct row *r, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    if (!r->b.ok) k += (size_t)snprintf(out + k, cap - k, "baseline: %s", r->b.why);
    if (!r->c.ok && k < cap)
        k += (size_t)snprintf(out + k, cap - k, "%scandidate: %s", k ? "; " : "", r->c.why);
    if (!r->no_ratio && !r->ratio.ok && r->b.ok && r->c.ok && k < cap)
        snprintf(out + k, cap - k, "ratio: %s", r->ratio.why);
}

static int row_line(struct buf *b, const struct row *r) {
    char v[3][FMT_CELL], lo[3][FMT_CELL], hi[3][FMT_CELL], tb[32] = "", tc[32] = "", note[400];
    const struct val *vals[] = {&r->b, &r->c};
    for (int i = 0; i < 2; i++) {
        if (vals[i]->ok)
            fmt_num(vals[i]->v, r->decimals, v[i], FMT_CELL);
        else
            v[i][0] = '\0';
    }
    if (!r->no_ratio && r->ratio.ok)
        fmt_num(r->ratio.v, 2, v[2], FMT_CELL);
    else
        v[2][0] = '\0';
    ci_cells(&r->ci_b, lo[0], hi[0]);
    ci_cells(&r->ci_c, lo[1], hi[1]);
    ci_cells(&r->ci_r, lo[2], hi[2]);
    if (r->b_total > 0) snprintf(tb, sizeof tb, "%ld", r->b_total);
    if (r->c_total > 0) snprintf(tc, sizeof tc, "%ld", r->c_total);
    why(r, note, sizeof note);
    const char *cells[NCOLS] = {r->name, v[0],  v[1],  v[2], lo[0], hi[0], lo[1],
                                hi[1],   lo[2], hi[2], tb,   tc,    note};
    return line(b, cells);
}

/* A row without intervals. */
static int plain_line(struct buf *b, const char *name, const char *base, const char *cand,
                      const char *ratio, const char *total, const char *note) {
    const char *cells[NCOLS] = {name, base, cand, ratio, "",    "",  "",
                                "",   "",   "",   total, total, note};
    return line(b, cells);
}

static int quiz_lines(struct buf *b, const struct cmp *m) {
    char n1[32], n2[32], tot[32], p[FMT_CELL];
    if (!m->have_quiz) return 0;
    snprintf(n1, sizeof n1, "%ld", m->identical);
    snprintf(tot, sizeof tot, "%ld", m->qtotal);
    if (plain_line(b, "identical_answers", n1, n1, "", tot, "replies byte-identical on both sides"))
        return -1;
    if (m->have_mcnemar) {
        snprintf(n1, sizeof n1, "%u", m->mc_b);
        snprintf(n2, sizeof n2, "%u", m->mc_c);
        fmt_num(m->mc_p, 4, p, sizeof p);
        if (plain_line(b, "mcnemar_exact_p", n1, n2, p, "",
                       "questions only that side got right; p in the ratio column"))
            return -1;
    }
    for (size_t i = 0; i < m->ndis; i++) {
        const struct disagreement *d = &m->dis[i];
        char name[200], note[300];
        snprintf(name, sizeof name, "disagreement:%s", d->id);
        snprintf(note, sizeof note, "expected %s; right: %s", d->expected ? d->expected : "?",
                 d->right);
        const char *bt = !d->bi ? "(not asked)" : d->bi->text ? d->bi->text : "(failed)";
        const char *ct = !d->ci ? "(not asked)" : d->ci->text ? d->ci->text : "(failed)";
        if (plain_line(b, name, bt, ct, "", "", note)) return -1;
    }
    return 0;
}

int out_csv(const struct cmp *m, struct buf *out) {
    static const char *const head[NCOLS] = {"measurement",   "baseline",       "candidate",
                                            "ratio",         "baseline_low",   "baseline_high",
                                            "candidate_low", "candidate_high", "ratio_low",
                                            "ratio_high",    "baseline_total", "candidate_total",
                                            "note"};
    int rc = line(out, head);
    for (size_t i = 0; i < m->nrows && !rc; i++) rc = row_line(out, &m->rows[i]);
    if (!rc) rc = quiz_lines(out, m);
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
