#include "notes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cloudwatch_report.h"
#include "estim.h"
#include "fmt.h"
#include "streamrows.h"
#include "stream.h"

/* "ThrottlingException 3, socket 1" */
static void notes_errors(const struct src_tally *t, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < t->nerrs && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%s %ld", i ? ", " : "", t->errs[i].code,
                              t->errs[i].n);
}

static void notes_failures(const char *name, const char *what, const struct src_tally *t,
                           const char *then, struct warnings *w) {
    char errs[400];
    if (!t->failed) return;
    notes_errors(t, errs, sizeof errs);
    warnings_add(w, "%s %s: %ld of %ld requests failed (%.1f%%): %s; %s", name, what, t->failed,
                 t->sent, 100.0 * (double)t->failed / (double)t->sent, errs, then);
}

static void notes_side_failures(const struct side *s, const char *name, struct warnings *w) {
    char what[32], then[160];
    if (s->dec.have)
        notes_failures(name, "decode", &s->dec.tally, "the figures use the successful replies only",
                       w);
    for (size_t i = 0; i < s->nlv; i++) {
        const struct side_level *l = &s->lv[i];
        snprintf(what, sizeof what, "load c%d", l->c);
        if (l->steady)
            snprintf(then, sizeof then,
                     "the throughput counts the successful replies' tokens over the whole run");
        else
            snprintf(then, sizeof then, "%ld of %ld batches had a failure and are left out",
                     l->batches_failed, l->batches);
        notes_failures(name, what, &l->tally, then, w);
    }
    if (s->quiz)
        notes_failures(name, "quiz", &s->quiz->tally,
                       "those questions are unanswered: in neither score nor comparison", w);
    for (size_t i = 0; i < s->rate.n; i++) {
        snprintf(what, sizeof what, "rate %g/s", s->rate.r[i].rate);
        notes_failures(name, what, &s->rate.r[i].tally,
                       "the figures use the successful requests; the error rate counts them", w);
    }
}

double notes_failure_rate(const struct side *s, long *failed, long *sent) {
    *failed = *sent = 0;
    const struct src_tally *all[2 + 256];
    size_t n = 0;
    if (s->dec.have) all[n++] = &s->dec.tally;
    for (size_t i = 0; i < s->nlv && n < sizeof all / sizeof all[0]; i++)
        all[n++] = &s->lv[i].tally;
    if (s->quiz && n < sizeof all / sizeof all[0]) all[n++] = &s->quiz->tally;
    for (size_t i = 0; i < s->rate.n; i++) {
        *failed += s->rate.r[i].tally.failed;
        *sent += s->rate.r[i].tally.sent;
    }
    for (size_t i = 0; i < n; i++) {
        *failed += all[i]->failed;
        *sent += all[i]->sent;
    }
    return *sent ? (double)*failed / (double)*sent : 0;
}

/* A streaming measurement's medians that get no interval, once per measurement
 * and reason ("itl_c4_p50_seconds" is c4's); the tails need more batches still. */
static void notes_small_stream(const struct cmp_row *r, const char *why, struct warnings *w) {
    const char *what = strchr(r->name, '_'), *tail = strstr(r->name, "_p50_seconds");
    if (!what || !tail || tail < what) return;
    bool decode = strncmp(what + 1, "decode", 6) == 0;
    warnings_add(w, "streaming figures of %.*s: %s (%d %s give the medians one: %s)",
                 (int)(tail - what - 1), what + 1, why, INTERVAL_MIN_CLUSTERS,
                 decode ? "replies" : "batches",
                 decode ? "decode's --repeats" : "the sweep's --batches");
}

/* A row's intervals that its samples are too few for. */
static void notes_small(const struct cmp_row *r, struct warnings *w) {
    const struct interval *cis[] = {&r->ci_b, &r->ci_c, &r->ci_r};
    const char *why = NULL;
    for (int k = 0; k < 3 && !why; k++)
        if (!cis[k]->ok && strncmp(cis[k]->why, "n = ", 4) == 0) why = cis[k]->why;
    if (!why || r->group == CMP_COST) return;
    if (r->group == CMP_STREAM) {
        notes_small_stream(r, why, w);
        return;
    }
    if (r->load_c)
        warnings_add(w,
                     "%s: %zu and %zu batches: too few for an interval (%d give a side's, %d a "
                     "ratio's: the sweep's --batches)",
                     r->name, r->nb ? r->nb : r->fig_b.n, r->nc ? r->nc : r->fig_c.n,
                     INTERVAL_MIN_BATCHES, INTERVAL_MIN_BATCHES_RATIO);
    else
        warnings_add(w, "%s: %s (%d replies of each length give one: decode's --repeats)", r->name,
                     why, INTERVAL_MIN_WALLS);
}

