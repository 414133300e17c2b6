#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

#define REPLY_CELL 60  /* bytes of a reply shown in a table */
#define RIGHT_1_3  0xe /* columns 1 to 3 right-aligned */

static struct block *add_block(struct report *r, enum block_kind kind) {
    struct block *b = realloc(r->blocks, (r->n + 1) * sizeof *b);
    if (!b) return NULL;
    r->blocks = b;
    b = &b[r->n++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    return b;
}

__attribute__((format(printf, 3, 4))) static int add_text(struct report *r, enum block_kind kind,
                                                          const char *fmt, ...) {
    struct block *b = add_block(r, kind);
    if (!b) return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&b->text, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->text = NULL;
        return -1;
    }
    return 0;
}

/* Starts a table with the given header (ncols strings). */
static struct block *table(struct report *r, unsigned right, size_t ncols,
                           const char *const *head) {
    struct block *b = add_block(r, BLOCK_TABLE);
    if (!b) return NULL;
    b->ncols = ncols;
    b->right = right;
    if (!(b->cells = calloc(ncols, sizeof *b->cells))) return NULL;
    b->nrows = 1;
    for (size_t i = 0; i < ncols; i++)
        if (!(b->cells[i] = strdup(head[i]))) return NULL;
    return b;
}

static int table_row(struct block *b, const char *const *cells) {
    char **c = realloc(b->cells, (b->nrows + 1) * b->ncols * sizeof *c);
    if (!c) return -1;
    b->cells = c;
    c += b->nrows * b->ncols;
    for (size_t i = 0; i < b->ncols; i++) c[i] = NULL;
    b->nrows++;
    for (size_t i = 0; i < b->ncols; i++)
        if (!(c[i] = strdup(cells[i] ? cells[i] : ""))) return -1;
    return 0;
}

/* One line per row of group g that misses a value, with the reasons. */
static int why_items(struct report *r, const struct cmp *m, enum row_group g) {
    for (size_t i = 0; i < m->nrows; i++) {
        const struct row *w = &m->rows[i];
        if (w->group != g || (w->b.ok && w->c.ok)) continue;
        int rc;
        if (!w->b.ok && !w->c.ok)
            rc = add_text(r, BLOCK_ITEM, "%s: n/a, %s; %s", w->name, w->b.why, w->c.why);
        else
            rc = add_text(r, BLOCK_ITEM, "%s, %s: n/a, %s", w->name, w->b.ok ? m->cname : m->bname,
                          w->b.ok ? w->c.why : w->b.why);
        if (rc < 0) return -1;
    }
    return 0;
}

/* A table of the rows of group g: name, both values, ratio. */
static int rows_table(struct report *r, const struct cmp *m, enum row_group g) {
    const char *head[] = {"measurement", m->bname, m->cname, "ratio"};
    struct block *t = table(r, RIGHT_1_3, 4, head);
    if (!t) return -1;
    for (size_t i = 0; i < m->nrows; i++) {
        const struct row *w = &m->rows[i];
        if (w->group != g) continue;
        char b[FMT_CELL], c[FMT_CELL], q[FMT_CELL];
        fmt_val(w, &w->b, w->b_total, b, sizeof b);
        fmt_val(w, &w->c, w->c_total, c, sizeof c);
        fmt_ratio(w, q, sizeof q);
        const char *cells[] = {w->name, b, c, q};
        if (table_row(t, cells) < 0) return -1;
    }
    return 0;
}

static bool group_has_value(const struct cmp *m, enum row_group g) {
    for (size_t i = 0; i < m->nrows; i++)
        if (m->rows[i].group == g && (m->rows[i].b.ok || m->rows[i].c.ok)) return true;
    return false;
}

static bool group_has_rows(const struct cmp *m, enum row_group g) {
    for (size_t i = 0; i < m->nrows; i++)
        if (m->rows[i].group == g) return true;
    return false;
}

static int main_table(struct report *r, const struct cmp *m) {
    if (add_text(r, BLOCK_TITLE,
                 "sm-compare: baseline %s, candidate %s (ratios are candidate / "
                 "baseline)",
                 m->bname, m->cname) < 0)
        return -1;
    if (m->scale_note[0] && add_text(r, BLOCK_PARA, "%s", m->scale_note) < 0) return -1;
    if (rows_table(r, m, ROW_MAIN) < 0) return -1;
    if (m->have_quiz) {
        if (add_text(r, BLOCK_PARA, "identical answers: %ld/%ld", m->identical, m->qtotal) < 0)
            return -1;
    } else if (add_text(r, BLOCK_PARA, "identical answers: n/a, %s", m->quiz_why) < 0) {
        return -1;
    }
    return why_items(r, m, ROW_MAIN);
}

