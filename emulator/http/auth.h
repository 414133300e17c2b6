/* auth: verifies SigV4-signed requests the way SageMaker Runtime does, with the
 * project's signer, and words each refusal as the service does.
 *
 * Checks, in order: an Authorization header (MissingAuthenticationToken); its
 * parts and a date (IncompleteSignature); a known access key
 * (UnrecognizedClient); the session token (UnrecognizedClient, ExpiredToken);
 * the scope's service and region, the scope's date; the 5-minute window
 * (Signature expired / not yet current); then the signature itself, computed
 * over exactly the SignedHeaders and compared in constant time
 * (InvalidSignature). Every refusal is a 403. */
#ifndef EMU_AUTH_H
#define EMU_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "sigv4.h"

struct auth_key {
    char *access_key_id;
    char *secret_access_key; /* wiped when freed */
    char *session_token;     /* NULL: none; wiped when freed */
    time_t expiration;       /* 0: never */
};

struct auth {
    struct auth_key *keys;
    size_t n_keys;
    char **bearers; /* --bearer-token values; wiped when freed */
    size_t n_bearers;
    char region[64];
    struct sigv4_signer *signer;
    struct sigv4_result result; /* reused across requests (one thread) */
};

struct auth_request {
    const char *method;
    const char *target;
    size_t target_len;
    const struct sigv4_header *headers;
    size_t n_headers;
    const void *body;
    size_t body_len;
};

enum auth_error {
    AUTH_OK = 0,
    AUTH_ERR_NOMEM = -1,
    AUTH_ERR_INVALID = -2, /* a bad --credential or credentials file */
    AUTH_ERR_IO = -3,      /* the credentials file cannot be read */
    /* auth_verify's refusals, each a 403 with a SageMaker error type (auth_error_type) */
    AUTH_ERR_MISSING = -4,      /* MissingAuthenticationTokenException */
    AUTH_ERR_INCOMPLETE = -5,   /* IncompleteSignatureException */
    AUTH_ERR_UNRECOGNIZED = -6, /* UnrecognizedClientException */
    AUTH_ERR_EXPIRED = -7,      /* ExpiredTokenException */
    AUTH_ERR_SIGNATURE = -8,    /* InvalidSignatureException */
    AUTH_ERR_BEARER = -9,       /* a bearer token that was not given (the OpenAI route: 401) */
};

#define AUTH_BEARER_MAX 8192 /* bytes of a bearer token */

/* Starts with no keys for region. Returns 0 or AUTH_ERR_NOMEM. */
__attribute__((warn_unused_result)) int auth_init(struct auth *a, const char *region);
/* Wipes the secrets and frees the keys and the signer. */
void auth_free(struct auth *a);

/* Adds a key (strings copied; token may be NULL or ""). Returns 0 or AUTH_ERR_NOMEM. */
__attribute__((warn_unused_result)) int auth_add_key(struct auth *a, const char *akid,
                                                     const char *secret, const char *token,
                                                     time_t expiration);

/* Adds the key "AKID:SECRET[:TOKEN][@EXPIRY]" (--credential; EXPIRY: Unix
 * seconds, +/-SECONDS from now, or an ISO 8601 time such as 2026-11-30T10:28:46Z,
 * as creds_parse_time reads it). Returns 0, or AUTH_ERR_INVALID or AUTH_ERR_NOMEM
 * with one line in err that names the key id, never the secret. */
__attribute__((warn_unused_result)) int auth_add_text(struct auth *a, const char *text, time_t now,
                                                      struct buf *err);

/* Adds the keys of a credentials file (--credentials-file): a JSON list, or
 * {"credentials": [...]}, of {"access_key_id", "secret_access_key",
 * "session_token", "expiration"}. Wipes the file's secrets from memory.
 * Returns 0, or AUTH_ERR_IO, AUTH_ERR_INVALID or AUTH_ERR_NOMEM with one line in err. */
__attribute__((warn_unused_result)) int auth_add_file(struct auth *a, const char *path, time_t now,
                                                      struct buf *err);

/* Accepts token as a bearer token (--bearer-token; copied, wiped when freed):
 * 1 to AUTH_BEARER_MAX visible ASCII characters. Returns 0, or AUTH_ERR_INVALID
 * (one line in err that does not quote the token) or AUTH_ERR_NOMEM. */
__attribute__((warn_unused_result)) int auth_add_bearer(struct auth *a, const char *token,
                                                        struct buf *err);

/* Whether an Authorization value uses the Bearer scheme ("Bearer TOKEN", the
 * scheme in any case). */
bool auth_is_bearer(const char *value, size_t len);

/* Checks the Authorization value "Bearer TOKEN" against the tokens given, in
 * constant time for a token of the right length. Returns 0, or AUTH_ERR_BEARER
 * with a message in err that does not quote the token. */
__attribute__((warn_unused_result)) int auth_bearer(const struct auth *a, const char *value,
                                                    size_t len, struct buf *err);

/* The SageMaker error type of one of auth_verify's refusals
 * ("InvalidSignatureException"), or NULL for another code. */
const char *auth_error_type(int code);

/* Verifies req at wall-clock time now. Returns 0 when accepted, a refusal
 * (AUTH_ERR_MISSING to AUTH_ERR_SIGNATURE) with SageMaker's message in err, or
 * AUTH_ERR_NOMEM. */
__attribute__((warn_unused_result)) int auth_verify(struct auth *a, const struct auth_request *req,
                                                    time_t now, struct buf *err);

/* auth_verify for another scope: the signing service (NULL: sagemaker) and
 * region (NULL: the auth's) the request's credential scope must name, as the
 * control plane's services check theirs (servicequotas, ...). */
__attribute__((warn_unused_result)) int auth_verify_scope(struct auth *a,
                                                          const struct auth_request *req,
                                                          const char *service, const char *region,
                                                          time_t now, struct buf *err);

#endif
