#include "openloop_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "stream.h"

/* ---- the open-loop part in words (the model, openloop_cmp.h, holds its numbers) ---- */

const char *openloop_report_rel_text(enum openloop_cmp_rel rel) {
    static const char *const text[] = {"", "", ">=", ">", "<=", "<"};
    return text[rel];
}

/* A bounded figure after prefix: v with decimals (< 0: significant digits),
 * or "n/a" when there is none. */
static void openloop_report_bound(const char *prefix, enum openloop_cmp_rel rel, double v,
                                  int decimals, char *out, size_t cap) {
    char num[FMT_CELL];
    if (rel == OPENLOOP_CMP_NONE || !isfinite(v)) {
        snprintf(out, cap, "n/a");
        return;
    }
    if (decimals < 0)
        fmt_sig(v, num, sizeof num);
    else
        fmt_num(v, decimals, num, sizeof num);
    snprintf(out, cap, "%s%s", prefix, num);
}

void openloop_report_bound_text(enum openloop_cmp_rel rel, double v, int decimals, char *out,
                                size_t cap) {
    char mark[8];
    snprintf(mark, sizeof mark, "%s%s", openloop_report_rel_text(rel),
             rel == OPENLOOP_CMP_EQ ? "" : " ");
    openloop_report_bound(mark, rel, v, decimals, out, cap);
}

int openloop_report_slo_phrase(const struct openloop_cmp *o, struct buf *out) {
    int rc = 0;
    for (size_t i = 0; i < o->slo.n && rc == 0; i++) {
        char t[80];
        slo_text(&o->slo.s[i], t, sizeof t);
        rc = buf_addf(out, "%s%s", i ? (i + 1 == o->slo.n ? " and " : ", ") : "", t);
    }
    if (o->slo.attain_given && rc == 0)
        rc = buf_addf(out, ", all met at once by at least %g%% of requests,", 100 * o->slo.attain);
    if (rc == 0)
        rc = buf_addf(out, "%sat most %g%% failed", out->len ? " with " : "",
                      100 * o->slo.max_error);
    return rc;
}

void openloop_report_verdict_cell(const struct openloop_cmp *o, const struct openloop_cmp_point *p,
                                  char *out, size_t cap) {
    size_t k = 0;
    if (p->held) {
        snprintf(out, cap, "held");
        return;
    }
    k = (size_t)snprintf(out, cap, "failed:");
    if (o->slo.attain_given && !p->att.ok && k < cap)
        k += (size_t)snprintf(out + k, cap - k, " %.1f%% met every SLO", 100 * p->att.v);
    for (size_t i = 0; !o->slo.attain_given && i < o->slo.n && k < cap; i++) {
        const struct slo *s = &o->slo.s[i];
        char v[FMT_CELL];
        if (p->check[i].ok) continue;
        fmt_sig(p->check[i].v, v, sizeof v);
        k += (size_t)snprintf(out + k, cap - k, "%s p%g %s %s%s", k > 7 ? "," : "", s->pct,
                              stream_name(s->metric), p->check[i].have ? v : "n/a",
                              p->check[i].have ? " s" : "");
    }
    if (!p->err.ok && k < cap)
        snprintf(out + k, cap - k, "%s %.1f%% failed", k > 7 ? "," : "", 100 * p->err.v);
}

/* A bounded figure in words: "4.34", "at least 8", "less than 1". */
static void openloop_report_bound_words(enum openloop_cmp_rel rel, double v, int decimals,
                                        char *out, size_t cap) {
    static const char *const words[] = {"",           "",         "at least ",
                                        "more than ", "at most ", "less than "};
    openloop_report_bound(words[rel], rel, v, decimals, out, cap);
}

int openloop_report_verdict(const struct cmp *m, struct buf *out) {
    const struct openloop_cmp *o = &m->open;
    const struct openloop_cmp_cap *b = &o->x[0].cap, *c = &o->x[1].cap;
    char vb[FMT_CELL], vc[FMT_CELL], ratio[FMT_CELL];
    struct buf phrase;
    int rc;
    if (!o->have || !o->any_slo) return 0;
    buf_init(&phrase, BUF_NO_CAP);
    if ((rc = openloop_report_slo_phrase(o, &phrase)) < 0) goto done;
    openloop_report_bound_words(b->rel, b->v, 2, vb, sizeof vb);
    openloop_report_bound_words(c->rel, c->v, 2, vc, sizeof vc);
    const char *at = o->slo.n ? "At" : "With"; /* "With at most 1% failed" */
    if (o->ratio_rel == OPENLOOP_CMP_NONE) {
        rc = buf_addf(out, "%s %s, %s serves %s requests/s and %s %s (no ratio: %s).", at,
                      buf_str(&phrase), m->cname, vc, m->bname, vb,
                      openloop_cmp_noratio_why(o->ratio_none));
        goto done;
    }
    openloop_report_bound_words(o->ratio_rel, o->ratio, -1, ratio, sizeof ratio);
    rc = buf_addf(out, "%s %s, %s serves %s requests/s vs %s for %s (%sx).", at, buf_str(&phrase),
                  m->cname, vc, vb, m->bname, ratio);
done:
    buf_free(&phrase);
    return rc;
}

