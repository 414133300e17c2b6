#include "admit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "smname.h"

#define ADMIT_NAME_MAX 63
#define ADMIT_ECHO_MAX 200 /* bytes of a client's name quoted in a ValidationError */
#define ADMIT_PATTERN  "Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9])*"

void admit_refusal_init(struct admit_refusal *no) {
    *no = (struct admit_refusal){0};
    buf_init(&no->text, BUF_NO_CAP);
}

void admit_refusal_free(struct admit_refusal *no) {
    buf_free(&no->text);
}

/* Fills the refusal: status, type and a formatted message; returns NULL. */
__attribute__((format(printf, 4, 5))) static struct fleet_variant *
admit_refuse(struct admit_refusal *no, int status, const char *type, const char *fmt, ...) {
    va_list ap;
    no->status = status;
    no->type = type;
    buf_reset(&no->text);
    va_start(ap, fmt);
    if (buf_vaddf(&no->text, fmt, ap)) buf_reset(&no->text);
    va_end(ap);
    no->message = buf_str(&no->text);
    return NULL;
}

/* SigV4: 0, or the refusal filled (403, or 500 out of memory). */
static int admit_sigv4(struct auth *keys, const struct admit_request *r, struct admit_refusal *no) {
    const struct http_head *h = r->h;
    char method[64];
    if (h->method_len >= sizeof method) {
        admit_refuse(no, 400, "BadRequestException", "the method is too long");
        return AUTH_ERR_INVALID;
    }
    snprintf(method, sizeof method, "%.*s", (int)h->method_len, h->method);
    struct auth_request ar = {method,       h->target, h->target_len, h->headers,
                              h->n_headers, r->body,   r->len};
    struct buf why;
    buf_init(&why, BUF_NO_CAP);
    int rc = auth_verify(keys, &ar, r->now, &why);
    if (rc == AUTH_ERR_NOMEM)
        admit_refuse(no, 500, "InternalFailure", "out of memory");
    else if (rc)
        admit_refuse(no, 403, auth_error_type(rc), "%s", buf_str(&why));
    buf_free(&why);
    return rc;
}

/* The signature, or on the OpenAI route a bearer token: 0, or the refusal filled. */
static int admit_authenticate(struct auth *keys, const struct admit_request *r,
                              struct admit_refusal *no) {
    const struct sigv4_header *a = http_header(r->h, "authorization");
    bool openai = r->path && r->path->api == RTPATH_OPENAI;
    if (!openai || (a && !auth_is_bearer(a->value, a->value_len))) return admit_sigv4(keys, r, no);
    if (!a) {
        admit_refuse(no, 401, "MissingAuthenticationTokenException",
                     "Missing Authentication Token");
        return AUTH_ERR_MISSING;
    }
    struct buf why;
    buf_init(&why, BUF_NO_CAP);
    int rc = auth_bearer(keys, a->value, a->value_len, &why);
    if (rc) {
        admit_refuse(no, 401, NULL, "%s", buf_str(&why));
        no->code = "invalid_api_key";
    }
    buf_free(&why);
    return rc;
}

/* A name against SageMaker's rule: true, or the refusal filled. */
static bool admit_name(const char *name, size_t n, const char *member, struct admit_refusal *no) {
    if (smname_endpoint_ok(name, n)) return true;
    admit_refuse(no, 400, "ValidationError",
                 "1 validation error detected: Value '%.*s' at '%s' failed to satisfy "
                 "constraint: %s",
                 (int)(n > ADMIT_ECHO_MAX ? ADMIT_ECHO_MAX : n), name, member,
                 n > ADMIT_NAME_MAX ? "Member must have length less than or equal to 63"
                                    : ADMIT_PATTERN);
    return false;
}

/* The header X-Amzn-SageMaker-Session-Id of a SageMaker Runtime call (the
 * OpenAI route has no sessions), or NULL; an empty one is none. */
