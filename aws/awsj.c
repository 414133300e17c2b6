#include "awsj.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <openssl/rand.h>

#include "awscurl.h"
#include "plainhttp.h"
#include "sigv4.h"
#include "skew.h"
#include "scrub.h"

#define AWSJ_ATTEMPTS    3
#define AWSJ_TIMEOUT_MS  30000L
#define AWSJ_CONNECT_MS  10000L
#define AWSJ_MAX_REPLY   ((size_t)16 << 20)
#define AWSJ_BASE_MS     100L
#define AWSJ_THROTTLE_MS 1000L
#define AWSJ_MAX_BACKOFF 20000L
#define AWSJ_OP_MAX      64
#define AWSJ_HEADER_MAX  512 /* bytes of a captured reply header */
#define AWSJ_MAX_HEADERS 6

static const struct awsj_service awsj_services[AWSJ_N_SERVICES] = {
    [AWSJ_SAGEMAKER] = {"sagemaker", "sagemaker", "sagemaker", "api.sagemaker", "SageMaker",
                        "application/x-amz-json-1.1", false},
    [AWSJ_LOGS] = {"logs", "logs", "logs", "logs", "Logs_20140328", "application/x-amz-json-1.1",
                   false},
    [AWSJ_SERVICE_QUOTAS] = {"service-quotas", "servicequotas", "servicequotas", "servicequotas",
                             "ServiceQuotasV20190624", "application/x-amz-json-1.1", false},
    [AWSJ_CLOUDWATCH] = {"cloudwatch", "cloudwatch", "monitoring", "monitoring",
                         "GraniteServiceVersion20100801", "application/x-amz-json-1.0", true},
    [AWSJ_AUTOSCALING] = {"application-autoscaling", "application-autoscaling",
                          "application-autoscaling", "application-autoscaling",
                          "AnyScaleFrontendService", "application/x-amz-json-1.1", false},
};

const struct awsj_service *awsj_service(enum awsj_service_id id) {
    return (unsigned)id < AWSJ_N_SERVICES ? &awsj_services[id] : NULL;
}

/* ---- names, endpoints, targets ---- */

static bool awsj_op_ok(const char *op) {
    size_t n = op ? strlen(op) : 0;
    if (n == 0 || n > AWSJ_OP_MAX || op[0] < 'A' || op[0] > 'Z') return false;
    for (size_t i = 0; i < n; i++)
        if (!((op[i] >= 'A' && op[i] <= 'Z') || (op[i] >= 'a' && op[i] <= 'z') ||
              (op[i] >= '0' && op[i] <= '9')))
            return false;
    return true;
}

int awsj_endpoint(const struct awsj_service *s, const char *region, struct buf *url) {
    buf_reset(url);
    if (!s || !region || !creds_name_ok(region)) return AWSJ_ERR_INPUT;
    bool china = strncmp(region, "cn-", 3) == 0;
    return buf_addf(url, "https://%s.%s.amazonaws.com%s/", s->endpoint_prefix, region,
                    china ? ".cn" : "")
               ? AWSJ_ERR_NOMEM
               : AWSJ_OK;
}

int awsj_target(const struct awsj_service *s, const char *op, struct buf *target) {
    buf_reset(target);
    if (!s || !awsj_op_ok(op)) return AWSJ_ERR_INPUT;
    return buf_addf(target, "%s.%s", s->target_prefix, op) ? AWSJ_ERR_NOMEM : AWSJ_OK;
}

/* ---- retries ---- */

static bool awsj_listed(const char *code, const char *const *list, size_t n) {
    for (size_t i = 0; code && i < n; i++)
        if (strcmp(code, list[i]) == 0) return true;
    return false;
}

