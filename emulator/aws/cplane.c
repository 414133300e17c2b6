#include "cplane.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpdesc.h"
#include "jsonw.h"
#include "model.h"

#define CPLANE_ICE_REASON                                                                          \
    "Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity error."
#define CPLANE_STATIC_ROLE  "arn:aws:iam::%s:role/sm-emulator"
#define CPLANE_STATIC_IMAGE "763104351884.dkr.ecr.%s.amazonaws.com/vllm:sm-emulator"
#define CPLANE_STATIC_TYPE  "ml.g6.xlarge"

void cplane_init(struct cplane *cp, const struct cpconf *conf, const char *account,
                 cplane_event_fn *on_event, void *ud) {
    memset(cp, 0, sizeof *cp);
    cp->conf = conf;
    snprintf(cp->account, sizeof cp->account, "%s", account);
    cp->on_event = on_event;
    cp->ud = ud;
    cpic_init(&cp->ic);
}

static void cplane_model_free(struct cpres_model *m) {
    if (!m) return;
    for (size_t i = 0; m->env_keys && m->env_values && i < m->n_env; i++) {
        free(m->env_keys[i]);
        free(m->env_values[i]);
    }
    free(m->env_keys);
    free(m->env_values);
    free(m->role);
    cptag_free(&m->tags);
    free(m);
}

static void cplane_config_free(struct cpres_config *c) {
    if (c) cptag_free(&c->tags);
    free(c);
}

static void cplane_ep_free(struct cpres_endpoint *ep) {
    if (ep) cptag_free(&ep->tags);
    free(ep);
}

void cplane_free(struct cplane *cp) {
    for (size_t i = 0; i < cp->n_models; i++) cplane_model_free(cp->models[i]);
    for (size_t i = 0; i < cp->n_configs; i++) cplane_config_free(cp->configs[i]);
    for (size_t i = 0; i < cp->n_eps; i++) cplane_ep_free(cp->eps[i]);
    cpic_free(&cp->ic);
    cp->n_models = cp->n_configs = cp->n_eps = 0;
}

/* ---- replies ---- */

/* The resources a request names, and how SageMaker words them. */
enum cplane_kind {
    CPLANE_KIND_MODEL,
    CPLANE_KIND_CONFIG,
    CPLANE_KIND_ENDPOINT,
    CPLANE_KIND_COMPONENT
};

static const struct {
    const char *member, *field; /* the request's member and its name in a validation message */
    const char *arn;            /* the ARN's resource type */
    const char *what;           /* in a message: "Could not find WHAT" */
    const char *arn_key;        /* the reply's member of the ARN */
} cplane_kinds[] = {
    [CPLANE_KIND_MODEL] = {"ModelName", "modelName", "model", "model", "ModelArn"},
    [CPLANE_KIND_CONFIG] = {"EndpointConfigName", "endpointConfigName", "endpoint-config",
                            "endpoint configuration", "EndpointConfigArn"},
    [CPLANE_KIND_ENDPOINT] = {"EndpointName", "endpointName", "endpoint", "endpoint",
                              "EndpointArn"},
    [CPLANE_KIND_COMPONENT] = {"InferenceComponentName", "inferenceComponentName",
                               "inference-component", "inference component",
                               "InferenceComponentArn"},
};

int cplane_error(struct cplane_reply *r, int status, const char *type, const char *msg) {
    buf_reset(&r->body);
    r->status = status;
    r->type = type;
    int rc = buf_adds(&r->body, "{\"__type\":");
    if (!rc) rc = jsonw_cstr(&r->body, type);
    if (!rc && msg) rc = buf_adds(&r->body, ",\"message\":");
    if (!rc && msg) rc = jsonw_cstr(&r->body, msg);
    return rc ? rc : buf_addc(&r->body, '}');
}