static int intervals(struct report *r, const struct cmp *m) {
    long fewest = m->opts.resamples;
    bool any = false;
    for (size_t i = 0; i < m->nrows; i++) {
        const struct row *w = &m->rows[i];
        const struct ci *cs[] = {&w->ci_b, &w->ci_c, &w->ci_r};
        for (int k = 0; k < 3; k++)
            if (cs[k]->ok) {
                any = true;
                if (cs[k]->resamples < fewest) fewest = cs[k]->resamples;
            }
    }
    if (add_text(r, BLOCK_HEADING, "95%% intervals (bootstrap, %ld resamples, seed %llu)",
                 m->opts.resamples, (unsigned long long)m->opts.seed) < 0)
        return -1;
    if (!any)
        return add_text(r, BLOCK_PARA,
                        "n/a: an interval needs two or more samples per side (decode walls of "
                        "each length, batches of a level); compare.py files keep only medians.");
    const char *head[] = {"measurement", m->bname, m->cname, "ratio"};
    struct block *t = table(r, RIGHT_1_3, 4, head);
    if (!t) return -1;
    for (size_t i = 0; i < m->nrows; i++) {
        const struct row *w = &m->rows[i];
        if (!w->ci_b.ok && !w->ci_c.ok && !w->ci_r.ok) continue;
        char b[FMT_CELL * 2], c[FMT_CELL * 2], q[FMT_CELL * 2];
        fmt_ci(&w->ci_b, w->decimals, b, sizeof b);
        fmt_ci(&w->ci_c, w->decimals, c, sizeof c);
        fmt_ci(&w->ci_r, 2, q, sizeof q);
        const char *cells[] = {w->name, b, c, q};
        if (table_row(t, cells) < 0) return -1;
    }
    if (fewest < m->opts.resamples &&
        add_text(r, BLOCK_PARA,
                 "Samples of many thousand batches use fewer resamples (at least %ld).",
                 fewest) < 0)
        return -1;
    return 0;
}

static int decode_section(struct report *r, const struct cmp *m) {
    if (!group_has_rows(m, ROW_DECODE)) return 0;
    const struct side_decode *dc = m->b->dec.have ? &m->b->dec : &m->c->dec;
    char lengths[200] = "";
    for (size_t i = 0, k = 0; i < dc->nlengths && k < sizeof lengths; i++)
        k += (size_t)snprintf(lengths + k, sizeof lengths - k, "%s%d",
                              i == 0                  ? ""
                              : i + 1 == dc->nlengths ? " and "
                                                      : ", ",
                              dc->lengths[i]);
    if (add_text(r, BLOCK_HEADING, "Decode (lengths %s)", lengths) < 0 ||
        rows_table(r, m, ROW_DECODE) < 0 ||
        add_text(r, BLOCK_PARA,
                 "rate = (long - short) / (median wall long - median wall short); fixed cost = "
                 "median wall short - short / rate.") < 0)
        return -1;
    return why_items(r, m, ROW_DECODE);
}

static int latency_section(struct report *r, const struct cmp *m) {
    if (!group_has_rows(m, ROW_LATENCY)) return 0;
    if (add_text(r, BLOCK_HEADING, "Latency per request (seconds)") < 0) return -1;
    if (!group_has_value(m, ROW_LATENCY)) {
        const struct row *w = NULL;
        for (size_t i = 0; i < m->nrows && !w; i++)
            if (m->rows[i].group == ROW_LATENCY) w = &m->rows[i];
        return add_text(r, BLOCK_PARA, "n/a: %s", w->b.why);
    }
    return rows_table(r, m, ROW_LATENCY) < 0 ? -1 : why_items(r, m, ROW_LATENCY);
}

static int cost_section(struct report *r, const struct cmp *m) {
    if (!m->opts.have_price) return 0;
    if (add_text(r, BLOCK_HEADING, "Cost per million output tokens (USD %g per hour)",
                 m->opts.price) < 0 ||
        rows_table(r, m, ROW_COST) < 0)
        return -1;
    return why_items(r, m, ROW_COST);
}