enum awsj_retry awsj_retry_kind(long status, const char *code, bool no_reply) {
    static const char *const throttles[] = {"Throttling",
                                            "ThrottlingException",
                                            "ThrottledException",
                                            "RequestThrottledException",
                                            "TooManyRequestsException",
                                            "ProvisionedThroughputExceededException",
                                            "TransactionInProgressException",
                                            "RequestLimitExceeded",
                                            "BandwidthLimitExceeded",
                                            "LimitExceededException",
                                            "RequestThrottled",
                                            "SlowDown",
                                            "PriorRequestNotComplete",
                                            "EC2ThrottledException"};
    static const char *const transients[] = {"RequestTimeout", "RequestTimeoutException",
                                             "PriorRequestNotComplete"};
    if (no_reply) return AWSJ_RETRY_TRANSIENT;
    if (awsj_listed(code, throttles, sizeof throttles / sizeof *throttles))
        return AWSJ_RETRY_THROTTLE;
    if (awsj_listed(code, transients, sizeof transients / sizeof *transients))
        return AWSJ_RETRY_TRANSIENT;
    if (status == 429) return AWSJ_RETRY_THROTTLE;
    if (status == 500 || status == 502 || status == 503 || status == 504)
        return AWSJ_RETRY_TRANSIENT;
    return AWSJ_RETRY_NO;
}

long awsj_backoff_ms(enum awsj_retry kind, int n, double r) {
    long ceiling = kind == AWSJ_RETRY_THROTTLE ? AWSJ_THROTTLE_MS : AWSJ_BASE_MS;
    for (int i = 1; i < n && ceiling < AWSJ_MAX_BACKOFF; i++) ceiling *= 2;
    if (ceiling > AWSJ_MAX_BACKOFF) ceiling = AWSJ_MAX_BACKOFF;
    if (!(r >= 0)) r = 0; /* also NaN */
    if (r >= 1) r = 0.999999;
    return (long)(r * (double)ceiling);
}

/* ---- untrusted text: scrubbing, one line, bounded ---- */

/* Copies n bytes of s into dst (size bytes) as one line: control characters
 * become spaces; longer text is cut before a UTF-8 character and ends in "...". */
static void awsj_copy(char *dst, size_t size, const char *s, size_t n) {
    size_t max = size - 4, keep = n <= max ? n : max;
    while (keep < n && keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80) keep--;
    for (size_t i = 0; i < keep; i++)
        dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i];
    if (keep < n) {
        memcpy(dst + keep, "...", 3);
        keep += 3;
    }
    dst[keep] = '\0';
}

/* Scrubs n bytes of s, then copies them into dst as awsj_copy does. */
static void awsj_clean(char *dst, size_t size, const char *s, size_t n) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    if (scrub_append(&b, s, n) == 0)
        awsj_copy(dst, size, buf_str(&b), b.len);
    else
        dst[0] = '\0';
    buf_free(&b);
}

static const char *awsj_json_string(const cJSON *o, const char *a, const char *b) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (!cJSON_IsString(v) && b) v = cJSON_GetObjectItemCaseSensitive(o, b);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The code as Smithy's awsJson protocols say: before the first ':', after the first '#'. */
static void awsj_code(char *dst, const char *code, size_t n) {
    const char *colon = memchr(code, ':', n);
    if (colon) n = (size_t)(colon - code);
    const char *hash = memchr(code, '#', n);
    if (hash) {
        n -= (size_t)(hash + 1 - code);
        code = hash + 1;
    }
    awsj_clean(dst, AWSJ_CODE_MAX, code, n);
}

void awsj_parse_error(const char *query_error, const char *error_type, const char *body, size_t len,
                      struct awsj_reply_error *out) {
    out->code[0] = out->message[0] = '\0';
    cJSON *root = body && len ? cJSON_ParseWithLength(body, len) : NULL;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        root = NULL;
    }
    const char *code = NULL;
    size_t code_len = 0;
    if (query_error && *query_error) {
        code = query_error;
        code_len = strcspn(query_error, ";");
    } else if (error_type && *error_type) {
        code = error_type;
        code_len = strlen(error_type);
    } else if ((code = awsj_json_string(root, "__type", "code"))) {
        code_len = strlen(code);
    }
    if (code) awsj_code(out->code, code, code_len);
    const char *msg = awsj_json_string(root, "message", "Message");
    if (msg) awsj_clean(out->message, sizeof out->message, msg, strlen(msg));
    cJSON_Delete(root);
}

