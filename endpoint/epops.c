#include "epops.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "epdesc.h"
#include "epown.h"
#include "epwait.h"
#include "plainhttp.h"
#include "smname.h"

#define EPOPS_TIMEOUT_S 2700.0 /* emulated seconds a deploy waits by default (45 min) */
#define EPOPS_REPLY_MAX ((size_t)4 << 20)

struct epops_client_slot {
    char region[32];
    struct awsj_client *c;
};

struct epops {
    struct epops_config cfg;
    char region[32];
    char *endpoint_url;
    char *profile;
    char *facts_path;
    struct creds_cache *cache;
    struct epops_client_slot clients[EPOPS_MAX_REGIONS];
    size_t n_clients;
    struct epfacts facts;
    bool facts_loaded;
    char run[EPOWN_RUN_MAX];
    bool created; /* this context created resources (tagged with run) */
};

/* ---- the context ---- */

void epops_out_init(struct epops_out *o) {
    buf_init(&o->text, BUF_NO_CAP);
    o->json = NULL;
}

void epops_out_free(struct epops_out *o) {
    buf_free(&o->text);
    cJSON_Delete(o->json);
    o->json = NULL;
}

static double epops_default_mono(void *ud) {
    (void)ud;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double epops_default_wall(void *ud) {
    (void)ud;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void epops_default_sleep(void *ud, double s) {
    (void)ud;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    nanosleep(&ts, NULL);
}

static char *epops_dup(const char *s, bool *nomem) {
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) *nomem = true;
    return d;
}

int epops_new(const struct epops_config *cfg, struct epops **out, struct buf *err) {
    *out = NULL;
    if (!cfg->region || !creds_name_ok(cfg->region))
        return buf_fail(err, EPOPS_ERR_INPUT, "'%s' is not a region such as us-east-2",
                        cfg->region ? cfg->region : "");
    if (cfg->run && !epown_run_ok(cfg->run))
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "'%.80s' is not a run id (1 to 63 letters, digits, '-', '_' and '.')",
                        cfg->run);
    if (cfg->endpoint_url && plainhttp_check(cfg->endpoint_url, cfg->allow_plain_http, err))
        return EPOPS_ERR_INPUT;
    struct epops *o = calloc(1, sizeof *o);
    bool nomem = !o;
    if (o) {
        o->cfg = *cfg;
        snprintf(o->region, sizeof o->region, "%s", cfg->region);
        o->endpoint_url = epops_dup(cfg->endpoint_url, &nomem);
        o->profile = epops_dup(cfg->profile, &nomem);
        o->facts_path = epops_dup(cfg->facts_path, &nomem);
        o->cfg.region = o->region;
        o->cfg.endpoint_url = o->endpoint_url;
        o->cfg.profile = o->profile;
        o->cfg.facts_path = o->facts_path;
        if (!(o->cfg.time_scale > 0)) o->cfg.time_scale = 1;
        if (!(o->cfg.poll_s > 0)) o->cfg.poll_s = 15 / o->cfg.time_scale;
        if (o->cfg.poll_s < 0.05) o->cfg.poll_s = 0.05;
        if (!o->cfg.hooks.mono) o->cfg.hooks.mono = epops_default_mono;
        if (!o->cfg.hooks.wall) o->cfg.hooks.wall = epops_default_wall;
        if (!o->cfg.hooks.sleep) o->cfg.hooks.sleep = epops_default_sleep;
        if (cfg->run) {
            snprintf(o->run, sizeof o->run, "%s", cfg->run);
        } else {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            unsigned nonce = (unsigned)ts.tv_nsec ^ ((unsigned)getpid() << 16);
            epown_run_make(o->cfg.hooks.wall(o->cfg.hooks.ud), nonce, o->run);
        }
        o->cfg.run = o->run;
        struct creds_options co = {.profile = o->profile};
        o->cache = creds_cache_new(&co);
        nomem |= !o->cache;
    }
    if (nomem) {
        epops_free(o);
        return buf_fail(err, EPOPS_ERR_NOMEM, "out of memory");
    }
    *out = o;
    return EPOPS_OK;
}

void epops_free(struct epops *o) {
    if (!o) return;
    for (size_t i = 0; i < o->n_clients; i++) awsj_client_free(o->clients[i].c);
    creds_cache_free(o->cache);
    free(o->endpoint_url);
    free(o->profile);
    free(o->facts_path);
    free(o);
}

int epops_client(struct epops *o, const char *region, struct awsj_client **c, struct buf *err) {
    for (size_t i = 0; i < o->n_clients; i++)
        if (strcmp(o->clients[i].region, region) == 0) {
            *c = o->clients[i].c;
            return EPOPS_OK;
        }
    if (!creds_name_ok(region))
        return buf_fail(err, EPOPS_ERR_INPUT, "'%s' is not a region such as us-east-2", region);
    if (o->n_clients == EPOPS_MAX_REGIONS)
        return buf_fail(err, EPOPS_ERR_INPUT, "more than %d regions", EPOPS_MAX_REGIONS);
    struct awsj_config ac = {.region = region,
                             .endpoint_url = o->endpoint_url,
                             .allow_plain_http = o->cfg.allow_plain_http,
                             .cache = o->cache};
    ac.creds.profile = o->profile;
    struct awsj_client *client;
    int rc = awsj_client_new(&ac, &client, err);
    if (rc) return rc == AWSJ_ERR_NOMEM ? EPOPS_ERR_NOMEM : EPOPS_ERR_INPUT;
    snprintf(o->clients[o->n_clients].region, sizeof o->clients[0].region, "%s", region);
    o->clients[o->n_clients++].c = client;
    *c = client;
    return EPOPS_OK;
}

int epops_facts(struct epops *o, const struct epfacts **f, struct buf *err) {
    if (!o->facts_loaded) {
        int rc = epfacts_load(o->facts_path, &o->facts, err);
        if (rc) return rc == EPFACTS_ERR_NOMEM ? EPOPS_ERR_NOMEM : EPOPS_ERR_INPUT;
        o->facts_loaded = true;
    }
    *f = &o->facts;
    return EPOPS_OK;
}

const char *epops_run(const struct epops *o) {
    return o->run;
}

struct creds_cache *epops_cache(struct epops *o) {
    return o->cache;
}

const struct epops_config *epops_config(const struct epops *o) {
    return &o->cfg;
}

double epops_wall(struct epops *o) {
    return o->cfg.hooks.wall(o->cfg.hooks.ud);
}

static double epops_mono(struct epops *o) {
    return o->cfg.hooks.mono(o->cfg.hooks.ud);
}

static bool epops_stopped(struct epops *o) {
    return o->cfg.hooks.stopped && o->cfg.hooks.stopped(o->cfg.hooks.ud);
}

