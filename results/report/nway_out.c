#include "nway_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "esc.h"
#include "nway_report.h"
#include "out_csv.h"
#include "out_html.h"
#include "out_html_plot.h"
#include "out_json.h"

#define NWAY_OUT_COLS 26
#define NWAY_OUT_W    640
#define NWAY_OUT_H    420
#define NWAY_OUT_L    80 /* the plot's left edge */
#define NWAY_OUT_R    600
#define NWAY_OUT_T    50
#define NWAY_OUT_B    340

static cJSON *nway_out_num(double v) {
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static const char *nway_out_rel(enum openloop_cmp_rel rel) {
    static const char *const names[] = {NULL, "=", ">=", ">", "<=", "<"};
    return names[rel];
}

static cJSON *nway_out_ratio(const struct nway_ratio *q) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "value", nway_out_num(q->ok ? q->v : NAN));
    cJSON_AddItemToObject(o, "low", nway_out_num(q->lo));
    cJSON_AddItemToObject(o, "high", nway_out_num(q->hi));
    return o;
}

static cJSON *nway_out_ratios(const struct nway_cand *c) {
    cJSON *o = cJSON_CreateObject(), *rows = cJSON_CreateObject();
    cJSON *cap = nway_out_ratio(&c->r_cap);
    const char *rel = c->r_cap.ok ? nway_out_rel(c->r_cap.rel) : NULL;
    cJSON_AddItemToObject(cap, "relation", rel ? cJSON_CreateString(rel) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "capacity", cap);
    cJSON_AddItemToObject(o, "latency_at_slo", nway_out_ratio(&c->r_lat));
    cJSON *usd = nway_out_ratio(&c->r_usd);
    const char *urel = c->r_usd.ok ? nway_out_rel(c->r_usd.rel) : NULL;
    cJSON_AddItemToObject(usd, "relation", urel ? cJSON_CreateString(urel) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "usd_per_million_tokens", usd);
    for (size_t k = 0; k < c->m.nrows; k++) {
        const struct cmp_row *q = &c->m.rows[k];
        if (q->group != CMP_MAIN || q->no_ratio || !q->ratio.ok) continue;
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "ratio", q->ratio.v);
        cJSON_AddItemToObject(r, "low", nway_out_num(q->ci_r.ok ? q->ci_r.lo : NAN));
        cJSON_AddItemToObject(r, "high", nway_out_num(q->ci_r.ok ? q->ci_r.hi : NAN));
        cJSON_AddItemToObject(r, "why_no_interval", out_json_str(q->ci_r.ok ? NULL : q->ci_r.why));
        cJSON_AddItemToObject(rows, q->name, r);
    }
    cJSON_AddItemToObject(o, "rows", rows);
    return o;
}