static void errors_text(const struct tally *t, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < t->nerrs && k < cap; i++) {
        k += (size_t)snprintf(out + k, cap - k, "%s%s %ld", i ? ", " : "", t->errs[i].code,
                              t->errs[i].n);
        if (t->errs[i].message && k < cap)
            k += (size_t)snprintf(out + k, cap - k, " (%.80s)", t->errs[i].message);
    }
}

static int tally_row(struct block *t, const char *side, const char *what, const struct tally *ta) {
    char sent[32], ok[32], failed[32], errs[600];
    snprintf(sent, sizeof sent, "%ld", ta->sent);
    snprintf(ok, sizeof ok, "%ld", ta->ok);
    snprintf(failed, sizeof failed, "%ld", ta->failed);
    errors_text(ta, errs, sizeof errs);
    const char *cells[] = {side, what, sent, ok, failed, errs};
    return table_row(t, cells);
}

static int requests_section(struct report *r, const struct cmp *m) {
    const char *head[] = {"side", "measurement", "sent", "ok", "failed", "errors"};
    if (add_text(r, BLOCK_HEADING, "Requests") < 0) return -1;
    struct block *t = table(r, 0x1c, 6, head);
    if (!t) return -1;
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        const char *name = k ? m->cname : m->bname;
        if (s->dec.have && tally_row(t, name, "decode", &s->dec.tally) < 0) return -1;
        for (size_t i = 0; i < s->nlv; i++) {
            char what[32];
            snprintf(what, sizeof what, "load c%d", s->lv[i].c);
            if (tally_row(t, name, what, &s->lv[i].tally) < 0) return -1;
        }
        if (s->quiz && tally_row(t, name, "quiz", &s->quiz->tally) < 0) return -1;
    }
    return 0;
}

/* "(max - min) / mean" of the runs of one side and measurement. */
static int spread_item(struct report *r, const struct side *s, const char *name, const char *what) {
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int n = 0;
    for (size_t i = 0; i < s->nruns; i++) {
        if (strcmp(s->runs[i].what, what) != 0 || !isfinite(s->runs[i].v)) continue;
        lo = fmin(lo, s->runs[i].v);
        hi = fmax(hi, s->runs[i].v);
        sum += s->runs[i].v;
        n++;
    }
    if (n < 2 || !(sum > 0)) return 0;
    return add_text(r, BLOCK_ITEM, "%s %s: %d runs agree within %.2f%% ((max - min) / mean)", name,
                    what, n, (hi - lo) / (sum / n) * 100);
}

static int runs_section(struct report *r, const struct cmp *m) {
    if (!m->b->nruns && !m->c->nruns) return 0;
    const char *head[] = {"side", "measurement", "file", "value"};
    if (add_text(r, BLOCK_HEADING, "Agreement of the runs of one side") < 0) return -1;
    struct block *t = table(r, 0x8, 4, head);
    if (!t) return -1;
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        for (size_t i = 0; i < s->nruns; i++) {
            char v[FMT_CELL];
            fmt_num(s->runs[i].v, 2, v, sizeof v);
            const char *cells[] = {k ? m->cname : m->bname, s->runs[i].what,
                                   src_name(s->runs[i].src), v};
            if (table_row(t, cells) < 0) return -1;
        }
    }
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        for (size_t i = 0; i < s->nruns; i++) {
            bool first = true;
            for (size_t j = 0; j < i; j++) first &= strcmp(s->runs[j].what, s->runs[i].what) != 0;
            if (first && spread_item(r, s, k ? m->cname : m->bname, s->runs[i].what) < 0) return -1;
        }
    }
    return 0;
}

static int reply_cell(const struct quiz_item *it, char *out, size_t cap) {
    if (!it)
        snprintf(out, cap, "(not asked)");
    else if (!it->text)
        snprintf(out, cap, "(failed: %s)", it->error ? it->error : "error");
    else
        fmt_reply(it->text, REPLY_CELL, out, cap);
    return 0;
}

