/* creds: the AWS credential chain and region lookup, as the AWS CLI and SDKs
 * order them:
 *   1. environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
 *   2. shared files: AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials, "[name]")
 *      and AWS_CONFIG_FILE (~/.aws/config, "[profile name]", "[default]"),
 *      profile from the options, else AWS_PROFILE, else "default"; a setting in
 *      the credentials file wins over the same one in the config file;
 *      aws_access_key_id, aws_secret_access_key, aws_session_token, then
 *      credential_process (run with /bin/sh -c; JSON Version 1, optional
 *      Expiration; its standard error is discarded)
 *   3. the ECS container endpoint: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or
 *      _FULL_URI, with AWS_CONTAINER_AUTHORIZATION_TOKEN or _TOKEN_FILE
 *   4. EC2 instance metadata, IMDSv2 (token, role, credentials), at
 *      AWS_EC2_METADATA_SERVICE_ENDPOINT or http://169.254.169.254 (IPv6 with
 *      AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6), unless
 *      AWS_EC2_METADATA_DISABLED=true; IMDSv1 only when the token request is
 *      refused and AWS_EC2_METADATA_V1_DISABLED is not true
 * A profile using role_arn, sso_* or web_identity_token_file is reported as
 * not supported (wrap it with credential_process). No proxy is used for 3 and 4.
 * A source that is configured but fails (a malformed file, a failing process
 * or container endpoint) ends the walk with its error; an unreachable instance
 * metadata service only counts as "not found". Errors go to a caller's buf as
 * one line naming the source, file and line; never a secret. Every secret key
 * and session token found is registered with common/scrub.h, which keeps them
 * out of whatever text from outside a program stores or prints. */
#ifndef SM_CREDS_H
#define SM_CREDS_H

#include <stdbool.h>
#include <time.h>

#include "buf.h"

enum creds_error {
    CREDS_OK = 0,
    CREDS_ERR_NOMEM = -1,
    CREDS_ERR_NOT_FOUND = -2, /* no source had credentials */
    CREDS_ERR_INVALID = -3,   /* a source was malformed (file, JSON, reply) */
    CREDS_ERR_FETCH = -4,     /* a process or endpoint failed */
};

struct creds {
    char *access_key_id;     /* malloc'ed */
    char *secret_access_key; /* malloc'ed; wiped by creds_clear */
    char *session_token;     /* malloc'ed or NULL; wiped by creds_clear */
    time_t expiration;       /* 0: does not expire */
    char source[160];        /* e.g. "environment", "profile 'dev' in /root/.aws/credentials" */
};

struct creds_options {
    const char *profile;    /* NULL: AWS_PROFILE, else "default"; when set (a --profile
                               flag) the environment's keys are skipped, as the AWS CLI does */
    int process_timeout_ms; /* credential_process time limit; 0: 60 s */
    int http_timeout_ms;    /* container endpoint and instance metadata, per request; 0: 2 s */
};

/* Wipes the secrets and frees the strings; the struct may be reused. */
void creds_clear(struct creds *c);
/* Deep copy; dst must be empty (zeroed or cleared). */
__attribute__((warn_unused_result)) int creds_copy(struct creds *dst, const struct creds *src);

/* Walks the chain once and fills out (which must be empty); credentials that
 * expire at or before now are an error. On error out is empty and err holds one line. */
__attribute__((warn_unused_result)) int creds_resolve(const struct creds_options *o, time_t now,
                                                      struct creds *out, struct buf *err);

/* Reads a credentials JSON object into out (which must be empty; its source is
 * kept): a credential_process's output when versioned ("Version": 1,
 * "SessionToken"), else a container endpoint's or instance metadata's reply
 * ("Token"). Credentials that expire at or before now are an error; err then
 * holds one line starting with what, never a secret. Clear out with creds_clear
 * either way. */
__attribute__((warn_unused_result)) int creds_parse_json(const char *json, size_t len,
                                                         bool versioned, time_t now,
                                                         const char *what, struct creds *out,
                                                         struct buf *err);

/* A thread-safe cache over the chain: returns a copy of the current credentials,
 * refreshing them 5 minutes before they expire. One thread refreshes at a time;
 * the others meanwhile get the old credentials while those are valid, else wait
 * for its result. When a refresh fails while the old ones are still valid, it
 * keeps them (returning 0 with the refresh's error left in err) and tries again
 * 10 s later. */
struct creds_cache;

struct creds_cache *creds_cache_new(const struct creds_options *o);
void creds_cache_free(struct creds_cache *c);
__attribute__((warn_unused_result)) int creds_cache_get(struct creds_cache *c, time_t now,
                                                        struct creds *out, struct buf *err);

/* The region: AWS_REGION, AWS_DEFAULT_REGION, then the profile's "region". */
__attribute__((warn_unused_result)) int creds_region(const struct creds_options *o,
                                                     struct buf *region, struct buf *err);

/* Whether name can be a region or service name in a SigV4 scope: 1 to 63 of a-z 0-9 -. */
bool creds_name_ok(const char *name);

/* Parses an ISO 8601 time as AWS writes it: "2026-11-30T10:28:46Z", with optional
 * fractional seconds and a "Z", "+HH:MM" or "+HHMM" zone. Returns 0, or -1 when s is
 * not such a time. */
__attribute__((warn_unused_result)) int creds_parse_time(const char *s, time_t *out);

#endif
