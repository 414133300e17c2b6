/* vlog: a vLLM-style container log (the AWS vLLM container's CloudWatch
 * stream): start-up lines carrying the profile's facts in vLLM's formats, one
 * uvicorn access line per invocation, and the periodic "Avg generation
 * throughput" metrics line from what was really served. Every line is flushed.
 *
 * vLLM's own line prefix is kept ("INFO MM-DD HH:MM:SS [file.py:N] ", whole
 * seconds, UTC). With subsecond, every line also starts as `aws logs tail`
 * prints CloudWatch's events, "2026-09-25T18:40:12.345678+00:00 STREAM ", so a
 * reader of the log (sm-compare's cross-check) can place the lines to the
 * microsecond.
 *
 * Attached to CloudWatch Logs (cwlog.h), every line is also an event of the
 * endpoint's log group, stream "VARIANT/i-emulator", with or without a file:
 * the line as vLLM writes it (without the subsecond prefix), stamped with its
 * wall clock; the start-up lines are kept there for good. */
#ifndef EMU_VLOG_H
#define EMU_VLOG_H

#include <stdbool.h>
#include <stdio.h>

#include "batch.h"
#include "buf.h"
#include "cwlog.h"
#include "model.h"

struct vlog {
    FILE *f;
    double last_prompt_rate, last_gen_rate; /* of the previous metrics line */
    bool subsecond;                         /* CloudWatch timestamps before every line */
    char stream[80];                        /* the log stream's name */
    struct cwlog *cw;                       /* also every line there, or NULL (borrowed) */
    char endpoint[CWLOG_NAME_MAX];          /* its log group's endpoint */
    struct batch_spec spec_logged;          /* speculative counts at the last SpecDecoding line */
};

enum vlog_error { VLOG_OK = 0, VLOG_ERR_IO = -1 };

/* Opens path for appending; with subsecond, lines carry CloudWatch timestamps
 * and the stream name "VARIANT/i-emulator". Returns 0, or VLOG_ERR_IO with one
 * line in err. */
__attribute__((warn_unused_result)) int vlog_open(struct vlog *v, const char *path, bool subsecond,
                                                  const char *variant, struct buf *err);
/* Sends every line to cw too (borrowed; must outlive v), as endpoint's
 * variant's stream; with or without a file. */
void vlog_attach(struct vlog *v, struct cwlog *cw, const char *endpoint, const char *variant);

/* Closes the log, if open. */
void vlog_close(struct vlog *v);

/* Writes the start-up lines of a container running profile p. Times: wall
 * clock, Unix seconds. */
void vlog_startup(struct vlog *v, const struct model_profile *p, double now);

/* Writes one access line: "POST PATH HTTP/1.1" status (PATH: /invocations, or
 * /v1/chat/completions for the OpenAI route). */
void vlog_access(struct vlog *v, double now, const char *path, int status);

/* Writes a metrics line for tokens seen over model_seconds, unless this and the
 * previous line both had no traffic (vLLM logs those at debug level);
 * prefix_hit_rate: the prefix cache's cached over looked-up prompt tokens, 0 to 1. */
void vlog_metrics(struct vlog *v, double now, double model_seconds, unsigned long prompt_tokens,
                  unsigned long gen_tokens, size_t running, size_t waiting, double kv_usage,
                  double prefix_hit_rate);

/* Writes vLLM's speculative-decoding line for the drafts since the previous one
 * (total: the counts since the start), over model_seconds, unless none came:
 * "SpecDecoding metrics: Mean acceptance length: L, Accepted throughput: X
 * tokens/s, Drafted throughput: Y tokens/s, Accepted: A tokens, Drafted: D
 * tokens, Per-position acceptance rate: p1, ..., Avg Draft acceptance rate: R%"
 * (vllm/v1/spec_decode/metrics.py, SpecDecodingLogging.log). */
void vlog_spec(struct vlog *v, double now, double model_seconds, const struct batch_spec *total);

#endif
