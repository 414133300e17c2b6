#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudwatch_report.h"
#include "fmt.h"
#include "openloop_report.h"
#include "scaling_report.h"
#include "prose.h"
#include "quiz_family_report.h"
#include "shard_report.h"
#include "tmplrep.h"
#include "tokreport.h"
#include "verdict.h"

#define REPORT_REPLY   60   /* bytes of a reply shown in a table */
#define REPORT_RIGHT13 0xe  /* columns 1 to 3 right-aligned */
#define REPORT_RIGHT15 0x3e /* columns 1 to 5 right-aligned */

/* A value its side's client limited says so: "0.0189 [client-limited]". */
static void report_mark(const char *limited, char *cell, size_t cap) {
    size_t n = strlen(cell);
    if (limited[0] && n < cap) snprintf(cell + n, cap - n, " %s", PAGE_LIMITED);
}

/* One line per row of group g that misses a value, with the reasons. */
static int report_why(struct page *r, const struct cmp *m, enum cmp_group g) {
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *w = &m->rows[i];
        if (w->group != g || (w->b.ok && w->c.ok)) continue;
        int rc;
        if (!w->b.ok && !w->c.ok)
            rc = page_text(r, PAGE_ITEM, "%s: n/a, %s; %s", w->name, w->b.why, w->c.why);
        else
            rc = page_text(r, PAGE_ITEM, "%s, %s: n/a, %s", w->name, w->b.ok ? m->cname : m->bname,
                           w->b.ok ? w->c.why : w->b.why);
        if (rc < 0) return -1;
    }
    return 0;
}

/* A table of the rows of group g: name, both values, ratio, each side's
 * requests (when a row of the group rests on requests). */
static int report_rows(struct page *r, const struct cmp *m, enum cmp_group g) {
    char okb[200], okc[200];
    bool counts = false;
    for (size_t i = 0; i < m->nrows; i++)
        counts |= m->rows[i].group == g && (m->rows[i].tb || m->rows[i].tc);
    snprintf(okb, sizeof okb, "%s ok/sent", m->bname);
    snprintf(okc, sizeof okc, "%s ok/sent", m->cname);
    const char *head[] = {"measurement", m->bname, m->cname, "ratio", okb, okc};
    struct page_block *t = page_table(r, REPORT_RIGHT15, counts ? 6 : 4, head);
    if (!t) return -1;
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *w = &m->rows[i];
        if (w->group != g) continue;
        char b[FMT_CELL], c[FMT_CELL], q[FMT_CELL], nb[64], nc[64];
        fmt_val(w, &w->b, w->b_total, w->b_unanswered, b, sizeof b);
        fmt_val(w, &w->c, w->c_total, w->c_unanswered, c, sizeof c);
        report_mark(w->limited_b, b, sizeof b);
        report_mark(w->limited_c, c, sizeof c);
        fmt_ratio(w, q, sizeof q);
        fmt_requests(w->tb, nb, sizeof nb);
        fmt_requests(w->tc, nc, sizeof nc);
        const char *cells[] = {w->name, b, c, q, nb, nc};
        if (page_row(t, cells) < 0) return -1;
    }
    return 0;
}

static bool report_group_has_value(const struct cmp *m, enum cmp_group g) {
    for (size_t i = 0; i < m->nrows; i++)
        if (m->rows[i].group == g && (m->rows[i].b.ok || m->rows[i].c.ok)) return true;
    return false;
}

static bool report_group_has_rows(const struct cmp *m, enum cmp_group g) {
    for (size_t i = 0; i < m->nrows; i++)
        if (m->rows[i].group == g) return true;
    return false;
}

static int report_identical(struct page *r, const struct cmp *m) {
    const struct quiz_cmp *q = &m->quiz;
    if (!q->have) return page_text(r, PAGE_PARA, "identical answers: n/a, %s", q->why);
    if (q->both == q->asked)
        return page_text(r, PAGE_PARA, "identical answers: %ld/%ld", q->identical, q->both);
    return page_text(r, PAGE_PARA,
                     "identical answers: %ld/%ld of the questions both sides answered (%ld "
                     "asked)",
                     q->identical, q->both, q->asked);
}

