/* vlog: a vLLM-style container log (the AWS vLLM container's CloudWatch
 * stream): start-up lines carrying the profile's facts in vLLM's formats, one
 * uvicorn access line per invocation, and the periodic "Avg generation
 * throughput" metrics line from what was really served. Every line is flushed. */
#ifndef EMU_VLOG_H
#define EMU_VLOG_H

#include <stdio.h>
#include <time.h>

#include "buf.h"
#include "model.h"

struct vlog {
    FILE *f;
    double last_prompt_rate, last_gen_rate; /* of the previous metrics line */
};

enum vlog_error { VLOG_OK = 0, VLOG_ERR_IO = -1 };

/* Opens path for appending. Returns 0, or VLOG_ERR_IO with one line in err. */
__attribute__((warn_unused_result)) int vlog_open(struct vlog *v, const char *path,
                                                  struct buf *err);
/* Closes the log, if open. */
void vlog_close(struct vlog *v);

/* Writes the start-up lines of a container running profile p. */
void vlog_startup(struct vlog *v, const struct model_profile *p, time_t now);

/* Writes one access line: "POST /invocations HTTP/1.1" status. */
void vlog_access(struct vlog *v, time_t now, int status);

/* Writes a metrics line for tokens seen over model_seconds, unless this and the
 * previous line both had no traffic (vLLM logs those at debug level). */
void vlog_metrics(struct vlog *v, time_t now, double model_seconds, unsigned long prompt_tokens,
                  unsigned long gen_tokens, size_t running, size_t waiting, double kv_usage);

#endif
