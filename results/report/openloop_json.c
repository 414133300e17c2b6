#include "openloop_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"

static cJSON *openloop_json_num(double x) {
    return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static cJSON *openloop_json_str(const char *s) {
    char *fixed = s ? esc_utf8(s) : NULL;
    cJSON *v = fixed ? cJSON_CreateString(fixed) : cJSON_CreateNull();
    free(fixed);
    return v;
}

static const char *openloop_json_rel(enum openloop_cmp_rel rel) {
    static const char *const text[] = {NULL, "=", ">=", ">", "<=", "<"};
    return text[rel];
}

static cJSON *openloop_json_rel_item(enum openloop_cmp_rel rel) {
    return rel == OPENLOOP_CMP_NONE ? cJSON_CreateNull()
                                    : cJSON_CreateString(openloop_json_rel(rel));
}

/* settings.KEY of the first open-loop input, as written (null when absent). */
static void openloop_json_setting(cJSON *o, const cJSON *settings, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(settings, key);
    cJSON *copy = v ? cJSON_Duplicate(v, true) : NULL;
    cJSON_AddItemToObject(o, key, copy ? copy : cJSON_CreateNull());
}

static cJSON *openloop_json_settings(const struct cmp *m) {
    static const char *const keys[] = {"arrivals",   "rates",        "duration_s",
                                       "burstiness", "arrival_seed", "max_concurrency",
                                       "max_tokens"};
    const struct src *s = m->b->rate.first ? m->b->rate.first : m->c->rate.first;
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        openloop_json_setting(o, s ? s->settings : NULL, keys[i]);
    return o;
}

static cJSON *openloop_json_slos(const struct openloop_cmp *o) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < o->slo.n; i++) {
        cJSON *x = cJSON_CreateObject();
        char key[48];
        slo_key(&o->slo.s[i], key, sizeof key);
        cJSON_AddStringToObject(x, "slo", key);
        cJSON_AddStringToObject(x, "metric", stream_name(o->slo.s[i].metric));
        cJSON_AddNumberToObject(x, "percentile", o->slo.s[i].pct);
        cJSON_AddNumberToObject(x, "seconds", o->slo.s[i].bound);
        cJSON_AddItemToArray(a, x);
    }
    return a;
}

static cJSON *openloop_json_lat(const struct openloop_cmp_lat *l, enum stream_metric k) {
    if (!l->ok) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < STREAM_QUANTILES; i++) {
        char key[8];
        snprintf(key, sizeof key, "p%.0f", 100 * stream_quantiles[i]);
        cJSON_AddNumberToObject(o, key, l->q[i]);
    }
    cJSON_AddNumberToObject(o, "requests", (double)l->requests);
    if (k == STREAM_ITL) cJSON_AddNumberToObject(o, "tokens", (double)l->tokens);
    return o;
}

static cJSON *openloop_json_check(const char *slo, const struct openloop_cmp_check *c,
                                  double bound) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "slo", slo);
    cJSON_AddItemToObject(x, "value", c->have ? openloop_json_num(c->v) : cJSON_CreateNull());
    cJSON_AddNumberToObject(x, "bound", bound);
    cJSON_AddBoolToObject(x, "held", c->ok);
    return x;
}

static cJSON *openloop_json_verdict(const struct openloop_cmp *o,
                                    const struct openloop_cmp_point *p) {
    if (!o->any_slo) return cJSON_CreateNull();
    cJSON *x = cJSON_CreateObject(), *checks = cJSON_CreateArray();
    cJSON_AddBoolToObject(x, "held", p->held);
    for (size_t i = 0; i < o->slo.n; i++) {
        char key[48];
        slo_key(&o->slo.s[i], key, sizeof key);
        cJSON_AddItemToArray(checks, openloop_json_check(key, &p->check[i], o->slo.s[i].bound));
    }
    if (o->slo.attain_given)
        cJSON_AddItemToArray(checks, openloop_json_check("attainment", &p->att, o->slo.attain));
    cJSON_AddItemToArray(checks, openloop_json_check("error_rate", &p->err, o->slo.max_error));
    cJSON_AddItemToObject(x, "checks", checks);
    return x;
}

static cJSON *openloop_json_point(const struct openloop_cmp *o,
                                  const struct openloop_cmp_point *p) {
    cJSON *x = cJSON_CreateObject(), *lat = cJSON_CreateObject();
    const struct src_tally *t = &p->r->tally;
    cJSON_AddNumberToObject(x, "rate", p->rate);
    cJSON_AddItemToObject(x, "arrivals_per_second", openloop_json_num(p->arrival));
    cJSON_AddItemToObject(x, "completions_per_second", openloop_json_num(p->completion));
    cJSON_AddItemToObject(x, "tokens_per_second", openloop_json_num(p->tokens));
    cJSON_AddItemToObject(x, "goodput_per_second", openloop_json_num(p->goodput));
    cJSON_AddItemToObject(x, "slo_attainment", openloop_json_num(p->attainment));
    cJSON_AddNumberToObject(x, "sent", (double)t->sent);
    cJSON_AddNumberToObject(x, "ok", (double)t->ok);
    cJSON_AddNumberToObject(x, "failed", (double)t->failed);
    cJSON_AddItemToObject(x, "failed_share", openloop_json_num(p->errors));
    cJSON_AddItemToObject(x, "late_share", openloop_json_num(p->late_share));
    cJSON_AddItemToObject(x, "late_p99_seconds", openloop_json_num(p->late_p99));
    for (size_t i = 0; i < STREAM_METRICS; i++)
        cJSON_AddItemToObject(
            lat, stream_name(openloop_cmp_order[i]),
            openloop_json_lat(&p->lat[openloop_cmp_order[i]], openloop_cmp_order[i]));
    cJSON_AddItemToObject(x, "latency_seconds", lat);
    cJSON_AddItemToObject(x, "client_limited",
                          p->limited[0] ? cJSON_CreateString(p->limited) : cJSON_CreateNull());
    if (p->itl_why[0]) cJSON_AddStringToObject(x, "itl_not_resolved", p->itl_why);
    cJSON_AddItemToObject(x, "slos", openloop_json_verdict(o, p));
    return x;
}