int awsj_error_line(struct buf *err, const struct awsj_service *s, const char *op,
                    const struct awsj_reply_error *e, long status, int attempts) {
    buf_reset(err);
    int rc = buf_addf(err, "%s %s: %s", s->name, op, e->code[0] ? e->code : "error");
    if (!rc && e->message[0]) rc = buf_addf(err, ": %s", e->message);
    if (!rc) rc = buf_addf(err, " (HTTP %ld", status);
    if (!rc && attempts > 1) rc = buf_addf(err, ", %d attempts", attempts);
    return rc ? rc : buf_addc(err, ')');
}

/* ---- pages ---- */

int awsj_next_token(const char *reply, size_t len, const char *key, struct buf *token) {
    buf_reset(token);
    cJSON *root = reply && len ? cJSON_ParseWithLength(reply, len) : NULL;
    int rc = AWSJ_OK;
    if (!cJSON_IsObject(root)) {
        rc = AWSJ_ERR_REPLY;
    } else {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
        if (cJSON_IsString(v))
            rc = buf_adds(token, v->valuestring) ? AWSJ_ERR_NOMEM : AWSJ_OK;
        else if (v && !cJSON_IsNull(v))
            rc = AWSJ_ERR_REPLY;
    }
    cJSON_Delete(root);
    return rc;
}

int awsj_with_token(const char *request, const char *key, const char *token, struct buf *out) {
    buf_reset(out);
    cJSON *root = cJSON_Parse(request ? request : "{}");
    char *text = NULL;
    int rc = AWSJ_OK;
    if (!cJSON_IsObject(root)) { /* not JSON, or out of memory: cJSON does not say */
        rc = AWSJ_ERR_INPUT;
        goto done;
    }
    while (cJSON_GetObjectItemCaseSensitive(root, key))
        cJSON_DeleteItemFromObjectCaseSensitive(root, key);
    if (!cJSON_AddStringToObject(root, key, token) || !(text = cJSON_PrintUnformatted(root)) ||
        buf_adds(out, text))
        rc = AWSJ_ERR_NOMEM;
done:
    free(text);
    cJSON_Delete(root);
    return rc;
}

/* ---- the client ---- */

/* Writes "{svc} {op}: " and the formatted rest into err (emptied first); returns rc,
 * or AWSJ_ERR_NOMEM when the line does not fit in memory. */
__attribute__((format(printf, 5, 6))) static int awsj_fail(struct buf *err, int rc,
                                                           const struct awsj_service *s,
                                                           const char *op, const char *fmt, ...) {
    va_list ap;
    buf_reset(err);
    va_start(ap, fmt);
    int bad = buf_addf(err, "%s %s: ", s->name, op) || buf_vaddf(err, fmt, ap);
    va_end(ap);
    return bad ? AWSJ_ERR_NOMEM : rc;
}

struct awsj_client {
    char *region;
    char *ca_bundle; /* CURLOPT_CAINFO, or NULL */
    struct creds_cache *cache;
    bool own_cache;
    struct sigv4_signer *signer;
    struct sigv4_result signed_req;
    CURL *curl;
    struct buf override_host; /* endpoint_url's Host header value, "" without one */
    struct buf override_url;  /* endpoint_url without its path, "" without one */
    struct buf override_path; /* endpoint_url's path, ending in '/' */
    bool allow_plain_http;
    int max_attempts;
    long timeout_ms;
    size_t max_reply;
    awsj_now_fn *now;
    awsj_sleep_fn *sleep_ms;
    awsj_random_fn *random;
    void *ud;
    long long offset; /* seconds added to now() when signing */
    struct awsj_status last;
};

static time_t awsj_default_now(void *ud) {
    (void)ud;
    return time(NULL);
}

