/* Fuzzes the signer's canonicalisation (path, query, headers) and its
 * parsers of outside input (Authorization header, X-Amz-Date).
 * Input: lines "METHOD TARGET", then "Name:value" headers, an empty line,
 * the body. The same bytes also go to the two parsers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sigv4.h"

#define FUZZ_MAX_HEADERS 40

static struct sigv4_signer *fuzz_signer;

static size_t next_line(const char *p, size_t n, size_t *line_len) {
    const char *nl = memchr(p, '\n', n);
    *line_len = nl ? (size_t)(nl - p) : n;
    return nl ? *line_len + 1 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *p = (const char *)data;
    struct sigv4_authorization auth;
    time_t t;
    char *copy = malloc(size + 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    (void)sigv4_parse_authorization(copy, size, &auth);
    (void)sigv4_parse_date(copy, &t);

    size_t len, used = next_line(p, size, &len);
    const char *sp = memchr(p, ' ', len);
    char method[32] = "POST";
    if (sp && (size_t)(sp - p) < sizeof method) {
        memcpy(method, p, (size_t)(sp - p));
        method[sp - p] = '\0';
    }
    const char *target = sp ? sp + 1 : p;
    size_t target_len = sp ? len - (size_t)(sp - p) - 1 : len;
    struct sigv4_header hs[FUZZ_MAX_HEADERS + 1] = {{"Host", 4, "example.com", 11}};
    size_t n = 1;
    while (used < size && n <= FUZZ_MAX_HEADERS) {
        const char *line = p + used;
        used += next_line(line, size - used, &len);
        if (len == 0) break;
        const char *colon = memchr(line, ':', len);
        if (colon)
            hs[n++] = (struct sigv4_header){line, (size_t)(colon - line), colon + 1,
                                            len - (size_t)(colon - line) - 1};
    }
    struct sigv4_request req = {method, target, target_len, hs, n, p + used, size - used, NULL};
    struct sigv4_credentials c = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                  size % 2 ? "token" : NULL};
    struct sigv4_params params = {"us-east-1", "sagemaker", "20150830T123600Z", size % 3 == 0,
                                  size % 5 == 0};
    if (!fuzz_signer) fuzz_signer = sigv4_signer_new();
    struct sigv4_result r;
    sigv4_result_init(&r);
    if (sigv4_sign(fuzz_signer, &req, &c, &params, &r) == SIGV4_OK &&
        (strlen(r.signature) != SIGV4_HEX_LEN || !strstr(buf_str(&r.canonical_request), "host:")))
        abort();
    sigv4_result_free(&r);
    free(copy);
    return 0;
}
