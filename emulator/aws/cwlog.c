#include "cwlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cwdoc.h"

#define CWLOG_GROUP_PREFIX "/aws/sagemaker/Endpoints/"
#define CWLOG_PAGE_MAX     10000
#define CWLOG_INVALID      "InvalidParameterException"
#define CWLOG_NOT_FOUND    "ResourceNotFoundException"
#define CWLOG_TERMS_MAX    32

void cwlog_init(struct cwlog *l, const char *region) {
    memset(l, 0, sizeof *l);
    snprintf(l->region, sizeof l->region, "%s", region);
}

void cwlog_free(struct cwlog *l) {
    for (size_t g = 0; g < l->n; g++) {
        for (size_t i = 0; i < l->groups[g].n; i++) free(l->groups[g].ev[i].msg);
        free(l->groups[g].ev);
        free(l->groups[g].streams);
    }
    free(l->groups);
    memset(l, 0, sizeof *l);
}

/* ---- the store ---- */

static struct cwlog_group *cwlog_group(const struct cwlog *l, const char *endpoint) {
    for (size_t g = 0; g < l->n; g++)
        if (strcmp(l->groups[g].endpoint, endpoint) == 0) return &l->groups[g];
    return NULL;
}

static struct cwlog_group *cwlog_group_add(struct cwlog *l, const char *endpoint) {
    struct cwlog_group *g = cwlog_group(l, endpoint);
    if (g) return g;
    g = realloc(l->groups, (l->n + 1) * sizeof *g);
    if (!g) return NULL;
    l->groups = g;
    g = &l->groups[l->n++];
    memset(g, 0, sizeof *g);
    snprintf(g->endpoint, sizeof g->endpoint, "%s", endpoint);
    g->next_seq = 1;
    return g;
}

/* The index of stream in g, added when new; -1 out of memory. */
static long cwlog_stream(struct cwlog_group *g, const char *stream) {
    for (size_t i = 0; i < g->n_streams; i++)
        if (strcmp(g->streams[i], stream) == 0) return (long)i;
    char(*s)[2 * CWLOG_NAME_MAX] = realloc(g->streams, (g->n_streams + 1) * sizeof *s);
    if (!s) return -1;
    g->streams = s;
    snprintf(g->streams[g->n_streams], sizeof *s, "%s", stream);
    return (long)g->n_streams++;
}

/* Drops the oldest events that are not start-up lines until g holds 3/4 of max. */
static void cwlog_trim(struct cwlog_group *g, size_t max) {
    size_t keep = 0, target = max / 4 * 3;
    for (size_t i = 0; i < g->n; i++) {
        struct cwlog_event *e = &g->ev[i];
        if (!e->pinned && g->bytes > target) {
            g->bytes -= e->len;
            free(e->msg);
            continue;
        }
        g->ev[keep++] = *e;
    }
    g->n = keep;
}

int cwlog_add(struct cwlog *l, const char *endpoint, const char *stream, double t, const char *msg,
              size_t len, bool pinned) {
    struct cwlog_group *g = cwlog_group_add(l, endpoint);
    long s = g ? cwlog_stream(g, stream) : -1;
    if (s < 0) return CWLOG_ERR_NOMEM;
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 256;
        struct cwlog_event *ev = realloc(g->ev, cap * sizeof *ev);
        if (!ev) return CWLOG_ERR_NOMEM;
        g->ev = ev;
        g->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) return CWLOG_ERR_NOMEM;
    memcpy(copy, msg, len);
    copy[len] = '\0';
    g->ev[g->n++] =
        (struct cwlog_event){(long long)(t * 1000), g->next_seq++, (unsigned)s, pinned, copy, len};
    g->bytes += len;
    size_t max = l->max_bytes ? l->max_bytes : CWLOG_GROUP_BYTES;
    if (g->bytes > max) cwlog_trim(g, max);
    return CWLOG_OK;
}

/* ---- filter patterns ---- */

struct cwlog_term {
    char how; /* ' ' must be there, '?' any of these, '-' must not */
    const char *s;
    size_t n;
};