/* A replay's (replay.lua) trace, window and speed into out; 0 for another run. */
static size_t openloop_report_trace(const cJSON *st, char *out, size_t cap) {
    const cJSON *trace = cJSON_GetObjectItemCaseSensitive(st, "trace");
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(st, "trace_format");
    const cJSON *window = cJSON_GetObjectItemCaseSensitive(st, "window_s");
    const cJSON *speed = cJSON_GetObjectItemCaseSensitive(st, "speed");
    if (!cJSON_IsString(trace) || !cJSON_IsNumber(speed)) return 0;
    const cJSON *from = cJSON_GetArrayItem(window, 0), *to = cJSON_GetArrayItem(window, 1);
    char end[48] = "its end";
    if (cJSON_IsNumber(to)) snprintf(end, sizeof end, "%g s", to->valuedouble);
    int k = snprintf(out, cap,
                     "a replay of the trace %.80s (%.16s), from %g s to %s of trace time "
                     "at speed %g",
                     trace->valuestring, cJSON_IsString(format) ? format->valuestring : "?",
                     cJSON_IsNumber(from) ? from->valuedouble : 0, end, speed->valuedouble);
    return k < 0 ? 0 : (size_t)k < cap ? (size_t)k : cap;
}

/* The first open-loop input's settings, for the heading. */
static void openloop_report_settings(const struct cmp *m, char *out, size_t cap) {
    const struct src *s = m->b->rate.first ? m->b->rate.first : m->c->rate.first;
    const cJSON *st = s ? s->settings : NULL;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(st, "arrivals");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(st, "arrival_seed");
    const cJSON *burst = cJSON_GetObjectItemCaseSensitive(st, "burstiness");
    const cJSON *dur = cJSON_GetObjectItemCaseSensitive(st, "duration_s");
    const cJSON *conc = cJSON_GetObjectItemCaseSensitive(st, "max_concurrency");
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(st, "max_tokens");
    size_t k = openloop_report_trace(st, out, cap);
    if (!k)
        k = (size_t)snprintf(out, cap, "%s arrivals",
                             cJSON_IsString(arr) ? arr->valuestring : "unnamed");
    if (cJSON_IsNumber(burst) && k < cap)
        k += (size_t)snprintf(out + k, cap - k, " (burstiness %g)", burst->valuedouble);
    if (cJSON_IsNumber(seed) && k < cap)
        k += (size_t)snprintf(out + k, cap - k, " drawn from seed %.0f", seed->valuedouble);
    if (cJSON_IsNumber(dur) && k < cap)
        k += (size_t)snprintf(out + k, cap - k, ", %g s of arrivals per rate and side",
                              dur->valuedouble);
    if (cJSON_IsNumber(conc) && k < cap)
        k += (size_t)snprintf(out + k, cap - k, ", at most %.0f requests in flight",
                              conc->valuedouble);
    if (cJSON_IsNumber(tok) && k < cap)
        snprintf(out + k, cap - k, ", %.0f tokens asked per request", tok->valuedouble);
}

static void openloop_report_pct(double x, char *out, size_t cap) {
    if (isfinite(x))
        snprintf(out, cap, "%.1f%%", 100 * x);
    else
        snprintf(out, cap, "n/a");
}

static void openloop_report_sig(double x, char *out, size_t cap) {
    if (isfinite(x))
        fmt_sig(x, out, cap);
    else
        snprintf(out, cap, "n/a");
}

/* ---- the load table ---- */

static int openloop_report_load_row(struct page_block *t, const struct openloop_cmp *o,
                                    const struct openloop_cmp_side *x,
                                    const struct openloop_cmp_point *p) {
    char rate[FMT_CELL], arr[FMT_CELL], done[FMT_CELL], ok[64], late[32], p99[FMT_CELL],
        tok[FMT_CELL], good[FMT_CELL], att[32], slo[400];
    fmt_num(p->rate, -1, rate, sizeof rate);
    if (p->limited[0])
        snprintf(rate + strlen(rate), sizeof rate - strlen(rate), " %s", PAGE_LIMITED);
    fmt_num(p->arrival, 2, arr, sizeof arr);
    fmt_num(p->completion, 2, done, sizeof done);
    fmt_requests(&p->r->tally, ok, sizeof ok);
    openloop_report_pct(p->late_share, late, sizeof late);
    openloop_report_sig(p->late_p99, p99, sizeof p99);
    fmt_num(p->tokens, 2, tok, sizeof tok);
    fmt_num(p->goodput, 2, good, sizeof good);
    openloop_report_pct(p->attainment, att, sizeof att);
    if (o->any_slo) openloop_report_verdict_cell(o, p, slo, sizeof slo);
    const char *cells[] = {x->name, rate, arr, done, ok, late, p99, tok, good, att, slo};
    return page_row(t, cells);
}

