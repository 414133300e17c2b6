#include "awsapi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cwaquery.h"
#include "cwquery.h"
#include "ecrsrv.h"
#include "iamsrv.h"
#include "jsonw.h"
#include "splitmix.h"
#include "smerr.h"
#include "squota.h"
#include "stssrv.h"

#define AWSAPI_ID_LEN 40
#define AWSAPI_OP_MAX 64

/* A handler: answers op of its service for region into r. */
typedef int awsapi_handler_fn(struct awsapi *a, const char *op, const char *body, size_t len,
                              const char *region, struct cplane_reply *r);

struct awsapi_service {
    const char *target_prefix; /* X-Amz-Target's prefix; NULL: the query protocol */
    const char *signing_name;  /* the credential scope's service */
    const char *content_type;  /* of replies */
    awsapi_handler_fn *call;
    const char *region; /* a global service's signing region; NULL: the control plane's */
};

static int awsapi_sagemaker(struct awsapi *a, const char *op, const char *body, size_t len,
                            const char *region, struct cplane_reply *r) {
    return cplane_call(&a->cp, op, body, len, region, cphost_now(&a->host), r);
}

static int awsapi_quotas(struct awsapi *a, const char *op, const char *body, size_t len,
                         const char *region, struct cplane_reply *r) {
    cplane_advance(&a->cp, cphost_now(&a->host)); /* usage as of now */
    return squota_call(&a->cp, op, body, len, region, r);
}

/* CloudWatch Logs and metrics (cwlog.h, cwmetric.h, cwquery.h) of the runtime's containers. */
static int awsapi_logs(struct awsapi *a, const char *op, const char *body, size_t len,
                       const char *region, struct cplane_reply *r) {
    return cwlog_call(a->main->cwlogs, op, body, len, region, r);
}

/* An action of an alarm in ALARM: a step scaling policy's ARN runs it (scaler_step). */
static void awsapi_alarm_fire(void *ud, const struct cwalarm_alarm *al, const char *arn) {
    struct awsapi *a = ud;
    if (strstr(arn, ":scalingPolicy:") && !isnan(al->value))
        (void)scaler_step(&a->scaler, arn, al->s.name, al->value - al->s.threshold);
}

/* Evaluates the alarms due and arms the timer for the next evaluation. */
static void awsapi_alarm_tick(struct awsapi *a) {
    double now = reqlog_now(), next;
    if (cwalarm_run(&a->alarms, a->main->cwmetrics, now, awsapi_alarm_fire, a, &next)) {
        fprintf(stderr, "sm-emulator: cannot evaluate the alarms: out of memory\n");
        next = now + 1;
    }
    if (isinf(next)) {
        evtimer_del(a->alarm_timer);
        return;
    }
    double delay = next > now ? next - now : 0;
    struct timeval tv = {(time_t)delay, (suseconds_t)((delay - (double)(time_t)delay) * 1e6)};
    evtimer_add(a->alarm_timer, &tv);
}

static void awsapi_alarm_cb(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    awsapi_alarm_tick(arg);
}

static int awsapi_metrics(struct awsapi *a, const char *op, const char *body, size_t len,
                          const char *region, struct cplane_reply *r) {
    if (!cwalarm_op(op))
        return cwmetric_call(a->main->cwmetrics, op, body, len, region, reqlog_now(), r);
    int rc = cwalarm_call(&a->alarms, op, body, len, region, reqlog_now(), r);
    awsapi_alarm_tick(a); /* a new alarm is evaluated at once */
    return rc;
}

static int awsapi_metrics_query(struct awsapi *a, const char *op, const char *body, size_t len,
                                const char *region, struct cplane_reply *r) {
    if (!cwalarm_op(op))
        return cwquery_call(a->main->cwmetrics, op, body, len, region, reqlog_now(), r);
    int rc = cwaquery_call(&a->alarms, op, body, len, region, reqlog_now(), r);
    awsapi_alarm_tick(a);
    return rc;
}

/* The alarms of region's target tracking policies (aascale_tracking_alarms),
 * as DescribeAlarms lists them: created with their policy, gone with it. */
