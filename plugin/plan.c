#include "plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "body.h"
#include "quiz.h"

#define PLAN_MAX_HEADERS 4 /* variant, custom attributes, inference component, session */

struct plan_entry {
    size_t request;     /* index into the plan's requests */
    struct sreq *sreq;  /* that request's (its address stays) */
    struct sreq *plain; /* the same without continuous_usage_stats (a container that refuses
                         * it: run_plain_usage), or sreq itself when its body has none */
    struct call *call;
    struct conv_spec *conv;           /* NULL: a single request */
    bool has_temperature, ignore_eos; /* what a conversation's turns are sent with */
    double temperature;
    long max_tokens;
};

struct plan_round {
    long per_thread;
    double duration_s;
    size_t first, n; /* its entries */
    long long *at;   /* open loop: the arrivals (arrivals.h), n_at of them; items go round */
    long n_at;
};

/* A distinct request: a side, a body and its Content-Type. */
struct plan_req {
    size_t side;
    uint64_t hash; /* of the side and the body */
    char *body;
    size_t body_len;
    char *content_type; /* NULL: application/json */
    struct sreq *sreq;
};

struct plan {
    char *strings[7]; /* the copies plan_request points to */
    struct plan_request rq;
    enum body_format format;
    enum body_thinking thinking;
    cJSON *extra;
    struct plan_side *sides;
    size_t n_sides;
    struct plan_round *rounds;
    size_t n_rounds;
    struct plan_entry *entries;
    size_t n_entries, cap_entries;
    struct plan_req *reqs;
    size_t n_reqs, cap_reqs;
    size_t *table;    /* open addressing over reqs: index + 1, 0 empty */
    size_t item_reqs; /* requests before the item being added (a shared plan's own) */
    size_t table_size;
    struct quiz_re **patterns;
    size_t n_patterns;
    struct buf body; /* scratch */
};

/* Whether route is the OpenAI-compatible one (streamed or not). */
static bool plan_route_openai(enum plan_route route) {
    return route == PLAN_ROUTE_OPENAI || route == PLAN_ROUTE_OPENAI_WHOLE;
}

/* Whether route's bodies ask for a stream. */
static bool plan_route_streams(enum plan_route route) {
    return route == PLAN_ROUTE_STREAM || route == PLAN_ROUTE_OPENAI;
}

static char *plan_dup(const char *s, bool *ok) {
    char *d = s ? strdup(s) : NULL;
    if (s && !d) *ok = false;
    return d;
}

/* A thinking model's switch as body.h takes it. */
static enum body_thinking plan_thinking(const char *s) {
    return !s                      ? BODY_THINKING_DEFAULT
           : strcmp(s, "on") == 0  ? BODY_THINKING_ON
           : strcmp(s, "off") == 0 ? BODY_THINKING_OFF
                                   : BODY_THINKING_DEFAULT;
}

