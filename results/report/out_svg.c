#include "out_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "esc.h"
#include "fmt.h"
#include "openloop_svg.h"
#include "scaling_svg.h"
#include "prose.h"

#define OUT_SVG_WIDTH   780
#define OUT_SVG_BAR_X   290 /* where bars start */
#define OUT_SVG_BAR_W   360 /* the longest bar */
#define OUT_SVG_RATIO_X 770 /* right edge of the ratio column */
#define OUT_SVG_ROW_H   54
#define OUT_SVG_TOP     86
#define OUT_SVG_PANEL_H 30 /* a streaming panel's heading */
#define OUT_SVG_BASE    "#4e79a7"
#define OUT_SVG_CAND    "#f28e2b"

static int out_svg_text(struct buf *b, double x, double y, const char *attrs, const char *s) {
    return buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs) || esc_xml(b, s) ||
           buf_adds(b, "</text>\n");
}

/* The scale of a row: the larger value (or the count's total). */
static double out_svg_max(const struct cmp_row *r) {
    double mx = 0;
    if (r->b.ok) mx = fmax(mx, r->b_total > 0 ? (double)(r->b_total + r->b_unanswered) : r->b.v);
    if (r->c.ok) mx = fmax(mx, r->c_total > 0 ? (double)(r->c_total + r->c_unanswered) : r->c.v);
    if (r->ci_b.ok) mx = fmax(mx, r->ci_b.hi);
    if (r->ci_c.ok) mx = fmax(mx, r->ci_c.hi);
    return mx;
}

/* One side's bar of r at y, its whisker, and its value's label after them
 * (and after right, another mark's end, when larger). */
static int out_svg_bar(struct buf *b, const struct cmp_row *r, const struct side_val *v, long total,
                       long unanswered, const struct interval *ci, double mx, double y,
                       const char *color, double right) {
    char label[FMT_CELL];
    fmt_val(r, v, total, unanswered, label, sizeof label);
    if (!v->ok || !(mx > 0))
        return out_svg_text(b, OUT_SVG_BAR_X + 4, y + 12, "font-size=\"12\" fill=\"#888\"", label);
    double w = v->v > 0 ? fmax(1, v->v / mx * OUT_SVG_BAR_W) : 0;
    int rc = buf_addf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>\n",
                      OUT_SVG_BAR_X, y, w, color);
    if (!rc && ci->ok && isfinite(ci->lo) && isfinite(ci->hi)) {
        double x0 = OUT_SVG_BAR_X + ci->lo / mx * OUT_SVG_BAR_W,
               x1 = OUT_SVG_BAR_X + ci->hi / mx * OUT_SVG_BAR_W;
        rc = buf_addf(b,
                      "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\" stroke=\"#222\" "
                      "fill=\"none\"/>\n",
                      x0, y + 8, x1, x0, y + 3, y + 13, x1, y + 3, y + 13);
        w = fmax(w, x1 - OUT_SVG_BAR_X);
    }
    w = fmax(w, right - OUT_SVG_BAR_X);
    return rc || out_svg_text(b, OUT_SVG_BAR_X + w + 6, y + 12, "font-size=\"12\"", label);
}

/* The ratio's text: "1.09x", "n/a" or "". */
static void out_svg_ratio(const struct cmp_row *r, char *ratio, size_t cap) {
    fmt_ratio(r, ratio, cap - 1);
    if (ratio[0] && r->ratio.ok) {
        fmt_sig(r->ratio.v, ratio, cap - 1);
        strcat(ratio, "x");
    }
}

