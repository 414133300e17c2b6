/* aiperfimport: NVIDIA AIPerf's per-request export (profile_export.jsonl) as a
 * side of a peer view (peerview.h), so an AIPerf run can sit beside ours under
 * one tool's definitions.
 *
 * The format, as ai-dynamo/aiperf docs/tutorials/working-with-profile-exports.md
 * and aiperf/common/models/record_models.py (MetricRecordInfo) describe it: one
 * JSON object per line, {"metadata": {"request_start_ns", "request_end_ns",
 * ...}, "metrics": {NAME: {"value": V, "unit": U}, ...}, "error": null or
 * {"code", "type", "message"}}. A request is taken from its metrics
 * "time_to_first_token", "request_latency", "inter_chunk_latency" (a list, when
 * AIPerf wrote it) and "output_sequence_length" (else "output_token_count"),
 * each in its unit (ns, us, ms, s or sec). A line with an error counts as a
 * failed request. Lines are bounded, values checked; a bad one is refused in
 * one line naming the file and the line. */
#ifndef SM_AIPERFIMPORT_H
#define SM_AIPERFIMPORT_H

#include <stdbool.h>

#include "buf.h"
#include "peerview.h"

#define AIPERFIMPORT_MAX_LINE    (1 << 20) /* bytes of one record line */
#define AIPERFIMPORT_MAX_SECONDS 1e6

enum aiperfimport_err {
    AIPERFIMPORT_OK = 0,
    AIPERFIMPORT_ERR_NOMEM = -1,
    AIPERFIMPORT_ERR_READ = -2,
    AIPERFIMPORT_ERR_INPUT = -3
};

/* Whether the file at path looks like AIPerf's export: its name ends in
 * ".jsonl" and its first line is an object with "metadata" and "metrics". */
bool aiperfimport_is(const char *path);
/* Adds the requests of AIPerf's export at path to s. Returns 0, or a negative
 * enum aiperfimport_err with one line in err. */
__attribute__((warn_unused_result)) int aiperfimport_read(struct peerview_side *s, const char *path,
                                                          struct buf *err);

#endif
