#include "cwmetrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "smname.h"

#define CWMETRICS_MAX_PAGES  1000
#define CWMETRICS_PERIOD_MAX 86400

static int cwmetrics_check(const struct cwmetrics_query *q, struct buf *err) {
    const char *e = q->endpoint ? q->endpoint : "", *v = q->variant ? q->variant : "AllTraffic";
    if (!smname_endpoint_ok(e, strlen(e)))
        return buf_fail(err, AWSJ_ERR_INPUT, "'%s' is not an endpoint name", e);
    if (!smname_endpoint_ok(v, strlen(v)))
        return buf_fail(err, AWSJ_ERR_INPUT, "'%s' is not a variant name", v);
    if (q->period < 0 || q->period > CWMETRICS_PERIOD_MAX)
        return buf_fail(err, AWSJ_ERR_INPUT, "a period of %d s is not 1 to %d", q->period,
                        CWMETRICS_PERIOD_MAX);
    return AWSJ_OK;
}

/* One query of the list: its Id, metric, dimensions, period and statistic. */
static int cwmetrics_one(struct buf *out, const struct cwdoc_metric *m,
                         const struct cwmetrics_query *q) {
    int rc = buf_addf(out,
                      "{\"Id\":\"%s\",\"MetricStat\":{\"Metric\":{\"Namespace\":\"%s\","
                      "\"MetricName\":\"%s\",\"Dimensions\":[{\"Name\":\"EndpointName\","
                      "\"Value\":",
                      m->id, m->ns, m->name);
    if (!rc) rc = jsonw_cstr(out, q->endpoint);
    if (!rc) rc = buf_adds(out, "},{\"Name\":\"VariantName\",\"Value\":");
    if (!rc) rc = jsonw_cstr(out, q->variant ? q->variant : "AllTraffic");
    if (!rc)
        rc = buf_addf(out, "}]},\"Period\":%d,\"Stat\":\"%s\"},\"ReturnData\":true}",
                      q->period ? q->period : CWMETRICS_PERIOD, m->stat);
    return rc;
}

static int cwmetrics_list(const struct cwmetrics_query *q, struct buf *out) {
    int rc = buf_addc(out, '[');
    for (int i = 0; !rc && i < CWDOC_N_METRICS; i++) {
        if (i) rc = buf_addc(out, ',');
        if (!rc) rc = cwmetrics_one(out, &cwdoc_metrics_asked[i], q);
    }
    return rc ? rc : buf_addc(out, ']');
}

int cwmetrics_queries(const struct cwmetrics_query *q, struct buf *out, struct buf *err) {
    buf_reset(out);
    int rc = cwmetrics_check(q, err);
    if (rc) return rc;
    return cwmetrics_list(q, out) ? buf_fail(err, AWSJ_ERR_NOMEM, "out of memory") : AWSJ_OK;
}

int cwmetrics_request(const struct cwmetrics_query *q, struct buf *out, struct buf *err) {
    buf_reset(out);
    int rc = cwmetrics_check(q, err);
    if (rc) return rc;
    if (!(q->start >= 0 && q->end > q->start && q->end < 1e11))
        return buf_fail(err, AWSJ_ERR_INPUT, "the metrics window %.3f to %.3f is not a window",
                        q->start, q->end);
    rc = buf_adds(out, "{\"MetricDataQueries\":");
    if (!rc) rc = cwmetrics_list(q, out);
    if (!rc)
        rc =
            buf_addf(out, ",\"StartTime\":%.3f,\"EndTime\":%.3f,\"ScanBy\":\"TimestampAscending\"}",
                     q->start, q->end);
    return rc ? buf_fail(err, AWSJ_ERR_NOMEM, "out of memory") : AWSJ_OK;
}

/* ---- merging the pages ---- */

struct cwmetrics_point {
    double t, v;
    size_t at; /* the order it came in: of two at one time, the later wins */
};

/* Every query's points so far, and its label and status. */
struct cwmetrics_merge {
    struct cwmetrics_point *p[CWDOC_N_METRICS];
    size_t n[CWDOC_N_METRICS], cap[CWDOC_N_METRICS];
    char label[CWDOC_N_METRICS][CWDOC_NAME_MAX + 1];
    char status[CWDOC_N_METRICS][32];
};