static int report_main(struct page *r, const struct cmp *m) {
    if (page_text(r, PAGE_TITLE,
                  "sm-compare: baseline %s, candidate %s (ratios are candidate / baseline)",
                  m->bname, m->cname) < 0)
        return -1;
    struct buf scale;
    buf_init(&scale, BUF_NO_CAP);
    int rc = prose_scale(m, &scale);
    if (rc == 0 && scale.len) rc = page_text(r, PAGE_PARA, "%s", buf_str(&scale));
    buf_free(&scale);
    if (rc < 0) return -1;
    if (report_rows(r, m, CMP_MAIN) < 0 || report_identical(r, m) < 0) return -1;
    return report_why(r, m, CMP_MAIN);
}

/* ---- intervals ---- */

/* Whether a row's intervals are worth a line: one exists, or a sample is too small. */
static bool report_has_interval(const struct cmp_row *w) {
    const struct interval *cis[] = {&w->ci_b, &w->ci_c, &w->ci_r};
    bool any = false;
    for (int k = 0; k < 3; k++) any |= cis[k]->ok || strncmp(cis[k]->why, "n = ", 4) == 0;
    return w->method != NULL && (w->b.ok || w->c.ok) && any;
}

static int report_interval_rows(struct page_block *t, const struct cmp *m) {
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *w = &m->rows[i];
        if (!report_has_interval(w)) continue;
        char b[FMT_CELL * 2], c[FMT_CELL * 2], q[FMT_CELL * 2], n[64];
        int dec = w->decimals < 0 ? 2 : w->decimals;
        fmt_interval(&w->ci_b, dec, b, sizeof b);
        fmt_interval(&w->ci_c, dec, c, sizeof c);
        fmt_interval(&w->ci_r, -1, q, sizeof q);
        snprintf(n, sizeof n, "%zu, %zu", w->nb, w->nc);
        const char *cells[] = {w->name, b, c, q, n};
        if (page_row(t, cells) < 0) return -1;
    }
    return 0;
}

static int report_methods(struct page *r, const struct cmp *m) {
    const char *seen[8];
    size_t n = 0;
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *w = &m->rows[i];
        bool dup = false;
        if (!report_has_interval(w) || w->group == CMP_COST) continue;
        for (size_t k = 0; k < n; k++) dup |= seen[k] == w->method;
        if (dup || n == sizeof seen / sizeof seen[0]) continue;
        seen[n++] = w->method;
        const char *label = w->load_c                ? "load_cN_tokens_per_second"
                            : w->group == CMP_STREAM ? "ttft, itl, tpot, e2e"
                                                     : w->name;
        if (page_text(r, PAGE_ITEM, "%s: %s", label, w->method) < 0) return -1;
    }
    return 0;
}

static int report_intervals(struct page *r, const struct cmp *m) {
    bool any = false, some = false, stream = false;
    for (size_t i = 0; i < m->nrows; i++) {
        any |= report_has_interval(&m->rows[i]);
        stream |= m->rows[i].group == CMP_STREAM && report_has_interval(&m->rows[i]);
        some |= m->rows[i].method && (m->rows[i].b.ok || m->rows[i].c.ok);
    }
    if (!some) return 0;
    if (page_text(r, PAGE_HEADING, "95%% intervals") < 0) return -1;
    if (!any)
        return page_text(r, PAGE_PARA,
                         "n/a: compare.py files keep only medians and batches timed through "
                         "the aws CLI.");
    const char *head[] = {"measurement", m->bname, m->cname, "ratio", "samples"};
    struct page_block *t = page_table(r, REPORT_RIGHT13 | 0x10, 5, head);
    if (!t || report_interval_rows(t, m) < 0) return -1;
    if (page_text(r, PAGE_PARA,
                  "Samples: replies of each length (decode), batches (load%s) per side. The "
                  "methods (docs/compare.md):",
                  stream ? " and streaming; a streamed decode's: requests" : "") < 0)
        return -1;
    return report_methods(r, m);
}

/* ---- decode, latency, cost ---- */

