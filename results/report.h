/* report: the comparison laid out as a list of blocks (title, headings,
 * tables, paragraphs, list items), which the text and markdown writers render.
 *
 * The order is the reference's: the main table, then the intervals, decode
 * details, latency, cost, requests, agreement of runs, quiz and disagreements,
 * container facts, warnings and the verdict. */
#ifndef SM_REPORT_H
#define SM_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "cmp.h"
#include "diag.h"

enum block_kind { BLOCK_TITLE, BLOCK_HEADING, BLOCK_TABLE, BLOCK_PARA, BLOCK_ITEM };

struct block {
    enum block_kind kind;
    char *text;     /* owned; NULL for a table */
    size_t ncols;   /* table: columns */
    size_t nrows;   /* table: rows, the header first */
    char **cells;   /* table: owned, row-major */
    unsigned right; /* table: bit i set when column i is right-aligned (numbers) */
};

struct report {
    struct block *blocks;
    size_t n;
};

/* Lays out m and the warnings of d; returns -1 when out of memory. */
__attribute__((warn_unused_result)) int report_build(const struct cmp *m, const struct diag *d,
                                                     struct report *out);
void report_free(struct report *r);

#endif
