#include "cpdesc.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "jsonw.h"
#include "sigv4.h"

/* ,"key":"value" (first: no comma) */
static int cpdesc_str(struct buf *out, bool first, const char *key, const char *value) {
    int rc = buf_addf(out, "%s\"%s\":", first ? "" : ",", key);
    return rc ? rc : jsonw_cstr(out, value);
}

/* ,"key":number as a timestamp (milliseconds kept) */
static int cpdesc_time(struct buf *out, const char *key, double t) {
    return buf_addf(out, ",\"%s\":%.3f", key, t);
}

int cpdesc_model(struct buf *out, const char *account, const struct cpres_model *m) {
    int rc = cpdesc_str(out, true, "ModelName", m->name);
    if (!rc) rc = buf_adds(out, ",\"PrimaryContainer\":{");
    if (!rc) rc = cpdesc_str(out, true, "Image", m->image);
    if (!rc) rc = buf_adds(out, ",\"Mode\":\"SingleModel\",\"Environment\":{");
    for (size_t i = 0; !rc && i < m->n_env; i++) {
        rc = jsonw_cstr(out, m->env_keys[i]);
        if (!rc) rc = buf_addc(out, ':');
        if (!rc) rc = jsonw_cstr(out, m->env_values[i]);
        if (!rc && i + 1 < m->n_env) rc = buf_addc(out, ',');
    }
    if (!rc) rc = buf_adds(out, "}}");
    if (!rc) rc = cpdesc_str(out, false, "ExecutionRoleArn", m->role);
    if (!rc) rc = cpdesc_time(out, "CreationTime", m->created);
    if (!rc) rc = buf_adds(out, ",\"ModelArn\":");
    if (!rc) rc = cpres_arn_json(out, account, m->region, "model", m->name);
    return rc ? rc : buf_adds(out, ",\"EnableNetworkIsolation\":false");
}

/* One production variant of a config. */
static int cpdesc_config_variant(struct buf *out, const struct cpreq_variant *v) {
    int rc = buf_addc(out, '{');
    if (!rc) rc = cpdesc_str(out, true, "VariantName", v->name);
    if (!rc) rc = cpdesc_str(out, false, "ModelName", v->model);
    if (!rc) rc = buf_addf(out, ",\"InitialInstanceCount\":%ld", v->count);
    if (!rc && v->routing[0]) rc = buf_addf(out, ",\"RoutingConfig\":{\"RoutingStrategy\":");
    if (!rc && v->routing[0]) rc = jsonw_cstr(out, v->routing);
    if (!rc && v->routing[0]) rc = buf_addc(out, '}');
    if (!rc && !v->pools_given) rc = cpdesc_str(out, false, "InstanceType", v->pools[0].type);
    if (!rc && v->pools_given) rc = buf_adds(out, ",\"InstancePools\":[");
    for (size_t i = 0; !rc && v->pools_given && i < v->n_pools; i++) {
        rc = buf_addf(out, "%s{", i ? "," : "");
        if (!rc) rc = cpdesc_str(out, true, "InstanceType", v->pools[i].type);
        if (!rc && v->pools[i].model[0])
            rc = cpdesc_str(out, false, "ModelNameOverride", v->pools[i].model);
        if (!rc) rc = buf_addf(out, ",\"Priority\":%d}", v->pools[i].priority);
    }
    if (!rc && v->pools_given) rc = buf_addc(out, ']');
    if (!rc && v->provision_timeout_s)
        rc = buf_addf(out, ",\"VariantInstanceProvisionTimeoutInSeconds\":%ld",
                      v->provision_timeout_s);
    if (!rc) rc = buf_addf(out, ",\"InitialVariantWeight\":%.17g}", v->weight);
    return rc;
}