static void awsapi_tracking_alarms(struct awsapi *a, const char *region) {
    struct cwalarm_spec *specs = calloc((size_t)2 * AASCALE_MAX_POLICIES, sizeof *specs);
    struct cwalarm_refusal why = {"", ""};
    size_t n = 0;
    for (size_t i = 0; specs && i < a->scale.n_policies; i++) {
        const struct aascale_policy *p = &a->scale.policies[i];
        if (strcmp(p->region, region) == 0 && aascale_tracking_alarms(p, &specs[n])) n += 2;
    }
    int rc = specs ? cwalarm_sync(&a->alarms, specs, n, region, reqlog_now(), &why) : -1;
    if (rc)
        fprintf(stderr, "sm-emulator: cannot keep target tracking's alarms: %s\n",
                rc == 1 ? why.message : "out of memory");
    free(specs);
}

/* Application Auto Scaling (aascale.h): its targets are the control plane's variants. */
static int awsapi_scaling(struct awsapi *a, const char *op, const char *body, size_t len,
                          const char *region, struct cplane_reply *r) {
    cplane_advance(&a->cp, cphost_now(&a->host)); /* the endpoints as of now */
    int rc = aascale_call(&a->scale, &a->cp, op, body, len, region, reqlog_now(), r);
    scaler_tick(&a->scaler); /* its targets and policies as they are now */
    awsapi_tracking_alarms(a, region);
    awsapi_alarm_tick(a); /* a new alarm is evaluated at once */
    return rc;
}

/* The fleet endpoint serving name: a hosted endpoint's, or the command line's. */
static struct fleet_endpoint *awsapi_scaled(void *ud, const char *name) {
    struct awsapi *a = ud;
    struct invoke *inv = cphost_find(&a->host, name, strlen(name));
    return fleet_find(inv ? inv->fleet : a->main->fleet, name, strlen(name));
}

/* STS, IAM and ECR: what a deploy script asks before SageMaker (stssrv.h, iamsrv.h,
 * ecrsrv.h), in the emulator's account. */
static int awsapi_sts(struct awsapi *a, const char *op, const char *body, size_t len,
                      const char *region, struct cplane_reply *r) {
    (void)region;
    return stssrv_call(op, body, len, a->main->account, splitmix_next(&a->rng), r);
}

static int awsapi_iam(struct awsapi *a, const char *op, const char *body, size_t len,
                      const char *region, struct cplane_reply *r) {
    (void)region;
    return iamsrv_call(op, body, len, a->main->account, splitmix_next(&a->rng), r);
}

static int awsapi_ecr(struct awsapi *a, const char *op, const char *body, size_t len,
                      const char *region, struct cplane_reply *r) {
    (void)region;
    return ecrsrv_call(op, body, len, a->main->account, r);
}

/* The services served, by X-Amz-Target prefix (see awsapi.h to add one). */
static const struct awsapi_service awsapi_services[] = {
    {"SageMaker", "sagemaker", "application/x-amz-json-1.1", awsapi_sagemaker, NULL},
    {"ServiceQuotasV20190624", "servicequotas", "application/x-amz-json-1.1", awsapi_quotas, NULL},
    {"Logs_20140328", "logs", "application/x-amz-json-1.1", awsapi_logs, NULL},
    {"GraniteServiceVersion20100801", "monitoring", "application/x-amz-json-1.0", awsapi_metrics,
     NULL},
    {NULL, "monitoring", "text/xml", awsapi_metrics_query, NULL},
    {NULL, "sts", "text/xml", awsapi_sts, NULL},
    {NULL, "iam", "text/xml", awsapi_iam, IAMSRV_REGION},
    {"AmazonEC2ContainerRegistry_V20150921", "ecr", "application/x-amz-json-1.1", awsapi_ecr, NULL},
    {"AnyScaleFrontendService", "application-autoscaling", "application/x-amz-json-1.1",
     awsapi_scaling, NULL},
};

#define AWSAPI_N_SERVICES (sizeof awsapi_services / sizeof awsapi_services[0])

/* ---- set-up ---- */

