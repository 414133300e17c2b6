/* page: a report laid out as a list of blocks (title, headings, tables,
 * paragraphs, list items), built by the parts of the report (report.h,
 * openloop_report.h, shard_report.h, cloudwatch_report.h) and rendered by the text and Markdown
 * writers (out_text.h, out_markdown.h). It knows nothing of the comparison. */
#ifndef SM_PAGE_H
#define SM_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#define PAGE_LIMITED "[client-limited]" /* the mark of a value its client limited */

enum page_kind { PAGE_TITLE, PAGE_HEADING, PAGE_TABLE, PAGE_PARA, PAGE_ITEM };

struct page_block {
    enum page_kind kind;
    char *text;     /* owned; NULL for a table */
    size_t ncols;   /* table: columns */
    size_t nrows;   /* table: rows, the header first */
    char **cells;   /* table: owned, row-major */
    unsigned right; /* table: bit i set when column i is right-aligned (numbers) */
};

struct page {
    struct page_block *blocks;
    size_t n;
};

/* Frees what r owns and empties it. */
void page_free(struct page *r);

/* Adds a block of text (printf format; a heading, paragraph, item or title).
 * Returns 0, or -1 out of memory. */
__attribute__((format(printf, 3, 4), warn_unused_result)) int
page_text(struct page *r, enum page_kind kind, const char *fmt, ...);
/* Starts a table with the header head (ncols strings); right: its right-aligned
 * columns (bit i for column i). Returns the table, or NULL out of memory. */
__attribute__((warn_unused_result)) struct page_block *
page_table(struct page *r, unsigned right, size_t ncols, const char *const *head);
/* Adds a row of t->ncols cells (copied; NULL is ""). Returns 0, or -1. */
__attribute__((warn_unused_result)) int page_row(struct page_block *t, const char *const *cells);

#endif