static void epops_progress(struct epops *o, const char *line, double fraction) {
    if (o->cfg.hooks.progress) o->cfg.hooks.progress(o->cfg.hooks.ud, line, fraction);
}

void epops_say(struct epops *o, const char *fmt, ...) {
    struct buf line;
    va_list ap;
    buf_init(&line, 8192);
    va_start(ap, fmt);
    if (buf_vaddf(&line, fmt, ap) == 0) epops_progress(o, buf_str(&line), -1);
    va_end(ap);
    buf_free(&line);
}

int epops_aws_error(struct epops *o, struct awsj_client *c, int rc) {
    (void)o;
    (void)c;
    if (rc == AWSJ_ERR_NOMEM) return EPOPS_ERR_NOMEM;
    if (rc == AWSJ_ERR_INPUT) return EPOPS_ERR_INPUT;
    return EPOPS_ERR_AWS;
}

int epops_sm(struct epops *o, struct awsj_client *c, const char *op, const char *req,
             struct buf *reply, struct buf *err) {
    int rc = awsj_call(c, AWSJ_SAGEMAKER, op, req, reply, err);
    if (!rc) return EPOPS_OK;
    if (rc == AWSJ_ERR_SERVICE && strstr(buf_str(err), "Could not find"))
        return EPOPS_ERR_NOT_FOUND;
    if (rc == AWSJ_ERR_SERVICE && strstr(buf_str(err), "Cannot update in-progress"))
        return EPOPS_ERR_IN_PROGRESS;
    return epops_aws_error(o, c, rc);
}

double epops_price(struct epops *o, double given, const char *type, const char *region,
                   const char **source) {
    const struct epfacts *f;
    struct buf ignored;
    *source = "--price-per-hour";
    if (given > 0) return given;
    buf_init(&ignored, 1024);
    const struct epfacts_price *p =
        type && epops_facts(o, &f, &ignored) == 0 ? epfacts_price(f, type, region) : NULL;
    buf_free(&ignored);
    *source = p ? p->source : NULL;
    return p ? p->usd : 0;
}

/* ---- describing ---- */

int epops_describe(struct epops *o, struct awsj_client *c, const char *name,
                   struct epdesc_endpoint *d, struct buf *err) {
    struct buf reply, why;
    buf_init(&reply, EPOPS_REPLY_MAX);
    buf_init(&why, 1024);
    int rc = epops_get(o, c, "DescribeEndpoint", "EndpointName", name, &reply, err);
    if (!rc && epdesc_endpoint(buf_str(&reply), reply.len, d, &why))
        rc = buf_fail(err, EPOPS_ERR_AWS, "sagemaker DescribeEndpoint: %s", buf_str(&why));
    buf_free(&reply);
    buf_free(&why);
    return rc;
}

int epops_describe_config(struct epops *o, struct awsj_client *c, const char *name,
                          struct epdesc_config *cfg, struct buf *err) {
    struct buf reply;
    buf_init(&reply, EPOPS_REPLY_MAX);
    int rc = epops_get(o, c, "DescribeEndpointConfig", "EndpointConfigName", name, &reply, err);
    if (!rc && epdesc_config(buf_str(&reply), reply.len, cfg, err)) rc = EPOPS_ERR_AWS;
    buf_free(&reply);
    return rc;
}

/* ---- waiting ---- */

int epops_wait(struct epops *o, const char *region, const char *name, const char *config,
               double timeout_s, double price, struct epops_out *out, struct buf *err) {
    struct awsj_client *c = NULL;
    struct epdesc_endpoint d;
    struct buf line;
    int rc = epops_client(o, region, &c, err);
    if (rc) return rc;
    double scale = o->cfg.time_scale, t0 = epops_mono(o), shown = -1e9;
    double timeout = (timeout_s > 0 ? timeout_s : EPOPS_TIMEOUT_S) / scale;
    char last[32] = "";
    buf_init(&line, 4096);
    for (;;) {
        if ((rc = epops_describe(o, c, name, &d, err))) break;
        double elapsed = epops_mono(o) - t0;
        enum epwait_verdict v = epwait_judge(d.status, elapsed, timeout);
        bool old_config = config && strcmp(d.config, config) != 0;
        if (v == EPWAIT_IN_SERVICE && old_config && !d.failure[0])
            v = EPWAIT_ON; /* the update has not begun yet: the old config still serves */
        /* Told since the creation (a wait that began later, as sm-suite's second, says the
           endpoint's age), or since the wait began for an update. */
        double billed = d.created > 0 ? epops_wall(o) - d.created : elapsed;
        double since = config ? elapsed : billed;
        if (strcmp(last, d.status) != 0 || elapsed - shown >= 60 / scale || v != EPWAIT_ON) {
            buf_reset(&line);
            if (epwait_line(&line, name, region, d.status, since, billed, scale, price, NULL) == 0)
                epops_progress(o, buf_str(&line), timeout > 0 ? elapsed / timeout : -1);
            snprintf(last, sizeof last, "%s", d.status);
            shown = elapsed;
        }
        if (v == EPWAIT_IN_SERVICE && old_config) { /* back in service on the old config */
            rc = buf_fail(err, EPOPS_ERR_FAILED, "the update of %s in %s failed: %s", name, region,
                          d.failure);
            break;
        }
        if (v == EPWAIT_IN_SERVICE) {
            cJSON_Delete(out->json);
            out->json = epdesc_endpoint_json(&d, region, since * scale);
            char clock[32];
            epwait_clock(since * scale, clock);
            rc = buf_addf(&out->text, "%s is InService in %s after %s%s%s%s\n", name, region, clock,
                          scale != 1 ? " emulated" : "", d.n_v && d.v[0].placed[0] ? " on " : "",
                          d.n_v ? d.v[0].placed : "")
                     ? EPOPS_ERR_NOMEM
                     : EPOPS_OK;
            break;
        }
        if (v == EPWAIT_FAILED || v == EPWAIT_GONE) {
            rc = buf_fail(err, EPOPS_ERR_FAILED, "%s in %s is %s%s%s", name, region, d.status,
                          d.failure[0] ? ": " : "", d.failure);
            break;
        }
        if (v == EPWAIT_TIMEOUT) {
            char clock[32];
            epwait_clock(elapsed * scale, clock);
            rc = buf_fail(err, EPOPS_ERR_TIMEOUT,
                          "%s in %s is still %s after %s: it goes on (and bills once placed); "
                          "wait with sm-endpoint wait %s, or delete it",
                          name, region, d.status, clock, name);
            break;
        }
        if (epops_stopped(o)) {
            rc = buf_fail(err, EPOPS_ERR_STOPPED,
                          "stopped waiting: %s in %s is still %s and goes on (billed once "
                          "placed): delete it with sm-endpoint delete %s --region %s %s%s --wait",
                          name, region, d.status, name, region,
                          o->created ? "--run " : "--created-by-tool", o->created ? o->run : "");
            break;
        }
        o->cfg.hooks.sleep(o->cfg.hooks.ud, o->cfg.poll_s);
    }
    buf_free(&line);
    return rc;
}