int cplane_fail(struct cplane_reply *r, int status, const char *type, const char *fmt, ...) {
    struct buf msg;
    va_list ap;
    buf_init(&msg, BUF_NO_CAP);
    va_start(ap, fmt);
    int rc = buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    if (!rc) rc = cplane_error(r, status, type, buf_str(&msg));
    buf_free(&msg);
    return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

/* What cpreq said of the request (rc, with why), as the reply: 0 when it
 * passed, else its SerializationException or ValidationException (r->type
 * set), or CPLANE_ERR_NOMEM. Frees why. */
static int cplane_checked(struct cplane_reply *r, int rc, struct buf *why) {
    if (rc)
        rc = cplane_fail(r, 400,
                         rc == CPREQ_ERR_SERIALIZATION ? "SerializationException"
                                                       : "ValidationException",
                         "%s", buf_str(why));
    buf_free(why);
    return rc;
}

/* A ValidationException naming a resource of kind k by its ARN:
 * PREFIX WHAT "ARN". */
static int cplane_arn_error(struct cplane *cp, struct cplane_reply *r, const char *prefix,
                            enum cplane_kind k, const char *region, const char *name) {
    struct buf arn;
    buf_init(&arn, 1024);
    int rc = cpres_arn(&arn, cp->account, region, cplane_kinds[k].arn, name)
                 ? CPLANE_ERR_NOMEM
                 : cplane_fail(r, 400, "ValidationException", "%s %s \"%s\".", prefix,
                               cplane_kinds[k].what, buf_str(&arn));
    buf_free(&arn);
    return rc;
}

/* A 200 reply's '{' (0, or nonzero when out of memory); cplane_ok_close ends it. */
static int cplane_ok_open(struct cplane_reply *r) {
    buf_reset(&r->body);
    r->status = 200;
    r->type = NULL;
    return buf_addc(&r->body, '{');
}

/* The '}' of a reply whose members were written with rc. */
static int cplane_ok_close(struct cplane_reply *r, int rc) {
    return rc || buf_addc(&r->body, '}') ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

static int cplane_ok_empty(struct cplane_reply *r) {
    return cplane_ok_close(r, cplane_ok_open(r));
}

/* 200 with the ARN of a resource of kind k: {"ModelArn":"ARN"}. */
static int cplane_arn_reply(struct cplane *cp, struct cplane_reply *r, enum cplane_kind k,
                            const char *region, const char *name) {
    int rc = cplane_ok_open(r) || buf_addf(&r->body, "\"%s\":", cplane_kinds[k].arn_key) ||
             cpres_arn_json(&r->body, cp->account, region, cplane_kinds[k].arn, name);
    return cplane_ok_close(r, rc);
}

/* What cptag said (rc, with why) as the reply, as cplane_checked; frees why. */
static int cplane_tag_checked(struct cplane_reply *r, int rc, struct buf *why) {
    if (rc == CPTAG_ERR_NOMEM) {
        buf_free(why);
        return CPLANE_ERR_NOMEM;
    }
    return cplane_checked(r,
                          rc == CPTAG_ERR_SERIALIZATION ? CPREQ_ERR_SERIALIZATION
                          : rc                          ? CPREQ_ERR_VALIDATION
                                                        : CPREQ_OK,
                          why);
}

/* The Tags of a Create request into tags: 0, or a refusal in r (r->type
 * set), or CPLANE_ERR_NOMEM. */
static int cplane_read_tags(const cJSON *req, struct cptag_list *tags, struct cplane_reply *r) {
    struct buf why;
    buf_init(&why, 1024);
    return cplane_tag_checked(r, cptag_read(req, tags, &why), &why);
}

/* ---- lookups ---- */

static size_t cplane_find_model(const struct cplane *cp, const char *region, const char *name) {
    for (size_t i = 0; i < cp->n_models; i++)
        if (strcmp(cp->models[i]->region, region) == 0 &&
            strcasecmp(cp->models[i]->name, name) == 0)
            return i;
    return cp->n_models;
}

static size_t cplane_find_config(const struct cplane *cp, const char *region, const char *name) {
    for (size_t i = 0; i < cp->n_configs; i++)
        if (strcmp(cp->configs[i]->region, region) == 0 &&
            strcasecmp(cp->configs[i]->spec.name, name) == 0)
            return i;
    return cp->n_configs;
}

static size_t cplane_find_ep(const struct cplane *cp, const char *region, const char *name) {
    for (size_t i = 0; i < cp->n_eps; i++)
        if (strcmp(cp->eps[i]->region, region) == 0 && strcasecmp(cp->eps[i]->name, name) == 0)
            return i;
    return cp->n_eps;
}

const struct cpres_endpoint *cplane_endpoint(const struct cplane *cp, const char *region,
                                             const char *name) {
    size_t i = cplane_find_ep(cp, region, name);
    return i < cp->n_eps ? cp->eps[i] : NULL;
}

void cplane_scaled(struct cplane *cp, const char *region, const char *name, const char *variant,
                   long current, long desired, double wall) {
    size_t at = cplane_find_ep(cp, region, name);
    if (at >= cp->n_eps) return;
    struct cpres_endpoint *ep = cp->eps[at];
    bool scaling = false, changed = false;
    for (size_t i = 0; i < ep->live.cfg.n_v; i++) {
        if (strcmp(ep->live.cfg.v[i].name, variant) == 0) {
            changed = ep->live.current[i] != current || ep->live.desired[i] != desired;
            ep->live.current[i] = current;
            ep->live.desired[i] = desired;
        }
        scaling = scaling || ep->live.desired[i] > ep->live.current[i];
    }
    ep->scaling = scaling;
    if (changed) ep->modified = wall;
}

/* The name of the resource of kind k a request names: 0, or a refusal in r. */
static int cplane_name(const cJSON *req, enum cplane_kind k, char name[CPREQ_NAME_MAX],
                       struct cplane_reply *r) {
    struct buf why;
    buf_init(&why, 1024);
    return cplane_checked(
        r, cpreq_name(req, cplane_kinds[k].member, cplane_kinds[k].field, name, &why), &why);
}

/* The resource of kind k a Describe or Delete names in region: 0 with *at its
 * index, or a reply (r->type set: a bad name, or none of that name). */
static int cplane_named(struct cplane *cp, const cJSON *req, const char *region, enum cplane_kind k,
                        size_t *at, struct cplane_reply *r) {
    char name[CPREQ_NAME_MAX];
    int rc = cplane_name(req, k, name, r);
    if (rc || r->type) return rc;
    size_t n = k == CPLANE_KIND_MODEL    ? cp->n_models
               : k == CPLANE_KIND_CONFIG ? cp->n_configs
                                         : cp->n_eps;
    *at = k == CPLANE_KIND_MODEL    ? cplane_find_model(cp, region, name)
          : k == CPLANE_KIND_CONFIG ? cplane_find_config(cp, region, name)
                                    : cplane_find_ep(cp, region, name);
    return *at < n ? CPLANE_OK : cplane_arn_error(cp, r, "Could not find", k, region, name);
}
/* ---- instances: capacity and quota ---- */

/* Whether the deployment d of ep counts (it holds or reserves instances). */
static bool cplane_holds(const struct cpres_endpoint *ep, const struct cpres_deploy *d) {
    if (ep->state == CPRES_DELETING || ep->state == CPRES_FAILED) return false;
    return d == &ep->live || ep->state == CPRES_UPDATING;
}

/* Instances of type that region's endpoints hold: those placed on it, and with
 * reserved those being placed that may take it (a pool of theirs is of type). */
static long cplane_held(const struct cplane *cp, const char *region, const char *type,
                        bool reserved) {
    long n = 0;
    for (size_t e = 0; e < cp->n_eps; e++) {
        const struct cpres_endpoint *ep = cp->eps[e];
        const struct cpres_deploy *ds[] = {&ep->live, &ep->next};
        if (strcmp(ep->region, region) != 0) continue;
        for (size_t k = 0; k < 2; k++) {
            if (!cplane_holds(ep, ds[k])) continue;
            for (size_t i = 0; i < ds[k]->cfg.n_v; i++) {
                const struct cpreq_variant *v = &ds[k]->cfg.v[i];
                const struct cpres_placement *p = &ds[k]->p[i];
                bool placed = p->st == CPRES_PLACED || p->st == CPRES_READY;
                for (size_t q = 0; q < v->n_pools; q++)
                    if ((placed ? q == p->pool : reserved && p->st != CPRES_LOST) &&
                        strcmp(v->pools[q].type, type) == 0)
                        n += v->count;
            }
        }
    }
    return n;
}

/* Instances of type placed in region (what capacity is left for). */
static long cplane_placed(const struct cplane *cp, const char *region, const char *type) {
    return cplane_held(cp, region, type, false);
}

long cplane_usage(const struct cplane *cp, const char *region, const char *type) {
    return cplane_held(cp, region, type, true);
}

/* The quota check of a new deployment of cfg in region: 0 when it fits, else a
 * ResourceLimitExceeded reply. */
static int cplane_quota_check(struct cplane *cp, const struct cpreq_config *cfg, const char *region,
                              struct cplane_reply *r, bool *fits) {
    *fits = true;
    for (size_t i = 0; i < cfg->n_v; i++) {
        for (size_t q = 0; q < cfg->v[i].n_pools; q++) {
            const char *type = cfg->v[i].pools[q].type;
            long delta = 0;
            for (size_t j = 0; j < cfg->n_v; j++)
                for (size_t k = 0; k < cfg->v[j].n_pools; k++)
                    if (strcmp(cfg->v[j].pools[k].type, type) == 0) delta += cfg->v[j].count;
            long used = cplane_usage(cp, region, type),
                 quota = cpconf_quota(cp->conf, region, type);
            if (used + delta <= quota) continue;
            *fits = false;
            return cplane_fail(
                r, 400, "ResourceLimitExceeded",
                "The account-level service limit '%s for endpoint usage' is %ld "
                "Instances, with current utilization of %ld Instances and a request "
                "delta of %ld Instances. Please use AWS Service Quotas to request an "
                "increase for this quota.",
                type, quota, used, delta);
        }
    }
    return CPLANE_OK;
}

/* ---- deployments and the state machine ---- */

/* Starts a deployment of cfg at now: every variant tries its first pool. The
 * models are looked up here (their SM_VLLM_MODEL and image). Returns 0, or
 * the variant index + 1 whose model (name in *missing) does not exist. */
static size_t cplane_deploy_start(struct cplane *cp, struct cpres_deploy *d,
                                  const struct cpreq_config *cfg, const char *region,
                                  struct cplane_now now, const char **missing) {
    memset(d, 0, sizeof *d);
    d->cfg = *cfg;
    d->started = now.model;
    d->started_wall = now.wall;
    for (size_t i = 0; i < cfg->n_v; i++) {
        d->p[i] = (struct cpres_placement){.st = CPRES_TRYING, .pool = 0, .at = now.model};
        for (size_t q = 0; q < cfg->v[i].n_pools; q++) {
            const char *name =
                cfg->v[i].pools[q].model[0] ? cfg->v[i].pools[q].model : cfg->v[i].model;
            if (cplane_find_model(cp, region, name) == cp->n_models) {
                *missing = name;
                return i + 1;
            }
        }
    }
    return 0;
}

/* The model of variant i on the pool it was placed on: its image and SM_VLLM_MODEL. */
static void cplane_bind_model(struct cplane *cp, const char *region, struct cpres_deploy *d,
                              size_t i) {
    struct cpres_placement *p = &d->p[i];
    const struct cpreq_variant *v = &d->cfg.v[i];
    const char *name = v->pools[p->pool].model[0] ? v->pools[p->pool].model : v->model;
    size_t m = cplane_find_model(cp, region, name);
    p->model_id[0] = p->image[0] = p->profile[0] = '\0';
    if (m == cp->n_models) return; /* deleted since: it fails its health check */
    const struct cpres_model *model = cp->models[m];
    snprintf(p->image, sizeof p->image, "%s", model->image);
    for (size_t k = 0; k < model->n_env; k++)
        if (strcmp(model->env_keys[k], "SM_VLLM_MODEL") == 0)
            snprintf(p->model_id, sizeof p->model_id, "%s", model->env_values[k]);
    const char *profile = p->model_id[0] ? cpconf_profile(cp->conf, p->model_id) : NULL;
    if (profile) snprintf(p->profile, sizeof p->profile, "%s", profile);
}

/* Runs one due change of placement i of deployment d of ep, at its time. */
static void cplane_step_placement(struct cplane *cp, struct cpres_endpoint *ep,
                                  struct cpres_deploy *d, size_t i) {
    struct cpres_placement *p = &d->p[i];
    const struct cpreq_variant *v = &d->cfg.v[i];
    const struct cpconf *c = cp->conf;
    double t = p->at,
           deadline = v->provision_timeout_s ? d->started + (double)v->provision_timeout_s : -1;
    if (p->st == CPRES_PLACED) { /* the container's start-up is over */
        cplane_bind_model(cp, ep->region, d, i);
        if (p->profile[0]) {
            p->st = CPRES_READY;
        } else {
            char why[sizeof p->reason];
            p->st = CPRES_LOST;
            snprintf(why, sizeof why,
                     "The primary container for production variant %s did not pass the ping health "
                     "check. Please check CloudWatch logs for this endpoint.",
                     v->name);
            memcpy(p->reason, why, sizeof why);
        }
        return;
    }
    const char *type = v->pools[p->pool].type;
    long cap = cpconf_capacity(c, ep->region, type);
    if (p->reason[0] == '\0') { /* an attempt begins at t */
        if (cap == CPCONF_UNLIMITED || cplane_placed(cp, ep->region, type) + v->count <= cap) {
            p->st = CPRES_PLACED;
            p->at = t + c->create_s;
            return;
        }
        strcpy(p->reason, CPLANE_ICE_REASON); /* the failure arrives after the wait */
        p->at =
            deadline >= 0 && deadline < t + c->capacity_wait_s ? deadline : t + c->capacity_wait_s;
        return;
    }
    /* InsufficientInstanceCapacity on this pool: the next one, if any and in time */
    if (p->pool + 1 < v->n_pools && (deadline < 0 || t < deadline)) {
        p->pool++;
        p->reason[0] = '\0';
        return; /* at stays t: the next attempt begins now */
    }
    p->st = CPRES_LOST;
}

/* The endpoint's state once a placement changed: InService, Failed, or on. */
static void cplane_settle(struct cplane *cp, struct cpres_endpoint *ep, struct cplane_now now) {
    struct cpres_deploy *d = ep->state == CPRES_UPDATING ? &ep->next : &ep->live;
    size_t ready = 0;
    for (size_t i = 0; i < d->cfg.n_v; i++) {
        if (d->p[i].st == CPRES_LOST) {
            snprintf(ep->failure, sizeof ep->failure, "%s", d->p[i].reason);
            ep->state = ep->state == CPRES_UPDATING ? CPRES_IN_SERVICE : CPRES_FAILED;
            ep->modified = now.wall;
            return;
        }
        ready += d->p[i].st == CPRES_READY;
    }
    if (ready < d->cfg.n_v) return;
    if (ep->state == CPRES_UPDATING) ep->live = ep->next;
    ep->scaling = false; /* the new deployment serves its config's counts */
    ep->state = CPRES_IN_SERVICE;
    ep->failure[0] = '\0';
    ep->modified = now.wall;
    if (cp->on_event) cp->on_event(cp->ud, CPLANE_SERVE, ep);
}

/* The earliest due change: *e endpoint, *k placement (or SIZE_MAX: deletion). */
static double cplane_due(const struct cplane *cp, size_t *e, size_t *k) {
    double best = -1;
    for (size_t i = 0; i < cp->n_eps; i++) {
        const struct cpres_endpoint *ep = cp->eps[i];
        if (ep->state == CPRES_DELETING && (best < 0 || ep->gone_at < best)) {
            best = ep->gone_at;
            *e = i;
            *k = (size_t)-1;
        }
        if (ep->state != CPRES_CREATING && ep->state != CPRES_UPDATING) continue;
        const struct cpres_deploy *d = ep->state == CPRES_UPDATING ? &ep->next : &ep->live;
        for (size_t v = 0; v < d->cfg.n_v; v++)
            if ((d->p[v].st == CPRES_TRYING || d->p[v].st == CPRES_PLACED) &&
                (best < 0 || d->p[v].at < best)) {
                best = d->p[v].at;
                *e = i;
                *k = v;
            }
    }
    return best;
}

double cplane_next(const struct cplane *cp) {
    size_t e = 0, k = 0;
    double t = cplane_due(cp, &e, &k), ic = cpic_next(&cp->ic);
    return t < 0 || (ic >= 0 && ic < t) ? ic : t;
}

void cplane_advance(struct cplane *cp, struct cplane_now now) {
    size_t e = 0, k = 0;
    double t;
    while ((t = cplane_due(cp, &e, &k)) >= 0 && t <= now.model) {
        struct cpres_endpoint *ep = cp->eps[e];
        if (k == (size_t)-1) {
            cplane_ep_free(ep);
            for (size_t j = e; j + 1 < cp->n_eps; j++) cp->eps[j] = cp->eps[j + 1];
            cp->n_eps--;
            continue;
        }
        struct cpres_deploy *d = ep->state == CPRES_UPDATING ? &ep->next : &ep->live;
        cplane_step_placement(cp, ep, d, k);
        cplane_settle(cp, ep, now);
    }
    cpic_advance(&cp->ic, now.model, now.wall);
}

/* ---- models ---- */

static char *cplane_dup(const char *s, bool *nomem) {
    char *d = strdup(s);
    if (!d) *nomem = true;
    return d;
}

static int cplane_create_model(struct cplane *cp, const cJSON *req, const char *region,
                               struct cplane_now now, struct cplane_reply *r) {
    struct cpreq_model m;
    struct cptag_list tags = {0};
    struct buf why;
    buf_init(&why, 2048);
    int rc = cplane_checked(r, cpreq_model(req, &m, &why), &why);
    if (!rc && !r->type) rc = cplane_read_tags(req, &tags, r);
    if (!rc && !r->type && cplane_find_model(cp, region, m.name) < cp->n_models)
        rc = cplane_arn_error(cp, r, "Cannot create already existing", CPLANE_KIND_MODEL, region,
                              m.name);
    if (!rc && !r->type && cp->n_models == CPRES_MAX_EACH)
        rc = cplane_fail(r, 400, "ResourceLimitExceeded",
                         "sm-emulator holds at most %d models: delete some", CPRES_MAX_EACH);
    if (rc || r->type) {
        cptag_free(&tags);
        return rc;
    }
    struct cpres_model *mod = calloc(1, sizeof *mod);
    bool nomem = !mod;
    if (mod) {
        snprintf(mod->name, sizeof mod->name, "%s", m.name);
        snprintf(mod->region, sizeof mod->region, "%s", region);
        snprintf(mod->image, sizeof mod->image, "%s", m.image);
        mod->created = now.wall;
        mod->role = cplane_dup(m.role, &nomem);
        mod->env_keys = calloc(m.n_env ? m.n_env : 1, sizeof(char *));
        mod->env_values = calloc(m.n_env ? m.n_env : 1, sizeof(char *));
        nomem |= !mod->env_keys || !mod->env_values;
        for (size_t i = 0; !nomem && i < m.n_env; i++, mod->n_env++) {
            mod->env_keys[i] = cplane_dup(m.env[i].key, &nomem);
            mod->env_values[i] = cplane_dup(m.env[i].value, &nomem);
        }
    }
    if (nomem) {
        cplane_model_free(mod);
        cptag_free(&tags);
        return CPLANE_ERR_NOMEM;
    }
    mod->tags = tags;
    cp->models[cp->n_models++] = mod;
    return cplane_arn_reply(cp, r, CPLANE_KIND_MODEL, region, m.name);
}

/* ---- endpoint configs ---- */

static int cplane_create_config(struct cplane *cp, const cJSON *req, const char *region,
                                struct cplane_now now, struct cplane_reply *r) {
    struct cpres_config *c = calloc(1, sizeof *c);
    struct buf why;
    if (!c) return CPLANE_ERR_NOMEM;
    buf_init(&why, 2048);
    int rc = cplane_checked(r, cpreq_config(req, &c->spec, &why), &why);
    if (!rc && !r->type) rc = cplane_read_tags(req, &c->tags, r);
    if (!rc && !r->type && cplane_find_config(cp, region, c->spec.name) < cp->n_configs)
        rc = cplane_arn_error(cp, r, "Cannot create already existing", CPLANE_KIND_CONFIG, region,
                              c->spec.name);
    for (size_t i = 0; !rc && !r->type && i < c->spec.n_v; i++)
        if (cplane_find_model(cp, region, c->spec.v[i].model) == cp->n_models)
            rc = cplane_arn_error(cp, r, "Could not find", CPLANE_KIND_MODEL, region,
                                  c->spec.v[i].model);
    if (!rc && !r->type && cp->n_configs == CPRES_MAX_EACH)
        rc = cplane_fail(r, 400, "ResourceLimitExceeded",
                         "sm-emulator holds at most %d endpoint configs: delete some",
                         CPRES_MAX_EACH);
    if (rc || r->type) {
        cplane_config_free(c);
        return rc;
    }
    snprintf(c->region, sizeof c->region, "%s", region);
    c->created = now.wall;
    cp->configs[cp->n_configs++] = c;
    return cplane_arn_reply(cp, r, CPLANE_KIND_CONFIG, region, c->spec.name);
}

/* ---- endpoints ---- */

/* The two names of CreateEndpoint / UpdateEndpoint. */
static int cplane_ep_names(const cJSON *req, char ep[CPREQ_NAME_MAX], char cfg[CPREQ_NAME_MAX],
                           struct cplane_reply *r) {
    int rc = cplane_name(req, CPLANE_KIND_ENDPOINT, ep, r);
    return rc || r->type ? rc : cplane_name(req, CPLANE_KIND_CONFIG, cfg, r);
}

/* The config to deploy, its models and the quota: 0 with *cfg, or a reply. */
static int cplane_deployable(struct cplane *cp, const char *region, const char *cfg_name,
                             struct cpres_deploy *d, struct cplane_now now,
                             struct cplane_reply *r) {
    size_t c = cplane_find_config(cp, region, cfg_name);
    if (c == cp->n_configs)
        return cplane_arn_error(cp, r, "Could not find", CPLANE_KIND_CONFIG, region, cfg_name);
    const char *missing = NULL;
    if (cplane_deploy_start(cp, d, &cp->configs[c]->spec, region, now, &missing))
        return cplane_arn_error(cp, r, "Could not find", CPLANE_KIND_MODEL, region, missing);
    bool fits;
    return cplane_quota_check(cp, &d->cfg, region, r, &fits);
}

static int cplane_create_endpoint(struct cplane *cp, const cJSON *req, const char *region,
                                  struct cplane_now now, struct cplane_reply *r) {
    char name[CPREQ_NAME_MAX], cfg[CPREQ_NAME_MAX];
    int rc = cplane_ep_names(req, name, cfg, r);
    if (rc || r->type) return rc;
    if (cplane_find_ep(cp, region, name) < cp->n_eps)
        return cplane_arn_error(cp, r, "Cannot create already existing", CPLANE_KIND_ENDPOINT,
                                region, name);
    if (cp->n_eps == CPRES_MAX_EACH)
        return cplane_fail(r, 400, "ResourceLimitExceeded",
                           "sm-emulator holds at most %d endpoints: delete some", CPRES_MAX_EACH);
    struct cpres_endpoint *ep = calloc(1, sizeof *ep);
    if (!ep) return CPLANE_ERR_NOMEM;
    rc = cplane_read_tags(req, &ep->tags, r);
    if (!rc && !r->type) rc = cplane_deployable(cp, region, cfg, &ep->live, now, r);
    if (rc || r->type) {
        cplane_ep_free(ep);
        return rc;
    }
    snprintf(ep->name, sizeof ep->name, "%s", name);
    snprintf(ep->region, sizeof ep->region, "%s", region);
    ep->state = CPRES_CREATING;
    ep->created = ep->modified = now.wall;
    cp->eps[cp->n_eps++] = ep;
    return cplane_arn_reply(cp, r, CPLANE_KIND_ENDPOINT, region, name);
}

/* Refuses a change to an endpoint that is not InService (or a static one);
 * *ok when it may change. */
static int cplane_changeable(struct cplane *cp, const struct cpres_endpoint *ep, bool deleting,
                             struct cplane_reply *r, bool *ok) {
    *ok = false;
    if (ep->is_static)
        return cplane_fail(r, 400, "ValidationException",
                           "Endpoint %s was given on sm-emulator's command line (--endpoint): it "
                           "cannot be %s",
                           ep->name, deleting ? "deleted" : "updated");
    if (ep->state == CPRES_CREATING || ep->state == CPRES_UPDATING ||
        (!deleting && ep->state == CPRES_DELETING))
        return cplane_arn_error(cp, r, "Cannot update in-progress", CPLANE_KIND_ENDPOINT,
                                ep->region, ep->name);
    if (!deleting && ep->state == CPRES_FAILED)
        return cplane_arn_error(cp, r, "Cannot update failed", CPLANE_KIND_ENDPOINT, ep->region,
                                ep->name);
    *ok = true;
    return CPLANE_OK;
}

static int cplane_update_endpoint(struct cplane *cp, const cJSON *req, const char *region,
                                  struct cplane_now now, struct cplane_reply *r) {
    char name[CPREQ_NAME_MAX], cfg[CPREQ_NAME_MAX];
    bool ok;
    int rc = cplane_ep_names(req, name, cfg, r);
    if (rc || r->type) return rc;
    size_t i = cplane_find_ep(cp, region, name);
    if (i == cp->n_eps)
        return cplane_arn_error(cp, r, "Could not find", CPLANE_KIND_ENDPOINT, region, name);
    struct cpres_endpoint *ep = cp->eps[i];
    if ((rc = cplane_changeable(cp, ep, false, r, &ok)) || !ok) return rc;
    struct cpres_deploy *next = malloc(sizeof *next);
    if (!next) return CPLANE_ERR_NOMEM;
    rc = cplane_deployable(cp, region, cfg, next, now, r);
    if (!rc && !r->type) {
        ep->next = *next;
        ep->state = CPRES_UPDATING;
        ep->failure[0] = '\0';
        ep->modified = now.wall;
        rc = cplane_arn_reply(cp, r, CPLANE_KIND_ENDPOINT, region, name);
    }
    free(next);
    return rc;
}

/* DeleteEndpoint of ep: Deleting, then gone (refused while it changes). */
static int cplane_delete_endpoint(struct cplane *cp, struct cpres_endpoint *ep,
                                  struct cplane_now now, struct cplane_reply *r) {
    bool ok;
    int rc;
    if (ep->state == CPRES_DELETING) return cplane_ok_empty(r);
    if ((rc = cplane_changeable(cp, ep, true, r, &ok)) || !ok) return rc;
    if (ep->state == CPRES_IN_SERVICE && cp->on_event) cp->on_event(cp->ud, CPLANE_STOP, ep);
    ep->state = CPRES_DELETING;
    ep->modified = now.wall;
    ep->gone_at = now.model + cp->conf->delete_s;
    return cplane_ok_empty(r);
}

/* DescribeModel / DeleteModel, DescribeEndpointConfig / DeleteEndpointConfig and
 * DescribeEndpoint / DeleteEndpoint: the resource of kind k the request names. */
static int cplane_resource_op(struct cplane *cp, const cJSON *req, const char *region,
                              enum cplane_kind k, bool del, struct cplane_now now,
                              struct cplane_reply *r) {
    size_t i;
    int rc = cplane_named(cp, req, region, k, &i, r);
    if (rc || r->type) return rc;
    if (!del) {
        rc = cplane_ok_open(r);
        if (!rc)
            rc = k == CPLANE_KIND_MODEL    ? cpdesc_model(&r->body, cp->account, cp->models[i])
                 : k == CPLANE_KIND_CONFIG ? cpdesc_config(&r->body, cp->account, cp->configs[i])
                                           : cpdesc_endpoint(&r->body, cp->account, cp->eps[i]);
        return cplane_ok_close(r, rc);
    }
    if (k == CPLANE_KIND_ENDPOINT) return cplane_delete_endpoint(cp, cp->eps[i], now, r);
    if (k == CPLANE_KIND_MODEL) {
        cplane_model_free(cp->models[i]);
        for (size_t j = i; j + 1 < cp->n_models; j++) cp->models[j] = cp->models[j + 1];
        cp->n_models--;
    } else {
        cplane_config_free(cp->configs[i]);
        for (size_t j = i; j + 1 < cp->n_configs; j++) cp->configs[j] = cp->configs[j + 1];
        cp->n_configs--;
    }
    return cplane_ok_empty(r);
}

/* ---- tags ---- */

/* The tags of the resource a tag call's ResourceArn names in region: 0 with
 * *tags, or a reply (r->type set: a bad ARN, or no such resource). */
static int cplane_tagged(struct cplane *cp, const cJSON *req, const char *region,
                         struct cptag_list **tags, struct cplane_reply *r) {
    struct cptag_arn a;
    struct buf why;
    buf_init(&why, 1024);
    int rc = cplane_checked(r, cptag_resource(req, &a, &why), &why);
    if (rc || r->type) return rc;
    bool here = strcmp(a.region, region) == 0 && strcmp(a.account, cp->account) == 0;
    size_t i;
    *tags = NULL;
    if (here && strcmp(a.type, "model") == 0 &&
        (i = cplane_find_model(cp, region, a.name)) < cp->n_models)
        *tags = &cp->models[i]->tags;
    else if (here && strcmp(a.type, "endpoint-config") == 0 &&
             (i = cplane_find_config(cp, region, a.name)) < cp->n_configs)
        *tags = &cp->configs[i]->tags;
    else if (here && strcmp(a.type, "endpoint") == 0 &&
             (i = cplane_find_ep(cp, region, a.name)) < cp->n_eps)
        *tags = &cp->eps[i]->tags;
    else if (here && strcmp(a.type, "inference-component") == 0 &&
             cpic_find(&cp->ic, region, a.name))
        *tags = &cpic_find(&cp->ic, region, a.name)->tags;
    if (*tags) return CPLANE_OK;
    return cplane_fail(r, 400, "ValidationException", "Could not find resource \"%s\".",
                       cJSON_GetObjectItemCaseSensitive(req, "ResourceArn")->valuestring);
}

/* AddTags, ListTags, DeleteTags. */
static int cplane_tags_op(struct cplane *cp, const cJSON *req, const char *region, const char *op,
                          struct cplane_reply *r) {
    struct cptag_list *tags, add = {0};
    struct buf why;
    long start = 0, max = 0;
    int rc = cplane_tagged(cp, req, region, &tags, r);
    if (rc || r->type) return rc;
    buf_init(&why, 1024);
    int trc = strcmp(op, "AddTags") == 0    ? cptag_read(req, &add, &why)
              : strcmp(op, "ListTags") == 0 ? cptag_page(req, &start, &max, &why)
                                            : cptag_delete(req, tags, &why);
    if (!trc && strcmp(op, "AddTags") == 0 && !cJSON_GetObjectItemCaseSensitive(req, "Tags"))
        trc = buf_fail(&why, CPTAG_ERR_VALIDATION,
                       "1 validation error detected: Value null at 'tags' failed to satisfy "
                       "constraint: Member must not be null");
    if (!trc && strcmp(op, "DeleteTags") != 0) {
        rc = cplane_ok_open(r) || cptag_json(&r->body, strcmp(op, "AddTags") == 0 ? &add : tags,
                                             start, strcmp(op, "AddTags") == 0 ? CPTAG_MAX : max);
        rc = cplane_ok_close(r, rc);
    } else if (!trc) {
        rc = cplane_ok_empty(r);
    }
    if (!rc && !trc && strcmp(op, "AddTags") == 0) trc = cptag_merge(tags, &add, &why);
    cptag_free(&add);
    if (rc) {
        buf_free(&why);
        return CPLANE_ERR_NOMEM;
    }
    return cplane_tag_checked(r, trc, &why);
}

/* ---- ListEndpoints ---- */

static int cplane_list(struct cplane *cp, const cJSON *req, const char *region,
                       struct cplane_reply *r) {
    struct cpreq_list l;
    struct buf why;
    buf_init(&why, 1024);
    int rc = cplane_checked(r, cpreq_list(req, &l, &why), &why);
    if (rc || r->type) return rc;
    rc = cplane_ok_open(r) || cpdesc_list(&r->body, cp->account, cp->eps, cp->n_eps, region, &l);
    return cplane_ok_close(r, rc);
}

/* ---- inference components (cpic.h) ---- */

/* What cpic said (rc, with why) as the reply, as cplane_checked; frees why. */
static int cplane_ic_checked(struct cplane_reply *r, int rc, struct buf *why) {
    if (rc == CPIC_ERR_NOMEM) {
        buf_free(why);
        return CPLANE_ERR_NOMEM;
    }
    if (rc)
        rc = cplane_fail(r, 400,
                         rc == CPIC_ERR_SERIALIZATION ? "SerializationException"
                         : rc == CPIC_ERR_LIMIT       ? "ResourceLimitExceeded"
                                                      : "ValidationException",
                         "%s", buf_str(why));
    buf_free(why);
    return rc;
}

/* The profile the SM_VLLM_MODEL of model (of region) maps to, or NULL. */
static const char *cplane_model_profile(const struct cplane *cp, const char *region,
                                        const char *model) {
    size_t m = cplane_find_model(cp, region, model);
    const char *id = NULL;
    for (size_t k = 0; m < cp->n_models && k < cp->models[m]->n_env; k++)
        if (strcmp(cp->models[m]->env_keys[k], "SM_VLLM_MODEL") == 0)
            id = cp->models[m]->env_values[k];
    return id ? cpconf_profile(cp->conf, id) : NULL;
}

/* Model seconds a copy running profile (may be NULL) takes to load: the
 * built-in profile's load_s; 0 for another profile. */
static double cplane_load_s(const char *profile) {
    struct model_profile p;
    double load = 0;
    if (profile && model_builtin(profile, &p) == 0) {
        load = p.load_s;
        model_free(&p);
    }
    return load;
}

/* The variant of ep a component names (the only one when it names none):
 * its index, or n_v with the refusal in r. */
static size_t cplane_ic_variant(const struct cpres_endpoint *ep, const char *variant,
                                struct cplane_reply *r, int *rc) {
    const struct cpreq_config *cfg = &ep->live.cfg;
    if (!variant[0] && cfg->n_v == 1) return 0;
    for (size_t i = 0; variant[0] && i < cfg->n_v; i++)
        if (strcmp(cfg->v[i].name, variant) == 0) return i;
    *rc = variant[0]
              ? cplane_fail(r, 400, "ValidationException",
                            "Could not find variant %s of endpoint %s.", variant, ep->name)
              : cplane_fail(r, 400, "ValidationException",
                            "Endpoint %s has %zu variants: give VariantName.", ep->name, cfg->n_v);
    return cfg->n_v;
}

/* The instances variant v of ep runs now. */
static long cplane_instances(const struct cpres_endpoint *ep, size_t v) {
    return ep->live.current[v] > 0 ? ep->live.current[v] : ep->live.cfg.v[v].count;
}

static int cplane_create_component(struct cplane *cp, const cJSON *req, const char *region,
                                   struct cplane_now now, struct cplane_reply *r) {
    struct cpic_create c;
    struct cptag_list tags = {0};
    struct buf why;
    buf_init(&why, 2048);
    int rc = cplane_ic_checked(r, cpic_read_create(req, &c, &why), &why);
    if (rc || r->type) return rc;
    if (cpic_find(&cp->ic, region, c.name))
        return cplane_arn_error(cp, r, "Cannot create already existing", CPLANE_KIND_COMPONENT,
                                region, c.name);
    size_t e = cplane_find_ep(cp, region, c.endpoint);
    if (e == cp->n_eps)
        return cplane_arn_error(cp, r, "Could not find", CPLANE_KIND_ENDPOINT, region, c.endpoint);
    const struct cpres_endpoint *ep = cp->eps[e];
    if (ep->state != CPRES_IN_SERVICE)
        return cplane_fail(r, 400, "ValidationException",
                           "Endpoint %s is %s: an inference component needs it InService.",
                           ep->name, cpres_state_name(ep->state));
    size_t v = cplane_ic_variant(ep, c.variant, r, &rc);
    if (v == ep->live.cfg.n_v) return rc;
    snprintf(c.variant, sizeof c.variant, "%s", ep->live.cfg.v[v].name);
    if (cplane_find_model(cp, region, c.model) == cp->n_models)
        return cplane_arn_error(cp, r, "Could not find", CPLANE_KIND_MODEL, region, c.model);
    const char *type = ep->live.cfg.v[v].pools[ep->live.p[v].pool].type;
    buf_init(&why, 2048);
    rc =
        cplane_ic_checked(r,
                          cpic_fits(&cp->ic, region, ep->name, c.variant, type,
                                    cplane_instances(ep, v), c.name, &c.need, c.copies, NULL, &why),
                          &why);
    if (!rc && !r->type) rc = cplane_read_tags(req, &tags, r);
    if (!rc && !r->type) {
        const char *profile = cplane_model_profile(cp, region, c.model); /* its copies run it */
        snprintf(c.profile, sizeof c.profile, "%s", profile ? profile : "");
        buf_init(&why, 1024);
        rc = cplane_ic_checked(r,
                               cpic_add(&cp->ic, &c, region, type, cplane_load_s(profile),
                                        now.model, now.wall, &tags, &why),
                               &why);
    }
    cptag_free(&tags);
    if (rc || r->type) return rc;
    return cplane_arn_reply(cp, r, CPLANE_KIND_COMPONENT, region, c.name);
}

/* UpdateInferenceComponent(RuntimeConfig) of a component: its copy count. */
static int cplane_update_component(struct cplane *cp, const cJSON *req, const char *region,
                                   bool runtime, struct cplane_now now, struct cplane_reply *r) {
    struct cpic_update u;
    struct buf why;
    buf_init(&why, 2048);
    int rc = cplane_ic_checked(r, cpic_read_update(req, runtime, &u, &why), &why);
    if (rc || r->type) return rc;
    struct cpic_comp *c = cpic_find(&cp->ic, region, u.name);
    if (!c) return cplane_arn_error(cp, r, "Could not find", CPLANE_KIND_COMPONENT, region, u.name);
    if (c->state != CPIC_IN_SERVICE)
        return cplane_arn_error(cp, r, "Cannot update in-progress", CPLANE_KIND_COMPONENT, region,
                                c->name);
    const struct cpres_endpoint *ep = cplane_endpoint(cp, region, c->endpoint);
    if (u.copies >= 0 && u.copies > c->desired && ep) {
        size_t v = 0;
        while (v < ep->live.cfg.n_v && strcmp(ep->live.cfg.v[v].name, c->variant) != 0) v++;
        buf_init(&why, 2048);
        if (v < ep->live.cfg.n_v)
            rc = cplane_ic_checked(r,
                                   cpic_fits(&cp->ic, region, ep->name, c->variant,
                                             c->instance_type, cplane_instances(ep, v), c->name,
                                             &c->need, u.copies, c, &why),
                                   &why);
        else
            buf_free(&why);
        if (rc || r->type) return rc;
    }
    if (u.copies >= 0) cpic_set_copies(c, u.copies, now.model, now.wall);
    return cplane_arn_reply(cp, r, CPLANE_KIND_COMPONENT, region, c->name);
}

/* The inference components' operations. */
static int cplane_component_op(struct cplane *cp, const cJSON *req, const char *region,
                               const char *op, struct cplane_now now, struct cplane_reply *r) {
    if (strcmp(op, "CreateInferenceComponent") == 0)
        return cplane_create_component(cp, req, region, now, r);
    if (strcmp(op, "UpdateInferenceComponent") == 0 ||
        strcmp(op, "UpdateInferenceComponentRuntimeConfig") == 0)
        return cplane_update_component(cp, req, region, op[sizeof "UpdateInferenceComponent" - 1],
                                       now, r);
    struct buf why;
    buf_init(&why, 1024);
    if (strcmp(op, "ListInferenceComponents") == 0) {
        int rc = cplane_ok_open(r);
        if (rc) return CPLANE_ERR_NOMEM;
        int lrc = cpic_list(&r->body, cp->account, &cp->ic, region, req, &why);
        if (lrc) return cplane_ic_checked(r, lrc, &why);
        buf_free(&why);
        return cplane_ok_close(r, 0);
    }
    if (strcmp(op, "DescribeInferenceComponent") != 0 &&
        strcmp(op, "DeleteInferenceComponent") != 0) {
        buf_free(&why);
        return cplane_error(r, 400, "UnknownOperationException", NULL) ? CPLANE_ERR_NOMEM : 0;
    }
    struct cpic_update u;
    int rc = cplane_ic_checked(r, cpic_read_update(req, false, &u, &why), &why);
    if (rc || r->type) return rc;
    struct cpic_comp *c = cpic_find(&cp->ic, region, u.name);
    if (!c) return cplane_arn_error(cp, r, "Could not find", CPLANE_KIND_COMPONENT, region, u.name);
    if (op[2] == 'l') {
        cpic_delete(c, now.model, cp->conf->delete_s, now.wall);
        return cplane_ok_empty(r);
    }
    rc = cplane_ok_open(r) || cpic_describe(&r->body, cp->account, c);
    return cplane_ok_close(r, rc);
}

/* ---- the command line's endpoints ---- */

static int cplane_static_model(struct cplane *cp, const char *region, const char *name,
                               const char *model_id, struct cplane_now now) {
    char role[96];
    snprintf(role, sizeof role, CPLANE_STATIC_ROLE, cp->account);
    struct cpres_model *m = calloc(1, sizeof *m);
    bool nomem = !m;
    if (m) {
        snprintf(m->name, sizeof m->name, "%s", name);
        snprintf(m->region, sizeof m->region, "%s", region);
        snprintf(m->image, sizeof m->image, CPLANE_STATIC_IMAGE, region);
        m->role = cplane_dup(role, &nomem);
        m->env_keys = calloc(1, sizeof(char *));
        m->env_values = calloc(1, sizeof(char *));
        nomem |= !m->env_keys || !m->env_values;
        if (!nomem) {
            m->env_keys[0] = cplane_dup("SM_VLLM_MODEL", &nomem);
            m->env_values[0] = cplane_dup(model_id, &nomem);
            m->n_env = 1;
        }
        m->created = now.wall;
    }
    if (nomem || cp->n_models == CPRES_MAX_EACH) {
        cplane_model_free(m);
        return CPLANE_ERR_NOMEM;
    }
    cp->models[cp->n_models++] = m;
    return CPLANE_OK;
}

int cplane_add_static(struct cplane *cp, const char *region, const char *name,
                      const struct cplane_static_variant *v, size_t n, struct cplane_now now) {
    struct cpres_config *c = calloc(1, sizeof *c);
    struct cpres_endpoint *ep = calloc(1, sizeof *ep);
    if (!c || !ep || n == 0 || n > CPREQ_MAX_VARIANTS || cp->n_configs == CPRES_MAX_EACH ||
        cp->n_eps == CPRES_MAX_EACH) {
        free(c);
        free(ep);
        return CPLANE_ERR_NOMEM;
    }
    snprintf(c->spec.name, sizeof c->spec.name, "%s", name);
    snprintf(c->region, sizeof c->region, "%s", region);
    c->created = now.wall;
    for (size_t i = 0; i < n; i++) {
        struct cpreq_variant *cv = &c->spec.v[c->spec.n_v++];
        char model[CPREQ_NAME_MAX];
        snprintf(model, sizeof model, "%s%s%.*s", name, n > 1 ? "-" : "",
                 n > 1 ? (int)(62 - strlen(name)) : 0, n > 1 ? v[i].name : "");
        snprintf(cv->name, sizeof cv->name, "%s", v[i].name);
        snprintf(cv->model, sizeof cv->model, "%s", model);
        cv->count = v[i].count > 0 ? v[i].count : 1;
        cv->weight = v[i].weight;
        if (v[i].routing) snprintf(cv->routing, sizeof cv->routing, "%s", v[i].routing);
        cv->n_pools = 1;
        cv->pools[0].priority = 1;
        strcpy(cv->pools[0].type, CPLANE_STATIC_TYPE);
        if (cplane_find_model(cp, region, model) == cp->n_models &&
            cplane_static_model(cp, region, model, v[i].model_id, now)) {
            free(c);
            free(ep);
            return CPLANE_ERR_NOMEM;
        }
    }
    snprintf(ep->name, sizeof ep->name, "%s", name);
    snprintf(ep->region, sizeof ep->region, "%s", region);
    ep->state = CPRES_IN_SERVICE;
    ep->is_static = true;
    ep->created = ep->modified = now.wall;
    ep->live.cfg = c->spec;
    ep->live.started = now.model;
    ep->live.started_wall = now.wall;
    for (size_t i = 0; i < n; i++) {
        struct cpres_placement *p = &ep->live.p[i];
        p->st = CPRES_READY;
        cplane_bind_model(cp, region, &ep->live, i);
        snprintf(p->profile, sizeof p->profile, "%s", v[i].profile);
    }
    cp->configs[cp->n_configs++] = c;
    cp->eps[cp->n_eps++] = ep;
    return CPLANE_OK;
}

/* ---- dispatch ---- */

int cplane_call(struct cplane *cp, const char *op, const char *body, size_t len, const char *region,
                struct cplane_now now, struct cplane_reply *r) {
    cJSON *req = len ? cJSON_ParseWithLength(body, len) : cJSON_CreateObject();
    int rc = CPLANE_OK;
    r->type = NULL;
    r->status = 200;
    buf_reset(&r->body);
    cplane_advance(cp, now);
    if (!cJSON_IsObject(req))
        rc = cplane_fail(r, 400, "SerializationException", "the request body is not a JSON object");
    else if (strcmp(op, "CreateModel") == 0)
        rc = cplane_create_model(cp, req, region, now, r);
    else if (strcmp(op, "DescribeModel") == 0 || strcmp(op, "DeleteModel") == 0)
        rc = cplane_resource_op(cp, req, region, CPLANE_KIND_MODEL, op[2] == 'l', now, r);
    else if (strcmp(op, "CreateEndpointConfig") == 0)
        rc = cplane_create_config(cp, req, region, now, r);
    else if (strcmp(op, "DescribeEndpointConfig") == 0 || strcmp(op, "DeleteEndpointConfig") == 0)
        rc = cplane_resource_op(cp, req, region, CPLANE_KIND_CONFIG, op[2] == 'l', now, r);
    else if (strcmp(op, "CreateEndpoint") == 0)
        rc = cplane_create_endpoint(cp, req, region, now, r);
    else if (strcmp(op, "UpdateEndpoint") == 0)
        rc = cplane_update_endpoint(cp, req, region, now, r);
    else if (strcmp(op, "DescribeEndpoint") == 0 || strcmp(op, "DeleteEndpoint") == 0)
        rc = cplane_resource_op(cp, req, region, CPLANE_KIND_ENDPOINT, op[2] == 'l', now, r);
    else if (strcmp(op, "ListEndpoints") == 0)
        rc = cplane_list(cp, req, region, r);
    else if (strstr(op, "InferenceComponent"))
        rc = cplane_component_op(cp, req, region, op, now, r);
    else if (strcmp(op, "AddTags") == 0 || strcmp(op, "ListTags") == 0 ||
             strcmp(op, "DeleteTags") == 0)
        rc = cplane_tags_op(cp, req, region, op, r);
    else
        rc = cplane_error(r, 400, "UnknownOperationException", NULL) ? CPLANE_ERR_NOMEM : 0;
    cJSON_Delete(req);
    cplane_advance(cp, now);
    if (rc == CPLANE_ERR_NOMEM) {
        buf_reset(&r->body);
        r->status = 500;
        r->type = "InternalFailure";
        (void)!buf_adds(&r->body, "{\"__type\":\"InternalFailure\",\"message\":\"out of memory\"}");
    }
    return rc;
}
