#include "out_html_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "fmt.h"

#define OUT_HTML_PLOT_W      780
#define OUT_HTML_PLOT_H      380
#define OUT_HTML_PLOT_X0     80  /* the plot area's left edge */
#define OUT_HTML_PLOT_X1     760 /* its right edge */
#define OUT_HTML_PLOT_Y0     70  /* its top */
#define OUT_HTML_PLOT_Y1     320 /* its bottom */
#define OUT_HTML_PLOT_TIP    640 /* bytes of a point's hover text */
#define OUT_HTML_PLOT_NSIDES 2

static const char *const out_html_plot_colors[OUT_HTML_PLOT_NSIDES] = {"#4e79a7", "#f28e2b"};

/* An axis from 0 to end, with a tick every step. */
struct out_html_plot_axis {
    double end, step;
};

/* The axis for values up to hi: a step of 1, 2, 2.5 or 5 times a power of ten
 * giving at most six intervals. */
static struct out_html_plot_axis out_html_plot_axis(double hi) {
    static const double mult[] = {1, 2, 2.5, 5, 10};
    struct out_html_plot_axis a = {1, 0.2};
    if (!(hi > 0) || !isfinite(hi)) return a;
    double base = pow(10, floor(log10(hi / 6)));
    for (size_t i = 0; i < sizeof mult / sizeof mult[0]; i++) {
        a.step = base * mult[i];
        if (hi / a.step <= 6 + 1e-9) break;
    }
    a.end = ceil(hi / a.step - 1e-9) * a.step;
    return a;
}

/* A value for a tick or a hover text: four significant digits at most. */
static void out_html_plot_num(double v, char *out, size_t cap) {
    snprintf(out, cap, "%.4g", fabs(v) < 1e-12 ? 0.0 : v);
}

static double out_html_plot_px(const struct out_html_plot_axis *x, double v) {
    return OUT_HTML_PLOT_X0 + v / x->end * (OUT_HTML_PLOT_X1 - OUT_HTML_PLOT_X0);
}

static double out_html_plot_py(const struct out_html_plot_axis *y, double v) {
    return OUT_HTML_PLOT_Y1 - v / y->end * (OUT_HTML_PLOT_Y1 - OUT_HTML_PLOT_Y0);
}

static int out_html_plot_text(struct buf *b, double x, double y, const char *attrs, const char *s) {
    return buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs) || esc_xml(b, s) ||
           buf_adds(b, "</text>\n");
}

/* The document's start, its heading, and both axes with their ticks and names. */
static int out_html_plot_frame(struct buf *b, const char *heading,
                               const struct out_html_plot_axis *x,
                               const struct out_html_plot_axis *y, const char *xname,
                               const char *yname) {
    char t[FMT_CELL];
    int rc = buf_addf(b,
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
                      "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
                      OUT_HTML_PLOT_W, OUT_HTML_PLOT_H, OUT_HTML_PLOT_W, OUT_HTML_PLOT_H) ||
             out_html_plot_text(b, 10, 22, "font-size=\"15\" font-weight=\"bold\"", heading) ||
             buf_addf(b, "<path d=\"M%d %dV%dH%d\" stroke=\"#222\" fill=\"none\"/>\n",
                      OUT_HTML_PLOT_X0, OUT_HTML_PLOT_Y0, OUT_HTML_PLOT_Y1, OUT_HTML_PLOT_X1);
    long nx = lround(x->end / x->step), ny = lround(y->end / y->step);
    for (long i = 0; i <= nx && !rc; i++) {
        double v = (double)i * x->step, px = out_html_plot_px(x, v);
        out_html_plot_num(v, t, sizeof t);
        rc = buf_addf(b, "<path d=\"M%.1f %dV%d\" stroke=\"#222\"/>\n", px, OUT_HTML_PLOT_Y1,
                      OUT_HTML_PLOT_Y1 + 5) ||
             out_html_plot_text(b, px, OUT_HTML_PLOT_Y1 + 18,
                                "font-size=\"11\" text-anchor=\"middle\"", t);
    }
    for (long i = 0; i <= ny && !rc; i++) {
        double v = (double)i * y->step, py = out_html_plot_py(y, v);
        out_html_plot_num(v, t, sizeof t);
        rc = buf_addf(b, "<path d=\"M%d %.1fH%d\" stroke=\"#ddd\"/>\n", OUT_HTML_PLOT_X0, py,
                      OUT_HTML_PLOT_X1) ||
             out_html_plot_text(b, OUT_HTML_PLOT_X0 - 6, py + 4,
                                "font-size=\"11\" text-anchor=\"end\"", t);
    }
    return rc ||
           out_html_plot_text(b, (OUT_HTML_PLOT_X0 + OUT_HTML_PLOT_X1) / 2.0, OUT_HTML_PLOT_Y1 + 40,
                              "font-size=\"12\" text-anchor=\"middle\"", xname) ||
           buf_addf(b,
                    "<text transform=\"translate(18 %d) rotate(-90)\" font-size=\"12\" "
                    "text-anchor=\"middle\">",
                    (OUT_HTML_PLOT_Y0 + OUT_HTML_PLOT_Y1) / 2) ||
           esc_xml(b, yname) || buf_adds(b, "</text>\n");
}

