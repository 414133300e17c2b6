/* scaling: how an endpoint scaled under a ramp (ramp.lua, sampled by
 * sm-timeline; docs/compare.md, Scaling).
 *
 * The schedule's pieces (settings.schedule) are the load changes: each piece
 * starts one. Times are real seconds from the schedule's start: a record's is
 * its intended start from the first one; a sample's and an activity's are
 * their Unix times from the wall-clock time of the first intended start, both
 * multiplied by the file's time_scale. Per piece:
 *   - instances at the change: the last sample at or before it (else the first);
 *   - decision: the first scaling activity that started within the piece;
 *   - capacity: the first sample within the piece with more instances serving
 *     (CurrentInstanceCount) than at the change;
 *   - transition: the piece's requests (by intended start) from the change to
 *     the capacity, steady: the rest of the piece (all of it when no capacity
 *     came), each with requests sent, successful, good (met every SLO, as the
 *     open-loop rounds count them), failed and refused (HTTP 429 or 503, or a
 *     ThrottlingException), and goodput (good over the window's seconds);
 *   - instance-hours: the samples' instances, each held until the next sample;
 *   - no capacity: the piece's calls an inference component refused for having no
 *     copy serving (error.code no_capacity), a count of the transition's and the
 *     steady part's, and the cold starts that began in the piece.
 * A timeline of an inference component (sm-timeline --inference-component) counts
 * its copies (CurrentCopyCount) where a variant's counts instances: at the
 * change, the most, the capacity and the chart; instance-hours stay the
 * variant's instances'.
 * A cold start: from a call refused for no capacity with none open, to the first
 * call after it (by intended start) that was served (HTTP 2xx); its length is
 * the seconds between the two starts (NAN when none was served after it) and it
 * counts the refusals in between; it belongs to the piece where it began.
 * The chart's windows cut the schedule in SCALING_WINDOWS: the schedule's rate
 * at each window's middle, the instances of the last sample by then, and the
 * p90 TTFT (from the intended start) of the window's successful requests. */
#ifndef SM_SCALING_H
#define SM_SCALING_H

#include <stdbool.h>
#include <stddef.h>

#include "rfile.h"
#include "slo.h"
#include "src.h"
#include "timeline.h"
#include "warnings.h"

#define SCALING_MAX_PIECES 100000
#define SCALING_WINDOWS    60

enum scaling_err { SCALING_OK = 0, SCALING_ERR_NOMEM = -1, SCALING_ERR_INPUT = -3 };

struct scaling_count {
    long sent, ok, good, failed, refused;
    long no_capacity; /* of failed: refused for no copy serving (error.code no_capacity) */
    double seconds;   /* the window's length, real seconds */
};

struct scaling_step {
    double start_s, end_s; /* the piece, real seconds from the schedule's start */
    double from, to;       /* its rate, requests per second */
    long before;           /* instances at the change (-1: no sample) */
    long most;             /* the most instances serving in the piece (-1: no sample in it) */
    double decision_s;     /* to the first activity's start (NAN: none) */
    double capacity_s;     /* to the first sample with more instances (NAN: none) */
    struct scaling_count transition, steady;
    double instance_hours; /* within the piece (NAN: no timeline) */
    long cold_starts;      /* that began in the piece */
};

struct scaling_cold {
    double start_s; /* the first refused call's start, real seconds from the schedule's */
    double seconds; /* to the first call served after it (NAN: none was) */
    long refused;   /* calls refused for no capacity from start_s on until then */
    size_t step;    /* the piece it began in */
};

struct scaling_window {
    double mid_s;     /* the window's middle */
    double rate;      /* the schedule's at mid_s */
    double instances; /* the last sample's at mid_s (NAN: none yet) */
    double copies;    /* the same of a component's copies (NAN: none, or not a component) */
    double ttft_p90;  /* seconds (NAN: no successful request with a TTFT) */
    long n;           /* requests that started in it */
};

struct scaling {
    struct scaling_step *steps; /* owned */
    size_t n;
    struct scaling_window w[SCALING_WINDOWS];
    size_t nw;
    double duration_s;       /* the schedule's */
    bool timeline;           /* a timeline was read */
    char timeline_name[256]; /* its file name ("" without one) */
    size_t samples, activities;
    double instance_hours; /* over the samples (NAN: no timeline) */
    long sent, failed, refused, no_capacity;
    char component[160];       /* the timeline's inference component ("": a variant's) */
    struct scaling_cold *cold; /* owned; by start */
    size_t ncold;
};

/* Reads the scaling of the ramp file s (rf's records of phase; its settings,
 * time_scale and path read): the schedule from its settings and, when
 * settings.timeline names one, the timeline file of that name in the result
 * file's folder (only there). *out is malloc'ed; free it with scaling_free.
 * Returns 0, or a negative enum scaling_err with one line in err; a timeline
 * that cannot be read is a warning in w and the scaling goes without it. */
__attribute__((warn_unused_result)) int scaling_read(const struct rfile *rf, uint32_t phase,
                                                     const struct src *s, const struct slo_set *slo,
                                                     struct scaling **out, struct warnings *w,
                                                     struct buf *err);
/* Frees x and what it owns; NULL is fine. */
void scaling_free(struct scaling *x);

/* The figures of a window of counts (NAN when there is none). */
double scaling_attainment(const struct scaling_count *c); /* good over sent */
double scaling_goodput(const struct scaling_count *c);    /* good per second */

#endif