static const char *openloop_json_by(const struct openloop_cmp *o, int by, char *out, size_t cap) {
    if (by == -1) return "error_rate";
    if (by == -3) return "attainment";
    if (by < 0) return NULL;
    slo_key(&o->slo.s[by], out, cap);
    return out;
}

static cJSON *openloop_json_capacity(const struct openloop_cmp *o,
                                     const struct openloop_cmp_cap *c) {
    char key[48];
    if (c->rel == OPENLOOP_CMP_NONE) return cJSON_CreateNull();
    enum openloop_cmp_rel cost = c->rel == OPENLOOP_CMP_GE   ? OPENLOOP_CMP_LE
                                 : c->rel == OPENLOOP_CMP_LT ? OPENLOOP_CMP_GT
                                                             : c->rel;
    cJSON *x = cJSON_CreateObject();
    const char *by = openloop_json_by(o, c->by, key, sizeof key);
    cJSON_AddItemToObject(x, "requests_per_second", openloop_json_num(c->v));
    cJSON_AddItemToObject(x, "relation", openloop_json_rel_item(c->rel));
    cJSON_AddItemToObject(x, "last_held", openloop_json_num(c->pass));
    cJSON_AddItemToObject(x, "first_failed", openloop_json_num(c->fail));
    cJSON_AddItemToObject(x, "limited_by", by ? cJSON_CreateString(by) : cJSON_CreateNull());
    cJSON_AddBoolToObject(x, "held_again_above", c->nonmonotone);
    cJSON_AddItemToObject(x, "tokens_per_request", openloop_json_num(c->tokens_per_request));
    cJSON_AddItemToObject(x, "tokens_per_second", openloop_json_num(c->tokens));
    cJSON_AddItemToObject(x, "usd_per_million_tokens", openloop_json_num(c->usd));
    cJSON_AddItemToObject(x, "usd_relation",
                          isfinite(c->usd) ? openloop_json_rel_item(cost) : cJSON_CreateNull());
    return x;
}

static cJSON *openloop_json_side(const struct openloop_cmp *o, const struct openloop_cmp_side *x) {
    cJSON *s = cJSON_CreateObject(), *rates = cJSON_CreateArray();
    cJSON_AddItemToObject(s, "name", openloop_json_str(x->name));
    cJSON_AddBoolToObject(s, "streamed", x->streamed);
    for (size_t i = 0; i < x->n; i++) cJSON_AddItemToArray(rates, openloop_json_point(o, &x->p[i]));
    cJSON_AddItemToObject(s, "rates", rates);
    cJSON_AddItemToObject(s, "capacity",
                          o->any_slo ? openloop_json_capacity(o, &x->cap) : cJSON_CreateNull());
    return s;
}

cJSON *openloop_json_build(const struct cmp *m) {
    const struct openloop_cmp *o = &m->open;
    if (!o->have) return NULL;
    cJSON *x = cJSON_CreateObject(), *sides = cJSON_CreateObject(), *ratio = cJSON_CreateObject();
    cJSON_AddItemToObject(x, "settings", openloop_json_settings(m));
    cJSON_AddNumberToObject(x, "late_threshold_seconds", OPENLOOP_LATE_US / 1e6);
    cJSON_AddItemToObject(x, "slos", openloop_json_slos(o));
    cJSON_AddItemToObject(x, "max_error_rate",
                          o->any_slo ? cJSON_CreateNumber(o->slo.max_error) : cJSON_CreateNull());
    cJSON_AddItemToObject(x, "min_attainment",
                          o->slo.attain_given ? cJSON_CreateNumber(o->slo.attain)
                                              : cJSON_CreateNull());
    cJSON_AddStringToObject(x, "capacity_criterion",
                            o->slo.attain_given ? "attainment" : "percentiles");
    cJSON_AddItemToObject(sides, "baseline", openloop_json_side(o, &o->x[0]));
    cJSON_AddItemToObject(sides, "candidate", openloop_json_side(o, &o->x[1]));
    cJSON_AddItemToObject(x, "sides", sides);
    cJSON_AddItemToObject(ratio, "value", openloop_json_num(o->ratio));
    cJSON_AddItemToObject(ratio, "relation", openloop_json_rel_item(o->ratio_rel));
    cJSON_AddItemToObject(ratio, "why_none",
                          o->ratio_rel == OPENLOOP_CMP_NONE
                              ? openloop_json_str(openloop_cmp_noratio_why(o->ratio_none))
                              : cJSON_CreateNull());
    cJSON_AddItemToObject(x, "capacity_ratio", ratio);
    cJSON_AddStringToObject(x, "no_interval",
                            "a round's requests queue behind each other (not independent "
                            "samples), and the capacity is read where a curve measured at a few "
                            "rates crosses a bound");
    return x;
}
