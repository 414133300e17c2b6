/* esc: text from a file made safe for each output format.
 *
 * Labels, paths, error messages, quiz replies and warnings come from files an
 * attacker may write: every output escapes them, so that a label cannot colour
 * a terminal (ESC sequences), break a line or a table, inject Markdown or
 * markup, or start a spreadsheet formula. Each function appends to b and
 * returns BUF_OK or a buf error. */
#ifndef SM_ESC_H
#define SM_ESC_H

#include "buf.h"

/* For a terminal or a text file: control characters (C0, DEL, C1), Unicode's
 * line and paragraph separators and bidirectional controls become visible
 * escapes (\n, \t, \x1b, \u202e), and each byte that is not part of
 * well-formed UTF-8 becomes \xNN. */
__attribute__((warn_unused_result)) int esc_text(struct buf *b, const char *s);
/* esc_text, then what Markdown would read as markup: \ ` * [ ] | # ~ as
 * backslash escapes, & < > as entities, _ at a word's edge, and a leading - +
 * = (a list or a heading). */
__attribute__((warn_unused_result)) int esc_markdown(struct buf *b, const char *s);
/* esc_text, then & < > " ' as XML entities. */
__attribute__((warn_unused_result)) int esc_xml(struct buf *b, const char *s);
/* One CSV field (RFC 4180 quoting) of esc_text(s); a leading = @ + - that
 * would start a spreadsheet formula (not a number) gets a ' before it. */
__attribute__((warn_unused_result)) int esc_csv(struct buf *b, const char *s);
/* A copy of s in which each byte that is not part of well-formed UTF-8 is
 * U+FFFD (for JSON); the caller frees it. NULL when out of memory. */
char *esc_utf8(const char *s);

#endif
