#include "suite_cw.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "awsj.h"
#include "cwlogs.h"
#include "cwmetrics.h"
#include "suite_exec.h"
#include "suite_files.h"

#define SUITE_CW_MAX_EVENTS 200000 /* events of one file, at most */

/* Whether url's host is AWS's (*.amazonaws.com or .com.cn): a runtime URL of AWS
 * given as --url says nothing of where CloudWatch is. */
static bool suite_cw_aws_host(const char *url) {
    const char *host = strstr(url, "://");
    host = host ? host + 3 : url;
    size_t n = strcspn(host, ":/");
    static const char *const tails[] = {".amazonaws.com", ".amazonaws.com.cn"};
    for (size_t i = 0; i < 2; i++) {
        size_t t = strlen(tails[i]);
        if (n > t && strncasecmp(host + n - t, tails[i], t) == 0) return true;
    }
    return false;
}

const char *suite_cw_url(const struct suite_opts *o) {
    if (o->endpoint_url) return o->endpoint_url;
    return o->url && !suite_cw_aws_host(o->url) ? o->url : NULL;
}

char *suite_cw_path(const char *side_dir, const char *id, const char *kind) {
    char *path;
    return asprintf(&path, "%s/" SUITE_CW_DIR "/%s%s%s.json", side_dir, id, kind ? "." : "",
                    kind ? kind : "") < 0
               ? NULL
               : path;
}

/* The state of one fetch. */
struct suite_cw_run {
    const struct suite_cw_job *j;
    struct awsj_client *c;
    bool logs_off, metrics_off; /* a permission is missing: no more calls of that kind */
    int warnings;
    struct buf doc, err;
};

__attribute__((format(printf, 2, 3))) static void suite_cw_say(struct suite_cw_run *r,
                                                               const char *fmt, ...) {
    char line[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (strncmp(line, "warning: ", 9) == 0) r->warnings++;
    r->j->say(r->j->ud, line);
}

/* After a failed call: a warning; a missing permission also turns that kind off. */
static void suite_cw_failed(struct suite_cw_run *r, int k, const char *what, bool logs, int rc) {
    const char *code = awsj_last(r->c)->code;
    const char *label = r->j->o->side[k].label;
    bool denied = rc == AWSJ_ERR_SERVICE &&
                  (strcmp(code, "AccessDeniedException") == 0 || strcmp(code, "AccessDenied") == 0);
    if (denied) {
        suite_cw_say(r,
                     "warning: CloudWatch: no permission for %s (%s): the report has no %s; "
                     "README, \"Credentials, region, permission\", lists the actions",
                     logs ? "logs:FilterLogEvents" : "cloudwatch:GetMetricData", code,
                     logs ? "container facts or server log rows from CloudWatch"
                          : "CloudWatch cross-check");
        *(logs ? &r->logs_off : &r->metrics_off) = true;
    } else if (logs && strcmp(code, "ResourceNotFoundException") == 0) {
        suite_cw_say(r,
                     "warning: CloudWatch: %s: no log group /aws/sagemaker/Endpoints/%s yet (the "
                     "container has logged nothing)",
                     label, r->j->o->side[k].name);
    } else {
        suite_cw_say(r, "warning: CloudWatch: %s %s: %s", label, what, buf_str(&r->err));
    }
}

/* Writes r->doc to the side's file; a warning when it cannot. */
static void suite_cw_write(struct suite_cw_run *r, int k, const char *id, const char *kind) {
    char *path = suite_cw_path(r->j->p->side_dir[k], id, kind);
    if (!path || suite_files_write_atomic(path, buf_str(&r->doc), r->doc.len, &r->err) < 0)
        suite_cw_say(r, "warning: CloudWatch: %s", path ? buf_str(&r->err) : "out of memory");
    free(path);
}

/* The step's window from its result file; false when it has none. */
static bool suite_cw_window(struct suite_cw_run *r, int k, const struct suite_plan_step *s,
                            double *t0, double *t1) {
    char *path = suite_plan_result(r->j->p, s, k);
    struct suite_files_result res;
    bool ok = path && suite_files_result_read(path, &res, NULL) == SUITE_FILES_OK &&
              res.started > 0 && res.ended >= res.started;
    free(path);
    if (ok) {
        *t0 = res.started;
        *t1 = res.ended;
    }
    return ok;
}

/* The side's variant: its own, else the endpoint's first (DescribeEndpoint), else AllTraffic. */
static void suite_cw_variant(struct suite_cw_run *r, int k, char out[SUITE_OPTS_NAME_MAX]) {
    const struct suite_opts_side *s = &r->j->o->side[k];
    struct buf req, reply;
    snprintf(out, SUITE_OPTS_NAME_MAX, "%s", *s->variant ? s->variant : "AllTraffic");
    if (*s->variant) return;
    buf_init(&req, 1024);
    buf_init(&reply, 1 << 20);
    cJSON *d = NULL;
    if (buf_addf(&req, "{\"EndpointName\":\"%s\"}", s->name) == 0 &&
        awsj_call(r->c, AWSJ_SAGEMAKER, "DescribeEndpoint", buf_str(&req), &reply, &r->err) == 0)
        d = cJSON_ParseWithLength(reply.data, reply.len);
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(d, "ProductionVariants");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pv, 0), "VariantName");
    if (cJSON_IsString(name) && strlen(name->valuestring) < SUITE_OPTS_NAME_MAX)
        snprintf(out, SUITE_OPTS_NAME_MAX, "%s", name->valuestring);
    else
        suite_cw_say(r,
                     "note: CloudWatch: %s: its variant is not known (DescribeEndpoint: %s); "
                     "asking for AllTraffic's metrics",
                     s->label, r->err.len ? buf_str(&r->err) : "no ProductionVariants");
    if (cJSON_GetArraySize(pv) > 1)
        suite_cw_say(r,
                     "note: CloudWatch: %s has %d variants and the run targeted none: the "
                     "metrics are %s's only",
                     s->name, cJSON_GetArraySize(pv), out);
    cJSON_Delete(d);
    buf_free(&req);
    buf_free(&reply);
}