static void awsj_default_sleep(void *ud, long ms) {
    (void)ud;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

static double awsj_default_random(void *ud) {
    (void)ud;
    uint64_t v;
    if (RAND_bytes((unsigned char *)&v, sizeof v) != 1) return 0.5;
    return (double)(v >> 11) / 9007199254740992.0; /* 53 bits over 2^53 */
}

/* Splits endpoint_url into the Host header, the URL up to the path, and the path. */
static int awsj_parse_override(struct awsj_client *c, const char *base, struct buf *err) {
    int rc = awscurl_split(base, &c->override_url, &c->override_host, &c->override_path);
    const char *why = rc == AWSCURL_ERR_NOT_URL  ? "is not a URL such as http://127.0.0.1:8080"
                      : rc == AWSCURL_ERR_SCHEME ? "is not http:// or https://"
                      : rc == AWSCURL_ERR_EXTRA  ? "has a query, user or fragment"
                                                 : NULL;
    if (why) return buf_addf(err, "aws endpoint URL %s", why) ? AWSJ_ERR_NOMEM : AWSJ_ERR_INPUT;
    if (rc || buf_adds(&c->override_path, "/")) return AWSJ_ERR_NOMEM;
    return AWSJ_OK;
}

static int awsj_client_setup(struct awsj_client *c, const struct awsj_config *cfg,
                             struct buf *err) {
    if (!cfg->region || !creds_name_ok(cfg->region))
        return buf_adds(err, "aws client: no region, or not a region name such as us-east-1")
                   ? AWSJ_ERR_NOMEM
                   : AWSJ_ERR_INPUT;
    if (cfg->max_attempts < 0 || cfg->timeout_ms < 0)
        return buf_adds(err, "aws client: max_attempts and timeout_ms must not be negative")
                   ? AWSJ_ERR_NOMEM
                   : AWSJ_ERR_INPUT;
    if (cfg->endpoint_url) {
        int rc = awsj_parse_override(c, cfg->endpoint_url, err);
        if (rc) return rc;
        if (plainhttp_check(cfg->endpoint_url, cfg->allow_plain_http, err)) return AWSJ_ERR_INPUT;
    }
    c->allow_plain_http = cfg->allow_plain_http;
    const char *ca = cfg->ca_bundle ? cfg->ca_bundle : getenv("AWS_CA_BUNDLE");
    if (ca && *ca && !(c->ca_bundle = strdup(ca))) return AWSJ_ERR_NOMEM;
    if (!(c->region = strdup(cfg->region)) || !(c->signer = sigv4_signer_new()) ||
        !(c->curl = curl_easy_init()))
        return AWSJ_ERR_NOMEM;
    c->own_cache = !cfg->cache;
    c->cache = cfg->cache ? cfg->cache : creds_cache_new(&cfg->creds);
    return c->cache ? AWSJ_OK : AWSJ_ERR_NOMEM;
}

int awsj_client_new(const struct awsj_config *cfg, struct awsj_client **out, struct buf *err) {
    struct awsj_client *c = calloc(1, sizeof *c);
    *out = NULL;
    buf_reset(err);
    if (!c || curl_global_init(CURL_GLOBAL_DEFAULT)) {
        free(c);
        (void)!buf_adds(err, "aws client: out of memory");
        return AWSJ_ERR_NOMEM;
    }
    buf_init(&c->override_host, BUF_NO_CAP);
    buf_init(&c->override_url, BUF_NO_CAP);
    buf_init(&c->override_path, BUF_NO_CAP);
    sigv4_result_init(&c->signed_req);
    c->max_attempts = cfg->max_attempts ? cfg->max_attempts : AWSJ_ATTEMPTS;
    c->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : AWSJ_TIMEOUT_MS;
    c->max_reply = cfg->max_reply ? cfg->max_reply : AWSJ_MAX_REPLY;
    c->now = cfg->now ? cfg->now : awsj_default_now;
    c->sleep_ms = cfg->sleep_ms ? cfg->sleep_ms : awsj_default_sleep;
    c->random = cfg->random ? cfg->random : awsj_default_random;
    c->ud = cfg->ud;
    int rc = awsj_client_setup(c, cfg, err);
    if (rc) {
        if (rc == AWSJ_ERR_NOMEM && !err->len) (void)!buf_adds(err, "aws client: out of memory");
        awsj_client_free(c);
        return rc;
    }
    *out = c;
    return AWSJ_OK;
}

void awsj_client_free(struct awsj_client *c) {
    if (!c) return;
    if (c->own_cache) creds_cache_free(c->cache);
    sigv4_signer_free(c->signer);
    sigv4_result_free(&c->signed_req);
    if (c->curl) curl_easy_cleanup(c->curl);
    buf_free(&c->override_host);
    buf_free(&c->override_url);
    buf_free(&c->override_path);
    free(c->region);
    free(c->ca_bundle);
    free(c);
    curl_global_cleanup();
}

const struct awsj_status *awsj_last(const struct awsj_client *c) {
    return &c->last;
}

long long awsj_clock_offset(const struct awsj_client *c) {
    return c->offset;
}

/* ---- one call ---- */

/* Everything one call sends, and what its current attempt signs with. */
struct awsj_req {
    const struct awsj_service *s;
    const char *op;
    const char *body;
    size_t body_len;
    struct buf url, host, path, target;
    struct creds creds;
    char amz_date[SIGV4_DATE_LEN + 1];
    struct sigv4_header headers[AWSJ_MAX_HEADERS];
    size_t n_headers;
};

/* What one attempt got back. */
struct awsj_got {
    struct buf *body; /* the caller's reply buffer */
    size_t max;
    bool too_large;
    CURLcode res;
    long status;
    char errbuf[CURL_ERROR_SIZE];
    char error_type[AWSJ_HEADER_MAX], query_error[AWSJ_HEADER_MAX];
    char request_id[AWSJ_HEADER_MAX], date[64];
};

static int awsj_req_init(struct awsj_client *c, struct awsj_req *r, const struct awsj_service *s,
                         const char *op, const char *request) {
    memset(r, 0, sizeof *r);
    r->s = s;
    r->op = op;
    r->body = request ? request : "{}";
    r->body_len = strlen(r->body);
    buf_init(&r->url, BUF_NO_CAP);
    buf_init(&r->host, BUF_NO_CAP);
    buf_init(&r->path, BUF_NO_CAP);
    buf_init(&r->target, BUF_NO_CAP);
    int rc = awsj_target(s, op, &r->target);
    if (rc) return rc;
    if (c->override_url.len)
        return buf_adds(&r->host, buf_str(&c->override_host)) ||
                       buf_adds(&r->path, buf_str(&c->override_path)) ||
                       buf_addf(&r->url, "%s%s", buf_str(&c->override_url), buf_str(&r->path))
                   ? AWSJ_ERR_NOMEM
                   : AWSJ_OK;
    if ((rc = awsj_endpoint(s, c->region, &r->url))) return rc;
    /* "https://" + host + "/" */
    return buf_add(&r->host, r->url.data + 8, r->url.len - 9) || buf_addc(&r->path, '/')
               ? AWSJ_ERR_NOMEM
               : AWSJ_OK;
}

static void awsj_req_free(struct awsj_req *r) {
    buf_free(&r->url);
    buf_free(&r->host);
    buf_free(&r->path);
    buf_free(&r->target);
    creds_clear(&r->creds);
}

static void awsj_header(struct awsj_req *r, const char *name, const char *value) {
    r->headers[r->n_headers++] = (struct sigv4_header){name, strlen(name), value, strlen(value)};
}

/* Signs the request with r->creds at t. */
static int awsj_sign(struct awsj_client *c, struct awsj_req *r, time_t t) {
    if (sigv4_format_date(t, r->amz_date)) return AWSJ_ERR_INPUT;
    r->n_headers = 0;
    awsj_header(r, "Host", buf_str(&r->host));
    awsj_header(r, "Content-Type", r->s->content_type);
    awsj_header(r, "X-Amz-Target", buf_str(&r->target));
    awsj_header(r, "X-Amz-Date", r->amz_date);
    if (r->creds.session_token && *r->creds.session_token)
        awsj_header(r, "X-Amz-Security-Token", r->creds.session_token);
    if (r->s->query_mode) awsj_header(r, "x-amzn-query-mode", "true");
    struct sigv4_credentials sc = {r->creds.access_key_id, r->creds.secret_access_key,
                                   r->creds.session_token};
    struct sigv4_request req = {"POST",       buf_str(&r->path), r->path.len, r->headers,
                                r->n_headers, r->body,           r->body_len, NULL};
    struct sigv4_params p = {c->region, r->s->signing_name, r->amz_date, false, false};
    int rc = sigv4_sign(c->signer, &req, &sc, &p, &c->signed_req);
    return rc == SIGV4_ERR_NOMEM ? AWSJ_ERR_NOMEM : rc ? AWSJ_ERR_INPUT : AWSJ_OK;
}

static size_t awsj_on_body(char *p, size_t size, size_t n, void *ud) {
    struct awsj_got *g = ud;
    size_t len = size * n;
    if (len > g->max - g->body->len || buf_add(g->body, p, len)) {
        g->too_large = true;
        return 0;
    }
    return len;
}

/* Stores the trimmed value in dst (size bytes) when the header line's name is name. */
static void awsj_capture(char *dst, size_t size, const char *line, size_t len, const char *name) {
    size_t n = strlen(name);
    if (len <= n || line[n] != ':' || strncasecmp(line, name, n) != 0) return;
    const char *v = line + n + 1, *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
        end--;
    size_t keep = (size_t)(end - v) < size - 1 ? (size_t)(end - v) : size - 1;
    memcpy(dst, v, keep);
    dst[keep] = '\0';
}

static size_t awsj_on_header(char *p, size_t size, size_t n, void *ud) {
    struct awsj_got *g = ud;
    size_t len = size * n;
    if (len > 5 && strncmp(p, "HTTP/", 5) == 0) /* a new reply (after a 100): forget the last's */
        g->error_type[0] = g->query_error[0] = g->request_id[0] = g->date[0] = '\0';
    awsj_capture(g->error_type, sizeof g->error_type, p, len, "x-amzn-ErrorType");
    awsj_capture(g->query_error, sizeof g->query_error, p, len, "x-amzn-query-error");
    awsj_capture(g->request_id, sizeof g->request_id, p, len, "x-amzn-RequestId");
    awsj_capture(g->date, sizeof g->date, p, len, "Date");
    return len;
}

/* The header lines as signed, Authorization, and empty "Expect:" and
 * "Accept:" to keep curl from adding unsigned ones. Free with awscurl_free. */
static int awsj_header_list(const struct awsj_client *c, const struct awsj_req *r,
                            struct curl_slist **list) {
    struct buf line;
    int rc = 0;
    buf_init(&line, BUF_NO_CAP);
    for (size_t i = 0; !rc && i <= r->n_headers; i++) {
        buf_reset(&line);
        rc = i < r->n_headers
                 ? buf_addf(&line, "%s: %s", r->headers[i].name, r->headers[i].value)
                 : buf_addf(&line, "Authorization: %s", buf_str(&c->signed_req.authorization));
        rc = rc || awscurl_add(list, buf_str(&line));
    }
    rc = rc || awscurl_add(list, "Expect:") || awscurl_add(list, "Accept:");
    buf_free_secret(&line);
    return rc ? AWSJ_ERR_NOMEM : AWSJ_OK;
}

/* Sends the signed request once; the outcome is in g. */
static int awsj_send(struct awsj_client *c, const struct awsj_req *r, struct awsj_got *g) {
    struct curl_slist *list = NULL;
    CURL *h = c->curl;
    int rc = awsj_header_list(c, r, &list);
    if (rc) {
        awscurl_free(list);
        return rc;
    }
    struct awscurl_call call = {.url = buf_str(&r->url),
                                .method = "POST",
                                .body = r->body,
                                .body_len = r->body_len,
                                .headers = list,
                                .ca_bundle = c->ca_bundle,
                                .timeout_ms = c->timeout_ms,
                                .connect_ms = c->timeout_ms < AWSJ_CONNECT_MS ? c->timeout_ms
                                                                              : AWSJ_CONNECT_MS,
                                .on_body = awsj_on_body,
                                .on_header = awsj_on_header,
                                .ud = g,
                                .errbuf = g->errbuf,
                                .allow_plain_http = c->allow_plain_http};
    g->res = awscurl_perform(h, &call, &g->status);
    awscurl_free(list);
    return AWSJ_OK;
}

/* Whether curl's failure is one a new connection may not meet (SDKs: ConnectionError). */
static bool awsj_transient(CURLcode res) {
    switch (res) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
        return true;
    default:
        return false;
    }
}

