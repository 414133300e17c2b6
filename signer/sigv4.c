#include "sigv4.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/hmac.h>

#define SIGV4_ALGORITHM   "AWS4-HMAC-SHA256"
#define SIGV4_MAX_HEADERS 128
#define SIGV4_CACHE_SLOTS 8
#define SIGV4_NAME_MAX    64 /* region and service names */
#define SIGV4_SECRET_MAX  256

/* Headers botocore never signs: proxies and clients change them on the way. */
static const struct {
    const char *name;
    size_t len;
} sigv4_unsigned_headers[] = {
    {"authorization", 13}, {"user-agent", 10}, {"expect", 6}, {"x-amzn-trace-id", 15}};

struct sigv4_key_slot {
    char secret[SIGV4_SECRET_MAX];
    char date8[9];
    char region[SIGV4_NAME_MAX];
    char service[SIGV4_NAME_MAX];
    unsigned char key[SIGV4_KEY_LEN];
    unsigned long used; /* for least-recently-used replacement; 0 = empty */
};

struct sigv4_signer {
    pthread_mutex_t lock; /* guards slots and clock */
    struct sigv4_key_slot slots[SIGV4_CACHE_SLOTS];
    unsigned long clock;
};

/* One canonical header line before sorting. */
struct sigv4_hdr {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
};

/* One query parameter; key and value point into the scratch buffer. */
struct sigv4_param {
    size_t key_off, key_len, value_off, value_len;
    const char *base;
};

struct sigv4_crypto {
    EVP_MD_CTX *md;
    EVP_MAC_CTX *mac;                 /* HMAC with SHA-256 */
    unsigned char key[SIGV4_KEY_LEN]; /* the key mac holds, to skip setting it again */
    bool keyed;
};

static EVP_MD *sigv4_md;
static EVP_MAC *sigv4_mac_alg;
static pthread_once_t sigv4_fetch_once = PTHREAD_ONCE_INIT;

/* Fetching once saves the per-call lookups of OpenSSL 3's implicit fetch. */
static void sigv4_fetch(void) {
    sigv4_md = EVP_MD_fetch(NULL, "SHA256", NULL);
    sigv4_mac_alg = EVP_MAC_fetch(NULL, "HMAC", NULL);
}

static const EVP_MD *sigv4_sha256(void) {
    pthread_once(&sigv4_fetch_once, sigv4_fetch);
    return sigv4_md;
}

static void sigv4_crypto_free(struct sigv4_crypto *c) {
    if (!c) return;
    EVP_MD_CTX_free(c->md);
    EVP_MAC_CTX_free(c->mac);
    OPENSSL_cleanse(c, sizeof *c);
    free(c);
}

static struct sigv4_crypto *sigv4_crypto_new(void) {
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                           OSSL_PARAM_construct_end()};
    struct sigv4_crypto *c = calloc(1, sizeof *c);
    if (!c || !sigv4_sha256() || !sigv4_mac_alg) goto fail;
    c->md = EVP_MD_CTX_new();
    c->mac = EVP_MAC_CTX_new(sigv4_mac_alg);
    if (!c->md || !c->mac || !EVP_MAC_CTX_set_params(c->mac, params)) goto fail;
    return c;
fail:
    sigv4_crypto_free(c);
    return NULL;
}

