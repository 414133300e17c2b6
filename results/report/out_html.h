/* out_html: the report as one self-contained HTML file.
 *
 * Every block of a page (page.h: title, headings, tables, paragraphs, items)
 * and charts (inline SVG) in one file that loads nothing: inline CSS with a
 * print stylesheet, a small inline script (hover tooltips from the charts'
 * data-tip attributes; it records any script error on the root element as
 * data-js-errors, and sets data-js-ready when it ran), and a
 * Content-Security-Policy that allows only that style and that script (by
 * their SHA-256) and no network at all. Text goes through esc_xml (esc.h):
 * text from a file can neither add markup nor run a script.
 *
 * A document is built in steps: out_html_begin, out_html_page and
 * out_html_chart in any order, out_html_end; out_html_render does it all for
 * a comparison (the report's page, the SVG chart of out_svg.h, and the charts
 * of out_html_plot.h). */
#ifndef SM_OUT_HTML_H
#define SM_OUT_HTML_H

#include <stddef.h>

#include "buf.h"
#include "cmp.h"
#include "page.h"
#include "warnings.h"

struct out_html {
    struct buf *out;
    size_t nblocks; /* sections written: each gets an id (s1, s2, ...) */
};

/* Starts the document in out (head, style, script); title is text from files. */
__attribute__((warn_unused_result)) int out_html_begin(struct out_html *h, struct buf *out,
                                                       const char *title);
/* Appends every block of r: a title as <h1> (then, with two headings or more after it,
 * the contents: a link to each), headings <h2>, tables (the first row as the header,
 * right-aligned columns marked), paragraphs, runs of items as lists. */
__attribute__((warn_unused_result)) int out_html_page(struct out_html *h, const struct page *r);
/* Appends a chart: title above it (text), svg an SVG document as out_svg.h writes
 * them (an XML declaration before <svg> is dropped; the SVG must have escaped its
 * own text). An empty svg adds nothing. Elements with a data-tip attribute show it
 * on hover. */
__attribute__((warn_unused_result)) int out_html_chart(struct out_html *h, const char *title,
                                                       const struct buf *svg);
/* Ends the document. */
__attribute__((warn_unused_result)) int out_html_end(struct out_html *h);

/* The comparison m as an HTML document appended to out: the report (report.h),
 * the chart of out_svg.h, the latency-throughput curve and the per-request
 * scatter (out_html_plot.h). Returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int out_html_render(const struct cmp *m,
                                                        const struct warnings *w, struct buf *out);

#endif