/* The request id, scrubbed: letters, digits and '-' as AWS writes them, others '?'. */
static void awsj_request_id(char *dst, const char *src) {
    awsj_clean(dst, AWSJ_CODE_MAX, src, strlen(src));
    for (char *p = dst; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '<' || *p == '>'))
            *p = '?';
}

/* The state of one call across its attempts. */
struct awsj_loop {
    struct awsj_client *c;
    struct awsj_req *r;
    struct buf *reply, *err;
    int retries; /* retries done after failures */
    bool skewed; /* the signing-time retry was used */
};

/* One attempt: credentials, signing, sending. Returns 0 with g filled, or an
 * error with the line in l->err. */
static int awsj_try(struct awsj_loop *l, struct awsj_got *g) {
    struct awsj_client *c = l->c;
    struct awsj_req *r = l->r;
    struct buf cerr;
    buf_init(&cerr, BUF_NO_CAP);
    creds_clear(&r->creds);
    time_t now = c->now(c->ud);
    int rc = AWSJ_OK;
    if (creds_cache_get(c->cache, now, &r->creds, &cerr))
        rc = awsj_fail(l->err, AWSJ_ERR_CREDS, r->s, r->op, "%s", buf_str(&cerr));
    else if ((rc = awsj_sign(c, r, (time_t)(now + c->offset))))
        rc = awsj_fail(l->err, rc, r->s, r->op, "signing failed (%s)",
                       rc == AWSJ_ERR_NOMEM ? "out of memory" : "bad credentials or clock");
    buf_free(&cerr);
    if (rc) return rc;
    buf_reset(l->reply);
    c->last.attempts++;
    return awsj_send(c, r, g);
}

