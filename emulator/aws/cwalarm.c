#include "cwalarm.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonw.h"

static const char *const cwalarm_cmps[] = {"GreaterThanOrEqualToThreshold", "GreaterThanThreshold",
                                           "LessThanThreshold", "LessThanOrEqualToThreshold"};
static const char *const cwalarm_missings[] = {"missing", "ignore", "breaching", "notBreaching"};
static const char *const cwalarm_states[] = {"OK", "ALARM", "INSUFFICIENT_DATA"};
static const char *const cwalarm_stats[] = {"SampleCount", "Average", "Sum", "Minimum", "Maximum"};
static const char *const cwalarm_ops[] = {"PutMetricAlarm", "DescribeAlarms", "DeleteAlarms"};

#define CWALARM_N(a) (sizeof(a) / sizeof *(a))

static int cwalarm_find_name(const char *const *names, size_t n, const char *v) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], v) == 0) return (int)i;
    return -1;
}

const char *cwalarm_state_name(enum cwalarm_state s) {
    return cwalarm_states[s];
}
const char *cwalarm_cmp_name(enum cwalarm_cmp c) {
    return cwalarm_cmps[c];
}
const char *cwalarm_missing_name(enum cwalarm_missing m) {
    return cwalarm_missings[m];
}

bool cwalarm_op(const char *op) {
    return cwalarm_find_name(cwalarm_ops, CWALARM_N(cwalarm_ops), op) >= 0;
}

void cwalarm_spec_init(struct cwalarm_spec *s) {
    memset(s, 0, sizeof *s);
    s->actions_enabled = true;
    s->missing = CWALARM_MISSING;
}

__attribute__((format(printf, 2, 3))) static void cwalarm_refuse_spec(struct cwalarm_spec *s,
                                                                      const char *fmt, ...) {
    if (*s->refused) return; /* the first one tells */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->refused, sizeof s->refused, fmt, ap);
    va_end(ap);
}

bool cwalarm_set_cmp(struct cwalarm_spec *s, const char *v) {
    int i = cwalarm_find_name(cwalarm_cmps, CWALARM_N(cwalarm_cmps), v);
    s->has_cmp = true;
    if (i >= 0) {
        s->cmp = (enum cwalarm_cmp)i;
        return true;
    }
    cwalarm_refuse_spec(s,
                        "The parameter ComparisonOperator '%.64s' is not one the emulator "
                        "evaluates (GreaterThanOrEqualToThreshold, GreaterThanThreshold, "
                        "LessThanThreshold, LessThanOrEqualToThreshold).",
                        v);
    return false;
}

bool cwalarm_set_missing(struct cwalarm_spec *s, const char *v) {
    int i = cwalarm_find_name(cwalarm_missings, CWALARM_N(cwalarm_missings), v);
    if (i >= 0) {
        s->missing = (enum cwalarm_missing)i;
        return true;
    }
    cwalarm_refuse_spec(s,
                        "The parameter TreatMissingData '%.64s' is not breaching, notBreaching, "
                        "ignore or missing.",
                        v);
    return false;
}

void cwalarm_add_action(struct cwalarm_spec *s, struct cwalarm_list *l, const char *what,
                        const char *arn) {
    size_t n = strlen(arn);
    if (l->n == CWALARM_ACTIONS_MAX)
        cwalarm_refuse_spec(s, "The collection %s must not have more than %d members.", what,
                            CWALARM_ACTIONS_MAX);
    else if (n == 0 || n >= CWALARM_ARN_MAX)
        cwalarm_refuse_spec(s, "The parameter %s.member.%zu must be 1 to 1024 characters long.",
                            what, l->n + 1);
    else
        memcpy(l->arn[l->n++], arn, n + 1);
}

void cwalarm_init(struct cwalarm *al, const char *account) {
    memset(al, 0, sizeof *al);
    snprintf(al->account, sizeof al->account, "%s", account);
}

void cwalarm_free(struct cwalarm *al) {
    free(al->a);
    al->a = NULL;
    al->n = al->cap = 0;
}