static void sigv4_hex(const unsigned char *in, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

/* Hex SHA-256, with c's context when there is one. */
static int sigv4_hash(struct sigv4_crypto *c, const void *data, size_t len,
                      char hex[SIGV4_HEX_LEN + 1]) {
    unsigned char md[SIGV4_KEY_LEN];
    const EVP_MD *sha = sigv4_sha256();
    int ok =
        sha && (c ? EVP_DigestInit_ex(c->md, sha, NULL) && EVP_DigestUpdate(c->md, data, len) &&
                        EVP_DigestFinal_ex(c->md, md, NULL)
                  : EVP_Digest(data, len, md, NULL, sha, NULL));
    if (!ok) return SIGV4_ERR_CRYPTO;
    sigv4_hex(md, sizeof md, hex);
    return SIGV4_OK;
}

int sigv4_sha256_hex(const void *data, size_t len, char hex[SIGV4_HEX_LEN + 1]) {
    return sigv4_hash(NULL, data, len, hex);
}

static int sigv4_hmac(const void *key, size_t key_len, const void *msg, size_t msg_len,
                      unsigned char out[SIGV4_KEY_LEN]) {
    const EVP_MD *sha = sigv4_sha256();
    unsigned int n = 0;
    if (!sha || !HMAC(sha, key, (int)key_len, msg, msg_len, out, &n) || n != SIGV4_KEY_LEN)
        return SIGV4_ERR_CRYPTO;
    return SIGV4_OK;
}

/* HMAC-SHA256 with c's context; a key equal to the last one is not set up again. */
static int sigv4_hmac_ctx(struct sigv4_crypto *c, const unsigned char key[SIGV4_KEY_LEN],
                          const void *msg, size_t msg_len, unsigned char out[SIGV4_KEY_LEN]) {
    size_t n = 0;
    bool same = c->keyed && CRYPTO_memcmp(c->key, key, SIGV4_KEY_LEN) == 0;
    memcpy(c->key, key, SIGV4_KEY_LEN);
    c->keyed = EVP_MAC_init(c->mac, same ? NULL : key, same ? 0 : SIGV4_KEY_LEN, NULL) &&
               EVP_MAC_update(c->mac, msg, msg_len) &&
               EVP_MAC_final(c->mac, out, &n, SIGV4_KEY_LEN) && n == SIGV4_KEY_LEN;
    return c->keyed ? SIGV4_OK : SIGV4_ERR_CRYPTO;
}

static bool sigv4_is_unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

static bool sigv4_is_tchar(unsigned char c) {
    return sigv4_is_unreserved(c) || (c && strchr("!#$%&'*+^`|", c));
}

static bool sigv4_is_space(char c) {
    return c == ' ' || c == '\t';
}

static char sigv4_lower(char c) {
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

#define SIGV4_CAT_END ((const char *)NULL)

/* Appends each string argument up to the terminating SIGV4_CAT_END. */
static int sigv4_cat(struct buf *b, ...) {
    va_list ap;
    va_start(ap, b);
    int rc = SIGV4_OK;
    for (const char *s; !rc && (s = va_arg(ap, const char *));)
        rc = buf_adds(b, s) ? SIGV4_ERR_NOMEM : SIGV4_OK;
    va_end(ap);
    return rc;
}

/* Percent-encodes p[0..n) with the unreserved set, keeping '/' when keep_slash. */
static int sigv4_encode(struct buf *out, const char *p, size_t n, bool keep_slash) {
    static const char digits[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n;) {
        size_t run = i;
        while (run < n &&
               (sigv4_is_unreserved((unsigned char)p[run]) || (keep_slash && p[run] == '/')))
            run++;
        if (run > i && buf_add(out, p + i, run - i)) return SIGV4_ERR_NOMEM;
        if (run == n) break;
        unsigned char c = (unsigned char)p[run];
        char esc[3] = {'%', digits[c >> 4], digits[c & 15]};
        if (buf_add(out, esc, 3)) return SIGV4_ERR_NOMEM;
        i = run + 1;
    }
    return SIGV4_OK;
}

static int sigv4_hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Appends p[0..n) with valid %XX escapes decoded. */
static int sigv4_decode(struct buf *out, const char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        int hi, lo;
        if (c == '%' && i + 2 < n && (hi = sigv4_hexval(p[i + 1])) >= 0 &&
            (lo = sigv4_hexval(p[i + 2])) >= 0) {
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (buf_addc(out, c)) return SIGV4_ERR_NOMEM;
    }
    return SIGV4_OK;
}

/* Appends the canonical URI: empty and dot segments resolved (RFC 3986 5.2.4,
 * plus the empty segments AWS drops), then each segment encoded again. */
static int sigv4_canonical_uri(struct buf *out, const char *path, size_t n, bool no_normalize) {
    if (n == 0) return buf_addc(out, '/') ? SIGV4_ERR_NOMEM : SIGV4_OK;
    if (no_normalize) return sigv4_encode(out, path, n, true);
    size_t root = out->len;
    if (buf_addc(out, '/')) return SIGV4_ERR_NOMEM;
    for (size_t i = 0; i < n;) {
        size_t end = i;
        while (end < n && path[end] != '/') end++;
        const char *seg = path + i;
        size_t len = end - i;
        i = end + 1;
        if (len == 0 || (len == 1 && seg[0] == '.')) continue;
        if (len == 2 && seg[0] == '.' && seg[1] == '.') {
            size_t cut = out->len;
            while (cut > root + 1 && out->data[cut - 1] != '/') cut--;
            buf_truncate(out, cut > root + 1 ? cut - 1 : root + 1);
            continue;
        }
        if (out->len > root + 1 && buf_addc(out, '/')) return SIGV4_ERR_NOMEM;
        int rc = sigv4_encode(out, seg, len, false);
        if (rc) return rc;
    }
    if (path[n - 1] == '/' && out->len > root + 1 && buf_addc(out, '/')) return SIGV4_ERR_NOMEM;
    return SIGV4_OK;
}

static int sigv4_param_cmp(const void *a, const void *b) {
    const struct sigv4_param *x = a, *y = b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->base + x->key_off, y->base + y->key_off, n);
    if (c || x->key_len != y->key_len) return c ? c : (x->key_len < y->key_len ? -1 : 1);
    n = x->value_len < y->value_len ? x->value_len : y->value_len;
    c = memcmp(x->base + x->value_off, y->base + y->value_off, n);
    if (c || x->value_len == y->value_len) return c;
    return x->value_len < y->value_len ? -1 : 1;
}

/* Decodes a key or value and appends it encoded with the unreserved set. */
static int sigv4_reencode(struct buf *enc, struct buf *tmp, const char *p, size_t n, size_t *off,
                          size_t *len) {
    buf_reset(tmp);
    int rc = sigv4_decode(tmp, p, n);
    *off = enc->len;
    if (!rc) rc = sigv4_encode(enc, tmp->data ? tmp->data : "", tmp->len, false);
    *len = enc->len - *off;
    return rc;
}

/* Appends the canonical query: pairs decoded, encoded again, sorted by key then value. */
static int sigv4_canonical_query(struct buf *out, const char *q, size_t n) {
    size_t count = 1;
    for (size_t i = 0; i < n; i++) count += q[i] == '&';
    struct sigv4_param *params = calloc(count, sizeof *params);
    struct buf enc, tmp;
    buf_init(&enc, BUF_NO_CAP);
    buf_init(&tmp, BUF_NO_CAP);
    size_t used = 0;
    int rc = params ? SIGV4_OK : SIGV4_ERR_NOMEM;
    for (size_t i = 0; !rc && i < n;) {
        size_t end = i, eq;
        while (end < n && q[end] != '&') end++;
        for (eq = i; eq < end && q[eq] != '='; eq++) continue;
        struct sigv4_param *pr = &params[used];
        if (end > i) {
            rc = sigv4_reencode(&enc, &tmp, q + i, eq - i, &pr->key_off, &pr->key_len);
            if (!rc && eq < end)
                rc = sigv4_reencode(&enc, &tmp, q + eq + 1, end - eq - 1, &pr->value_off,
                                    &pr->value_len);
            used++;
        }
        i = end + 1;
    }
    for (size_t i = 0; !rc && i < used; i++) params[i].base = buf_str(&enc);
    if (!rc) qsort(params, used, sizeof *params, sigv4_param_cmp);
    for (size_t i = 0; !rc && i < used; i++) {
        const struct sigv4_param *pr = &params[i];
        if ((i && buf_addc(out, '&')) || buf_add(out, pr->base + pr->key_off, pr->key_len) ||
            buf_addc(out, '=') || buf_add(out, pr->base + pr->value_off, pr->value_len))
            rc = SIGV4_ERR_NOMEM;
    }
    free(params);
    buf_free(&enc);
    buf_free(&tmp);
    return rc;
}

static int sigv4_name_cmp(const char *a, size_t an, const char *b, size_t bn) {
    size_t n = an < bn ? an : bn;
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)sigv4_lower(a[i]), y = (unsigned char)sigv4_lower(b[i]);
        if (x != y) return x < y ? -1 : 1;
    }
    return an == bn ? 0 : (an < bn ? -1 : 1);
}