static int out_svg_row(struct buf *b, const struct cmp_row *r, double y) {
    char ratio[FMT_CELL + 8];
    double mx = out_svg_max(r);
    out_svg_ratio(r, ratio, sizeof ratio);
    if (ratio[0] && r->ratio.ok) {
        fmt_sig(r->ratio.v, ratio, sizeof ratio - 1);
        strcat(ratio, "x");
    }
    int rc = out_svg_text(b, 10, y + 24, "font-size=\"13\"", r->name) ||
             out_svg_bar(b, r, &r->b, r->b_total, r->b_unanswered, &r->ci_b, mx, y + 4,
                         OUT_SVG_BASE, 0) ||
             out_svg_bar(b, r, &r->c, r->c_total, r->c_unanswered, &r->ci_c, mx, y + 24,
                         OUT_SVG_CAND, 0);
    if (!rc && ratio[0])
        rc = out_svg_text(b, OUT_SVG_RATIO_X, y + 24,
                          r->ratio.ok ? "font-size=\"14\" font-weight=\"bold\" text-anchor=\"end\""
                                      : "font-size=\"13\" fill=\"#888\" text-anchor=\"end\"",
                          ratio);
    return rc ||
           buf_addf(b, "<line x1=\"10\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                    OUT_SVG_RATIO_X, y + OUT_SVG_ROW_H - 4, y + OUT_SVG_ROW_H - 4);
}

/* ---- streaming panels ---- */

static const char *const out_svg_panels[][2] = {
    {"ttft_", "Time to first token, seconds (bars: p50, whisker: 95% interval; ticks: p90, p99)"},
    {"itl_", "Inter-token latency per token, seconds (the same)"},
};

/* Whether r is a panel's row: metric's p50. */
static bool out_svg_panel_row(const struct cmp_row *r, const char *metric) {
    size_t n = strlen(r->name), k = strlen("_p50_seconds");
    return r->group == CMP_STREAM && strncmp(r->name, metric, strlen(metric)) == 0 && n > k &&
           strcmp(r->name + n - k, "_p50_seconds") == 0;
}

/* r's sibling at p90 or p99 (pct), or NULL. */
static const struct cmp_row *out_svg_tail(const struct cmp *m, const struct cmp_row *r,
                                          const char *pct) {
    char name[sizeof r->name];
    snprintf(name, sizeof name, "%s", r->name);
    char *at = strstr(name, "_p50_seconds");
    if (!at) return NULL;
    memcpy(at + 2, pct, 2);
    return cmp_row(m, name);
}

/* The scale of a panel: its largest value, interval end or tail. */
static double out_svg_panel_max(const struct cmp *m, const char *metric) {
    double mx = 0;
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *r = &m->rows[i];
        if (!out_svg_panel_row(r, metric)) continue;
        mx = fmax(mx, out_svg_max(r));
        for (int t = 0; t < 2; t++) {
            const struct cmp_row *x = out_svg_tail(m, r, t ? "99" : "90");
            if (x && x->b.ok) mx = fmax(mx, x->b.v);
            if (x && x->c.ok) mx = fmax(mx, x->c.v);
        }
    }
    return mx;
}

/* Where one side's tick at p90 (t 0) or p99 (t 1) goes, or 0 for none. */
static double out_svg_tick_x(const struct cmp *m, const struct cmp_row *r, int k, int t,
                             double mx) {
    const struct cmp_row *x = out_svg_tail(m, r, t ? "99" : "90");
    const struct side_val *v = x ? (k ? &x->c : &x->b) : NULL;
    return v && v->ok && mx > 0 ? OUT_SVG_BAR_X + v->v / mx * OUT_SVG_BAR_W : 0;
}

/* One side's bar with ticks at its p90 and p99, the label after them. */
static int out_svg_ticked(struct buf *b, const struct cmp *m, const struct cmp_row *r, int k,
                          double mx, double y) {
    double x90 = out_svg_tick_x(m, r, k, 0, mx), x99 = out_svg_tick_x(m, r, k, 1, mx);
    int rc = out_svg_bar(b, r, k ? &r->c : &r->b, 0, 0, k ? &r->ci_c : &r->ci_b, mx, y,
                         k ? OUT_SVG_CAND : OUT_SVG_BASE, fmax(x90, x99));
    for (int t = 0; t < 2 && !rc; t++)
        if (t ? x99 : x90)
            rc = buf_addf(b, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"#222\" stroke-width=\"%d\"/>\n",
                          t ? x99 : x90, y - 2, y + 18, t ? 1 : 2);
    return rc;
}

static int out_svg_panel_row_draw(struct buf *b, const struct cmp *m, const struct cmp_row *r,
                                  double mx, double y) {
    char label[sizeof r->name], ratio[FMT_CELL + 8];
    const char *what = strchr(r->name, '_');
    snprintf(label, sizeof label, "%s", what ? what + 1 : r->name);
    char *end = strstr(label, "_p50_seconds");
    if (end) *end = '\0';
    out_svg_ratio(r, ratio, sizeof ratio);
    int rc = out_svg_text(b, 24, y + 24, "font-size=\"13\"", label) ||
             out_svg_ticked(b, m, r, 0, mx, y + 4) || out_svg_ticked(b, m, r, 1, mx, y + 24);
    if (!rc && ratio[0])
        rc = out_svg_text(b, OUT_SVG_RATIO_X, y + 24,
                          r->ratio.ok ? "font-size=\"14\" font-weight=\"bold\" text-anchor=\"end\""
                                      : "font-size=\"13\" fill=\"#888\" text-anchor=\"end\"",
                          ratio);
    return rc;
}

/* The rows a panel draws (0: no panel). */
static size_t out_svg_panel_rows(const struct cmp *m, const char *metric) {
    size_t n = 0;
    for (size_t i = 0; i < m->nrows; i++) n += out_svg_panel_row(&m->rows[i], metric);
    return n;
}