__attribute__((format(printf, 3, 4))) static int
cwalarm_refuse(struct cwalarm_refusal *why, const char *code, const char *fmt, ...) {
    va_list ap;
    why->code = code;
    va_start(ap, fmt);
    vsnprintf(why->message, sizeof why->message, fmt, ap);
    va_end(ap);
    return 1;
}

/* Whether period p (seconds) is one CloudWatch takes: 10, 30 or a multiple of 60. */
static bool cwalarm_period_ok(long p) {
    return p == 10 || p == 30 || (p >= 60 && p % 60 == 0);
}

/* Checks the dimensions of an alarm's metric q: a production variant's
 * metrics by EndpointName (and VariantName), an inference component's by
 * InferenceComponentName alone; 0 or 1 with why, naming what came. */
static int cwalarm_check_dims(const struct cwmetric_q *q, struct cwalarm_refusal *why) {
    const char *bad = "InvalidParameterValue";
    if (q->other_dims)
        return cwalarm_refuse(why, bad,
                              "The emulator's alarms watch its metrics by EndpointName and "
                              "VariantName, or by InferenceComponentName: another dimension was "
                              "given.");
    if (*q->component && (*q->endpoint || *q->variant))
        return cwalarm_refuse(why, bad,
                              "The dimension InferenceComponentName (%.64s) is served alone: "
                              "%s was given with it.",
                              q->component, *q->endpoint ? "EndpointName" : "VariantName");
    if (*q->component && !cwmetric_component_metric(q->ns, q->name))
        return cwalarm_refuse(why, bad,
                              "The metric %.64s of %.64s is not served by InferenceComponentName "
                              "(AWS/SageMaker's Invocations, InvocationsPerCopy and "
                              "NoCapacityInvocationFailures are).",
                              q->name, q->ns);
    if (!*q->component && cwmetric_component_metric(q->ns, q->name) &&
        !cwmetric_variant_metric(q->ns, q->name))
        return cwalarm_refuse(why, bad,
                              "The metric %.64s is served by InferenceComponentName only: that "
                              "dimension is required.",
                              q->name);
    return 0;
}

/* Checks spec s; 0 or 1 with why. */
static int cwalarm_check(const struct cwalarm_spec *s, struct cwalarm_refusal *why) {
    const char *bad = "InvalidParameterValue", *missing = "MissingParameter";
    if (*s->refused) return cwalarm_refuse(why, bad, "%s", s->refused);
    if (!*s->name) return cwalarm_refuse(why, missing, "The parameter AlarmName is required.");
    if (!s->eval_periods)
        return cwalarm_refuse(why, missing, "The parameter EvaluationPeriods is required.");
    if (!s->has_cmp)
        return cwalarm_refuse(why, missing, "The parameter ComparisonOperator is required.");
    if (!*s->q.name)
        return cwalarm_refuse(why, missing,
                              "The parameter MetricName is required (the emulator's alarms watch "
                              "one metric, no metric math).");
    if (!*s->q.ns) return cwalarm_refuse(why, missing, "The parameter Namespace is required.");
    if (!*s->q.stat) return cwalarm_refuse(why, missing, "The parameter Statistic is required.");
    if (cwalarm_find_name(cwalarm_stats, CWALARM_N(cwalarm_stats), s->q.stat) < 0)
        return cwalarm_refuse(why, bad,
                              "The parameter Statistic '%.32s' is not SampleCount, Average, Sum, "
                              "Minimum or Maximum.",
                              s->q.stat);
    if (!s->q.period) return cwalarm_refuse(why, missing, "The parameter Period is required.");
    if (s->q.period < 0 || !cwalarm_period_ok(s->q.period))
        return cwalarm_refuse(why, bad,
                              "The parameter Period must be 10, 30 or a multiple of 60 seconds.");
    if (!s->has_threshold)
        return cwalarm_refuse(why, missing, "The parameter Threshold is required.");
    if (s->eval_periods < 1 || s->to_alarm < 0)
        return cwalarm_refuse(why, bad,
                              "The parameters EvaluationPeriods and DatapointsToAlarm must be at "
                              "least 1.");
    if (s->to_alarm > s->eval_periods)
        return cwalarm_refuse(why, bad,
                              "DatapointsToAlarm (%ld) must be less than or equal to "
                              "EvaluationPeriods (%ld).",
                              s->to_alarm, s->eval_periods);
    if (s->eval_periods * s->q.period > 86400 || s->eval_periods > CWALARM_POINTS_MAX)
        return cwalarm_refuse(why, bad,
                              "The evaluation interval of the alarm (EvaluationPeriods x Period) "
                              "cannot exceed 86400 seconds.");
    return cwalarm_check_dims(&s->q, why);
}

