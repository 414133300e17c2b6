/* utf8: decoding one UTF-8 sequence, strictly (no overlong forms, surrogates or
 * code points past U+10FFFF), and whether a terminal obeys the character. Pure C. */
#ifndef SM_UTF8_H
#define SM_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the sequence at s[0..n) into *c; returns its length (1 to 4), or 0
 * when s does not start with a well-formed sequence (n must be at least 1). */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *c);

/* The length of the character at s (n >= 1 bytes left; a byte that is no UTF-8
 * is one), and in *control whether a terminal may obey it: a C0 control, DEL, a
 * C1 control or a byte that is no UTF-8 (tty.h says why). */
size_t utf8_char(const char *s, size_t n, bool *control);

#endif