/* Splits pattern into terms; returns how many, or -1 for one it cannot read. */
static int cwlog_terms(const char *p, struct cwlog_term *t) {
    int n = 0;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) break;
        if (*p == '{' || *p == '[' || *p == '%' || n == CWLOG_TERMS_MAX) return -1;
        char how = *p == '?' || *p == '-' ? *p++ : ' ';
        const char *s = p;
        if (*p == '"') {
            s = ++p;
            while (*p && *p != '"') p++;
            if (!*p) return -1; /* an open quote */
            t[n++] = (struct cwlog_term){how, s, (size_t)(p - s)};
            p++;
            continue;
        }
        while (*p && *p != ' ' && *p != '\t') p++;
        if (p == s) return -1; /* a lone ? or - */
        t[n++] = (struct cwlog_term){how, s, (size_t)(p - s)};
    }
    return n;
}

static bool cwlog_has(const char *msg, size_t len, const struct cwlog_term *t) {
    if (t->n == 0) return true;
    for (size_t i = 0; i + t->n <= len; i++)
        if (memcmp(msg + i, t->s, t->n) == 0) return true;
    return false;
}

bool cwlog_match(const char *pattern, const char *msg, size_t len, bool *bad) {
    struct cwlog_term t[CWLOG_TERMS_MAX];
    int n = cwlog_terms(pattern ? pattern : "", t);
    bool any = false, any_seen = false;
    *bad = n < 0;
    for (int i = 0; i < n; i++) {
        bool has = cwlog_has(msg, len, &t[i]);
        if (t[i].how == ' ' && !has) return false;
        if (t[i].how == '-' && has) return false;
        if (t[i].how == '?') {
            any_seen = true;
            any = any || has;
        }
    }
    return n >= 0 && (!any_seen || any);
}

/* ---- FilterLogEvents ---- */

/* What a FilterLogEvents request asks. */
struct cwlog_req {
    char group[CWDOC_NAME_MAX];
    long long start, end; /* ms; end -1: none */
    const cJSON *names;   /* logStreamNames, or NULL */
    const char *prefix;   /* logStreamNamePrefix, or NULL */
    const char *pattern;  /* filterPattern, or NULL */
    long limit;
    unsigned long from; /* the first seq to give (nextToken) */
};

static int cwlog_fail(struct cplane_reply *r, const char *type, const char *msg) {
    return cplane_error(r, 400, type, msg) ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

/* A whole number member in [lo, hi] (dflt when absent); false when it is not one. */
static bool cwlog_num(const cJSON *o, const char *key, double lo, double hi, long long dflt,
                      long long *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = dflt;
    if (!v || cJSON_IsNull(v)) return true;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) ||
        v->valuedouble != (double)(long long)v->valuedouble)
        return false;
    *out = (long long)v->valuedouble;
    return true;
}

static const char *cwlog_text(const cJSON *o, const char *key, bool *bad) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v && !cJSON_IsNull(v) && !cJSON_IsString(v)) *bad = true;
    return v && cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The group's name from logGroupName or logGroupIdentifier (a name or an ARN). */
static bool cwlog_group_name(const cJSON *o, char *out, size_t size, bool *bad) {
    const char *name = cwlog_text(o, "logGroupName", bad);
    const char *id = cwlog_text(o, "logGroupIdentifier", bad);
    if ((name && id) || (!name && !id)) return false;
    if (id) {
        const char *at = strstr(id, ":log-group:");
        name = at ? at + 11 : id;
    }
    size_t n = strlen(name);
    if (n >= 2 && strcmp(name + n - 2, ":*") == 0) n -= 2;
    snprintf(out, size, "%.*s", (int)n, name);
    return n > 0;
}

/* Reads the request; returns NULL, or the message of an InvalidParameterException. */
static const char *cwlog_read(const cJSON *o, struct cwlog_req *q) {
    bool bad = false;
    long long from = 0;
    const char *token;
    if (!cwlog_group_name(o, q->group, sizeof q->group, &bad))
        return "Exactly one of logGroupName and logGroupIdentifier must be given.";
    q->prefix = cwlog_text(o, "logStreamNamePrefix", &bad);
    q->pattern = cwlog_text(o, "filterPattern", &bad);
    token = cwlog_text(o, "nextToken", &bad);
    q->names = cJSON_GetObjectItemCaseSensitive(o, "logStreamNames");
    if (bad) return "A parameter is not a string.";
    if (q->names && !cJSON_IsArray(q->names)) return "logStreamNames is not a list.";
    if (q->names && q->prefix)
        return "logStreamNames and logStreamNamePrefix cannot both be given.";
    if (!cwlog_num(o, "startTime", 0, 1e15, 0, &q->start) ||
        !cwlog_num(o, "endTime", 0, 1e15, -1, &q->end))
        return "startTime and endTime are milliseconds since 1970.";
    if (!cwlog_num(o, "limit", 1, CWLOG_PAGE_MAX, CWLOG_PAGE_MAX, &from))
        return "1 validation error detected: Value at 'limit' failed to satisfy constraint: "
               "Member must have value between 1 and 10000";
    q->limit = (long)from;
    char *end = NULL;
    q->from = token ? strtoul(token, &end, 10) : 0;
    if (token && (!*token || *end || *token == '-')) return "The specified nextToken is invalid.";
    return NULL;
}