/* A legend line for side k at row (0, 1). */
static int out_html_plot_legend(struct buf *b, int k, int row, const char *line) {
    double y = 38 + 16 * row;
    return buf_addf(b, "<rect x=\"10\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
                    y - 9, out_html_plot_colors[k]) ||
           out_html_plot_text(b, 26, y, "font-size=\"12\"", line);
}

/* A point: a circle (square when square) with its hover text; hollow when hollow. */
static int out_html_plot_point(struct buf *b, double px, double py, double r, int k, bool square,
                               bool hollow, const char *tip) {
    const char *color = out_html_plot_colors[k];
    int rc = square ? buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
                               px - r, py - r, 2 * r, 2 * r)
                    : buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", px, py, r);
    rc = rc || buf_addf(b, hollow ? " fill=\"#fff\" stroke=\"%s\"" : " fill=\"%s\"", color) ||
         buf_adds(b, " data-tip=\"") || esc_xml(b, tip) || buf_adds(b, "\"><title>") ||
         esc_xml(b, tip) || buf_adds(b, square ? "</title></rect>\n" : "</title></circle>\n");
    return rc;
}

/* ---- the latency-throughput curve ---- */

/* One point of a curve: x tokens/s, y p90 seconds, what it measured. */
struct out_html_plot_pt {
    double x, y;
    char what[32];
};

/* Side k's points: the sweep's levels (open 0) or the open loop's rates (open 1), into
 * pts (cap of them); returns how many. */
static size_t out_html_plot_series(const struct cmp *m, int k, int open,
                                   struct out_html_plot_pt *pts, size_t cap) {
    const struct side *s = k ? m->c : m->b;
    size_t n = 0;
    if (!open)
        for (size_t i = 0; s && i < s->nlv && n < cap; i++) {
            const struct side_level *l = &s->lv[i];
            if (!l->tput.ok || !l->p90.ok) continue;
            pts[n] = (struct out_html_plot_pt){l->tput.v, l->p90.v, ""};
            snprintf(pts[n++].what, sizeof pts[0].what, "c%d", l->c);
        }
    for (size_t i = 0; open && m->open.have && i < m->open.x[k].n && n < cap; i++) {
        const struct openloop_cmp_point *p = &m->open.x[k].p[i];
        const struct openloop_cmp_lat *e = &p->lat[STREAM_E2E];
        if (!isfinite(p->tokens) || !e->ok || !isfinite(e->q[1])) continue;
        pts[n] = (struct out_html_plot_pt){p->tokens, e->q[1], ""};
        snprintf(pts[n++].what, sizeof pts[0].what, "%g requests/s", p->rate);
    }
    return n;
}