int cpdesc_config(struct buf *out, const char *account, const struct cpres_config *c) {
    int rc = cpdesc_str(out, true, "EndpointConfigName", c->spec.name);
    if (!rc) rc = buf_adds(out, ",\"EndpointConfigArn\":");
    if (!rc) rc = cpres_arn_json(out, account, c->region, "endpoint-config", c->spec.name);
    if (!rc) rc = buf_adds(out, ",\"ProductionVariants\":[");
    for (size_t i = 0; !rc && i < c->spec.n_v; i++) {
        if (i) rc = buf_addc(out, ',');
        if (!rc) rc = cpdesc_config_variant(out, &c->spec.v[i]);
    }
    if (!rc) rc = buf_addc(out, ']');
    return rc ? rc : cpdesc_time(out, "CreationTime", c->created);
}

/* DeployedImages: the image and a digest made from it. */
static int cpdesc_images(struct buf *out, const struct cpres_placement *p, double when) {
    char hex[SIGV4_HEX_LEN + 1];
    const char *at = strchr(p->image, '@');
    size_t base = at ? (size_t)(at - p->image) : strlen(p->image);
    const char *colon = memchr(p->image, ':', base);
    const char *slash = memchr(p->image, '/', base);
    if (colon && slash && colon > slash) base = (size_t)(colon - p->image); /* drop the tag */
    if (sigv4_sha256_hex(p->image, strlen(p->image), hex)) return BUF_ERR_NOMEM;
    int rc = buf_adds(out, ",\"DeployedImages\":[{");
    if (!rc) rc = cpdesc_str(out, true, "SpecifiedImage", p->image);
    if (!rc) rc = buf_addf(out, ",\"ResolvedImage\":");
    struct buf resolved;
    buf_init(&resolved, 1024);
    if (!rc) rc = buf_addf(&resolved, "%.*s@sha256:%s", (int)base, p->image, hex);
    if (!rc) rc = jsonw_str(out, buf_str(&resolved), resolved.len);
    buf_free(&resolved);
    if (!rc) rc = cpdesc_time(out, "ResolutionTime", when);
    return rc ? rc : buf_adds(out, "}]");
}

/* The EndpointStatus: Updating while an InService endpoint's instances launch. */
static const char *cpdesc_status(const struct cpres_endpoint *ep) {
    return ep->state == CPRES_IN_SERVICE && ep->scaling ? cpres_state_name(CPRES_UPDATING)
                                                        : cpres_state_name(ep->state);
}

/* One ProductionVariantSummary of a deployment that serves. */
static int cpdesc_summary_variant(struct buf *out, const struct cpres_deploy *d, size_t i) {
    const struct cpreq_variant *v = &d->cfg.v[i];
    const struct cpres_placement *p = &d->p[i];
    int rc = buf_addc(out, '{');
    if (!rc) rc = cpdesc_str(out, true, "VariantName", v->name);
    if (!rc) rc = cpdesc_images(out, p, d->started_wall);
    if (!rc)
        rc = buf_addf(out,
                      ",\"CurrentWeight\":%.17g,\"DesiredWeight\":%.17g,"
                      "\"CurrentInstanceCount\":%ld,\"DesiredInstanceCount\":%ld",
                      v->weight, v->weight, d->current[i] ? d->current[i] : v->count,
                      d->desired[i] ? d->desired[i] : v->count);
    if (!rc && v->pools_given) rc = buf_adds(out, ",\"InstancePools\":[");
    for (size_t k = 0; !rc && v->pools_given && k < v->n_pools; k++) {
        rc = buf_addf(out, "%s{", k ? "," : "");
        if (!rc) rc = cpdesc_str(out, true, "InstanceType", v->pools[k].type);
        if (!rc)
            rc = buf_addf(out, ",\"CurrentInstanceCount\":%ld}",
                          k != p->pool    ? 0
                          : d->current[i] ? d->current[i]
                                          : v->count);
    }
    if (!rc && v->pools_given) rc = buf_addc(out, ']');
    return rc ? rc : buf_addc(out, '}');
}

