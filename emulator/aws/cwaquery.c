#include "cwaquery.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cwdoc.h"
#include "cwquery.h"

#define CWAQUERY_NS "http://monitoring.amazonaws.com/doc/2010-08-01/"

/* A whole number from 1 of the form's value v for key, or -1 (refused). */
static long cwaquery_long(struct cwalarm_spec *s, const char *key, const char *v) {
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (*v && !*end && n >= 1 && n <= 10000000) return n;
    if (!*s->refused)
        snprintf(s->refused, sizeof s->refused,
                 "The parameter %s must be a whole number of at least 1, not '%.32s'.", key, v);
    return -1;
}

static void cwaquery_pair(struct cwalarm_spec *s, const struct cwquery_form *f, const char *k,
                          const char *v) {
    const char *rest;
    char *end = NULL;
    if (strcmp(k, "AlarmName") == 0) {
        snprintf(s->name, sizeof s->name, "%s", v);
    } else if (strcmp(k, "AlarmDescription") == 0) {
        snprintf(s->description, sizeof s->description, "%s", v);
    } else if (strcmp(k, "MetricName") == 0) {
        snprintf(s->q.name, sizeof s->q.name, "%s", v);
    } else if (strcmp(k, "Namespace") == 0) {
        snprintf(s->q.ns, sizeof s->q.ns, "%s", v);
    } else if (strcmp(k, "Statistic") == 0) {
        snprintf(s->q.stat, sizeof s->q.stat, "%s", v);
    } else if (strcmp(k, "Period") == 0) {
        s->q.period = cwaquery_long(s, k, v);
    } else if (strcmp(k, "EvaluationPeriods") == 0) {
        s->eval_periods = cwaquery_long(s, k, v);
    } else if (strcmp(k, "DatapointsToAlarm") == 0) {
        s->to_alarm = cwaquery_long(s, k, v);
    } else if (strcmp(k, "Threshold") == 0) {
        s->threshold = strtod(v, &end);
        s->has_threshold = *v && !*end && isfinite(s->threshold);
        if (!s->has_threshold && !*s->refused)
            snprintf(s->refused, sizeof s->refused,
                     "The parameter Threshold '%.32s' is not a number.", v);
    } else if (strcmp(k, "ComparisonOperator") == 0) {
        (void)cwalarm_set_cmp(s, v);
    } else if (strcmp(k, "TreatMissingData") == 0) {
        (void)cwalarm_set_missing(s, v);
    } else if (strcmp(k, "ActionsEnabled") == 0) {
        s->actions_enabled = strcmp(v, "false") != 0;
    } else if (strncmp(k, "AlarmActions.member.", 20) == 0) {
        cwalarm_add_action(s, &s->alarm_actions, "AlarmActions", v);
    } else if (strncmp(k, "OKActions.member.", 17) == 0) {
        cwalarm_add_action(s, &s->ok_actions, "OKActions", v);
    } else if (strncmp(k, "InsufficientDataActions.member.", 31) == 0) {
        cwalarm_add_action(s, &s->insufficient_actions, "InsufficientDataActions", v);
    } else if (cwquery_index(k, "Dimensions.member.", &rest) >= 0 && strcmp(rest, "Name") == 0) {
        char vkey[64];
        snprintf(vkey, sizeof vkey, "%.*sValue", (int)(strlen(k) - 4), k);
        const char *value = cwquery_get(f, vkey);
        cwmetric_dimension(&s->q, v, value ? value : "");
    } else if (strncmp(k, "Metrics.", 8) == 0 || strcmp(k, "ExtendedStatistic") == 0 ||
               strcmp(k, "ThresholdMetricId") == 0) {
        if (!*s->refused)
            snprintf(s->refused, sizeof s->refused,
                     "The emulator's alarms take one metric with a Statistic: %.40s is not "
                     "evaluated.",
                     k);
    }
}

int cwaquery_read(const char *body, size_t len, struct cwalarm_spec *s) {
    struct cwquery_form f = {0};
    int rc = cwquery_form(body, len, &f);
    for (size_t i = 0; !rc && i < f.n; i++) cwaquery_pair(s, &f, f.p[i].key, f.p[i].value);
    cwquery_form_free(&f);
    return rc ? -1 : 0;
}

