/* Fuzzes the credentials JSON readers on the same bytes: a credential_process's
 * output (versioned) and a container endpoint's or instance metadata's reply.
 * Accepted credentials must be complete and unexpired; an error must be one
 * line that starts with the source and never depends on the secret key. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "creds.h"

#define FUZZ_NOW 1790000000 /* 2026-09-21T14:13:20Z */

/* The error for doc with its secret key set to secret (empty on success). */
static void fuzz_error_with(cJSON *doc, const char *secret, bool versioned, struct buf *err) {
    struct creds c = {0};
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "SecretAccessKey", cJSON_CreateString(secret));
    char *json = cJSON_PrintUnformatted(doc);
    if (!json || creds_parse_json(json, strlen(json), versioned, FUZZ_NOW, "fuzz", &c, err) ==
                     CREDS_ERR_NOMEM)
        abort();
    creds_clear(&c);
    cJSON_free(json);
}

/* Aborts when the error depends on the secret key, which it must never show. */
static void fuzz_secret_unseen(cJSON *doc, bool versioned) {
    struct buf a, b;
    buf_init(&a, BUF_NO_CAP);
    buf_init(&b, BUF_NO_CAP);
    fuzz_error_with(doc, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", versioned, &a);
    fuzz_error_with(doc, "another secret", versioned, &b);
    if (strcmp(buf_str(&a), buf_str(&b)) != 0) abort();
    buf_free(&a);
    buf_free(&b);
}

/* Accepted credentials: complete, and unexpired when the reply says when they expire. */
static bool fuzz_creds_ok(const struct creds *c, const cJSON *doc) {
    bool expires = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "Expiration"));
    return c->access_key_id && *c->access_key_id && c->secret_access_key && *c->secret_access_key &&
           (expires ? c->expiration > FUZZ_NOW : !c->expiration);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
    for (int versioned = 0; versioned < 2; versioned++) {
        struct creds c = {0};
        struct buf err;
        buf_init(&err, BUF_NO_CAP);
        int rc = creds_parse_json((const char *)data, size, versioned, FUZZ_NOW, "fuzz", &c, &err);
        if (rc == CREDS_OK && (!fuzz_creds_ok(&c, doc) || err.len)) abort();
        if (rc != CREDS_OK &&
            (rc != CREDS_ERR_INVALID || strncmp(buf_str(&err), "fuzz: ", 6) != 0 ||
             strchr(buf_str(&err), '\n')))
            abort();
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "SecretAccessKey")))
            fuzz_secret_unseen(doc, versioned);
        creds_clear(&c);
        buf_free(&err);
    }
    cJSON_Delete(doc);
    return 0;
}