static int out_html_plot_curve_draw(struct buf *b, const struct cmp *m, int k, int open,
                                    const struct out_html_plot_pt *pts, size_t n,
                                    const struct out_html_plot_axis *x,
                                    const struct out_html_plot_axis *y) {
    char tip[OUT_HTML_PLOT_TIP], vx[FMT_CELL], vy[FMT_CELL];
    const char *name = k ? m->cname : m->bname;
    int rc =
        n > 1 ? buf_addf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
                         out_html_plot_colors[k], open ? " stroke-dasharray=\"6 4\"" : "")
              : 0;
    for (size_t i = 0; n > 1 && i < n && !rc; i++)
        rc = buf_addf(b, "%s%.1f,%.1f", i ? " " : "", out_html_plot_px(x, pts[i].x),
                      out_html_plot_py(y, pts[i].y));
    if (n > 1) rc = rc || buf_adds(b, "\"/>\n");
    for (size_t i = 0; i < n && !rc; i++) {
        out_html_plot_num(pts[i].x, vx, sizeof vx);
        out_html_plot_num(pts[i].y, vy, sizeof vy);
        snprintf(tip, sizeof tip, "%s, %s %s: %s tokens/s, p90 latency %s s", name,
                 open ? "open loop at" : "sweep", pts[i].what, vx, vy);
        rc = out_html_plot_point(b, out_html_plot_px(x, pts[i].x), out_html_plot_py(y, pts[i].y), 4,
                                 k, open, false, tip);
    }
    return rc;
}

int out_html_plot_curve(const struct cmp *m, struct buf *out) {
    struct out_html_plot_pt *pts[OUT_HTML_PLOT_NSIDES][2] = {{NULL}};
    size_t n[OUT_HTML_PLOT_NSIDES][2], total = 0;
    double xmax = 0, ymax = 0;
    int rc = 0;
    for (int k = 0; k < OUT_HTML_PLOT_NSIDES && !rc; k++)
        for (int o = 0; o < 2 && !rc; o++) {
            const struct side *s = k ? m->c : m->b;
            size_t cap = o ? (m->open.have ? m->open.x[k].n : 0) : (s ? s->nlv : 0);
            n[k][o] = 0;
            if (!cap) continue;
            if (!(pts[k][o] = malloc(cap * sizeof *pts[k][o]))) rc = BUF_ERR_NOMEM;
            if (!rc) n[k][o] = out_html_plot_series(m, k, o, pts[k][o], cap);
            total += n[k][o];
            for (size_t i = 0; i < n[k][o]; i++) {
                xmax = fmax(xmax, pts[k][o][i].x);
                ymax = fmax(ymax, pts[k][o][i].y);
            }
        }
    struct out_html_plot_axis x = out_html_plot_axis(xmax), y = out_html_plot_axis(ymax);
    if (!rc && total)
        rc = out_html_plot_frame(out, "p90 end-to-end latency against throughput", &x, &y,
                                 "tokens per second (completion tokens, successful requests)",
                                 "p90 latency, seconds");
    for (int k = 0; k < OUT_HTML_PLOT_NSIDES && !rc && total; k++) {
        char line[400];
        snprintf(line, sizeof line, "%s %s: %s%s%s", k ? "candidate" : "baseline",
                 k ? m->cname : m->bname, n[k][0] ? "sweep levels (circles, solid)" : "",
                 n[k][0] && n[k][1] ? "; " : "",
                 n[k][1]   ? "open-loop rates (squares, dashed; latency from the intended start)"
                 : n[k][0] ? ""
                           : "no point");
        rc = out_html_plot_legend(out, k, k, line);
        for (int o = 0; o < 2 && !rc; o++)
            rc = out_html_plot_curve_draw(out, m, k, o, pts[k][o], n[k][o], &x, &y);
    }
    if (!rc && total) rc = buf_adds(out, "</svg>\n");
    for (int k = 0; k < OUT_HTML_PLOT_NSIDES; k++)
        for (int o = 0; o < 2; o++) free(pts[k][o]);
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}

/* ---- the per-request scatter ---- */

/* Side k's requests with a start on the wall clock: how many, the first start, the
 * largest start after it and the largest latency. */
