#include "out_text.h"

#include <stdlib.h>
#include <string.h>

#define WRAP 78 /* paragraphs are wrapped before this column */

/* The display width of the n bytes at s. */
static size_t span_width(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

size_t out_text_width(const char *s) {
    return span_width(s, strlen(s));
}

static int pad(struct buf *b, size_t n) {
    int rc = 0;
    while (n-- && !rc) rc = buf_addc(b, ' ');
    return rc;
}

/* Appends text wrapped before column WRAP; lines after the first are indented. */
static int wrap(struct buf *b, const char *text, const char *first, size_t indent) {
    int rc = buf_adds(b, first);
    size_t col = out_text_width(first);
    bool line_empty = true;
    const char *p = text + strspn(text, " ");
    while (*p && !rc) {
        size_t n = strcspn(p, " "), w = span_width(p, n);
        if (!line_empty && col + 1 + w > WRAP) {
            rc = buf_addc(b, '\n') || pad(b, indent);
            col = indent;
            line_empty = true;
        }
        if (!line_empty) {
            rc = rc || buf_addc(b, ' ');
            col++;
        }
        rc = rc || buf_add(b, p, n);
        col += w;
        line_empty = false;
        p += n;
        p += strspn(p, " ");
    }
    return rc || buf_addc(b, '\n');
}

static int table(struct buf *b, const struct block *t) {
    size_t *w = calloc(t->ncols, sizeof *w);
    int rc = w ? 0 : BUF_ERR_NOMEM;
    for (size_t i = 0; !rc && i < t->nrows * t->ncols; i++) {
        size_t n = out_text_width(t->cells[i]);
        if (n > w[i % t->ncols]) w[i % t->ncols] = n;
    }
    for (size_t r = 0; !rc && r < t->nrows; r++) {
        size_t start = b->len;
        for (size_t c = 0; !rc && c < t->ncols; c++) {
            const char *cell = t->cells[r * t->ncols + c];
            size_t gap = w[c] - out_text_width(cell);
            bool right = c < 32 && (t->right >> c & 1);
            rc = pad(b, c ? 2 : 0) || pad(b, right ? gap : 0) || buf_adds(b, cell) ||
                 pad(b, right ? 0 : gap);
        }
        while (b->len > start && b->data[b->len - 1] == ' ') buf_truncate(b, b->len - 1);
        rc = rc || buf_addc(b, '\n');
    }
    free(w);
    return rc;
}

static int heading(struct buf *b, const char *text) {
    int rc = buf_addf(b, "\n%s\n", text);
    for (size_t i = out_text_width(text); i > 0 && !rc; i--) rc = buf_addc(b, '-');
    return rc || buf_addc(b, '\n');
}

int out_text(const struct report *r, struct buf *out) {
    int rc = 0;
    for (size_t i = 0; i < r->n && !rc; i++) {
        const struct block *bl = &r->blocks[i];
        enum block_kind prev = i ? r->blocks[i - 1].kind : BLOCK_HEADING;
        switch (bl->kind) {
        case BLOCK_TITLE:
            rc = wrap(out, bl->text, "", 0);
            break;
        case BLOCK_HEADING:
            rc = heading(out, bl->text);
            break;
        case BLOCK_TABLE:
            if (prev != BLOCK_HEADING) rc = buf_addc(out, '\n');
            rc = rc || table(out, bl);
            break;
        case BLOCK_PARA:
            rc = wrap(out, bl->text, "", 0);
            break;
        case BLOCK_ITEM:
            rc = wrap(out, bl->text, "- ", 2);
            break;
        }
    }
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
