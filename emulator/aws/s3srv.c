#include "s3srv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#define S3SRV_XML    "application/xml"
#define S3SRV_NS     "http://s3.amazonaws.com/doc/2006-03-01/"
#define S3SRV_KEYMAX 1024 /* bytes of a key */

void s3srv_init(struct s3srv *s) {
    memset(s, 0, sizeof *s);
}

static void s3srv_object_free(struct s3srv_object *o) {
    free(o->bucket);
    free(o->key);
    free(o->type);
    free(o->data);
}

void s3srv_free(struct s3srv *s) {
    for (size_t i = 0; i < s->n; i++) s3srv_object_free(&s->objs[i]);
    free(s->objs);
    memset(s, 0, sizeof *s);
}

bool s3srv_is(const struct http_head *h) {
    const struct sigv4_header *a = http_header(h, "authorization");
    struct sigv4_authorization az;
    return a && sigv4_parse_authorization(a->value, a->value_len, &az) == 0 &&
           az.service_len == 2 && memcmp(az.service, "s3", 2) == 0;
}

/* ---- replies ------------------------------------------------------------------------- */

static int s3srv_esc(struct buf *out, const char *s, size_t n) {
    int rc = BUF_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *e = s[i] == '&'    ? "&amp;"
                        : s[i] == '<'  ? "&lt;"
                        : s[i] == '>'  ? "&gt;"
                        : s[i] == '"'  ? "&quot;"
                        : s[i] == '\'' ? "&apos;"
                                       : NULL;
        rc = e ? buf_adds(out, e) : buf_addc(out, s[i]);
    }
    return rc;
}

/* An S3 error reply: <Error><Code>, <Message>, the key or bucket it concerns. */
static int s3srv_error(struct s3srv_reply *r, int status, const char *code, const char *msg,
                       const char *what, const char *value) {
    buf_reset(&r->body);
    r->status = status;
    r->content_type = S3SRV_XML;
    int rc = buf_addf(&r->body,
                      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>",
                      code);
    if (!rc) rc = s3srv_esc(&r->body, msg, strlen(msg));
    if (!rc) rc = buf_adds(&r->body, "</Message>");
    if (!rc && what) rc = buf_addf(&r->body, "<%s>", what);
    if (!rc && what) rc = s3srv_esc(&r->body, value, strlen(value));
    if (!rc && what) rc = buf_addf(&r->body, "</%s>", what);
    if (!rc) rc = buf_adds(&r->body, "</Error>");
    return rc ? -1 : 0;
}

/* ---- the request's parts ---------------------------------------------------------------- */

static int s3srv_hex(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Appends s[0..n) percent-decoded; false when an escape is malformed or makes a NUL. */
static bool s3srv_decode(struct buf *out, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '%') {
            int hi = i + 2 < n ? s3srv_hex(s[i + 1]) : -1;
            int lo = i + 2 < n ? s3srv_hex(s[i + 2]) : -1;
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return false;
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (buf_addc(out, c)) return false;
    }
    return true;
}

/* The bucket and the key (decoded; "" for none) of the path, the query apart. */
struct s3srv_req {
    char method[8];
    struct buf bucket, key, path, query; /* path: decoded, for the signature */
    bool has_key;
};

static bool s3srv_parse(const struct http_head *h, struct s3srv_req *q) {
    const char *t = h->target, *end = t + h->target_len;
    const char *qm = memchr(t, '?', h->target_len);
    const char *pend = qm ? qm : end;
    snprintf(q->method, sizeof q->method, "%.*s", (int)(h->method_len < 7 ? h->method_len : 7),
             h->method);
    if (t == pend || *t != '/') return false;
    if (!s3srv_decode(&q->path, t, (size_t)(pend - t))) return false;
    const char *p = buf_str(&q->path) + 1, *slash = strchr(p, '/');
    if (buf_add(&q->bucket, p, slash ? (size_t)(slash - p) : strlen(p))) return false;
    q->has_key = slash && slash[1];
    if (q->has_key && buf_adds(&q->key, slash + 1)) return false;
    if (qm && buf_add(&q->query, qm + 1, (size_t)(end - qm - 1))) return false;
    return true;
}