/* One log document: the events of [t0, t1] (pattern: those only) into DIR/cloudwatch/ID.logs.json.
 */
static size_t suite_cw_logs(struct suite_cw_run *r, int k, const char *id, double t0, double t1,
                            const char *pattern, const char *prefix) {
    const struct suite_opts_side *s = &r->j->o->side[k];
    struct cwlogs_query q = {
        s->name, prefix, (long long)floor(t0 * 1000), (long long)ceil(t1 * 1000), pattern, 0};
    size_t n = 0;
    bool cut = false;
    if (r->logs_off) return 0;
    int rc = cwlogs_fetch_doc(r->c, &q, SUITE_CW_MAX_EVENTS, &r->doc, &n, &cut, &r->err);
    if (rc) {
        suite_cw_failed(r, k, id, true, rc);
        if (rc == AWSJ_ERR_SERVICE) r->logs_off = true; /* the same would come again */
        return 0;
    }
    if (cut)
        suite_cw_say(r, "note: CloudWatch: %s %s: the first %d log events only", s->label, id,
                     SUITE_CW_MAX_EVENTS);
    suite_cw_write(r, k, id, "logs");
    return n;
}

static size_t suite_cw_metrics(struct suite_cw_run *r, int k, const char *id, const char *variant,
                               double t0, double t1) {
    struct cwmetrics_query q = {r->j->o->side[k].name, variant, t0, t1 > t0 ? t1 : t0 + 1, 0};
    size_t n = 0;
    if (r->metrics_off) return 0;
    int rc = cwmetrics_fetch_doc(r->c, &q, &r->doc, &n, &r->err);
    if (rc) {
        suite_cw_failed(r, k, id, false, rc);
        if (rc == AWSJ_ERR_SERVICE) r->metrics_off = true;
        return 0;
    }
    suite_cw_write(r, k, id, "metrics");
    return n;
}

