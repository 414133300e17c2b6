#include "out_text.h"

#include <stdlib.h>
#include <string.h>

#include "esc.h"

#define OUT_TEXT_WRAP 78 /* paragraphs are wrapped before this column */

/* The display width of the n bytes at s. */
static size_t out_text_span(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

size_t out_text_width(const char *s) {
    return out_text_span(s, strlen(s));
}

static int out_text_pad(struct buf *b, size_t n) {
    int rc = 0;
    while (n-- && !rc) rc = buf_addc(b, ' ');
    return rc;
}

/* Appends text (escaped) wrapped before column OUT_TEXT_WRAP; lines after the
 * first are indented. */
static int out_text_wrap(struct buf *b, const char *raw, const char *first, size_t indent) {
    struct buf t;
    buf_init(&t, BUF_NO_CAP);
    int rc = esc_text(&t, raw) || buf_adds(b, first);
    size_t col = out_text_width(first);
    bool line_empty = true;
    const char *p = buf_str(&t);
    p += strspn(p, " ");
    while (*p && !rc) {
        size_t n = strcspn(p, " "), w = out_text_span(p, n);
        if (!line_empty && col + 1 + w > OUT_TEXT_WRAP) {
            rc = buf_addc(b, '\n') || out_text_pad(b, indent);
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
    buf_free(&t);
    return rc || buf_addc(b, '\n');
}

/* The table's cells escaped, in one array of strings (freed by the caller). */
static char **out_text_cells(const struct page_block *t) {
    size_t n = t->nrows * t->ncols;
    char **cells = calloc(n ? n : 1, sizeof *cells);
    for (size_t i = 0; cells && i < n; i++) {
        struct buf b;
        buf_init(&b, BUF_NO_CAP);
        if (esc_text(&b, t->cells[i]) || !(cells[i] = buf_take(&b))) {
            buf_free(&b);
            for (size_t k = 0; k < i; k++) free(cells[k]);
            free(cells);
            return NULL;
        }
    }
    return cells;
}

static int out_text_table(struct buf *b, const struct page_block *t) {
    size_t *w = calloc(t->ncols, sizeof *w), n = t->nrows * t->ncols;
    char **cells = out_text_cells(t);
    int rc = 0;
    if (!w || !cells) {
        for (size_t i = 0; cells && i < n; i++) free(cells[i]);
        free(cells);
        free(w);
        return BUF_ERR_NOMEM;
    }
    for (size_t i = 0; !rc && i < n; i++) {
        size_t len = out_text_width(cells[i] ? cells[i] : "");
        if (len > w[i % t->ncols]) w[i % t->ncols] = len;
    }
    for (size_t r = 0; !rc && r < t->nrows; r++) {
        size_t start = b->len;
        for (size_t c = 0; !rc && c < t->ncols; c++) {
            const char *cell = cells[r * t->ncols + c] ? cells[r * t->ncols + c] : "";
            size_t gap = w[c] - out_text_width(cell);
            bool right = c < 32 && (t->right >> c & 1);
            rc = out_text_pad(b, c ? 2 : 0) || out_text_pad(b, right ? gap : 0) ||
                 buf_adds(b, cell) || out_text_pad(b, right ? 0 : gap);
        }
        while (b->len > start && b->data[b->len - 1] == ' ') buf_truncate(b, b->len - 1);
        rc = rc || buf_addc(b, '\n');
    }
    for (size_t i = 0; i < n; i++) free(cells[i]);
    free(cells);
    free(w);
    return rc;
}

static int out_text_heading(struct buf *b, const char *raw) {
    struct buf t;
    buf_init(&t, BUF_NO_CAP);
    int rc = esc_text(&t, raw) || buf_addf(b, "\n%s\n", buf_str(&t));
    for (size_t i = out_text_width(buf_str(&t)); i > 0 && !rc; i--) rc = buf_addc(b, '-');
    buf_free(&t);
    return rc || buf_addc(b, '\n');
}

int out_text_render(const struct page *r, struct buf *out) {
    int rc = 0;
    for (size_t i = 0; i < r->n && !rc; i++) {
        const struct page_block *bl = &r->blocks[i];
        enum page_kind prev = i ? r->blocks[i - 1].kind : PAGE_HEADING;
        switch (bl->kind) {
        case PAGE_TITLE:
        case PAGE_PARA:
            rc = out_text_wrap(out, bl->text, "", 0);
            break;
        case PAGE_HEADING:
            rc = out_text_heading(out, bl->text);
            break;
        case PAGE_TABLE:
            if (prev != PAGE_HEADING) rc = buf_addc(out, '\n');
            rc = rc || out_text_table(out, bl);
            break;
        case PAGE_ITEM:
            rc = out_text_wrap(out, bl->text, "- ", 2);
            break;
        }
    }
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
