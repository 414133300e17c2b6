/* s3srv: a small Amazon S3 in the emulator's memory, for the result files of
 * sharded runs (sm-results push and fetch): PutObject (PUT /BUCKET/KEY),
 * GetObject (GET /BUCKET/KEY) and ListObjectsV2 (GET /BUCKET?list-type=2 with
 * prefix, delimiter, max-keys, start-after and continuation-token), path-style
 * as S3 serves them at an endpoint URL. Every bucket exists (and is empty
 * until something is put in it); objects live until the emulator ends.
 *
 * A request is S3's when its Authorization header's scope names the service
 * s3. It is verified with SigV4 as S3 verifies it: x-amz-content-sha256 must
 * be signed and be the body's SHA-256 (UNSIGNED-PAYLOAD and streaming
 * uploads are not served), and the path is signed as sent, once encoded (the
 * emulator decodes it and lets auth.h encode it once more: keys with empty,
 * "." or ".." segments are refused, which a normalising verifier could not
 * tell apart). Errors are S3's XML (<Error><Code>NoSuchKey</Code>...), with
 * its status and codes: AccessDenied, InvalidAccessKeyId, SignatureDoesNotMatch,
 * RequestTimeTooSkewed, XAmzContentSHA256Mismatch, NoSuchKey, InvalidArgument,
 * MethodNotAllowed, EntityTooLarge.
 *
 * Pure C over auth.h and http.h; the caller sends the reply and passes the
 * clock in. */
#ifndef EMU_S3SRV_H
#define EMU_S3SRV_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "auth.h"
#include "buf.h"
#include "http.h"

#define S3SRV_MAX_OBJECTS 100000
#define S3SRV_MAX_BYTES   ((size_t)256 << 20) /* every object's bytes together */
#define S3SRV_MAX_KEYS    1000                /* a listing's page at most */

struct s3srv_object {
    char *bucket, *key, *type; /* owned */
    char *data;                /* owned, len bytes */
    size_t len;
    time_t mtime;
    char etag[33]; /* MD5, hex */
};

struct s3srv {
    struct s3srv_object *objs; /* sorted by bucket, then key (bytes) */
    size_t n, cap;
    size_t bytes;
};

struct s3srv_reply {
    int status;
    const char *content_type; /* static, or an object's (valid until the next call) */
    struct buf body;          /* the caller's, emptied first */
};

void s3srv_init(struct s3srv *s);
void s3srv_free(struct s3srv *s);

/* Whether the request is signed for S3 (its credential scope's service). */
bool s3srv_is(const struct http_head *h);

/* Answers the request (verified with auth at now) into r. Returns 0, or -1 out
 * of memory (r then holds a 500). */
__attribute__((warn_unused_result)) int s3srv_call(struct s3srv *s, struct auth *auth,
                                                   const struct http_head *h, const char *body,
                                                   size_t len, time_t now, struct s3srv_reply *r);

#endif
