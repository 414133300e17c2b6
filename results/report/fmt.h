/* fmt: how every output format writes a number or a value of the comparison.
 *
 * Values are rounded to their row's decimals and written in the shortest form
 * that reads back the same (51.3, 85.35, 723484), like the reference's JSON.
 * Ratios and interval ends show at least three significant digits, and as many
 * more as it takes to tell an interval's ends apart and to see on which side
 * of 1 a ratio's interval lies. Nothing written is ever "nan" or "inf": a
 * missing value is "n/a". */
#ifndef SM_FMT_H
#define SM_FMT_H

#include <stdbool.h>
#include <stddef.h>

#include "cmp.h"
#include "interval.h"

#define FMT_CELL 128 /* enough for any formatted value */

/* x rounded to decimals (-1: as is), or more digits when that would show 0. */
void fmt_num(double x, int decimals, char *out, size_t cap);
/* x with at least three significant digits, trailing zeros kept ("1.00", "0.822"). */
void fmt_sig(double x, char *out, size_t cap);
/* A row's value for one side: "n/a", "37/40" or "37/38 answered (2 unanswered)"
 * for counts, or the number. */
void fmt_val(const struct cmp_row *r, const struct side_val *v, long total, long unanswered,
             char *out, size_t cap);
/* The row's ratio: "" when the reference gives none, "n/a", or the number
 * with three significant digits or its interval's decimals, whichever more. */
void fmt_ratio(const struct cmp_row *r, char *out, size_t cap);
/* An interval as "lo to hi" (decimals: those of the values, -1 for a ratio),
 * or why there is none. */
void fmt_interval(const struct interval *ci, int decimals, char *out, size_t cap);
/* "n ok/n sent" of a tally, or "" for none. */
void fmt_requests(const struct src_tally *t, char *out, size_t cap);
/* A reply for a table cell: cut after max bytes (at a UTF-8 boundary) with
 * "..." (escaping is the output format's). */
void fmt_reply(const char *s, size_t max, char *out, size_t cap);

#endif