static int plan_copy_request(struct plan *p, const struct plan_request *rq, struct buf *err) {
    bool ok = true;
    p->rq = *rq;
    p->rq.host = p->strings[0] = plan_dup(rq->host, &ok);
    p->rq.region = p->strings[1] = plan_dup(rq->region, &ok);
    p->rq.service = p->strings[2] = plan_dup(rq->service, &ok);
    p->rq.user_agent = p->strings[3] = plan_dup(rq->user_agent, &ok);
    p->rq.raw_body = p->strings[4] = plan_dup(rq->raw_body, &ok);
    p->rq.custom_attributes = p->strings[5] = plan_dup(rq->custom_attributes, &ok);
    p->rq.bearer = p->strings[6] = plan_dup(rq->bearer, &ok);
    p->rq.format = NULL;
    p->rq.extra = NULL;
    p->rq.thinking = NULL;
    if (!ok) return PLAN_ERR_NOMEM;
    if (rq->thinking && strcmp(rq->thinking, "on") != 0 && strcmp(rq->thinking, "off") != 0 &&
        strcmp(rq->thinking, "default") != 0)
        return buf_fail(err, PLAN_ERR_INPUT, "thinking must be on, off or default, not '%.40s'",
                        rq->thinking);
    p->thinking = plan_thinking(rq->thinking);
    if (!rq->host || !rq->region || !rq->service)
        return buf_fail(err, PLAN_ERR_INPUT, "a request needs a host, a region and a service");
    if (body_format_parse(rq->format ? rq->format : "", &p->format))
        return buf_fail(err, PLAN_ERR_INPUT, "unknown body format '%s'",
                        rq->format ? rq->format : "");
    if (plan_route_openai(rq->route) && p->format != BODY_VLLM_CHAT)
        return buf_fail(err, PLAN_ERR_INPUT,
                        "the OpenAI route takes chat bodies only (--format vllm-chat)");
    if ((p->format == BODY_RAW) != (rq->raw_body != NULL))
        return buf_fail(err, PLAN_ERR_INPUT, "a raw body goes with the raw format, and only there");
    if (rq->extra && !cJSON_IsObject(p->extra = cJSON_Parse(rq->extra)))
        return buf_fail(err, PLAN_ERR_INPUT, "the extra fields are not a JSON object");
    return PLAN_OK;
}

static int plan_copy_sides(struct plan *p, const struct plan_side *sides, size_t n) {
    bool ok = (p->sides = calloc(n ? n : 1, sizeof *p->sides)) != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        p->sides[i].name = plan_dup(sides[i].name, &ok);
        p->sides[i].variant = plan_dup(sides[i].variant, &ok);
        p->sides[i].component = plan_dup(sides[i].component, &ok);
        p->n_sides = i + 1;
    }
    return ok ? PLAN_OK : PLAN_ERR_NOMEM;
}

int plan_new(const struct plan_request *request, const struct plan_side *sides, size_t n_sides,
             struct plan **out, struct buf *err) {
    struct plan *p = calloc(1, sizeof *p);
    *out = NULL;
    if (!p) return PLAN_ERR_NOMEM;
    buf_init(&p->body, BUF_NO_CAP);
    int rc = plan_copy_request(p, request, err);
    if (!rc) rc = plan_copy_sides(p, sides, n_sides);
    for (size_t i = 0; !rc && i < n_sides; i++)
        if (!sides[i].name) rc = buf_fail(err, PLAN_ERR_INPUT, "side %zu has no endpoint", i + 1);
    if (rc) {
        plan_free(p);
        return rc;
    }
    *out = p;
    return PLAN_OK;
}

static void plan_conv_free(struct conv_spec *c) {
    for (size_t i = 0; c && i < c->n_turns; i++) free(c->prompts[i]);
    if (c) free(c->prompts);
    if (c) free(c->think_us);
    free(c);
}

void plan_free(struct plan *p) {
    if (!p) return;
    for (size_t i = 0; i < sizeof p->strings / sizeof p->strings[0]; i++) free(p->strings[i]);
    cJSON_Delete(p->extra);
    for (size_t i = 0; i < p->n_sides; i++) {
        free((char *)p->sides[i].name);
        free((char *)p->sides[i].variant);
        free((char *)p->sides[i].component);
    }
    free(p->sides);
    for (size_t i = 0; i < p->n_entries; i++) {
        call_free(p->entries[i].call);
        plan_conv_free(p->entries[i].conv);
    }
    for (size_t i = 0; i < p->n_reqs; i++) {
        free(p->reqs[i].body);
        free(p->reqs[i].content_type);
        sreq_free(p->reqs[i].sreq);
    }
    for (size_t i = 0; i < p->n_patterns; i++) quiz_re_free(p->patterns[i]);
    free(p->patterns);
    for (size_t i = 0; p->rounds && i < p->n_rounds; i++) free(p->rounds[i].at);
    free(p->rounds);
    free(p->entries);
    free(p->reqs);
    free(p->table);
    buf_free(&p->body);
    free(p);
}