static bool sigv4_name_is(const struct sigv4_hdr *h, const char *name, size_t len) {
    return h->name_len == len && sigv4_name_cmp(h->name, h->name_len, name, len) == 0;
}

static bool sigv4_is_unsigned(const struct sigv4_hdr *h) {
    for (size_t k = 0; k < sizeof sigv4_unsigned_headers / sizeof *sigv4_unsigned_headers; k++)
        if (sigv4_name_is(h, sigv4_unsigned_headers[k].name, sigv4_unsigned_headers[k].len))
            return true;
    return false;
}

/* A stable insertion sort by lower-cased name: requests carry a handful of
 * headers, and equal names must keep their order. */
static void sigv4_sort_headers(struct sigv4_hdr *hs, size_t n) {
    for (size_t i = 1; i < n; i++) {
        struct sigv4_hdr h = hs[i];
        size_t j = i;
        for (; j > 0 && sigv4_name_cmp(hs[j - 1].name, hs[j - 1].name_len, h.name, h.name_len) > 0;
             j--)
            hs[j] = hs[j - 1];
        hs[j] = h;
    }
}

/* Appends a header value trimmed, with inner runs of white space folded to one space. */
static int sigv4_add_value(struct buf *out, const char *v, size_t n) {
    size_t i = 0;
    while (n && sigv4_is_space(v[n - 1])) n--;
    while (i < n && sigv4_is_space(v[i])) i++;
    while (i < n) {
        size_t run = i;
        while (run < n && !sigv4_is_space(v[run])) run++;
        if (buf_add(out, v + i, run - i)) return SIGV4_ERR_NOMEM;
        i = run;
        while (i < n && sigv4_is_space(v[i])) i++;
        if (i < n && buf_addc(out, ' ')) return SIGV4_ERR_NOMEM;
    }
    return SIGV4_OK;
}

