/* cwside: what CloudWatch says of one side, from the documents of its
 * cloudwatch/ folder (sm-suite writes them; `aws logs filter-log-events` and
 * `aws cloudwatch get-metric-data` print the same: cwdoc.h).
 *
 * Log events of every file are pooled, ordered by time and told apart by
 * event id (or stream, time and message when a file has no ids), so windows
 * fetched twice count once; cwside_log_text gives them as `aws logs tail`
 * prints them ("2026-09-25T18:40:12.345+00:00 STREAM MESSAGE", one line an
 * event, a message's own line breaks as spaces), for the log readers that
 * read log files (facts.h, srvlog.h). Metric data points are pooled per
 * metric (cwdoc_metrics_asked's Ids; other Ids are left out), a time given
 * twice keeping one value. */
#ifndef SM_CWSIDE_H
#define SM_CWSIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cwdoc.h"

enum cwside_err { CWSIDE_OK = 0, CWSIDE_ERR_NOMEM = -1, CWSIDE_ERR_INPUT = -3 };

struct cwside_event {
    long long t_ms;
    char *key;  /* owned: the event id, else stream, time and message */
    char *line; /* owned: the line as `aws logs tail` prints it */
};

struct cwside_points {
    double *t, *v; /* owned, ascending after cwside_finish */
    size_t n, cap;
};

struct cwside {
    struct cwside_event *ev; /* owned */
    size_t nev, cap;
    struct cwside_points m[CWDOC_N_METRICS];
    size_t log_files, metric_files; /* documents read */
};

/* Adds the events of a FilterLogEvents document. Returns 0, CWSIDE_ERR_INPUT
 * (not one: err says why) or CWSIDE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cwside_logs(struct cwside *s, const char *json, size_t len,
                                                    struct buf *err);
/* Adds the data points of a GetMetricData document. Returns as cwside_logs. */
__attribute__((warn_unused_result)) int cwside_metrics(struct cwside *s, const char *json,
                                                       size_t len, struct buf *err);
/* Orders and deduplicates what was added. */
void cwside_finish(struct cwside *s);
/* Appends the events as `aws logs tail` lines. Returns 0 or CWSIDE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cwside_log_text(const struct cwside *s, struct buf *out);

/* The data points of metric whose time lies in [t0, t1): their sum, count,
 * and (when mean is not NULL) mean (NAN without points). */
double cwside_sum(const struct cwside *s, int metric, double t0, double t1, size_t *count,
                  double *mean);
/* Whether any metric has a data point. */
bool cwside_has_metrics(const struct cwside *s);

void cwside_free(struct cwside *s);

#endif