/* The bias bound on one level's throughput: the time scale's allowance over its median batch. */
static double notes_level_bias(const struct side *s, const struct side_level *l) {
    double wall = l->nb && !l->measure ? estim_median_of(l->bwall, l->nb) : NAN;
    return s->bias_hi != 1 && wall > 0 ? s->bias_hi * INTERVAL_SCALED_BIAS_S / wall : 0;
}

/* Time-scaled runs: how far their times may read long, and what that does to each figure
 * (none when the emulator's service time converted every record: tscale.h). */
static void notes_scaled(const struct cmp *m, struct warnings *w) {
    double k = m->b->bias_hi > m->c->bias_hi ? m->b->bias_hi : m->c->bias_hi;
    if (m->b->scale_hi == 1 && m->c->scale_hi == 1 && m->b->scale_lo == 1 && m->c->scale_lo == 1)
        return;
    if (k == 1) {
        warnings_add(w, "time-scaled runs: every record carried the emulator's service time "
                        "(server_us), so only the server's share of each time was multiplied by "
                        "the time scale and the client's own was kept in real units; no bias "
                        "bound");
        return;
    }
    char lv[600] = "";
    size_t n = 0;
    for (size_t i = 0; i < m->b->nlv && n < sizeof lv; i++) {
        const struct side_level *l = &m->b->lv[i];
        double up = notes_level_bias(m->b, l);
        for (size_t j = 0; j < m->c->nlv; j++)
            if (m->c->lv[j].c == l->c) up = fmax(up, notes_level_bias(m->c, &m->c->lv[j]));
        if (up > 0)
            n += (size_t)snprintf(lv + n, sizeof lv - n, "%s%.2g%% (c%d)", n ? ", " : "", 100 * up,
                                  l->c);
    }
    warnings_add(w,
                 "time-scaled runs (time_scale up to %g): each time may read up to %.3g ms long "
                 "(%.3g ms of real time: the client's and the loopback's own), so the per-call "
                 "cost may read up to %.3g s high%s%s; the intervals allow for it",
                 k, k * INTERVAL_SCALED_BIAS_S * 1e3, INTERVAL_SCALED_BIAS_S * 1e3,
                 k * INTERVAL_SCALED_BIAS_S, n ? " and throughput low by up to " : "", lv);
}

static void notes_measure(const struct cmp *m, struct warnings *w) {
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        for (size_t i = 0; i < s->in.n; i++)
            if (s->in.srcs[i].kind == SRC_MEASURE) {
                warnings_add(w,
                             "%s: a compare.py file keeps medians and batches timed through the "
                             "aws CLI: its figures get no intervals",
                             s->in.srcs[i].path);
                break;
            }
    }
}

static void notes_xcheck(const struct cmp *m, struct warnings *w) {
    for (size_t i = 0; i < m->xc.n; i++) {
        const struct xcheck_row *x = &m->xc.rows[i];
        char client[FMT_CELL], lo[FMT_CELL], hi[FMT_CELL], server[FMT_CELL];
        if (!x->ok || !x->differs) continue;
        fmt_num(x->client, 1, client, sizeof client);
        fmt_num(x->client_lo, 1, lo, sizeof lo);
        fmt_num(x->client_hi, 1, hi, sizeof hi);
        fmt_num(x->server, 1, server, sizeof server);
        warnings_add(w,
                     "%s c%d (%s): the server's log says %s generated tokens/s, the client %s "
                     "(%s to %s); they differ by more than %.0f%%",
                     x->side->role, x->c, x->src->path, server, client, lo, hi,
                     100 * XCHECK_TOLERANCE);
    }
}

/* ---- the streaming check (streamrows.h) ---- */

