#include "auth.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <openssl/crypto.h>

#include "creds.h"
#include "http.h"
#include "readall.h"
#include "smerr.h"

#define AUTH_WINDOW_S    300
#define AUTH_SERVICE     "sagemaker"
#define AUTH_MAX_SIGNED  HTTP_MAX_HEADERS /* every header the server parses may be signed */
#define AUTH_MAX_SECONDS 1e12 /* an expiry (or its distance from now) past this is bad */
#define AUTH_BAD_SIGNATURE                                                                         \
    "The request signature we calculated does not match the signature you provided. Check your "   \
    "AWS Secret Access Key and signing method. Consult the service documentation for details."

int auth_init(struct auth *a, const char *region) {
    memset(a, 0, sizeof *a);
    snprintf(a->region, sizeof a->region, "%s", region);
    sigv4_result_init(&a->result);
    a->signer = sigv4_signer_new();
    return a->signer ? AUTH_OK : AUTH_ERR_NOMEM;
}

static void auth_wipe(char *s) {
    if (s) OPENSSL_cleanse(s, strlen(s));
    free(s);
}

void auth_free(struct auth *a) {
    for (size_t i = 0; i < a->n_keys; i++) {
        free(a->keys[i].access_key_id);
        auth_wipe(a->keys[i].secret_access_key);
        auth_wipe(a->keys[i].session_token);
    }
    free(a->keys);
    for (size_t i = 0; i < a->n_bearers; i++) auth_wipe(a->bearers[i]);
    free(a->bearers);
    sigv4_signer_free(a->signer);
    sigv4_result_free(&a->result);
    memset(a, 0, sizeof *a);
}

int auth_add_key(struct auth *a, const char *akid, const char *secret, const char *token,
                 time_t expiration) {
    struct auth_key *keys = realloc(a->keys, (a->n_keys + 1) * sizeof *keys);
    if (!keys) return AUTH_ERR_NOMEM;
    a->keys = keys;
    struct auth_key k = {strdup(akid), strdup(secret), token && *token ? strdup(token) : NULL,
                         expiration};
    if (!k.access_key_id || !k.secret_access_key || (token && *token && !k.session_token)) {
        free(k.access_key_id);
        auth_wipe(k.secret_access_key);
        auth_wipe(k.session_token);
        return AUTH_ERR_NOMEM;
    }
    a->keys[a->n_keys++] = k;
    return AUTH_OK;
}

/* EXPIRY: Unix seconds, +/-SECONDS from now, or an ISO 8601 time (creds_parse_time). */
static int auth_expiry(const char *text, time_t now, time_t *out) {
    char *end = NULL;
    if (*text == '+' || *text == '-') {
        long d = strtol(text, &end, 10);
        if (end == text + 1 || *end || labs(d) > AUTH_MAX_SECONDS) return AUTH_ERR_INVALID;
        *out = now + d;
        return AUTH_OK;
    }
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end != text && !*end && !errno) {
        *out = (time_t)v;
        return AUTH_OK;
    }
    return creds_parse_time(text, out) ? AUTH_ERR_INVALID : AUTH_OK;
}

int auth_add_text(struct auth *a, const char *text, time_t now, struct buf *err) {
    char *copy = strdup(text);
    int rc;
    time_t expiry = 0;
    if (!copy) return buf_fail(err, AUTH_ERR_NOMEM, "out of memory");
    char *at = strchr(copy, '@');
    if (at) *at = '\0';
    char *secret = strchr(copy, ':');
    char *token = secret ? strchr(secret + 1, ':') : NULL;
    if (secret) *secret++ = '\0';
    if (token) *token++ = '\0';
    if (!secret || !*copy || !*secret || (at && auth_expiry(at + 1, now, &expiry)))
        rc = buf_fail(err, AUTH_ERR_INVALID,
                      "--credential: want AKID:SECRET[:TOKEN][@EXPIRY] (key '%s')",
                      secret ? copy : "?");
    else if ((rc = auth_add_key(a, copy, secret, token, expiry)))
        (void)buf_fail(err, rc, "out of memory");
    OPENSSL_cleanse(copy, strlen(text));
    free(copy);
    if (rc) buf_one_line(err);
    return rc;
}

static const char *auth_json_str(const cJSON *o, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) && *v->valuestring ? v->valuestring : NULL;
}

static void auth_wipe_json(cJSON *j) {
    for (; j; j = j->next) {
        if (j->valuestring) OPENSSL_cleanse(j->valuestring, strlen(j->valuestring));
        auth_wipe_json(j->child);
    }
}

