#define PCRE2_CODE_UNIT_WIDTH 8
#include "quiz.h"

#include <stdint.h>
#include <stdlib.h>

#include <pcre2.h>

#include "utf8.h"

struct quiz_re {
    pcre2_code *code;
    pcre2_match_context *mctx; /* the match and depth limits */
};

int quiz_re_compile(const char *pattern, size_t len, struct quiz_re **out, struct buf *err) {
    int errcode;
    PCRE2_SIZE erroff;
    struct quiz_re *re = malloc(sizeof *re);
    if (!re) return QUIZ_ERR_NOMEM;
    re->code =
        pcre2_compile((PCRE2_SPTR)pattern, len, PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF,
                      &errcode, &erroff, NULL);
    if (!re->code) {
        free(re);
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(errcode, msg, sizeof msg) < 0) msg[0] = '\0';
        buf_reset(err);
        (void)!buf_addf(err, "offset %zu: %s", (size_t)erroff, (const char *)msg);
        return errcode == PCRE2_ERROR_NOMEMORY ? QUIZ_ERR_NOMEM : QUIZ_ERR_PATTERN;
    }
    if (!(re->mctx = pcre2_match_context_create(NULL))) {
        pcre2_code_free(re->code);
        free(re);
        return QUIZ_ERR_NOMEM;
    }
    (void)pcre2_set_match_limit(re->mctx, QUIZ_MATCH_LIMIT);
    (void)pcre2_set_depth_limit(re->mctx, QUIZ_DEPTH_LIMIT);
    *out = re;
    return QUIZ_OK;
}

void quiz_re_free(struct quiz_re *re) {
    if (!re) return;
    pcre2_code_free(re->code);
    pcre2_match_context_free(re->mctx);
    free(re);
}

int quiz_re_search(const struct quiz_re *re, const char *s, size_t len, bool *found) {
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, NULL);
    if (!md) return QUIZ_ERR_NOMEM;
    int rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, md, re->mctx);
    pcre2_match_data_free(md);
    if (rc == PCRE2_ERROR_NOMATCH) {
        *found = false;
        return QUIZ_OK;
    }
    if (rc < 0) return QUIZ_ERR_MATCH;
    *found = true;
    return QUIZ_OK;
}

/* Python's str.isspace(): the code points of bidirectional class WS, B or S, or Zs. */
static bool quiz_space(uint32_t c) {
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
           c == 0x202f || c == 0x205f || c == 0x3000;
}

void quiz_strip(const char *s, size_t len, size_t *off, size_t *n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t start = 0, end = len, k;
    uint32_t c;
    while (start < end && (k = utf8_decode(u + start, end - start, &c)) && quiz_space(c))
        start += k;
    while (end > start) {
        size_t back = 1;
        while (back < 4 && back < end - start && (u[end - back] & 0xc0) == 0x80) back++;
        if (utf8_decode(u + end - back, back, &c) != back || !quiz_space(c)) break;
        end -= back;
    }
    *off = start;
    *n = end - start;
}

size_t quiz_cut(const char *s, size_t len) {
    if (len <= QUIZ_SCORED_MAX) return len;
    size_t keep = QUIZ_SCORED_MAX;
    while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80) keep--;
    return keep;
}

int quiz_score(const struct quiz_re *re, const char *s, size_t len, size_t *off, size_t *n,
               bool *found) {
    *found = false;
    quiz_strip(s, quiz_cut(s, len), off, n);
    return quiz_re_search(re, s + *off, *n, found);
}
