#include "out_markdown.h"

#include "esc.h"

static int out_markdown_table(struct buf *b, const struct page_block *t) {
    int rc = 0;
    for (size_t r = 0; r < t->nrows && !rc; r++) {
        for (size_t c = 0; c < t->ncols && !rc; c++)
            rc = buf_adds(b, c ? " | " : "| ") || esc_markdown(b, t->cells[r * t->ncols + c]);
        rc = rc || buf_adds(b, " |\n");
        for (size_t c = 0; r == 0 && c < t->ncols && !rc; c++)
            rc = buf_adds(b, c < 32 && (t->right >> c & 1) ? "| ---: " : "| --- ");
        if (r == 0) rc = rc || buf_adds(b, "|\n");
    }
    return rc;
}

static int out_markdown_line(struct buf *b, const char *lead, const char *text) {
    return buf_adds(b, lead) || esc_markdown(b, text) || buf_addc(b, '\n');
}

int out_markdown_render(const struct page *r, struct buf *out) {
    int rc = 0;
    for (size_t i = 0; i < r->n && !rc; i++) {
        const struct page_block *bl = &r->blocks[i];
        bool list = i && bl->kind == PAGE_ITEM && r->blocks[i - 1].kind == PAGE_ITEM;
        if (i && !list) rc = buf_addc(out, '\n');
        switch (bl->kind) {
        case PAGE_TITLE:
            rc = rc || out_markdown_line(out, "# ", bl->text);
            break;
        case PAGE_HEADING:
            rc = rc || out_markdown_line(out, "## ", bl->text);
            break;
        case PAGE_TABLE:
            rc = rc || out_markdown_table(out, bl);
            break;
        case PAGE_PARA:
            rc = rc || out_markdown_line(out, "", bl->text);
            break;
        case PAGE_ITEM:
            rc = rc || out_markdown_line(out, "- ", bl->text);
            break;
        }
    }
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
