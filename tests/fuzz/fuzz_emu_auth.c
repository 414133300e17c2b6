/* Fuzzes the emulator's SigV4 verification. Input: one control byte (which
 * key the client signs with, and its clock skew), then "METHOD TARGET", lines
 * "Name:value", an empty line and the body.
 *
 * 1. The lines go to auth_verify as they are (any bytes): it must refuse with
 *    one of its error types and a message that never shows a secret, accept
 *    only a request whose parts all check out, and give the same verdict twice.
 * 2. The request, as a client would send it (Host added, signed with the
 *    chosen key at the skewed clock, X-Amz-Date, token and Authorization
 *    added), is parsed by the HTTP head parser as the server does and
 *    verified: the verdict must be the one the key and the skew call for, and
 *    a changed body byte must break the signature. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth.h"
#include "http.h"

#define FUZZ_NOW         1440938160 /* 20150830T123600Z */
#define FUZZ_SECRET      "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define FUZZ_TOKEN       "FQoGZXIvYXdzEXAMPLETOKENb3JpZ2lu"
#define FUZZ_MAX_HEADERS 120
#define FUZZ_MAX_WIRE    (HTTP_MAX_HEAD + 1024)

struct fuzz_key {
    const char *akid, *secret, *token;
    const char *type; /* the verdict when the signature is fresh */
};

/* The keys the client may sign with; the first three are the emulator's. */
static const struct fuzz_key fuzz_keys[] = {
    {"AKIDEXAMPLE", FUZZ_SECRET, NULL, NULL},
    {"ASIATEMP", FUZZ_SECRET, FUZZ_TOKEN, NULL},
    {"ASIAOLD", FUZZ_SECRET, FUZZ_TOKEN, "ExpiredTokenException"},
    {"AKIDUNKNOWN", FUZZ_SECRET, NULL, "UnrecognizedClientException"},
};

static const long fuzz_skews[] = {0, 300, -300, 301, -301, 59, -86400, 3600};

static const char *const fuzz_types[] = {
    "MissingAuthenticationTokenException", "IncompleteSignatureException",
    "UnrecognizedClientException",         "ExpiredTokenException",
    "InvalidSignatureException",
};

struct fuzz_request {
    char method[32];
    const char *target;
    size_t target_len;
    struct sigv4_header headers[FUZZ_MAX_HEADERS];
    size_t n_headers;
    const char *body;
    size_t body_len;
};

static struct auth fuzz_auth;
static struct sigv4_signer *fuzz_signer;

static void fuzz_setup(void) {
    if (fuzz_signer) return;
    fuzz_signer = sigv4_signer_new();
    if (!fuzz_signer || auth_init(&fuzz_auth, "us-east-1") ||
        auth_add_key(&fuzz_auth, "AKIDEXAMPLE", FUZZ_SECRET, NULL, 0) ||
        auth_add_key(&fuzz_auth, "ASIATEMP", FUZZ_SECRET, FUZZ_TOKEN, FUZZ_NOW + 60) ||
        auth_add_key(&fuzz_auth, "ASIAOLD", FUZZ_SECRET, FUZZ_TOKEN, FUZZ_NOW - 1))
        abort();
}

static size_t fuzz_line(const char *p, size_t n, size_t *len) {
    const char *nl = memchr(p, '\n', n);
    *len = nl ? (size_t)(nl - p) : n;
    return nl ? *len + 1 : n;
}

/* Splits text into the request line, "Name:value" lines and the body. */
static void fuzz_split(const char *p, size_t n, struct fuzz_request *r) {
    size_t len, used = fuzz_line(p, n, &len);
    const char *sp = memchr(p, ' ', len);
    snprintf(r->method, sizeof r->method, "%.*s", sp ? (int)(sp - p) : 0, p);
    if (!sp || !r->method[0]) snprintf(r->method, sizeof r->method, "POST");
    r->target = sp ? sp + 1 : p;
    r->target_len = sp ? len - (size_t)(sp - p) - 1 : len;
    r->n_headers = 0;
    while (used < n && r->n_headers < FUZZ_MAX_HEADERS) {
        const char *line = p + used;
        used += fuzz_line(line, n - used, &len);
        if (len == 0) break;
        const char *colon = memchr(line, ':', len);
        if (colon)
            r->headers[r->n_headers++] = (struct sigv4_header){
                line, (size_t)(colon - line), colon + 1, len - (size_t)(colon - line) - 1};
    }
    r->body = p + used;
    r->body_len = n - used;
}