static int report_decode(struct page *r, const struct cmp *m) {
    if (!report_group_has_rows(m, CMP_DECODE)) return 0;
    const struct side_decode *dc = m->b->dec.have ? &m->b->dec : &m->c->dec;
    char lengths[200] = "";
    for (size_t i = 0, k = 0; i < dc->nlengths && k < sizeof lengths; i++)
        k += (size_t)snprintf(lengths + k, sizeof lengths - k, "%s%d",
                              i == 0                  ? ""
                              : i + 1 == dc->nlengths ? " and "
                                                      : ", ",
                              dc->lengths[i]);
    if (page_text(r, PAGE_HEADING, "Decode (lengths %s)", lengths) < 0 ||
        report_rows(r, m, CMP_DECODE) < 0 ||
        page_text(r, PAGE_PARA,
                  "rate = (long - short) / (median wall long - median wall short); fixed cost = "
                  "median wall short - short / rate.") < 0)
        return -1;
    return report_why(r, m, CMP_DECODE);
}

static int report_latency(struct page *r, const struct cmp *m) {
    if (!report_group_has_rows(m, CMP_LATENCY)) return 0;
    if (page_text(r, PAGE_HEADING, "Latency per request (seconds)") < 0) return -1;
    if (!report_group_has_value(m, CMP_LATENCY)) {
        const struct cmp_row *w = NULL;
        for (size_t i = 0; i < m->nrows && !w; i++)
            if (m->rows[i].group == CMP_LATENCY) w = &m->rows[i];
        return page_text(r, PAGE_PARA, "n/a: %s", w->b.ok ? w->c.why : w->b.why);
    }
    return report_rows(r, m, CMP_LATENCY) < 0 ? -1 : report_why(r, m, CMP_LATENCY);
}

/* ---- streaming ---- */

/* A streaming value's sample: "8" requests, "2040 of 8" tokens of requests, "" for none. */
static void report_n(const struct cmp_n *n, const struct side_val *v, char *out, size_t cap) {
    if (!v->ok)
        snprintf(out, cap, "%s", "");
    else if (n->tokens)
        snprintf(out, cap, "%llu of %zu", (unsigned long long)n->tokens, n->requests);
    else
        snprintf(out, cap, "%zu", n->requests);
}

/* Each side's reasons for a missing streaming value, each once. */
static int report_stream_why(struct page *r, const struct cmp *m) {
    const char *seen[32];
    size_t nseen = 0;
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *w = &m->rows[i];
        for (int k = 0; w->group == CMP_STREAM && k < 2; k++) {
            const struct side_val *v = k ? &w->c : &w->b;
            bool dup = v->ok;
            for (size_t j = 0; j < nseen && !dup; j++) dup = strcmp(seen[j], v->why) == 0;
            if (dup || nseen == sizeof seen / sizeof seen[0]) continue;
            seen[nseen++] = v->why;
            if (page_text(r, PAGE_ITEM, "%s: n/a where %s", k ? m->cname : m->bname, v->why) < 0)
                return -1;
        }
    }
    return 0;
}

/* What ITL's unit was on each side, when the records said (itl_unit). */
static int report_itl_unit(struct page *r, const struct cmp *m) {
    const char *u[2] = {cmp_itl_unit(m, 0), cmp_itl_unit(m, 1)};
    if (!u[0] && !u[1]) return 0;
    return page_text(r, PAGE_PARA,
                     "ITL unit: per %s on %s, per %s on %s (per token: the server said each "
                     "chunk's tokens, e.g. vLLM's stream_options.continuous_usage_stats; per "
                     "chunk: a chunk of several tokens counts as one gap, e.g. a container "
                     "that refused it).",
                     u[0] ? u[0] : "(not said)", m->bname, u[1] ? u[1] : "(not said)", m->cname);
}

/* How many requests opened a connection, and how long opening took (sm-stream's
 * records: connect_us, tls_us), when some side's records said. */
static int report_conn(struct page *r, const struct cmp *m) {
    if (!m->conn[0].timed && !m->conn[1].timed) return 0;
    char part[2][200];
    for (int k = 0; k < 2; k++) {
        const struct conntime_summary *c = &m->conn[k];
        if (!c->timed)
            snprintf(part[k], sizeof part[k], "not timed (wrk keeps its connections)");
        else if (!c->opened)
            snprintf(part[k], sizeof part[k], "none of %zu requests opened one", c->timed);
        else
            snprintf(part[k], sizeof part[k],
                     "%zu of %zu requests opened one (%.1f%%), connect median %.3f ms, TLS "
                     "median %.3f ms",
                     c->opened, c->timed, 100 * c->opened_share, c->connect_ms, c->tls_ms);
    }
    return page_text(r, PAGE_PARA,
                     "Connections (left out of TTFT and latency, which start once the "
                     "request is on its connection): %s: %s; %s: %s.",
                     m->bname, part[0], m->cname, part[1]);
}