/* The check of one c1 measurement what of side s against its decode rate. */
static bool notes_itl_check_one(const struct side *s, const char *name, const char *what,
                                const struct stream_meas *x, struct warnings *w) {
    const struct side_decode *dc = &s->dec;
    struct stream_fig f;
    char itl[FMT_CELL], rate[FMT_CELL], n[120];
    char why[CLIMIT_WHY];
    if (!dc->rate.ok || !climit_itl(x->gaps, x->burst, why, sizeof why)) return false;
    stream_figures(x, STREAM_ITL, s->bias_hi, &f);
    if (!f.ok || !(f.q[0] > 0)) return false;
    double diff = 1 / f.q[0] / dc->rate.v - 1;
    if (fabs(diff) <= STREAMROWS_ITL_TOLERANCE) return false;
    fmt_num(1 / f.q[0], 2, itl, sizeof itl);
    fmt_num(dc->rate.v, 2, rate, sizeof rate);
    if (dc->medians_only)
        snprintf(n, sizeof n, "compare.py's medians");
    else
        snprintf(n, sizeof n, "n = %zu and %zu replies of %d and %d tokens", dc->ns, dc->nl,
                 dc->lengths[0], dc->lengths[dc->nlengths - 1]);
    warnings_add(w,
                 "%s c1 (%s): 1 / median ITL is %s tokens/s (n = %llu tokens of %zu requests), "
                 "the decode rate from length differencing %s tokens/s (%s): they differ by "
                 "%.1f%%, more than %.0f%%",
                 name, what, itl, (unsigned long long)f.tokens, f.requests, rate, n,
                 100 * fabs(diff), 100 * STREAMROWS_ITL_TOLERANCE);
    return true;
}

bool notes_itl_check(const struct side *s, const char *name, struct warnings *w) {
    bool warned = false;
    if (s->dec.have && s->dec.streamed)
        warned |= notes_itl_check_one(s, name, "decode", &s->dec.stream, w);
    const struct side_level *l = streamrows_level(s, 1);
    if (l && l->streamed) warned |= notes_itl_check_one(s, name, "sweep", &l->stream, w);
    return warned;
}

/* ---- the open-loop runs (openloop_cmp.h) ---- */

static void notes_open_side(const struct openloop_cmp *o, const struct openloop_cmp_side *x,
                            struct warnings *w) {
    for (size_t i = 0; i < x->n; i++) {
        const struct openloop_cmp_point *p = &x->p[i];
        if (p->late_share > 0.01)
            warnings_add(w,
                         "%s at %g requests/s: %.1f%% of the successful requests left more than "
                         "%d ms after their intended start on the client's clock (p99 %.3g s in "
                         "real time): the client could not keep the schedule (more connections, "
                         "-c, may help); their latency counts from the intended start anyway",
                         x->name, p->rate, 100 * p->late_share, OPENLOOP_LATE_US / 1000,
                         p->late_p99);
    }
    for (size_t k = 0; o->any_slo && k < o->slo.n; k++) {
        const struct slo *s = &o->slo.s[k];
        double need = ceil(1 / (1 - s->q) - 1e-9);
        char rates[300] = "", text[80];
        size_t n = 0;
        for (size_t i = 0; i < x->n && n < sizeof rates; i++) {
            const struct openloop_cmp_point *p = &x->p[i];
            size_t have = p->r->stream.s[s->metric].requests;
            if ((double)have >= need) continue;
            n += (size_t)snprintf(rates + n, sizeof rates - n, "%s%g (%zu)", n ? ", " : "", p->rate,
                                  have);
        }
        if (!n) continue;
        slo_text(s, text, sizeof text);
        warnings_add(w,
                     "%s: %s: at %s requests/s (requests in parentheses) fewer than %.0f "
                     "requests give the p%g, which is then close to their largest value",
                     x->name, text, rates, need, s->pct);
    }
    if (x->cap.nonmonotone)
        warnings_add(w,
                     "%s: the SLOs held again at a rate above the first that failed them (%g "
                     "requests/s): the capacity is read below that first failure",
                     x->name, x->cap.fail);
}

void notes_add(const struct cmp *m, struct warnings *w) {
    notes_itl_check(m->b, m->bname, w);
    notes_itl_check(m->c, m->cname, w);
    for (int k = 0; m->open.have && k < 2; k++) notes_open_side(&m->open, &m->open.x[k], w);
    notes_side_failures(m->b, m->bname, w);
    notes_side_failures(m->c, m->cname, w);
    for (size_t i = 0; i < m->nrows; i++) notes_small(&m->rows[i], w);
    notes_scaled(m, w);
    notes_measure(m, w);
    notes_xcheck(m, w);
    cloudwatch_report_notes(m, w);
}
