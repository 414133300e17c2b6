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

/* What the time left is estimated from, as the plan says it: a closed-loop
 * step (decode, quiz, a sweep's batches) by its work (tokens, any unit), paced
 * by the closed-loop steps done so far; a step on a schedule (an open-loop
 * rate, a steady sweep) by the seconds its schedule lasts, whatever its
 * requests' size (its -d is only a bound). */
struct suite_progress_work {
    double done_s, done_w; /* the finished closed-loop steps: seconds they took, their work */
    double step_s, step_w; /* the running step: seconds so far, its work (0: none or timed) */
    double step_frac;      /* the part of it done (0: unknown) */
    double rest_w;         /* the closed-loop work of the steps after it */
    double step_sched_s;   /* the running step's schedule in seconds (0: closed loop) */
    double rest_sched_s;   /* the scheduled seconds of the timed steps after it */
    double timed_sched_s;  /* the finished timed steps: their schedules' seconds */
    double timed_took_s;   /* and the seconds they took (start-up, warm-up, last replies) */
};

/* The seconds left: a timed step's schedule (stretched as the finished timed
 * steps' were, by their start and their last replies) less the time it has run; a
 * closed-loop step's own progress weighed by the part done against the pace;
 * the finished closed-loop steps' pace (else the running step's own) applied
 * to the closed-loop work left; plus the timed steps to come. True, or false
 * while closed-loop work is left and too little is done to pace it. */
bool suite_progress_eta(const struct suite_progress_work *e, double *left);

/* "0:09", "12:34", "1:02:03" into out. */
void suite_progress_clock(double seconds, char *out, size_t len);

#endif