static int report_stream(struct page *r, const struct cmp *m) {
    char nb[200], nc[200];
    if (!report_group_has_rows(m, CMP_STREAM)) return 0;
    if (page_text(r, PAGE_HEADING, "Streaming (seconds; successful requests)") < 0) return -1;
    if (m->stream_mixed &&
        page_text(r, PAGE_PARA,
                  "MIXED: one side did not stream its replies, so it has no TTFT, ITL or TPOT; "
                  "its end-to-end latency is compared, but a whole reply ends with its last "
                  "byte and a streamed one with its last chunk, over another route.") < 0)
        return -1;
    if (report_itl_unit(r, m) < 0 || report_conn(r, m) < 0) return -1;
    snprintf(nb, sizeof nb, "%s n", m->bname);
    snprintf(nc, sizeof nc, "%s n", m->cname);
    const char *head[] = {"measurement", m->bname, m->cname, "ratio", nb, nc};
    struct page_block *t = page_table(r, REPORT_RIGHT15, 6, head);
    if (!t) return -1;
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *w = &m->rows[i];
        if (w->group != CMP_STREAM) continue;
        char b[FMT_CELL], c[FMT_CELL], q[FMT_CELL], sb[64], sc[64];
        fmt_val(w, &w->b, 0, 0, b, sizeof b);
        fmt_val(w, &w->c, 0, 0, c, sizeof c);
        report_mark(w->limited_b, b, sizeof b);
        report_mark(w->limited_c, c, sizeof c);
        fmt_ratio(w, q, sizeof q);
        report_n(&w->n_b, &w->b, sb, sizeof sb);
        report_n(&w->n_c, &w->c, sc, sizeof sc);
        const char *cells[] = {w->name, b, c, q, sb, sc};
        if (page_row(t, cells) < 0) return -1;
    }
    if (page_text(r, PAGE_PARA,
                  "ttft: first content chunk - request sent; itl: the gaps between content "
                  "chunks, per token (the gap before a chunk of k tokens counts k times, as "
                  "gap / k); tpot: (end - first chunk) / (completion tokens - 1), requests of "
                  "2 tokens or more; e2e: end - request sent. p50/p90/p99 over the successful "
                  "requests (itl: over their tokens); n: requests (itl: tokens of requests).") < 0)
        return -1;
    return report_stream_why(r, m);
}

static int report_cost(struct page *r, const struct cmp *m) {
    if (!m->opts.have_price || !report_group_has_rows(m, CMP_COST)) return 0;
    if (page_text(r, PAGE_HEADING, "Cost per million output tokens (USD %g per hour)",
                  m->opts.price) < 0 ||
        report_rows(r, m, CMP_COST) < 0)
        return -1;
    return report_why(r, m, CMP_COST);
}

/* ---- requests and runs ---- */

static void report_errors_text(const struct src_tally *t, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < t->nerrs && k < cap; i++) {
        k += (size_t)snprintf(out + k, cap - k, "%s%s %ld", i ? ", " : "", t->errs[i].code,
                              t->errs[i].n);
        if (t->errs[i].message && k < cap)
            k += (size_t)snprintf(out + k, cap - k, " (%.80s)", t->errs[i].message);
    }
}

static int report_tally(struct page_block *t, const char *side, const char *what,
                        const struct src_tally *ta) {
    char sent[32], ok[32], failed[32], errs[600];
    snprintf(sent, sizeof sent, "%ld", ta->sent);
    snprintf(ok, sizeof ok, "%ld", ta->ok);
    snprintf(failed, sizeof failed, "%ld", ta->failed);
    report_errors_text(ta, errs, sizeof errs);
    const char *cells[] = {side, what, sent, ok, failed, errs};
    return page_row(t, cells);
}

