/* slo: the service-level objectives an open-loop comparison checks
 * (sm-compare --slo METRIC:pQ:SECONDS and --max-error-rate FRACTION).
 *
 * An SLO bounds one latency metric at one percentile of a round's successful
 * requests: e2e (end-to-end latency), ttft (time to first token), tpot (time
 * per output token) or itl (inter-token latency, over tokens), all measured from
 * the request's intended start (docs/compare.md, Open-loop runs). The error
 * rate is the round's failed requests over those it sent. The attainment
 * (--min-attainment PCT) is the share of a round's sent requests that met every
 * SLO's bound at once (a failed request meets none): with it, a rate holds when
 * the attainment is at least PCT% and the error rate within its bound, and the
 * per-percentile checks are shown beside it without deciding. */
#ifndef SM_SLO_H
#define SM_SLO_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "stream.h"

#define SLO_MAX           8    /* SLOs on one command line */
#define SLO_MAX_SECONDS   1e6  /* the largest bound */
#define SLO_DEFAULT_ERROR 0.01 /* the error rate allowed when only --slo is given */

enum slo_err { SLO_OK = 0, SLO_ERR_INPUT = -3 };

struct slo {
    enum stream_metric metric;
    double pct;   /* the percentile as given (90, 99.9) */
    double q;     /* pct / 100 */
    double bound; /* seconds */
};

struct slo_set {
    struct slo s[SLO_MAX];
    size_t n;
    bool error_given;  /* --max-error-rate was given */
    double max_error;  /* the error rate allowed (SLO_DEFAULT_ERROR unless given) */
    bool attain_given; /* --min-attainment was given: the capacity criterion is attainment */
    double attain;     /* the share of a round's sent requests that must meet every SLO
                          jointly (DistServe's attainment), 0 to 1 */
};

/* An empty set (no SLO; the default error rate). */
void slo_init(struct slo_set *set);
/* Adds the SLO "METRIC:pQ:SECONDS" of arg to set. Returns 0, or SLO_ERR_INPUT
 * with one line in err naming arg and what is wrong with it. */
__attribute__((warn_unused_result)) int slo_parse(struct slo_set *set, const char *arg,
                                                  struct buf *err);
/* Sets the error rate allowed from arg (a fraction from 0 to 1). Returns 0, or
 * SLO_ERR_INPUT with one line in err. */
__attribute__((warn_unused_result)) int slo_parse_error_rate(struct slo_set *set, const char *arg,
                                                             struct buf *err);
/* Sets the attainment asked from arg (a percentage above 0, at most 100).
 * Returns 0, or SLO_ERR_INPUT with one line in err. */
__attribute__((warn_unused_result)) int slo_parse_attainment(struct slo_set *set, const char *arg,
                                                             struct buf *err);
/* Whether set is whole: --min-attainment needs an --slo to attain. Returns 0,
 * or SLO_ERR_INPUT with one line in err. */
__attribute__((warn_unused_result)) int slo_check(const struct slo_set *set, struct buf *err);
/* Whether set asks for anything (an SLO or --max-error-rate). */
bool slo_any(const struct slo_set *set);
/* "p90 TTFT <= 1 s" */
void slo_text(const struct slo *s, char *out, size_t cap);
/* "ttft:p90" */
void slo_key(const struct slo *s, char *out, size_t cap);
/* "TTFT", "ITL", "TPOT" or "end-to-end latency". */
const char *slo_metric_text(enum stream_metric k);

#endif