/* The decoded value of name in the query, appended to out; false when absent. */
static bool s3srv_param(const struct s3srv_req *q, const char *name, struct buf *out) {
    size_t n = strlen(name);
    for (const char *p = buf_str(&q->query), *end = p + q->query.len; p < end;) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *e = amp ? amp : end, *eq = memchr(p, '=', (size_t)(e - p));
        size_t klen = eq ? (size_t)(eq - p) : (size_t)(e - p);
        if (klen == n && memcmp(p, name, n) == 0) {
            buf_reset(out);
            return !eq || s3srv_decode(out, eq + 1, (size_t)(e - eq - 1));
        }
        p = e + 1;
    }
    return false;
}

/* A key S3 takes and this verifier can tell apart: no empty, "." or ".." segment. */
static bool s3srv_key_ok(const char *key, size_t n) {
    if (n == 0 || n > S3SRV_KEYMAX) return false;
    for (size_t i = 0; i <= n;) {
        size_t k = i;
        while (k < n && key[k] != '/') k++;
        size_t len = k - i;
        if (len == 0 || (len == 1 && key[i] == '.') ||
            (len == 2 && key[i] == '.' && key[i + 1] == '.'))
            return false;
        i = k + 1;
    }
    return true;
}

static bool s3srv_bucket_ok(const char *b) {
    size_t n = strlen(b);
    if (n < 3 || n > 63) return false;
    for (size_t i = 0; i < n; i++)
        if (!((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= '0' && b[i] <= '9') || b[i] == '.' ||
              b[i] == '-'))
            return false;
    return true;
}

/* ---- the signature ----------------------------------------------------------------------- */

/* The SigV4 check (as S3: the payload hash signed and the body's, the path
 * signed as sent); 0, or the refusal written into r (1). */
static int s3srv_verify(struct auth *auth, const struct http_head *h, const struct s3srv_req *q,
                        const char *body, size_t len, time_t now, struct s3srv_reply *r) {
    const struct sigv4_header *a = http_header(h, "authorization");
    const struct sigv4_header *sha = http_header(h, "x-amz-content-sha256");
    struct sigv4_authorization az;
    char region[64], hex[SIGV4_HEX_LEN + 1];
    if (!a || sigv4_parse_authorization(a->value, a->value_len, &az))
        return s3srv_error(r, 400, "AuthorizationHeaderMalformed",
                           "The authorization header is malformed.", NULL, NULL)
                   ? -1
                   : 1;
    snprintf(region, sizeof region, "%.*s", (int)(az.region_len < 63 ? az.region_len : 63),
             az.region);
    if (!sha)
        return s3srv_error(r, 400, "InvalidRequest",
                           "Missing required header for this request: x-amz-content-sha256", NULL,
                           NULL)
                   ? -1
                   : 1;
    if (sigv4_sha256_hex(body ? body : "", len, hex)) return -1;
    if (sha->value_len != SIGV4_HEX_LEN || memcmp(sha->value, hex, SIGV4_HEX_LEN) != 0)
        return s3srv_error(r, 400, "XAmzContentSHA256Mismatch",
                           "The provided 'x-amz-content-sha256' header does not match what was "
                           "computed (sm-emulator serves signed payloads only).",
                           NULL, NULL)
                   ? -1
                   : 1;
    struct buf target, why;
    buf_init(&target, BUF_NO_CAP);
    buf_init(&why, 4096);
    int rc = buf_add(&target, q->path.data, q->path.len) ||
                     (q->query.len && buf_addf(&target, "?%s", buf_str(&q->query)))
                 ? AUTH_ERR_NOMEM
                 : 0;
    struct auth_request ar = {
        q->method, buf_str(&target), target.len, h->headers, h->n_headers, body, len};
    if (!rc) rc = auth_verify_scope(auth, &ar, "s3", region, now, &why);
    buf_free(&target);
    const char *msg = buf_str(&why);
    bool skew = strstr(msg, "Signature expired") || strstr(msg, "Signature not yet current");
    buf_free(&why);
    switch (rc) {
    case AUTH_OK:
        return 0;
    case AUTH_ERR_NOMEM:
        return -1;
    case AUTH_ERR_UNRECOGNIZED:
        return s3srv_error(r, 403, "InvalidAccessKeyId",
                           "The AWS Access Key Id you provided does not exist in our records.",
                           NULL, NULL)
                   ? -1
                   : 1;
    case AUTH_ERR_EXPIRED:
        return s3srv_error(r, 400, "ExpiredToken", "The provided token has expired.", NULL, NULL)
                   ? -1
                   : 1;
    case AUTH_ERR_SIGNATURE:
        if (skew)
            return s3srv_error(r, 403, "RequestTimeTooSkewed",
                               "The difference between the request time and the current time is "
                               "too large.",
                               NULL, NULL)
                       ? -1
                       : 1;
        return s3srv_error(r, 403, "SignatureDoesNotMatch",
                           "The request signature we calculated does not match the signature you "
                           "provided. Check your key and signing method.",
                           NULL, NULL)
                   ? -1
                   : 1;
    default:
        return s3srv_error(r, 403, "AccessDenied", "Access Denied", NULL, NULL) ? -1 : 1;
    }
}