/* The control plane's options: the profile file's, then the command line's. */
static int awsapi_conf(struct awsapi *a, const struct options *o, const struct model_library *lib,
                       struct buf *err) {
    cpconf_init(&a->conf, o->region);
    if (o->profile_file && cpconf_load(&a->conf, o->profile_file, err)) return AWSAPI_ERR_INVALID;
    for (size_t i = 0; i < o->n_cp; i++) {
        char flag[64];
        snprintf(flag, sizeof flag, "--%s", o->cp[i].flag);
        if (cpconf_option(&a->conf, flag, o->cp[i].value, err)) return AWSAPI_ERR_INVALID;
    }
    for (size_t i = 0; i < a->conf.n_models; i++) {
        struct model_profile p;
        int rc = model_find(lib, a->conf.models[i].profile, &p);
        if (rc == MODEL_ERR_NOMEM) return buf_fail(err, AWSAPI_ERR_NOMEM, "out of memory");
        if (rc)
            return buf_fail(err, AWSAPI_ERR_INVALID, "--model %s=%s: unknown profile '%s' (%s%s)",
                            a->conf.models[i].model_id, a->conf.models[i].profile,
                            a->conf.models[i].profile, model_builtin_names(),
                            lib && lib->n ? " or one of --profile-file" : "");
        model_free(&p);
    }
    return AWSAPI_OK;
}

/* The command line's endpoints, InService from the start. */
static int awsapi_statics(struct awsapi *a, struct buf *err) {
    const struct fleet *f = a->main->fleet;
    struct cplane_now now = cphost_now(&a->host);
    for (size_t e = 0; e < f->n_eps; e++) {
        struct cplane_static_variant v[CPREQ_MAX_VARIANTS];
        size_t n = 0;
        for (size_t i = 0; i < f->eps[e].n_variants && n < CPREQ_MAX_VARIANTS; i++) {
            const struct fleet_variant *fv = &f->eps[e].variants[i];
            if (fv->instance) continue; /* one variant, its instances counted */
            v[n++] = (struct cplane_static_variant){
                fv->name,
                fv->profile.model_id,
                fv->profile.name,
                fv->profile.weight,
                (long)fv->instances,
                fv->routing == FLEET_ROUTE_LEAST_BUSY ? "LEAST_OUTSTANDING_REQUESTS" : NULL};
        }
        if (cplane_add_static(&a->cp, a->conf.regions[0], f->eps[e].name, v, n, now))
            return buf_fail(err, AWSAPI_ERR_NOMEM, "out of memory");
    }
    return AWSAPI_OK;
}

int awsapi_init(struct awsapi *a, struct invoke *main, const struct options *o,
                const struct model_library *lib, struct buf *err) {
    memset(a, 0, sizeof *a);
    s3srv_init(&a->s3);
    aascale_init(&a->scale, main->account, o->seed);
    cwalarm_init(&a->alarms, main->account);
    a->main = main;
    a->rng = o->seed ^ 0xa7a9ULL;
    int rc = awsapi_conf(a, o, lib, err);
    if (rc) return rc;
    cplane_init(&a->cp, &a->conf, main->account, cphost_event, &a->host);
    main->ics = &a->cp.ic; /* InvokeEndpoint's InferenceComponentName */
    main->ic_region = a->conf.regions[0];
    struct scaler_conf sc = {
        &a->scale,     &a->cp, a->conf.regions[0], main->time_scale, a->conf.create_s,
        awsapi_scaled, a};
    if (cphost_init(&a->host, main->base, main, o, lib, &a->cp, a->conf.regions[0]) ||
        scaler_init(&a->scaler, main->base, &sc) ||
        !(a->alarm_timer = evtimer_new(main->base, awsapi_alarm_cb, a)))
        return buf_fail(err, AWSAPI_ERR_NOMEM, "out of memory");
    main->stats_more = (struct fleet_more){cphost_stats_more, &a->host};
    return awsapi_statics(a, err);
}

void awsapi_free(struct awsapi *a) {
    s3srv_free(&a->s3);
    scaler_free(&a->scaler);
    if (a->alarm_timer) event_free(a->alarm_timer);
    a->alarm_timer = NULL;
    cwalarm_free(&a->alarms);
    aascale_free(&a->scale);
    cphost_free(&a->host);
    cplane_free(&a->cp);
}

/* ---- requests ---- */

/* A new x-amzn-RequestId. */
static void awsapi_request_id(struct awsapi *a, char out[AWSAPI_ID_LEN]) {
    uint64_t x = splitmix_next(&a->rng), y = splitmix_next(&a->rng);
    snprintf(out, AWSAPI_ID_LEN, "%08x-%04x-4%03x-b%03x-%012llx", (unsigned)(x >> 32),
             (unsigned)(x >> 16) & 0xffff, (unsigned)x & 0xfff, (unsigned)(y >> 52) & 0xfff,
             (unsigned long long)(y & 0xffffffffffffULL));
}