static bool sigv4_valid_header(const struct sigv4_header *h) {
    if (!h->name || !h->name_len || (h->value_len && !h->value)) return false;
    for (size_t i = 0; i < h->name_len; i++)
        if (!sigv4_is_tchar((unsigned char)h->name[i])) return false;
    for (size_t i = 0; i < h->value_len; i++)
        if (h->value[i] == '\r' || h->value[i] == '\n' || h->value[i] == '\0') return false;
    return true;
}

/* Collects the headers to sign into hs (room for SIGV4_MAX_HEADERS + 2). */
static int sigv4_collect_headers(const struct sigv4_request *req,
                                 const struct sigv4_credentials *creds,
                                 const struct sigv4_params *p, struct sigv4_hdr *hs,
                                 size_t *n_out) {
    size_t n = 0;
    bool has_host = false, has_date = false, has_token = false;
    if (req->n_headers > SIGV4_MAX_HEADERS) return SIGV4_ERR_INPUT;
    for (size_t i = 0; i < req->n_headers; i++) {
        const struct sigv4_header *h = &req->headers[i];
        if (!sigv4_valid_header(h)) return SIGV4_ERR_INPUT;
        struct sigv4_hdr e = {h->name, h->name_len, h->value, h->value_len};
        if (!p->sign_all && sigv4_is_unsigned(&e)) continue;
        has_host = has_host || sigv4_name_is(&e, "host", 4);
        has_date = has_date || sigv4_name_is(&e, "x-amz-date", 10);
        has_token = has_token || sigv4_name_is(&e, "x-amz-security-token", 20);
        hs[n++] = e;
    }
    if (!has_host) return SIGV4_ERR_INPUT;
    if (!has_date) hs[n++] = (struct sigv4_hdr){"x-amz-date", 10, p->amz_date, SIGV4_DATE_LEN};
    if (creds && creds->session_token && *creds->session_token && !has_token)
        hs[n++] = (struct sigv4_hdr){"x-amz-security-token", 20, creds->session_token,
                                     strlen(creds->session_token)};
    sigv4_sort_headers(hs, n);
    *n_out = n;
    return SIGV4_OK;
}

/* Appends name lower-cased to both buffers. */
static int sigv4_add_name(struct buf *out, struct buf *signed_headers, const char *name, size_t n) {
    char *a = buf_grow(out, n), *b = buf_grow(signed_headers, n);
    if (!a || !b) return SIGV4_ERR_NOMEM;
    for (size_t k = 0; k < n; k++) a[k] = b[k] = sigv4_lower(name[k]);
    return SIGV4_OK;
}