/* Every step of side k, then its start-up lines and the queries file. */
static void suite_cw_side(struct suite_cw_run *r, int k) {
    const struct suite_plan *p = r->j->p;
    const struct suite_opts_side *s = &r->j->o->side[k];
    char variant[SUITE_OPTS_NAME_MAX], prefix[SUITE_OPTS_NAME_MAX + 2], *dir = NULL;
    double first = 0, last = 0;
    size_t events = 0, points = 0, steps = 0;
    if (asprintf(&dir, "%s/" SUITE_CW_DIR, p->side_dir[k]) < 0 ||
        suite_files_mkdirs(dir, &r->err) < 0) {
        suite_cw_say(r, "warning: CloudWatch: %s", dir ? buf_str(&r->err) : "out of memory");
        free(dir);
        return;
    }
    suite_cw_variant(r, k, variant);
    snprintf(prefix, sizeof prefix, "%s/", s->variant);
    for (size_t i = 0; i < p->n && !suite_exec_stopping(); i++) {
        double t0, t1;
        if (!suite_plan_measures(&p->steps[i], k) || !suite_cw_window(r, k, &p->steps[i], &t0, &t1))
            continue;
        if (!first || t0 < first) first = t0;
        if (t1 > last) last = t1;
        events += suite_cw_logs(r, k, p->steps[i].id, t0, t1, NULL, *s->variant ? prefix : NULL);
        points += suite_cw_metrics(r, k, p->steps[i].id, variant, t0, t1);
        steps++;
    }
    if (steps && !suite_exec_stopping())
        events += suite_cw_logs(r, k, "startup", last - SUITE_CW_STARTUP_DAYS * 86400.0, last,
                                CWLOGS_FACTS_PATTERN, *s->variant ? prefix : NULL);
    struct cwmetrics_query q = {s->name, variant, 0, 0, 0};
    if (steps && cwmetrics_queries(&q, &r->doc, &r->err) == 0 && buf_addc(&r->doc, '\n') == 0)
        suite_cw_write(r, k, "queries", NULL);
    if (steps)
        suite_cw_say(r,
                     "CloudWatch: %s (%s, variant %s): %zu log events, %zu metric data points "
                     "in %s/",
                     s->label, s->name, variant, events, points, dir);
    if (steps && *s->component)
        suite_cw_say(r,
                     "note: CloudWatch: %s targets inference component %s: the metrics and logs "
                     "are its variant's, every component's on it together",
                     s->label, s->component);
    free(dir);
}

/* Waits until settle seconds after the last step ended (Ctrl-C ends the wait). */
static void suite_cw_settle(struct suite_cw_run *r, double settle) {
    double last = 0;
    struct timespec now;
    if (settle <= 0) return;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < r->j->p->n; i++) {
            double t0, t1;
            if (suite_plan_measures(&r->j->p->steps[i], k) &&
                suite_cw_window(r, k, &r->j->p->steps[i], &t0, &t1))
                last = fmax(last, t1);
        }
    clock_gettime(CLOCK_REALTIME, &now);
    double wait = last + settle - ((double)now.tv_sec + (double)now.tv_nsec / 1e9);
    if (wait <= 0) return;
    suite_cw_say(r,
                 "CloudWatch publishes a minute's metrics a minute or two after it: waiting "
                 "%.0f s before fetching them (Ctrl-C skips; --no-cloudwatch does not wait)",
                 wait);
    for (long s = (long)ceil(wait); s > 0 && !suite_exec_stopping(); s--) {
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
    }
}

int suite_cw_fetch(const struct suite_cw_job *j) {
    struct suite_cw_run r = {.j = j};
    const char *url = suite_cw_url(j->o);
    struct awsj_config cfg = {.region = j->o->region,
                              .endpoint_url = url,
                              .allow_plain_http = j->o->allow_plain_http,
                              .ca_bundle = j->o->cacert};
    buf_init(&r.doc, BUF_NO_CAP);
    buf_init(&r.err, 4096);
    if (awsj_client_new(&cfg, &r.c, &r.err)) {
        suite_cw_say(&r, "warning: CloudWatch: %s", buf_str(&r.err));
    } else {
        suite_cw_settle(&r, j->settle_s >= 0 ? j->settle_s : url ? 0 : SUITE_CW_SETTLE_S);
        for (int k = 0; k < 2 && !suite_exec_stopping(); k++) suite_cw_side(&r, k);
    }
    awsj_client_free(r.c);
    buf_free(&r.doc);
    buf_free(&r.err);
    return r.warnings;
}
