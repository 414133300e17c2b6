#include "creds.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <openssl/crypto.h>

#include "credproc.h"
#include "metadata.h"
#include "profile.h"
#include "readall.h"
#include "scrub.h"
#include "sigv4.h"

#define CREDS_PROCESS_TIMEOUT_MS 60000
#define CREDS_HTTP_TIMEOUT_MS    2000
#define CREDS_MAX_JSON           65536
#define CREDS_MAX_TOKEN_FILE     16384
#define CREDS_REFRESH_AHEAD      300 /* seconds before expiry that a refresh starts */
#define CREDS_RETRY_AFTER        10  /* seconds between refreshes that keep failing */

/* The selected profile and both shared files. */
struct creds_profiles {
    const char *name;
    struct buf cred_path, config_path;
    struct profile_file *cred, *config;
};

/* One walk of the chain. */
struct creds_chain {
    const struct creds_options *o;
    time_t now;
    struct creds_profiles profiles;
    struct creds *out;
    struct buf *err;
    struct buf tried; /* the sources that had nothing, for the final error */
};

typedef int creds_source_fn(struct creds_chain *ch);

static void creds_free_secret(char *s) {
    if (s) OPENSSL_cleanse(s, strlen(s));
    free(s);
}

void creds_clear(struct creds *c) {
    free(c->access_key_id);
    creds_free_secret(c->secret_access_key);
    creds_free_secret(c->session_token);
    memset(c, 0, sizeof *c);
}

static char *creds_dup(const char *s, bool *ok) {
    char *d = s ? strdup(s) : NULL;
    if (s && !d) *ok = false;
    return d;
}

int creds_copy(struct creds *dst, const struct creds *src) {
    bool ok = true;
    dst->access_key_id = creds_dup(src->access_key_id, &ok);
    dst->secret_access_key = creds_dup(src->secret_access_key, &ok);
    dst->session_token = creds_dup(src->session_token, &ok);
    dst->expiration = src->expiration;
    memcpy(dst->source, src->source, sizeof dst->source);
    if (ok) return CREDS_OK;
    creds_clear(dst);
    return CREDS_ERR_NOMEM;
}

static bool creds_key_id_ok(const char *s) {
    if (!*s) return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.' || *s == '~'))
            return false;
    return true;
}

/* Fills out from the given strings (copied; an empty token counts as none). */
static int creds_set(struct creds_chain *ch, const char *akid, const char *secret,
                     const char *token, time_t expiration) {
    if (!creds_key_id_ok(akid))
        return buf_fail(ch->err, CREDS_ERR_INVALID,
                        "%s: the access key id has characters other than A-Z a-z 0-9 - _ . ~",
                        ch->out->source);
    bool ok = true;
    ch->out->access_key_id = creds_dup(akid, &ok);
    ch->out->secret_access_key = creds_dup(secret, &ok);
    ch->out->session_token = creds_dup(token && *token ? token : NULL, &ok);
    ch->out->expiration = expiration;
    return ok ? CREDS_OK : CREDS_ERR_NOMEM;
}

__attribute__((format(printf, 2, 3))) static void creds_source(struct creds *c, const char *fmt,
                                                               ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->source, sizeof c->source, fmt, ap);
    va_end(ap);
}

/* Notes a source that had nothing; returns CREDS_ERR_NOT_FOUND (or _NOMEM). */
__attribute__((format(printf, 2, 3))) static int creds_tried(struct creds_chain *ch,
                                                             const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = (ch->tried.len && buf_adds(&ch->tried, ", ")) || buf_vaddf(&ch->tried, fmt, ap)
                 ? CREDS_ERR_NOMEM
                 : CREDS_ERR_NOT_FOUND;
    va_end(ap);
    return rc;
}

/* Two digits at s as a number, or -1. */
static int creds_2digits(const char *s) {
    bool ok = s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9';
    return ok ? (s[0] - '0') * 10 + (s[1] - '0') : -1;
}