static cJSON *nway_out_cand(const struct nway *w, size_t i) {
    const struct nway_cand *c = &w->c[i];
    cJSON *o = cJSON_CreateObject(), *cap = cJSON_CreateObject(), *lat = cJSON_CreateObject(),
          *usd = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "label", out_json_str(c->f.label));
    cJSON_AddItemToObject(o, "instance_type",
                          out_json_str(c->f.instance_type[0] ? c->f.instance_type : NULL));
    cJSON_AddNumberToObject(o, "instance_count", c->f.instance_count);
    cJSON_AddItemToObject(o, "excluded", out_json_str(c->excluded[0] ? c->excluded : NULL));
    const char *rel = c->compared ? nway_out_rel(c->cap.rel) : NULL;
    cJSON_AddItemToObject(cap, "requests_per_second", nway_out_num(c->compared ? c->cap.v : NAN));
    cJSON_AddItemToObject(cap, "relation", rel ? cJSON_CreateString(rel) : cJSON_CreateNull());
    cJSON_AddItemToObject(cap, "last_held", nway_out_num(c->compared ? c->cap.pass : NAN));
    cJSON_AddItemToObject(cap, "first_failed", nway_out_num(c->compared ? c->cap.fail : NAN));
    cJSON_AddItemToObject(cap, "tokens_per_request",
                          nway_out_num(c->compared ? c->cap.tokens_per_request : NAN));
    cJSON_AddItemToObject(cap, "tokens_per_second",
                          nway_out_num(c->compared ? c->cap.tokens : NAN));
    cJSON_AddNumberToObject(cap, "requests_sent", (double)c->sent);
    cJSON_AddNumberToObject(cap, "requests_ok", (double)c->ok);
    cJSON_AddItemToObject(o, "capacity", cap);
    cJSON_AddItemToObject(lat, "seconds", nway_out_num(c->lat));
    cJSON_AddItemToObject(lat, "rate", nway_out_num(isfinite(c->lat) ? c->cap.pass : NAN));
    cJSON_AddNumberToObject(lat, "requests", (double)c->lat_n);
    cJSON_AddItemToObject(o, "latency_at_slo", lat);
    cJSON_AddItemToObject(usd, "usd_per_hour", nway_out_num(c->f.usd_per_hour));
    cJSON_AddItemToObject(usd, "usd_per_million_tokens", nway_out_num(c->usd));
    cJSON_AddItemToObject(usd, "usd_relation",
                          isfinite(c->usd)
                              ? cJSON_CreateString(c->cap.rel == OPENLOOP_CMP_GE ? "<=" : "=")
                              : cJSON_CreateNull());
    cJSON_AddItemToObject(usd, "usd_per_million_tokens_low", nway_out_num(c->usd_lo));
    cJSON_AddItemToObject(usd, "usd_per_million_tokens_high", nway_out_num(c->usd_hi));
    cJSON_AddItemToObject(o, "cost_at_capacity", usd);
    if (c->quiz_total > 0) {
        cJSON *q = cJSON_CreateObject();
        cJSON_AddNumberToObject(q, "correct", (double)c->quiz_correct);
        cJSON_AddNumberToObject(q, "total", (double)c->quiz_total);
        cJSON_AddNumberToObject(q, "score", (double)c->quiz_correct / (double)c->quiz_total);
        cJSON_AddItemToObject(o, "quiz", q);
    } else {
        cJSON_AddNullToObject(o, "quiz");
    }
    cJSON_AddBoolToObject(o, "pareto_front", w->pr.front[i]);
    cJSON_AddBoolToObject(o, "within_recommended", w->pr.within[i]);
    cJSON_AddItemToObject(o, "ratio_to_baseline",
                          c->compared && i != w->base ? nway_out_ratios(c) : cJSON_CreateNull());
    return o;
}

static cJSON *nway_out_recommend(const struct nway *w) {
    cJSON *o = cJSON_CreateObject(), *within = cJSON_CreateArray();
    struct buf reason;
    buf_init(&reason, BUF_NO_CAP);
    const struct nway_cand *c = w->pr.best >= 0 ? &w->c[w->pr.best] : NULL;
    cJSON_AddItemToObject(o, "label", out_json_str(c ? c->f.label : NULL));
    cJSON_AddItemToObject(o, "usd_per_million_tokens", nway_out_num(c ? c->usd : NAN));
    cJSON_AddItemToObject(o, "usd_per_million_tokens_low", nway_out_num(c ? c->usd_lo : NAN));
    cJSON_AddItemToObject(o, "usd_per_million_tokens_high", nway_out_num(c ? c->usd_hi : NAN));
    for (size_t i = 0; i < w->n; i++)
        if (w->pr.within[i]) cJSON_AddItemToArray(within, out_json_str(w->c[i].f.label));
    cJSON_AddItemToObject(o, "within", within);
    cJSON_AddItemToObject(o, "reason",
                          nway_report_reason(w, &reason) == BUF_OK ? out_json_str(buf_str(&reason))
                                                                   : NULL);
    buf_free(&reason);
    return o;
}

int nway_out_json(const struct nway *w, const struct warnings *warn, struct buf *out) {
    cJSON *root = cJSON_CreateObject(), *cands = cJSON_CreateArray(), *front = cJSON_CreateArray(),
          *ws = cJSON_CreateArray();
    char key[64] = "";
    slo_key(&w->slo.s[0], key, sizeof key);
    cJSON_AddItemToObject(root, "slo", out_json_str(w->slo_text));
    cJSON_AddItemToObject(root, "slo_key", out_json_str(key));
    cJSON_AddItemToObject(root, "baseline", out_json_str(w->c[w->base].f.label));
    for (size_t i = 0; i < w->n; i++) {
        cJSON_AddItemToArray(cands, nway_out_cand(w, i));
        if (w->pr.front[i]) cJSON_AddItemToArray(front, out_json_str(w->c[i].f.label));
    }
    cJSON_AddItemToObject(root, "candidates", cands);
    cJSON_AddItemToObject(root, "pareto_front", front);
    cJSON_AddItemToObject(root, "recommendation", nway_out_recommend(w));
    for (size_t i = 0; i < warn->n; i++) cJSON_AddItemToArray(ws, out_json_str(warn->items[i]));
    cJSON_AddItemToObject(root, "warnings", ws);
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    int rc = text ? buf_adds(out, text) || buf_addc(out, '\n') : BUF_ERR_NOMEM;
    cJSON_free(text);
    return rc;
}