/* ---- deploying ---- */

/* An epreq result as an epops_error. */
static int epops_req(int rc) {
    return rc == EPREQ_ERR_INPUT ? EPOPS_ERR_INPUT : rc ? EPOPS_ERR_NOMEM : EPOPS_OK;
}

/* Deletes name's endpoint, config and model from the first of the three
 * (0: all) in region, quietly (best effort). */
static void epops_cleanup_from(struct epops *o, struct awsj_client *c, const char *name,
                               size_t first) {
    static const char *const ops[][2] = {{"DeleteEndpoint", "EndpointName"},
                                         {"DeleteEndpointConfig", "EndpointConfigName"},
                                         {"DeleteModel", "ModelName"}};
    struct buf req, reply, ignored;
    buf_init(&req, BUF_NO_CAP);
    buf_init(&reply, EPOPS_REPLY_MAX);
    buf_init(&ignored, 4096);
    for (size_t i = first; i < 3; i++)
        if (epreq_named(ops[i][1], name, &req) == 0)
            (void)!epops_sm(o, c, ops[i][0], buf_str(&req), &reply, &ignored);
    buf_free(&req);
    buf_free(&reply);
    buf_free(&ignored);
}

static void epops_cleanup(struct epops *o, struct awsj_client *c, const char *name) {
    epops_cleanup_from(o, c, name, 0);
}

/* An epown_tag result as an epops_error. */
static int epops_tagged(int rc, struct buf *err) {
    return rc == EPOWN_ERR_NOMEM ? EPOPS_ERR_NOMEM
           : rc ? buf_fail(err, EPOPS_ERR_INPUT, "a request to tag is not a JSON object")
                : EPOPS_OK;
}

/* Refuses a deploy onto a name in use: an endpoint, config or model named
 * name in c's region. Returns 0 when none is, EPOPS_ERR_EXISTS, or an error. */
static int epops_deploy_free(struct epops *o, struct awsj_client *c, const char *name,
                             const char *region, struct buf *err) {
    static const char *const what[][3] = {
        {"DescribeEndpoint", "EndpointName", "an endpoint"},
        {"DescribeEndpointConfig", "EndpointConfigName", "an endpoint config"},
        {"DescribeModel", "ModelName", "a model"}};
    struct buf reply;
    buf_init(&reply, EPOPS_REPLY_MAX);
    int rc = EPOPS_OK;
    for (size_t i = 0; !rc && i < 3; i++) {
        rc = epops_get(o, c, what[i][0], what[i][1], name, &reply, err);
        if (rc == EPOPS_ERR_NOT_FOUND) {
            buf_reset(err);
            rc = EPOPS_OK;
        } else if (!rc) {
            rc = buf_fail(err, EPOPS_ERR_EXISTS,
                          "%s named '%s' exists in %s: deploy creates its endpoint, config and "
                          "model new and touches nothing that exists; nothing was created "
                          "(choose another name)",
                          what[i][2], name, region);
        }
    }
    buf_free(&reply);
    return rc;
}

/* The three creates of a deployment in region, each tagged with the run; what
 * a failure leaves of them (this call's model and config) is deleted again. */
static int epops_create(struct epops *o, struct awsj_client *c, const struct epreq_deploy *d,
                        struct buf *err) {
    struct buf req, reply;
    size_t made = 0; /* 1: the model, 2: and the config */
    buf_init(&req, BUF_NO_CAP);
    buf_init(&reply, EPOPS_REPLY_MAX);
    int rc = epops_req(epreq_create_model(d, &req, err));
    if (!rc) rc = epops_tagged(epown_tag(&req, o->run), err);
    if (!rc) rc = epops_sm(o, c, "CreateModel", buf_str(&req), &reply, err);
    made += !rc;
    o->created |= !rc;
    if (!rc) rc = epops_req(epreq_create_config(d, &req, err));
    if (!rc) rc = epops_tagged(epown_tag(&req, o->run), err);
    if (!rc) rc = epops_sm(o, c, "CreateEndpointConfig", buf_str(&req), &reply, err);
    made += !rc;
    if (!rc) rc = epops_req(epreq_endpoint(d->name, d->name, &req));
    if (!rc) rc = epops_tagged(epown_tag(&req, o->run), err);
    if (!rc) rc = epops_sm(o, c, "CreateEndpoint", buf_str(&req), &reply, err);
    if (rc && made) epops_cleanup_from(o, c, d->name, 3 - made);
    buf_free(&req);
    buf_free(&reply);
    return rc;
}

/* Checks what a deployment takes before anything is sent. */
static int epops_deploy_check(const struct epops_deploy_req *r, struct buf *err) {
    if (!r->name || !smname_endpoint_ok(r->name, strlen(r->name)))
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "'%s' is not an endpoint name (letters, digits and inner '-', at most 63)",
                        r->name ? r->name : "");
    if (!r->model_id || !*r->model_id)
        return buf_fail(err, EPOPS_ERR_INPUT, "no model id (--model)");
    if (!r->role || strncmp(r->role, "arn:", 4) != 0)
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "no execution role: pass --role arn:aws:iam::ACCOUNT:role/NAME (SageMaker "
                        "runs the container with it)");
    for (size_t i = 0; i < r->n_types; i++)
        if (strncmp(r->types[i], "ml.", 3) != 0)
            return buf_fail(err, EPOPS_ERR_INPUT,
                            "'%s' is not an instance type such as "
                            "ml.g6.xlarge",
                            r->types[i]);
    if (r->provision_timeout_s && (r->provision_timeout_s < 300 || r->provision_timeout_s > 3600))
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "the provisioning timeout is from 300 to 3600 seconds, not %ld",
                        r->provision_timeout_s);
    return EPOPS_OK;
}