int creds_parse_time(const char *s, time_t *out) {
    char compact[SIGV4_DATE_LEN + 1]; /* "YYYYMMDDTHHMMSSZ", what sigv4_parse_date reads */
    time_t t;
    if (strlen(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
        s[13] != ':' || s[16] != ':')
        return -1;
    snprintf(compact, sizeof compact, "%.4s%.2s%.2sT%.2s%.2s%.2sZ", s, s + 5, s + 8, s + 11, s + 14,
             s + 17);
    if (sigv4_parse_date(compact, &t)) return -1;
    const char *z = s + 19;
    if (*z == '.' && z[1] >= '0' && z[1] <= '9')
        for (z++; *z >= '0' && *z <= '9'; z++) continue;
    size_t n = strlen(z);
    long zone = 0;
    if ((*z == '+' || *z == '-') && (n == 5 || (n == 6 && z[3] == ':'))) {
        int hh = creds_2digits(z + 1), mm = creds_2digits(z + n - 2);
        if (hh < 0 || hh > 23 || mm < 0 || mm > 59) return -1;
        zone = (*z == '-' ? -1 : 1) * (hh * 3600L + mm * 60L);
    } else if (strcmp(z, "Z") != 0 && strcmp(z, "z") != 0) {
        return -1;
    }
    *out = t - zone;
    return 0;
}

static void creds_json_wipe(cJSON *j) {
    for (; j; j = j->next) {
        if (cJSON_IsString(j) && j->valuestring)
            OPENSSL_cleanse(j->valuestring, strlen(j->valuestring));
        creds_json_wipe(j->child);
    }
}

/* A string member of o: NULL when absent or JSON null, "" (flagged bad) when another type. */
static const char *creds_json_string(const cJSON *o, const char *name, bool *bad) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!v || cJSON_IsNull(v)) return NULL;
    if (cJSON_IsString(v)) return v->valuestring;
    *bad = true;
    return "";
}

/* Checks the fields of a credentials object; returns what is wrong, or NULL. */
static const char *creds_json_problem(const cJSON *o, const char *token_field, bool versioned,
                                      time_t *expiration) {
    bool bad_token = false, bad_exp = false, bad = false;
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(o, "Version");
    const char *code = creds_json_string(o, "Code", &bad);
    const char *akid = creds_json_string(o, "AccessKeyId", &bad);
    const char *secret = creds_json_string(o, "SecretAccessKey", &bad);
    const char *exp = creds_json_string(o, "Expiration", &bad_exp);
    creds_json_string(o, token_field, &bad_token);
    if (versioned && (!cJSON_IsNumber(version) || version->valuedouble != 1))
        return "\"Version\" is missing or not 1";
    if (code && strcmp(code, "Success") != 0) return "\"Code\" is not \"Success\"";
    if (!akid || !*akid) return "\"AccessKeyId\" is missing or not a string";
    if (!creds_key_id_ok(akid))
        return "\"AccessKeyId\" has characters other than A-Z a-z 0-9 - _ . ~";
    if (!secret || !*secret) return "\"SecretAccessKey\" is missing or not a string";
    if (bad_token) return "the session token is not a string";
    if (bad_exp || (exp && creds_parse_time(exp, expiration) != 0))
        return "\"Expiration\" is not an ISO 8601 time such as 2026-11-30T10:28:46Z";
    return NULL;
}

int creds_parse_json(const char *json, size_t len, bool versioned, time_t now, const char *what,
                     struct creds *out, struct buf *err) {
    struct creds_chain ch = {.now = now, .out = out, .err = err};
    const char *token_field = versioned ? "SessionToken" : "Token";
    time_t expiration = 0;
    const char *problem = "the answer is not a JSON object";
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(root, "Expiration");
    int rc = CREDS_ERR_INVALID;
    if (cJSON_IsObject(root))
        problem = creds_json_problem(root, token_field, versioned, &expiration);
    if (problem) {
        rc = buf_fail(err, rc, "%s: %s", what, problem);
    } else if (cJSON_IsString(exp) && expiration <= now) {
        rc = buf_fail(err, rc, "%s: the credentials expired at %s", what, exp->valuestring);
    } else {
        bool unused = false;
        rc = creds_set(&ch, creds_json_string(root, "AccessKeyId", &unused),
                       creds_json_string(root, "SecretAccessKey", &unused),
                       creds_json_string(root, token_field, &unused), expiration);
    }
    creds_json_wipe(root);
    cJSON_Delete(root);
    return rc;
}

