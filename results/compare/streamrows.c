#include "streamrows.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stream.h"

#define STREAMROWS_MAX_LEVELS 256

static const char streamrows_method[] =
    "Woodruff's interval of the quantile over the batches (the requests, when they ran one at "
    "a time); the log ratio of the quantiles +- t x their standard errors";

/* One measurement of both sides. */
struct streamrows_meas {
    char what[16];                  /* "decode" or "c4" */
    const struct stream_meas *x[2]; /* NULL: the side did not measure it */
    bool streamed[2];
    const struct side *s[2];
    const struct src_tally *tally[2];
};

/* Why a side has no value of metric k, into v. */
static void streamrows_none(struct side_val *v, const struct streamrows_meas *me, int k,
                            enum stream_metric m) {
    static const char *const empty[STREAM_ALL_METRICS] = {
        "no successful request with content",
        "no successful request of 2 chunks or more",
        "no successful request of 2 tokens or more",
        "no successful request",
        "no successful request reasoned, then answered",
        "no successful request reasoned, then answered in 2 chunks or more",
        "no successful request reasoned, then answered in 2 tokens or more"};
    if (!me->x[k])
        side_val_none(v, "%s not measured on the %s side", me->what, me->s[k]->role);
    else if (m != STREAM_E2E && !me->streamed[k])
        side_val_none(v, "not streamed (the %s side's client sees a reply only when it is whole)",
                      me->s[k]->role);
    else
        side_val_none(v, "%s", empty[m]);
}

/* One side's value, interval and sample of quantile qi. */
static void streamrows_side(struct cmp_row *r, int k, const struct streamrows_meas *me,
                            enum stream_metric m, const struct stream_fig *f, int qi) {
    struct side_val *v = k ? &r->c : &r->b;
    struct interval *ci = k ? &r->ci_c : &r->ci_b;
    struct interval_fig *fig = k ? &r->fig_c : &r->fig_b;
    bool have = me->x[k] && f->ok && (m == STREAM_E2E || me->streamed[k]);
    char itl[CLIMIT_WHY];
    if (have && (m == STREAM_ITL || m == STREAM_ITL_ANSWER) &&
        !climit_itl(me->x[k]->gaps, me->x[k]->burst, itl, sizeof itl)) {
        side_val_none(v, "%s", itl); /* the read side did not resolve the gaps */
        have = false;
    } else if (!have) {
        streamrows_none(v, me, k, m);
    }
    if (!have) {
        interval_none(ci, "%s", v->why);
        *fig = (struct interval_fig){.ok = false};
        snprintf(fig->why, sizeof fig->why, "%.95s", v->why);
        return;
    }
    side_val_set(v, f->q[qi]);
    *ci = f->ci[qi];
    *fig = f->fig[qi];
    *(k ? &r->nc : &r->nb) = f->clusters;
    *(k ? &r->n_c : &r->n_b) = (struct cmp_n){f->requests, f->tokens};
    *(k ? &r->tc : &r->tb) = me->tally[k];
}

static int streamrows_metric(struct cmp *m, const struct streamrows_meas *me,
                             enum stream_metric k) {
    struct stream_fig f[2];
    for (int s = 0; s < 2; s++) {
        memset(&f[s], 0, sizeof f[s]);
        if (me->x[s]) stream_figures(me->x[s], k, me->s[s]->bias_hi, &f[s]);
    }
    for (int qi = 0; qi < STREAM_QUANTILES; qi++) {
        char name[64];
        snprintf(name, sizeof name, "%s_%s_p%.0f_seconds", stream_name(k), me->what,
                 100 * stream_quantiles[qi]);
        bool fine = k == STREAM_ITL || k == STREAM_TPOT || k == STREAM_ITL_ANSWER ||
                    k == STREAM_TPOT_ANSWER;
        struct cmp_row *r = cmp_add_row(m, name, CMP_STREAM, fine ? 4 : 3);
        if (!r) return -1;
        streamrows_side(r, 0, me, k, &f[0], qi);
        streamrows_side(r, 1, me, k, &f[1], qi);
        cmp_set_ratio(r);
        interval_ratio(&r->fig_b, &r->fig_c, &r->ci_r);
        r->method = streamrows_method;
    }
    return 0;
}

/* The rows of one measurement, when either side streamed it. */
static int streamrows_measurement(struct cmp *m, struct streamrows_meas *me, bool decode) {
    if (!me->streamed[0] && !me->streamed[1]) return 0;
    if (me->x[0] && me->x[1] && me->streamed[0] != me->streamed[1]) m->stream_mixed = true;
    for (int k = 0; k < 2; k++) {
        if (!me->x[k]) continue;
        m->itl_token[k] += me->x[k]->itl_token;
        m->itl_chunk[k] += me->x[k]->itl_chunk;
    }
    /* a thinking model's answer-only figures, when either side reasoned */
    bool reasoned = (me->x[0] && me->x[0]->reasoned) || (me->x[1] && me->x[1]->reasoned);
    for (int k = 0; k < (reasoned ? STREAM_ALL_METRICS : STREAM_METRICS); k++) {
        if (decode && k == STREAM_E2E) continue; /* its requests mix two lengths */
        if (streamrows_metric(m, me, (enum stream_metric)k) < 0) return -1;
    }
    return 0;
}

static int streamrows_decode(struct cmp *m) {
    struct streamrows_meas me = {.what = "decode", .s = {m->b, m->c}};
    for (int k = 0; k < 2; k++) {
        const struct side_decode *d = &me.s[k]->dec;
        if (!d->have) continue;
        me.x[k] = &d->stream;
        me.streamed[k] = d->streamed;
        me.tally[k] = &d->tally;
    }
    return streamrows_measurement(m, &me, true);
}

const struct side_level *streamrows_level(const struct side *s, int c) {
    for (size_t i = 0; i < s->nlv; i++)
        if (s->lv[i].c == c) return &s->lv[i];
    return NULL;
}

static int streamrows_levels(struct cmp *m) {
    int lv[STREAMROWS_MAX_LEVELS];
    size_t n = 0;
    for (int k = 0; k < 2; k++) /* the union of both sides' levels, ascending */
        for (size_t i = 0; i < (k ? m->c : m->b)->nlv && n < STREAMROWS_MAX_LEVELS; i++) {
            int c = (k ? m->c : m->b)->lv[i].c;
            size_t j = 0;
            while (j < n && lv[j] != c) j++;
            if (j < n) continue;
            for (j = n++; j > 0 && lv[j - 1] > c; j--) lv[j] = lv[j - 1];
            lv[j] = c;
        }
    for (size_t i = 0; i < n; i++) {
        struct streamrows_meas me = {.s = {m->b, m->c}};
        snprintf(me.what, sizeof me.what, "c%d", lv[i]);
        for (int k = 0; k < 2; k++) {
            const struct side_level *l = streamrows_level(me.s[k], lv[i]);
            if (!l || l->measure) continue;
            me.x[k] = &l->stream;
            me.streamed[k] = l->streamed;
            me.tally[k] = &l->tally;
        }
        if (streamrows_measurement(m, &me, false) < 0) return -1;
    }
    return 0;
}

int streamrows_add(struct cmp *m) {
    return streamrows_decode(m) < 0 || streamrows_levels(m) < 0 ? -1 : 0;
}