static int report_requests(struct page *r, const struct cmp *m) {
    const char *head[] = {"side", "measurement", "sent", "ok", "failed", "errors"};
    if (page_text(r, PAGE_HEADING, "Requests") < 0) return -1;
    struct page_block *t = page_table(r, 0x1c, 6, head);
    if (!t) return -1;
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        const char *name = k ? m->cname : m->bname;
        if (s->dec.have && report_tally(t, name, "decode", &s->dec.tally) < 0) return -1;
        for (size_t i = 0; i < s->nlv; i++) {
            char what[32];
            snprintf(what, sizeof what, "load c%d", s->lv[i].c);
            if (report_tally(t, name, what, &s->lv[i].tally) < 0) return -1;
        }
        if (s->quiz && report_tally(t, name, "quiz", &s->quiz->tally) < 0) return -1;
        for (size_t i = 0; i < s->rate.n; i++) {
            char what[64];
            snprintf(what, sizeof what, "rate %g/s", s->rate.r[i].rate);
            if (report_tally(t, name, what, &s->rate.r[i].tally) < 0) return -1;
        }
    }
    return 0;
}

/* "(max - min) / mean" of the runs of one side and measurement. */
static int report_spread(struct page *r, const struct side *s, const char *name, const char *what) {
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
    return page_text(r, PAGE_ITEM, "%s %s: %d runs agree within %.2f%% ((max - min) / mean)", name,
                     what, n, (hi - lo) / (sum / n) * 100);
}

static int report_runs(struct page *r, const struct cmp *m) {
    if (!m->b->nruns && !m->c->nruns) return 0;
    const char *head[] = {"side", "measurement", "file", "value"};
    if (page_text(r, PAGE_HEADING, "Agreement of the runs of one side") < 0) return -1;
    struct page_block *t = page_table(r, 0x8, 4, head);
    if (!t) return -1;
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        for (size_t i = 0; i < s->nruns; i++) {
            char v[FMT_CELL];
            fmt_num(s->runs[i].v, 2, v, sizeof v);
            const char *cells[] = {k ? m->cname : m->bname, s->runs[i].what,
                                   src_name(s->runs[i].src), v};
            if (page_row(t, cells) < 0) return -1;
        }
    }
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        for (size_t i = 0; i < s->nruns; i++) {
            bool first = true;
            for (size_t j = 0; j < i; j++) first &= strcmp(s->runs[j].what, s->runs[i].what) != 0;
            if (first && report_spread(r, s, k ? m->cname : m->bname, s->runs[i].what) < 0)
                return -1;
        }
    }
    return 0;
}

/* ---- quiz ---- */

static void report_reply(const struct src_quiz_item *it, char *out, size_t cap) {
    if (!it)
        snprintf(out, cap, "(not asked)");
    else if (!it->text)
        snprintf(out, cap, "(failed: %.80s)", it->error ? it->error : "error");
    else
        fmt_reply(it->text, REPORT_REPLY, out, cap);
}

static int report_dis_heading(struct page *r, const struct quiz_cmp *q) {
    if (q->both == q->asked)
        return page_text(r, PAGE_HEADING, "Disagreements (%zu of %ld questions)", q->ndiffer,
                         q->asked);
    return page_text(r, PAGE_HEADING,
                     "Disagreements (%zu of the %ld questions both answered; %zu unanswered)",
                     q->ndiffer, q->both, q->ndis - q->ndiffer);
}

static int report_dis(struct page *r, const struct cmp *m) {
    const struct quiz_cmp *q = &m->quiz;
    if (report_dis_heading(r, q) < 0) return -1;
    if (!q->ndis) return 0;
    const char *head[] = {"question", "expected", m->bname, m->cname, "right"};
    struct page_block *t = page_table(r, 0, 5, head);
    if (!t) return -1;
    for (size_t i = 0; i < q->ndis; i++) {
        const struct quiz_cmp_dis *d = &q->dis[i];
        char b[REPORT_REPLY + 100], c[REPORT_REPLY + 100], e[REPORT_REPLY + 8];
        report_reply(d->bi, b, sizeof b);
        report_reply(d->ci, c, sizeof c);
        fmt_reply(d->expected ? d->expected : "?", REPORT_REPLY, e, sizeof e);
        const char *cells[] = {d->id, e, b, c, d->right};
        if (page_row(t, cells) < 0) return -1;
    }
    return 0;
}

