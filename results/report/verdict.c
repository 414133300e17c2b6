#include "verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "notes.h"
#include "openloop_report.h"

/* The verdict being written: it grows as it needs (no cap cuts it); rc keeps
 * the first failure (out of memory), after which nothing is added. */
struct verdict_out {
    struct buf *b;
    int rc;
};

__attribute__((format(printf, 2, 3))) static void verdict_add(struct verdict_out *o,
                                                              const char *fmt, ...) {
    va_list ap;
    if (o->rc < 0) return;
    va_start(ap, fmt);
    o->rc = buf_vaddf(o->b, fmt, ap);
    va_end(ap);
}

/* Cuts the spaces at the end. */
static void verdict_trim(struct verdict_out *o) {
    size_t n = o->b->len;
    while (n > 0 && buf_str(o->b)[n - 1] == ' ') n--;
    buf_truncate(o->b, n);
}

/* The caveat of a sentence whose figures a side's client limited: who and why. */
static void verdict_caveat(struct verdict_out *o, const struct cmp *m, const char *lb,
                           const char *lc) {
    if (!lb[0] && !lc[0]) return;
    verdict_add(o, " (client-limited, so a figure of the client rather than of the server: ");
    if (lb[0]) verdict_add(o, "%s: %s", m->bname, lb);
    if (lb[0] && lc[0]) verdict_add(o, "; ");
    if (lc[0]) verdict_add(o, "%s: %s", m->cname, lc);
    verdict_add(o, ")");
}

static void verdict_decode(struct verdict_out *o, const struct cmp *m) {
    const struct cmp_row *r = cmp_row(m, "decode_tokens_per_second");
    char ratio[FMT_CELL], ci[FMT_CELL * 2];
    if (!r || !r->ratio.ok) return;
    fmt_ratio(r, ratio, sizeof ratio);
    verdict_add(o, "%s decodes %sx as fast as %s", m->cname, ratio, m->bname);
    if (r->ci_r.ok) {
        fmt_interval(&r->ci_r, -1, ci, sizeof ci);
        verdict_add(o, " (95%% interval %s%s)", ci,
                    r->ci_r.lo <= 1 && r->ci_r.hi >= 1 ? ": no clear difference" : "");
    }
    verdict_caveat(o, m, r->limited_b, r->limited_c);
    verdict_add(o, ". ");
}

static void verdict_load(struct verdict_out *o, const struct cmp *m) {
    char lo[FMT_CELL] = "", hi[FMT_CELL] = "", levels[300] = "";
    const struct cmp_row *rlo = NULL, *rhi = NULL, *lim = NULL;
    int n = 0;
    size_t k = 0;
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *r = &m->rows[i];
        if (!r->load_c || !r->ratio.ok) continue;
        if (!lim && cmp_row_limited(r)) lim = r;
        if (!rlo || r->ratio.v < rlo->ratio.v) rlo = r;
        if (!rhi || r->ratio.v > rhi->ratio.v) rhi = r;
        if (k < sizeof levels)
            k += (size_t)snprintf(levels + k, sizeof levels - k, "%sc%d", n ? ", " : "", r->load_c);
        n++;
    }
    if (!n) return;
    fmt_ratio(rlo, lo, sizeof lo);
    fmt_ratio(rhi, hi, sizeof hi);
    if (n == 1)
        verdict_add(o, "Under load it serves %sx the tokens per second (c%d)", lo, rlo->load_c);
    else if (strcmp(lo, hi) == 0)
        verdict_add(o, "Under load it serves %sx the tokens per second at every level (%s)", lo,
                    levels);
    else
        verdict_add(o, "Under load it serves %sx (c%d) to %sx (c%d) the tokens per second", lo,
                    rlo->load_c, hi, rhi->load_c);
    if (lim) verdict_caveat(o, m, lim->limited_b, lim->limited_c);
    verdict_add(o, ". ");
}

