#include "out_html.h"

#include <stdio.h>
#include <string.h>

#include "esc.h"
#include "out_html_plot.h"
#include "out_svg.h"
#include "report.h"

/* The style and the script: constant text, allowed by the policy through their
 * SHA-256 (base64); a change to either changes its hash (tests/results/cases.py
 * checks the two agree, and the browser test that the script ran). */
static const char out_html_style[] =
    "\n"
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1100px;padding:0 1em;color:#222}\n"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}\n"
    "table{border-collapse:collapse;margin:.6em 0;font-size:.9em}\n"
    "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\n"
    "th{background:#f0f0f0}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tbody tr:nth-child(even){background:#fafafa}\n"
    "figure{margin:1em 0}figcaption{font-weight:bold;margin-bottom:.3em}\n"
    "figure svg{max-width:100%;height:auto;border:1px solid #eee}\n"
    "#tip{position:fixed;background:#222;color:#fff;padding:.2em .5em;border-radius:3px;"
    "font-size:.85em;pointer-events:none;white-space:pre}\n"
    "#tip[hidden]{display:none}\n"
    "nav ul{columns:2;font-size:.9em}\n"
    "@media print{body{max-width:none;margin:0;font-size:10pt}#tip,nav{display:none}"
    "table,figure{break-inside:avoid}h2{break-after:avoid}"
    "tbody tr:nth-child(even){background:none}figure svg{border:none}}\n";

static const char out_html_script[] =
    "\n"
    "(function () {\n"
    "  var root = document.documentElement, errors = [];\n"
    "  function note(m) {\n"
    "    errors.push(String(m));\n"
    "    root.setAttribute(\"data-js-errors\", errors.join(\" | \"));\n"
    "  }\n"
    "  window.addEventListener(\"error\", function (e) { note(e.message || \"error\"); });\n"
    "  var ce = console.error;\n"
    "  console.error = function () {\n"
    "    note(Array.prototype.join.call(arguments, \" \"));\n"
    "    return ce.apply(console, arguments);\n"
    "  };\n"
    "  document.addEventListener(\"DOMContentLoaded\", function () {\n"
    "    var tip = document.getElementById(\"tip\");\n"
    "    document.addEventListener(\"mousemove\", function (e) {\n"
    "      var t = e.target, s = t && t.getAttribute ? t.getAttribute(\"data-tip\") : null;\n"
    "      if (!s) { tip.hidden = true; return; }\n"
    "      tip.textContent = s;\n"
    "      tip.style.left = (e.clientX + 12) + \"px\";\n"
    "      tip.style.top = (e.clientY + 12) + \"px\";\n"
    "      tip.hidden = false;\n"
    "    });\n"
    "    root.setAttribute(\"data-js-ready\", String(document.querySelectorAll(\"svg\").length));\n"
    "  });\n"
    "})();\n";

/* base64(SHA-256) of out_html_style and out_html_script. */
#define OUT_HTML_STYLE_SHA  "sha256-l4W5y92gcy7lhYtvXSorDmXtmJaEpDKdiJ3cjiI2+kQ="
#define OUT_HTML_SCRIPT_SHA "sha256-dY42csnYXRYv6yxLvUtF7NejXrVHWX5QNMRVhK23kkU="

int out_html_begin(struct out_html *h, struct buf *out, const char *title) {
    h->out = out;
    h->nblocks = 0;
    int rc =
        buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                      "'none'; style-src '" OUT_HTML_STYLE_SHA "'; script-src '" OUT_HTML_SCRIPT_SHA
                      "'; base-uri 'none'; form-action 'none'\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                      "<title>") ||
        esc_xml(out, title) || buf_adds(out, "</title>\n<style>") ||
        buf_adds(out, out_html_style) || buf_adds(out, "</style>\n<script>") ||
        buf_adds(out, out_html_script) ||
        buf_adds(out, "</script>\n</head>\n<body>\n<div id=\"tip\" hidden></div>\n");
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}

/* "<tag>text</tag>\n", text escaped; an h2 gets the next section id. */
static int out_html_line(struct out_html *h, const char *tag, const char *text) {
    int rc = strcmp(tag, "h2") == 0 ? buf_addf(h->out, "<h2 id=\"s%zu\">", ++h->nblocks)
                                    : buf_addf(h->out, "<%s>", tag);
    return rc || esc_xml(h->out, text) || buf_addf(h->out, "</%s>\n", tag);
}

