/* report: the comparison laid out as a list of blocks (title, headings,
 * tables, paragraphs, list items), which the text and Markdown writers render
 * (each escapes what it prints for its format, esc.h).
 *
 * The order is the reference's: the main table, then the intervals, decode
 * details, latency, cost, requests, agreement of runs, quiz and disagreements,
 * the server-log cross-check, container facts, warnings and the verdict. */
#ifndef SM_REPORT_H
#define SM_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "cmp.h"
#include "warnings.h"

#define REPORT_LIMITED "[client-limited]" /* the mark of a value its client limited */

enum report_err { REPORT_OK = 0, REPORT_ERR_NOMEM = -1 };

enum report_kind { REPORT_TITLE, REPORT_HEADING, REPORT_TABLE, REPORT_PARA, REPORT_ITEM };

struct report_block {
    enum report_kind kind;
    char *text;     /* owned; NULL for a table */
    size_t ncols;   /* table: columns */
    size_t nrows;   /* table: rows, the header first */
    char **cells;   /* table: owned, row-major */
    unsigned right; /* table: bit i set when column i is right-aligned (numbers) */
};

struct report {
    struct report_block *blocks;
    size_t n;
};

/* Lays out m and the warnings w. Returns 0, or REPORT_ERR_NOMEM (out is then
 * empty). The caller frees out with report_free. */
__attribute__((warn_unused_result)) int report_build(const struct cmp *m, const struct warnings *w,
                                                     struct report *out);
void report_free(struct report *r);

/* Adds a block of text (printf format; a heading, paragraph, item or title).
 * Returns 0, or -1 out of memory. */
__attribute__((format(printf, 3, 4), warn_unused_result)) int
report_text(struct report *r, enum report_kind kind, const char *fmt, ...);
/* Starts a table with the header head (ncols strings); right: its right-aligned
 * columns (bit i for column i). Returns the table, or NULL out of memory. */
__attribute__((warn_unused_result)) struct report_block *
report_table(struct report *r, unsigned right, size_t ncols, const char *const *head);
/* Adds a row of t->ncols cells (copied; NULL is ""). Returns 0, or -1. */
__attribute__((warn_unused_result)) int report_row(struct report_block *t,
                                                   const char *const *cells);

#endif
