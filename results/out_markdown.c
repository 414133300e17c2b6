#include "out_markdown.h"

/* A cell with '|' escaped (the other characters pass: replies are already escaped). */
static int cell(struct buf *b, const char *s) {
    int rc = 0;
    for (; *s && !rc; s++) rc = *s == '|' ? buf_adds(b, "\\|") : buf_addc(b, *s);
    return rc;
}

static int table(struct buf *b, const struct block *t) {
    int rc = 0;
    for (size_t r = 0; r < t->nrows && !rc; r++) {
        for (size_t c = 0; c < t->ncols && !rc; c++)
            rc = buf_adds(b, c ? " | " : "| ") || cell(b, t->cells[r * t->ncols + c]);
        rc = rc || buf_adds(b, " |\n");
        for (size_t c = 0; r == 0 && c < t->ncols && !rc; c++)
            rc = buf_adds(b, c < 32 && (t->right >> c & 1) ? "| ---: " : "| --- ");
        if (r == 0) rc = rc || buf_adds(b, "|\n");
    }
    return rc;
}

int out_markdown(const struct report *r, struct buf *out) {
    int rc = 0;
    for (size_t i = 0; i < r->n && !rc; i++) {
        const struct block *bl = &r->blocks[i];
        bool list = i && bl->kind == BLOCK_ITEM && r->blocks[i - 1].kind == BLOCK_ITEM;
        if (i && !list) rc = buf_addc(out, '\n');
        switch (bl->kind) {
        case BLOCK_TITLE:
            rc = rc || buf_addf(out, "# %s\n", bl->text);
            break;
        case BLOCK_HEADING:
            rc = rc || buf_addf(out, "## %s\n", bl->text);
            break;
        case BLOCK_TABLE:
            rc = rc || table(out, bl);
            break;
        case BLOCK_PARA:
            rc = rc || buf_addf(out, "%s\n", bl->text);
            break;
        case BLOCK_ITEM:
            rc = rc || buf_addf(out, "- %s\n", bl->text);
            break;
        }
    }
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
