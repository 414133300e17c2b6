/* nway_out: sm-compare --candidates as JSON (docs/result-format.md, "sm-compare
 * --candidates JSON"), CSV (one row per candidate), SVG (the Pareto chart) and
 * HTML (the report's page, the Pareto chart and each candidate's latency-throughput
 * curve beside the baseline's, in one file: out_html.h). */
#ifndef SM_NWAY_OUT_H
#define SM_NWAY_OUT_H

#include "buf.h"
#include "nway.h"
#include "warnings.h"

/* The JSON document into out. Returns BUF_OK or a BUF_ERR_* code. */
__attribute__((warn_unused_result)) int nway_out_json(const struct nway *w,
                                                      const struct warnings *warn, struct buf *out);

/* The CSV table into out: the warnings first as "# " lines, then a header and
 * one row per candidate. Returns BUF_OK or a BUF_ERR_* code. */
__attribute__((warn_unused_result)) int nway_out_csv(const struct nway *w,
                                                     const struct warnings *warn, struct buf *out);

/* Appends the Pareto chart, one standalone <svg> element (USD per million tokens
 * against latency at the SLO, each candidate's cost range, the front joined, the
 * recommendation ringed, those left out named below), to out: an HTML report
 * embeds it as it is. Returns BUF_OK or a BUF_ERR_* code. */
__attribute__((warn_unused_result)) int nway_out_svg(const struct nway *w, struct buf *out);

/* The HTML report into out: the page of nway_report.h, the Pareto chart, then a
 * latency-throughput chart for each candidate compared with the baseline.
 * Returns BUF_OK or a BUF_ERR_* code. */
__attribute__((warn_unused_result)) int nway_out_html(const struct nway *w,
                                                      const struct warnings *warn, struct buf *out);

#endif