static void awsapi_send(struct awsapi *a, void *owner, int status, const char *type,
                        const char *content_type, const char *body, size_t len) {
    char id[AWSAPI_ID_LEN];
    awsapi_request_id(a, id);
    a->main->send(owner, &(struct invoke_reply){.status = status,
                                                .error_type = type,
                                                .content_type = content_type,
                                                .request_id = id,
                                                .body = body,
                                                .body_len = len,
                                                .mode = INVOKE_FULL,
                                                .part = INVOKE_WHOLE});
}

/* Verifies the signature for service s, in the scope's region when the control
 * plane serves it; returns 0 or the refusal (answered). */
static int awsapi_verify(struct awsapi *a, void *owner, const struct http_head *h,
                         const struct awsapi_service *s, const char *body, size_t len,
                         char region[CPCONF_REGION_MAX]) {
    const struct sigv4_header *auth = http_header(h, "authorization");
    struct sigv4_authorization az;
    snprintf(region, CPCONF_REGION_MAX, "%s", s->region ? s->region : a->conf.regions[0]);
    if (!s->region && auth && sigv4_parse_authorization(auth->value, auth->value_len, &az) == 0 &&
        cpconf_serves(&a->conf, az.region, az.region_len))
        snprintf(region, CPCONF_REGION_MAX, "%.*s", (int)az.region_len, az.region);
    char method[16];
    snprintf(method, sizeof method, "%.*s", (int)(h->method_len < 15 ? h->method_len : 15),
             h->method);
    struct auth_request ar = {method, h->target, h->target_len, h->headers, h->n_headers,
                              body,   len};
    struct buf why, msg;
    buf_init(&why, 4096);
    buf_init(&msg, 8192);
    int rc = auth_verify_scope(&a->main->auth, &ar, s->signing_name, region, time(NULL), &why);
    if (rc == AUTH_ERR_NOMEM) {
        awsapi_send(a, owner, 500, "InternalFailure", NULL, "{\"message\":\"out of memory\"}", 27);
    } else if (rc) {
        if (smerr_message(&msg, buf_str(&why))) buf_reset(&msg);
        awsapi_send(a, owner, 403, auth_error_type(rc), NULL, buf_str(&msg), msg.len);
    }
    buf_free(&why);
    buf_free(&msg);
    return rc;
}

/* Finds the service and operation of X-Amz-Target; NULL when unknown. */
static const struct awsapi_service *awsapi_target(const struct sigv4_header *t,
                                                  char op[AWSAPI_OP_MAX + 1]) {
    const char *dot = NULL;
    for (size_t i = 0; i < t->value_len; i++)
        if (t->value[i] == '.') dot = t->value + i;
    size_t pre = dot ? (size_t)(dot - t->value) : 0, n = dot ? t->value_len - pre - 1 : 0;
    if (!dot || n == 0 || n > AWSAPI_OP_MAX) return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = dot[1 + i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return NULL;
    }
    memcpy(op, dot + 1, n);
    op[n] = '\0';
    for (size_t i = 0; i < AWSAPI_N_SERVICES; i++) {
        const char *p = awsapi_services[i].target_prefix;
        if (p && strlen(p) == pre && memcmp(p, t->value, pre) == 0) return &awsapi_services[i];
    }
    return NULL;
}

/* The service of a query-protocol request (a form post without X-Amz-Target):
 * the entry without a target prefix whose signing name is the credential
 * scope's service, and op its Action; NULL when none serves it. */
static const struct awsapi_service *awsapi_query(const struct http_head *h, const char *body,
                                                 size_t len, char op[AWSAPI_OP_MAX + 1]) {
    const struct sigv4_header *ct = http_header(h, "content-type");
    const struct sigv4_header *auth = http_header(h, "authorization");
    struct sigv4_authorization az;
    static const char form[] = "application/x-www-form-urlencoded";
    if (!ct || ct->value_len < sizeof form - 1 || memcmp(ct->value, form, sizeof form - 1) != 0 ||
        !auth || sigv4_parse_authorization(auth->value, auth->value_len, &az))
        return NULL;
    const struct awsapi_service *s = NULL;
    for (size_t i = 0; i < AWSAPI_N_SERVICES; i++)
        if (!awsapi_services[i].target_prefix &&
            strlen(awsapi_services[i].signing_name) == az.service_len &&
            memcmp(awsapi_services[i].signing_name, az.service, az.service_len) == 0)
            s = &awsapi_services[i];
    for (size_t i = 0; s && i + 7 <= len; i++) {
        if ((i && body[i - 1] != '&') || memcmp(body + i, "Action=", 7) != 0) continue;
        size_t n = 0;
        while (i + 7 + n < len && body[i + 7 + n] != '&') n++;
        if (n == 0 || n > AWSAPI_OP_MAX) return NULL;
        memcpy(op, body + i + 7, n);
        op[n] = '\0';
        return s;
    }
    return NULL;
}