/* Reads DescribeAlarms' or DeleteAlarms' members into flt (strings borrowed from f). */
static void cwaquery_filter(struct cwalarm_filter *flt, const struct cwquery_form *f) {
    memset(flt, 0, sizeof *flt);
    for (size_t i = 0; i < f->n; i++) {
        const char *k = f->p[i].key, *v = f->p[i].value;
        char *end = NULL;
        if (strncmp(k, "AlarmNames.member.", 18) == 0 && flt->n_names < CWALARM_NAMES_MAX) {
            flt->names[flt->n_names++] = v;
        } else if (strcmp(k, "AlarmNamePrefix") == 0) {
            flt->prefix = v;
        } else if (strcmp(k, "StateValue") == 0) {
            flt->state = v;
        } else if (strcmp(k, "ActionPrefix") == 0) {
            flt->action = v;
        } else if (strcmp(k, "MaxRecords") == 0) {
            flt->max = strtol(v, &end, 10);
            if (!*v || *end || flt->max < 1) flt->max = -1;
        } else if (strcmp(k, "NextToken") == 0) {
            flt->from = strtol(v, &end, 10);
            if (!*v || *end || flt->from < 0) flt->from = -1;
        } else if (strncmp(k, "AlarmTypes.member.", 18) == 0) {
            if (!flt->metric_alarms_only) flt->no_metric_alarms = true;
            if (strcmp(v, "MetricAlarm") == 0) {
                flt->metric_alarms_only = true;
                flt->no_metric_alarms = false;
            }
        }
    }
}

static int cwaquery_list(struct buf *b, const char *tag, const struct cwalarm_list *l) {
    int rc = buf_addf(b, "<%s>", tag);
    for (size_t i = 0; !rc && i < l->n; i++) rc = cwquery_elem(b, "member", l->arn[i]);
    return rc ? rc : buf_addf(b, "</%s>", tag);
}

static int cwaquery_dim(struct buf *b, const char *name, const char *value) {
    if (!*value) return 0;
    int rc = buf_addf(b, "<member><Name>%s</Name>", name);
    if (!rc) rc = cwquery_elem(b, "Value", value);
    return rc ? rc : buf_adds(b, "</member>");
}

static int cwaquery_alarm(struct buf *b, const struct cwalarm_alarm *a) {
    const struct cwalarm_spec *s = &a->s;
    char updated[CWDOC_TIME_LEN], changed[CWDOC_TIME_LEN];
    cwdoc_time_format(a->updated, true, updated);
    cwdoc_time_format(a->state_at, true, changed);
    int rc = buf_adds(b, "<member>");
    if (!rc) rc = cwquery_elem(b, "AlarmName", s->name);
    if (!rc) rc = cwquery_elem(b, "AlarmArn", a->arn);
    if (!rc && *s->description) rc = cwquery_elem(b, "AlarmDescription", s->description);
    if (!rc) rc = cwquery_elem(b, "AlarmConfigurationUpdatedTimestamp", updated);
    if (!rc) rc = cwquery_elem(b, "ActionsEnabled", s->actions_enabled ? "true" : "false");
    if (!rc) rc = cwaquery_list(b, "OKActions", &s->ok_actions);
    if (!rc) rc = cwaquery_list(b, "AlarmActions", &s->alarm_actions);
    if (!rc) rc = cwaquery_list(b, "InsufficientDataActions", &s->insufficient_actions);
    if (!rc) rc = cwquery_elem(b, "StateValue", cwalarm_state_name(a->state));
    if (!rc) rc = cwquery_elem(b, "StateReason", a->reason);
    if (!rc) rc = cwquery_elem(b, "StateUpdatedTimestamp", changed);
    if (!rc) rc = cwquery_elem(b, "MetricName", s->q.name);
    if (!rc) rc = cwquery_elem(b, "Namespace", s->q.ns);
    if (!rc) rc = cwquery_elem(b, "Statistic", s->q.stat);
    if (!rc) rc = buf_adds(b, "<Dimensions>");
    if (!rc) rc = cwaquery_dim(b, "EndpointName", s->q.endpoint);
    if (!rc) rc = cwaquery_dim(b, "VariantName", s->q.variant);
    if (!rc) rc = cwaquery_dim(b, "InferenceComponentName", s->q.component);
    if (!rc)
        rc = buf_addf(b,
                      "</Dimensions><Period>%ld</Period><EvaluationPeriods>%ld</EvaluationPeriods>"
                      "<DatapointsToAlarm>%ld</DatapointsToAlarm><Threshold>%.17g</Threshold>"
                      "<ComparisonOperator>%s</ComparisonOperator>"
                      "<TreatMissingData>%s</TreatMissingData></member>",
                      s->q.period, s->eval_periods, s->to_alarm ? s->to_alarm : s->eval_periods,
                      s->threshold, cwalarm_cmp_name(s->cmp), cwalarm_missing_name(s->missing));
    return rc;
}

