#include "comparison.h"

#include <stdlib.h>

#include "cloudwatch_check.h"
#include "openloop_cmp.h"
#include "openrows.h"
#include "quiz_plan.h"
#include "quiz_cmp.h"
#include "streamrows.h"
#include "xcheck.h"

/* Side k's connection times over its inputs (conntime.h). */
static int comparison_conn(struct cmp *m, int k) {
    const struct side *s = k ? m->c : m->b;
    const struct conntime **parts =
        s->in.n ? calloc(s->in.n, sizeof(const struct conntime *)) : NULL;
    if (s->in.n && !parts) return -1;
    for (size_t i = 0; i < s->in.n; i++) parts[i] = &s->in.srcs[i].conn;
    int rc = conntime_summarize(parts, s->in.n, &m->conn[k]);
    free(parts);
    return rc;
}

int comparison_build(struct cmp *m, const struct side *b, const struct side *c,
                     const struct cmp_opts *o, struct buf *err) {
    const struct openloop_cmp_opts oo = {o->slo, o->have_price, o->price};
    int rc = cmp_start(m, b, c, o, err);
    if (rc < 0) return rc;
    if (streamrows_add(m) < 0) return buf_fail(err, CMP_ERR_NOMEM, "out of memory");
    const char *const names[2] = {m->bname, m->cname};
    if ((rc = openloop_cmp_build(&m->open, b, c, names, &oo, err)) < 0) return rc;
    if (m->open.have && openrows_add(m) < 0) return buf_fail(err, CMP_ERR_NOMEM, "out of memory");
    rc = quiz_cmp_build(&m->quiz, b, c, err);
    quiz_family_build(&m->fam, b->quiz, c->quiz, o->margin > 0 ? o->margin : QUIZ_PLAN_MARGIN,
                      QUIZ_PLAN_ALPHA, QUIZ_PLAN_POWER);
    if (rc < 0 || (rc = xcheck_side(&m->xc, b, err)) < 0 || (rc = xcheck_side(&m->xc, c, err)) < 0)
        return rc;
    if ((rc = cloudwatch_check_side(&m->cw, b, err)) < 0 ||
        (rc = cloudwatch_check_side(&m->cw, c, err)) < 0)
        return rc;
    if (comparison_conn(m, 0) < 0 || comparison_conn(m, 1) < 0)
        return buf_fail(err, CMP_ERR_NOMEM, "out of memory");
    cmp_mark_client(m);
    return CMP_OK;
}