static int openloop_report_load(struct page *r, const struct openloop_cmp *o) {
    const char *head[] = {"side",       "rate/s",   "arrived/s", "done/s",   "ok/sent", "late",
                          "p99 late s", "tokens/s", "goodput/s", "attained", "SLOs"};
    struct page_block *t = page_table(r, 0x3fe, o->any_slo ? 11 : 8, head);
    if (!t) return -1;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < o->x[k].n; i++)
            if (openloop_report_load_row(t, o, &o->x[k], &o->x[k].p[i]) < 0) return -1;
    return 0;
}

/* ---- the latency table ---- */

/* "p50 / p90 / p99" of one metric, or "n/a". */
static void openloop_report_triple(const struct openloop_cmp_lat *l, int decimals, char *out,
                                   size_t cap) {
    char q[STREAM_QUANTILES][FMT_CELL];
    if (!l->ok) {
        snprintf(out, cap, "n/a");
        return;
    }
    for (int i = 0; i < STREAM_QUANTILES; i++) fmt_num(l->q[i], decimals, q[i], sizeof q[i]);
    snprintf(out, cap, "%s / %s / %s", q[0], q[1], q[2]);
}

static int openloop_report_lat_row(struct page_block *t, const struct openloop_cmp *o,
                                   const struct openloop_cmp_side *x,
                                   const struct openloop_cmp_point *p) {
    char rate[FMT_CELL], c[4][3 * FMT_CELL + 8], n[96];
    fmt_num(p->rate, -1, rate, sizeof rate);
    if (p->limited[0])
        snprintf(rate + strlen(rate), sizeof rate - strlen(rate), " %s", PAGE_LIMITED);
    for (int i = 0; i < 4; i++)
        openloop_report_triple(
            &p->lat[openloop_cmp_order[i]],
            openloop_cmp_order[i] == STREAM_TPOT || openloop_cmp_order[i] == STREAM_ITL ? 4 : 3,
            c[i], sizeof c[i]);
    for (int i = 0; i < 4; i++)
        if (openloop_cmp_order[i] == STREAM_ITL && p->itl_why[0])
            snprintf(c[i], sizeof c[i], "not resolved");
    const struct openloop_cmp_lat *itl = &p->lat[STREAM_ITL];
    if (itl->ok)
        snprintf(n, sizeof n, "%zu (itl: %llu tokens)", p->lat[STREAM_E2E].requests,
                 (unsigned long long)itl->tokens);
    else
        snprintf(n, sizeof n, "%zu", p->lat[STREAM_E2E].requests);
    const char *all[] = {x->name, rate, c[0], c[1], c[2], c[3], n};
    const char *e2e[] = {x->name, rate, c[0], n};
    return page_row(t, o->streamed ? all : e2e);
}

static int openloop_report_latency(struct page *r, const struct openloop_cmp *o) {
    const char *all[] = {"side", "rate/s", "e2e", "ttft", "tpot", "itl", "n"};
    const char *e2e[] = {"side", "rate/s", "e2e", "n"};
    struct page_block *t = o->streamed ? page_table(r, 0x7e, 7, all) : page_table(r, 0xe, 4, e2e);
    if (!t) return -1;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < o->x[k].n; i++)
            if (openloop_report_lat_row(t, o, &o->x[k], &o->x[k].p[i]) < 0) return -1;
    return 0;
}

/* ---- capacity ---- */

static void openloop_report_by(const struct openloop_cmp *o, int by, char *out, size_t cap) {
    if (by >= 0)
        slo_text(&o->slo.s[by], out, cap);
    else if (by == -1)
        snprintf(out, cap, "at most %g%% failed", 100 * o->slo.max_error);
    else if (by == -3)
        snprintf(out, cap, "at least %g%% met every SLO", 100 * o->slo.attain);
    else
        snprintf(out, cap, "%s", "");
}