/* Adds the key of one entry (number i) of a credentials file. */
static int auth_add_entry(struct auth *a, const cJSON *c, int i, const char *path, time_t now,
                          struct buf *err) {
    const char *akid = auth_json_str(c, "access_key_id");
    const char *secret = auth_json_str(c, "secret_access_key");
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(c, "expiration");
    bool in_range = cJSON_IsNumber(exp) && fabs(exp->valuedouble) <= AUTH_MAX_SECONDS;
    time_t expiry = in_range ? (time_t)exp->valuedouble : 0;
    bool bad_exp = exp && !in_range &&
                   !(cJSON_IsString(exp) && auth_expiry(exp->valuestring, now, &expiry) == 0);
    if (!akid || !secret || bad_exp)
        return buf_fail(err, AUTH_ERR_INVALID,
                        "--credentials-file %s: entry %d needs access_key_id and "
                        "secret_access_key strings%s",
                        path, i, bad_exp ? " and a valid expiration" : "");
    if (auth_add_key(a, akid, secret, auth_json_str(c, "session_token"), expiry))
        return buf_fail(err, AUTH_ERR_NOMEM, "out of memory");
    return AUTH_OK;
}

int auth_add_file(struct auth *a, const char *path, time_t now, struct buf *err) {
    struct buf text;
    buf_init(&text, 1 << 20);
    int rd = readall_path(path, &text), rc = AUTH_OK, i = 0;
    cJSON *root = rd ? NULL : cJSON_ParseWithLength(text.data ? text.data : "", text.len);
    buf_free_secret(&text);
    const cJSON *list =
        cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "credentials");
    const cJSON *c;
    if (rd)
        rc = buf_fail(err, AUTH_ERR_IO, "--credentials-file %s: cannot read: %s", path,
                      smerr_read_why(rd, "larger than 1 MiB"));
    else if (!cJSON_IsArray(list))
        rc = buf_fail(err, AUTH_ERR_INVALID,
                      "--credentials-file %s: not a JSON list of credentials", path);
    if (!rc) {
        cJSON_ArrayForEach(c, list) {
            rc = auth_add_entry(a, c, i++, path, now, err);
            if (rc) break;
        }
    }
    auth_wipe_json(root); /* the secrets are inside the tree, wherever the file put them */
    cJSON_Delete(root);
    if (rc) buf_one_line(err);
    return rc;
}

int auth_add_bearer(struct auth *a, const char *token, struct buf *err) {
    size_t n = strlen(token);
    for (size_t i = 0; i < n; i++)
        if (token[i] <= ' ' || token[i] >= 0x7f) n = 0;
    if (n == 0 || n > AUTH_BEARER_MAX)
        return buf_fail(err, AUTH_ERR_INVALID,
                        "--bearer-token: want 1 to %d visible ASCII characters (no spaces)",
                        AUTH_BEARER_MAX);
    char **list = realloc(a->bearers, (a->n_bearers + 1) * sizeof *list);
    if (!list) return buf_fail(err, AUTH_ERR_NOMEM, "out of memory");
    a->bearers = list;
    if (!(list[a->n_bearers] = strdup(token)))
        return buf_fail(err, AUTH_ERR_NOMEM, "out of memory");
    a->n_bearers++;
    return AUTH_OK;
}

bool auth_is_bearer(const char *value, size_t len) {
    return len > 7 && strncasecmp(value, "bearer ", 7) == 0;
}

int auth_bearer(const struct auth *a, const char *value, size_t len, struct buf *err) {
    bool ok = false;
    if (auth_is_bearer(value, len)) {
        const char *token = value + 7;
        size_t n = len - 7;
        while (n && *token == ' ') token++, n--;
        for (size_t i = 0; i < a->n_bearers; i++)
            if (strlen(a->bearers[i]) == n && CRYPTO_memcmp(a->bearers[i], token, n) == 0)
                ok = true;
    }
    if (ok) return AUTH_OK;
    return buf_fail(err, AUTH_ERR_BEARER, "The bearer token included in the request is invalid.");
}

const char *auth_error_type(int code) {
    switch (code) {
    case AUTH_ERR_MISSING:
        return "MissingAuthenticationTokenException";
    case AUTH_ERR_INCOMPLETE:
        return "IncompleteSignatureException";
    case AUTH_ERR_UNRECOGNIZED:
        return "UnrecognizedClientException";
    case AUTH_ERR_EXPIRED:
        return "ExpiredTokenException";
    case AUTH_ERR_SIGNATURE:
        return "InvalidSignatureException";
    default:
        return NULL;
    }
}

