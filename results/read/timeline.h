/* timeline: the samples sm-timeline wrote during a ramp (docs/result-format.md,
 * Timeline): one JSON object a line, each with its time, the variant's
 * instance counts and its newest scaling activities. The reader keeps the
 * samples in time order and each activity once (by id, its latest state).
 * The file is outside input: bounded, every member checked for its type and
 * range, an error naming the file and line; the only string kept is the
 * endpoint's name, checked to be one (smname.h), which every sample must share,
 * and the inference component's of a component's timeline (every sample names
 * the same one, or none does). */
#ifndef SM_TIMELINE_H
#define SM_TIMELINE_H

#include <stddef.h>

#include "buf.h"

#define TIMELINE_MAX_BYTES      (256L << 20)
#define TIMELINE_MAX_SAMPLES    1000000L
#define TIMELINE_MAX_ACTIVITIES 100000L
#define TIMELINE_MAX_ID         160 /* bytes of an activity id kept, with the NUL */

enum timeline_err { TIMELINE_OK = 0, TIMELINE_ERR_NOMEM = -1, TIMELINE_ERR_INPUT = -3 };

struct timeline_sample {
    double t;                    /* Unix seconds */
    long current, desired;       /* instances; -1 when null */
    long copies, desired_copies; /* the component's; -1 when null or not a component's */
};

struct timeline_activity {
    char id[TIMELINE_MAX_ID];
    double start, end; /* Unix seconds; end 0 while it ran when last seen */
};

struct timeline {
    char endpoint[TIMELINE_MAX_ID];  /* the samples' endpoint (every sample names the same) */
    char component[TIMELINE_MAX_ID]; /* their inference component ("": a variant's timeline) */
    struct timeline_sample *s;       /* in time order */
    size_t n;
    struct timeline_activity *a; /* by start time */
    size_t na;
};

/* Reads the samples of text (len bytes; name says where in errors) into *out,
 * which the caller frees with timeline_free. Returns 0, or a negative enum
 * timeline_err with one line in err. */
__attribute__((warn_unused_result)) int timeline_parse(const char *name, const char *text,
                                                       size_t len, struct timeline *out,
                                                       struct buf *err);
/* timeline_parse of the regular file at path. */
__attribute__((warn_unused_result)) int timeline_load(const char *path, struct timeline *out,
                                                      struct buf *err);
void timeline_free(struct timeline *t);

#endif
