#include "s3.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/rand.h>

#include "awscurl.h"
#include "plainhttp.h"
#include "awsj.h"
#include "s3xml.h"
#include "scrub.h"
#include "skew.h"

#define S3_ATTEMPTS   3
#define S3_TIMEOUT_MS 600000L
#define S3_CONNECT_MS 10000L
#define S3_HEADER_MAX 128
#define S3_SERVICE    "s3"
#define S3_MAX_KEYS   "1000"

/* ---- names ------------------------------------------------------------------------ */

bool s3_bucket_ok(const char *b) {
    size_t n = strlen(b);
    if (n < 3 || n > 63 || !isalnum((unsigned char)b[0]) || !isalnum((unsigned char)b[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)b[i]) || isdigit((unsigned char)b[i]) || b[i] == '.' ||
              b[i] == '-') ||
            (b[i] == '.' && b[i + 1] == '.'))
            return false;
    return true;
}

bool s3_key_ok(const char *key) {
    size_t n = strlen(key);
    if (n == 0 || n > S3_KEY_MAX || key[0] == '/') return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)key[i];
        if (c < 0x20 || c > 0x7e || c == '?' || c == '#' || c == '\\') return false;
    }
    for (const char *seg = key; seg;) { /* no empty, "." or ".." segment */
        const char *slash = strchr(seg, '/');
        size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
        if (len == 0 || (len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
            return false;
        seg = slash ? slash + 1 : NULL;
    }
    return true;
}

int s3_parse_url(const char *url, struct buf *bucket, struct buf *prefix, struct buf *err) {
    static const char scheme[] = "s3://";
    if (strncmp(url, scheme, sizeof scheme - 1) != 0)
        return buf_fail(err, S3_ERR_INPUT, "'%s' is not an S3 URL such as s3://BUCKET/PREFIX", url);
    const char *b = url + sizeof scheme - 1, *slash = strchr(b, '/');
    size_t bn = slash ? (size_t)(slash - b) : strlen(b);
    char name[64];
    if (bn == 0 || bn >= sizeof name)
        return buf_fail(err, S3_ERR_INPUT, "%s: no bucket, or a bucket name past 63 characters",
                        url);
    memcpy(name, b, bn);
    name[bn] = '\0';
    if (!s3_bucket_ok(name))
        return buf_fail(err, S3_ERR_INPUT,
                        "%s: '%s' is not a bucket name (3 to 63 lower-case letters, digits, "
                        "'.' and '-')",
                        url, name);
    const char *p = slash ? slash + 1 : "";
    size_t pn = strlen(p);
    while (pn && p[pn - 1] == '/') pn--;
    if (buf_adds(bucket, name) || buf_add(prefix, p, pn)) return S3_ERR_NOMEM;
    if (pn && !s3_key_ok(buf_str(prefix)))
        return buf_fail(err, S3_ERR_INPUT,
                        "%s: the prefix may hold printable ASCII but '?', '#' and '\\', and no "
                        "empty, '.' or '..' part",
                        url);
    return S3_OK;
}

/* ---- signing ------------------------------------------------------------------------ */

void s3_signed_init(struct s3_signed *s) {
    memset(s, 0, sizeof *s);
    buf_init(&s->url, BUF_NO_CAP);
    buf_init(&s->host, BUF_NO_CAP);
    buf_init(&s->target, BUF_NO_CAP);
    sigv4_result_init(&s->sig);
}

void s3_signed_free(struct s3_signed *s) {
    buf_free(&s->url);
    buf_free(&s->host);
    buf_free(&s->target);
    sigv4_result_free(&s->sig);
}

static bool s3_unreserved(unsigned char c) {
    return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* Appends s percent-encoded as botocore encodes a key (keeping '/'). */
static int s3_encode(struct buf *out, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    int rc = BUF_OK;
    for (const unsigned char *p = (const unsigned char *)s; *p && !rc; p++)
        rc = s3_unreserved(*p) || *p == '/' ? buf_addc(out, (char)*p)
                                            : buf_addf(out, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
    return rc;
}

/* Where r goes: host, URL (the path encoded once) and the signed target (the
 * path decoded: sigv4's no_normalize encodes it once more, the same way). */
static int s3_where(const char *region, const char *endpoint_url, const struct s3_request *r,
                    struct s3_signed *s) {
    bool china = strncmp(region, "cn-", 3) == 0;
    bool virtual_host = !endpoint_url && !strchr(r->bucket, '.');
    struct buf path;
    buf_init(&path, BUF_NO_CAP);
    int rc = BUF_OK;
    if (!virtual_host) rc = buf_addf(&path, "/%s", r->bucket);
    if (!rc && (virtual_host || r->key)) rc = buf_addc(&path, '/'); /* path-style lists /BUCKET */
    size_t raw_from = path.len;
    if (!rc && r->key) rc = buf_adds(&path, r->key);
    if (!rc) rc = buf_add(&s->target, path.data, path.len);
    buf_truncate(&path, raw_from);
    if (!rc && r->key) rc = s3_encode(&path, r->key);
    if (!rc && r->query) rc = buf_addf(&s->target, "?%s", r->query);
    if (!rc && endpoint_url) {
        const char *h = strstr(endpoint_url, "://");
        size_t n = strlen(endpoint_url);
        while (n && endpoint_url[n - 1] == '/') n--;
        const char *hs = h ? h + 3 : endpoint_url, *hend = strchr(hs, '/');
        rc = buf_add(&s->host, hs, hend ? (size_t)(hend - hs) : strlen(hs));
        if (!rc) rc = buf_addf(&s->url, "%.*s%s", (int)n, endpoint_url, buf_str(&path));
    } else if (!rc) {
        rc = virtual_host ? buf_addf(&s->host, "%s.s3.%s.amazonaws.com%s", r->bucket, region,
                                     china ? ".cn" : "")
                          : buf_addf(&s->host, "s3.%s.amazonaws.com%s", region, china ? ".cn" : "");
        if (!rc) rc = buf_addf(&s->url, "https://%s%s", buf_str(&s->host), buf_str(&path));
    }
    if (!rc && r->query) rc = buf_addf(&s->url, "?%s", r->query);
    buf_free(&path);
    return rc ? S3_ERR_NOMEM : S3_OK;
}

static void s3_header(struct s3_signed *s, const char *name, const char *value) {
    s->headers[s->n_headers++] = (struct sigv4_header){name, strlen(name), value, strlen(value)};
}

int s3_sign(struct sigv4_signer *signer, const char *region, const char *endpoint_url,
            const struct s3_request *r, const struct sigv4_credentials *creds, time_t t,
            struct s3_signed *s) {
    if (!s3_bucket_ok(r->bucket) || (r->key && !s3_key_ok(r->key)) ||
        sigv4_format_date(t, s->amz_date) ||
        sigv4_sha256_hex(r->body ? r->body : "", r->body_len, s->payload))
        return S3_ERR_INPUT;
    buf_reset(&s->url);
    buf_reset(&s->host);
    buf_reset(&s->target);
    int rc = s3_where(region, endpoint_url, r, s);
    if (rc) return rc;
    s->n_headers = 0;
    s3_header(s, "Host", buf_str(&s->host));
    if (r->content_type) s3_header(s, "Content-Type", r->content_type);
    s3_header(s, "x-amz-content-sha256", s->payload);
    s3_header(s, "X-Amz-Date", s->amz_date);
    if (creds->session_token && *creds->session_token)
        s3_header(s, "X-Amz-Security-Token", creds->session_token);
    struct sigv4_request req = {r->method,   buf_str(&s->target), s->target.len,
                                s->headers,  s->n_headers,        r->body,
                                r->body_len, s->payload};
    struct sigv4_params p = {region, S3_SERVICE, s->amz_date, true, false};
    rc = sigv4_sign(signer, &req, creds, &p, &s->sig);
    return rc == SIGV4_ERR_NOMEM ? S3_ERR_NOMEM : rc ? S3_ERR_INPUT : S3_OK;
}

/* ---- replies ------------------------------------------------------------------------ */

/* Copies the scrubbed text into dst (size bytes) as one line, cut with "...". */
static void s3_clean(char *dst, size_t size, const char *s, size_t n) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    dst[0] = '\0';
    if (scrub_append(&b, s, n) == 0) {
        size_t max = size - 4, keep = b.len <= max ? b.len : max;
        while (keep < b.len && keep > 0 && ((unsigned char)b.data[keep] & 0xC0) == 0x80) keep--;
        for (size_t i = 0; i < keep; i++)
            dst[i] = (unsigned char)b.data[i] < 0x20 || b.data[i] == 0x7f ? ' ' : b.data[i];
        if (keep < b.len) memcpy(dst + keep, "...", 3), keep += 3;
        dst[keep] = '\0';
    }
    buf_free(&b);
}

void s3_parse_error(const char *xml, size_t len, char code[128], char message[512]) {
    struct buf t;
    buf_init(&t, (size_t)64 * 1024);
    code[0] = message[0] = '\0';
    if (s3xml_text(xml, len, "Code", &t) == S3XML_OK) s3_clean(code, 128, buf_str(&t), t.len);
    buf_reset(&t);
    if (s3xml_text(xml, len, "Message", &t) == S3XML_OK) s3_clean(message, 512, buf_str(&t), t.len);
    buf_free(&t);
}

struct s3_list_ctx {
    s3_object_fn *fn;
    void *ud;
    struct buf *err;
    struct buf key, size;
};

/* One Contents element: its Key (a key this client could ask for) and Size. */
static int s3_list_one(void *ud, const char *inner, size_t len) {
    struct s3_list_ctx *c = ud;
    buf_reset(&c->key);
    buf_reset(&c->size);
    char *end = NULL;
    if (s3xml_text(inner, len, "Key", &c->key) || s3xml_text(inner, len, "Size", &c->size) ||
        memchr(buf_str(&c->key), '\0', c->key.len))
        return buf_fail(c->err, S3_ERR_REPLY, "a listed object without a Key and a Size");
    errno = 0;
    long long size = strtoll(buf_str(&c->size), &end, 10);
    if (errno || end == buf_str(&c->size) || *end || size < 0)
        return buf_fail(c->err, S3_ERR_REPLY, "a listed object's Size is not a number");
    return c->fn(c->ud, buf_str(&c->key), size, c->err);
}

int s3_parse_list(const char *xml, size_t len, s3_object_fn *fn, void *ud, bool *truncated,
                  struct buf *next, struct buf *err) {
    struct s3_list_ctx c = {fn, ud, err, {0}, {0}};
    struct buf flag;
    buf_init(&c.key, S3_KEY_MAX * 6 + 1);
    buf_init(&c.size, 64);
    buf_init(&flag, 64);
    *truncated = false;
    int rc = s3xml_text(xml, len, "ListBucketResult", &flag) == S3XML_ABSENT
                 ? buf_fail(err, S3_ERR_REPLY, "the listing is not a ListBucketResult")
                 : S3_OK;
    buf_reset(&flag);
    if (!rc) rc = s3xml_each(xml, len, "Contents", s3_list_one, &c);
    if (rc == S3XML_ERR_MALFORMED) rc = buf_fail(err, S3_ERR_REPLY, "a malformed listing");
    if (!rc && s3xml_text(xml, len, "IsTruncated", &flag) == S3XML_OK)
        *truncated = strcmp(buf_str(&flag), "true") == 0;
    if (!rc && *truncated && s3xml_text(xml, len, "NextContinuationToken", next) != S3XML_OK)
        rc = buf_fail(err, S3_ERR_REPLY, "a truncated listing without a NextContinuationToken");
    buf_free(&c.key);
    buf_free(&c.size);
    buf_free(&flag);
    return rc;
}

/* ---- the client ------------------------------------------------------------------------ */

struct s3_client {
    char *region, *endpoint_url;
    struct creds_cache *cache;
    struct sigv4_signer *signer;
    CURL *curl;
    bool allow_plain_http;
    int max_attempts;
    long timeout_ms;
    long long offset; /* seconds added to the clock when signing */
};

int s3_client_new(const struct s3_config *cfg, struct s3_client **out, struct buf *err) {
    *out = NULL;
    if (!cfg->region || !creds_name_ok(cfg->region))
        return buf_fail(err, S3_ERR_INPUT, "s3: no region, or not a region name such as us-east-1");
    if (cfg->endpoint_url && strncmp(cfg->endpoint_url, "http://", 7) != 0 &&
        strncmp(cfg->endpoint_url, "https://", 8) != 0)
        return buf_fail(err, S3_ERR_INPUT, "s3: the endpoint URL is not http:// or https://");
    if (cfg->endpoint_url && plainhttp_check(cfg->endpoint_url, cfg->allow_plain_http, err))
        return S3_ERR_INPUT;
    struct s3_client *c = calloc(1, sizeof *c);
    if (!c || curl_global_init(CURL_GLOBAL_DEFAULT)) {
        free(c);
        return buf_fail(err, S3_ERR_NOMEM, "out of memory");
    }
    c->allow_plain_http = cfg->allow_plain_http;
    c->max_attempts = cfg->max_attempts ? cfg->max_attempts : S3_ATTEMPTS;
    c->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : S3_TIMEOUT_MS;
    if (!(c->region = strdup(cfg->region)) ||
        (cfg->endpoint_url && !(c->endpoint_url = strdup(cfg->endpoint_url))) ||
        !(c->signer = sigv4_signer_new()) || !(c->curl = curl_easy_init()) ||
        !(c->cache = creds_cache_new(&cfg->creds))) {
        s3_client_free(c);
        return buf_fail(err, S3_ERR_NOMEM, "out of memory");
    }
    *out = c;
    return S3_OK;
}

void s3_client_free(struct s3_client *c) {
    if (!c) return;
    creds_cache_free(c->cache);
    sigv4_signer_free(c->signer);
    if (c->curl) curl_easy_cleanup(c->curl);
    free(c->region);
    free(c->endpoint_url);
    free(c);
    curl_global_cleanup();
}

/* What one attempt got back. */
struct s3_got {
    struct buf *body; /* a listing's or an error's text */
    FILE *file;       /* GetObject: a 2xx body goes here */
    unsigned long long written, max;
    bool too_large, io;
    CURL *curl;
    CURLcode res;
    long status;
    char date[64];
    char errbuf[CURL_ERROR_SIZE];
};

static size_t s3_on_body(char *p, size_t size, size_t n, void *ud) {
    struct s3_got *g = ud;
    size_t len = size * n;
    long status = 0;
    curl_easy_getinfo(g->curl, CURLINFO_RESPONSE_CODE, &status);
    if (g->file && status >= 200 && status < 300) {
        if (len > g->max - g->written) return g->too_large = true, 0;
        if (fwrite(p, 1, len, g->file) != len) return g->io = true, 0;
        g->written += len;
        return len;
    }
    if (buf_add(g->body, p, len)) return g->too_large = true, 0;
    return len;
}

static size_t s3_on_header(char *p, size_t size, size_t n, void *ud) {
    struct s3_got *g = ud;
    size_t len = size * n;
    if (len > 5 && strncasecmp(p, "date:", 5) == 0) {
        const char *v = p + 5, *end = p + len;
        while (v < end && (*v == ' ' || *v == '\t')) v++;
        while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
        size_t k = (size_t)(end - v) < sizeof g->date - 1 ? (size_t)(end - v) : sizeof g->date - 1;
        memcpy(g->date, v, k);
        g->date[k] = '\0';
    }
    return len;
}

/* The signed headers, Authorization, and empty Expect:/Accept: to keep curl's own out. */
static int s3_headers(const struct s3_signed *s, struct curl_slist **list) {
    struct buf line;
    int rc = 0;
    buf_init(&line, BUF_NO_CAP);
    for (size_t i = 0; !rc && i <= s->n_headers; i++) {
        buf_reset(&line);
        rc = i < s->n_headers
                 ? buf_addf(&line, "%s: %s", s->headers[i].name, s->headers[i].value)
                 : buf_addf(&line, "Authorization: %s", buf_str(&s->sig.authorization));
        rc = rc || awscurl_add(list, buf_str(&line));
    }
    rc = rc || awscurl_add(list, "Expect:") || awscurl_add(list, "Accept:");
    if (!rc && !s->n_headers) rc = -1;
    buf_free_secret(&line);
    return rc ? S3_ERR_NOMEM : S3_OK;
}

/* Sends s once; the outcome is in g. */
static int s3_send(struct s3_client *c, const struct s3_request *r, const struct s3_signed *s,
                   struct s3_got *g) {
    struct curl_slist *list = NULL;
    CURL *h = c->curl;
    if (s3_headers(s, &list)) {
        awscurl_free(list);
        return S3_ERR_NOMEM;
    }
    g->curl = h;
    struct awscurl_call call = {.url = buf_str(&s->url),
                                .method = strcmp(r->method, "PUT") == 0 ? "PUT" : "GET",
                                .body = r->body,
                                .body_len = r->body_len,
                                .headers = list,
                                .timeout_ms = c->timeout_ms,
                                .connect_ms = S3_CONNECT_MS,
                                .on_body = s3_on_body,
                                .on_header = s3_on_header,
                                .ud = g,
                                .errbuf = g->errbuf,
                                .allow_plain_http = c->allow_plain_http};
    g->res = awscurl_perform(h, &call, &g->status);
    awscurl_free(list);
    return S3_OK;
}

/* Sleeps ms milliseconds. */
static void s3_sleep(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

static double s3_random(void) {
    uint64_t v;
    if (RAND_bytes((unsigned char *)&v, sizeof v) != 1) return 0.5;
    return (double)(v >> 11) / 9007199254740992.0;
}

/* What to call the request in messages: "PUT s3://bucket/key". */
static void s3_what(const struct s3_request *r, char *out, size_t cap) {
    snprintf(out, cap, "%s s3://%s/%.200s%s", r->method, r->bucket, r->key ? r->key : "",
             r->query ? " (listing)" : "");
}

/* The outcome of an attempt that failed: 1 to try again, or an error. */
static int s3_failed(struct s3_client *c, const struct s3_request *r, struct s3_got *g, int attempt,
                     bool *skewed, struct buf *err) {
    char what[300], code[128], msg[512];
    s3_what(r, what, sizeof what);
    if (g->io)
        return buf_fail(err, S3_ERR_IO, "%s: cannot write the object: %s", what, strerror(errno));
    if (g->too_large)
        return buf_fail(err, S3_ERR_REPLY, "%s: the reply is larger than %llu bytes", what,
                        g->file ? g->max : (unsigned long long)S3_REPLY_MAX);
    enum awsj_retry kind;
    if (g->res != CURLE_OK) {
        kind = AWSJ_RETRY_TRANSIENT;
        if (attempt >= c->max_attempts + *skewed)
            return buf_fail(err, S3_ERR_NETWORK, "%s: no reply from %s: %s", what,
                            c->endpoint_url ? c->endpoint_url : "S3",
                            g->errbuf[0] ? g->errbuf : curl_easy_strerror(g->res));
    } else {
        s3_parse_error(g->body->data ? g->body->data : "", g->body->len, code, msg);
        long long offset;
        if (!*skewed && skew_offset((int)g->status, code, msg, g->date, time(NULL), &offset) == 0) {
            c->offset = offset;
            *skewed = true;
            return 1;
        }
        kind = awsj_retry_kind(g->status, code, false);
        if (kind == AWSJ_RETRY_NO || attempt >= c->max_attempts + *skewed)
            return buf_fail(err, S3_ERR_SERVICE, "%s: %s%s%s (HTTP %ld%s)", what,
                            code[0] ? code : "error", msg[0] ? ": " : "", msg, g->status,
                            attempt > 1 ? ", retried" : "");
    }
    s3_sleep(awsj_backoff_ms(kind, attempt, s3_random()));
    return 1;
}

/* One request with its retries: a 2xx reply's body in body (or file). */
static int s3_do(struct s3_client *c, const struct s3_request *r, struct buf *body, FILE *file,
                 unsigned long long max, struct buf *err) {
    struct s3_signed s;
    struct creds creds = {0};
    struct buf cerr;
    bool skewed = false;
    int rc = 1;
    s3_signed_init(&s);
    buf_init(&cerr, BUF_NO_CAP);
    for (int attempt = 1; rc == 1; attempt++) {
        struct s3_got g = {.body = body, .file = file, .max = max};
        buf_reset(body);
        if (file && (fflush(file) || ftruncate(fileno(file), 0) || fseek(file, 0, SEEK_SET))) {
            rc = buf_fail(err, S3_ERR_IO, "cannot rewrite the download: %s", strerror(errno));
            break;
        }
        creds_clear(&creds);
        time_t now = time(NULL);
        if (creds_cache_get(c->cache, now, &creds, &cerr)) {
            rc = buf_fail(err, S3_ERR_CREDS, "s3: %s", buf_str(&cerr));
            break;
        }
        struct sigv4_credentials sc = {creds.access_key_id, creds.secret_access_key,
                                       creds.session_token};
        if ((rc = s3_sign(c->signer, c->region, c->endpoint_url, r, &sc, (time_t)(now + c->offset),
                          &s)) ||
            (rc = s3_send(c, r, &s, &g))) {
            if (rc == S3_ERR_INPUT) (void)!buf_fail(err, rc, "s3: cannot sign the request");
            break;
        }
        rc = g.res == CURLE_OK && !g.too_large && !g.io && g.status >= 200 && g.status < 300
                 ? S3_OK
                 : s3_failed(c, r, &g, attempt, &skewed, err);
    }
    if (rc == S3_ERR_NOMEM && !err->len) (void)!buf_adds(err, "out of memory");
    creds_clear(&creds);
    buf_free(&cerr);
    s3_signed_free(&s);
    return rc;
}

int s3_put(struct s3_client *c, const char *bucket, const char *key, const void *body, size_t len,
           const char *content_type, struct buf *err) {
    if (!s3_key_ok(key)) return buf_fail(err, S3_ERR_INPUT, "s3: '%.200s' is not a key", key);
    if (len > S3_PUT_MAX)
        return buf_fail(err, S3_ERR_INPUT, "s3: %zu bytes are more than one PutObject takes", len);
    struct s3_request r = {"PUT", bucket, key, NULL, body, len, content_type};
    struct buf reply;
    buf_init(&reply, (size_t)64 * 1024);
    int rc = s3_do(c, &r, &reply, NULL, 0, err);
    buf_free(&reply);
    return rc;
}

int s3_get(struct s3_client *c, const char *bucket, const char *key, FILE *out,
           unsigned long long max, struct buf *err) {
    if (!s3_key_ok(key)) return buf_fail(err, S3_ERR_INPUT, "s3: '%.200s' is not a key", key);
    struct s3_request r = {"GET", bucket, key, NULL, NULL, 0, NULL};
    struct buf reply;
    buf_init(&reply, (size_t)64 * 1024);
    int rc = s3_do(c, &r, &reply, out, max, err);
    buf_free(&reply);
    return rc;
}

/* Appends "&name=" and value encoded with the unreserved set. */
static int s3_param(struct buf *q, const char *name, const char *value) {
    static const char hex[] = "0123456789ABCDEF";
    int rc = buf_addf(q, "&%s=", name);
    for (const unsigned char *p = (const unsigned char *)value; *p && !rc; p++)
        rc = s3_unreserved(*p) ? buf_addc(q, (char)*p)
                               : buf_addf(q, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
    return rc;
}

/* The listing's query for prefix and token (NULL: the first page), encoded. */
static int s3_list_query(struct buf *q, const char *prefix, const char *token) {
    buf_reset(q);
    int rc = buf_adds(q, "list-type=2&max-keys=" S3_MAX_KEYS);
    if (!rc && *prefix) rc = s3_param(q, "prefix", prefix);
    if (!rc && token) rc = s3_param(q, "continuation-token", token);
    return rc ? S3_ERR_NOMEM : S3_OK;
}

int s3_list(struct s3_client *c, const char *bucket, const char *prefix, s3_object_fn *fn, void *ud,
            struct buf *err) {
    struct buf q, page, token, next;
    buf_init(&q, BUF_NO_CAP);
    buf_init(&page, (size_t)S3_REPLY_MAX);
    buf_init(&token, 4096);
    buf_init(&next, 4096);
    int rc = S3_OK;
    for (int n = 0; !rc; n++) {
        bool truncated;
        if (n == S3_LIST_PAGES) {
            rc = buf_fail(err, S3_ERR_REPLY, "s3: more than %d pages under s3://%s/%s",
                          S3_LIST_PAGES, bucket, prefix);
            break;
        }
        if ((rc = s3_list_query(&q, prefix, n ? buf_str(&token) : NULL))) break;
        struct s3_request r = {"GET", bucket, NULL, buf_str(&q), NULL, 0, NULL};
        if ((rc = s3_do(c, &r, &page, NULL, 0, err))) break;
        buf_reset(&next);
        rc = s3_parse_list(page.data ? page.data : "", page.len, fn, ud, &truncated, &next, err);
        if (rc || !truncated) break;
        if (n && strcmp(buf_str(&next), buf_str(&token)) == 0) {
            rc = buf_fail(err, S3_ERR_REPLY, "s3: the listing repeats its continuation token");
            break;
        }
        buf_reset(&token);
        if (buf_add(&token, next.data, next.len)) rc = S3_ERR_NOMEM;
    }
    if (rc > 0) rc = S3_OK; /* the callback stopped it */
    if (rc == S3_ERR_NOMEM && !err->len) (void)!buf_adds(err, "out of memory");
    buf_free(&q);
    buf_free(&page);
    buf_free(&token);
    buf_free(&next);
    return rc;
}