/* Answers a request of service s (op of X-Amz-Target, or the query's Action). */
static void awsapi_answer(struct awsapi *a, void *owner, const struct http_head *h,
                          const struct awsapi_service *s, const char *op, const char *body,
                          size_t len) {
    char region[CPCONF_REGION_MAX];
    if (!s) { /* AWS says no more than the type; the emulator also says what it got */
        const struct sigv4_header *t = http_header(h, "x-amz-target");
        struct buf msg, out;
        buf_init(&msg, 512);
        buf_init(&out, 1024);
        int rc = t ? buf_addf(&msg,
                              "sm-emulator serves no X-Amz-Target %.*s (its README, "
                              "\"Control plane\", lists what it serves)",
                              (int)(t->value_len < 128 ? t->value_len : 128), t->value)
                   : buf_adds(&msg, "sm-emulator serves no AWS API for this form post");
        if (!rc) rc = buf_adds(&out, "{\"__type\":\"UnknownOperationException\",\"message\":");
        if (!rc) rc = jsonw_str(&out, buf_str(&msg), msg.len);
        if (!rc) rc = buf_adds(&out, "}");
        if (rc) buf_reset(&out);
        awsapi_send(a, owner, 400, "UnknownOperationException", "application/x-amz-json-1.1",
                    buf_str(&out), out.len);
        buf_free(&msg);
        buf_free(&out);
        return;
    }
    if (awsapi_verify(a, owner, h, s, body, len, region)) return;
    struct cplane_reply r = {.status = 200};
    buf_init(&r.body, BUF_NO_CAP);
    (void)!s->call(a, op, body, len, region, &r); /* out of memory: r holds a 500 */
    awsapi_send(a, owner, r.status, r.type, s->content_type, buf_str(&r.body), r.body.len);
    buf_free(&r.body);
    cphost_arm(&a->host);
}

/* An S3 request (s3srv.h), answered. */
static void awsapi_s3(struct awsapi *a, void *owner, const struct http_head *h, const char *body,
                      size_t len) {
    struct s3srv_reply r;
    buf_init(&r.body, BUF_NO_CAP);
    (void)!s3srv_call(&a->s3, &a->main->auth, h, body, len, time(NULL), &r); /* r: a 500 */
    awsapi_send(a, owner, r.status, NULL, r.content_type, buf_str(&r.body), r.body.len);
    buf_free(&r.body);
}

/* NAME of "/endpoints/NAME/..." */
static bool awsapi_endpoint_path(const struct http_head *h, const char **name, size_t *n) {
    static const char prefix[] = "/endpoints/";
    size_t pre = sizeof prefix - 1;
    if (h->target_len <= pre || memcmp(h->target, prefix, pre) != 0) return false;
    const char *slash = memchr(h->target + pre, '/', h->target_len - pre);
    if (!slash) return false;
    *name = h->target + pre;
    *n = (size_t)(slash - *name);
    return *n > 0;
}

bool awsapi_route(void *ud, void *owner, const struct http_head *h, const char *body, size_t len,
                  struct rtcall **call) {
    struct awsapi *a = ud;
    const struct sigv4_header *target = http_header(h, "x-amz-target");
    const char *name;
    size_t n;
    *call = NULL;
    char op[AWSAPI_OP_MAX + 1];
    if (s3srv_is(h)) {
        awsapi_s3(a, owner, h, body, len);
        return true;
    }
    if (target && http_is(h, "POST", "/")) {
        awsapi_answer(a, owner, h, awsapi_target(target, op), op, body, len);
        return true;
    }
    const struct awsapi_service *query =
        http_is(h, "POST", "/") ? awsapi_query(h, body, len, op) : NULL;
    if (query) {
        awsapi_answer(a, owner, h, query, op, body, len);
        return true;
    }
    struct invoke *inv = awsapi_endpoint_path(h, &name, &n) ? cphost_find(&a->host, name, n) : NULL;
    if (!inv) return false;
    *call = rtcall_request(inv, owner, h, body, len);
    return true;
}
