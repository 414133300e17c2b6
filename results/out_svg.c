#include "out_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "esc.h"
#include "fmt.h"

#define OUT_SVG_WIDTH   780
#define OUT_SVG_BAR_X   290 /* where bars start */
#define OUT_SVG_BAR_W   360 /* the longest bar */
#define OUT_SVG_RATIO_X 770 /* right edge of the ratio column */
#define OUT_SVG_ROW_H   54
#define OUT_SVG_TOP     86
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

static int out_svg_bar(struct buf *b, const struct cmp_row *r, const struct side_val *v, long total,
                       long unanswered, const struct interval *ci, double mx, double y,
                       const char *color) {
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
    return rc || out_svg_text(b, OUT_SVG_BAR_X + w + 6, y + 12, "font-size=\"12\"", label);
}

static int out_svg_row(struct buf *b, const struct cmp_row *r, double y) {
    char ratio[FMT_CELL + 8];
    double mx = out_svg_max(r);
    fmt_ratio(r, ratio, sizeof ratio);
    if (ratio[0] && r->ratio.ok) {
        fmt_sig(r->ratio.v, ratio, sizeof ratio - 1);
        strcat(ratio, "x");
    }
    int rc =
        out_svg_text(b, 10, y + 24, "font-size=\"13\"", r->name) ||
        out_svg_bar(b, r, &r->b, r->b_total, r->b_unanswered, &r->ci_b, mx, y + 4, OUT_SVG_BASE) ||
        out_svg_bar(b, r, &r->c, r->c_total, r->c_unanswered, &r->ci_c, mx, y + 24, OUT_SVG_CAND);
    if (!rc && ratio[0])
        rc = out_svg_text(b, OUT_SVG_RATIO_X, y + 24,
                          r->ratio.ok ? "font-size=\"14\" font-weight=\"bold\" text-anchor=\"end\""
                                      : "font-size=\"13\" fill=\"#888\" text-anchor=\"end\"",
                          ratio);
    return rc ||
           buf_addf(b, "<line x1=\"10\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                    OUT_SVG_RATIO_X, y + OUT_SVG_ROW_H - 4, y + OUT_SVG_ROW_H - 4);
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
    if (!rc && m->scale_note[0])
        rc = out_svg_text(b, 10, y + 52, "font-size=\"11\" fill=\"#555\"", m->scale_note);
    return rc;
}

int out_svg_render(const struct cmp *m, struct buf *out) {
    size_t n = 0;
    for (size_t i = 0; i < m->nrows; i++) n += m->rows[i].group == CMP_MAIN;
    double height = OUT_SVG_TOP + (double)n * OUT_SVG_ROW_H + 70;
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
    rc = rc || out_svg_footer(out, m, y) || buf_adds(out, "</svg>\n");
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