static const struct sigv4_header *auth_header(const struct auth_request *r, const char *name) {
    return http_find(r->headers, r->n_headers, name);
}

static bool auth_has(const struct sigv4_header *h, const char *s) {
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= h->value_len; i++)
        if (memcmp(h->value + i, s, n) == 0) return true;
    return false;
}

/* IncompleteSignatureException: lists what the Authorization header lacks. */
static int auth_incomplete(const struct sigv4_header *h, bool has_date, struct buf *err) {
    static const char *const params[] = {"Credential", "Signature", "SignedHeaders"};
    static const char *const marks[] = {"Credential=", "Signature=", "SignedHeaders="};
    bool aws4 = h->value_len > 17 && memcmp(h->value, "AWS4-HMAC-SHA256 ", 17) == 0;
    struct buf lacks;
    int rc = 0;
    buf_init(&lacks, 1024);
    for (size_t i = 0; !rc && i < 3; i++)
        if (!aws4 || !auth_has(h, marks[i]))
            rc = buf_addf(&lacks, "Authorization header requires '%s' parameter. ", params[i]);
    if (!rc && !has_date)
        rc = buf_adds(&lacks, "Authorization header requires existence of either a 'X-Amz-Date' "
                              "or a 'Date' header. ");
    if (!rc && !lacks.len)
        rc = buf_adds(&lacks,
                      "Credential should be scoped with a valid terminator: 'aws4_request'. ");
    rc = rc ? buf_fail(err, AUTH_ERR_NOMEM, "out of memory")
            : buf_fail(err, AUTH_ERR_INCOMPLETE, "%sAuthorization=%.*s", buf_str(&lacks),
                       (int)h->value_len, h->value);
    buf_free(&lacks);
    return rc;
}

static const struct auth_key *auth_key_find(const struct auth *a, const char *id, size_t n) {
    for (size_t i = 0; i < a->n_keys; i++)
        if (strlen(a->keys[i].access_key_id) == n && memcmp(a->keys[i].access_key_id, id, n) == 0)
            return &a->keys[i];
    return NULL;
}

/* The session token rules: a key with a token needs it, unexpired; a key
 * without one takes none. Returns 0 or the refusal. */
static int auth_token(const struct auth_key *k, const struct auth_request *req, time_t now,
                      struct buf *err) {
    const struct sigv4_header *t = auth_header(req, "x-amz-security-token");
    bool same = k->session_token && t && t->value_len == strlen(k->session_token) &&
                CRYPTO_memcmp(t->value, k->session_token, t->value_len) == 0;
    if ((k->session_token || t) && !same)
        return buf_fail(err, AUTH_ERR_UNRECOGNIZED,
                        "The security token included in the request is invalid.");
    if (k->session_token && k->expiration && now >= k->expiration)
        return buf_fail(err, AUTH_ERR_EXPIRED,
                        "The security token included in the request is expired");
    return AUTH_OK;
}

/* The scope's service and region. Returns 0 or the refusal. */
static int auth_scope(const char *service, const char *region, const struct sigv4_authorization *az,
                      struct buf *err) {
    if (az->service_len != strlen(service) || memcmp(az->service, service, az->service_len) != 0)
        return buf_fail(err, AUTH_ERR_SIGNATURE,
                        "Credential should be scoped to correct service: '%s'. ", service);
    if (az->region_len != strlen(region) || memcmp(az->region, region, az->region_len) != 0)
        return buf_fail(err, AUTH_ERR_SIGNATURE,
                        "Credential should be scoped to a valid region, not '%.*s'. ",
                        (int)az->region_len, az->region);
    return AUTH_OK;
}

/* The date: its form, the scope's day, the 5-minute window. Returns 0 or the refusal. */
static int auth_date(const struct sigv4_authorization *az, const char *date, time_t now,
                     struct buf *err) {
    time_t t;
    char lo[SIGV4_DATE_LEN + 1], hi[SIGV4_DATE_LEN + 1], cur[SIGV4_DATE_LEN + 1];
    if (sigv4_parse_date(date, &t))
        return buf_fail(err, AUTH_ERR_INCOMPLETE,
                        "Date must be in ISO-8601 'basic format'. Got '%s'. See "
                        "http://en.wikipedia.org/wiki/ISO_8601",
                        date);
    if (memcmp(az->date8, date, 8) != 0)
        return buf_fail(err, AUTH_ERR_SIGNATURE,
                        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version "
                        "of date from HTTP: '%.8s' != '%.8s', from '%s'.",
                        az->date8, date, "X-Amz-Date");
    if (sigv4_format_date(now, cur) || sigv4_format_date(now - AUTH_WINDOW_S, lo) ||
        sigv4_format_date(now + AUTH_WINDOW_S, hi))
        return buf_fail(err, AUTH_ERR_NOMEM, "the clock is out of range");
    if (t < now - AUTH_WINDOW_S)
        return buf_fail(err, AUTH_ERR_SIGNATURE,
                        "Signature expired: %s is now earlier than %s (%s - 5 min.)", date, lo,
                        cur);
    if (t > now + AUTH_WINDOW_S)
        return buf_fail(err, AUTH_ERR_SIGNATURE,
                        "Signature not yet current: %s is still later than %s (%s + 5 min.)", date,
                        hi, cur);
    return AUTH_OK;
}

