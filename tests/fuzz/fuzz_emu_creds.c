/* Fuzzes the emulator's key readers. Input: a --credential text on the first
 * line, then a --credentials-file. A key accepted holds exactly what was
 * given (id, secret, token, expiry); a refusal is one line that names the
 * option, and the same with another secret (the message never depends on it). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "auth.h"
#include "emucheck.h"
#include "tmpdir.h"

#define FUZZ_NOW 1440938160 /* 20150830T123600Z */

/* Adds text as --credential to a fresh set of keys; err gets the refusal. */
static int fuzz_add_text(const char *text, struct auth *a, struct buf *err) {
    if (auth_init(a, "us-east-1")) abort();
    return auth_add_text(a, text, FUZZ_NOW, err);
}

/* The text with its secret (after the first ':', up to ':' or '@') replaced. */
static char *fuzz_other_secret(const char *text) {
    const char *colon = strchr(text, ':'), *at = strchr(text, '@');
    if (!colon || (at && at < colon)) return NULL;
    size_t start = (size_t)(colon + 1 - text), len = strcspn(colon + 1, ":@");
    if (len == 0) return NULL;
    char *other = malloc(strlen(text) + 16);
    if (!other) abort();
    memcpy(other, text, start);
    strcpy(other + start, "another-secret");
    strcat(other, text + start + len);
    return other;
}

static void fuzz_check_text(const char *text) {
    struct auth a, b;
    struct buf err, err_b;
    buf_init(&err, 4096);
    buf_init(&err_b, 4096);
    if (fuzz_add_text(text, &a, &err) == 0) {
        const struct auth_key *k = &a.keys[0];
        size_t n = strlen(k->access_key_id);
        if (a.n_keys != 1 || !n || !*k->secret_access_key ||
            strncmp(text, k->access_key_id, n) != 0 || text[n] != ':' ||
            strncmp(text + n + 1, k->secret_access_key, strlen(k->secret_access_key)) != 0 ||
            (k->session_token && !*k->session_token) || (!strchr(text, '@') && k->expiration))
            abort();
    } else {
        emucheck_one_line(&err);
        if (strncmp(buf_str(&err), "--credential: ", 14) != 0) abort();
        char *other = fuzz_other_secret(text);
        if (other &&
            (fuzz_add_text(other, &b, &err_b) == 0 || strcmp(buf_str(&err), buf_str(&err_b)) != 0))
            abort();
        if (other) auth_free(&b);
        free(other);
    }
    auth_free(&a);
    buf_free(&err);
    buf_free(&err_b);
}

static const char *fuzz_str(const cJSON *o, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) && *v->valuestring ? v->valuestring : NULL;
}

static const cJSON *fuzz_list(const cJSON *root) {
    return cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "credentials");
}

/* The keys read hold the entries' strings, in order. */
static void fuzz_check_keys(const struct auth *a, const cJSON *root) {
    const cJSON *e;
    size_t i = 0;
    cJSON_ArrayForEach(e, fuzz_list(root)) {
        if (i == a->n_keys) abort();
        const struct auth_key *k = &a->keys[i++];
        const char *token = fuzz_str(e, "session_token");
        const cJSON *exp = cJSON_GetObjectItemCaseSensitive(e, "expiration");
        if (strcmp(k->access_key_id, fuzz_str(e, "access_key_id")) != 0 ||
            strcmp(k->secret_access_key, fuzz_str(e, "secret_access_key")) != 0 ||
            (token ? !k->session_token || strcmp(token, k->session_token) != 0
                   : k->session_token != NULL) ||
            (cJSON_IsNumber(exp) && k->expiration != (time_t)exp->valuedouble) ||
            (!exp && k->expiration))
            abort();
    }
    if (i != a->n_keys) abort();
}

/* Replaces every secret and token of the file by another non-empty one. */
static char *fuzz_other_secrets(cJSON *root) {
    static const char *const names[] = {"secret_access_key", "session_token"};
    cJSON *e;
    cJSON_ArrayForEach(e, (cJSON *)fuzz_list(root)) {
        for (size_t i = 0; i < 2; i++)
            if (fuzz_str(e, names[i]))
                cJSON_ReplaceItemInObjectCaseSensitive(e, names[i],
                                                       cJSON_CreateString("another-secret"));
    }
    return cJSON_PrintUnformatted(root);
}

static int fuzz_add_file(const char *text, size_t len, struct auth *a, struct buf *err) {
    const char *path = tmpdir_write("credentials.json", (const uint8_t *)text, len);
    if (auth_init(a, "us-east-1")) abort();
    int rc = auth_add_file(a, path, FUZZ_NOW, err);
    if (rc) {
        emucheck_one_line(err);
        if (strncmp(buf_str(err), "--credentials-file ", 19) != 0) abort();
    }
    return rc;
}

static void fuzz_check_file(const char *text, size_t len) {
    struct auth a, b;
    struct buf err, err_b;
    buf_init(&err, 4096);
    buf_init(&err_b, 4096);
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (fuzz_add_file(text, len, &a, &err) == 0) {
        fuzz_check_keys(&a, root);
    } else if (root) {
        char *other = fuzz_other_secrets(root);
        if (!other || fuzz_add_file(other, strlen(other), &b, &err_b) == 0 ||
            strcmp(buf_str(&err), buf_str(&err_b)) != 0)
            abort();
        auth_free(&b);
        cJSON_free(other);
    }
    cJSON_Delete(root);
    auth_free(&a);
    buf_free(&err);
    buf_free(&err_b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *nl = memchr(data, '\n', size);
    size_t first = nl ? (size_t)(nl - data) : size;
    char *text = strndup((const char *)data, first);
    if (!text) abort();
    fuzz_check_text(text);
    free(text);
    if (nl) fuzz_check_file((const char *)nl + 1, size - first - 1);
    return 0;
}