static void nway_out_cnum(double x, char *out) {
    if (isfinite(x))
        snprintf(out, 32, "%.15g", x);
    else
        out[0] = '\0';
}

int nway_out_csv(const struct nway *w, const struct warnings *warn, struct buf *out) {
    static const char *const head[NWAY_OUT_COLS] = {
        "candidate",          "instance_type",     "instance_count",   "capacity_rps",
        "capacity_relation",  "last_held_rps",     "first_failed_rps", "tokens_per_second",
        "latency_at_slo_s",   "latency_requests",  "usd_per_hour",     "usd_per_mtok",
        "usd_per_mtok_low",   "usd_per_mtok_high", "quiz_correct",     "quiz_total",
        "requests_sent",      "requests_ok",       "pareto_front",     "recommended",
        "within_recommended", "capacity_ratio",    "latency_ratio",    "usd_ratio",
        "baseline",           "excluded"};
    int rc = 0;
    for (size_t i = 0; i < warn->n && !rc; i++)
        rc = buf_adds(out, "# warning: ") || esc_text(out, warn->items[i]) || buf_adds(out, "\r\n");
    if (rc || (rc = out_csv_cells(out, head, NWAY_OUT_COLS))) return rc;
    for (size_t i = 0; i < w->n && !rc; i++) {
        const struct nway_cand *c = &w->c[i];
        char v[NWAY_OUT_COLS][32];
        bool m = c->compared;
        snprintf(v[0], 32, "%d", c->f.instance_count);
        nway_out_cnum(m ? c->cap.v : NAN, v[1]);
        nway_out_cnum(m ? c->cap.pass : NAN, v[2]);
        nway_out_cnum(m ? c->cap.fail : NAN, v[3]);
        nway_out_cnum(m ? c->cap.tokens : NAN, v[4]);
        nway_out_cnum(c->lat, v[5]);
        snprintf(v[6], 32, "%zu", c->lat_n);
        nway_out_cnum(c->f.usd_per_hour, v[7]);
        nway_out_cnum(c->usd, v[8]);
        nway_out_cnum(c->usd_lo, v[9]);
        nway_out_cnum(c->usd_hi, v[10]);
        snprintf(v[11], 32, "%ld", c->quiz_correct);
        snprintf(v[12], 32, "%ld", c->quiz_total);
        snprintf(v[13], 32, "%ld", c->sent);
        snprintf(v[14], 32, "%ld", c->ok);
        bool other = m && i != w->base;
        nway_out_cnum(other && c->r_cap.ok ? c->r_cap.v : NAN, v[15]);
        nway_out_cnum(other ? c->r_lat.v : NAN, v[16]);
        nway_out_cnum(other ? c->r_usd.v : NAN, v[17]);
        static const char *const words[] = {NULL, "eq", "ge", "gt", "le", "lt"};
        const char *rel = m ? words[c->cap.rel] : NULL;
        const char *cells[NWAY_OUT_COLS] = {c->f.label,
                                            c->f.instance_type,
                                            v[0],
                                            v[1],
                                            rel,
                                            v[2],
                                            v[3],
                                            v[4],
                                            v[5],
                                            v[6],
                                            v[7],
                                            v[8],
                                            v[9],
                                            v[10],
                                            c->quiz_total ? v[11] : "",
                                            c->quiz_total ? v[12] : "",
                                            v[13],
                                            v[14],
                                            w->pr.front[i] ? "1" : "0",
                                            w->pr.best == (int)i ? "1" : "0",
                                            w->pr.within[i] ? "1" : "0",
                                            v[15],
                                            v[16],
                                            v[17],
                                            i == w->base ? "1" : "0",
                                            c->excluded};
        rc = out_csv_cells(out, cells, NWAY_OUT_COLS);
    }
    return rc;
}