static size_t out_html_plot_calls(const struct side *s, double *t0, double *tspan, double *ymax) {
    size_t n = 0;
    double first = INFINITY, last = -INFINITY;
    *ymax = 0;
    for (size_t i = 0; s && i < s->in.n; i++)
        for (size_t j = 0; j < s->in.srcs[i].ncalls; j++) {
            const struct src_call *c = &s->in.srcs[i].calls[j];
            if (!isfinite(c->start) || !isfinite(c->wall)) continue;
            n++;
            first = fmin(first, c->start);
            last = fmax(last, c->start);
            *ymax = fmax(*ymax, c->wall);
        }
    *t0 = n ? first : 0;
    *tspan = n ? last - first : 0;
    return n;
}

/* Draws every step-th of side k's n requests (the i-th drawn: request i * n / max). */
static int out_html_plot_scatter_side(struct buf *b, const struct cmp *m, int k, size_t n,
                                      size_t max, double t0, const struct out_html_plot_axis *x,
                                      const struct out_html_plot_axis *y) {
    const struct side *s = k ? m->c : m->b;
    const char *name = k ? m->cname : m->bname;
    char tip[OUT_HTML_PLOT_TIP], vx[FMT_CELL], vy[FMT_CELL];
    size_t at = 0, drawn = 0, want = 0;
    int rc = 0;
    for (size_t i = 0; i < s->in.n && !rc; i++)
        for (size_t j = 0; j < s->in.srcs[i].ncalls && !rc && drawn < max; j++) {
            const struct src_call *c = &s->in.srcs[i].calls[j];
            if (!isfinite(c->start) || !isfinite(c->wall)) continue;
            if (at++ != want) continue;
            drawn++;
            want = n > max ? drawn * n / max : drawn;
            bool ok = c->status >= 200 && c->status < 300;
            out_html_plot_num(c->start - t0, vx, sizeof vx);
            out_html_plot_num(c->wall, vy, sizeof vy);
            snprintf(tip, sizeof tip, "%s: started at %s s, e2e %s s, %s %d", name, vx, vy,
                     c->status ? "HTTP" : "no reply", c->status);
            rc = out_html_plot_point(b, out_html_plot_px(x, c->start - t0),
                                     out_html_plot_py(y, c->wall), 2.5, k, false, !ok, tip);
        }
    return rc;
}

int out_html_plot_scatter(const struct cmp *m, size_t max, struct buf *out) {
    const struct side *sides[OUT_HTML_PLOT_NSIDES] = {m->b, m->c};
    size_t n[OUT_HTML_PLOT_NSIDES];
    double t0[OUT_HTML_PLOT_NSIDES], span = 0, ymax = 0;
    for (int k = 0; k < OUT_HTML_PLOT_NSIDES; k++) {
        double s, y;
        n[k] = out_html_plot_calls(sides[k], &t0[k], &s, &y);
        span = fmax(span, s);
        ymax = fmax(ymax, y);
    }
    if (!n[0] && !n[1]) return BUF_OK;
    max = max ? max : 1;
    struct out_html_plot_axis x = out_html_plot_axis(span), y = out_html_plot_axis(ymax);
    int rc = out_html_plot_frame(out, "Each request's end-to-end latency against its start", &x, &y,
                                 "seconds since the side's first request (as measured)",
                                 "end-to-end latency, seconds");
    for (int k = 0; k < OUT_HTML_PLOT_NSIDES && !rc; k++) {
        char line[500];
        size_t shown = n[k] > max ? max : n[k];
        int len = snprintf(line, sizeof line, "%s %s: %zu of %zu requests",
                           k ? "candidate" : "baseline", k ? m->cname : m->bname, shown, n[k]);
        if (len > 0 && (size_t)len < sizeof line)
            snprintf(line + len, sizeof line - (size_t)len, "%s",
                     n[k] > max ? " (sampled evenly in file order); failed: hollow"
                                : "; failed: hollow");
        rc = out_html_plot_legend(out, k, k, line) ||
             (n[k] ? out_html_plot_scatter_side(out, m, k, n[k], max, t0[k], &x, &y) : 0);
    }
    rc = rc || buf_adds(out, "</svg>\n");
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
