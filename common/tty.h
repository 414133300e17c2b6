/* tty: text from outside made harmless on a terminal. A server's reply, a
 * log line or an S3 key may hold bytes a terminal obeys: ESC and the other C0
 * controls, DEL, the C1 controls U+0080-U+009F (U+009B is a CSI, U+009D an
 * OSC: as UTF-8, 0xC2 0x9B), and bytes that are no UTF-8 (a lone 0x9B is a CSI
 * to an 8-bit terminal). Each becomes a visible escape: "\x1b" for a C0
 * control, DEL or a byte that is no UTF-8, "\u009b" for a C1 control; the rest
 * (printable ASCII, well-formed UTF-8 past U+009F) is kept as it is.
 *
 * Every program prints text from outside through tty_write (scrubbed first,
 * scrub.h), or tty_escape when it builds the line itself; buf_one_line
 * (buf.h) replaces the same characters with '?' in place. Pure C. */
#ifndef SM_TTY_H
#define SM_TTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "buf.h"

#define TTY_LINES 1u /* keep '\n' and '\t' (a multi-line text); else they are escaped too */
#define TTY_JSON  2u /* JSON text: escapes as "\u00XX", a byte that is no UTF-8 as "\ufffd" */

/* The length of the character at s (n >= 1 bytes left; a byte that is no UTF-8
 * is one), and in *control whether a terminal may obey it (utf8_char, utf8.h). */
size_t tty_char(const char *s, size_t n, bool *control);

/* Appends the n bytes at s to out with every control escaped (flags: TTY_*).
 * Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int tty_escape(struct buf *out, const char *s, size_t n,
                                                   unsigned flags);

/* Writes the n bytes at s to f scrubbed (scrub.h) and escaped. Returns 0, or
 * BUF_ERR_NOMEM (nothing written). */
__attribute__((warn_unused_result)) int tty_write(FILE *f, const char *s, size_t n, unsigned flags);

#endif
