/* Fuzzes the HTML report's writer (out_html.h) with any text: the input, cut at
 * its NUL bytes, gives the texts of a page (title, heading, a table's cells, a
 * paragraph, two items) and a chart's title. Text from a file must stay text:
 * the document holds exactly as many < > " ' as the same page with empty texts
 * (every such character comes from the writer's own markup), and it is valid
 * UTF-8. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "out_html.h"
#include "utf8.h"

#define FUZZ_HTML_TEXTS 10

/* The document of a page with these texts. */
static void fuzz_html_render(const char *const t[FUZZ_HTML_TEXTS], struct buf *out) {
    static const char *const head[] = {"a", "b"};
    struct page r = {0};
    struct out_html h;
    struct buf svg;
    buf_init(out, BUF_NO_CAP);
    buf_init(&svg, BUF_NO_CAP);
    struct page_block *tb = NULL;
    if (page_text(&r, PAGE_TITLE, "%s", t[0]) || page_text(&r, PAGE_HEADING, "%s", t[1]) ||
        !(tb = page_table(&r, 2u, 2, head)) || page_row(tb, &t[2]) || page_row(tb, &t[4]) ||
        page_text(&r, PAGE_PARA, "%s", t[6]) || page_text(&r, PAGE_ITEM, "%s", t[7]) ||
        page_text(&r, PAGE_ITEM, "%s", t[8]) ||
        buf_adds(&svg, "<?xml version=\"1.0\"?>\n<svg><rect width=\"1\"/></svg>\n") ||
        out_html_begin(&h, out, t[0]) || out_html_page(&h, &r) || out_html_chart(&h, t[9], &svg) ||
        out_html_end(&h))
        abort();
    buf_free(&svg);
    page_free(&r);
}

static size_t fuzz_html_markup(const struct buf *b) {
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++) n += strchr("<>\"'", buf_str(b)[i]) != NULL;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *copy = malloc(size + 1);
    if (!copy) abort();
    memcpy(copy, data, size);
    copy[size] = '\0';
    const char *texts[FUZZ_HTML_TEXTS], *empty[FUZZ_HTML_TEXTS];
    size_t at = 0;
    for (size_t i = 0; i < FUZZ_HTML_TEXTS; i++) {
        texts[i] = copy + at;
        empty[i] = "";
        at += strlen(copy + at);
        at += at < size;
    }
    struct buf doc, skeleton;
    fuzz_html_render(texts, &doc);
    fuzz_html_render(empty, &skeleton);
    if (fuzz_html_markup(&doc) != fuzz_html_markup(&skeleton)) abort();
    const unsigned char *p = (const unsigned char *)buf_str(&doc);
    for (size_t n = doc.len; n;) {
        uint32_t c;
        size_t len = utf8_decode(p, n, &c);
        if (!len) abort();
        p += len;
        n -= len;
    }
    buf_free(&doc);
    buf_free(&skeleton);
    free(copy);
    return 0;
}
