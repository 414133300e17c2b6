#include "openloop_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "esc.h"
#include "fmt.h"

#define OPENLOOP_SVG_LEFT   70  /* the plot's left edge */
#define OPENLOOP_SVG_RIGHT  750 /* its right edge */
#define OPENLOOP_SVG_TOP    48  /* below the panel's heading */
#define OPENLOOP_SVG_PLOT_H 240 /* the plot's height */
#define OPENLOOP_SVG_HEIGHT (OPENLOOP_SVG_TOP + OPENLOOP_SVG_PLOT_H + 56)
#define OPENLOOP_SVG_TICKS  5
#define OPENLOOP_SVG_COLOR0 "#4e79a7" /* the baseline, as out_svg.c */
#define OPENLOOP_SVG_COLOR1 "#f28e2b"

/* The metric the panel draws: the first SLO's, else end-to-end latency at p90. */
static void openloop_svg_metric(const struct openloop_cmp *o, enum stream_metric *k, double *q,
                                double *bound) {
    *k = STREAM_E2E;
    *q = 0.9;
    *bound = NAN;
    if (o->any_slo && o->slo.n) {
        *k = o->slo.s[0].metric;
        *q = o->slo.s[0].q;
        *bound = o->slo.s[0].bound;
    }
}

/* The value a point shows: its check when the metric is the first SLO's, else
 * the p90 of end-to-end latency. */
static double openloop_svg_y(const struct openloop_cmp *o, const struct openloop_cmp_point *p) {
    if (o->any_slo && o->slo.n) return p->check[0].have ? p->check[0].v : NAN;
    return p->lat[STREAM_E2E].ok ? p->lat[STREAM_E2E].q[1] : NAN;
}

double openloop_svg_height(const struct cmp *m) {
    return m->open.have ? OPENLOOP_SVG_HEIGHT : 0;
}

static int openloop_svg_text(struct buf *b, double x, double y, const char *attrs, const char *s) {
    return buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs) || esc_xml(b, s) ||
           buf_adds(b, "</text>\n");
}

/* A step of 1, 2 or 5 times a power of ten that cuts [0, hi] in about OPENLOOP_SVG_TICKS. */
static double openloop_svg_step(double hi) {
    double raw = hi / OPENLOOP_SVG_TICKS, p = pow(10, floor(log10(raw))), f = raw / p;
    return p * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
}

/* The scale: an axis from 0 to a whole number of steps at or above hi. */
static double openloop_svg_axis_end(double hi, double *step) {
    if (!(hi > 0)) hi = 1;
    *step = openloop_svg_step(hi);
    return ceil(hi / *step - 1e-9) * *step;
}

struct openloop_svg_frame {
    double y0; /* the plot's top */
    double xmax, ymax, xstep, ystep;
};

static double openloop_svg_px(const struct openloop_svg_frame *f, double x) {
    return OPENLOOP_SVG_LEFT + x / f->xmax * (OPENLOOP_SVG_RIGHT - OPENLOOP_SVG_LEFT);
}

static double openloop_svg_py(const struct openloop_svg_frame *f, double y) {
    return f->y0 + OPENLOOP_SVG_PLOT_H - y / f->ymax * OPENLOOP_SVG_PLOT_H;
}

static int openloop_svg_axes(struct buf *b, const struct openloop_svg_frame *f,
                             const char *ylabel) {
    char t[FMT_CELL];
    double bottom = f->y0 + OPENLOOP_SVG_PLOT_H;
    int rc = buf_addf(b, "<path d=\"M%d %.1fV%.1fH%d\" stroke=\"#222\" fill=\"none\"/>\n",
                      OPENLOOP_SVG_LEFT, f->y0, bottom, OPENLOOP_SVG_RIGHT);
    long nx = lround(f->xmax / f->xstep), ny = lround(f->ymax / f->ystep);
    for (long i = 0; !rc && i <= nx; i++) {
        double x = (double)i * f->xstep;
        fmt_num(x, -1, t, sizeof t);
        rc = buf_addf(b, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"#222\"/>\n", openloop_svg_px(f, x),
                      bottom, bottom + 4) ||
             openloop_svg_text(b, openloop_svg_px(f, x), bottom + 16,
                               "font-size=\"11\" text-anchor=\"middle\"", t);
    }
    for (long i = 0; !rc && i <= ny; i++) {
        double y = (double)i * f->ystep;
        fmt_num(y, 6, t, sizeof t);
        rc = buf_addf(b,
                      "<path d=\"M%d %.1fH%d\" stroke=\"#eee\"/>\n"
                      "<path d=\"M%d %.1fH%d\" stroke=\"#222\"/>\n",
                      OPENLOOP_SVG_LEFT, openloop_svg_py(f, y), OPENLOOP_SVG_RIGHT,
                      OPENLOOP_SVG_LEFT - 4, openloop_svg_py(f, y), OPENLOOP_SVG_LEFT) ||
             openloop_svg_text(b, OPENLOOP_SVG_LEFT - 6, openloop_svg_py(f, y) + 4,
                               "font-size=\"11\" text-anchor=\"end\"", t);
    }
    return rc ||
           openloop_svg_text(
               b, (OPENLOOP_SVG_LEFT + OPENLOOP_SVG_RIGHT) / 2.0, bottom + 34,
               "font-size=\"12\" text-anchor=\"middle\"",
               "achieved rate: successful requests per second (labels: the asked rate)") ||
           openloop_svg_text(b, 10, f->y0 - 8, "font-size=\"12\"", ylabel);
}

