/* Unit tests of out_html (the report as one HTML file) and out_html_plot (its
 * latency-throughput curve and per-request scatter): text from files is inert
 * markup, and the scatter is bounded and sampled evenly. */
#include <math.h>

#include "../check.h"
#include "cmp.h"
#include "out_html.h"
#include "out_html_plot.h"
#include "page.h"

/* How many times needle occurs in hay. */
static size_t test_count(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* Labels and cells as a hostile result file could write them. */
static const char test_script[] = "x</script><script>alert(1)</script>";
static const char test_svg[] = "<svg onload=alert(1)>";
static const char test_quotes[] = "\"quoted' & <b>bold</b>";

static void test_html_text_from_files_is_inert(void) {
    struct page r = {0};
    static const char *const head[] = {"name", "value"};
    const char *row[] = {test_quotes, "1.5"};
    CHECK(page_text(&r, PAGE_TITLE, "%s vs %s", test_script, test_svg) == 0);
    CHECK(page_text(&r, PAGE_HEADING, "%s", test_svg) == 0);
    struct page_block *t = page_table(&r, 2u, 2, head);
    CHECK(t && page_row(t, row) == 0);
    CHECK(page_text(&r, PAGE_PARA, "%s", test_quotes) == 0);
    CHECK(page_text(&r, PAGE_ITEM, "one %s", test_script) == 0);
    CHECK(page_text(&r, PAGE_ITEM, "two") == 0);
    struct buf out, svg;
    struct out_html h;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&svg, BUF_NO_CAP);
    CHECK(buf_adds(&svg, "<?xml version=\"1.0\"?>\n<svg><rect width=\"1\"/></svg>\n") == 0);
    CHECK(out_html_begin(&h, &out, test_script) == BUF_OK);
    CHECK(out_html_page(&h, &r) == BUF_OK);
    CHECK(out_html_chart(&h, test_quotes, &svg) == BUF_OK);
    CHECK(out_html_end(&h) == BUF_OK);
    const char *s = buf_str(&out);
    /* One script element, ours; no element or attribute from the text. */
    CHECK(test_count(s, "<script") == 1);
    CHECK(test_count(s, "</script>") == 1);
    CHECK(!strstr(s, "<svg onload") && !strstr(s, "<b>"));
    CHECK(test_count(s, "x&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;") == 3);
    CHECK(test_count(s, "&lt;svg onload=alert(1)&gt;") == 2);
    CHECK(test_count(s, "&quot;quoted&#39; &amp; &lt;b&gt;bold&lt;/b&gt;") == 3);
    /* Every block, in order; the table's second column right-aligned. */
    CHECK(strstr(s, "<h1>") && strstr(s, "<h2 id=\"s1\">"));
    CHECK(strstr(s, "<thead><tr><th>name</th><th class=\"r\">value</th></tr></thead>"));
    CHECK(strstr(s, "<td class=\"r\">1.5</td>"));
    CHECK(strstr(s, "<ul>\n<li>one ") && strstr(s, "<li>two</li>\n</ul>\n"));
    /* The chart inline, without its XML declaration; no network allowed. */
    CHECK(strstr(s, "<figure class=\"chart\" id=\"s2\">") && !strstr(s, "<?xml"));
    CHECK(strstr(s, "<svg><rect width=\"1\"/></svg>"));
    CHECK(strstr(s, "content=\"default-src 'none'; style-src 'sha256-"));
    CHECK(strstr(s, "@media print"));
    CHECK(!strstr(s, "src=") && !strstr(s, "href="));
    buf_free(&out);
    buf_free(&svg);
    page_free(&r);
}

static void test_html_contents_link_each_heading_after_the_title(void) {
    struct page r = {0};
    CHECK(page_text(&r, PAGE_TITLE, "t") == 0);
    CHECK(page_text(&r, PAGE_HEADING, "first %s", test_svg) == 0);
    CHECK(page_text(&r, PAGE_PARA, "p") == 0);
    CHECK(page_text(&r, PAGE_HEADING, "second") == 0);
    struct buf out;
    struct out_html h;
    buf_init(&out, BUF_NO_CAP);
    CHECK(out_html_begin(&h, &out, "t") == BUF_OK && out_html_page(&h, &r) == BUF_OK);
    CHECK(strstr(buf_str(&out), "<h1>t</h1>\n<nav>\n<ul>\n"
                                "<li><a href=\"#s1\">first &lt;svg onload=alert(1)&gt;</a></li>\n"
                                "<li><a href=\"#s2\">second</a></li>\n</ul>\n</nav>\n"
                                "<h2 id=\"s1\">first "));
    CHECK(strstr(buf_str(&out), "<h2 id=\"s2\">second</h2>"));
    buf_free(&out);
    page_free(&r);
}