/* One region's try: 1 to try the next region, 0 done, or an error. */
static int epops_deploy_region(struct epops *o, const struct epops_deploy_req *r,
                               struct epreq_deploy *d, const char *region, bool last,
                               struct epops_out *out, struct buf *err) {
    const struct epfacts *f;
    struct awsj_client *c = NULL;
    struct buf image;
    const char *source;
    buf_init(&image, 1024);
    int rc = epops_client(o, region, &c, err);
    if (!rc && !r->image && (rc = epops_facts(o, &f, err)) == 0 &&
        epfacts_image(f, region, &image, err))
        rc = EPOPS_ERR_INPUT;
    d->image = r->image ? r->image : buf_str(&image);
    double price = rc ? 0 : epops_price(o, r->price, d->types[0], region, &source);
    if (!rc) {
        if (price > 0)
            epops_say(o,
                      "deploying %s (%s) in %s on %s%s: USD %g an hour (%s) from its creation "
                      "until it is deleted",
                      d->name, d->model_id, region, d->types[0],
                      d->n_types > 1 ? " and its fallbacks" : "", price, source);
        else
            epops_say(o,
                      "deploying %s (%s) in %s on %s: price unknown (pass --price-per-hour); "
                      "it bills from its creation until it is deleted",
                      d->name, d->model_id, region, d->types[0]);
        rc = epops_deploy_free(o, c, d->name, region, err);
    }
    if (!rc) {
        epops_say(o, "run %s: what it creates is tagged %s=%s and %s=%s", o->run, EPOWN_KEY_TOOL,
                  EPOWN_TOOL, EPOWN_KEY_RUN, o->run);
        rc = epops_create(o, c, d, err);
    }
    if (rc == EPOPS_ERR_AWS && strstr(buf_str(err), "ResourceLimitExceeded") && !last) {
        epops_say(o, "%s: no quota in %s (%s); trying the next region", d->name, region,
                  buf_str(err));
        buf_free(&image);
        return 1;
    }
    if (!rc && !r->wait) {
        rc = buf_addf(&out->text, "%s is Creating in %s; sm-endpoint wait %s --region %s\n",
                      d->name, region, d->name, region)
                 ? EPOPS_ERR_NOMEM
                 : EPOPS_OK;
        cJSON_Delete(out->json);
        out->json = cJSON_CreateObject();
        if (!rc && (!out->json || !cJSON_AddStringToObject(out->json, "endpoint", d->name) ||
                    !cJSON_AddStringToObject(out->json, "region", region) ||
                    !cJSON_AddStringToObject(out->json, "status", "Creating")))
            rc = EPOPS_ERR_NOMEM;
    } else if (!rc) {
        rc = epops_wait(o, region, d->name, NULL, r->wait_timeout_s, price, out, err);
        if (rc == EPOPS_ERR_FAILED && epwait_no_capacity(buf_str(err)) && !last) {
            epops_say(o, "%s (deleting it there, and trying the next region)", buf_str(err));
            epops_cleanup(o, c, d->name);
            rc = 1;
        }
    }
    if (!rc && (!out->json || !cJSON_AddStringToObject(out->json, "run", o->run) ||
                buf_addf(&out->text,
                         "run %s created it: sm-endpoint delete %s --region %s --run %s deletes "
                         "it\n",
                         o->run, d->name, region, o->run)))
        rc = EPOPS_ERR_NOMEM;
    buf_free(&image);
    return rc;
}

void epops_deploy_of(const struct epops_deploy_req *r, struct epreq_deploy *d) {
    *d = (struct epreq_deploy){.name = r->name,
                               .model_id = r->model_id,
                               .role = r->role,
                               .n_env = r->n_env,
                               .n_types = r->n_types,
                               .pools = r->pools,
                               .count = r->count,
                               .provision_timeout_s = r->provision_timeout_s,
                               .max_model_len = r->max_model_len};
    memcpy(d->env, r->env, sizeof d->env);
    memcpy(d->types, r->types, sizeof d->types);
}

int epops_deploy(struct epops *o, const struct epops_deploy_req *r, struct epops_out *out,
                 struct buf *err) {
    const struct epfacts *f;
    struct epreq_deploy d;
    int rc = epops_deploy_check(r, err);
    if (rc) return rc;
    epops_deploy_of(r, &d);
    if (!d.n_types) {
        if ((rc = epops_facts(o, &f, err))) return rc;
        if (!f->n_l4)
            return buf_fail(err, EPOPS_ERR_INPUT, "no instance type: pass --instance-type");
        d.types[0] = f->l4[0];
        d.n_types = 1;
    }
    const char *one[1] = {o->region};
    const char *const *regions = r->n_regions ? r->regions : one;
    size_t n = r->n_regions ? r->n_regions : 1;
    for (size_t i = 0; i < n; i++) {
        rc = epops_deploy_region(o, r, &d, regions[i], i + 1 == n, out, err);
        if (rc != 1) return rc;
    }
    return buf_fail(err, EPOPS_ERR_FAILED, "no region had capacity");
}

/* ---- ownership ---- */

/* A resource a delete or a swap checks. */
enum epops_kind { EPOPS_ENDPOINT, EPOPS_CONFIG, EPOPS_MODEL };

static const struct {
    const char *what, *describe, *key, *arn;
} epops_kinds[] = {
    [EPOPS_ENDPOINT] = {"endpoint", "DescribeEndpoint", "EndpointName", "EndpointArn"},
    [EPOPS_CONFIG] = {"endpoint config", "DescribeEndpointConfig", "EndpointConfigName",
                      "EndpointConfigArn"},
    [EPOPS_MODEL] = {"model", "DescribeModel", "ModelName", "ModelArn"},
};

/* Gathers ListTags' pages into one {"Tags": [...]} tree. */
static int epops_tags_page(void *ud, const char *page, size_t len, struct buf *err) {
    cJSON *all = cJSON_GetObjectItemCaseSensitive(ud, "Tags"), *root, *t;
    root = cJSON_ParseWithLength(page, len);
    cJSON *tags = cJSON_GetObjectItemCaseSensitive(root, "Tags");
    int rc = cJSON_IsArray(tags) ? 0 : buf_fail(err, AWSJ_ERR_REPLY, "ListTags gave no Tags list");
    while (!rc && (t = cJSON_DetachItemFromArray(tags, 0)) != NULL) cJSON_AddItemToArray(all, t);
    cJSON_Delete(root);
    return rc;
}

/* Whether the resource name of kind k exists and who created it: 0 with *mine
 * (its tags say run created it; run NULL: the tool did) or why not in why;
 * EPOPS_ERR_NOT_FOUND; or another error (err). */
