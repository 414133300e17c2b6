#include "awserr.h"

#include <string.h>

#include <cjson/cJSON.h>

/* Copies n bytes of s into dst (size bytes), one line, cut with "..." when
 * longer (before a UTF-8 continuation byte, so no character is split). */
static void awserr_copy(char *dst, size_t size, const char *s, size_t n) {
    size_t keep = n < size ? n : size - 4;
    while (keep < n && keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80) keep--;
    for (size_t i = 0; i < keep; i++)
        dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i];
    if (keep < n) {
        memcpy(dst + keep, "...", 3);
        keep += 3;
    }
    dst[keep] = '\0';
}

static const char *awserr_string(const cJSON *o, const char *a, const char *b) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (!cJSON_IsString(v)) v = cJSON_GetObjectItemCaseSensitive(o, b);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

void awserr_parse(const char *error_type, const char *body, size_t body_len, struct awserr *out) {
    out->code[0] = out->message[0] = '\0';
    cJSON *root = body && body_len ? cJSON_ParseWithLength(body, body_len) : NULL;
    const char *code = error_type && *error_type ? error_type : NULL;
    if (!code && cJSON_IsObject(root)) {
        code = awserr_string(root, "__type", "code");
        const char *hash = code ? strchr(code, '#') : NULL;
        if (hash) code = hash + 1;
    }
    if (code) awserr_copy(out->code, sizeof out->code, code, strcspn(code, ":"));
    const char *msg = cJSON_IsObject(root) ? awserr_string(root, "message", "Message") : NULL;
    if (msg) awserr_copy(out->message, sizeof out->message, msg, strlen(msg));
    cJSON_Delete(root);
}