int cpdesc_endpoint(struct buf *out, const char *account, const struct cpres_endpoint *ep) {
    bool serving =
        ep->state == CPRES_IN_SERVICE || ep->state == CPRES_UPDATING || ep->state == CPRES_DELETING;
    int rc = cpdesc_str(out, true, "EndpointName", ep->name);
    if (!rc) rc = buf_adds(out, ",\"EndpointArn\":");
    if (!rc) rc = cpres_arn_json(out, account, ep->region, "endpoint", ep->name);
    if (!rc) rc = cpdesc_str(out, false, "EndpointConfigName", ep->live.cfg.name);
    if (!rc && serving) rc = buf_adds(out, ",\"ProductionVariants\":[");
    for (size_t i = 0; !rc && serving && i < ep->live.cfg.n_v; i++) {
        if (i) rc = buf_addc(out, ',');
        if (!rc) rc = cpdesc_summary_variant(out, &ep->live, i);
    }
    if (!rc && serving) rc = buf_addc(out, ']');
    if (!rc) rc = cpdesc_str(out, false, "EndpointStatus", cpdesc_status(ep));
    if (!rc && ep->failure[0]) rc = cpdesc_str(out, false, "FailureReason", ep->failure);
    if (!rc) rc = cpdesc_time(out, "CreationTime", ep->created);
    return rc ? rc : cpdesc_time(out, "LastModifiedTime", ep->modified);
}

int cpdesc_summary(struct buf *out, const char *account, const struct cpres_endpoint *ep) {
    int rc = buf_addc(out, '{');
    if (!rc) rc = cpdesc_str(out, true, "EndpointName", ep->name);
    if (!rc) rc = buf_adds(out, ",\"EndpointArn\":");
    if (!rc) rc = cpres_arn_json(out, account, ep->region, "endpoint", ep->name);
    if (!rc) rc = cpdesc_time(out, "CreationTime", ep->created);
    if (!rc) rc = cpdesc_time(out, "LastModifiedTime", ep->modified);
    if (!rc) rc = cpdesc_str(out, false, "EndpointStatus", cpdesc_status(ep));
    return rc ? rc : buf_addc(out, '}');
}

bool cpdesc_contains(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (strncasecmp(p, needle, n) == 0) return true;
    return n == 0;
}

bool cpdesc_before(const struct cpdesc_key *a, const struct cpdesc_key *b,
                   const struct cpreq_list *l) {
    int c = l->by_name     ? strcmp(a->name, b->name)
            : l->by_status ? strcmp(a->status, b->status)
                           : (a->created > b->created) - (a->created < b->created);
    if (c == 0) c = strcmp(a->name, b->name);
    return l->ascending ? c < 0 : c > 0;
}

/* An endpoint's sort key. */
static struct cpdesc_key cpdesc_ep_key(const struct cpres_endpoint *ep) {
    return (struct cpdesc_key){ep->name, cpres_state_name(ep->state), ep->created};
}

int cpdesc_list(struct buf *out, const char *account, struct cpres_endpoint *const *eps,
                size_t n_eps, const char *region, const struct cpreq_list *l) {
    const struct cpres_endpoint *sel[CPRES_MAX_EACH];
    size_t n = 0;
    for (size_t i = 0; i < n_eps; i++) {
        const struct cpres_endpoint *ep = eps[i];
        if (strcmp(ep->region, region) != 0 ||
            (l->name_contains && !cpdesc_contains(ep->name, l->name_contains)) ||
            (l->status && strcmp(l->status, cpdesc_status(ep)) != 0))
            continue;
        size_t j = n++;
        struct cpdesc_key k = cpdesc_ep_key(ep), o;
        for (; j > 0 && (o = cpdesc_ep_key(sel[j - 1]), cpdesc_before(&k, &o, l)); j--)
            sel[j] = sel[j - 1];
        sel[j] = ep;
    }
    int rc = buf_adds(out, "\"Endpoints\":[");
    size_t end = (size_t)l->start + (size_t)l->max_results;
    for (size_t i = (size_t)l->start; !rc && i < n && i < end; i++)
        rc = (i > (size_t)l->start && buf_addc(out, ',')) || cpdesc_summary(out, account, sel[i]);
    if (!rc) rc = buf_addc(out, ']');
    if (!rc && end < n) rc = buf_addf(out, ",\"NextToken\":\"t%zu\"", end);
    return rc;
}