static struct cwalarm_alarm *cwalarm_get(struct cwalarm *al, const char *region, const char *name) {
    for (size_t i = 0; i < al->n; i++)
        if (strcmp(al->a[i].region, region) == 0 && strcmp(al->a[i].s.name, name) == 0)
            return &al->a[i];
    return NULL;
}

/* Creates or replaces the alarm of spec s (checked) in region at now; *made:
 * the alarm. Returns 0, 1 with why (LimitExceeded) or CWALARM_ERR_NOMEM. */
static int cwalarm_store(struct cwalarm *al, const struct cwalarm_spec *s, const char *region,
                         double now, struct cwalarm_refusal *why, struct cwalarm_alarm **made) {
    struct cwalarm_alarm *a = *made = cwalarm_get(al, region, s->name);
    if (a) { /* replaced: the state stays until the next evaluation, due at once */
        a->s = *s;
        a->updated = now;
        a->next = 0;
        return 0;
    }
    if (al->n == CWALARM_MAX)
        return cwalarm_refuse(why, "LimitExceeded",
                              "The maximum number of alarms (%d) has been reached.", CWALARM_MAX);
    if (al->n == al->cap) {
        size_t cap = al->cap ? 2 * al->cap : 8;
        struct cwalarm_alarm *na = realloc(al->a, cap * sizeof *na);
        if (!na) return CWALARM_ERR_NOMEM;
        al->a = na;
        al->cap = cap;
    }
    size_t at = 0; /* name order within the region, as DescribeAlarms lists them */
    while (at < al->n &&
           (strcmp(al->a[at].region, region) < 0 ||
            (strcmp(al->a[at].region, region) == 0 && strcmp(al->a[at].s.name, s->name) < 0)))
        at++;
    memmove(al->a + at + 1, al->a + at, (al->n - at) * sizeof *al->a);
    al->n++;
    a = memset(&al->a[at], 0, sizeof *a);
    snprintf(a->region, sizeof a->region, "%s", region);
    snprintf(a->arn, sizeof a->arn, "arn:aws:cloudwatch:%s:%s:alarm:%s", region, al->account,
             s->name);
    a->s = *s;
    a->state = CWALARM_INSUFFICIENT;
    snprintf(a->reason, sizeof a->reason, "Unchecked: Initial alarm creation");
    a->state_at = a->updated = now;
    a->value = NAN;
    *made = a;
    return 0;
}

int cwalarm_put(struct cwalarm *al, const struct cwalarm_spec *s, const char *region, double now,
                struct cwalarm_refusal *why) {
    struct cwalarm_alarm *a;
    if (cwalarm_check(s, why)) return 1;
    int rc = cwalarm_store(al, s, region, now, why, &a);
    if (!rc) a->managed = false;
    return rc;
}

/* Whether the lists of actions l and m are the same. */
static bool cwalarm_same_list(const struct cwalarm_list *l, const struct cwalarm_list *m) {
    for (size_t i = 0; l->n == m->n && i < l->n; i++)
        if (strcmp(l->arn[i], m->arn[i]) != 0) return false;
    return l->n == m->n;
}

/* Whether alarm specs s and t are the same, as DescribeAlarms and the
 * evaluation read them. */