int plan_add_round(struct plan *p, long per_thread, double duration_s) {
    struct plan_round *r = realloc(p->rounds, (p->n_rounds + 1) * sizeof *r);
    if (!r) return PLAN_ERR_NOMEM;
    p->rounds = r;
    r[p->n_rounds++] = (struct plan_round){per_thread, duration_s, p->n_entries, 0, NULL, 0};
    return PLAN_OK;
}

int plan_add_open_round(struct plan *p, const struct arrivals_spec *a, struct buf *err) {
    long long *at;
    long n;
    int rc = arrivals_draw(a, &at, &n, err);
    if (rc) return rc == ARRIVALS_ERR_NOMEM ? PLAN_ERR_NOMEM : PLAN_ERR_INPUT;
    if ((rc = plan_add_round(p, -1, 0))) {
        free(at);
        return rc;
    }
    p->rounds[p->n_rounds - 1].at = at;
    p->rounds[p->n_rounds - 1].n_at = n;
    return PLAN_OK;
}

int plan_add_timed_round(struct plan *p, const long long *at, long n, struct buf *err) {
    if (n < 1 || n > ARRIVALS_MAX)
        return buf_fail(err, PLAN_ERR_INPUT, "a replay has 1 to %ld arrivals, got %ld",
                        ARRIVALS_MAX, n);
    for (long i = 0; i < n; i++)
        if (at[i] < 0 || (i && at[i] < at[i - 1]))
            return buf_fail(err, PLAN_ERR_INPUT, "a replay's arrival times must not go back");
    long long *copy = malloc((size_t)n * sizeof *copy);
    if (!copy) return PLAN_ERR_NOMEM;
    memcpy(copy, at, (size_t)n * sizeof *copy);
    int rc = plan_add_round(p, -1, 0);
    if (rc) {
        free(copy);
        return rc;
    }
    p->rounds[p->n_rounds - 1].at = copy;
    p->rounds[p->n_rounds - 1].n_at = n;
    return PLAN_OK;
}