static int nway_out_text(struct buf *b, double x, double y, const char *attrs, const char *s) {
    return buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs) || esc_xml(b, s) ||
           buf_adds(b, "</text>\n");
}

/* A candidate's point, its figures as a tooltip (data-tip for the HTML report's
 * script, <title> for any SVG viewer). */
static int nway_out_dot(struct buf *b, double x, double y, const char *color, const char *label,
                        const struct pareto_item *it) {
    char tip[128];
    snprintf(tip, sizeof tip, ": %.4g USD per million tokens, %.4g s at the SLO", it->usd, it->lat);
    return buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" data-tip=\"", x, y,
                    color) ||
           esc_xml(b, label) || esc_xml(b, tip) || buf_adds(b, "\"><title>") || esc_xml(b, label) ||
           esc_xml(b, tip) || buf_adds(b, "</title></circle>\n");
}

/* The axes' upper ends: the largest latency and cost (range ends too), plus a tenth. */
static void nway_out_scale(const struct nway *w, double *xmax, double *ymax) {
    *xmax = *ymax = 0;
    for (size_t i = 0; i < w->n; i++) {
        const struct pareto_item *it = &w->items[i];
        if (!pareto_eligible(it) || !isfinite(it->lat)) continue;
        *xmax = fmax(*xmax, it->lat);
        *ymax = fmax(*ymax, isfinite(it->usd_hi) ? fmax(it->usd, it->usd_hi) : it->usd);
    }
    *xmax = *xmax > 0 ? *xmax * 1.1 : 1;
    *ymax = *ymax > 0 ? *ymax * 1.1 : 1;
}

static int nway_out_point(const struct nway *w, size_t i, double xmax, double ymax, struct buf *b) {
    const struct pareto_item *it = &w->items[i];
    double x = NWAY_OUT_L + it->lat / xmax * (NWAY_OUT_R - NWAY_OUT_L);
    double y = NWAY_OUT_B - it->usd / ymax * (NWAY_OUT_B - NWAY_OUT_T);
    double lo = isfinite(it->usd_lo) ? it->usd_lo : 0,
           hi = isfinite(it->usd_hi) ? it->usd_hi : it->usd;
    const char *color = w->pr.front[i] ? "#e15759" : "#4e79a7";
    int rc = buf_addf(b, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n", x,
                      NWAY_OUT_B - lo / ymax * (NWAY_OUT_B - NWAY_OUT_T),
                      NWAY_OUT_B - hi / ymax * (NWAY_OUT_B - NWAY_OUT_T), color) ||
             nway_out_dot(b, x, y, color, w->c[i].f.label, it);
    if (!rc && w->pr.best == (int)i)
        rc = buf_addf(
            b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"10\" fill=\"none\" stroke=\"#222\"/>\n", x, y);
    return rc || nway_out_text(b, x + 8, y - 6, "font-size=\"12\"", w->c[i].f.label);
}