static bool cwalarm_same(const struct cwalarm_spec *s, const struct cwalarm_spec *t) {
    const struct cwmetric_q *q = &s->q, *r = &t->q;
    return strcmp(s->name, t->name) == 0 && strcmp(s->description, t->description) == 0 &&
           strcmp(q->ns, r->ns) == 0 && strcmp(q->name, r->name) == 0 &&
           strcmp(q->stat, r->stat) == 0 && strcmp(q->endpoint, r->endpoint) == 0 &&
           strcmp(q->variant, r->variant) == 0 && strcmp(q->component, r->component) == 0 &&
           q->other_dims == r->other_dims && q->period == r->period &&
           s->eval_periods == t->eval_periods && s->to_alarm == t->to_alarm &&
           s->threshold == t->threshold && s->cmp == t->cmp && s->missing == t->missing &&
           s->actions_enabled == t->actions_enabled &&
           cwalarm_same_list(&s->alarm_actions, &t->alarm_actions) &&
           cwalarm_same_list(&s->ok_actions, &t->ok_actions) &&
           cwalarm_same_list(&s->insufficient_actions, &t->insufficient_actions);
}

int cwalarm_sync(struct cwalarm *al, const struct cwalarm_spec *specs, size_t n, const char *region,
                 double now, struct cwalarm_refusal *why) {
    for (size_t i = 0; i < n; i++) {
        struct cwalarm_alarm *a = cwalarm_get(al, region, specs[i].name);
        if (a && a->managed && cwalarm_same(&a->s, &specs[i])) continue;
        int rc = cwalarm_store(al, &specs[i], region, now, why, &a);
        if (rc) return rc;
        a->managed = true;
    }
    for (size_t i = 0; i < al->n;) { /* the managed ones no policy has now */
        struct cwalarm_alarm *a = &al->a[i];
        bool kept = !a->managed || strcmp(a->region, region) != 0;
        for (size_t k = 0; !kept && k < n; k++) kept = strcmp(a->s.name, specs[k].name) == 0;
        if (kept) {
            i++;
            continue;
        }
        memmove(a, a + 1, (size_t)(al->a + al->n - (a + 1)) * sizeof *a);
        al->n--;
    }
    return 0;
}

int cwalarm_delete(struct cwalarm *al, const char *const *names, size_t n, const char *region,
                   struct cwalarm_refusal *why) {
    for (size_t i = 0; i < n; i++)
        if (!cwalarm_get(al, region, names[i]))
            return cwalarm_refuse(why, "ResourceNotFound", "Alarm %.255s does not exist in %s.",
                                  names[i], region);
    for (size_t i = 0; i < n; i++) {
        struct cwalarm_alarm *a = cwalarm_get(al, region, names[i]);
        if (!a) continue; /* named twice */
        memmove(a, a + 1, (size_t)(al->a + al->n - (a + 1)) * sizeof *a);
        al->n--;
    }
    return 0;
}

bool cwalarm_filter_ok(const struct cwalarm_filter *f, struct cwalarm_refusal *why) {
    if (f->from < 0) return !cwalarm_refuse(why, "InvalidNextToken", "The NextToken is invalid.");
    if (f->max < 0 || f->max > 100)
        return !cwalarm_refuse(why, "InvalidParameterValue",
                               "The parameter MaxRecords must be from 1 to 100.");
    if (f->n_names && f->prefix)
        return !cwalarm_refuse(why, "InvalidParameterCombination",
                               "AlarmNames and AlarmNamePrefix cannot be given together.");
    if (f->state && cwalarm_find_name(cwalarm_states, CWALARM_N(cwalarm_states), f->state) < 0)
        return !cwalarm_refuse(why, "InvalidParameterValue",
                               "The parameter StateValue '%.32s' is not OK, ALARM or "
                               "INSUFFICIENT_DATA.",
                               f->state);
    return true;
}

bool cwalarm_picked(const struct cwalarm_alarm *a, const struct cwalarm_filter *f,
                    const char *region) {
    if (strcmp(a->region, region) != 0 || f->no_metric_alarms) return false;
    if (f->n_names && cwalarm_find_name(f->names, f->n_names, a->s.name) < 0) return false;
    if (f->prefix && strncmp(a->s.name, f->prefix, strlen(f->prefix)) != 0) return false;
    if (f->state && strcmp(f->state, cwalarm_states[a->state]) != 0) return false;
    if (f->action) {
        size_t n = strlen(f->action);
        bool any = false;
        for (size_t i = 0; i < a->s.alarm_actions.n; i++)
            any = any || strncmp(a->s.alarm_actions.arn[i], f->action, n) == 0;
        return any;
    }
    return true;
}