static int epops_owned(struct epops *o, struct awsj_client *c, enum epops_kind k, const char *name,
                       const char *run, bool *mine, struct buf *why, struct buf *err) {
    struct buf reply, req;
    buf_init(&reply, EPOPS_REPLY_MAX);
    buf_init(&req, BUF_NO_CAP);
    *mine = false;
    int rc = epops_get(o, c, epops_kinds[k].describe, epops_kinds[k].key, name, &reply, err);
    cJSON *d = rc ? NULL : cJSON_ParseWithLength(buf_str(&reply), reply.len);
    const cJSON *arn = cJSON_GetObjectItemCaseSensitive(d, epops_kinds[k].arn);
    if (!rc && !cJSON_IsString(arn))
        rc = buf_fail(err, EPOPS_ERR_AWS, "sagemaker %s: no %s in the reply",
                      epops_kinds[k].describe, epops_kinds[k].arn);
    if (!rc && epreq_named("ResourceArn", arn->valuestring, &req)) rc = EPOPS_ERR_NOMEM;
    cJSON *tags = rc ? NULL : cJSON_CreateObject();
    if (!rc && (!tags || !cJSON_AddArrayToObject(tags, "Tags"))) rc = EPOPS_ERR_NOMEM;
    if (!rc) {
        int arc = awsj_paginate(c, AWSJ_SAGEMAKER, "ListTags", buf_str(&req), "NextToken", 20,
                                epops_tags_page, tags, err);
        if (arc)
            rc = arc == AWSJ_ERR_SERVICE && strstr(buf_str(err), "Could not find")
                     ? EPOPS_ERR_NOT_FOUND
                     : epops_aws_error(o, c, arc);
    }
    char *text = rc ? NULL : cJSON_PrintUnformatted(tags);
    if (!rc && !text) rc = EPOPS_ERR_NOMEM;
    if (!rc) {
        int v = epown_judge(text, strlen(text), run, why);
        if (v < 0) rc = buf_fail(err, EPOPS_ERR_AWS, "sagemaker ListTags: %s", buf_str(why));
        *mine = v == 0;
    }
    cJSON_free(text);
    cJSON_Delete(tags);
    cJSON_Delete(d);
    buf_free(&reply);
    buf_free(&req);
    return rc;
}

int epops_endpoint_owned(struct epops *o, struct awsj_client *c, const char *name, bool *mine,
                         struct buf *why, struct buf *err) {
    return epops_owned(o, c, EPOPS_ENDPOINT, name, NULL, mine, why, err);
}

/* ---- swapping ---- */

int epops_get(struct epops *o, struct awsj_client *c, const char *op, const char *key,
              const char *value, struct buf *reply, struct buf *err) {
    struct buf req;
    buf_init(&req, BUF_NO_CAP);
    int rc = epreq_named(key, value, &req) ? EPOPS_ERR_NOMEM
                                           : epops_sm(o, c, op, buf_str(&req), reply, err);
    buf_free(&req);
    return rc;
}

