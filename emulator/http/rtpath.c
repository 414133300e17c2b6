#include "rtpath.h"

#include <string.h>

#define RTPATH_PREFIX        "/endpoints/"
#define RTPATH_IC            "/inference-components/"
#define RTPATH_OPENAI_SUFFIX "/openai/v1/chat/completions"

/* Whether s[0..n) ends with the C string suffix; *rest: the length before it. */
static bool rtpath_ends(const char *s, size_t n, const char *suffix, size_t *rest) {
    size_t k = strlen(suffix);
    if (n < k || memcmp(s + n - k, suffix, k) != 0) return false;
    *rest = n - k;
    return true;
}

/* A path segment: not empty, no '/'. */
static bool rtpath_segment(const char *s, size_t n) {
    return n > 0 && !memchr(s, '/', n);
}

/* The OpenAI paths, after the prefix: NAME/openai/... or NAME/inference-components/IC/openai/... */
static bool rtpath_openai(const char *s, size_t n, struct rtpath *p) {
    size_t rest;
    if (!rtpath_ends(s, n, RTPATH_OPENAI_SUFFIX, &rest)) return false;
    const char *slash = memchr(s, '/', rest);
    size_t ic = strlen(RTPATH_IC);
    if (!slash) {
        *p = (struct rtpath){RTPATH_OPENAI, s, rest, NULL, 0};
        return rtpath_segment(s, rest);
    }
    size_t name_len = (size_t)(slash - s);
    if (rest - name_len <= ic || memcmp(slash, RTPATH_IC, ic) != 0) return false;
    *p = (struct rtpath){RTPATH_OPENAI, s, name_len, slash + ic, rest - name_len - ic};
    return rtpath_segment(s, name_len) && rtpath_segment(p->component, p->component_len);
}

bool rtpath_parse(const char *target, size_t len, struct rtpath *p) {
    size_t pre = strlen(RTPATH_PREFIX), rest;
    const char *q = memchr(target, '?', len);
    if (q) len = (size_t)(q - target);
    *p = (struct rtpath){RTPATH_NONE, NULL, 0, NULL, 0};
    if (len <= pre || memcmp(target, RTPATH_PREFIX, pre) != 0) return false;
    const char *s = target + pre;
    size_t n = len - pre;
    bool ok = false;
    if (rtpath_ends(s, n, "/invocations", &rest)) {
        *p = (struct rtpath){RTPATH_INVOKE, s, rest, NULL, 0};
        ok = rtpath_segment(s, rest);
    } else if (rtpath_ends(s, n, "/invocations-response-stream", &rest)) {
        *p = (struct rtpath){RTPATH_STREAM, s, rest, NULL, 0};
        ok = rtpath_segment(s, rest);
    } else {
        ok = rtpath_openai(s, n, p);
    }
    if (!ok) *p = (struct rtpath){RTPATH_NONE, NULL, 0, NULL, 0};
    return ok;
}

const char *rtpath_name(enum rtpath_api api) {
    static const char *const names[] = {NULL, "invoke", "stream", "openai"};
    return api >= RTPATH_NONE && api <= RTPATH_OPENAI ? names[api] : NULL;
}
