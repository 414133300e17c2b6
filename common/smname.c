#include "smname.h"

#include <string.h>

static bool smname_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool smname_endpoint_ok(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!smname_alnum(s[i]) && (s[i] != '-' || i == 0 || i + 1 == n)) return false;
    return n > 0 && n <= SMNAME_MAX;
}

bool smname_label_ok(const char *s, size_t n) {
    if (n == 0 || n > SMNAME_LABEL_MAX || s[0] == '.') return false;
    for (size_t i = 0; i < n; i++)
        if (!smname_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.') return false;
    return true;
}

static char smname_lower(char c) {
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether s[0..n) starts with prefix, case aside; then *rest is what follows. */
static bool smname_skip(const char *s, size_t n, const char *prefix, size_t *at) {
    size_t k = strlen(prefix);
    if (n - *at < k) return false;
    for (size_t i = 0; i < k; i++)
        if (smname_lower(s[*at + i]) != prefix[i]) return false;
    *at += k;
    return true;
}

bool smname_region_of_host(const char *host, size_t n, char out[64]) {
    static const char *const heads[] = {"runtime.sagemaker.", "runtime-fips.sagemaker."};
    static const char *const tails[] = {".amazonaws.com", ".amazonaws.com.cn"};
    for (size_t h = 0; h < 2; h++) {
        size_t at = 0;
        if (!smname_skip(host, n, heads[h], &at)) continue;
        size_t start = at;
        while (at < n && (smname_alnum(host[at]) || host[at] == '-')) at++;
        size_t len = at - start;
        if (len == 0 || len >= 64) return false;
        for (size_t t = 0; t < 2; t++) {
            size_t end = at;
            if (smname_skip(host, n, tails[t], &end) && end == n && (t == 0 || h == 0)) {
                for (size_t i = 0; i < len; i++) out[i] = smname_lower(host[start + i]);
                out[len] = '\0';
                return true;
            }
        }
        return false;
    }
    return false;
}
