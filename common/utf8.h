/* utf8: decoding one UTF-8 sequence, strictly (no overlong forms, surrogates or
 * code points past U+10FFFF). Pure C. */
#ifndef SM_UTF8_H
#define SM_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the sequence at s[0..n) into *c; returns its length (1 to 4), or 0
 * when s does not start with a well-formed sequence (n must be at least 1). */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *c);

#endif