static void test_html_empty_chart_adds_nothing(void) {
    struct buf out, svg;
    struct out_html h;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&svg, BUF_NO_CAP);
    CHECK(out_html_begin(&h, &out, "t") == BUF_OK);
    size_t before = out.len;
    CHECK(out_html_chart(&h, "nothing", &svg) == BUF_OK);
    CHECK(out.len == before);
    buf_free(&out);
    buf_free(&svg);
}

/* A comparison whose sides hold only n[k] requests on the wall clock (one a second,
 * latency 1 + i / 100 s, every tenth failed) and two sweep levels. */
struct test_sides {
    struct src src[2];
    struct src_call calls[2][200];
    struct side_level lv[2][2];
    struct side side[2];
    struct cmp m;
};

static void test_sides_init(struct test_sides *t, const size_t n[2]) {
    memset(t, 0, sizeof *t);
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < n[k]; i++)
            t->calls[k][i] = (struct src_call){1000.0 + (double)i, 1001.0 + (double)i,
                                               i % 10 == 9 ? 503 : 200, 1 + (double)i / 100};
        t->src[k].calls = t->calls[k];
        t->src[k].ncalls = n[k];
        t->side[k].in.srcs = &t->src[k];
        t->side[k].in.n = 1;
        for (int l = 0; l < 2; l++) {
            t->lv[k][l].c = l ? 8 : 1;
            side_val_set(&t->lv[k][l].tput, (k + 1) * (l ? 400.0 : 50.0));
            side_val_set(&t->lv[k][l].p90, l ? 2.5 : 1.25);
        }
        t->side[k].lv = t->lv[k];
        t->side[k].nlv = 2;
    }
    t->m.b = &t->side[0];
    t->m.c = &t->side[1];
    snprintf(t->m.bname, sizeof t->m.bname, "%s", test_svg);
    snprintf(t->m.cname, sizeof t->m.cname, "qat");
}

/* Draws the scatter (at most max points a side) or, with max 0, the curve of sides
 * holding nb and nc requests and nlv levels each, into out (initialised here). */
static int test_plot(size_t nb, size_t nc, size_t nlv, size_t max, struct buf *out) {
    static struct test_sides t;
    const size_t n[2] = {nb, nc};
    test_sides_init(&t, n);
    for (int k = 0; k < 2; k++) t.side[k].nlv = nlv;
    buf_init(out, BUF_NO_CAP);
    return max ? out_html_plot_scatter(&t.m, max, out) : out_html_plot_curve(&t.m, out);
}

static void test_html_scatter_is_bounded_and_sampled_evenly(void) {
    struct buf out;
    CHECK(test_plot(95, 7, 2, 10, &out) == BUF_OK);
    const char *s = buf_str(&out);
    CHECK(test_count(s, "<circle") == 10 + 7);
    CHECK(strstr(s, "10 of 95 requests (sampled evenly in file order)"));
    CHECK(strstr(s, "qat: 7 of 7 requests; failed: hollow"));
    /* Requests i * 95 / 10: 0, 9, 19, ..., 85; every tenth failed (hollow). */
    static const int want[] = {0, 9, 19, 28, 38, 47, 57, 66, 76, 85};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char tip[200];
        snprintf(tip, sizeof tip, "&lt;svg onload=alert(1)&gt;: started at %d s, e2e ", want[i]);
        CHECK(strstr(s, tip));
    }
    CHECK(!strstr(s, "started at 10 s"));
    CHECK(test_count(s, "fill=\"#fff\" stroke=") == 2); /* the baseline's requests 9 and 19 */
    CHECK(strstr(s, "HTTP 503"));
    CHECK(!strstr(s, "<svg onload"));
    buf_free(&out);
}

static void test_html_scatter_and_curve_without_data_write_nothing(void) {
    struct buf scatter, curve;
    CHECK(test_plot(0, 0, 0, 10, &scatter) == BUF_OK && scatter.len == 0);
    CHECK(test_plot(0, 0, 0, 0, &curve) == BUF_OK && curve.len == 0);
    buf_free(&scatter);
    buf_free(&curve);
}

static void test_html_curve_has_a_point_per_level_and_side(void) {
    struct buf out;
    CHECK(test_plot(0, 0, 2, 0, &out) == BUF_OK);
    const char *s = buf_str(&out);
    CHECK(test_count(s, "<circle") == 4);
    CHECK(test_count(s, "<polyline") == 2);
    CHECK(strstr(s, "qat, sweep c8: 800 tokens/s, p90 latency 2.5 s"));
    CHECK(strstr(s, "&lt;svg onload=alert(1)&gt;, sweep c1: 50 tokens/s, p90 latency 1.25 s"));
    buf_free(&out);
}

int main(void) {
    test_html_text_from_files_is_inert();
    test_html_contents_link_each_heading_after_the_title();
    test_html_empty_chart_adds_nothing();
    test_html_scatter_is_bounded_and_sampled_evenly();
    test_html_scatter_and_curve_without_data_write_nothing();
    test_html_curve_has_a_point_per_level_and_side();
    return check_exit();
}