static int out_html_table(struct buf *b, const struct page_block *t) {
    int rc = buf_adds(b, "<table>\n");
    for (size_t r = 0; r < t->nrows && !rc; r++) {
        const char *cell = r ? "td" : "th";
        rc = buf_adds(b, r == 0 ? "<thead><tr>" : "<tr>");
        for (size_t c = 0; c < t->ncols && !rc; c++) {
            bool right = c < 32 && (t->right >> c & 1);
            rc = buf_addf(b, right ? "<%s class=\"r\">" : "<%s>", cell) ||
                 esc_xml(b, t->cells[r * t->ncols + c]) || buf_addf(b, "</%s>", cell);
        }
        rc = rc || buf_adds(b, r == 0 ? "</tr></thead>\n<tbody>\n" : "</tr>\n");
    }
    return rc || buf_adds(b, t->nrows ? "</tbody>\n</table>\n" : "</table>\n");
}

/* The element of each kind of text block. */
static const char *const out_html_tags[] = {[PAGE_TITLE] = "h1",
                                            [PAGE_HEADING] = "h2",
                                            [PAGE_TABLE] = "table",
                                            [PAGE_PARA] = "p",
                                            [PAGE_ITEM] = "li"};

/* Links to the headings of r after block i, by the ids out_html_line will give them
 * (h's next on): none for fewer than two. */
static int out_html_nav(struct out_html *h, const struct page *r, size_t i) {
    size_t n = 0, id = h->nblocks;
    for (size_t k = i + 1; k < r->n; k++) n += r->blocks[k].kind == PAGE_HEADING;
    if (n < 2) return 0;
    int rc = buf_adds(h->out, "<nav>\n<ul>\n");
    for (size_t k = i + 1; k < r->n && !rc; k++)
        if (r->blocks[k].kind == PAGE_HEADING)
            rc = buf_addf(h->out, "<li><a href=\"#s%zu\">", ++id) ||
                 esc_xml(h->out, r->blocks[k].text) || buf_adds(h->out, "</a></li>\n");
    return rc || buf_adds(h->out, "</ul>\n</nav>\n");
}

int out_html_page(struct out_html *h, const struct page *r) {
    int rc = 0;
    bool list = false;
    for (size_t i = 0; i < r->n && !rc; i++) {
        const struct page_block *bl = &r->blocks[i];
        if (list && bl->kind != PAGE_ITEM) rc = buf_adds(h->out, "</ul>\n");
        if (!list && bl->kind == PAGE_ITEM) rc = rc || buf_adds(h->out, "<ul>\n");
        list = bl->kind == PAGE_ITEM;
        if (bl->kind == PAGE_TABLE)
            rc = rc || out_html_table(h->out, bl);
        else
            rc = rc || out_html_line(h, out_html_tags[bl->kind], bl->text);
        if (bl->kind == PAGE_TITLE) rc = rc || out_html_nav(h, r, i);
    }
    if (list) rc = rc || buf_adds(h->out, "</ul>\n");
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}

int out_html_chart(struct out_html *h, const char *title, const struct buf *svg) {
    const char *s = svg->len ? buf_str(svg) : "";
    if (strncmp(s, "<?xml", 5) == 0) {
        const char *end = strstr(s, "?>");
        s = end ? end + 2 : s;
        while (*s == '\n' || *s == '\r') s++;
    }
    if (!*s) return BUF_OK;
    int rc = buf_addf(h->out, "<figure class=\"chart\" id=\"s%zu\">\n<figcaption>", ++h->nblocks) ||
             esc_xml(h->out, title) || buf_adds(h->out, "</figcaption>\n") || buf_adds(h->out, s) ||
             buf_adds(h->out, "</figure>\n");
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}

int out_html_end(struct out_html *h) {
    return buf_adds(h->out, "</body>\n</html>\n") ? BUF_ERR_NOMEM : BUF_OK;
}

int out_html_render(const struct cmp *m, const struct warnings *w, struct buf *out) {
    struct out_html h;
    struct page r;
    struct buf svg;
    char title[sizeof m->bname + sizeof m->cname + 8];
    snprintf(title, sizeof title, "%s vs %s", m->bname, m->cname);
    if (report_build(m, w, &r) < 0) return BUF_ERR_NOMEM;
    buf_init(&svg, BUF_NO_CAP);
    /* The charts' heading is the page's last, so that the contents name it too. */
    int rc = page_text(&r, PAGE_HEADING, "Charts") || out_html_begin(&h, out, title) ||
             out_html_page(&h, &r) || out_svg_render(m, &svg) ||
             out_html_chart(&h, "Both sides and the ratios", &svg);
    buf_reset(&svg);
    rc = rc || out_html_plot_curve(m, &svg) ||
         out_html_chart(&h, "Latency against throughput: p90 latency per tokens/s", &svg);
    buf_reset(&svg);
    rc = rc || out_html_plot_scatter(m, OUT_HTML_PLOT_POINTS, &svg) ||
         out_html_chart(&h, "Every request: end-to-end latency against its start", &svg);
    rc = rc || out_html_end(&h);
    buf_free(&svg);
    page_free(&r);
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