/* Appends the canonical header lines and fills signed_headers. */
static int sigv4_canonical_headers(struct buf *out, struct buf *signed_headers,
                                   const struct sigv4_hdr *hs, size_t n) {
    for (size_t i = 0; i < n; i++) {
        bool same = i && sigv4_name_cmp(hs[i - 1].name, hs[i - 1].name_len, hs[i].name,
                                        hs[i].name_len) == 0;
        int rc = SIGV4_OK;
        if (same) {
            rc = buf_addc(out, ',') ? SIGV4_ERR_NOMEM : SIGV4_OK;
        } else {
            if (i && (buf_addc(out, '\n') || buf_addc(signed_headers, ';'))) return SIGV4_ERR_NOMEM;
            rc = sigv4_add_name(out, signed_headers, hs[i].name, hs[i].name_len);
            if (!rc && buf_addc(out, ':')) rc = SIGV4_ERR_NOMEM;
        }
        if (!rc) rc = sigv4_add_value(out, hs[i].value, hs[i].value_len);
        if (rc) return rc;
    }
    return n && buf_addc(out, '\n') ? SIGV4_ERR_NOMEM : SIGV4_OK;
}

static int sigv4_digits(const char *s, int n) {
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Checks "YYYYMMDDTHHMMSSZ" and, when tm is not NULL, fills it. */
static int sigv4_date_fields(const char *s, struct tm *tm) {
    if (!s || strnlen(s, SIGV4_DATE_LEN + 1) != SIGV4_DATE_LEN || s[8] != 'T' || s[15] != 'Z')
        return SIGV4_ERR_INPUT;
    int year = sigv4_digits(s, 4), mon = sigv4_digits(s + 4, 2), day = sigv4_digits(s + 6, 2);
    int hh = sigv4_digits(s + 9, 2), mm = sigv4_digits(s + 11, 2), ss = sigv4_digits(s + 13, 2);
    if (year < 0 || mon < 1 || mon > 12 || day < 1 || day > 31 || hh < 0 || hh > 23 || mm < 0 ||
        mm > 59 || ss < 0 || ss > 60)
        return SIGV4_ERR_INPUT;
    if (tm)
        *tm = (struct tm){.tm_year = year - 1900,
                          .tm_mon = mon - 1,
                          .tm_mday = day,
                          .tm_hour = hh,
                          .tm_min = mm,
                          .tm_sec = ss};
    return SIGV4_OK;
}

static bool sigv4_valid_name(const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n >= SIGV4_NAME_MAX) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

static bool sigv4_valid_params(const struct sigv4_params *p) {
    return p && sigv4_valid_name(p->region) && sigv4_valid_name(p->service) &&
           sigv4_date_fields(p->amz_date, NULL) == 0;
}

static bool sigv4_valid_method(const char *m) {
    if (!m || !*m) return false;
    for (; *m; m++)
        if (!sigv4_is_tchar((unsigned char)*m)) return false;
    return true;
}

static bool sigv4_valid_target(const char *t, size_t n) {
    if (!t || !n || t[0] != '/') return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)t[i] < 0x20 || t[i] == 0x7f) return false;
    return true;
}

static bool sigv4_is_hex64(const char *s) {
    for (int i = 0; i < SIGV4_HEX_LEN; i++)
        if (!s[i] || sigv4_hexval(s[i]) < 0 || (s[i] >= 'A' && s[i] <= 'F')) return false;
    return s[SIGV4_HEX_LEN] == '\0';
}

static int sigv4_creq(struct sigv4_crypto *c, const struct sigv4_request *req,
                      const struct sigv4_credentials *creds, const struct sigv4_params *p,
                      struct buf *creq, struct buf *signed_headers) {
    struct sigv4_hdr hs[SIGV4_MAX_HEADERS + 2];
    char hash[SIGV4_HEX_LEN + 1];
    size_t n_hs = 0;
    if (!req || !sigv4_valid_method(req->method) ||
        !sigv4_valid_target(req->target, req->target_len) || !sigv4_valid_params(p) ||
        (req->payload_hash && !sigv4_is_hex64(req->payload_hash)) || (req->body_len && !req->body))
        return SIGV4_ERR_INPUT;
    const char *q = memchr(req->target, '?', req->target_len);
    size_t path_len = q ? (size_t)(q - req->target) : req->target_len;
    buf_reset(creq);
    buf_reset(signed_headers);
    int rc = sigv4_collect_headers(req, creds, p, hs, &n_hs);
    if (!rc) rc = buf_adds(creq, req->method) || buf_addc(creq, '\n') ? SIGV4_ERR_NOMEM : 0;
    if (!rc) rc = sigv4_canonical_uri(creq, req->target, path_len, p->no_normalize);
    if (!rc) rc = buf_addc(creq, '\n') ? SIGV4_ERR_NOMEM : 0;
    if (!rc && q) rc = sigv4_canonical_query(creq, q + 1, req->target_len - path_len - 1);
    if (!rc) rc = buf_addc(creq, '\n') ? SIGV4_ERR_NOMEM : 0;
    if (!rc) rc = sigv4_canonical_headers(creq, signed_headers, hs, n_hs);
    if (!rc && !req->payload_hash) rc = sigv4_hash(c, req->body, req->body_len, hash);
    if (!rc)
        rc = sigv4_cat(creq, "\n", buf_str(signed_headers), "\n",
                       req->payload_hash ? req->payload_hash : hash, SIGV4_CAT_END);
    return rc;
}