/* ---- evaluating ---- */

static bool cwalarm_breaches(const struct cwalarm_spec *s, double v) {
    switch (s->cmp) {
    case CWALARM_GE:
        return v >= s->threshold;
    case CWALARM_GT:
        return v > s->threshold;
    case CWALARM_LT:
        return v < s->threshold;
    case CWALARM_LE:
        return v <= s->threshold;
    }
    return false;
}

enum cwalarm_state cwalarm_judge(const struct cwalarm_spec *s, const double *pts, size_t n,
                                 enum cwalarm_state was, double *value) {
    size_t counted = 0, breaching = 0;
    *value = NAN;
    for (size_t i = 0; i < n; i++) {
        if (!isnan(pts[i])) {
            *value = pts[i];
            counted++;
            breaching += cwalarm_breaches(s, pts[i]);
        } else if (s->missing == CWALARM_BREACHING) {
            counted++;
            breaching++;
        } else if (s->missing == CWALARM_NOT_BREACHING) {
            counted++;
        }
    }
    long need = s->to_alarm ? s->to_alarm : s->eval_periods;
    if (need > 0 && breaching >= (size_t)need) return CWALARM_ALARM;
    if (counted) return CWALARM_OK;
    return s->missing == CWALARM_IGNORE ? was : CWALARM_INSUFFICIENT;
}

/* The datapoints of a's last EvaluationPeriods periods ending at end (wall). */
static int cwalarm_points(const struct cwalarm_alarm *a, const struct cwmetric *m, double end,
                          double width, double *pts) {
    struct cwmetric_req *req = malloc(sizeof *req);
    struct cwmetric_page page = {0};
    if (!req) return CWALARM_ERR_NOMEM;
    size_t n = (size_t)a->s.eval_periods;
    cwmetric_req_init(req);
    req->q[0] = a->s.q;
    snprintf(req->q[0].id, sizeof req->q[0].id, "alarm");
    req->q[0].hidden = false;
    req->n = 1;
    req->start = end - (double)n * width;
    req->end = end;
    req->ascending = true;
    for (size_t i = 0; i < n; i++) pts[i] = NAN;
    int rc = cwmetric_eval(m, req, a->region, end, &page);
    for (size_t i = 0; !rc && page.n && i < page.r[0].n; i++) {
        double k = round((page.r[0].t[i] - req->start) / width);
        if (k >= 0 && k < (double)n) pts[(size_t)k] = page.r[0].v[i];
    }
    cwmetric_page_free(&page);
    free(req);
    return rc ? CWALARM_ERR_NOMEM : 0;
}

/* The reason of a change to state s over the alarm's last evaluation. */
static void cwalarm_reason(struct cwalarm_alarm *a, const double *pts, size_t n) {
    size_t counted = 0;
    for (size_t i = 0; i < n; i++) counted += !isnan(pts[i]);
    if (a->state == CWALARM_INSUFFICIENT)
        snprintf(a->reason, sizeof a->reason, "Insufficient Data: %zu datapoints were unknown.",
                 n - counted);
    else
        snprintf(a->reason, sizeof a->reason,
                 "Threshold Crossed: %zu out of the last %zu datapoints [newest %.17g] %s the "
                 "threshold (%.17g).",
                 counted, n, a->value, a->state == CWALARM_ALARM ? "crossed" : "did not cross",
                 a->s.threshold);
}

int cwalarm_run(struct cwalarm *al, const struct cwmetric *m, double now, cwalarm_fire_fn *fire,
                void *ud, double *next) {
    static double pts[CWALARM_POINTS_MAX];
    *next = INFINITY;
    for (size_t i = 0; i < al->n; i++) {
        struct cwalarm_alarm *a = &al->a[i];
        double width = (double)a->s.q.period / m->time_scale;
        double end = floor(now / width) * width; /* the last period ended */
        if (a->next <= now) {
            size_t n = (size_t)a->s.eval_periods;
            if (cwalarm_points(a, m, end, width, pts)) return CWALARM_ERR_NOMEM;
            enum cwalarm_state was = a->state;
            a->state = cwalarm_judge(&a->s, pts, n, was, &a->value);
            if (a->state != was) {
                a->state_at = now;
                cwalarm_reason(a, pts, n);
            }
            a->next = end + width;
            if (a->state == CWALARM_ALARM && a->s.actions_enabled)
                for (size_t k = 0; k < a->s.alarm_actions.n; k++)
                    fire(ud, a, a->s.alarm_actions.arn[k]);
        }
        if (a->next < *next) *next = a->next;
    }
    return 0;
}

