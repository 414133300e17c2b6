/* Fuzzes the emulator's S3 (emulator/s3srv.h) through requests the S3 client
 * signs (so that the signature holds and the routes are reached) and ones it
 * would not sign (sent unsigned, or with the input's target as is). The store
 * lives across inputs, so listings see what earlier inputs put.
 * Input: a method, a bucket, a key ("-": none), a query, each on a line, then
 * the body.
 *
 * Every reply has one of S3's statuses; an error is XML with a Code; a 200 to
 * a GET without a key is a ListBucketResult. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "s3.h"
#include "s3srv.h"

#define FUZZ_NOW 1777636800

static struct s3srv store;
static struct auth auth;

static char *fuzz_line(const char **p, const char *end) {
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (!nl) return NULL;
    char *s = strndup(*p, (size_t)(nl - *p));
    *p = nl + 1;
    return s;
}

/* The request text: signed by the S3 client when it takes the parts, else raw. */
static int fuzz_request(struct buf *req, const char *method, const char *bucket, const char *key,
                        const char *query, const char *body, size_t len) {
    struct sigv4_signer *signer = sigv4_signer_new();
    struct s3_signed s;
    struct sigv4_credentials creds = {"AKIDFUZZ", "fuzzSECRET", NULL};
    struct s3_request r = {method, bucket, key, *query ? query : NULL, body, len, NULL};
    s3_signed_init(&s);
    int rc;
    if (signer &&
        s3_sign(signer, "us-east-1", "http://127.0.0.1:1", &r, &creds, FUZZ_NOW, &s) == 0) {
        const char *path = strstr(buf_str(&s.url), "127.0.0.1:1") + 11;
        rc = buf_addf(req, "%s %s HTTP/1.1\r\n", method, path);
        for (size_t i = 0; !rc && i < s.n_headers; i++)
            rc = buf_addf(req, "%s: %s\r\n", s.headers[i].name, s.headers[i].value);
        if (!rc) rc = buf_addf(req, "Authorization: %s\r\n", buf_str(&s.sig.authorization));
    } else {
        rc = buf_addf(req, "%s /%s%s%s%s%s HTTP/1.1\r\nHost: h\r\n", method, bucket, key ? "/" : "",
                      key ? key : "", *query ? "?" : "", query);
    }
    if (!rc) rc = buf_addf(req, "Content-Length: %zu\r\n\r\n", len);
    s3_signed_free(&s);
    sigv4_signer_free(signer);
    return rc;
}

static void fuzz_check(const char *method, const char *key, const struct s3srv_reply *r) {
    int st = r->status;
    if (st != 200 && st != 400 && st != 403 && st != 404 && st != 405 && st != 500) abort();
    const char *b = buf_str(&r->body);
    if (st != 200 && st != 500 && !strstr(b, "<Code>")) abort();
    if (st == 200 && strcmp(method, "GET") == 0 && !key && !strstr(b, "<ListBucketResult")) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!auth.signer) {
        if (auth_init(&auth, "us-east-1") || auth_add_key(&auth, "AKIDFUZZ", "fuzzSECRET", NULL, 0))
            abort();
        s3srv_init(&store);
    }
    const char *p = (const char *)data, *end = p + size;
    char *method = fuzz_line(&p, end), *bucket = fuzz_line(&p, end), *key = fuzz_line(&p, end),
         *query = fuzz_line(&p, end);
    if (method && bucket && key && query && strlen(method) < 8) {
        struct buf req;
        struct http_head h;
        struct s3srv_reply r;
        buf_init(&req, 1 << 20);
        buf_init(&r.body, BUF_NO_CAP);
        const char *k = strcmp(key, "-") == 0 ? NULL : key;
        if (!fuzz_request(&req, method, bucket, k, query, p, (size_t)(end - p)) &&
            http_parse_head(req.data, req.len, &h, NULL) == HTTP_OK && s3srv_is(&h)) {
            if (s3srv_call(&store, &auth, &h, p, (size_t)(end - p), FUZZ_NOW, &r) == 0)
                fuzz_check(method, k, &r);
        } else if (req.len && http_parse_head(req.data, req.len, &h, NULL) == HTTP_OK &&
                   s3srv_call(&store, &auth, &h, p, (size_t)(end - p), FUZZ_NOW, &r) == 0) {
            fuzz_check(method, k, &r);
        }
        buf_free(&req);
        buf_free(&r.body);
    }
    free(method);
    free(bucket);
    free(key);
    free(query);
    return 0;
}