static const struct sigv4_header *fuzz_find(const struct fuzz_request *r, const char *name) {
    return http_find(r->headers, r->n_headers, name);
}

/* auth_verify's answer: the refusal's error type (NULL: accepted) and message. */
struct fuzz_verdict {
    const char *type;
    struct buf message;
};

static void fuzz_verdict_init(struct fuzz_verdict *v) {
    v->type = NULL;
    buf_init(&v->message, BUF_NO_CAP);
}

static void fuzz_verdict_free(struct fuzz_verdict *v) {
    buf_free(&v->message);
}

static void fuzz_verify(const struct fuzz_request *r, time_t now, struct fuzz_verdict *v) {
    struct auth_request ar = {r->method,    r->target, r->target_len, r->headers,
                              r->n_headers, r->body,   r->body_len};
    buf_reset(&v->message);
    int rc = auth_verify(&fuzz_auth, &ar, now, &v->message);
    v->type = auth_error_type(rc);
    if (rc == AUTH_ERR_NOMEM || (rc && !v->type)) abort();
}

static bool fuzz_known_type(const char *type) {
    for (size_t i = 0; i < sizeof fuzz_types / sizeof *fuzz_types; i++)
        if (strcmp(type, fuzz_types[i]) == 0) return true;
    return false;
}

/* An accepted request has every part SageMaker checks. */
static void fuzz_check_accepted(const struct fuzz_request *r) {
    const struct sigv4_header *h = fuzz_find(r, "authorization"), *d = fuzz_find(r, "x-amz-date");
    struct sigv4_authorization az;
    char date[SIGV4_DATE_LEN + 1];
    time_t t;
    if (!h || !d || d->value_len != SIGV4_DATE_LEN ||
        sigv4_parse_authorization(h->value, h->value_len, &az))
        abort();
    memcpy(date, d->value, SIGV4_DATE_LEN);
    date[SIGV4_DATE_LEN] = '\0';
    if (sigv4_parse_date(date, &t) || t < FUZZ_NOW - 300 || t > FUZZ_NOW + 300 ||
        az.service_len != 9 || memcmp(az.service, "sagemaker", 9) != 0 || az.region_len != 9 ||
        memcmp(az.region, "us-east-1", 9) != 0)
        abort();
}

/* Phase 1: the lines as they are. */
static void fuzz_raw(const struct fuzz_request *r, const uint8_t *data, size_t size) {
    struct fuzz_verdict v, again;
    fuzz_verdict_init(&v);
    fuzz_verdict_init(&again);
    fuzz_verify(r, FUZZ_NOW, &v);
    fuzz_verify(r, FUZZ_NOW, &again);
    if (v.type != again.type || strcmp(buf_str(&v.message), buf_str(&again.message)) != 0) abort();
    if (!fuzz_find(r, "authorization") &&
        (!v.type || strcmp(v.type, "MissingAuthenticationTokenException") != 0))
        abort();
    if (v.type && (!fuzz_known_type(v.type) || v.message.len == 0)) abort();
    if (!v.type) fuzz_check_accepted(r);
    bool secret_given = memmem(data, size, FUZZ_SECRET, strlen(FUZZ_SECRET)) ||
                        memmem(data, size, FUZZ_TOKEN, strlen(FUZZ_TOKEN));
    if (!secret_given &&
        (strstr(buf_str(&v.message), FUZZ_SECRET) || strstr(buf_str(&v.message), FUZZ_TOKEN)))
        abort();
    fuzz_verdict_free(&v);
    fuzz_verdict_free(&again);
}

static bool fuzz_is_auth_header(const struct sigv4_header *h) {
    static const char *const names[] = {"authorization", "x-amz-date", "x-amz-security-token"};
    for (size_t i = 0; i < 3; i++)
        if (h->name_len == strlen(names[i]) && strncasecmp(h->name, names[i], h->name_len) == 0)
            return true;
    return false;
}

/* Appends "name: value" CRLF, the bytes as they are. */
static int fuzz_add_header(struct buf *wire, const char *name, size_t name_len, const char *value,
                           size_t len) {
    int rc = buf_add(wire, name, name_len);
    if (!rc) rc = buf_add(wire, ": ", 2);
    if (!rc) rc = buf_add(wire, value, len);
    return rc ? rc : buf_add(wire, "\r\n", 2);
}

/* Writes the signed request's head as a client sends it; false when the
 * signer refuses the request or the head would not fit. */