/* The attempt's failure: returns 1 to try again (after waiting), or an error
 * with the line in l->err. */
static int awsj_failed(struct awsj_loop *l, struct awsj_got *g) {
    struct awsj_client *c = l->c;
    struct awsj_req *r = l->r;
    int attempts = c->last.attempts, rc;
    if (g->too_large)
        return awsj_fail(l->err, AWSJ_ERR_TOO_LARGE, r->s, r->op,
                         "the reply is larger than %zu bytes (HTTP %ld)", g->max, g->status);
    enum awsj_retry kind;
    if (g->res != CURLE_OK) {
        kind = awsj_transient(g->res) ? AWSJ_RETRY_TRANSIENT : AWSJ_RETRY_NO;
        if (kind == AWSJ_RETRY_NO || attempts >= c->max_attempts + l->skewed) {
            rc = awsj_fail(l->err, AWSJ_ERR_NETWORK, r->s, r->op, "no reply from %s: %s",
                           buf_str(&r->url), g->errbuf[0] ? g->errbuf : curl_easy_strerror(g->res));
            if (rc == AWSJ_ERR_NETWORK && attempts > 1 &&
                buf_addf(l->err, " (%d attempts)", attempts))
                rc = AWSJ_ERR_NOMEM;
            return rc;
        }
    } else {
        struct awsj_reply_error e;
        awsj_parse_error(r->s->query_mode ? g->query_error : NULL, g->error_type, l->reply->data,
                         l->reply->len, &e);
        memcpy(c->last.code, e.code, sizeof e.code);
        long long offset;
        if (!l->skewed &&
            skew_offset((int)g->status, e.code, e.message, g->date, c->now(c->ud), &offset) == 0) {
            c->offset = offset;
            l->skewed = true;
            return 1;
        }
        kind = awsj_retry_kind(g->status, e.code, false);
        if (kind == AWSJ_RETRY_NO || attempts >= c->max_attempts + l->skewed) {
            buf_reset(l->reply);
            return awsj_error_line(l->err, r->s, r->op, &e, g->status, attempts) ? AWSJ_ERR_NOMEM
                                                                                 : AWSJ_ERR_SERVICE;
        }
    }
    l->retries++;
    c->sleep_ms(c->ud, awsj_backoff_ms(kind, l->retries, c->random(c->ud)));
    return 1;
}