/* One side's curve: a line through its points, a dot and the asked rate at each. */
static int openloop_svg_curve(struct buf *b, const struct openloop_cmp *o,
                              const struct openloop_cmp_side *x, const struct openloop_svg_frame *f,
                              const char *color) {
    int rc = 0, n = 0;
    char t[FMT_CELL];
    for (size_t i = 0; i < x->n && !rc; i++) {
        double vx = x->p[i].completion, vy = openloop_svg_y(o, &x->p[i]);
        if (!isfinite(vx) || !isfinite(vy)) continue;
        rc =
            n++ ? buf_addf(b, " L%.1f %.1f", openloop_svg_px(f, vx), openloop_svg_py(f, vy))
                : buf_addf(b, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"M%.1f %.1f",
                           color, openloop_svg_px(f, vx), openloop_svg_py(f, vy));
    }
    if (n) rc = rc || buf_adds(b, "\"/>\n");
    for (size_t i = 0; i < x->n && !rc; i++) {
        double vx = x->p[i].completion, vy = openloop_svg_y(o, &x->p[i]);
        if (!isfinite(vx) || !isfinite(vy)) continue;
        fmt_num(x->p[i].rate, -1, t, sizeof t);
        rc = buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n",
                      openloop_svg_px(f, vx), openloop_svg_py(f, vy), color) ||
             openloop_svg_text(b, openloop_svg_px(f, vx) + 5, openloop_svg_py(f, vy) - 6,
                               "font-size=\"10\" fill=\"#555\"", t);
    }
    return rc;
}

static int openloop_svg_bound(struct buf *b, const struct openloop_svg_frame *f, double bound) {
    char t[FMT_CELL + 16], v[FMT_CELL];
    if (!isfinite(bound)) return 0;
    fmt_num(bound, -1, v, sizeof v);
    snprintf(t, sizeof t, "SLO %s s", v);
    return buf_addf(b,
                    "<path d=\"M%d %.1fH%d\" stroke=\"#c0392b\" stroke-dasharray=\"6 4\" "
                    "fill=\"none\"/>\n",
                    OPENLOOP_SVG_LEFT, openloop_svg_py(f, bound), OPENLOOP_SVG_RIGHT) ||
           openloop_svg_text(b, OPENLOOP_SVG_RIGHT, openloop_svg_py(f, bound) - 4,
                             "font-size=\"11\" fill=\"#c0392b\" text-anchor=\"end\"", t);
}

int openloop_svg_draw(struct buf *b, const struct cmp *m, double y) {
    const struct openloop_cmp *o = &m->open;
    enum stream_metric k;
    double q, bound, xhi = 0, yhi = 0;
    char title[200], ylabel[120];
    if (!o->have) return 0;
    openloop_svg_metric(o, &k, &q, &bound);
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < o->x[s].n; i++) {
            double vx = o->x[s].p[i].completion, vy = openloop_svg_y(o, &o->x[s].p[i]);
            if (isfinite(vx) && isfinite(vy)) {
                xhi = fmax(xhi, vx);
                yhi = fmax(yhi, vy);
            }
        }
    if (isfinite(bound)) yhi = fmax(yhi, bound);
    struct openloop_svg_frame f = {.y0 = y + OPENLOOP_SVG_TOP};
    f.xmax = openloop_svg_axis_end(xhi, &f.xstep);
    f.ymax = openloop_svg_axis_end(yhi * 1.05, &f.ystep);
    snprintf(title, sizeof title, "Latency against achieved rate: p%g %s from the intended start%s",
             100 * q, slo_metric_text(k), isfinite(bound) ? " (dashed: the SLO)" : "");
    snprintf(ylabel, sizeof ylabel, "p%g %s, seconds", 100 * q, stream_name(k));
    return openloop_svg_text(b, 10, y + 20, "font-size=\"14\" font-weight=\"bold\"", title) ||
           openloop_svg_axes(b, &f, ylabel) || openloop_svg_bound(b, &f, bound) ||
           openloop_svg_curve(b, o, &o->x[0], &f, OPENLOOP_SVG_COLOR0) ||
           openloop_svg_curve(b, o, &o->x[1], &f, OPENLOOP_SVG_COLOR1);
}