/* FNV-1a over the side and the body. */
static uint64_t plan_hash(size_t side, const char *s, size_t n) {
    uint64_t h = 1469598103934665603ULL ^ side;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static int plan_grow_table(struct plan *p) {
    size_t size = p->table_size ? 2 * p->table_size : 64;
    size_t *t = calloc(size, sizeof *t);
    if (!t) return PLAN_ERR_NOMEM;
    for (size_t i = 0; i < p->n_reqs; i++) {
        size_t k = p->reqs[i].hash & (size - 1);
        while (t[k]) k = (k + 1) & (size - 1);
        t[k] = i + 1;
    }
    free(p->table);
    p->table = t;
    p->table_size = size;
    return PLAN_OK;
}

/* The body of item, into p->body. */
static int plan_body(struct plan *p, const struct plan_item *item, bool plain, struct buf *err) {
    struct body_params bp = {
        .prompt = item->body              ? item->body
                  : p->format == BODY_RAW ? p->rq.raw_body
                                          : item->prompt,
        .messages = item->messages,
        .max_tokens = item->max_tokens,
        .has_temperature = item->has_temperature,
        .temperature = item->temperature,
        .ignore_eos = item->ignore_eos,
        .min_tokens = p->rq.min_tokens,
        .has_seed = p->rq.has_seed,
        .seed = p->rq.seed,
        .extra = p->extra,
        .stream = plan_route_streams(p->rq.route),
        .no_stream = p->rq.route == PLAN_ROUTE_OPENAI_WHOLE,
        .plain_usage = plain,
        .thinking = p->thinking,
    };
    buf_reset(&p->body);
    if (!bp.prompt && !bp.messages) return buf_fail(err, PLAN_ERR_INPUT, "an item has no prompt");
    if (!bp.prompt) bp.prompt = "";
    int rc = body_build(item->body ? BODY_RAW : p->format, &bp, &p->body, err);
    if (rc == BODY_ERR_NOMEM) return PLAN_ERR_NOMEM;
    if (rc && buf_adds(err, " (leave it out, or pass the container's own field with --extra)"))
        return PLAN_ERR_NOMEM;
    return rc ? PLAN_ERR_INPUT : PLAN_OK;
}

/* The request target of side on the plan's route. */
static int plan_target(const struct plan *p, const struct plan_side *s, struct buf *out) {
    switch (p->rq.route) {
    case PLAN_ROUTE_STREAM:
        return buf_addf(out, "/endpoints/%s/invocations-response-stream", s->name);
    case PLAN_ROUTE_OPENAI:
    case PLAN_ROUTE_OPENAI_WHOLE:
        if (s->component)
            return buf_addf(out, "/endpoints/%s/inference-components/%s/openai/v1/chat/completions",
                            s->name, s->component);
        return buf_addf(out, "/endpoints/%s/openai/v1/chat/completions", s->name);
    default:
        return buf_addf(out, "/endpoints/%s/invocations", s->name);
    }
}

/* A signed request of side with body[0..len) on route (its target and
 * headers), with X-Amzn-SageMaker-Session-Id: session when not NULL and
 * Content-Type: content_type (NULL: application/json). */
static int plan_sreq(const struct plan *p, size_t side, enum plan_route route, const char *session,
                     const char *content_type, const char *body, size_t len, struct sreq **out) {
    const struct plan_side *s = &p->sides[side];
    struct sigv4_header h[PLAN_MAX_HEADERS];
    size_t n = 0;
    if (s->variant)
        h[n++] = (struct sigv4_header){"X-Amzn-SageMaker-Target-Variant", 31, s->variant,
                                       strlen(s->variant)};
    if (p->rq.custom_attributes)
        h[n++] = (struct sigv4_header){"X-Amzn-SageMaker-Custom-Attributes", 34,
                                       p->rq.custom_attributes, strlen(p->rq.custom_attributes)};
    if (s->component && !plan_route_openai(route)) /* that route's path names it */
        h[n++] = (struct sigv4_header){"X-Amzn-SageMaker-Inference-Component", 36, s->component,
                                       strlen(s->component)};
    if (session)
        h[n++] =
            (struct sigv4_header){CONV_HEADER, sizeof CONV_HEADER - 1, session, strlen(session)};
    struct plan tmp = {.rq = p->rq};
    tmp.rq.route = route;
    struct buf target;
    buf_init(&target, BUF_NO_CAP);
    if (plan_target(&tmp, s, &target)) return PLAN_ERR_NOMEM;
    struct sreq_params sp = {
        .method = "POST",
        .target = buf_str(&target),
        .host = p->rq.host,
        .content_type = content_type ? content_type : "application/json",
        .accept = route == PLAN_ROUTE_STREAM   ? NULL
                  : route == PLAN_ROUTE_OPENAI ? "text/event-stream"
                                               : "application/json",
        .bearer = plan_route_openai(route) ? p->rq.bearer : NULL,
        .extra = h,
        .n_extra = n,
        .user_agent = p->rq.user_agent,
        .region = p->rq.region,
        .service = p->rq.service,
        .body = body,
        .body_len = len,
    };
    int rc = sreq_new(&sp, out);
    buf_free(&target);
    return rc == SREQ_ERR_NOMEM ? PLAN_ERR_NOMEM : rc ? PLAN_ERR_INPUT : PLAN_OK;
}

static int plan_new_sreq(struct plan *p, size_t side, struct plan_req *r) {
    return plan_sreq(p, side, p->rq.route, NULL, r->content_type, r->body, r->body_len, &r->sreq);
}

/* Whether two Content-Types (NULL: the default) are the same. */
static bool plan_same_type(const char *a, const char *b) {
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The signed request of side, the body in p->body and content_type (NULL: the
 * default), made when new. */
static int plan_request_for(struct plan *p, size_t side, const char *content_type, size_t *out) {
    const char *body = p->body.data ? p->body.data : "";
    uint64_t h = plan_hash(side, body, p->body.len);
    if (2 * (p->n_reqs + 1) > p->table_size && plan_grow_table(p)) return PLAN_ERR_NOMEM;
    size_t k = h & (p->table_size - 1);
    for (; p->table[k]; k = (k + 1) & (p->table_size - 1)) {
        if (p->rq.shared && p->table[k] - 1 < p->item_reqs)
            continue; /* another entry's: each its own, one signer per sreq */
        const struct plan_req *r = &p->reqs[p->table[k] - 1];
        if (r->hash == h && r->side == side && r->body_len == p->body.len &&
            memcmp(r->body, body, p->body.len) == 0 &&
            plan_same_type(r->content_type, content_type)) {
            *out = p->table[k] - 1;
            return PLAN_OK;
        }
    }
    if (p->n_reqs == p->cap_reqs) {
        size_t cap = p->cap_reqs ? 2 * p->cap_reqs : 16;
        struct plan_req *reqs = realloc(p->reqs, cap * sizeof *reqs);
        if (!reqs) return PLAN_ERR_NOMEM;
        p->reqs = reqs;
        p->cap_reqs = cap;
    }
    struct plan_req *r = &p->reqs[p->n_reqs];
    *r = (struct plan_req){.side = side, .hash = h, .body_len = p->body.len};
    if (!(r->body = malloc(p->body.len + 1))) return PLAN_ERR_NOMEM;
    memcpy(r->body, body, p->body.len + 1);
    if (content_type && !(r->content_type = strdup(content_type))) {
        free(r->body);
        return PLAN_ERR_NOMEM;
    }
    int rc = plan_new_sreq(p, side, r);
    if (rc) {
        free(r->body);
        free(r->content_type);
        return rc;
    }
    p->table[k] = ++p->n_reqs;
    *out = p->n_reqs - 1;
    return PLAN_OK;
}

/* The compiled pattern of item (owned by the plan), or NULL when it has none. */
static int plan_pattern(struct plan *p, const struct plan_item *item, struct quiz_re **out,
                        struct buf *err) {
    *out = NULL;
    if (!item->pattern) return PLAN_OK;
    struct quiz_re **list = realloc(p->patterns, (p->n_patterns + 1) * sizeof(struct quiz_re *));
    if (!list) return PLAN_ERR_NOMEM;
    p->patterns = list;
    struct buf why;
    buf_init(&why, 512);
    int rc = quiz_re_compile(item->pattern, strlen(item->pattern), out, &why);
    if (rc == QUIZ_OK)
        list[p->n_patterns++] = *out;
    else
        rc = rc == QUIZ_ERR_NOMEM ? PLAN_ERR_NOMEM
                                  : buf_fail(err, PLAN_ERR_INPUT, "question %s: bad pattern: %s",
                                             item->question ? item->question : "?", buf_str(&why));
    buf_free(&why);
    return rc;
}

static int plan_call(const struct plan *p, const struct plan_item *item, const struct quiz_re *re,
                     struct call **out) {
    const struct plan_side *side = &p->sides[item->side];
    const struct call_spec spec = {
        .file = item->side,
        .fixed = {.endpoint = side->name,
                  .variant = side->variant,
                  .phase = item->phase,
                  .batch = item->batch,
                  .question = item->question,
                  .kind = item->kind,
                  .max_tokens = item->max_tokens,
                  .answer = item->answer},
        .expect_tokens = item->expect_tokens,
        .ignore_eos = item->ignore_eos,
        .pattern = re,
    };
    return call_new(&spec, out) ? PLAN_ERR_NOMEM : PLAN_OK;
}

/* The conversation of item, copied into *out (NULL when it has none). */
static int plan_conv(const struct plan *p, const struct plan_item *item, struct conv_spec **out,
                     struct buf *err) {
    *out = NULL;
    if (!item->n_turns) return PLAN_OK;
    if (p->format != BODY_VLLM_CHAT)
        return buf_fail(err, PLAN_ERR_INPUT, "a conversation needs the vllm-chat format");
    if (item->session && plan_route_openai(p->rq.route))
        return buf_fail(err, PLAN_ERR_INPUT, "the OpenAI-compatible route has no sticky sessions");
    if (item->messages)
        return buf_fail(err, PLAN_ERR_INPUT, "a conversation's turns are prompts, not messages");
    struct conv_spec *c = calloc(1, sizeof *c);
    if (!c) return PLAN_ERR_NOMEM;
    c->session = item->session;
    c->prompts = calloc(item->n_turns, sizeof *c->prompts);
    c->think_us = calloc(item->n_turns, sizeof *c->think_us);
    int rc = c->prompts && c->think_us ? PLAN_OK : PLAN_ERR_NOMEM;
    for (size_t i = 0; !rc && i < item->n_turns; i++, c->n_turns++) {
        double t = i + 1 < item->n_turns && item->think_s ? item->think_s[i] : 0;
        if (!item->turns[i] || !(t >= 0 && t < 86400)) {
            rc = buf_fail(err, PLAN_ERR_INPUT,
                          "a conversation's turn %zu: no prompt, or a think "
                          "time not within 0 to 86400 s",
                          i + 1);
            break;
        }
        c->think_us[i] = (long long)(t * 1e6);
        if (!(c->prompts[i] = strdup(item->turns[i]))) rc = PLAN_ERR_NOMEM;
    }
    if (rc)
        plan_conv_free(c);
    else
        *out = c;
    return rc;
}

int plan_conv_request(const struct plan *p, const struct plan_entry *e, enum conv_kind kind,
                      const cJSON *messages, const char *session, bool plain, struct sreq **out,
                      struct buf *err) {
    *out = NULL;
    size_t side = call_file(e->call);
    if (kind == CONV_OPEN || kind == CONV_CLOSE) {
        const char *body =
            kind == CONV_OPEN ? "{\"requestType\":\"NEW_SESSION\"}" : "{\"requestType\":\"CLOSE\"}";
        return plan_sreq(p, side, PLAN_ROUTE_INVOKE, session, NULL, body, strlen(body), out);
    }
    if (kind != CONV_TURN || !messages)
        return buf_fail(err, PLAN_ERR_INPUT, "a conversation's step without messages");
    struct body_params bp = {
        .prompt = "",
        .messages = messages,
        .max_tokens = e->max_tokens,
        .has_temperature = e->has_temperature,
        .temperature = e->temperature,
        .ignore_eos = e->ignore_eos,
        .min_tokens = p->rq.min_tokens,
        .has_seed = p->rq.has_seed,
        .seed = p->rq.seed,
        .extra = p->extra,
        .stream = plan_route_streams(p->rq.route),
        .no_stream = p->rq.route == PLAN_ROUTE_OPENAI_WHOLE,
        .plain_usage = plain,
        .thinking = p->thinking,
    };
    struct buf body;
    buf_init(&body, BUF_NO_CAP);
    int rc = body_build(p->format, &bp, &body, err);
    rc = rc == BODY_ERR_NOMEM ? PLAN_ERR_NOMEM : rc ? PLAN_ERR_INPUT : PLAN_OK;
    if (!rc) rc = plan_sreq(p, side, p->rq.route, session, NULL, buf_str(&body), body.len, out);
    buf_free(&body);
    return rc;
}

const struct conv_spec *plan_entry_conv(const struct plan_entry *e) {
    return e->conv;
}

int plan_add_item(struct plan *p, const struct plan_item *item, struct buf *err) {
    struct plan_round *round = p->n_rounds ? &p->rounds[p->n_rounds - 1] : NULL;
    if (!round) return buf_fail(err, PLAN_ERR_INPUT, "an item before any round");
    if (round->duration_s > 0 && round->n)
        return buf_fail(err, PLAN_ERR_INPUT, "a steady round has one item, its template");
    if (item->side >= p->n_sides)
        return buf_fail(err, PLAN_ERR_INPUT, "an item of side %zu of %zu", item->side + 1,
                        p->n_sides);
    if (!item->phase) return buf_fail(err, PLAN_ERR_INPUT, "an item has no phase");
    if (p->n_entries == p->cap_entries) {
        size_t cap = p->cap_entries ? 2 * p->cap_entries : 64;
        struct plan_entry *e = realloc(p->entries, cap * sizeof *e);
        if (!e) return PLAN_ERR_NOMEM;
        p->entries = e;
        p->cap_entries = cap;
    }
    struct plan_entry *e = &p->entries[p->n_entries];
    *e = (struct plan_entry){.has_temperature = item->has_temperature,
                             .temperature = item->temperature,
                             .ignore_eos = item->ignore_eos,
                             .max_tokens = item->max_tokens};
    if (item->n_turns && round->duration_s > 0)
        return buf_fail(err, PLAN_ERR_INPUT, "a conversation cannot be a steady round's template");
    struct plan_item first = *item;
    if (item->n_turns) first.prompt = item->turns[0];
    item = &first;
    struct quiz_re *re;
    const char *ct = item->body ? item->content_type : NULL; /* only a body sent as it is */
    int rc = plan_conv(p, item, &e->conv, err);
    size_t plain = 0;
    p->item_reqs = p->n_reqs;
    if (!rc) rc = plan_body(p, item, true, err);
    if (!rc) rc = plan_request_for(p, item->side, ct, &plain);
    if (!rc) rc = plan_body(p, item, false, err);
    if (!rc) rc = plan_request_for(p, item->side, ct, &e->request);
    if (!rc) rc = plan_pattern(p, item, &re, err);
    if (!rc) rc = plan_call(p, item, re, &e->call);
    if (rc) {
        plan_conv_free(e->conv);
        return rc;
    }
    e->sreq = p->reqs[e->request].sreq;
    e->plain = p->reqs[plain].sreq;
    p->n_entries++;
    round->n++;
    return PLAN_OK;
}

bool plan_shared(const struct plan *p) {
    return p->rq.shared;
}

size_t plan_n_rounds(const struct plan *p) {
    return p->n_rounds;
}

void plan_schedule(const struct plan *p, struct rounds_round *out) {
    for (size_t i = 0; i < p->n_rounds; i++) {
        const struct plan_round *r = &p->rounds[i];
        bool steady = r->duration_s > 0;
        out[i] = (struct rounds_round){.items = r->at    ? r->n_at
                                                : steady ? -1
                                                         : (long)r->n,
                                       .per_thread = r->per_thread,
                                       .duration_us = (long long)(r->duration_s * 1e6),
                                       .at_us = r->at};
    }
}

const struct plan_entry *plan_entry(const struct plan *p, size_t round, long index) {
    if (round >= p->n_rounds || index < 0) return NULL;
    const struct plan_round *r = &p->rounds[round];
    size_t i = r->duration_s > 0                  ? 0
               : r->at && r->n && index < r->n_at ? (size_t)index % r->n
                                                  : (size_t)index;
    return i < r->n ? &p->entries[r->first + i] : NULL;
}

size_t plan_entry_number(const struct plan *p, const struct plan_entry *e) {
    return (size_t)(e - p->entries);
}

struct sreq *plan_entry_request(const struct plan_entry *e, bool plain) {
    return plain ? e->plain : e->sreq;
}

const struct call *plan_entry_call(const struct plan_entry *e) {
    return e->call;
}

size_t plan_n_requests(const struct plan *p) {
    return p->n_reqs;
}

size_t plan_request_number(const struct plan *p, const struct plan_entry *e) {
    (void)p;
    return e->request;
}
