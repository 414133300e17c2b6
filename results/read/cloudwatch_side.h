/* cloudwatch_side: what CloudWatch says of one side, from the documents of its
 * cloudwatch/ folder (sm-suite writes them; `aws logs filter-log-events` and
 * `aws cloudwatch get-metric-data` print the same: cwdoc.h).
 *
 * Log events of every file are pooled, ordered by time and told apart by
 * event id (or stream, time and message when a file has no ids), so windows
 * fetched twice count once; cloudwatch_side_log_text gives them as `aws logs tail`
 * prints them ("2026-09-25T18:40:12.345+00:00 STREAM MESSAGE", one line an
 * event, a message's own line breaks as spaces), for the log readers that
 * read log files (facts.h, srvlog.h). Metric data points are pooled per
 * metric (cwdoc_metrics_asked's Ids; other Ids are left out), a time given
 * twice keeping one value. */
#ifndef SM_CLOUDWATCH_SIDE_H
#define SM_CLOUDWATCH_SIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cwdoc.h"

enum cloudwatch_side_err {
    CLOUDWATCH_SIDE_OK = 0,
    CLOUDWATCH_SIDE_ERR_NOMEM = -1,
    CLOUDWATCH_SIDE_ERR_INPUT = -3
};

struct cloudwatch_side_event {
    long long t_ms;
    char *key;  /* owned: the event id, else stream, time and message */
    char *line; /* owned: the line as `aws logs tail` prints it */
};

struct cloudwatch_side_points {
    double *t, *v; /* owned, ascending after cloudwatch_side_finish */
    size_t n, cap;
};

struct cloudwatch_side {
    struct cloudwatch_side_event *ev; /* owned */
    size_t nev, cap;
    struct cloudwatch_side_points m[CWDOC_N_METRICS];
    size_t log_files, metric_files; /* documents read */
};

/* Adds the events of a FilterLogEvents document. Returns 0, CLOUDWATCH_SIDE_ERR_INPUT
 * (not one: err says why) or CLOUDWATCH_SIDE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int
cloudwatch_side_logs(struct cloudwatch_side *s, const char *json, size_t len, struct buf *err);
/* Adds the data points of a GetMetricData document. Returns as cloudwatch_side_logs. */
__attribute__((warn_unused_result)) int
cloudwatch_side_metrics(struct cloudwatch_side *s, const char *json, size_t len, struct buf *err);
/* Orders and deduplicates what was added. */
void cloudwatch_side_finish(struct cloudwatch_side *s);
/* Appends the events as `aws logs tail` lines. Returns 0 or CLOUDWATCH_SIDE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cloudwatch_side_log_text(const struct cloudwatch_side *s,
                                                                 struct buf *out);

/* The data points of metric whose time lies in [t0, t1): their sum, count,
 * and (when mean is not NULL) mean (NAN without points). */
double cloudwatch_side_sum(const struct cloudwatch_side *s, int metric, double t0, double t1,
                           size_t *count, double *mean);
/* Whether any metric has a data point. */
bool cloudwatch_side_has_metrics(const struct cloudwatch_side *s);

void cloudwatch_side_free(struct cloudwatch_side *s);

#endif