static const char *creds_env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static int creds_from_env(struct creds_chain *ch) {
    const char *akid = creds_env("AWS_ACCESS_KEY_ID"), *secret = creds_env("AWS_SECRET_ACCESS_KEY");
    if (ch->o->profile) return CREDS_ERR_NOT_FOUND; /* a named profile overrides the environment */
    if (!akid && !secret) return creds_tried(ch, "environment");
    if (!akid || !secret)
        return buf_fail(ch->err, CREDS_ERR_INVALID, "environment: %s is set but %s is not",
                        akid ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
                        akid ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID");
    creds_source(ch->out, "environment");
    return creds_set(ch, akid, secret, creds_env("AWS_SESSION_TOKEN"), 0);
}

/* The path in env, or "~/" + fallback, with a leading "~/" read as $HOME. */
static int creds_path(const char *env, const char *fallback, struct buf *out) {
    const char *v = creds_env(env);
    if (!v) v = fallback;
    const char *home = creds_env("HOME");
    if (v[0] == '~' && (v[1] == '/' || !v[1]))
        return buf_addf(out, "%s%s", home ? home : "", v + 1);
    return buf_adds(out, v);
}

static void creds_profiles_init(struct creds_profiles *p, const struct creds_options *o) {
    memset(p, 0, sizeof *p);
    p->name = o->profile ? o->profile : creds_env("AWS_PROFILE");
    if (!p->name) p->name = "default";
    buf_init(&p->cred_path, BUF_NO_CAP);
    buf_init(&p->config_path, BUF_NO_CAP);
}

static void creds_profiles_free(struct creds_profiles *p) {
    buf_free(&p->cred_path);
    buf_free(&p->config_path);
    profile_free(p->cred);
    profile_free(p->config);
}

/* Warns once a process, on standard error, that the shared credentials file at
 * path is readable by other users (as ssh does of a private key; the AWS CLI
 * says nothing). */
static void creds_warn_readable(const char *path) {
    static atomic_flag warned = ATOMIC_FLAG_INIT;
    struct stat st;
    if (stat(path, &st) != 0 || !(st.st_mode & (S_IRGRP | S_IROTH))) return;
    if (atomic_flag_test_and_set(&warned)) return;
    fprintf(stderr,
            "wrk-sagemaker: warning: %s is readable by other users (mode %04o): chmod 600 "
            "it\n",
            path, (unsigned)(st.st_mode & 07777));
}

/* Reads both shared files. A profile named by the options or AWS_PROFILE must exist. */
static int creds_profiles_load(struct creds_profiles *p, const struct creds_options *o,
                               struct buf *err) {
    if (creds_path("AWS_SHARED_CREDENTIALS_FILE", "~/.aws/credentials", &p->cred_path) ||
        creds_path("AWS_CONFIG_FILE", "~/.aws/config", &p->config_path))
        return CREDS_ERR_NOMEM;
    int rc = profile_load(buf_str(&p->cred_path), PROFILE_CREDENTIALS, &p->cred, err);
    if (!rc && profile_exists(p->cred, p->name)) creds_warn_readable(buf_str(&p->cred_path));
    if (!rc) rc = profile_load(buf_str(&p->config_path), PROFILE_CONFIG, &p->config, err);
    if (rc) return rc == PROFILE_ERR_NOMEM ? CREDS_ERR_NOMEM : CREDS_ERR_INVALID;
    bool named = o->profile || creds_env("AWS_PROFILE");
    if (named && !profile_exists(p->cred, p->name) && !profile_exists(p->config, p->name))
        return buf_fail(err, CREDS_ERR_INVALID, "AWS profile '%s' not found in %s or %s", p->name,
                        buf_str(&p->cred_path), buf_str(&p->config_path));
    return CREDS_OK;
}

/* A non-empty setting of the profile (the credentials file first); *path names its file. */
static const char *creds_setting(const struct creds_profiles *p, const char *key,
                                 const char **path) {
    const char *v = profile_get(p->cred, p->name, key);
    *path = buf_str(&p->cred_path);
    if (!v || !*v) {
        v = profile_get(p->config, p->name, key);
        *path = buf_str(&p->config_path);
    }
    return v && *v ? v : NULL;
}

static int creds_from_profile(struct creds_chain *ch) {
    struct creds_profiles *p = &ch->profiles;
    const char *akid_path, *secret_path, *token_path;
    int rc = creds_profiles_load(p, ch->o, ch->err);
    if (rc) return rc;
    const char *akid = creds_setting(p, "aws_access_key_id", &akid_path);
    const char *secret = creds_setting(p, "aws_secret_access_key", &secret_path);
    const char *token = creds_setting(p, "aws_session_token", &token_path);
    if (!akid && !secret) return CREDS_ERR_NOT_FOUND;
    if (!akid || !secret)
        return buf_fail(ch->err, CREDS_ERR_INVALID, "profile '%s' in %s: %s without %s", p->name,
                        akid ? akid_path : secret_path,
                        akid ? "aws_access_key_id" : "aws_secret_access_key",
                        akid ? "aws_secret_access_key" : "aws_access_key_id");
    creds_source(ch->out, "profile '%s' in %s", p->name, akid_path);
    return creds_set(ch, akid, secret, token, 0);
}

/* Settings of credential providers this chain does not implement. */
static int creds_unsupported(struct creds_chain *ch) {
    static const char *const keys[] = {"role_arn", "sso_session", "sso_start_url",
                                       "web_identity_token_file"};
    const char *path;
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (creds_setting(&ch->profiles, keys[i], &path))
            return buf_fail(ch->err, CREDS_ERR_INVALID,
                            "profile '%s' in %s: %s is not supported; use credential_process = "
                            "aws configure export-credentials --profile %s --format process "
                            "in another profile",
                            ch->profiles.name, path, keys[i], ch->profiles.name);
    return CREDS_ERR_NOT_FOUND;
}

static int creds_from_process(struct creds_chain *ch) {
    const char *path, *command = creds_setting(&ch->profiles, "credential_process", &path);
    struct buf json, what;
    if (!command) return creds_unsupported(ch);
    buf_init(&json, CREDS_MAX_JSON);
    buf_init(&what, BUF_NO_CAP);
    int timeout = ch->o->process_timeout_ms ? ch->o->process_timeout_ms : CREDS_PROCESS_TIMEOUT_MS;
    int rc = credproc_run(command, timeout, &json, ch->err);
    if (rc) {
        rc = rc == CREDPROC_ERR_NOMEM ? CREDS_ERR_NOMEM : CREDS_ERR_FETCH;
    } else if (credproc_name(command, &what)) {
        rc = CREDS_ERR_NOMEM;
    } else {
        creds_source(ch->out, "credential_process of profile '%s' in %s", ch->profiles.name, path);
        rc = creds_parse_json(buf_str(&json), json.len, true, ch->now, buf_str(&what), ch->out,
                              ch->err);
    }
    buf_free_secret(&json);
    buf_free(&what);
    return rc;
}

/* The container authorization token from _TOKEN_FILE (trailing white space cut) or _TOKEN. */
static int creds_container_token(struct creds_chain *ch, struct buf *token, const char **out) {
    const char *file = creds_env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
    *out = creds_env("AWS_CONTAINER_AUTHORIZATION_TOKEN");
    if (!file) return CREDS_OK;
    int rc = readall_path(file, token);
    if (rc == BUF_ERR_NOMEM) return CREDS_ERR_NOMEM;
    if (rc)
        return buf_fail(ch->err, CREDS_ERR_FETCH, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE %s: %s",
                        file, rc == BUF_ERR_CAP ? "too large" : strerror(rc));
    while (token->len && strchr(" \t\r\n", token->data[token->len - 1]))
        buf_truncate(token, token->len - 1);
    *out = buf_str(token);
    return CREDS_OK;
}

static int creds_metadata_rc(int rc) {
    switch (rc) {
    case METADATA_OK:
        return CREDS_OK;
    case METADATA_ERR_NOMEM:
        return CREDS_ERR_NOMEM;
    case METADATA_ERR_INPUT:
        return CREDS_ERR_INVALID;
    default:
        return CREDS_ERR_FETCH;
    }
}

static int creds_http_timeout(const struct creds_chain *ch) {
    return ch->o->http_timeout_ms ? ch->o->http_timeout_ms : CREDS_HTTP_TIMEOUT_MS;
}

static int creds_from_container(struct creds_chain *ch) {
    const char *relative = creds_env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
    const char *full = creds_env("AWS_CONTAINER_CREDENTIALS_FULL_URI"), *token = NULL;
    struct buf url, tok, json;
    if (!relative && !full)
        return creds_tried(ch, "container endpoint (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI "
                               "and _FULL_URI not set)");
    buf_init(&url, BUF_NO_CAP);
    buf_init(&tok, CREDS_MAX_TOKEN_FILE);
    buf_init(&json, CREDS_MAX_JSON);
    int rc = creds_metadata_rc(metadata_container_url(relative, full, &url, ch->err));
    if (!rc) rc = creds_container_token(ch, &tok, &token);
    if (!rc)
        rc = creds_metadata_rc(
            metadata_container_fetch(buf_str(&url), token, creds_http_timeout(ch), &json, ch->err));
    if (!rc) {
        creds_source(ch->out, "container endpoint %s", buf_str(&url));
        rc = creds_parse_json(buf_str(&json), json.len, false, ch->now, ch->out->source, ch->out,
                              ch->err);
    }
    buf_free(&url);
    buf_free_secret(&tok);
    buf_free_secret(&json);
    return rc;
}

static int creds_from_imds(struct creds_chain *ch) {
    const char *off = creds_env("AWS_EC2_METADATA_DISABLED");
    const char *v1_off = creds_env("AWS_EC2_METADATA_V1_DISABLED");
    const char *base = creds_env("AWS_EC2_METADATA_SERVICE_ENDPOINT");
    const char *mode = creds_env("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE");
    struct buf json, why;
    if (off && strcasecmp(off, "true") == 0)
        return creds_tried(ch, "instance metadata (disabled by AWS_EC2_METADATA_DISABLED)");
    if (!base)
        base = mode && strcasecmp(mode, "IPv6") == 0 ? METADATA_IMDS_BASE_IPV6 : METADATA_IMDS_BASE;
    buf_init(&json, CREDS_MAX_JSON);
    buf_init(&why, BUF_NO_CAP);
    int rc = metadata_imds_fetch(base, v1_off && strcasecmp(v1_off, "true") == 0,
                                 creds_http_timeout(ch), &json, &why);
    if (!rc) {
        creds_source(ch->out, "instance metadata %s", base);
        rc = creds_parse_json(buf_str(&json), json.len, false, ch->now, ch->out->source, ch->out,
                              ch->err);
    } else if (rc == METADATA_ERR_NOMEM) {
        rc = CREDS_ERR_NOMEM;
    } else if (rc == METADATA_ERR_INPUT) {
        rc = buf_fail(ch->err, CREDS_ERR_INVALID, "AWS_EC2_METADATA_SERVICE_ENDPOINT: %s",
                      buf_str(&why));
    } else {
        rc = creds_tried(ch, "instance metadata (%s)", buf_str(&why));
    }
    buf_free_secret(&json);
    buf_free(&why);
    return rc;
}

static int creds_profile_tried(struct creds_chain *ch) {
    int rc = creds_from_profile(ch);
    if (rc != CREDS_ERR_NOT_FOUND) return rc;
    rc = creds_from_process(ch);
    if (rc != CREDS_ERR_NOT_FOUND) return rc;
    return creds_tried(ch, "profile '%s' in %s and %s", ch->profiles.name,
                       buf_str(&ch->profiles.cred_path), buf_str(&ch->profiles.config_path));
}

int creds_resolve(const struct creds_options *o, time_t now, struct creds *out, struct buf *err) {
    static creds_source_fn *const sources[] = {creds_from_env, creds_profile_tried,
                                               creds_from_container, creds_from_imds};
    struct creds_chain ch = {.o = o, .now = now, .out = out, .err = err};
    buf_init(&ch.tried, BUF_NO_CAP);
    buf_reset(err);
    creds_profiles_init(&ch.profiles, o);
    int rc = CREDS_ERR_NOT_FOUND;
    for (size_t i = 0; rc == CREDS_ERR_NOT_FOUND && i < sizeof sources / sizeof *sources; i++)
        rc = sources[i](&ch);
    if (rc == CREDS_ERR_NOT_FOUND)
        rc = buf_fail(err, rc, "no AWS credentials: tried %s", buf_str(&ch.tried));
    if (rc == CREDS_OK && (scrub_add(out->secret_access_key) || scrub_add(out->session_token)))
        rc = CREDS_ERR_NOMEM; /* what is not registered could not be kept out of messages */
    if (rc == CREDS_ERR_NOMEM) rc = buf_fail(err, rc, "out of memory");
    if (rc) creds_clear(out);
    creds_profiles_free(&ch.profiles);
    buf_free(&ch.tried);
    return rc;
}

struct creds_cache {
    pthread_mutex_t lock; /* guards everything below */
    pthread_cond_t refreshed;
    struct creds_options o;
    char *profile; /* o.profile's copy */
    struct creds cur;
    bool have;         /* cur holds credentials */
    bool refreshing;   /* a thread is walking the chain */
    unsigned long gen; /* refreshes finished */
    bool failed;       /* the last refresh failed, at failed_at, with last_rc and last_err */
    time_t failed_at;
    int last_rc;
    struct buf last_err;
};

struct creds_cache *creds_cache_new(const struct creds_options *o) {
    struct creds_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->o = *o;
    if (o->profile && !(c->profile = strdup(o->profile))) goto fail;
    c->o.profile = c->profile;
    buf_init(&c->last_err, BUF_NO_CAP);
    if (pthread_mutex_init(&c->lock, NULL)) goto fail;
    if (pthread_cond_init(&c->refreshed, NULL)) {
        pthread_mutex_destroy(&c->lock);
        goto fail;
    }
    return c;
fail:
    free(c->profile);
    free(c);
    return NULL;
}

void creds_cache_free(struct creds_cache *c) {
    if (!c) return;
    pthread_cond_destroy(&c->refreshed);
    pthread_mutex_destroy(&c->lock);
    creds_clear(&c->cur);
    buf_free(&c->last_err);
    free(c->profile);
    free(c);
}

static bool creds_valid(const struct creds_cache *c, time_t now) {
    return c->have && (!c->cur.expiration || now < c->cur.expiration);
}

/* Whether a caller may take the current credentials without refreshing them. */
static bool creds_usable(const struct creds_cache *c, time_t now) {
    if (!creds_valid(c, now)) return false;
    return !c->cur.expiration || now < c->cur.expiration - CREDS_REFRESH_AHEAD || c->refreshing ||
           (c->failed && now < c->failed_at + CREDS_RETRY_AFTER);
}

/* Walks the chain with the lock released and stores the result. Called locked. */
static void creds_cache_refresh(struct creds_cache *c, time_t now) {
    struct creds fresh = {0};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    c->refreshing = true;
    pthread_mutex_unlock(&c->lock);
    int rc = creds_resolve(&c->o, now, &fresh, &err);
    pthread_mutex_lock(&c->lock);
    c->refreshing = false;
    c->gen++;
    c->failed = rc != CREDS_OK;
    c->failed_at = now;
    c->last_rc = rc;
    buf_free(&c->last_err);
    c->last_err = err;
    if (!rc) {
        creds_clear(&c->cur);
        c->cur = fresh;
        c->have = true;
    }
    pthread_cond_broadcast(&c->refreshed);
}

int creds_cache_get(struct creds_cache *c, time_t now, struct creds *out, struct buf *err) {
    int rc;
    pthread_mutex_lock(&c->lock);
    while (!creds_usable(c, now)) {
        if (!c->refreshing) {
            creds_cache_refresh(c, now);
            break;
        }
        unsigned long gen = c->gen;
        while (c->gen == gen) pthread_cond_wait(&c->refreshed, &c->lock);
        if (c->failed) break;
    }
    if (!creds_valid(c, now)) {
        rc = buf_fail(err, c->last_rc, "%s", buf_str(&c->last_err));
    } else if ((rc = creds_copy(out, &c->cur))) {
        rc = buf_fail(err, rc, "out of memory");
    } else if (c->failed) {
        rc = buf_fail(err, CREDS_OK, "%s", buf_str(&c->last_err));
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

bool creds_name_ok(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n > 63) return false;
    for (; *name; name++)
        if (!((*name >= 'a' && *name <= 'z') || (*name >= '0' && *name <= '9') || *name == '-'))
            return false;
    return true;
}

int creds_region(const struct creds_options *o, struct buf *region, struct buf *err) {
    struct creds_profiles p;
    const char *path = NULL, *from = "AWS_REGION", *v = creds_env(from);
    int rc = CREDS_OK;
    creds_profiles_init(&p, o);
    if (!v) v = creds_env(from = "AWS_DEFAULT_REGION");
    if (!v) {
        rc = creds_profiles_load(&p, o, err);
        v = rc ? NULL : creds_setting(&p, "region", &path);
        from = path;
    }
    if (rc) goto done;
    if (!v)
        rc = buf_fail(err, CREDS_ERR_NOT_FOUND,
                      "no AWS region: AWS_REGION and AWS_DEFAULT_REGION are not set and profile "
                      "'%s' has no region in %s or %s",
                      p.name, buf_str(&p.cred_path), buf_str(&p.config_path));
    else if (!creds_name_ok(v))
        rc = buf_fail(err, CREDS_ERR_INVALID, "%s: '%s' is not a region name such as us-east-1",
                      from, v);
    else if (buf_reset(region), buf_adds(region, v))
        rc = CREDS_ERR_NOMEM;
done:
    creds_profiles_free(&p);
    return rc;
}
