/* srvlog: vLLM's periodic throughput lines in a container log.
 *
 * vLLM logs, every VLLM_LOG_STATS_INTERVAL seconds while it serves,
 *   "Engine 000: Avg prompt throughput: X tokens/s, Avg generation throughput:
 *   Y tokens/s, Running: R reqs, Waiting: W reqs, ..."
 * (older versions without "Engine 000: "): the tokens it prompted and
 * generated since its previous line, per second. A line's time is its
 * CloudWatch timestamp when `aws logs tail` put one first
 * ("2026-09-25T18:40:12.345000+00:00 stream ..."), else vLLM's own
 * "INFO MM-DD HH:MM:SS" (UTC, whole seconds, no year: srvlog_place gives it
 * the year of the run). The emulator (sm-emulator --log-file) writes the same
 * lines, with rates in model time. */
#ifndef SM_SRVLOG_H
#define SM_SRVLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

enum srvlog_err { SRVLOG_OK = 0, SRVLOG_ERR_NOMEM = -1 };

struct srvlog_line {
    double t;          /* Unix seconds (when !year_known: seconds into its day, placed later) */
    double res;        /* the resolution of t, seconds */
    bool year_known;   /* the time came with its date */
    int mon, mday;     /* !year_known: vLLM's month (1..12) and day */
    double prompt_tps; /* Avg prompt throughput */
    double gen_tps;    /* Avg generation throughput */
};

struct srvlog {
    struct srvlog_line *lines; /* owned, ascending time after srvlog_place */
    size_t n;
};

/* Appends the throughput lines of n bytes of log text to log. Returns 0, or
 * SRVLOG_ERR_NOMEM with "out of memory" in err. */
__attribute__((warn_unused_result)) int srvlog_scan(struct srvlog *log, const char *text, size_t n,
                                                    struct buf *err);
/* Gives the lines without a year the year (UTC) that puts each nearest to
 * near (Unix seconds), then sorts the lines by time. */
void srvlog_place(struct srvlog *log, double near);
/* The seconds between lines: the median gap between consecutive lines,
 * refined over the longest run of lines at that gap; 0 with fewer than 3 lines. */
double srvlog_interval(const struct srvlog *log);
void srvlog_free(struct srvlog *log);

#endif
