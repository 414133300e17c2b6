/* quiz: scoring a reply the way the reference method does in Python: the reply
 * is stripped as str.strip() does (Unicode white space), then a pattern is
 * searched anywhere in it with Python-like semantics (PCRE2 with UTF and
 * Unicode properties: \b, \d, \w and (?i) are Unicode-aware, so "Brasília"
 * matches Bras[ií]lia; lookbehind works). Invalid UTF-8 in a reply never
 * matches across the bad bytes and is never an error.
 *
 * Bounded: a reply is scored on its first QUIZ_SCORED_MAX bytes only (cut before
 * a UTF-8 character), the same under wrk and sm-stream, so a huge reply costs
 * no more than a 64 KiB one; and a search that passes PCRE2's match or depth
 * limit (QUIZ_MATCH_LIMIT, QUIZ_DEPTH_LIMIT: a pathological pattern) ends with
 * QUIZ_ERR_MATCH instead of running on. */
#ifndef SM_QUIZ_H
#define SM_QUIZ_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define QUIZ_SCORED_MAX  ((size_t)64 * 1024) /* bytes of a reply scored: its prefix */
#define QUIZ_MATCH_LIMIT 1000000u            /* PCRE2 match limit of one search */
#define QUIZ_DEPTH_LIMIT 100000u             /* PCRE2 depth limit (nested backtracking) */

enum quiz_error {
    QUIZ_OK = 0,
    QUIZ_ERR_NOMEM = -1,
    QUIZ_ERR_PATTERN = -2, /* the pattern does not compile */
    QUIZ_ERR_MATCH = -3,   /* the matcher failed (e.g. its resource limits) */
};

/* A compiled pattern; one may be searched from several threads at once. */
struct quiz_re;

/* Compiles pattern (len bytes, UTF-8) into *out. On QUIZ_ERR_PATTERN err holds
 * "offset N: reason". The caller frees *out with quiz_re_free. */
__attribute__((warn_unused_result)) int quiz_re_compile(const char *pattern, size_t len,
                                                        struct quiz_re **out, struct buf *err);
void quiz_re_free(struct quiz_re *re);

/* Searches s (len bytes) for re; *found tells whether it matched. */
__attribute__((warn_unused_result)) int quiz_re_search(const struct quiz_re *re, const char *s,
                                                       size_t len, bool *found);

/* The part of s (len bytes) left by Python's str.strip(): *off and *n. */
void quiz_strip(const char *s, size_t len, size_t *off, size_t *n);

/* The length of the prefix of s (len bytes) a reply is scored on: len, or at
 * most QUIZ_SCORED_MAX bytes cut before a UTF-8 character. */
size_t quiz_cut(const char *s, size_t len);

/* Scores a reply: its prefix (quiz_cut) stripped (quiz_strip) and searched for
 * re. *off and *n say the part scored; *found whether it matched. Returns
 * QUIZ_OK, QUIZ_ERR_NOMEM or QUIZ_ERR_MATCH (a match limit: *found false). */
__attribute__((warn_unused_result)) int quiz_score(const struct quiz_re *re, const char *s,
                                                   size_t len, size_t *off, size_t *n, bool *found);

#endif
