/* s3: a small Amazon S3 client on the project's SigV4 signer, for the result
 * files of sharded runs: PutObject, GetObject and ListObjectsV2 over libcurl.
 *
 * S3 signs differently from SageMaker (botocore's S3SigV4Auth, checked
 * against it in tests/aws/test_s3_botocore.py): every request carries
 * x-amz-content-sha256, the hex SHA-256 of its body, which is signed and is
 * the canonical request's payload hash; the path is signed as it is sent,
 * neither normalized nor encoded a second time. Keys are encoded as botocore
 * encodes them (everything but letters, digits, '-', '.', '_', '~' and '/').
 * The client signs the decoded path with sigv4's no_normalize, whose one
 * encoding is that same one. A bucket whose name fits a host name (no dots)
 * is addressed virtual-hosted (https://BUCKET.s3.REGION.amazonaws.com/KEY),
 * else, and always with an endpoint URL (sm-emulator), path-style
 * (URL/BUCKET/KEY).
 *
 * Retries as awsj.h says (the SDKs' standard mode): throttling (SlowDown,
 * 503), 5xx and failed connections, at most max_attempts; a signing-time
 * error (RequestTimeTooSkewed) once more with the server's clock. Error
 * replies are S3's XML (<Error><Code>, <Message>), bounded, scrubbed. */
#ifndef SM_S3_H
#define SM_S3_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "buf.h"
#include "creds.h"
#include "sigv4.h"

#define S3_KEY_MAX    1024               /* bytes of a key (S3's limit) */
#define S3_LIST_PAGES 1000               /* pages of one listing at most (1000 keys each) */
#define S3_GET_MAX    (4ULL << 30)       /* bytes of an object GetObject writes at most */
#define S3_PUT_MAX    (5ULL << 30)       /* bytes of one PutObject (S3's limit) */
#define S3_REPLY_MAX  (16 * 1024 * 1024) /* bytes of a listing or an error reply */

enum s3_error {
    S3_OK = 0,
    S3_ERR_NOMEM = -1,
    S3_ERR_INPUT = -2,   /* a bad bucket, key, URL or configuration: err says which */
    S3_ERR_CREDS = -3,   /* no usable credentials */
    S3_ERR_NETWORK = -4, /* no reply, retries spent */
    S3_ERR_SERVICE = -5, /* an error reply (NoSuchKey, AccessDenied, ...), retries spent */
    S3_ERR_REPLY = -6,   /* a reply too large or not what S3 sends */
    S3_ERR_IO = -7,      /* the local file */
};

struct s3_config {
    const char *region;         /* required; copied */
    const char *endpoint_url;   /* NULL: AWS; else http(s)://host[:port] (path-style); copied */
    bool allow_plain_http;      /* --allow-plain-http: an http:// endpoint_url whose host
                                   is not loopback is fine (else S3_ERR_INPUT, plainhttp.h) */
    struct creds_options creds; /* the chain's options (profile) */
    int max_attempts;           /* 0: 3 */
    long timeout_ms;            /* per request; 0: 10 minutes (large objects) */
};

struct s3_client;

/* Makes a client (one per thread); 0, or S3_ERR_INPUT / _NOMEM with one line in err. */
__attribute__((warn_unused_result)) int s3_client_new(const struct s3_config *cfg,
                                                      struct s3_client **out, struct buf *err);
void s3_client_free(struct s3_client *c);

/* PutObject: body (len bytes) as bucket/key with content_type. */
__attribute__((warn_unused_result)) int s3_put(struct s3_client *c, const char *bucket,
                                               const char *key, const void *body, size_t len,
                                               const char *content_type, struct buf *err);

/* GetObject: the object's bytes written to out (from its current position;
 * truncated and rewritten on a retry), at most max bytes. */
__attribute__((warn_unused_result)) int s3_get(struct s3_client *c, const char *bucket,
                                               const char *key, FILE *out, unsigned long long max,
                                               struct buf *err);

/* Receives one listed object; returns 0 to go on, > 0 to stop, < 0 to fail
 * (returned as is; the callback writes err). */
typedef int s3_object_fn(void *ud, const char *key, long long size, struct buf *err);

/* ListObjectsV2 of every key under prefix, page after page (at most
 * S3_LIST_PAGES), each key to fn in S3's order. */
__attribute__((warn_unused_result)) int s3_list(struct s3_client *c, const char *bucket,
                                                const char *prefix, s3_object_fn *fn, void *ud,
                                                struct buf *err);

/* ---- the pure parts, for tests ---- */

/* "s3://BUCKET[/PREFIX]": bucket and prefix (without a trailing '/'; "" when
 * none) appended. Returns 0 or S3_ERR_INPUT with err. */
__attribute__((warn_unused_result)) int s3_parse_url(const char *url, struct buf *bucket,
                                                     struct buf *prefix, struct buf *err);
/* S3's bucket naming rules (3 to 63 lower-case letters, digits, '.', '-'). */
bool s3_bucket_ok(const char *bucket);
/* A key this client sends: 1 to S3_KEY_MAX bytes of printable ASCII other
 * than '?', '#' and '\\', no empty, "." or ".." segment, not starting with '/'. */
bool s3_key_ok(const char *key);

/* What one request sends. */
struct s3_request {
    const char *method; /* "GET", "PUT" */
    const char *bucket;
    const char *key;   /* NULL: the bucket (ListObjectsV2) */
    const char *query; /* encoded "a=b&c=d", or NULL */
    const void *body;
    size_t body_len;
    const char *content_type; /* NULL: none */
};

/* A request made ready: its URL, and the headers it sends, signed. */
struct s3_signed {
    struct buf url;    /* as curl gets it */
    struct buf host;   /* the Host header */
    struct buf target; /* what is signed: the decoded path, and the query as sent */
    char payload[SIGV4_HEX_LEN + 1];
    char amz_date[SIGV4_DATE_LEN + 1];
    struct sigv4_header headers[6]; /* as sent, Authorization apart */
    size_t n_headers;
    struct sigv4_result sig; /* sig.authorization: the Authorization value */
};

void s3_signed_init(struct s3_signed *s);
void s3_signed_free(struct s3_signed *s);

/* Builds and signs r for region (or endpoint_url) with creds at t. The
 * headers point into s, r and creds, which must outlive them. Returns 0, or
 * S3_ERR_INPUT (a bad bucket, key or date) / _NOMEM. */
__attribute__((warn_unused_result)) int s3_sign(struct sigv4_signer *signer, const char *region,
                                                const char *endpoint_url,
                                                const struct s3_request *r,
                                                const struct sigv4_credentials *creds, time_t t,
                                                struct s3_signed *s);

/* An error reply's code and message (scrubbed, one line, cut); "" when absent. */
void s3_parse_error(const char *xml, size_t len, char code[128], char message[512]);

/* A ListObjectsV2 page: each Contents' Key and Size to fn, then whether it is
 * truncated and its NextContinuationToken (appended to next). Returns 0, fn's
 * value, or S3_ERR_REPLY with err for a page that is not one. */
__attribute__((warn_unused_result)) int s3_parse_list(const char *xml, size_t len, s3_object_fn *fn,
                                                      void *ud, bool *truncated, struct buf *next,
                                                      struct buf *err);

#endif