/* The front joined in order of latency (a dashed line). */
static int nway_out_front(const struct nway *w, double xmax, double ymax, struct buf *b) {
    size_t order[PARETO_MAX], n = 0;
    for (size_t i = 0; i < w->n && i < PARETO_MAX; i++) {
        if (!w->pr.front[i]) continue;
        size_t k = n++;
        while (k > 0 && w->items[order[k - 1]].lat > w->items[i].lat) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    if (n < 2) return 0;
    int rc = buf_adds(b, "<path d=\"");
    for (size_t k = 0; k < n && !rc; k++) {
        const struct pareto_item *it = &w->items[order[k]];
        rc = buf_addf(b, "%s%.1f %.1f", k ? "L" : "M",
                      NWAY_OUT_L + it->lat / xmax * (NWAY_OUT_R - NWAY_OUT_L),
                      NWAY_OUT_B - it->usd / ymax * (NWAY_OUT_B - NWAY_OUT_T));
    }
    return rc || buf_adds(b, "\" stroke=\"#e15759\" stroke-dasharray=\"4 3\" fill=\"none\"/>\n");
}

int nway_out_svg(const struct nway *w, struct buf *b) {
    double xmax, ymax;
    char xt[160], num[64];
    nway_out_scale(w, &xmax, &ymax);
    snprintf(xt, sizeof xt, "p%g %s at capacity (s)", w->slo.s[0].pct,
             slo_metric_text(w->slo.s[0].metric));
    int rc = buf_addf(b,
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                      "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
                      "fill=\"#fff\"/>\n",
                      NWAY_OUT_W, NWAY_OUT_H) ||
             nway_out_text(b, 10, 24, "font-size=\"15\" font-weight=\"bold\"",
                           "Cost against latency at the SLO (front in red)") ||
             buf_addf(b, "<path d=\"M%d %dV%dH%d\" stroke=\"#222\" fill=\"none\"/>\n", NWAY_OUT_L,
                      NWAY_OUT_T, NWAY_OUT_B, NWAY_OUT_R) ||
             nway_out_text(b, (NWAY_OUT_L + NWAY_OUT_R) / 2.0, NWAY_OUT_B + 36,
                           "font-size=\"12\" text-anchor=\"middle\"", xt) ||
             nway_out_text(b, 14, NWAY_OUT_T - 12, "font-size=\"12\"", "USD per million tokens");
    nway_report_num(xmax, num, sizeof num);
    rc = rc ||
         nway_out_text(b, NWAY_OUT_R, NWAY_OUT_B + 16, "font-size=\"11\" text-anchor=\"end\"", num);
    nway_report_num(ymax, num, sizeof num);
    rc = rc ||
         nway_out_text(b, NWAY_OUT_L - 4, NWAY_OUT_T + 4, "font-size=\"11\" text-anchor=\"end\"",
                       num) ||
         nway_out_text(b, NWAY_OUT_L - 4, NWAY_OUT_B, "font-size=\"11\" text-anchor=\"end\"", "0");
    rc = rc || nway_out_front(w, xmax, ymax, b);
    for (size_t i = 0; i < w->n && !rc; i++)
        if (pareto_eligible(&w->items[i]) && isfinite(w->items[i].lat))
            rc = nway_out_point(w, i, xmax, ymax, b);
    double y = NWAY_OUT_B + 56;
    for (size_t i = 0; i < w->n && !rc; i++)
        if (w->c[i].excluded[0]) {
            char line[400];
            snprintf(line, sizeof line, "%s left out: %s", w->c[i].f.label, w->c[i].excluded);
            rc = nway_out_text(b, 10, y, "font-size=\"11\" fill=\"#888\"", line);
            y += 14;
        }
    return rc || buf_adds(b, "</svg>\n");
}

/* Each candidate's latency-throughput curve beside the baseline's (out_html_plot.h):
 * one chart a candidate compared, the baseline's own when it is alone. */
static int nway_out_curves(const struct nway *w, struct out_html *h) {
    struct buf svg;
    int rc = 0;
    buf_init(&svg, BUF_NO_CAP);
    for (size_t i = 0; i < w->n && !rc; i++) {
        if (!w->c[i].compared || (i == w->base && w->n > 1)) continue;
        char title[192];
        snprintf(title, sizeof title, "Latency against throughput: %s against %s", w->c[i].f.label,
                 w->c[w->base].f.label);
        buf_reset(&svg);
        rc = out_html_plot_curve(&w->c[i].m, &svg) || out_html_chart(h, title, &svg);
    }
    buf_free(&svg);
    return rc;
}

int nway_out_html(const struct nway *w, const struct warnings *warn, struct buf *out) {
    struct page r = {0};
    struct out_html h;
    struct buf svg;
    char title[64];
    snprintf(title, sizeof title, "%zu candidates", w->n);
    buf_init(&svg, BUF_NO_CAP);
    /* the charts' heading is the page's last, so that the contents name it too */
    int rc = nway_report_build(w, warn, &r) < 0 || page_text(&r, PAGE_HEADING, "Charts") ||
             out_html_begin(&h, out, title) || out_html_page(&h, &r) || nway_out_svg(w, &svg) ||
             out_html_chart(
                 &h, "The Pareto front: USD per million tokens against latency at the SLO", &svg) ||
             nway_out_curves(w, &h) || out_html_end(&h);
    buf_free(&svg);
    page_free(&r);
    return rc ? BUF_ERR_NOMEM : BUF_OK;
}
