/* sreq: one prepared, signed SageMaker request as raw HTTP/1.1 bytes, the form
 * wrk's request() returns:
 *
 *   POST /endpoints/NAME/invocations HTTP/1.1
 *   Host, Content-Type, Accept, the extra headers (all signed), User-Agent,
 *   Content-Length, X-Amz-Date, X-Amz-Security-Token (with a session token),
 *   Authorization, then the body.
 *
 * The body and its payload hash are prepared once; sreq_build signs again only
 * when the second or the credentials changed since its last call (a signature
 * depends on nothing else), so most calls return the cached bytes.
 * Not thread-safe: one sreq per thread; the signer may be shared. */
#ifndef SM_SREQ_H
#define SM_SREQ_H

#include <stddef.h>
#include <time.h>

#include "sigv4.h"

enum sreq_error {
    SREQ_OK = 0,
    SREQ_ERR_NOMEM = -1,
    SREQ_ERR_INPUT = -2, /* a missing field, or CR/LF in a header */
    SREQ_ERR_SIGN = -3,  /* the signer refused (bad credentials or date) */
};

struct sreq_params {
    const char *method;
    const char *target;               /* path and query exactly as sent */
    const char *host;                 /* the Host header exactly as sent */
    const char *content_type;         /* NULL: none */
    const char *accept;               /* NULL: none */
    const struct sigv4_header *extra; /* signed headers, e.g. X-Amzn-SageMaker-Target-Variant */
    size_t n_extra;
    const char *user_agent; /* NULL: none; never signed */
    const char *region;
    const char *service;
    const void *body;
    size_t body_len;
    const char *bearer; /* not NULL: sent as Authorization: Bearer, never signed */
};

struct sreq;

/* Copies everything p points to. */
__attribute__((warn_unused_result)) int sreq_new(const struct sreq_params *p, struct sreq **out);
/* Wipes the signed bytes (they hold the session token) and frees; NULL is fine. */
void sreq_free(struct sreq *r);

/* The request signed with creds at now (UTC seconds): *raw (owned by r, valid
 * until the next call) and *len. creds_gen must change whenever creds do. A
 * request with a bearer token is not signed: its bytes never change. */
__attribute__((warn_unused_result)) int sreq_build(struct sreq *r, struct sigv4_signer *signer,
                                                   const struct sigv4_credentials *creds,
                                                   unsigned long creds_gen, time_t now,
                                                   const char **raw, size_t *len);

/* Changes each time sreq_build signs anew (0 before the first): while it stays
 * the same, so do the bytes, and a caller may keep its own copy of them. */
unsigned long sreq_generation(const struct sreq *r);

#endif