static int report_quiz(struct page *r, const struct cmp *m) {
    if (!m->b->quiz && !m->c->quiz) return 0;
    if (page_text(r, PAGE_HEADING, "Quiz") < 0 || report_rows(r, m, CMP_KIND) < 0 ||
        report_why(r, m, CMP_KIND) < 0)
        return -1;
    if (!m->quiz.have) return page_text(r, PAGE_PARA, "No comparison of answers: %s.", m->quiz.why);
    if (report_dis(r, m) < 0) return -1;
    struct buf mc;
    buf_init(&mc, BUF_NO_CAP);
    int rc = prose_mcnemar(m, &mc);
    if (rc == 0) rc = page_text(r, PAGE_PARA, "%s", buf_str(&mc));
    buf_free(&mc);
    if (rc < 0) return -1;
    return quiz_family_report_report(r, &m->fam, m->bname, m->cname);
}

/* ---- server log, facts, warnings ---- */

static int report_xcheck_row(struct page_block *t, const struct cmp *m,
                             const struct xcheck_row *x) {
    char level[64], client[FMT_CELL * 3 + 16], server[FMT_CELL], diff[64], over[64];
    snprintf(level, sizeof level, "c%d", x->c);
    char c0[FMT_CELL], lo[FMT_CELL], hi[FMT_CELL];
    fmt_num(x->client, 1, c0, sizeof c0);
    fmt_num(x->client_lo, 1, lo, sizeof lo);
    fmt_num(x->client_hi, 1, hi, sizeof hi);
    snprintf(client, sizeof client, "%s (%s to %s)", c0, lo, hi);
    fmt_num(x->server, 1, server, sizeof server);
    snprintf(diff, sizeof diff, "%+.1f%%%s", x->client > 0 ? 100 * (x->server / x->client - 1) : 0,
             x->differs ? " !" : "");
    snprintf(over, sizeof over, "%zu lines, %.3g s", x->lines, x->seconds);
    const char *cells[] = {
        x->side == m->b ? m->bname : m->cname, level, client, server, diff, over};
    return page_row(t, cells);
}

static int report_xcheck(struct page *r, const struct cmp *m) {
    if (!m->xc.n) return 0;
    const char *head[] = {"side", "level", "client tokens/s", "server tokens/s", "server - client",
                          "over"};
    if (page_text(r, PAGE_HEADING, "Server log cross-check (generation throughput)") < 0) return -1;
    struct page_block *t = page_table(r, 0x1c, 6, head);
    if (!t) return -1;
    for (size_t i = 0; i < m->xc.n; i++)
        if (m->xc.rows[i].ok && report_xcheck_row(t, m, &m->xc.rows[i]) < 0) return -1;
    for (size_t i = 0; i < m->xc.n; i++) {
        const struct xcheck_row *x = &m->xc.rows[i];
        if (!x->ok &&
            page_text(r, PAGE_ITEM, "%s c%d (%s): no cross-check: %s",
                      x->side == m->b ? m->bname : m->cname, x->c, src_name(x->src), x->why) < 0)
            return -1;
    }
    return page_text(r, PAGE_PARA,
                     "The client's figure is a range over where the log's intervals may lie "
                     "(its time resolution, %.0f ms of clock difference); ! marks a server "
                     "figure more than %.0f%% outside it.",
                     1e3 * XCHECK_CLOCK_S, 100 * XCHECK_TOLERANCE);
}

static const char *report_fact(const struct facts_fact *f) {
    return f->have ? f->text : "n/a";
}