/* ---- AWS JSON 1.0 ---- */

static void cwalarm_copy(char *dst, size_t size, const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsString(v)) snprintf(dst, size, "%s", v->valuestring);
}

static long cwalarm_long(struct cwalarm_spec *s, const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) return 0;
    if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1e7 ||
        v->valuedouble != floor(v->valuedouble)) {
        cwalarm_refuse_spec(s, "The parameter %s must be a whole number of at least 1.", key);
        return -1;
    }
    return (long)v->valuedouble;
}

static void cwalarm_json_list(struct cwalarm_spec *s, struct cwalarm_list *l, const cJSON *o,
                              const char *key) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key), *it;
    cJSON_ArrayForEach(it, arr) {
        if (cJSON_IsString(it)) cwalarm_add_action(s, l, key, it->valuestring);
    }
}

static void cwalarm_json_spec(struct cwalarm_spec *s, const cJSON *o) {
    const cJSON *v, *d;
    cwalarm_copy(s->name, sizeof s->name, o, "AlarmName");
    cwalarm_copy(s->description, sizeof s->description, o, "AlarmDescription");
    cwalarm_copy(s->q.ns, sizeof s->q.ns, o, "Namespace");
    cwalarm_copy(s->q.name, sizeof s->q.name, o, "MetricName");
    cwalarm_copy(s->q.stat, sizeof s->q.stat, o, "Statistic");
    s->q.period = cwalarm_long(s, o, "Period");
    s->eval_periods = cwalarm_long(s, o, "EvaluationPeriods");
    s->to_alarm = cwalarm_long(s, o, "DatapointsToAlarm");
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(o, "Dimensions")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(d, "Name"),
                    *val = cJSON_GetObjectItemCaseSensitive(d, "Value");
        if (cJSON_IsString(n) && cJSON_IsString(val))
            cwmetric_dimension(&s->q, n->valuestring, val->valuestring);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "Threshold"))) {
        s->has_threshold = cJSON_IsNumber(v);
        s->threshold = cJSON_IsNumber(v) ? v->valuedouble : 0;
    }
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "ComparisonOperator")))
        (void)cwalarm_set_cmp(s, v->valuestring);
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "TreatMissingData")))
        (void)cwalarm_set_missing(s, v->valuestring);
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "ActionsEnabled")))
        s->actions_enabled = cJSON_IsTrue(v);
    cwalarm_json_list(s, &s->alarm_actions, o, "AlarmActions");
    cwalarm_json_list(s, &s->ok_actions, o, "OKActions");
    cwalarm_json_list(s, &s->insufficient_actions, o, "InsufficientDataActions");
    if (cJSON_GetObjectItemCaseSensitive(o, "Metrics") ||
        cJSON_GetObjectItemCaseSensitive(o, "ExtendedStatistic") ||
        cJSON_GetObjectItemCaseSensitive(o, "ThresholdMetricId"))
        cwalarm_refuse_spec(s, "The emulator's alarms take one metric with a Statistic: Metrics, "
                               "ExtendedStatistic and ThresholdMetricId are not evaluated.");
}

static int cwalarm_json_list_out(struct buf *b, const char *key, const struct cwalarm_list *l) {
    int rc = buf_addf(b, ",\"%s\":[", key);
    for (size_t i = 0; !rc && i < l->n; i++) {
        if (i) rc = buf_addc(b, ',');
        if (!rc) rc = jsonw_cstr(b, l->arn[i]);
    }
    return rc ? rc : buf_addc(b, ']');
}

