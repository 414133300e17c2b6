#include "prose.h"

#include <stdbool.h>

#include "quiz_family.h"

/* How the time-scaled inputs of one side were converted. */
static int prose_scale_part(const struct side *s, const char *who, struct buf *out) {
    if (s->scale_lo == s->scale_hi)
        return buf_addf(out,
                        "%s ran %g times faster than real time (rates divided by %g, times "
                        "multiplied by %g)",
                        who, s->scale_lo, s->scale_lo, s->scale_lo);
    return buf_addf(out,
                    "%s's files ran %g to %g times faster than real time, each converted by its "
                    "own time_scale",
                    who, s->scale_lo, s->scale_hi);
}

int prose_scale(const struct cmp *m, struct buf *out) {
    const struct side *b = m->b, *c = m->c;
    bool sb = b->scale_lo != 1 || b->scale_hi != 1, sc = c->scale_lo != 1 || c->scale_hi != 1;
    int rc;
    if (!sb && !sc) return 0;
    if ((rc = buf_adds(out, "Times and rates are in real units: ")) < 0) return rc;
    if (sb && sc && b->scale_lo == c->scale_lo && b->scale_hi == c->scale_hi)
        rc = prose_scale_part(b, "both sides", out);
    else if (sb && sc) {
        if ((rc = prose_scale_part(b, "the baseline", out)) == 0 && (rc = buf_adds(out, "; ")) == 0)
            rc = prose_scale_part(c, "the candidate", out);
    } else
        rc = prose_scale_part(sb ? b : c, sb ? "the baseline" : "the candidate", out);
    return rc < 0 ? rc : buf_addc(out, '.');
}

int prose_mcnemar(const struct cmp *m, struct buf *out) {
    const struct quiz_cmp *q = &m->quiz;
    unsigned n = q->mc_b + q->mc_c;
    if (!q->have) return 0;
    if (!q->have_mcnemar)
        return buf_adds(out, "McNemar's test: n/a (which replies are right is unknown; a "
                             "compare.py file needs the quiz file, --quiz FILE).");
    int rc = buf_addf(out,
                      "McNemar's exact test%s: %u question%s only %s got right, %u only %s: "
                      "p = %.3f. ",
                      q->both < q->asked ? " (questions both sides answered)" : "", q->mc_b,
                      q->mc_b == 1 ? "" : "s", m->bname, q->mc_c, m->cname, q->mc_p);
    if (rc < 0) return rc;
    if (q->both >= QUIZ_FAMILY_MIN_ITEMS) /* the paired analysis by family says what it can show */
        return buf_adds(out, q->mc_p < 0.05 ? "The difference in correct answers is unlikely to "
                                              "be chance."
                             : n == 0       ? "No question separates the two."
                                            : "No evidence of a difference in accuracy.");
    return buf_addf(out,
                    "%s %ld questions can show only a large gap (at least %u one-sided "
                    "disagreements are needed for p < 0.05); an equal score does not show equal "
                    "quality, which would take hundreds of questions.",
                    q->mc_p < 0.05 ? "The difference in correct answers is unlikely to be chance."
                    : n == 0       ? "No question separates the two."
                                   : "No evidence of a difference in accuracy.",
                    q->both, q->mc_need);
}