/* "BASE-xxxxxxxx" from name and the model id's hash, at most 63 characters. */
static void epops_swap_name(const char *name, const char *model_id, char out[64]) {
    unsigned long long h = 0xcbf29ce484222325ULL;
    for (const char *p = model_id; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    snprintf(out, 64, "%.54s-%08x", name, (unsigned)(h & 0xffffffffu));
}

/* A swap's model or config that exists already (an earlier swap to the same
 * model id made it): 0 when the tool created it, else EPOPS_ERR_EXISTS. */
static int epops_swap_reuse(struct epops *o, struct awsj_client *c, enum epops_kind k,
                            const char *name, struct buf *err) {
    struct buf why;
    bool mine;
    buf_init(&why, 1024);
    buf_reset(err);
    int rc = epops_owned(o, c, k, name, NULL, &mine, &why, err);
    if (!rc && !mine)
        rc = buf_fail(err, EPOPS_ERR_EXISTS, "%s '%s' exists and %s: swap does not use it",
                      epops_kinds[k].what, name, buf_str(&why));
    buf_free(&why);
    return rc;
}

/* Creates the model and config of the swap, tagged with the run (kept when
 * they exist and the tool made them: the same model id). */
static int epops_swap_create(struct epops *o, struct awsj_client *c, const char *model_desc,
                             size_t len, const struct epdesc_cvariant *v, const char *new_name,
                             const char *model_id, struct buf *err) {
    struct buf req, reply;
    struct epreq_deploy d = {.name = new_name,
                             .model_id = model_id,
                             .variant = v->name,
                             .n_types = v->n_types,
                             .pools = v->pools,
                             .count = v->count};
    for (size_t i = 0; i < v->n_types; i++) d.types[i] = v->types[i];
    buf_init(&req, BUF_NO_CAP);
    buf_init(&reply, EPOPS_REPLY_MAX);
    int rc = epops_req(epreq_model_like(model_desc, len, new_name, model_id, &req, err));
    if (!rc) rc = epops_tagged(epown_tag(&req, o->run), err);
    if (!rc) rc = epops_sm(o, c, "CreateModel", buf_str(&req), &reply, err);
    if (rc == EPOPS_ERR_AWS && strstr(buf_str(err), "already existing"))
        rc = epops_swap_reuse(o, c, EPOPS_MODEL, new_name, err);
    if (!rc) rc = epops_req(epreq_create_config(&d, &req, err));
    if (!rc) rc = epops_tagged(epown_tag(&req, o->run), err);
    if (!rc) rc = epops_sm(o, c, "CreateEndpointConfig", buf_str(&req), &reply, err);
    if (rc == EPOPS_ERR_AWS && strstr(buf_str(err), "already existing"))
        rc = epops_swap_reuse(o, c, EPOPS_CONFIG, new_name, err);
    buf_free(&req);
    buf_free(&reply);
    return rc;
}

int epops_swap(struct epops *o, const struct epops_swap_req *r, struct epops_out *out,
               struct buf *err) {
    const char *region = r->region ? r->region : o->region;
    struct awsj_client *c = NULL;
    struct epdesc_endpoint d;
    struct epdesc_config cfg;
    struct buf reply, model;
    char new_name[64];
    if (!r->name || !smname_endpoint_ok(r->name, strlen(r->name)) || !r->model_id ||
        !*r->model_id || (r->as && !smname_endpoint_ok(r->as, strlen(r->as))))
        return buf_fail(err, EPOPS_ERR_INPUT,
                        "swap wants an endpoint name, --model MODEL_ID and, "
                        "with --as, a second endpoint name");
    int rc = epops_client(o, region, &c, err);
    if (!rc) rc = epops_describe(o, c, r->name, &d, err);
    buf_init(&reply, EPOPS_REPLY_MAX);
    buf_init(&model, EPOPS_REPLY_MAX);
    if (!rc) rc = epops_describe_config(o, c, d.config, &cfg, err);
    if (!rc && (cfg.n_v != 1 || !cfg.v[0].n_types))
        rc = buf_fail(err, EPOPS_ERR_INPUT, "%s has %zu production variants: swap handles one",
                      r->name, cfg.n_v);
    if (!rc) rc = epops_get(o, c, "DescribeModel", "ModelName", cfg.v[0].model, &model, err);
    epops_swap_name(r->as ? r->as : r->name, r->model_id, new_name);
    const char *target = r->as ? r->as : new_name;
    if (!rc && r->as) rc = epops_deploy_free(o, c, r->as, region, err);
    if (!rc)
        rc = epops_swap_create(o, c, buf_str(&model), model.len, &cfg.v[0], target, r->model_id,
                               err);
    const char *source;
    double price = epops_price(o, r->price, cfg.v[0].types[0], region, &source);
    if (!rc) {
        struct buf req;
        buf_init(&req, BUF_NO_CAP);
        epops_say(o, "%s %s: %s (config %s)", r->as ? "deploying" : "updating",
                  r->as ? r->as : r->name, r->model_id, target);
        rc = epreq_endpoint(r->as ? r->as : r->name, target, &req) ? EPOPS_ERR_NOMEM : EPOPS_OK;
        if (!rc && r->as) rc = epops_tagged(epown_tag(&req, o->run), err);
        if (!rc)
            rc = epops_sm(o, c, r->as ? "CreateEndpoint" : "UpdateEndpoint", buf_str(&req), &reply,
                          err);
        buf_free(&req);
    }
    if (!rc && r->wait)
        rc = epops_wait(o, region, r->as ? r->as : r->name, r->as ? NULL : target,
                        r->wait_timeout_s, price, out, err);
    else if (!rc)
        rc = buf_addf(&out->text, "%s is %s in %s with %s\n", r->as ? r->as : r->name,
                      r->as ? "Creating" : "Updating", region, r->model_id)
                 ? EPOPS_ERR_NOMEM
                 : EPOPS_OK;
    buf_free(&reply);
    buf_free(&model);
    return rc;
}

/* ---- deleting ---- */

/* Adds name to a list of up to max unique names. */
static void epops_add_name(char list[][64], size_t *n, size_t max, const char *name) {
    for (size_t i = 0; i < *n; i++)
        if (strcmp(list[i], name) == 0) return;
    if (*n < max && name[0]) snprintf(list[(*n)++], 64, "%s", name);
}

/* Deletes one resource; records its outcome in results. Returns 0 or an error. */
static int epops_delete_one(struct epops *o, struct awsj_client *c, const char *op, const char *key,
                            const char *what, const char *name, cJSON *results,
                            struct epops_out *out, struct buf *err) {
    struct buf reply;
    char label[96];
    buf_init(&reply, EPOPS_REPLY_MAX);
    int rc = epops_get(o, c, op, key, name, &reply, err);
    buf_free(&reply);
    const char *outcome = rc == EPOPS_OK              ? "deleted"
                          : rc == EPOPS_ERR_NOT_FOUND ? "not found"
                                                      : NULL;
    snprintf(label, sizeof label, "%s %s", what, name);
    if (!outcome) return rc;
    if (!cJSON_AddStringToObject(results, label, outcome) ||
        buf_addf(&out->text, "%s: %s\n", label, outcome))
        return EPOPS_ERR_NOMEM;
    return EPOPS_OK;
}

/* Waits while name is Creating or Updating; returns 0 when it is not (or is gone). */
static int epops_delete_wait(struct epops *o, struct awsj_client *c, const char *region,
                             const char *name, struct epdesc_endpoint *d, struct buf *err) {
    bool said = false;
    for (;;) {
        if (strcmp(d->status, "Creating") != 0 && strcmp(d->status, "Updating") != 0)
            return EPOPS_OK;
        if (!said)
            epops_say(o,
                      "%s in %s is %s: SageMaker deletes an endpoint once it is InService or "
                      "Failed; waiting",
                      name, region, d->status);
        said = true;
        if (epops_stopped(o))
            return buf_fail(err, EPOPS_ERR_STOPPED, "stopped: %s in %s is still %s, not deleted",
                            name, region, d->status);
        o->cfg.hooks.sleep(o->cfg.hooks.ud, o->cfg.poll_s);
        int rc = epops_describe(o, c, name, d, err);
        if (rc) return rc;
    }
}

/* After DeleteEndpoint: waits until name is gone (Deleting takes minutes on AWS,
 * and the name is taken until then); "gone" in the results and the text. */
static int epops_delete_gone(struct epops *o, struct awsj_client *c, const char *region,
                             const char *name, cJSON *results, struct epops_out *out,
                             struct buf *err) {
    double scale = o->cfg.time_scale, t0 = epops_mono(o);
    struct epdesc_endpoint d;
    char label[96], clock[32];
    snprintf(label, sizeof label, "endpoint %s", name);
    for (;;) {
        int rc = epops_describe(o, c, name, &d, err);
        double elapsed = epops_mono(o) - t0;
        epwait_clock(elapsed * scale, clock);
        if (rc == EPOPS_ERR_NOT_FOUND) {
            buf_reset(err);
            cJSON *gone = cJSON_CreateString("gone");
            bool had = cJSON_HasObjectItem(results, label);
            bool ok = gone && (had ? cJSON_ReplaceItemInObjectCaseSensitive(results, label, gone)
                                   : cJSON_AddItemToObject(results, label, gone));
            if (!ok) cJSON_Delete(gone);
            return ok && !buf_addf(&out->text, "%s: gone after %s%s\n", label, clock,
                                   scale != 1 ? " emulated" : "")
                       ? EPOPS_OK
                       : EPOPS_ERR_NOMEM;
        }
        if (rc) return rc;
        if (strcmp(d.status, "Deleting") != 0)
            return buf_fail(err, EPOPS_ERR_FAILED, "%s in %s is %s after DeleteEndpoint%s%s", name,
                            region, d.status, d.failure[0] ? ": " : "", d.failure);
        if (elapsed * scale > EPOPS_TIMEOUT_S)
            return buf_fail(err, EPOPS_ERR_TIMEOUT, "%s in %s is still Deleting after %s", name,
                            region, clock);
        if (epops_stopped(o))
            return buf_fail(err, EPOPS_ERR_STOPPED,
                            "stopped waiting: %s in %s is Deleting (that goes on)", name, region);
        o->cfg.hooks.sleep(o->cfg.hooks.ud, o->cfg.poll_s);
    }
}

/* The endpoint's cost since its creation, into the out. */
static int epops_delete_cost(struct epops *o, const struct epdesc_endpoint *d, double price,
                             cJSON *j, struct epops_out *out) {
    double scale = o->cfg.time_scale, real = d->created > 0 ? epops_wall(o) - d->created : 0;
    double hours = real > 0 ? real * scale / 3600 : 0;
    if (!cJSON_AddNumberToObject(j, "hours", hours)) return EPOPS_ERR_NOMEM;
    if (price > 0 && !cJSON_AddNumberToObject(j, "usd", hours * price)) return EPOPS_ERR_NOMEM;
    int rc = price > 0
                 ? buf_addf(&out->text, "%s existed %.3f %shours: USD %.2f at USD %g/h\n", d->name,
                            hours, scale != 1 ? "emulated " : "", hours * price, price)
                 : buf_addf(&out->text, "%s existed %.3f %shours (price unknown)\n", d->name, hours,
                            scale != 1 ? "emulated " : "");
    return rc ? EPOPS_ERR_NOMEM : EPOPS_OK;
}

/* Reads a Describe reply's member (a name) into out: false when it has none. */
static bool epops_member(const char *json, size_t len, const char *member, char out[64]) {
    cJSON *d = cJSON_ParseWithLength(json, len);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, member);
    bool ok = cJSON_IsString(v) && strlen(v->valuestring) < 64;
    if (ok) snprintf(out, 64, "%s", v->valuestring);
    cJSON_Delete(d);
    return ok;
}