/* ---- the store ---------------------------------------------------------------------------- */

static int s3srv_cmp(const char *b1, const char *k1, const char *b2, const char *k2) {
    int c = strcmp(b1, b2);
    return c ? c : strcmp(k1, k2);
}

/* The index of (bucket, key), or where it would go (*found false). */
static size_t s3srv_find(const struct s3srv *s, const char *bucket, const char *key, bool *found) {
    size_t lo = 0, hi = s->n;
    *found = false;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = s3srv_cmp(s->objs[mid].bucket, s->objs[mid].key, bucket, key);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void s3srv_md5(const char *data, size_t len, char out[33]) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    out[0] = '\0';
    if (EVP_Digest(data, len, md, &n, EVP_md5(), NULL) != 1) return;
    for (unsigned i = 0; i < n && i < 16; i++) snprintf(out + (size_t)2 * i, 3, "%02x", md[i]);
}

static int s3srv_put(struct s3srv *s, const struct s3srv_req *q, const struct http_head *h,
                     const char *body, size_t len, time_t now, struct s3srv_reply *r) {
    bool found;
    size_t at = s3srv_find(s, buf_str(&q->bucket), buf_str(&q->key), &found);
    size_t old = found ? s->objs[at].len : 0;
    if (s->bytes - old + len > S3SRV_MAX_BYTES || (!found && s->n >= S3SRV_MAX_OBJECTS))
        return s3srv_error(r, 400, "EntityTooLarge",
                           "sm-emulator's S3 holds 256 MiB and 100000 objects at most", "Key",
                           buf_str(&q->key));
    const struct sigv4_header *ct = http_header(h, "content-type");
    struct s3srv_object o = {.mtime = now, .len = len};
    o.bucket = strdup(buf_str(&q->bucket));
    o.key = strdup(buf_str(&q->key));
    o.type = ct ? strndup(ct->value, ct->value_len < 200 ? ct->value_len : 200)
                : strdup("binary/octet-stream");
    o.data = malloc(len ? len : 1);
    if (!o.bucket || !o.key || !o.type || !o.data) {
        s3srv_object_free(&o);
        return -1;
    }
    if (len) memcpy(o.data, body, len);
    s3srv_md5(body ? body : "", len, o.etag);
    if (!found && s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct s3srv_object *p = realloc(s->objs, cap * sizeof *p);
        if (!p) {
            s3srv_object_free(&o);
            return -1;
        }
        s->objs = p;
        s->cap = cap;
    }
    if (found) {
        s3srv_object_free(&s->objs[at]);
    } else {
        memmove(&s->objs[at + 1], &s->objs[at], (s->n - at) * sizeof *s->objs);
        s->n++;
    }
    s->objs[at] = o;
    s->bytes = s->bytes - old + len;
    r->status = 200;
    return 0;
}

static int s3srv_get(struct s3srv *s, const struct s3srv_req *q, struct s3srv_reply *r) {
    bool found;
    size_t at = s3srv_find(s, buf_str(&q->bucket), buf_str(&q->key), &found);
    if (!found)
        return s3srv_error(r, 404, "NoSuchKey", "The specified key does not exist.", "Key",
                           buf_str(&q->key));
    r->status = 200;
    r->content_type = s->objs[at].type;
    return buf_add(&r->body, s->objs[at].data, s->objs[at].len) ? -1 : 0;
}

/* ---- ListObjectsV2 -------------------------------------------------------------------------- */

struct s3srv_list {
    struct buf prefix, delim, token, after, max, common, last;
    long max_keys;
};

static void s3srv_list_free(struct s3srv_list *l) {
    buf_free(&l->prefix);
    buf_free(&l->delim);
    buf_free(&l->token);
    buf_free(&l->after);
    buf_free(&l->max);
    buf_free(&l->common);
    buf_free(&l->last);
}