static int cwalarm_json_alarm(struct buf *b, const struct cwalarm_alarm *a) {
    const struct cwalarm_spec *s = &a->s;
    int rc = buf_adds(b, "{\"AlarmName\":");
    if (!rc) rc = jsonw_cstr(b, s->name);
    if (!rc) rc = buf_adds(b, ",\"AlarmArn\":");
    if (!rc) rc = jsonw_cstr(b, a->arn);
    if (!rc && *s->description) rc = buf_adds(b, ",\"AlarmDescription\":");
    if (!rc && *s->description) rc = jsonw_cstr(b, s->description);
    if (!rc)
        rc = buf_addf(b, ",\"AlarmConfigurationUpdatedTimestamp\":%.3f,\"ActionsEnabled\":%s",
                      a->updated, s->actions_enabled ? "true" : "false");
    if (!rc) rc = cwalarm_json_list_out(b, "OKActions", &s->ok_actions);
    if (!rc) rc = cwalarm_json_list_out(b, "AlarmActions", &s->alarm_actions);
    if (!rc) rc = cwalarm_json_list_out(b, "InsufficientDataActions", &s->insufficient_actions);
    if (!rc) rc = buf_addf(b, ",\"StateValue\":\"%s\",\"StateReason\":", cwalarm_states[a->state]);
    if (!rc) rc = jsonw_cstr(b, a->reason);
    if (!rc) rc = buf_addf(b, ",\"StateUpdatedTimestamp\":%.3f,\"MetricName\":", a->state_at);
    if (!rc) rc = jsonw_cstr(b, s->q.name);
    if (!rc) rc = buf_adds(b, ",\"Namespace\":");
    if (!rc) rc = jsonw_cstr(b, s->q.ns);
    if (!rc) rc = buf_addf(b, ",\"Statistic\":\"%s\",\"Dimensions\":[", s->q.stat);
    const char *dims[][2] = {{"EndpointName", s->q.endpoint},
                             {"VariantName", s->q.variant},
                             {"InferenceComponentName", s->q.component}};
    bool first = true;
    for (size_t i = 0; !rc && i < CWALARM_N(dims); i++) {
        if (!*dims[i][1]) continue;
        rc = buf_addf(b, "%s{\"Name\":\"%s\",\"Value\":", first ? "" : ",", dims[i][0]);
        if (!rc) rc = jsonw_cstr(b, dims[i][1]);
        if (!rc) rc = buf_addc(b, '}');
        first = false;
    }
    if (!rc)
        rc = buf_addf(b,
                      "],\"Period\":%ld,\"EvaluationPeriods\":%ld,\"DatapointsToAlarm\":%ld,"
                      "\"Threshold\":%.17g,\"ComparisonOperator\":\"%s\","
                      "\"TreatMissingData\":\"%s\"}",
                      s->q.period, s->eval_periods, s->to_alarm ? s->to_alarm : s->eval_periods,
                      s->threshold, cwalarm_cmps[s->cmp], cwalarm_missings[s->missing]);
    return rc;
}

/* Reads DescribeAlarms' filter from o (its strings borrowed from o). */
static void cwalarm_json_filter(struct cwalarm_filter *f, const cJSON *o) {
    const cJSON *v, *it;
    memset(f, 0, sizeof *f);
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "AlarmNames")) {
        if (cJSON_IsString(it) && f->n_names < CWALARM_NAMES_MAX)
            f->names[f->n_names++] = it->valuestring;
    }
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "AlarmNamePrefix")))
        f->prefix = v->valuestring;
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "StateValue")))
        f->state = v->valuestring;
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(o, "ActionPrefix")))
        f->action = v->valuestring;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "MaxRecords")))
        f->max = cJSON_IsNumber(v) && v->valuedouble >= 1 ? (long)v->valuedouble : -1;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "NextToken"))) {
        char *end = NULL;
        f->from = cJSON_IsString(v) ? strtol(v->valuestring, &end, 10) : -1;
        if (!end || *end || f->from < 0) f->from = -1;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "AlarmTypes"))) {
        f->no_metric_alarms = true;
        cJSON_ArrayForEach(it, v) {
            if (cJSON_IsString(it) && strcmp(it->valuestring, "MetricAlarm") == 0)
                f->no_metric_alarms = false;
        }
    }
}

