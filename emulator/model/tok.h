/* tok: the emulator's own tokenizer and filler text.
 *
 * A token is a maximal run of word bytes (ASCII letters and digits, and every
 * byte >= 0x80, so a UTF-8 word like "Brasília" is one token) or one byte that
 * is neither a word byte nor white space. White space is free. Every count the
 * emulator reports (usage, details) follows this rule. */
#ifndef EMU_TOK_H
#define EMU_TOK_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* The number of tokens in s[0..len). */
size_t tok_count(const char *s, size_t len);

/* The length in bytes of the shortest prefix of s that holds its first n tokens
 * (all of s when it has fewer). */
size_t tok_prefix(const char *s, size_t len, size_t n);

/* The end of the token that follows offset at in s[0..len) (the white space
 * before it skipped), or at itself when only white space follows. A streamed
 * reply sends s[at..tok_next(s, len, at)) as one token, its white space first. */
size_t tok_next(const char *s, size_t len, size_t at);

/* Appends filler prose of exactly n tokens; seed picks the words. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int tok_filler(struct buf *out, size_t n, uint64_t seed);

#endif