static const struct sigv4_header *admit_session(const struct admit_request *r) {
    const struct sigv4_header *sid = http_header(r->h, SESS_HEADER);
    return sid && sid->value_len && r->path->api != RTPATH_OPENAI ? sid : NULL;
}

/* SessionId against its constraints (InvokeEndpoint's pattern also allows
 * NEW_SESSION, InvokeEndpointWithResponseStream's does not): true, or the
 * refusal filled. */
static bool admit_session_id(const struct sigv4_header *sid, bool invoke,
                             struct admit_refusal *no) {
    size_t n = sid->value_len;
    if (sess_id_ok(sid->value, n, invoke)) return true;
    admit_refuse(no, 400, "ValidationError",
                 "1 validation error detected: Value '%.*s' at 'sessionId' failed to satisfy "
                 "constraint: %s",
                 (int)(n > ADMIT_ECHO_MAX ? ADMIT_ECHO_MAX : n), sid->value,
                 n > SESS_ID_MAX ? "Member must have length less than or equal to 256"
                 : invoke        ? "Member must satisfy regular expression pattern: "
                                   "^(NEW_SESSION)$|^[a-zA-Z0-9](-*[a-zA-Z0-9])*$"
                                 : "Member must satisfy regular expression pattern: "
                                   "^[a-zA-Z0-9](-*[a-zA-Z0-9])*$");
    return false;
}

/* The variant of ep whose container holds the session sid names, or NULL. */
static struct fleet_variant *admit_session_variant(struct fleet_endpoint *ep,
                                                   const struct sigv4_header *sid) {
    for (size_t i = 0; sid && i < ep->n_variants; i++)
        if (sess_holds(&ep->variants[i].sessions, sid->value, sid->value_len))
            return &ep->variants[i];
    return NULL;
}

/* Counts a call of component c for CloudWatch (refused: for want of a copy). */
static void admit_component_metric(const struct admit_request *r, const struct cpic_comp *c,
                                   bool refused) {
    struct cwmetric_ic_call call = {r->received, refused,
                                    c->current > 0 ? 1.0f / (float)c->current : 0};
    if (r->cwmetrics) (void)!cwmetric_component(r->cwmetrics, c->name, &call);
}

/* The inference component comp[0..n) of ep that has a copy serving, or NULL
 * with the refusal (none of that name on ep; or no copy: the no-capacity
 * error, counted). */
static const struct cpic_comp *admit_component(const struct admit_request *r,
                                               const struct fleet_endpoint *ep, const char *comp,
                                               size_t n, struct admit_refusal *no) {
    char name[CPREQ_NAME_MAX];
    snprintf(name, sizeof name, "%.*s", (int)n, comp);
    struct cpic_comp *c = cpic_find(r->ics, r->ic_region, name);
    if (!c || c->state == CPIC_DELETING || strcasecmp(c->endpoint, ep->name) != 0) {
        admit_refuse(no, 400, "ValidationError",
                     "Inference Component %s not found for Endpoint %s of account %s.", name,
                     ep->name, r->account);
        return NULL;
    }
    if (c->current > 0) {
        c->invocations++;
        admit_component_metric(r, c, false);
        return c;
    }
    c->no_capacity++;
    admit_component_metric(r, c, true);
    admit_refuse(no, 400, "ValidationError", "%s", CPIC_NO_CAPACITY);
    return NULL;
}

/* The component of copies c on ep as the control plane keeps it, or NULL when
 * it is gone, deleting, or now on another endpoint or variant. */
static const struct cpic_comp *admit_copies_of(const struct cpic *ics, const char *region,
                                               const struct fleet_endpoint *ep,
                                               const struct fleet_copies *c) {
    const struct cpic_comp *ic = cpic_find(ics, region, c->name);
    if (!ic || ic->state == CPIC_DELETING || strcasecmp(ic->endpoint, ep->name) != 0 ||
        strcmp(ic->variant, c->host->name) != 0)
        return NULL;
    return ic;
}