int sigv4_canonical_request(const struct sigv4_request *req, const struct sigv4_credentials *creds,
                            const struct sigv4_params *p, struct buf *creq,
                            struct buf *signed_headers) {
    return sigv4_creq(NULL, req, creds, p, creq, signed_headers);
}

static int sigv4_sts(struct sigv4_crypto *c, const struct sigv4_params *p, const char *creq,
                     size_t creq_len, struct buf *sts) {
    char hash[SIGV4_HEX_LEN + 1], date8[9];
    int rc = sigv4_hash(c, creq, creq_len, hash);
    memcpy(date8, p->amz_date, 8);
    date8[8] = '\0';
    buf_reset(sts);
    if (!rc)
        rc = sigv4_cat(sts, SIGV4_ALGORITHM "\n", p->amz_date, "\n", date8, "/", p->region, "/",
                       p->service, "/aws4_request\n", hash, SIGV4_CAT_END);
    return rc;
}

int sigv4_string_to_sign(const struct sigv4_params *p, const char *creq, size_t creq_len,
                         struct buf *sts) {
    return sigv4_valid_params(p) ? sigv4_sts(NULL, p, creq, creq_len, sts) : SIGV4_ERR_INPUT;
}

int sigv4_signing_key(const char *secret, const char *date8, const char *region,
                      const char *service, unsigned char key[SIGV4_KEY_LEN]) {
    struct buf k;
    buf_init(&k, BUF_NO_CAP);
    int rc = buf_addf(&k, "AWS4%s", secret) ? SIGV4_ERR_NOMEM : SIGV4_OK;
    if (!rc) rc = sigv4_hmac(k.data, k.len, date8, 8, key);
    if (!rc) rc = sigv4_hmac(key, SIGV4_KEY_LEN, region, strlen(region), key);
    if (!rc) rc = sigv4_hmac(key, SIGV4_KEY_LEN, service, strlen(service), key);
    if (!rc) rc = sigv4_hmac(key, SIGV4_KEY_LEN, "aws4_request", 12, key);
    buf_free_secret(&k);
    if (rc) OPENSSL_cleanse(key, SIGV4_KEY_LEN);
    return rc;
}

static int sigv4_sig(struct sigv4_crypto *c, const unsigned char key[SIGV4_KEY_LEN],
                     const char *sts, size_t sts_len, char hex[SIGV4_HEX_LEN + 1]) {
    unsigned char mac[SIGV4_KEY_LEN];
    int rc = c ? sigv4_hmac_ctx(c, key, sts, sts_len, mac)
               : sigv4_hmac(key, SIGV4_KEY_LEN, sts, sts_len, mac);
    if (!rc) sigv4_hex(mac, sizeof mac, hex);
    return rc;
}

int sigv4_signature(const unsigned char key[SIGV4_KEY_LEN], const char *sts, size_t sts_len,
                    char hex[SIGV4_HEX_LEN + 1]) {
    return sigv4_sig(NULL, key, sts, sts_len, hex);
}

struct sigv4_signer *sigv4_signer_new(void) {
    struct sigv4_signer *s = calloc(1, sizeof *s);
    if (s && pthread_mutex_init(&s->lock, NULL)) {
        free(s);
        s = NULL;
    }
    return s;
}

void sigv4_signer_free(struct sigv4_signer *s) {
    if (!s) return;
    pthread_mutex_destroy(&s->lock);
    OPENSSL_cleanse(s, sizeof *s);
    free(s);
}