static int quiz_section(struct report *r, const struct cmp *m) {
    if (!m->b->quiz && !m->c->quiz) return 0;
    if (add_text(r, BLOCK_HEADING, "Quiz") < 0 || rows_table(r, m, ROW_KIND) < 0 ||
        why_items(r, m, ROW_KIND) < 0)
        return -1;
    if (!m->have_quiz) return add_text(r, BLOCK_PARA, "No comparison of answers: %s.", m->quiz_why);
    if (add_text(r, BLOCK_HEADING, "Disagreements (%zu of %ld questions)", m->ndis, m->qtotal) < 0)
        return -1;
    if (m->ndis) {
        const char *head[] = {"question", "expected", m->bname, m->cname, "right"};
        struct block *t = table(r, 0, 5, head);
        if (!t) return -1;
        for (size_t i = 0; i < m->ndis; i++) {
            const struct disagreement *d = &m->dis[i];
            char b[REPLY_CELL * 4 + 16], c[REPLY_CELL * 4 + 16], e[REPLY_CELL * 4 + 16];
            reply_cell(d->bi, b, sizeof b);
            reply_cell(d->ci, c, sizeof c);
            fmt_reply(d->expected ? d->expected : "?", REPLY_CELL, e, sizeof e);
            const char *cells[] = {d->id, e, b, c, d->right};
            if (table_row(t, cells) < 0) return -1;
        }
    }
    return add_text(r, BLOCK_PARA, "%s", m->mc_text);
}

static const char *fact_cell(const struct fact *f) {
    return f->have ? f->text : "n/a";
}

static int facts_section(struct report *r, const struct cmp *m) {
    const struct facts *x = &m->b->in.facts, *y = &m->c->in.facts;
    if (!m->b->in.have_facts && !m->c->in.have_facts) return 0;
    const char *head[] = {"fact", m->bname, m->cname};
    if (add_text(r, BLOCK_HEADING, "Container facts (vLLM start-up log)") < 0) return -1;
    struct block *t = table(r, 0, 3, head);
    if (!t) return -1;
    char bx[80], cx[80];
    snprintf(bx, sizeof bx, "%s%s", fact_cell(&x->max_concurrency),
             x->max_concurrency.have ? "x" : "");
    snprintf(cx, sizeof cx, "%s%s", fact_cell(&y->max_concurrency),
             y->max_concurrency.have ? "x" : "");
    const char *rows[][3] = {
        {"max_concurrency_tokens_per_request", fact_cell(&x->max_conc_tokens),
         fact_cell(&y->max_conc_tokens)},
        {"max_concurrency", bx, cx},
        {"quantization", fact_cell(&x->quantization), fact_cell(&y->quantization)},
        {"vllm_version", fact_cell(&x->vllm_version), fact_cell(&y->vllm_version)},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (table_row(t, rows[i]) < 0) return -1;
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        if (s->in.have_facts && add_text(r, BLOCK_ITEM, "%s facts from %s", k ? m->cname : m->bname,
                                         s->in.facts.source) < 0)
            return -1;
    }
    return 0;
}

static int warnings_section(struct report *r, const struct diag *d) {
    if (!d->nwarnings) return 0;
    if (add_text(r, BLOCK_HEADING, "Warnings") < 0) return -1;
    for (size_t i = 0; i < d->nwarnings; i++)
        if (add_text(r, BLOCK_ITEM, "%s", d->warnings[i]) < 0) return -1;
    return 0;
}

int report_build(const struct cmp *m, const struct diag *d, struct report *out) {
    memset(out, 0, sizeof *out);
    if (main_table(out, m) < 0 || intervals(out, m) < 0 || decode_section(out, m) < 0 ||
        latency_section(out, m) < 0 || cost_section(out, m) < 0 || requests_section(out, m) < 0 ||
        runs_section(out, m) < 0 || quiz_section(out, m) < 0 || facts_section(out, m) < 0 ||
        warnings_section(out, d) < 0 || add_text(out, BLOCK_HEADING, "Verdict") < 0 ||
        add_text(out, BLOCK_PARA, "%s", m->verdict) < 0) {
        report_free(out);
        return -1;
    }
    return 0;
}

void report_free(struct report *r) {
    for (size_t i = 0; i < r->n; i++) {
        struct block *b = &r->blocks[i];
        free(b->text);
        for (size_t k = 0; b->cells && k < b->nrows * b->ncols; k++) free(b->cells[k]);
        free(b->cells);
    }
    free(r->blocks);
    memset(r, 0, sizeof *r);
}
