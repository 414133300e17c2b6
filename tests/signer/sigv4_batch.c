/* Signs requests read as JSON lines from stdin and prints, for each, a JSON
 * line {"creq": ..., "sts": ..., "signature": ...}: the C side of the
 * differential test against botocore (botocore_diff.py).
 * Input fields: method, target, headers ([[name, value], ...]), body_b64,
 * akid, secret, token (optional), region, service, amz_date. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "sigv4.h"

#define MAX_HEADERS 64

static const char *str(const cJSON *o, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Decodes base64 into out (the caller frees it); returns the length or -1. */
static long decode_b64(const char *in, unsigned char **out) {
    size_t n = strlen(in);
    *out = malloc(n / 4 * 3 + 1);
    int len = *out ? EVP_DecodeBlock(*out, (const unsigned char *)in, (int)n) : -1;
    if (len < 0) return -1;
    for (size_t i = n; i > 0 && in[i - 1] == '='; i--) len--;
    return len;
}

static int sign_line(struct sigv4_signer *s, const char *line, struct sigv4_result *r) {
    cJSON *o = cJSON_Parse(line);
    const cJSON *hs = cJSON_GetObjectItemCaseSensitive(o, "headers");
    struct sigv4_header headers[MAX_HEADERS];
    size_t n = 0;
    const cJSON *h;
    cJSON_ArrayForEach(h, hs) {
        const char *name = cJSON_GetArrayItem(h, 0)->valuestring;
        const char *value = cJSON_GetArrayItem(h, 1)->valuestring;
        if (n < MAX_HEADERS)
            headers[n++] = (struct sigv4_header){name, strlen(name), value, strlen(value)};
    }
    unsigned char *body = NULL;
    long body_len = decode_b64(str(o, "body_b64"), &body);
    const char *target = str(o, "target");
    struct sigv4_request req = {str(o, "method"),
                                target,
                                strlen(target),
                                headers,
                                n,
                                body,
                                body_len < 0 ? 0 : (size_t)body_len,
                                NULL};
    struct sigv4_credentials c = {str(o, "akid"), str(o, "secret"), str(o, "token")};
    struct sigv4_params p = {str(o, "region"), str(o, "service"), str(o, "amz_date"), false, false};
    int rc = body_len < 0 ? SIGV4_ERR_INPUT : sigv4_sign(s, &req, &c, &p, r);
    free(body);
    cJSON_Delete(o);
    return rc;
}

int main(void) {
    struct sigv4_signer *s = sigv4_signer_new();
    struct sigv4_result r;
    sigv4_result_init(&r);
    char *line = NULL;
    size_t cap = 0;
    int status = 0;
    while (getline(&line, &cap, stdin) > 0) {
        int rc = sign_line(s, line, &r);
        cJSON *out = cJSON_CreateObject();
        cJSON_AddStringToObject(out, "creq", rc ? "" : buf_str(&r.canonical_request));
        cJSON_AddStringToObject(out, "sts", rc ? "" : buf_str(&r.string_to_sign));
        cJSON_AddStringToObject(out, "signature", rc ? "" : r.signature);
        cJSON_AddNumberToObject(out, "rc", rc);
        char *text = cJSON_PrintUnformatted(out);
        puts(text);
        free(text);
        cJSON_Delete(out);
        status |= rc != 0;
    }
    free(line);
    sigv4_result_free(&r);
    sigv4_signer_free(s);
    return status;
}