static bool cwlog_stream_wanted(const struct cwlog_req *q, const char *stream) {
    const cJSON *v;
    if (q->prefix) return strncmp(stream, q->prefix, strlen(q->prefix)) == 0;
    if (!q->names) return true;
    cJSON_ArrayForEach(v, q->names) {
        if (cJSON_IsString(v) && strcmp(v->valuestring, stream) == 0) return true;
    }
    return false;
}

/* Writes the page of q's events from g into r. */
static int cwlog_page(const struct cwlog_group *g, const struct cwlog_req *q,
                      struct cplane_reply *r) {
    struct buf *b = &r->body;
    long given = 0;
    bool bad = false;
    int rc = buf_adds(b, "{\"events\":[");
    for (size_t i = 0; !rc && i < g->n; i++) {
        const struct cwlog_event *e = &g->ev[i];
        if (e->seq < q->from || e->t_ms < q->start || (q->end >= 0 && e->t_ms > q->end) ||
            !cwlog_stream_wanted(q, g->streams[e->stream]) ||
            !cwlog_match(q->pattern, e->msg, e->len, &bad))
            continue;
        if (given == q->limit) {
            rc = buf_addf(b, "],\"searchedLogStreams\":[],\"nextToken\":\"%lu\"}", e->seq);
            return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
        }
        char id[32];
        snprintf(id, sizeof id, "%020lu", e->seq);
        struct cwdoc_event ev = {e->t_ms, e->t_ms, g->streams[e->stream], e->msg, e->len, id};
        if (given++) rc = buf_addc(b, ',');
        if (!rc) rc = cwdoc_event_json(b, &ev);
    }
    if (!rc) rc = buf_adds(b, "],\"searchedLogStreams\":[]}");
    return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

static int cwlog_filter(const struct cwlog *l, const char *body, size_t len, const char *region,
                        struct cplane_reply *r) {
    cJSON *o = cJSON_ParseWithLength(body, len);
    struct cwlog_req q = {0};
    const char *why = cJSON_IsObject(o) ? cwlog_read(o, &q) : NULL;
    bool bad = false;
    int rc;
    if (!cJSON_IsObject(o))
        rc = cwlog_fail(r, "SerializationException", "The request body is not a JSON object.");
    else if (why)
        rc = cwlog_fail(r, CWLOG_INVALID, why);
    else if ((void)cwlog_match(q.pattern, "", 0, &bad), bad)
        rc = cwlog_fail(r, CWLOG_INVALID,
                        "sm-emulator reads filter patterns of terms and \"quoted phrases\" "
                        "(each may start with ? or -), not JSON or space-delimited ones.");
    else {
        const struct cwlog_group *g =
            strcmp(region, l->region) == 0 &&
                    strncmp(q.group, CWLOG_GROUP_PREFIX, strlen(CWLOG_GROUP_PREFIX)) == 0
                ? cwlog_group(l, q.group + strlen(CWLOG_GROUP_PREFIX))
                : NULL;
        rc = g ? cwlog_page(g, &q, r)
               : cwlog_fail(r, CWLOG_NOT_FOUND, "The specified log group does not exist.");
    }
    cJSON_Delete(o);
    return rc;
}

int cwlog_call(const struct cwlog *l, const char *op, const char *body, size_t len,
               const char *region, struct cplane_reply *r) {
    buf_reset(&r->body);
    r->status = 200;
    r->type = NULL;
    int rc = strcmp(op, "FilterLogEvents") == 0
                 ? cwlog_filter(l, body, len, region, r)
                 : cwlog_fail(r, "UnknownOperationException",
                              "sm-emulator serves FilterLogEvents of CloudWatch Logs only.");
    if (rc) {
        buf_reset(&r->body);
        r->status = 500;
        r->type = "InternalFailure";
        (void)!buf_adds(&r->body, "{\"__type\":\"InternalFailure\",\"message\":\"out of memory\"}");
    }
    return rc;
}