static int openloop_report_cap_row(struct page_block *t, const struct cmp *m,
                                   const struct openloop_cmp_side *x) {
    const struct openloop_cmp_cap *c = &x->cap;
    char v[FMT_CELL], where[200], by[120], tok[FMT_CELL], usd[FMT_CELL];
    enum openloop_cmp_rel cost = c->rel == OPENLOOP_CMP_GE   ? OPENLOOP_CMP_LE
                                 : c->rel == OPENLOOP_CMP_LT ? OPENLOOP_CMP_GT
                                                             : c->rel;
    openloop_report_bound_text(c->rel, c->v, 2, v, sizeof v);
    openloop_report_bound_text(c->rel, c->tokens, 2, tok, sizeof tok);
    openloop_report_bound_text(cost, c->usd, 2, usd, sizeof usd);
    openloop_report_by(&m->open, c->by, by, sizeof by);
    if (c->rel == OPENLOOP_CMP_EQ)
        snprintf(where, sizeof where, "held at %g, failed at %g", c->pass, c->fail);
    else if (c->rel == OPENLOOP_CMP_GE)
        snprintf(where, sizeof where, "held at every rate, up to %g", c->pass);
    else if (c->rel == OPENLOOP_CMP_LT)
        snprintf(where, sizeof where, "failed already at %g", c->fail);
    else
        snprintf(where, sizeof where, "no open-loop run");
    const char *cells[] = {x->name, v, where, by, tok, usd};
    return page_row(t, cells);
}

static int openloop_report_capacity(struct page *r, const struct cmp *m) {
    const struct openloop_cmp *o = &m->open;
    const char *head[] = {"side",       "capacity req/s", "rates",
                          "limited by", "tokens/s",       "USD per M tokens"};
    char ratio[FMT_CELL];
    if (page_text(r, PAGE_PARA,
                  "Capacity at the SLOs: the highest rate at which they hold, interpolated "
                  "between the last rate that held them and the first that did not (on the "
                  "first SLO to fail, linear in the rate); \">=\" when every rate held, \"<\" "
                  "when none did.") < 0)
        return -1;
    struct page_block *t = page_table(r, 0x32, m->opts.have_price ? 6 : 5, head);
    if (!t) return -1;
    for (int k = 0; k < 2; k++)
        if (openloop_report_cap_row(t, m, &o->x[k]) < 0) return -1;
    if (o->ratio_rel == OPENLOOP_CMP_NONE) {
        if (page_text(r, PAGE_PARA, "Capacity %s / %s: n/a, %s.", m->cname, m->bname,
                      openloop_cmp_noratio_why(o->ratio_none)) < 0)
            return -1;
    } else {
        openloop_report_bound_text(o->ratio_rel, o->ratio, -1, ratio, sizeof ratio);
        if (page_text(r, PAGE_PARA, "Capacity %s / %s: %s.", m->cname, m->bname, ratio) < 0)
            return -1;
    }
    return page_text(r, PAGE_PARA,
                     "No 95%% interval: a round's requests queue behind each other, so they are "
                     "not independent samples, and the capacity is read where a curve measured "
                     "at a few rates crosses a bound; the rates that held and failed bracket "
                     "it only as finely as the rates were spaced.");
}

int openloop_report_build(struct page *r, const struct cmp *m) {
    const struct openloop_cmp *o = &m->open;
    char settings[400];
    if (!o->have) return 0;
    openloop_report_settings(m, settings, sizeof settings);
    if (page_text(r, PAGE_HEADING, "Open-loop load (rate.lua)") < 0 ||
        page_text(r, PAGE_PARA, "%s. Rates in requests per second, times in seconds.", settings) <
            0)
        return -1;
    if (o->any_slo) {
        struct buf slo;
        buf_init(&slo, BUF_NO_CAP);
        int rc = openloop_report_slo_phrase(o, &slo);
        if (rc == 0)
            rc = page_text(r, PAGE_PARA,
                           "SLOs, checked at each rate: %s (%s, failures of all those sent).",
                           buf_str(&slo),
                           o->slo.attain_given
                               ? "the share of the requests sent that met every bound at once; "
                                 "the percentiles shown, not deciding"
                               : "percentiles of the successful requests");
        buf_free(&slo);
        if (rc < 0) return -1;
    }
    if (openloop_report_load(r, o) < 0 ||
        page_text(r, PAGE_PARA,
                  "arrived/s: the requests over the seconds of arrivals (their intended "
                  "starts); done/s, tokens/s, goodput/s: successful requests, their tokens, "
                  "those that met every SLO, over first intended start to last reply; late: "
                  "successful requests sent more than %d ms after their intended start (the "
                  "client's clock), p99 late: their lateness at p99.%s",
                  OPENLOOP_LATE_US / 1000,
                  o->any_slo ? " attained: the share of the requests sent that met every SLO's "
                               "bound at once (a failed one met none)."
                             : "") < 0 ||
        page_text(r, PAGE_PARA,
                  "Latency from the intended start (p50 / p90 / p99 of the successful "
                  "requests; itl over their tokens):") < 0 ||
        openloop_report_latency(r, o) < 0)
        return -1;
    return o->any_slo ? openloop_report_capacity(r, m) : 0;
}