static int cwaquery_describe(struct cwalarm *al, const struct cwquery_form *f, const char *region,
                             const char *id, struct cplane_reply *r) {
    struct cwalarm_filter flt;
    struct cwalarm_refusal why;
    cwaquery_filter(&flt, f);
    if (!cwalarm_filter_ok(&flt, &why)) return cwquery_error(r, why.code, why.message, id);
    long max = flt.max ? flt.max : 50, seen = 0, given = 0;
    bool more = false;
    int rc = buf_adds(&r->body, "<DescribeAlarmsResponse xmlns=\"" CWAQUERY_NS
                                "\"><DescribeAlarmsResult><MetricAlarms>");
    for (size_t i = 0; !rc && i < al->n; i++) {
        if (!cwalarm_picked(&al->a[i], &flt, region) || seen++ < flt.from) continue;
        if (given == max) {
            more = true;
            break;
        }
        given++;
        rc = cwaquery_alarm(&r->body, &al->a[i]);
    }
    if (!rc) rc = buf_adds(&r->body, "</MetricAlarms><CompositeAlarms/>");
    if (!rc && more) rc = buf_addf(&r->body, "<NextToken>%ld</NextToken>", flt.from + given);
    if (!rc) rc = buf_adds(&r->body, "</DescribeAlarmsResult><ResponseMetadata>");
    if (!rc) rc = cwquery_elem(&r->body, "RequestId", id);
    return rc ? rc : buf_adds(&r->body, "</ResponseMetadata></DescribeAlarmsResponse>");
}

/* The reply of an operation without output: <OpResponse> with its RequestId. */
static int cwaquery_done(struct buf *b, const char *op, const char *id) {
    int rc = buf_addf(b, "<%sResponse xmlns=\"" CWAQUERY_NS "\"><ResponseMetadata>", op);
    if (!rc) rc = cwquery_elem(b, "RequestId", id);
    return rc ? rc : buf_addf(b, "</ResponseMetadata></%sResponse>", op);
}

int cwaquery_call(struct cwalarm *al, const char *op, const char *body, size_t len,
                  const char *region, double now, struct cplane_reply *r) {
    struct cwquery_form f = {0};
    struct cwalarm_refusal why;
    char id[40];
    snprintf(id, sizeof id, "%08lx-0000-4000-8000-%012llx", (unsigned long)len,
             (unsigned long long)(now * 1e6) & 0xffffffffffffULL);
    r->status = 200;
    r->type = NULL;
    buf_reset(&r->body);
    int rc = cwquery_form(body, len, &f);
    if (rc) {
        rc = -1;
    } else if (strcmp(op, "PutMetricAlarm") == 0) {
        struct cwalarm_spec *s = malloc(sizeof *s);
        if (s) cwalarm_spec_init(s);
        rc = s ? cwaquery_read(body, len, s) : -1;
        if (!rc) rc = cwalarm_put(al, s, region, now, &why);
        if (rc == 1)
            rc = cwquery_error(r, why.code, why.message, id);
        else if (rc == 0)
            rc = cwaquery_done(&r->body, op, id);
        free(s);
    } else if (strcmp(op, "DescribeAlarms") == 0) {
        rc = cwaquery_describe(al, &f, region, id, r);
    } else if (strcmp(op, "DeleteAlarms") == 0) {
        struct cwalarm_filter flt;
        cwaquery_filter(&flt, &f);
        if (!flt.n_names)
            rc = cwquery_error(r, "MissingParameter", "The parameter AlarmNames is required.", id);
        else if (cwalarm_delete(al, flt.names, flt.n_names, region, &why) == 0)
            rc = cwaquery_done(&r->body, op, id);
        else if (!(rc = cwquery_error(r, why.code, why.message, id)))
            r->status = 404;
    } else {
        rc = cwquery_error(r, "InvalidAction", "The action is not valid for this web service.", id);
    }
    cwquery_form_free(&f);
    if (rc == 0) return CPLANE_OK;
    (void)!cwquery_error(r, "InternalFailure", "out of memory", id);
    r->status = 500;
    return CPLANE_ERR_NOMEM;
}