/* The continuation token: the hex of the last key of the page. */
static int s3srv_token_of(struct buf *out, const char *key) {
    int rc = BUF_OK;
    for (const unsigned char *p = (const unsigned char *)key; *p && !rc; p++)
        rc = buf_addf(out, "%02x", *p);
    return rc;
}

static bool s3srv_token_key(const struct buf *token, struct buf *key) {
    if (token->len % 2) return false;
    for (size_t i = 0; i < token->len; i += 2) {
        int hi = s3srv_hex(token->data[i]), lo = s3srv_hex(token->data[i + 1]);
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0) || buf_addc(key, (char)(hi * 16 + lo)))
            return false;
    }
    return true;
}

static int s3srv_tag(struct buf *b, const char *tag, const char *v) {
    return buf_addf(b, "<%s>", tag) || s3srv_esc(b, v, strlen(v)) || buf_addf(b, "</%s>", tag);
}

/* One key of the page: a Contents, or its common prefix (once). */
static int s3srv_list_one(const struct s3srv_object *o, struct s3srv_list *l, struct buf *b,
                          long *count) {
    const char *rest = o->key + l->prefix.len;
    const char *d = l->delim.len ? strstr(rest, buf_str(&l->delim)) : NULL;
    if (d) {
        size_t n = (size_t)(d - o->key) + l->delim.len;
        if (l->common.len == n && memcmp(l->common.data, o->key, n) == 0) return 0;
        buf_reset(&l->common);
        if (buf_add(&l->common, o->key, n)) return -1;
        (*count)++;
        return buf_adds(b, "<CommonPrefixes>") || s3srv_tag(b, "Prefix", buf_str(&l->common)) ||
                       buf_adds(b, "</CommonPrefixes>")
                   ? -1
                   : 0;
    }
    char when[32];
    struct tm tm;
    gmtime_r(&o->mtime, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
    (*count)++;
    return buf_adds(b, "<Contents>") || s3srv_tag(b, "Key", o->key) ||
                   s3srv_tag(b, "LastModified", when) ||
                   buf_addf(b, "<ETag>&quot;%s&quot;</ETag><Size>%zu</Size>", o->etag, o->len) ||
                   buf_adds(b, "<StorageClass>STANDARD</StorageClass></Contents>")
               ? -1
               : 0;
}

/* The page's keys from the first after l->after into b; *next the key to go on from. */
static int s3srv_list_page(struct s3srv *s, const char *bucket, struct s3srv_list *l, struct buf *b,
                           long *count, bool *truncated) {
    bool found;
    size_t i = s3srv_find(s, bucket, buf_str(&l->after), &found);
    if (found) i++;
    *count = 0;
    *truncated = false;
    for (; i < s->n && strcmp(s->objs[i].bucket, bucket) == 0; i++) {
        const struct s3srv_object *o = &s->objs[i];
        if (strncmp(o->key, buf_str(&l->prefix), l->prefix.len) != 0) continue;
        if (*count == l->max_keys) {
            *truncated = true;
            break;
        }
        if (s3srv_list_one(o, l, b, count)) return -1;
        buf_reset(&l->last);
        if (buf_adds(&l->last, o->key)) return -1;
    }
    return 0;
}

static int s3srv_list(struct s3srv *s, const struct s3srv_req *q, struct s3srv_reply *r) {
    struct s3srv_list l = {.max_keys = S3SRV_MAX_KEYS};
    struct buf page;
    buf_init(&l.prefix, S3SRV_KEYMAX + 1);
    buf_init(&l.delim, 64);
    buf_init(&l.token, (size_t)4 * S3SRV_KEYMAX);
    buf_init(&l.after, S3SRV_KEYMAX + 1);
    buf_init(&l.max, 32);
    buf_init(&l.common, BUF_NO_CAP);
    buf_init(&l.last, BUF_NO_CAP);
    buf_init(&page, BUF_NO_CAP);
    int rc = 0;
    bool bad = false;
    s3srv_param(q, "prefix", &l.prefix);
    s3srv_param(q, "delimiter", &l.delim);
    if (s3srv_param(q, "max-keys", &l.max)) {
        char *end;
        long v = strtol(buf_str(&l.max), &end, 10);
        bad = *end || end == buf_str(&l.max) || v < 0;
        if (!bad && v < l.max_keys) l.max_keys = v;
    }
    if (s3srv_param(q, "continuation-token", &l.token))
        bad = bad || !s3srv_token_key(&l.token, &l.after);
    else
        s3srv_param(q, "start-after", &l.after);
    if (bad) {
        rc = s3srv_error(r, 400, "InvalidArgument", "A max-keys or continuation-token is invalid.",
                         NULL, NULL);
        goto done;
    }
    long count;
    bool truncated;
    rc = s3srv_list_page(s, buf_str(&q->bucket), &l, &page, &count, &truncated);
    struct buf *b = &r->body;
    if (!rc)
        rc =
            buf_adds(
                b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"" S3SRV_NS
                   "\">") ||
            s3srv_tag(b, "Name", buf_str(&q->bucket)) ||
            s3srv_tag(b, "Prefix", buf_str(&l.prefix)) ||
            buf_addf(b, "<KeyCount>%ld</KeyCount><MaxKeys>%ld</MaxKeys>", count, l.max_keys) ||
            (l.delim.len && s3srv_tag(b, "Delimiter", buf_str(&l.delim))) ||
            buf_addf(b, "<IsTruncated>%s</IsTruncated>", truncated ? "true" : "false") ||
            (l.token.len && s3srv_tag(b, "ContinuationToken", buf_str(&l.token)));
    if (!rc && truncated) {
        struct buf next;
        buf_init(&next, BUF_NO_CAP);
        rc = s3srv_token_of(&next, buf_str(&l.last)) ||
             s3srv_tag(b, "NextContinuationToken", buf_str(&next));
        buf_free(&next);
    }
    if (!rc)
        rc = buf_add(b, page.data ? page.data : "", page.len) || buf_adds(b, "</ListBucketResult>");
    r->status = 200;
    r->content_type = S3SRV_XML;
done:
    s3srv_list_free(&l);
    buf_free(&page);
    return rc ? -1 : 0;
}

/* ---- a request ---------------------------------------------------------------------------- */

static int s3srv_route(struct s3srv *s, const struct s3srv_req *q, const struct http_head *h,
                       const char *body, size_t len, time_t now, struct s3srv_reply *r) {
    bool put = strcmp(q->method, "PUT") == 0, get = strcmp(q->method, "GET") == 0;
    if (!s3srv_bucket_ok(buf_str(&q->bucket)))
        return s3srv_error(r, 400, "InvalidBucketName", "The specified bucket is not valid.",
                           "BucketName", buf_str(&q->bucket));
    if (q->has_key && !s3srv_key_ok(buf_str(&q->key), q->key.len))
        return s3srv_error(r, 400, "InvalidArgument",
                           "sm-emulator's S3 takes no key with an empty, '.' or '..' part", "Key",
                           buf_str(&q->key));
    if (put && q->has_key) return s3srv_put(s, q, h, body, len, now, r);
    if (get && q->has_key) return s3srv_get(s, q, r);
    if (get) return s3srv_list(s, q, r);
    return s3srv_error(r, 405, "MethodNotAllowed",
                       "The specified method is not allowed against this resource "
                       "(sm-emulator serves PutObject, GetObject and ListObjectsV2).",
                       "Method", q->method);
}

int s3srv_call(struct s3srv *s, struct auth *auth, const struct http_head *h, const char *body,
               size_t len, time_t now, struct s3srv_reply *r) {
    struct s3srv_req q;
    memset(&q, 0, sizeof q);
    buf_init(&q.bucket, 256);
    buf_init(&q.key, S3SRV_KEYMAX + 1);
    buf_init(&q.path, (size_t)4 * S3SRV_KEYMAX);
    buf_init(&q.query, (size_t)16 * S3SRV_KEYMAX);
    buf_reset(&r->body);
    r->status = 200;
    r->content_type = S3SRV_XML;
    int rc;
    if (!s3srv_parse(h, &q))
        rc = s3srv_error(r, 400, "InvalidURI", "Couldn't parse the specified URI.", NULL, NULL);
    else if ((rc = s3srv_verify(auth, h, &q, body, len, now, r)) == 0)
        rc = s3srv_route(s, &q, h, body, len, now, r);
    else if (rc == 1)
        rc = 0;
    buf_free(&q.bucket);
    buf_free(&q.key);
    buf_free(&q.path);
    buf_free(&q.query);
    if (rc) {
        buf_reset(&r->body);
        r->status = 500;
        r->content_type = S3SRV_XML;
    }
    return rc;
}
