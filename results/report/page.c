#include "page.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct page_block *page_add(struct page *r, enum page_kind kind) {
    struct page_block *b = realloc(r->blocks, (r->n + 1) * sizeof *b);
    if (!b) return NULL;
    r->blocks = b;
    b = &b[r->n++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    return b;
}

int page_text(struct page *r, enum page_kind kind, const char *fmt, ...) {
    struct page_block *b = page_add(r, kind);
    if (!b) return -1;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&b->text, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->text = NULL;
        return -1;
    }
    return 0;
}

struct page_block *page_table(struct page *r, unsigned right, size_t ncols,
                              const char *const *head) {
    struct page_block *b = page_add(r, PAGE_TABLE);
    if (!b) return NULL;
    b->ncols = ncols;
    b->right = right;
    if (!(b->cells = calloc(ncols, sizeof *b->cells))) return NULL;
    b->nrows = 1;
    for (size_t i = 0; i < ncols; i++)
        if (!(b->cells[i] = strdup(head[i]))) return NULL;
    return b;
}

int page_row(struct page_block *b, const char *const *cells) {
    char **c = realloc(b->cells, (b->nrows + 1) * b->ncols * sizeof *c);
    if (!c) return -1;
    b->cells = c;
    c += b->nrows * b->ncols;
    for (size_t i = 0; i < b->ncols; i++) c[i] = NULL;
    b->nrows++;
    for (size_t i = 0; i < b->ncols; i++)
        if (!(c[i] = strdup(cells[i] ? cells[i] : ""))) return -1;
    return 0;
}

void page_free(struct page *r) {
    for (size_t i = 0; i < r->n; i++) {
        struct page_block *b = &r->blocks[i];
        free(b->text);
        for (size_t k = 0; b->cells && k < b->nrows * b->ncols; k++) free(b->cells[k]);
        free(b->cells);
    }
    free(r->blocks);
    memset(r, 0, sizeof *r);
}