static void verdict_quiz(struct verdict_out *o, const struct cmp *m) {
    const struct cmp_row *r = cmp_row(m, "quality_correct");
    const struct quiz_cmp *q = &m->quiz;
    if (!q->have || !r || !r->b.ok || !r->c.ok) return;
    const char *sig = !q->have_mcnemar ? ""
                      : q->mc_p < 0.05 ? ", a significant difference"
                                       : ", no significant difference";
    if (!r->b_unanswered && !r->c_unanswered && q->both == q->asked) {
        verdict_add(o, "Quiz: %.0f/%ld against %.0f/%ld, %ld of %ld answers identical%s.", r->c.v,
                    r->c_total, r->b.v, r->b_total, q->identical, q->both, sig);
        return;
    }
    verdict_add(o,
                "Quiz: %.0f/%ld answered against %.0f/%ld answered (%ld and %ld unanswered: their "
                "requests failed); of the %ld questions both answered, %ld answers identical%s.",
                r->c.v, r->c_total, r->b.v, r->b_total, r->c_unanswered, r->b_unanswered, q->both,
                q->identical, sig);
}

static void verdict_failures(struct verdict_out *o, const struct cmp *m) {
    long fb, sb, fc, sc;
    double rb = notes_failure_rate(m->b, &fb, &sb), rc = notes_failure_rate(m->c, &fc, &sc);
    bool xb = rb > VERDICT_FAILURES, xc = rc > VERDICT_FAILURES;
    if (!xb && !xc) return;
    verdict_add(o, " Failures: ");
    if (xb) verdict_add(o, "%.1f%% of %s's requests (%ld of %ld)", 100 * rb, m->bname, fb, sb);
    if (xb && xc) verdict_add(o, " and ");
    if (xc)
        verdict_add(o, "%.1f%% of %s's%s (%ld of %ld)", 100 * rc, m->cname, xb ? "" : " requests",
                    fc, sc);
    bool lv = m->b->nlv || m->c->nlv, quiz = m->b->quiz || m->c->quiz;
    bool open = m->b->rate.n || m->c->rate.n;
    verdict_add(o, "%s", lv || quiz || open ? " failed;" : " failed");
    if (lv) verdict_add(o, " batches with a failure are left out");
    if (quiz) verdict_add(o, "%s failed quiz questions are unanswered", lv ? " and" : "");
    if (open)
        verdict_add(o,
                    "%s the open-loop figures count the successful requests and the error rate "
                    "the failed",
                    lv || quiz ? "; " : "");
    verdict_add(o, " (see Warnings).");
}

int verdict_build(const struct cmp *m, struct buf *out) {
    struct verdict_out o = {out, 0};
    struct buf open;
    const struct cmp_row *r;
    buf_reset(out);
    verdict_decode(&o, m);
    verdict_load(&o, m);
    buf_init(&open, BUF_NO_CAP);
    if (o.rc == 0) o.rc = openloop_report_verdict(m, &open);
    if (open.len && (m->b->limited[0] || m->c->limited[0])) { /* its capacity rests on every rate */
        size_t n = open.len;
        if (buf_str(&open)[n - 1] == '.') buf_truncate(&open, n - 1);
        verdict_add(&o, "%s", buf_str(&open));
        verdict_caveat(&o, m, m->b->rate.n ? m->b->limited : "", m->c->rate.n ? m->c->limited : "");
        verdict_add(&o, ". ");
    } else if (open.len) {
        verdict_add(&o, "%s ", buf_str(&open));
    }
    buf_free(&open);
    if ((r = cmp_row(m, "weights_gib")) && r->ratio.ok) {
        char w[FMT_CELL];
        fmt_sig(r->ratio.v, w, sizeof w);
        verdict_add(&o, "Its weights take %sx the memory. ", w);
    }
    verdict_quiz(&o, m);
    verdict_trim(&o);
    verdict_failures(&o, m);
    if (!out->len) verdict_add(&o, "Nothing measured on both sides.");
    verdict_trim(&o);
    return o.rc;
}