static int cwalarm_json_describe(struct cwalarm *al, const cJSON *o, const char *region,
                                 struct cplane_reply *r) {
    struct cwalarm_filter f;
    struct cwalarm_refusal why;
    cwalarm_json_filter(&f, o);
    if (!cwalarm_filter_ok(&f, &why))
        return cplane_error(
            r, 400,
            strcmp(why.code, "InvalidNextToken") == 0 ? why.code : "InvalidParameterValueException",
            why.message);
    long max = f.max ? f.max : 50, seen = 0, given = 0;
    int rc = buf_adds(&r->body, "{\"CompositeAlarms\":[],\"MetricAlarms\":[");
    bool more = false;
    for (size_t i = 0; !rc && i < al->n; i++) {
        if (!cwalarm_picked(&al->a[i], &f, region) || seen++ < f.from) continue;
        if (given == max) {
            more = true;
            break;
        }
        if (given++) rc = buf_addc(&r->body, ',');
        if (!rc) rc = cwalarm_json_alarm(&r->body, &al->a[i]);
    }
    if (!rc) rc = buf_addc(&r->body, ']');
    if (!rc && more) rc = buf_addf(&r->body, ",\"NextToken\":\"%ld\"", f.from + given);
    return rc ? rc : buf_addc(&r->body, '}');
}

static int cwalarm_json_delete(struct cwalarm *al, const cJSON *o, const char *region,
                               struct cplane_reply *r) {
    const char *names[CWALARM_NAMES_MAX];
    size_t n = 0;
    const cJSON *it;
    struct cwalarm_refusal why;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "AlarmNames")) {
        if (cJSON_IsString(it) && n < CWALARM_NAMES_MAX) names[n++] = it->valuestring;
    }
    if (!cJSON_GetObjectItemCaseSensitive(o, "AlarmNames"))
        return cplane_error(r, 400, "MissingRequiredParameterException",
                            "The parameter AlarmNames is required.");
    if (cwalarm_delete(al, names, n, region, &why))
        return cplane_error(r, 404, "ResourceNotFound", why.message);
    return buf_adds(&r->body, "{}");
}

/* The JSON protocol's error type of a refusal's code. */
static const char *cwalarm_json_type(const char *code) {
    if (strcmp(code, "MissingParameter") == 0) return "MissingRequiredParameterException";
    if (strcmp(code, "LimitExceeded") == 0) return "LimitExceededFault";
    return strcmp(code, "InvalidParameterValue") == 0 ? "InvalidParameterValueException" : code;
}

int cwalarm_call(struct cwalarm *al, const char *op, const char *body, size_t len,
                 const char *region, double now, struct cplane_reply *r) {
    r->status = 200;
    r->type = NULL;
    buf_reset(&r->body);
    cJSON *o = cJSON_ParseWithLength(body, len);
    int rc;
    if (!cJSON_IsObject(o)) {
        rc = cplane_error(r, 400, "SerializationException", "The request is not a JSON object.");
    } else if (strcmp(op, "PutMetricAlarm") == 0) {
        struct cwalarm_spec *s = malloc(sizeof *s);
        struct cwalarm_refusal why;
        rc = s ? 0 : CWALARM_ERR_NOMEM;
        if (s) cwalarm_spec_init(s);
        if (s) cwalarm_json_spec(s, o);
        if (s) rc = cwalarm_put(al, s, region, now, &why);
        if (rc == 1) rc = cplane_error(r, 400, cwalarm_json_type(why.code), why.message);
        if (rc == 0 && r->status == 200) rc = buf_adds(&r->body, "{}");
        free(s);
    } else if (strcmp(op, "DescribeAlarms") == 0) {
        rc = cwalarm_json_describe(al, o, region, r);
    } else if (strcmp(op, "DeleteAlarms") == 0) {
        rc = cwalarm_json_delete(al, o, region, r);
    } else {
        rc = cplane_fail(r, 400, "UnknownOperationException", "Unknown operation %.64s", op);
    }
    cJSON_Delete(o);
    if (!rc) return CPLANE_OK;
    r->status = 500;
    return CPLANE_ERR_NOMEM;
}