static int cwmetrics_series(void *ud, const struct cwdoc_series *s) {
    struct cwmetrics_merge *m = ud;
    int k = cwdoc_metric_find(s->id);
    if (k < 0) return 0; /* not a query of ours */
    snprintf(m->label[k], sizeof m->label[k], "%s", s->label);
    if (*s->status) /* the last page's says how it ended */
        snprintf(m->status[k], sizeof m->status[k], "%s", s->status);
    for (size_t i = 0; i < s->n; i++) {
        if (m->n[k] == m->cap[k]) {
            size_t cap = m->cap[k] ? 2 * m->cap[k] : 64;
            struct cwmetrics_point *p = realloc(m->p[k], cap * sizeof *p);
            if (!p) return AWSJ_ERR_NOMEM;
            m->p[k] = p;
            m->cap[k] = cap;
        }
        m->p[k][m->n[k]] = (struct cwmetrics_point){s->t[i], s->v[i], m->n[k]};
        m->n[k]++;
    }
    return 0;
}

static int cwmetrics_page(void *ud, const char *page, size_t len, struct buf *err) {
    struct buf why;
    buf_init(&why, 1024);
    int rc = cwdoc_metrics(page, len, cwmetrics_series, ud, &why);
    if (rc == CWDOC_ERR_FORMAT)
        rc = buf_fail(err, AWSJ_ERR_REPLY,
                      "cloudwatch GetMetricData: the reply is not GetMetricData's: %s",
                      buf_str(&why));
    else if (rc)
        rc = buf_fail(err, AWSJ_ERR_NOMEM, "out of memory");
    buf_free(&why);
    return rc;
}

static int cwmetrics_cmp(const void *a, const void *b) {
    const struct cwmetrics_point *x = a, *y = b;
    if (x->t != y->t) return (x->t > y->t) - (x->t < y->t);
    return (x->at > y->at) - (x->at < y->at);
}

/* Sorts query k's points by time; a time that came twice keeps its last value. */
static size_t cwmetrics_sort(struct cwmetrics_merge *m, int k) {
    struct cwmetrics_point *p = m->p[k];
    size_t n = m->n[k], out = 0;
    if (n > 1) qsort(p, n, sizeof *p, cwmetrics_cmp);
    for (size_t i = 0; i < n; i++) {
        if (out && p[out - 1].t == p[i].t)
            p[out - 1] = p[i];
        else
            p[out++] = p[i];
    }
    return m->n[k] = out;
}

static int cwmetrics_write(struct cwmetrics_merge *m, struct buf *doc, size_t *points) {
    int rc = buf_adds(doc, "{\"MetricDataResults\":[");
    for (int k = 0; !rc && k < CWDOC_N_METRICS; k++) {
        size_t n = cwmetrics_sort(m, k);
        double *t = malloc((n ? n : 1) * sizeof *t), *v = malloc((n ? n : 1) * sizeof *v);
        if (!t || !v) rc = BUF_ERR_NOMEM;
        for (size_t i = 0; !rc && i < n; i++) {
            t[i] = m->p[k][i].t;
            v[i] = m->p[k][i].v;
        }
        struct cwdoc_series s = {cwdoc_metrics_asked[k].id, m->label[k], m->status[k], t, v, n};
        if (!rc && k) rc = buf_addc(doc, ',');
        if (!rc) rc = cwdoc_series_json(doc, &s, true);
        *points += n;
        free(t);
        free(v);
    }
    return rc ? rc : buf_adds(doc, "],\"Messages\":[]}\n");
}

int cwmetrics_fetch_doc(struct awsj_client *c, const struct cwmetrics_query *q, struct buf *doc,
                        size_t *points, struct buf *err) {
    struct buf req;
    struct cwmetrics_merge *m = calloc(1, sizeof *m);
    buf_reset(doc);
    *points = 0;
    if (!m) return buf_fail(err, AWSJ_ERR_NOMEM, "out of memory");
    buf_init(&req, BUF_NO_CAP);
    int rc = cwmetrics_request(q, &req, err);
    for (int k = 0; k < CWDOC_N_METRICS; k++)
        snprintf(m->label[k], sizeof m->label[k], "%s", cwdoc_metrics_asked[k].name);
    if (!rc)
        rc = awsj_paginate(c, AWSJ_CLOUDWATCH, "GetMetricData", buf_str(&req), "NextToken",
                           CWMETRICS_MAX_PAGES, cwmetrics_page, m, err);
    if (!rc && cwmetrics_write(m, doc, points)) rc = buf_fail(err, AWSJ_ERR_NOMEM, "out of memory");
    if (rc) {
        buf_reset(doc);
        *points = 0;
    }
    for (int k = 0; k < CWDOC_N_METRICS; k++) free(m->p[k]);
    free(m);
    buf_free(&req);
    return rc;
}