int awsj_call(struct awsj_client *c, enum awsj_service_id svc, const char *op, const char *request,
              struct buf *reply, struct buf *err) {
    const struct awsj_service *s = awsj_service(svc);
    struct awsj_req r;
    struct awsj_loop l = {c, &r, reply, err, 0, false};
    memset(&c->last, 0, sizeof c->last);
    buf_reset(reply);
    buf_reset(err);
    if (!s) return buf_adds(err, "aws: unknown service") ? AWSJ_ERR_NOMEM : AWSJ_ERR_INPUT;
    int rc = awsj_req_init(c, &r, s, op, request);
    if (rc == AWSJ_ERR_INPUT)
        (void)!buf_addf(
            err, "%s: not an operation name (a capital letter, then letters and digits)", s->name);
    for (; !rc;) {
        struct awsj_got g = {.body = reply,
                             .max = reply->max < c->max_reply ? reply->max : c->max_reply};
        if ((rc = awsj_try(&l, &g))) break;
        c->last.http_status = g.status;
        c->last.code[0] = '\0'; /* an earlier attempt's is not this one's */
        awsj_request_id(c->last.request_id, g.request_id);
        if (g.res == CURLE_OK && !g.too_large && g.status >= 200 && g.status < 300) break;
        rc = awsj_failed(&l, &g);
        if (rc == 1)
            rc = 0;
        else
            break;
    }
    if (rc == AWSJ_ERR_NOMEM && !err->len) (void)!buf_adds(err, "aws: out of memory");
    if (rc) buf_reset(reply);
    awsj_req_free(&r);
    return rc;
}

