/* fmt: how every output format writes a number or a value of the comparison.
 *
 * Values are rounded to their row's decimals and written in the shortest form
 * that reads back the same (51.3, 85.35, 723484), like the reference's JSON.
 * Nothing written is ever "nan" or "inf": a missing value is "n/a". */
#ifndef SM_FMT_H
#define SM_FMT_H

#include <stddef.h>

#include "buf.h"
#include "cmp.h"

#define FMT_CELL 96 /* enough for any formatted value */

/* x rounded to decimals (-1: as is), or more digits when that would show 0. */
void fmt_num(double x, int decimals, char *out, size_t cap);
/* A row's value for one side: "n/a", "37/40" for counts, or the number. */
void fmt_val(const struct row *r, const struct val *v, long total, char *out, size_t cap);
/* The row's ratio: "" when the reference gives none, "n/a", or the number. */
void fmt_ratio(const struct row *r, char *out, size_t cap);
/* An interval as "lo to hi", or "n/a". */
void fmt_ci(const struct ci *ci, int decimals, char *out, size_t cap);
/* A reply for a table cell: control characters escaped, cut after max bytes
 * (at a UTF-8 boundary) with "...". */
void fmt_reply(const char *s, size_t max, char *out, size_t cap);
/* Appends s with the XML special characters escaped. */
__attribute__((warn_unused_result)) int fmt_xml(struct buf *b, const char *s);

#endif