static bool fuzz_client_head(const struct fuzz_request *r, const struct fuzz_key *k, long skew,
                             struct sigv4_result *res, struct buf *wire) {
    struct sigv4_header hs[FUZZ_MAX_HEADERS + 1];
    size_t n = 0;
    char date[SIGV4_DATE_LEN + 1];
    for (size_t i = 0; i < r->n_headers; i++)
        if (!fuzz_is_auth_header(&r->headers[i])) hs[n++] = r->headers[i];
    if (!http_find(hs, n, "host")) hs[n++] = (struct sigv4_header){"Host", 4, "localhost", 9};
    struct sigv4_request req = {r->method, r->target, r->target_len, hs,
                                n,         r->body,   r->body_len,   NULL};
    struct sigv4_credentials c = {k->akid, k->secret, k->token};
    struct sigv4_params p = {"us-east-1", "sagemaker", date, false, false};
    if (sigv4_format_date(FUZZ_NOW + skew, date) || sigv4_sign(fuzz_signer, &req, &c, &p, res))
        return false;
    int rc = buf_addf(wire, "%s ", r->method);
    if (!rc) rc = buf_add(wire, r->target, r->target_len);
    if (!rc) rc = buf_adds(wire, " HTTP/1.1\r\n");
    for (size_t i = 0; !rc && i < n; i++)
        rc = fuzz_add_header(wire, hs[i].name, hs[i].name_len, hs[i].value, hs[i].value_len);
    if (!rc) rc = fuzz_add_header(wire, "X-Amz-Date", 10, date, SIGV4_DATE_LEN);
    if (!rc && k->token)
        rc = fuzz_add_header(wire, "X-Amz-Security-Token", 20, k->token, strlen(k->token));
    if (!rc)
        rc = fuzz_add_header(wire, "Authorization", 13, buf_str(&res->authorization),
                             res->authorization.len);
    return !rc && !buf_adds(wire, "\r\n");
}

/* The verdict the key and skew call for: NULL (accepted) or the error type. */
static const char *fuzz_expected(const struct fuzz_key *k, long skew) {
    if (k->type) return k->type;
    return skew < -300 || skew > 300 ? "InvalidSignatureException" : NULL;
}

static void fuzz_check_signed(const struct fuzz_request *r, const struct http_head *h,
                              const char *expected) {
    struct fuzz_request sent = *r;
    struct fuzz_verdict v;
    char *body = malloc(r->body_len + 1);
    if (!body) abort();
    memcpy(sent.headers, h->headers, h->n_headers * sizeof *h->headers);
    sent.n_headers = h->n_headers;
    sent.body = body;
    if (r->body_len) memcpy(body, r->body, r->body_len);
    fuzz_verdict_init(&v);
    fuzz_verify(&sent, FUZZ_NOW, &v);
    if ((v.type == NULL) != (expected == NULL) || (expected && strcmp(v.type, expected) != 0)) {
        fprintf(stderr, "expected %s, got %s: %s\n", expected ? expected : "acceptance",
                v.type ? v.type : "acceptance", buf_str(&v.message));
        abort();
    }
    if (!expected && r->body_len) {
        body[r->body_len / 2] ^= 1;
        fuzz_verify(&sent, FUZZ_NOW, &v);
        if (!v.type || strcmp(v.type, "InvalidSignatureException") != 0) abort();
    }
    fuzz_verdict_free(&v);
    free(body);
}

/* Phase 2: signed by a client, framed by the server's parser, verified. */
static void fuzz_signed(const struct fuzz_request *r, uint8_t control) {
    const struct fuzz_key *k = &fuzz_keys[control % 4];
    long skew = fuzz_skews[(control >> 2) % 8];
    struct sigv4_result res;
    struct buf wire;
    struct http_head h;
    sigv4_result_init(&res);
    buf_init(&wire, FUZZ_MAX_WIRE);
    if (fuzz_client_head(r, k, skew, &res, &wire) && wire.len <= HTTP_MAX_HEAD &&
        !memmem(wire.data, wire.len - 2, "\r\n\r\n", 4) &&
        http_parse_head(wire.data, wire.len, &h, NULL) == 0)
        fuzz_check_signed(r, &h, fuzz_expected(k, skew));
    buf_free(&wire);
    sigv4_result_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static struct fuzz_request r;
    if (size == 0) return 0;
    fuzz_setup();
    fuzz_split((const char *)data + 1, size - 1, &r);
    fuzz_raw(&r, data, size);
    fuzz_signed(&r, data[0]);
    return 0;
}