/* One endpoint's use: its config (and, while Updating, the next one) and their models. */
static int epops_use_of(struct epops *o, struct awsj_client *c, const char *name,
                        struct epown_use *u, struct buf *err) {
    struct buf reply;
    struct epdesc_config cfg;
    char pending[64];
    buf_init(&reply, EPOPS_REPLY_MAX);
    memset(u, 0, sizeof *u);
    snprintf(u->endpoint, sizeof u->endpoint, "%s", name);
    int rc = epops_get(o, c, "DescribeEndpoint", "EndpointName", name, &reply, err);
    if (!rc && epops_member(buf_str(&reply), reply.len, "EndpointConfigName", u->configs[0]))
        u->n_configs = 1;
    cJSON *d = rc ? NULL : cJSON_ParseWithLength(buf_str(&reply), reply.len);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(d, "PendingDeploymentSummary"), "EndpointConfigName");
    if (cJSON_IsString(p) && strlen(p->valuestring) < sizeof pending) {
        snprintf(pending, sizeof pending, "%s", p->valuestring);
        epops_add_name(u->configs, &u->n_configs, 2, pending);
    }
    cJSON_Delete(d);
    for (size_t i = 0; !rc && i < u->n_configs; i++) {
        rc = epops_describe_config(o, c, u->configs[i], &cfg, err);
        for (size_t v = 0; !rc && v < cfg.n_v; v++)
            epops_add_name(u->models, &u->n_models, EPOWN_USE_MAX, cfg.v[v].model);
    }
    if (rc == EPOPS_ERR_NOT_FOUND) { /* gone meanwhile, or a config deleted under it */
        buf_reset(err);
        rc = EPOPS_OK;
    }
    buf_free(&reply);
    return rc;
}

#define EPOPS_MAX_USES 1000

/* ListEndpoints' pages into a list of names. */
struct epops_names {
    struct epdesc_summary *list;
    size_t n;
};

static int epops_names_page(void *ud, const char *page, size_t len, struct buf *err) {
    struct epops_names *p = ud;
    return epdesc_list(page, len, p->list, EPOPS_MAX_USES, &p->n, err) ? AWSJ_ERR_REPLY : 0;
}

/* The endpoints of c's region and what each uses (*uses malloc'ed, *n of them). */
static int epops_uses(struct epops *o, struct awsj_client *c, struct epown_use **uses, size_t *n,
                      struct buf *err) {
    struct epops_names p = {calloc(EPOPS_MAX_USES, sizeof *p.list), 0};
    struct buf req;
    buf_init(&req, BUF_NO_CAP);
    *n = 0;
    *uses = NULL;
    int rc = !p.list || epreq_list(NULL, &req) ? EPOPS_ERR_NOMEM : EPOPS_OK;
    if (!rc) {
        int arc = awsj_paginate(c, AWSJ_SAGEMAKER, "ListEndpoints", buf_str(&req), "NextToken",
                                EPOPS_MAX_USES / 10, epops_names_page, &p, err);
        if (arc) rc = epops_aws_error(o, c, arc);
    }
    if (!rc && p.n && !(*uses = calloc(p.n, sizeof **uses))) rc = EPOPS_ERR_NOMEM;
    for (size_t i = 0; !rc && i < p.n; i++) {
        rc = epops_use_of(o, c, p.list[i].name, &(*uses)[*n], err);
        if (!rc) (*n)++;
    }
    free(p.list);
    buf_free(&req);
    return rc;
}

/* What a delete found before acting: the resources it may delete. */
struct epops_plan {
    char configs[2][64], models[EPOWN_USE_MAX][64];
    size_t nc, nm;
    bool config_there[2], model_there[EPOWN_USE_MAX];
    size_t refusals;
    struct buf first; /* the first refusal */
};

/* A refusal: the first kept for err, each further one said. */
__attribute__((format(printf, 3, 4))) static int epops_refuse(struct epops *o, struct epops_plan *p,
                                                              const char *fmt, ...) {
    struct buf line;
    va_list ap;
    buf_init(&line, 4096);
    va_start(ap, fmt);
    int rc = buf_vaddf(&line, fmt, ap);
    va_end(ap);
    if (!rc && p->refusals == 0)
        rc = buf_adds(&p->first, buf_str(&line));
    else if (!rc)
        epops_progress(o, buf_str(&line), -1);
    p->refusals++;
    buf_free(&line);
    return rc ? EPOPS_ERR_NOMEM : EPOPS_OK;
}

/* Checks one resource: *there when it exists; a refusal when its tags do not
 * say run (NULL: the tool) created it, or another endpoint than name uses it. */
static int epops_check_one(struct epops *o, struct awsj_client *c, enum epops_kind k,
                           const char *what_name, const char *name, const char *run,
                           const struct epown_use *uses, size_t n_uses, bool *there,
                           struct epops_plan *p, struct buf *err) {
    struct buf why;
    bool mine;
    buf_init(&why, 1024);
    int rc = epops_owned(o, c, k, what_name, run, &mine, &why, err);
    *there = rc == EPOPS_OK;
    if (rc == EPOPS_ERR_NOT_FOUND) {
        buf_reset(err);
        rc = EPOPS_OK;
    }
    if (!rc && *there && !mine)
        rc = epops_refuse(o, p, "refusing to delete %s '%s': %s", epops_kinds[k].what, what_name,
                          buf_str(&why));
    const char *user =
        k == EPOPS_ENDPOINT ? NULL : epown_user(uses, n_uses, name, k == EPOPS_MODEL, what_name);
    if (!rc && *there && user)
        rc = epops_refuse(o, p, "refusing to delete %s '%s': endpoint '%s' uses it",
                          epops_kinds[k].what, what_name, user);
    buf_free(&why);
    return rc;
}

