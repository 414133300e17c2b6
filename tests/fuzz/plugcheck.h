/* plugcheck: the input framing and the invariants the plugin's fuzz targets share. */
#ifndef SM_FUZZ_PLUGCHECK_H
#define SM_FUZZ_PLUGCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quizfile.h"
#include "reply.h"

/* What came back for a request, framed as "STATUS[ ERROR-TYPE]\nBODY" (STATUS:
 * one to three digits); any other input is a 200 whose body is all of it. */
struct plugcheck_input {
    int status;
    char *error_type; /* malloc'ed x-amzn-ErrorType, or NULL */
    const char *body; /* points into the input */
    size_t len;
};

/* Splits data into in (aborts when out of memory); free with plugcheck_input_free. */
void plugcheck_input_split(const uint8_t *data, size_t size, struct plugcheck_input *in);
void plugcheck_input_free(struct plugcheck_input *in);

/* Whether a and b are both NULL or equal strings. */
bool plugcheck_same(const char *a, const char *b);
/* Whether s[0..n) is well-formed UTF-8. */
bool plugcheck_utf8(const char *s, size_t n);
/* Aborts unless s is 1 to max bytes, none a control character. */
void plugcheck_one_line(const char *s, size_t max);

/* Aborts unless r is a reply reply_parse_with(status, ..., flags, r) may give
 * (reply.h); utf8: the input was well-formed UTF-8, so the strings must be. */
void plugcheck_reply(const struct reply *r, int status, unsigned flags, bool utf8);

/* The reference quiz (scenarios/quiz-compare-py-40.json), read and compiled on
 * the first call; aborts when it cannot be read. It lives until exit. */
const struct quizfile *plugcheck_quiz(void);

#endif
