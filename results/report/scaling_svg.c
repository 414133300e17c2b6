#include "scaling_svg.h"

#include <math.h>
#include <stdio.h>

#include "esc.h"
#include "fmt.h"
#include "scaling.h"

#define SCALING_SVG_X0      70  /* the strips' left edge */
#define SCALING_SVG_X1      750 /* their right edge */
#define SCALING_SVG_STRIP_H 70  /* one strip's height */
#define SCALING_SVG_GAP     26  /* between strips: the next one's label */
#define SCALING_SVG_HEAD    40  /* the side's title */
#define SCALING_SVG_SIDE_H  (SCALING_SVG_HEAD + 3 * (SCALING_SVG_STRIP_H + SCALING_SVG_GAP) + 24)

/* The first ramp input of side s, or NULL. */
static const struct src *scaling_svg_src(const struct side *s) {
    for (size_t i = 0; i < s->in.n; i++)
        if (s->in.srcs[i].scaling) return &s->in.srcs[i];
    return NULL;
}

double scaling_svg_height(const struct cmp *m) {
    return (scaling_svg_src(m->b) ? SCALING_SVG_SIDE_H : 0) +
           (scaling_svg_src(m->c) ? SCALING_SVG_SIDE_H : 0);
}

/* A label at (x, y), escaped. */
static int scaling_svg_label(struct buf *b, double x, double y, const char *style, const char *s) {
    return buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, style) || esc_xml(b, s) ||
           buf_adds(b, "</text>\n");
}

/* What a strip shows of a window (NAN: nothing). */
typedef double scaling_svg_value(const struct scaling_window *w);

static double scaling_svg_rate(const struct scaling_window *w) {
    return w->rate;
}
static double scaling_svg_instances(const struct scaling_window *w) {
    return w->instances;
}
static double scaling_svg_copies(const struct scaling_window *w) {
    return w->copies;
}
static double scaling_svg_ttft(const struct scaling_window *w) {
    return w->ttft_p90;
}

/* One strip with its top at y: a frame, the largest value on its axis, a
 * step line through the windows that have a value. */
static int scaling_svg_strip(struct buf *b, const struct scaling *x, double y, const char *what,
                             scaling_svg_value *value, const char *color) {
    double hi = 0, w = (SCALING_SVG_X1 - SCALING_SVG_X0) / (double)x->nw;
    char top[FMT_CELL];
    for (size_t i = 0; i < x->nw; i++)
        if (isfinite(value(&x->w[i]))) hi = fmax(hi, value(&x->w[i]));
    if (!(hi > 0)) hi = 1;
    fmt_num(hi, -1, top, sizeof top);
    int rc = scaling_svg_label(b, 10, y - 6, "font-size=\"12\"", what) ||
             buf_addf(b,
                      "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" "
                      "stroke=\"#bbb\"/>\n",
                      SCALING_SVG_X0, y, SCALING_SVG_X1 - SCALING_SVG_X0, SCALING_SVG_STRIP_H) ||
             scaling_svg_label(b, SCALING_SVG_X0 - 6, y + 10,
                               "font-size=\"10\" text-anchor=\"end\"", top) ||
             scaling_svg_label(b, SCALING_SVG_X0 - 6, y + SCALING_SVG_STRIP_H,
                               "font-size=\"10\" text-anchor=\"end\"", "0");
    bool open = false;
    for (size_t i = 0; i < x->nw && !rc; i++) {
        double v = value(&x->w[i]);
        if (!isfinite(v)) {
            if (open) rc = buf_adds(b, "\"/>\n");
            open = false;
            continue;
        }
        double py = y + SCALING_SVG_STRIP_H * (1 - v / hi), px = SCALING_SVG_X0 + w * (double)i;
        rc = open ? buf_addf(b, " L%.1f %.1f H%.1f", px, py, px + w)
                  : buf_addf(b,
                             "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                             "d=\"M%.1f %.1f H%.1f",
                             color, px, py, px + w);
        open = true;
    }
    return rc || (open && buf_adds(b, "\"/>\n"));
}

static int scaling_svg_side(struct buf *b, const char *name, const struct src *s, double y) {
    const struct scaling *x = s->scaling;
    char title[400], end[FMT_CELL];
    snprintf(title, sizeof title, "Scaling of %s under the ramp (%s)", name,
             !x->timeline      ? "no timeline: no instances"
             : x->component[0] ? "copies from sm-timeline"
                               : "instances from sm-timeline");
    fmt_num(x->duration_s, -1, end, sizeof end);
    double s0 = y + SCALING_SVG_HEAD, step = SCALING_SVG_STRIP_H + SCALING_SVG_GAP;
    double bottom = s0 + 2 * step + SCALING_SVG_STRIP_H;
    return scaling_svg_label(b, 10, y + 20, "font-size=\"14\" font-weight=\"bold\"", title) ||
           scaling_svg_strip(b, x, s0, "offered rate, requests per second", scaling_svg_rate,
                             "#4e79a7") ||
           scaling_svg_strip(
               b, x, s0 + step,
               x->component[0] ? "copies of the inference component serving" : "instances serving",
               x->component[0] ? scaling_svg_copies : scaling_svg_instances, "#59a14f") ||
           scaling_svg_strip(b, x, s0 + 2 * step, "p90 TTFT from the intended start, seconds",
                             scaling_svg_ttft, "#e15759") ||
           scaling_svg_label(b, SCALING_SVG_X0, bottom + 14, "font-size=\"10\"", "0") ||
           scaling_svg_label(b, SCALING_SVG_X1, bottom + 14, "font-size=\"10\" text-anchor=\"end\"",
                             end) ||
           scaling_svg_label(b, (SCALING_SVG_X0 + SCALING_SVG_X1) / 2.0, bottom + 14,
                             "font-size=\"11\" text-anchor=\"middle\"",
                             "seconds from the ramp's start (real time)");
}

int scaling_svg_draw(struct buf *b, const struct cmp *m, double y) {
    const struct src *sb = scaling_svg_src(m->b), *sc = scaling_svg_src(m->c);
    int rc = sb ? scaling_svg_side(b, m->bname, sb, y) : 0;
    if (sb) y += SCALING_SVG_SIDE_H;
    return rc || (sc && scaling_svg_side(b, m->cname, sc, y)) ? BUF_ERR_NOMEM : BUF_OK;
}
