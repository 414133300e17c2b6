/* sigv4: AWS Signature Version 4 (AWS4-HMAC-SHA256) with the non-S3 rules that
 * SageMaker Runtime uses: the path is normalized and every segment encoded again,
 * the query is decoded, encoded with the unreserved set and sorted, header names
 * are lower-cased and sorted, values trimmed with inner white space folded, and
 * repeated headers joined with ','.
 *
 * Pure C over libcrypto: no clock and no globals but the lazily fetched digest.
 * Each stage (canonical request, string to sign, key, signature) can be called
 * on its own. The caller owns every input; outputs go to caller-owned buffers. */
#ifndef SM_SIGV4_H
#define SM_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "buf.h"

#define SIGV4_DATE_LEN 16 /* "YYYYMMDDTHHMMSSZ" */
#define SIGV4_HEX_LEN  64 /* a SHA-256 in lower-case hex */
#define SIGV4_KEY_LEN  32

enum sigv4_error {
    SIGV4_OK = 0,
    SIGV4_ERR_NOMEM = -1,
    SIGV4_ERR_INPUT = -2, /* malformed method, target, header, date or credentials */
    SIGV4_ERR_CRYPTO = -3,
};

struct sigv4_header {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
};

struct sigv4_credentials {
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token; /* NULL or "" when there is none */
};

struct sigv4_request {
    const char *method;
    const char *target; /* path and query exactly as sent: "/endpoints/x/invocations?a=b" */
    size_t target_len;
    const struct sigv4_header *headers; /* as sent; Host must be among them */
    size_t n_headers;
    const void *body;
    size_t body_len;
    const char *payload_hash; /* hex SHA-256 of body if the caller has it, else NULL */
};

struct sigv4_params {
    const char *region;
    const char *service;
    const char *amz_date; /* SIGV4_DATE_LEN characters, from sigv4_format_date() */
    bool no_normalize;    /* keep ".", ".." and "//" in the path (S3 style); still encoded */
    bool sign_all;        /* sign exactly the headers given (a verifier's view); otherwise
                             skip those botocore never signs (user-agent, expect, ...) */
};

struct sigv4_crypto; /* digest contexts a result reuses across calls */

struct sigv4_result {
    struct buf canonical_request;
    struct buf string_to_sign;
    struct buf signed_headers; /* "accept;content-type;host;x-amz-date" */
    struct buf authorization;  /* the Authorization header value */
    char amz_date[SIGV4_DATE_LEN + 1];
    char signature[SIGV4_HEX_LEN + 1];
    struct sigv4_crypto *crypto; /* created by the first sigv4_sign */
};

/* A cache of derived signing keys, one per (secret, date, region, service).
 * Thread-safe: one signer may be shared by every thread. */
struct sigv4_signer;

struct sigv4_signer *sigv4_signer_new(void);
/* Wipes the cached keys and frees the signer; NULL is fine. */
void sigv4_signer_free(struct sigv4_signer *s);

void sigv4_result_init(struct sigv4_result *r);
void sigv4_result_free(struct sigv4_result *r);

/* Signs req: adds x-amz-date (and x-amz-security-token when creds carry a token)
 * to the signed headers unless req already has them, and fills r. On error r
 * holds nothing useful. r may be reused across calls without freeing. */
__attribute__((warn_unused_result)) int sigv4_sign(struct sigv4_signer *s,
                                                   const struct sigv4_request *req,
                                                   const struct sigv4_credentials *creds,
                                                   const struct sigv4_params *p,
                                                   struct sigv4_result *r);

/* The stages, for tests and the dry run. */
__attribute__((warn_unused_result)) int
sigv4_canonical_request(const struct sigv4_request *req, const struct sigv4_credentials *creds,
                        const struct sigv4_params *p, struct buf *creq, struct buf *signed_headers);
__attribute__((warn_unused_result)) int sigv4_string_to_sign(const struct sigv4_params *p,
                                                             const char *creq, size_t creq_len,
                                                             struct buf *sts);
__attribute__((warn_unused_result)) int sigv4_signing_key(const char *secret, const char *date8,
                                                          const char *region, const char *service,
                                                          unsigned char key[SIGV4_KEY_LEN]);
__attribute__((warn_unused_result)) int sigv4_signature(const unsigned char key[SIGV4_KEY_LEN],
                                                        const char *sts, size_t sts_len,
                                                        char hex[SIGV4_HEX_LEN + 1]);

/* Hex SHA-256 of data. */
__attribute__((warn_unused_result)) int sigv4_sha256_hex(const void *data, size_t len,
                                                         char hex[SIGV4_HEX_LEN + 1]);

/* Formats t (UTC) as "YYYYMMDDTHHMMSSZ"; returns 0, or SIGV4_ERR_INPUT out of range. */
int sigv4_format_date(time_t t, char out[SIGV4_DATE_LEN + 1]);
/* Parses "YYYYMMDDTHHMMSSZ"; returns 0 or SIGV4_ERR_INPUT. */
int sigv4_parse_date(const char *s, time_t *out);

/* A parsed Authorization header value. Pointers refer into the parsed string. */
struct sigv4_authorization {
    const char *access_key_id;
    size_t access_key_id_len;
    const char *date8; /* 8 characters of the scope */
    const char *region;
    size_t region_len;
    const char *service;
    size_t service_len;
    const char *signed_headers; /* "a;b;c" */
    size_t signed_headers_len;
    const char *signature; /* SIGV4_HEX_LEN characters */
};

/* Parses "AWS4-HMAC-SHA256 Credential=AKID/20150830/us-east-1/service/aws4_request,
 * SignedHeaders=host;x-amz-date, Signature=<64 hex>"; returns 0 or SIGV4_ERR_INPUT. */
int sigv4_parse_authorization(const char *value, size_t len, struct sigv4_authorization *out);

#endif