/* The TTFT and ITL panels from y; *y moves past them. */
static int out_svg_panels_draw(struct buf *b, const struct cmp *m, double *y) {
    int rc = 0;
    for (size_t p = 0; p < sizeof out_svg_panels / sizeof out_svg_panels[0] && !rc; p++) {
        const char *metric = out_svg_panels[p][0];
        double mx = out_svg_panel_max(m, metric);
        if (!out_svg_panel_rows(m, metric)) continue;
        rc = out_svg_text(b, 10, *y + 20, "font-size=\"14\" font-weight=\"bold\"",
                          out_svg_panels[p][1]);
        *y += OUT_SVG_PANEL_H;
        for (size_t i = 0; i < m->nrows && !rc; i++) {
            if (!out_svg_panel_row(&m->rows[i], metric)) continue;
            rc = out_svg_panel_row_draw(b, m, &m->rows[i], mx, *y);
            *y += OUT_SVG_ROW_H;
        }
    }
    return rc;
}

static int out_svg_legend(struct buf *b, const struct cmp *m) {
    char title[400], base[200], cand[200];
    snprintf(title, sizeof title, "%s vs %s", m->bname, m->cname);
    snprintf(base, sizeof base, "baseline: %s", m->bname);
    snprintf(cand, sizeof cand, "candidate: %s", m->cname);
    return out_svg_text(b, 10, 26, "font-size=\"18\" font-weight=\"bold\"", title) ||
           buf_addf(b, "<rect x=\"10\" y=\"40\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
                    OUT_SVG_BASE) ||
           out_svg_text(b, 28, 51, "font-size=\"12\"", base) ||
           buf_addf(b, "<rect x=\"290\" y=\"40\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
                    OUT_SVG_CAND) ||
           out_svg_text(b, 308, 51, "font-size=\"12\"", cand) ||
           out_svg_text(b, OUT_SVG_RATIO_X, 76,
                        "font-size=\"12\" text-anchor=\"end\" fill=\"#555\"",
                        "ratio candidate / baseline") ||
           out_svg_text(b, OUT_SVG_BAR_X, 76, "font-size=\"12\" fill=\"#555\"",
                        "bars: value (whisker: 95% interval)");
}

static int out_svg_footer(struct buf *b, const struct cmp *m, double y) {
    char line[600];
    if (m->quiz.have)
        snprintf(line, sizeof line, "identical answers: %ld/%ld%s", m->quiz.identical, m->quiz.both,
                 m->quiz.both < m->quiz.asked ? " (questions both sides answered)" : "");
    else
        snprintf(line, sizeof line, "identical answers: n/a (%s)", m->quiz.why);
    int rc = out_svg_text(b, 10, y + 16, "font-size=\"12\"", line);
    if (!rc && m->quiz.have_mcnemar) {
        snprintf(line, sizeof line,
                 "McNemar exact test: %u only %s right, %u only %s right, p = %.3f", m->quiz.mc_b,
                 m->bname, m->quiz.mc_c, m->cname, m->quiz.mc_p);
        rc = out_svg_text(b, 10, y + 34, "font-size=\"12\"", line);
    }
    struct buf scale;
    buf_init(&scale, BUF_NO_CAP);
    if (!rc) rc = prose_scale(m, &scale);
    if (!rc && scale.len)
        rc = out_svg_text(b, 10, y + 52, "font-size=\"11\" fill=\"#555\"", buf_str(&scale));
    buf_free(&scale);
    return rc;
}

int out_svg_render(const struct cmp *m, struct buf *out) {
    size_t n = 0;
    double panels = 0;
    for (size_t i = 0; i < m->nrows; i++) n += m->rows[i].group == CMP_MAIN;
    for (size_t p = 0; p < sizeof out_svg_panels / sizeof out_svg_panels[0]; p++) {
        size_t k = out_svg_panel_rows(m, out_svg_panels[p][0]);
        panels += k ? OUT_SVG_PANEL_H + (double)k * OUT_SVG_ROW_H : 0;
    }
    double height = OUT_SVG_TOP + (double)n * OUT_SVG_ROW_H + panels + openloop_svg_height(m) +
                    scaling_svg_height(m) + 70;
    int rc = buf_addf(out,
                      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
                      "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\">\n"
                      "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
                      OUT_SVG_WIDTH, height, OUT_SVG_WIDTH, height) ||
             out_svg_legend(out, m);
    double y = OUT_SVG_TOP;
    for (size_t i = 0; i < m->nrows && !rc; i++) {
        if (m->rows[i].group != CMP_MAIN) continue;
        rc = out_svg_row(out, &m->rows[i], y);
        y += OUT_SVG_ROW_H;
    }
    rc = rc || out_svg_panels_draw(out, m, &y) || openloop_svg_draw(out, m, y);
    y += openloop_svg_height(m);
    rc = rc || scaling_svg_draw(out, m, y);
    y += scaling_svg_height(m);
    rc = rc || out_svg_footer(out, m, y) || buf_adds(out, "</svg>\n");
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