/* ---- pagination ---- */

struct awsj_pager {
    struct buf request, reply, token, sent;
};

static void awsj_swap(struct buf *a, struct buf *b) {
    struct buf t = *a;
    *a = *b;
    *b = t;
}

/* One page: its call, its token and the callback. Returns 0 for the next page,
 * > 0 when done, or an error. */
static int awsj_page(struct awsj_client *c, const struct awsj_service *s, enum awsj_service_id svc,
                     const char *op, const char *request, const char *key, int page,
                     awsj_page_fn *fn, void *ud, struct awsj_pager *p, struct buf *err) {
    int rc = awsj_call(c, svc, op, page > 1 ? buf_str(&p->request) : request, &p->reply, err);
    if (rc) return rc;
    if ((rc = awsj_next_token(p->reply.data, p->reply.len, key, &p->token)))
        return awsj_fail(err, rc, s, op, "page %d is not a JSON object with a string %s", page,
                         key);
    if ((rc = fn(ud, buf_str(&p->reply), p->reply.len, err))) return rc;
    if (!p->token.len) return 1;
    if (p->sent.len && strcmp(buf_str(&p->token), buf_str(&p->sent)) == 0)
        return awsj_fail(err, AWSJ_ERR_PAGES, s, op, "page %d repeats the %s it was asked for",
                         page, key);
    if ((rc = awsj_with_token(request, key, buf_str(&p->token), &p->request)))
        return awsj_fail(err, rc, s, op, "the request is not a JSON object");
    awsj_swap(&p->sent, &p->token);
    return 0;
}

int awsj_paginate(struct awsj_client *c, enum awsj_service_id svc, const char *op,
                  const char *request, const char *token_key, int max_pages, awsj_page_fn *fn,
                  void *ud, struct buf *err) {
    const struct awsj_service *s = awsj_service(svc);
    struct awsj_pager p;
    int rc = 0;
    buf_reset(err);
    if (!s || !token_key || !*token_key || max_pages < 1 || !fn)
        return buf_adds(err, "aws: bad pagination arguments") ? AWSJ_ERR_NOMEM : AWSJ_ERR_INPUT;
    buf_init(&p.request, BUF_NO_CAP);
    buf_init(&p.reply, BUF_NO_CAP);
    buf_init(&p.token, BUF_NO_CAP);
    buf_init(&p.sent, BUF_NO_CAP);
    for (int page = 1; !rc; page++) {
        if (page > max_pages) {
            rc = awsj_fail(err, AWSJ_ERR_PAGES, s, op, "more than %d pages (%s goes on)", max_pages,
                           token_key);
            break;
        }
        rc = awsj_page(c, s, svc, op, request, token_key, page, fn, ud, &p, err);
    }
    buf_free(&p.request);
    buf_free(&p.reply);
    buf_free(&p.token);
    buf_free(&p.sent);
    return rc > 0 ? AWSJ_OK : rc;
}
