/* Fuzzes the emulator's front door of the new routes: the request paths
 * (rtpath), the bearer token check of the OpenAI route (auth_bearer) and the
 * OpenAI error envelope (smerr_openai). Input: a request target, a newline, an
 * Authorization value.
 *
 * A path read as a route spells itself again from its parts (api, endpoint,
 * component), its spans lie inside the target and hold no '/'. A bearer value
 * is accepted exactly when it is "Bearer" (any case), spaces, and one of the
 * tokens given. The envelope of any message and type is JSON with the error's
 * four members. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "auth.h"
#include "rtpath.h"
#include "smerr.h"

static const char *const fuzz_tokens[] = {"tok", "sagemaker-api-key-QUJD"};

static bool fuzz_inside(const char *p, size_t n, const char *d, size_t len) {
    return p >= d && n <= len && (size_t)(p - d) <= len - n;
}

static void fuzz_check_path(const char *t, size_t len) {
    struct rtpath p;
    bool ok = rtpath_parse(t, len, &p);
    if (ok != (p.api != RTPATH_NONE)) abort();
    if (!ok) return;
    if (!p.name_len || !fuzz_inside(p.name, p.name_len, t, len) || memchr(p.name, '/', p.name_len))
        abort();
    if (p.component && (p.api != RTPATH_OPENAI || !p.component_len ||
                        !fuzz_inside(p.component, p.component_len, t, len) ||
                        memchr(p.component, '/', p.component_len)))
        abort();
    struct buf again; /* spelled from the parts, bytes as they are (a NUL too) */
    buf_init(&again, BUF_NO_CAP);
    bool bad = buf_adds(&again, "/endpoints/") || buf_add(&again, p.name, p.name_len);
    if (p.component)
        bad = bad || buf_adds(&again, "/inference-components/") ||
              buf_add(&again, p.component, p.component_len);
    bad = bad || buf_adds(&again, p.api == RTPATH_INVOKE   ? "/invocations"
                                  : p.api == RTPATH_STREAM ? "/invocations-response-stream"
                                                           : "/openai/v1/chat/completions");
    const char *q = memchr(t, '?', len);
    size_t n = q ? (size_t)(q - t) : len;
    if (bad || again.len != n || memcmp(again.data, t, n) != 0) abort();
    buf_free(&again);
    if (!rtpath_name(p.api)) abort();
}

/* What auth_bearer must say of value, worked out apart from it. */
static bool fuzz_bearer_ok(const char *v, size_t n) {
    if (n < 7 || strncasecmp(v, "bearer ", 7) != 0) return false;
    size_t i = 7;
    while (i < n && v[i] == ' ') i++;
    for (size_t t = 0; t < sizeof fuzz_tokens / sizeof *fuzz_tokens; t++)
        if (n - i == strlen(fuzz_tokens[t]) && memcmp(v + i, fuzz_tokens[t], n - i) == 0)
            return true;
    return false;
}

static void fuzz_check_envelope(const char *msg, size_t n, int status) {
    char *text = malloc(n + 1), *type = malloc(n + 1);
    struct buf out;
    if (!text || !type) abort();
    memcpy(text, msg, n);
    text[n] = '\0';
    size_t k = 0;
    for (size_t i = 0; i < n && k < 40; i++)
        if (isalpha((unsigned char)msg[i])) type[k++] = msg[i];
    type[k] = '\0';
    buf_init(&out, BUF_NO_CAP);
    if (smerr_openai(&out, status, k ? type : NULL, NULL, text)) abort();
    cJSON *j = cJSON_Parse(buf_str(&out));
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "message")) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "type")) ||
        !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "param")) ||
        (k ? !cJSON_IsString(code) : !cJSON_IsNull(code)))
        abort();
    cJSON_Delete(j);
    buf_free(&out);
    free(text);
    free(type);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static struct auth keys;
    static bool ready;
    struct buf err;
    buf_init(&err, 1024);
    if (!ready) {
        if (auth_init(&keys, "us-east-1")) abort();
        for (size_t t = 0; t < sizeof fuzz_tokens / sizeof *fuzz_tokens; t++)
            if (auth_add_bearer(&keys, fuzz_tokens[t], &err)) abort();
        ready = true;
    }
    const char *d = (const char *)data;
    const char *nl = memchr(d, '\n', size);
    size_t tlen = nl ? (size_t)(nl - d) : size;
    char *target = malloc(tlen ? tlen : 1); /* exactly its size: an over-read is caught */
    if (!target) abort();
    if (tlen) memcpy(target, d, tlen);
    fuzz_check_path(target, tlen);
    free(target);
    const char *v = nl ? nl + 1 : d + size;
    size_t vlen = nl ? size - tlen - 1 : 0;
    buf_reset(&err);
    int rc = auth_bearer(&keys, v, vlen, &err);
    if ((rc == AUTH_OK) != fuzz_bearer_ok(v, vlen) || (rc && rc != AUTH_ERR_BEARER)) abort();
    if (rc && memchr(buf_str(&err), '\n', err.len)) abort();
    fuzz_check_envelope(v, vlen, size ? 400 + data[0] % 200 : 400);
    buf_free(&err);
    return 0;
}