/* The check before a delete: which of name's configs and models exist, and
 * whether each resource may go (p->refusals). */
static int epops_delete_check(struct epops *o, struct awsj_client *c, const char *name,
                              const char *config, bool check_endpoint, const char *run,
                              struct epops_plan *p, struct buf *err) {
    struct epown_use *uses = NULL;
    struct epdesc_config cfg;
    struct buf ignored;
    size_t n_uses = 0;
    bool there;
    buf_init(&ignored, 4096);
    int rc = check_endpoint
                 ? epops_check_one(o, c, EPOPS_ENDPOINT, name, name, run, NULL, 0, &there, p, err)
                 : EPOPS_OK;
    if (!rc) rc = epops_uses(o, c, &uses, &n_uses, err);
    epops_add_name(p->configs, &p->nc, 2, config);
    epops_add_name(p->configs, &p->nc, 2, name);
    for (size_t i = 0; !rc && i < p->nc; i++) {
        rc = epops_check_one(o, c, EPOPS_CONFIG, p->configs[i], name, run, uses, n_uses,
                             &p->config_there[i], p, err);
        if (!rc && p->config_there[i] &&
            epops_describe_config(o, c, p->configs[i], &cfg, &ignored) == 0)
            for (size_t v = 0; v < cfg.n_v; v++)
                epops_add_name(p->models, &p->nm, EPOWN_USE_MAX, cfg.v[v].model);
    }
    epops_add_name(p->models, &p->nm, EPOWN_USE_MAX, name);
    for (size_t i = 0; !rc && i < p->nm; i++)
        rc = epops_check_one(o, c, EPOPS_MODEL, p->models[i], name, run, uses, n_uses,
                             &p->model_there[i], p, err);
    free(uses);
    buf_free(&ignored);
    return rc;
}

/* Records "not found" for a resource the check found missing. */
static int epops_delete_missing(const char *what, const char *name, cJSON *results,
                                struct epops_out *out) {
    char label[96];
    snprintf(label, sizeof label, "%s %s", what, name);
    return cJSON_AddStringToObject(results, label, "not found") &&
                   !buf_addf(&out->text, "%s: not found\n", label)
               ? EPOPS_OK
               : EPOPS_ERR_NOMEM;
}

int epops_delete(struct epops *o, const char *region, const char *name, bool wait, double price,
                 bool any_run, struct epops_out *out, struct buf *err) {
    struct awsj_client *c = NULL;
    struct epdesc_endpoint d;
    struct epops_plan plan = {0};
    const char *run = any_run ? NULL : o->run;
    if (!region) region = o->region;
    if (!name || !smname_endpoint_ok(name, strlen(name)))
        return buf_fail(err, EPOPS_ERR_INPUT, "'%s' is not an endpoint name", name ? name : "");
    buf_init(&plan.first, 4096);
    int rc = epops_client(o, region, &c, err);
    if (!rc) rc = epops_describe(o, c, name, &d, err);
    bool exists = rc == EPOPS_OK, deleting = exists && strcmp(d.status, "Deleting") == 0;
    if (rc == EPOPS_ERR_NOT_FOUND) {
        buf_reset(err);
        rc = EPOPS_OK;
    }
    if (deleting) exists = false; /* asked already: only its config and model may be left */
    /* check first (who made each, who uses it), then act */
    if (!rc) rc = epops_delete_check(o, c, name, exists ? d.config : "", exists, run, &plan, err);
    if (!rc && plan.refusals)
        rc = buf_fail(err, EPOPS_ERR_REFUSED, "%s; nothing deleted%s", buf_str(&plan.first),
                      plan.refusals > 1 ? " (the other refusals are above)" : "");
    buf_free(&plan.first);
    if (!rc && exists && wait) rc = epops_delete_wait(o, c, region, name, &d, err);
    if (!rc && exists && !wait &&
        (strcmp(d.status, "Creating") == 0 || strcmp(d.status, "Updating") == 0))
        rc = buf_fail(err, EPOPS_ERR_IN_PROGRESS,
                      "%s in %s is %s: SageMaker deletes an endpoint once it is InService or "
                      "Failed; wait for that, or delete with --wait",
                      name, region, d.status);
    cJSON *j = rc ? NULL : cJSON_CreateObject(), *results = NULL;
    if (!rc && (!j || !cJSON_AddStringToObject(j, "endpoint", name) ||
                !cJSON_AddStringToObject(j, "region", region) ||
                !(results = cJSON_AddObjectToObject(j, "results"))))
        rc = EPOPS_ERR_NOMEM;
    if (!rc && exists) {
        const char *source;
        struct epdesc_config cfg;
        struct buf ignored;
        buf_init(&ignored, 4096);
        const char *type = NULL;
        if (epops_describe_config(o, c, d.config, &cfg, &ignored) == 0 && cfg.n_v)
            type = d.n_v && d.v[0].placed[0] ? d.v[0].placed : cfg.v[0].types[0];
        double p = epops_price(o, price, type, region, &source);
        buf_free(&ignored);
        rc = epops_delete_cost(o, &d, p, j, out);
    }
    if (!rc && deleting) {
        char label[96];
        snprintf(label, sizeof label, "endpoint %s", name);
        rc = cJSON_AddStringToObject(results, label, "already being deleted") &&
                     !buf_addf(&out->text, "%s: already being deleted\n", label)
                 ? EPOPS_OK
                 : EPOPS_ERR_NOMEM;
    } else if (!rc && exists) {
        rc = epops_delete_one(o, c, "DeleteEndpoint", "EndpointName", "endpoint", name, results,
                              out, err);
    } else if (!rc) {
        rc = epops_delete_missing("endpoint", name, results, out);
    }
    for (size_t i = 0; !rc && i < plan.nc; i++)
        rc = plan.config_there[i]
                 ? epops_delete_one(o, c, "DeleteEndpointConfig", "EndpointConfigName",
                                    "endpoint config", plan.configs[i], results, out, err)
                 : epops_delete_missing("endpoint config", plan.configs[i], results, out);
    for (size_t i = 0; !rc && i < plan.nm; i++)
        rc = plan.model_there[i] ? epops_delete_one(o, c, "DeleteModel", "ModelName", "model",
                                                    plan.models[i], results, out, err)
                                 : epops_delete_missing("model", plan.models[i], results, out);
    if (!rc && wait && (exists || deleting))
        rc = epops_delete_gone(o, c, region, name, results, out, err);
    if (rc) {
        cJSON_Delete(j);
        return rc;
    }
    cJSON_Delete(out->json);
    out->json = j;
    return EPOPS_OK;
}