static int report_facts(struct page *r, const struct cmp *m) {
    const struct facts *x = &m->b->in.facts, *y = &m->c->in.facts;
    if (!m->b->in.have_facts && !m->c->in.have_facts) return 0;
    const char *head[] = {"fact", m->bname, m->cname};
    if (page_text(r, PAGE_HEADING, "Container facts (vLLM start-up log)") < 0) return -1;
    struct page_block *t = page_table(r, 0, 3, head);
    if (!t) return -1;
    char bx[80], cx[80];
    snprintf(bx, sizeof bx, "%s%s", report_fact(&x->max_concurrency),
             x->max_concurrency.have ? "x" : "");
    snprintf(cx, sizeof cx, "%s%s", report_fact(&y->max_concurrency),
             y->max_concurrency.have ? "x" : "");
    const char *rows[][3] = {
        {"max_concurrency_tokens_per_request", report_fact(&x->max_conc_tokens),
         report_fact(&y->max_conc_tokens)},
        {"max_concurrency", bx, cx},
        {"quantization", report_fact(&x->quantization), report_fact(&y->quantization)},
        {"vllm_version", report_fact(&x->vllm_version), report_fact(&y->vllm_version)},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (page_row(t, rows[i]) < 0) return -1;
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        if (s->in.have_facts && page_text(r, PAGE_ITEM, "%s facts from %s", k ? m->cname : m->bname,
                                          s->in.facts.source) < 0)
            return -1;
    }
    return 0;
}

static int report_warnings(struct page *r, const struct warnings *w) {
    if (!w->n) return 0;
    if (page_text(r, PAGE_HEADING, "Warnings") < 0) return -1;
    for (size_t i = 0; i < w->n; i++)
        if (page_text(r, PAGE_ITEM, "%s", w->items[i]) < 0) return -1;
    return 0;
}

/* Each side's reasons for a client-limited figure, each once. */
static int report_limited(struct page *r, const struct cmp *m) {
    const char *seen[64];
    const char *who[64];
    size_t n = 0;
    for (size_t i = 0; i < m->nrows; i++)
        for (int k = 0; k < 2; k++) {
            const char *why = k ? m->rows[i].limited_c : m->rows[i].limited_b;
            const char *name = k ? m->cname : m->bname;
            bool dup = !why[0];
            for (size_t j = 0; j < n && !dup; j++)
                dup = who[j] == name && strcmp(seen[j], why) == 0;
            if (dup || n == sizeof seen / sizeof seen[0]) continue;
            seen[n] = why;
            who[n++] = name;
        }
    if (!n) return 0;
    if (page_text(r, PAGE_HEADING, "Client-limited figures") < 0 ||
        page_text(r, PAGE_PARA,
                  "A value marked %s was measured while the client itself lagged (late "
                  "sends, a busy CPU, a stalled loop or a host whose CPU was stolen: "
                  "docs/compare.md, Client-limited figures): it says more of the client than "
                  "of the server, and a ratio of it is no server comparison.",
                  PAGE_LIMITED) < 0)
        return -1;
    for (size_t j = 0; j < n; j++)
        if (page_text(r, PAGE_ITEM, "%s: client-limited: %s", who[j], seen[j]) < 0) return -1;
    return 0;
}

/* The verdict (verdict.h) under its heading. */
static int report_verdict(struct page *r, const struct cmp *m) {
    struct buf v;
    buf_init(&v, BUF_NO_CAP);
    int rc = verdict_build(m, &v);
    if (rc == 0) rc = page_text(r, PAGE_HEADING, "Verdict");
    if (rc == 0) rc = page_text(r, PAGE_PARA, "%s", buf_str(&v));
    buf_free(&v);
    return rc < 0 ? -1 : 0;
}

int report_build(const struct cmp *m, const struct warnings *w, struct page *out) {
    memset(out, 0, sizeof *out);
    if (report_main(out, m) < 0 || report_intervals(out, m) < 0 || report_decode(out, m) < 0 ||
        report_latency(out, m) < 0 || report_stream(out, m) < 0 || tokreport_build(out, m) < 0 ||
        openloop_report_build(out, m) < 0 || scaling_report_build(out, m) < 0 ||
        report_cost(out, m) < 0 || report_requests(out, m) < 0 || report_runs(out, m) < 0 ||
        shard_report_build(out, m) < 0 || tmplrep_build(out, m) < 0 || report_quiz(out, m) < 0 ||
        report_xcheck(out, m) < 0 || cloudwatch_report_build(out, m) < 0 ||
        report_facts(out, m) < 0 || report_warnings(out, w) < 0 || report_limited(out, m) < 0 ||
        report_verdict(out, m) < 0) {
        page_free(out);
        return REPORT_ERR_NOMEM;
    }
    return REPORT_OK;
}