void admit_copies(struct fleet *f, const struct cpic *ics, const char *region) {
    for (size_t e = 0; ics && e < f->n_eps; e++) {
        struct fleet_endpoint *ep = &f->eps[e];
        for (size_t i = 0; i < ep->n_copies; i++) {
            struct fleet_copies *c = &ep->copies[i];
            const struct cpic_comp *ic = admit_copies_of(ics, region, ep, c);
            /* out of memory leaves the copies as they were, for the next call to set */
            (void)!fleet_copies_set(ep, c->host->name, c->name, ic ? ic->profile : NULL,
                                    ic ? ic->current : 0);
        }
    }
}

/* One of ic's copies on ep for a call (sid: its session, or NULL), its copies
 * set to those the control plane counts serving first; or NULL with the
 * refusal. */
static struct fleet_variant *admit_copy(struct fleet_endpoint *ep, const struct cpic_comp *ic,
                                        const struct sigv4_header *sid, uint64_t *rng,
                                        const char *account, struct admit_refusal *no) {
    int rc = fleet_copies_set(ep, ic->variant, ic->name, ic->profile, ic->current);
    if (rc == FLEET_ERR_NOMEM) return admit_refuse(no, 500, "InternalFailure", "out of memory");
    struct fleet_variant *var =
        rc ? NULL
           : fleet_copies_pick(ep, ic->variant, ic->name, sid ? sid->value : NULL,
                               sid ? sid->value_len : 0, rng);
    if (!var)
        return admit_refuse(no, 400, "ValidationError",
                            "Variant %s not found for Endpoint %s of account %s.", ic->variant,
                            ep->name, account);
    var->counts.requests++;
    return var;
}

struct fleet_variant *admit_request(struct auth *keys, struct fleet *f,
                                    const struct admit_request *r, uint64_t *rng,
                                    struct admit_refusal *no) {
    const struct rtpath *p = r->path;
    struct fleet_endpoint *ep = p ? fleet_find(f, p->name, p->name_len) : NULL;
    no->ep = ep;
    if (ep) ep->counts.requests++;
    if (admit_authenticate(keys, r, no)) return NULL;
    if (!p) {
        no->status = 404;
        no->type = "UnknownOperationException";
        return NULL;
    }
    if (!admit_name(p->name, p->name_len, "endpointName", no)) {
        no->ep = NULL;
        return NULL;
    }
    const struct sigv4_header *sid = admit_session(r);
    if (sid && !admit_session_id(sid, p->api == RTPATH_INVOKE, no)) return NULL;
    if (!ep)
        return admit_refuse(no, 400, "ValidationError", "Endpoint %.*s of account %s not found.",
                            (int)p->name_len, p->name, r->account);
    const struct sigv4_header *ich = http_header(r->h, "x-amzn-sagemaker-inference-component");
    const char *comp = p->component ? p->component : ich ? ich->value : NULL;
    size_t comp_len = p->component ? p->component_len : ich ? ich->value_len : 0;
    if (comp && !admit_name(comp, comp_len, "inferenceComponentName", no)) return NULL;
    const struct cpic_comp *ic = NULL;
    if (comp && r->ics && !(ic = admit_component(r, ep, comp, comp_len, no))) return NULL;
    if (ic) return admit_copy(ep, ic, sid, rng, r->account, no);
    const struct sigv4_header *want = http_header(r->h, "x-amzn-sagemaker-target-variant");
    struct fleet_variant *var = want ? NULL : admit_session_variant(ep, sid); /* sticky */
    if (!var) var = fleet_pick(ep, want ? want->value : NULL, want ? want->value_len : 0, rng);
    if (!var) { /* only a named variant can be missing */
        size_t n = want ? want->value_len : 0;
        return admit_refuse(no, 400, "ValidationError",
                            "Variant %.*s not found for Endpoint %s of account %s.",
                            (int)(n > ADMIT_ECHO_MAX ? ADMIT_ECHO_MAX : n), want ? want->value : "",
                            ep->name, r->account);
    }
    var->counts.requests++;
    return var;
}
