/* suite_progress: what the progress line says (pure): a scenario's own
 * progress lines read back, the time left estimated from the work done. */
#ifndef SM_SUITE_PROGRESS_H
#define SM_SUITE_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

/* Reads a scenario's progress line ("decode: 4/20 done, 0 failed, 3.1 s";
 * steady runs have no "/20"): true and the counts (*total -1 when unknown),
 * or false for any other line. */
bool suite_progress_parse(const char *line, const char *scenario, long *done, long *total,
                          long *failed);

/* What the time left is estimated from: the work (in any unit) of the steps. */
struct suite_progress_work {
    double done_s, done_w; /* the finished steps: seconds they took, their work */
    double step_s, step_w; /* the running step: seconds so far, its work (0: none) */
    double step_frac;      /* the part of it done (0: unknown) */
    double rest_w;         /* the steps after it */
};

/* The seconds left: the finished steps' pace (else the running step's own)
 * applied to the work left. True, or false while too little is done to tell. */
bool suite_progress_eta(const struct suite_progress_work *e, double *left);

/* "0:09", "12:34", "1:02:03" into out. */
void suite_progress_clock(double seconds, char *out, size_t len);

#endif