static bool sigv4_slot_matches(const struct sigv4_key_slot *k, const char *secret,
                               const char *date8, const struct sigv4_params *p) {
    return k->used && strcmp(k->secret, secret) == 0 && memcmp(k->date8, date8, 8) == 0 &&
           strcmp(k->region, p->region) == 0 && strcmp(k->service, p->service) == 0;
}

/* Finds or derives the signing key for (secret, date, region, service). */
static int sigv4_cached_key(struct sigv4_signer *s, const char *secret,
                            const struct sigv4_params *p, unsigned char key[SIGV4_KEY_LEN]) {
    const char *date8 = p->amz_date;
    if (strlen(secret) >= SIGV4_SECRET_MAX) {
        char d[9];
        memcpy(d, date8, 8);
        d[8] = '\0';
        return sigv4_signing_key(secret, d, p->region, p->service, key);
    }
    pthread_mutex_lock(&s->lock);
    struct sigv4_key_slot *slot = &s->slots[0];
    int rc = SIGV4_OK;
    for (size_t i = 0; i < SIGV4_CACHE_SLOTS; i++) {
        if (sigv4_slot_matches(&s->slots[i], secret, date8, p)) {
            slot = &s->slots[i];
            goto found;
        }
        if (s->slots[i].used < slot->used) slot = &s->slots[i];
    }
    memcpy(slot->date8, date8, 8);
    slot->date8[8] = '\0';
    snprintf(slot->secret, sizeof slot->secret, "%s", secret);
    snprintf(slot->region, sizeof slot->region, "%s", p->region);
    snprintf(slot->service, sizeof slot->service, "%s", p->service);
    rc = sigv4_signing_key(secret, slot->date8, p->region, p->service, slot->key);
    if (rc) {
        OPENSSL_cleanse(slot, sizeof *slot);
        goto done;
    }
found:
    slot->used = ++s->clock;
    memcpy(key, slot->key, SIGV4_KEY_LEN);
done:
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static bool sigv4_valid_creds(const struct sigv4_credentials *c) {
    if (!c || !c->access_key_id || !*c->access_key_id || !c->secret_access_key ||
        !*c->secret_access_key)
        return false;
    for (const char *a = c->access_key_id; *a; a++)
        if (!sigv4_is_unreserved((unsigned char)*a)) return false;
    return true;
}

void sigv4_result_init(struct sigv4_result *r) {
    buf_init(&r->canonical_request, BUF_NO_CAP);
    buf_init(&r->string_to_sign, BUF_NO_CAP);
    buf_init(&r->signed_headers, BUF_NO_CAP);
    buf_init(&r->authorization, BUF_NO_CAP);
    r->amz_date[0] = '\0';
    r->signature[0] = '\0';
    r->crypto = NULL;
}

void sigv4_result_free(struct sigv4_result *r) {
    buf_free_secret(&r->canonical_request); /* it holds the session token */
    buf_free(&r->string_to_sign);
    buf_free(&r->signed_headers);
    buf_free(&r->authorization);
    sigv4_crypto_free(r->crypto);
    r->crypto = NULL;
}

int sigv4_sign(struct sigv4_signer *s, const struct sigv4_request *req,
               const struct sigv4_credentials *creds, const struct sigv4_params *p,
               struct sigv4_result *r) {
    unsigned char key[SIGV4_KEY_LEN];
    if (!s || !sigv4_valid_creds(creds)) return SIGV4_ERR_INPUT;
    if (!r->crypto && !(r->crypto = sigv4_crypto_new())) return SIGV4_ERR_NOMEM;
    int rc = sigv4_creq(r->crypto, req, creds, p, &r->canonical_request, &r->signed_headers);
    if (!rc)
        rc = sigv4_sts(r->crypto, p, r->canonical_request.data, r->canonical_request.len,
                       &r->string_to_sign);
    if (!rc) rc = sigv4_cached_key(s, creds->secret_access_key, p, key);
    if (!rc)
        rc = sigv4_sig(r->crypto, key, r->string_to_sign.data, r->string_to_sign.len, r->signature);
    OPENSSL_cleanse(key, sizeof key);
    buf_reset(&r->authorization);
    if (!rc) {
        const char *scope =
            buf_str(&r->string_to_sign) + sizeof SIGV4_ALGORITHM + SIGV4_DATE_LEN + 1;
        const char *scope_end = strchr(scope, '\n');
        if (sigv4_cat(&r->authorization, SIGV4_ALGORITHM " Credential=", creds->access_key_id, "/",
                      SIGV4_CAT_END) ||
            buf_add(&r->authorization, scope, (size_t)(scope_end - scope)) ||
            sigv4_cat(&r->authorization, ", SignedHeaders=", buf_str(&r->signed_headers),
                      ", Signature=", r->signature, SIGV4_CAT_END))
            rc = SIGV4_ERR_NOMEM;
    }
    if (!rc) memcpy(r->amz_date, p->amz_date, SIGV4_DATE_LEN + 1);
    return rc;
}

static void sigv4_put_digits(char *out, int v, int n) {
    for (int i = n - 1; i >= 0; i--, v /= 10) out[i] = (char)('0' + v % 10);
}

int sigv4_format_date(time_t t, char out[SIGV4_DATE_LEN + 1]) {
    struct tm tm;
    if (!gmtime_r(&t, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900)
        return SIGV4_ERR_INPUT;
    sigv4_put_digits(out, tm.tm_year + 1900, 4);
    sigv4_put_digits(out + 4, tm.tm_mon + 1, 2);
    sigv4_put_digits(out + 6, tm.tm_mday, 2);
    out[8] = 'T';
    sigv4_put_digits(out + 9, tm.tm_hour, 2);
    sigv4_put_digits(out + 11, tm.tm_min, 2);
    sigv4_put_digits(out + 13, tm.tm_sec, 2);
    out[15] = 'Z';
    out[16] = '\0';
    return SIGV4_OK;
}

int sigv4_parse_date(const char *s, time_t *out) {
    struct tm tm;
    int rc = sigv4_date_fields(s, &tm);
    if (!rc) *out = timegm(&tm);
    return rc;
}

/* Finds "name=" in the comma-separated list of an Authorization value. */
static const char *sigv4_auth_field(const char *p, const char *end, const char *name, size_t *len) {
    size_t n = strlen(name);
    while (p < end) {
        while (p < end && (*p == ' ' || *p == ',')) p++;
        const char *stop = memchr(p, ',', (size_t)(end - p));
        if (!stop) stop = end;
        if ((size_t)(stop - p) > n && memcmp(p, name, n) == 0 && p[n] == '=') {
            *len = (size_t)(stop - p) - n - 1;
            return p + n + 1;
        }
        p = stop;
    }
    return NULL;
}

int sigv4_parse_authorization(const char *value, size_t len, struct sigv4_authorization *out) {
    static const char prefix[] = SIGV4_ALGORITHM " ";
    size_t cred_len = 0, sig_len = 0;
    if (!value || len < sizeof prefix || memcmp(value, prefix, sizeof prefix - 1) != 0) goto fail;
    const char *end = value + len;
    const char *p = value + sizeof prefix - 1;
    const char *cred = sigv4_auth_field(p, end, "Credential", &cred_len);
    out->signed_headers = sigv4_auth_field(p, end, "SignedHeaders", &out->signed_headers_len);
    out->signature = sigv4_auth_field(p, end, "Signature", &sig_len);
    if (!cred || !out->signed_headers || !out->signed_headers_len || !out->signature ||
        sig_len != SIGV4_HEX_LEN)
        goto fail;
    for (size_t i = 0; i < sig_len; i++)
        if (sigv4_hexval(out->signature[i]) < 0) goto fail;
    /* AKID/date8/region/service/aws4_request */
    const char *parts[5], *cend = cred + cred_len;
    size_t lens[5];
    for (int i = 0; i < 5; i++) {
        const char *slash = i < 4 ? memchr(cred, '/', (size_t)(cend - cred)) : cend;
        if (!slash) goto fail;
        parts[i] = cred;
        lens[i] = (size_t)(slash - cred);
        cred = slash + (i < 4);
    }
    if (!lens[0] || lens[1] != 8 || sigv4_digits(parts[1], 8) < 0 || !lens[2] || !lens[3] ||
        lens[4] != 12 || memcmp(parts[4], "aws4_request", 12) != 0)
        goto fail;
    out->access_key_id = parts[0];
    out->access_key_id_len = lens[0];
    out->date8 = parts[1];
    out->region = parts[2];
    out->region_len = lens[2];
    out->service = parts[3];
    out->service_len = lens[3];
    return SIGV4_OK;
fail:
    return SIGV4_ERR_INPUT;
}