static bool auth_in_list(const char *list, size_t len, const char *name, size_t n) {
    for (const char *p = list, *end = list + len; p < end;) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        size_t k = semi ? (size_t)(semi - p) : (size_t)(end - p);
        if (k == n && strncasecmp(p, name, n) == 0) return true;
        p += k + 1;
    }
    return false;
}

/* Recomputes the signature over exactly the signed headers. */
static int auth_signature(struct auth *a, const struct auth_request *req, const char *service,
                          const char *region, const struct sigv4_authorization *az,
                          const struct auth_key *k, const char *date, bool *match) {
    struct sigv4_header signed_headers[AUTH_MAX_SIGNED];
    size_t n = 0;
    *match = false;
    for (size_t i = 0; i < req->n_headers; i++) {
        const struct sigv4_header *h = &req->headers[i];
        if (!auth_in_list(az->signed_headers, az->signed_headers_len, h->name, h->name_len))
            continue;
        if (n == AUTH_MAX_SIGNED) return AUTH_OK;
        signed_headers[n++] = *h;
    }
    struct sigv4_request sreq = {req->method, req->target, req->target_len, signed_headers,
                                 n,           req->body,   req->body_len,   NULL};
    struct sigv4_credentials creds = {k->access_key_id, k->secret_access_key, NULL};
    struct sigv4_params params = {region, service, date, false, true};
    int rc = sigv4_sign(a->signer, &sreq, &creds, &params, &a->result);
    if (rc == SIGV4_ERR_NOMEM || rc == SIGV4_ERR_CRYPTO) return AUTH_ERR_NOMEM;
    *match =
        rc == SIGV4_OK && CRYPTO_memcmp(a->result.signature, az->signature, SIGV4_HEX_LEN) == 0;
    return AUTH_OK;
}

int auth_verify(struct auth *a, const struct auth_request *req, time_t now, struct buf *err) {
    return auth_verify_scope(a, req, NULL, NULL, now, err);
}

int auth_verify_scope(struct auth *a, const struct auth_request *req, const char *service,
                      const char *region, time_t now, struct buf *err) {
    struct sigv4_authorization az;
    char date[64];
    bool match;
    const struct sigv4_header *h = auth_header(req, "authorization");
    const struct sigv4_header *d = auth_header(req, "x-amz-date");
    if (!h) return buf_fail(err, AUTH_ERR_MISSING, "Missing Authentication Token");
    if (!d || sigv4_parse_authorization(h->value, h->value_len, &az))
        return auth_incomplete(h, d != NULL, err);
    const struct auth_key *k = auth_key_find(a, az.access_key_id, az.access_key_id_len);
    if (!k)
        return buf_fail(err, AUTH_ERR_UNRECOGNIZED,
                        "The security token included in the request is invalid.");
    snprintf(date, sizeof date, "%.*s", (int)d->value_len, d->value);
    int rc = auth_token(k, req, now, err);
    if (!service) service = AUTH_SERVICE;
    if (!region) region = a->region;
    if (!rc) rc = auth_scope(service, region, &az, err);
    if (!rc) rc = auth_date(&az, date, now, err);
    if (rc) return rc;
    if (!auth_in_list(az.signed_headers, az.signed_headers_len, "host", 4))
        return buf_fail(err, AUTH_ERR_SIGNATURE,
                        "'Host' or ':authority' must be a 'SignedHeader' in the AWS "
                        "Authorization.");
    if (auth_signature(a, req, service, region, &az, k, date, &match))
        return buf_fail(err, AUTH_ERR_NOMEM, "out of memory");
    return match ? AUTH_OK : buf_fail(err, AUTH_ERR_SIGNATURE, AUTH_BAD_SIGNATURE);
}
