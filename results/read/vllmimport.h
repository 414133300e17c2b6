/* vllmimport: a `vllm bench serve --save-result --save-detailed` JSON file as a
 * side of a peer view (peerview.h), so a vLLM run can sit beside ours under
 * one tool's definitions.
 *
 * The fields, as vllm-project/vllm vllm/benchmarks/serve.py (benchmark(),
 * the result dict) writes them, one entry per request in the same order:
 * "ttfts" (seconds), "itls" (a list per request: the gap before each chunk
 * after the first, seconds), "output_lens" (tokens; 0 for a failed request),
 * "input_lens", "errors" ("" for a successful request), and in newer versions
 * "latencies" (seconds, send to the last event) and "start_times"; summary
 * fields beside them ("completed", "failed", "mean_ttft_ms", ...). Without
 * "latencies" a request's end is its TTFT plus the sum of its ITLs (the last
 * chunk, not the last event). Everything is checked and bounded; a bad value
 * is refused in one line naming the file and the entry. */
#ifndef SM_VLLMIMPORT_H
#define SM_VLLMIMPORT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "peerview.h"

#define VLLMIMPORT_MAX_SECONDS 1e6 /* the largest time accepted */

enum vllmimport_err { VLLMIMPORT_OK = 0, VLLMIMPORT_ERR_NOMEM = -1, VLLMIMPORT_ERR_INPUT = -3 };

/* Whether the document head looks like vLLM's detailed result ("ttfts" and
 * "itls" arrays, no "format"). */
bool vllmimport_is(const cJSON *head);
/* Adds the requests of the vLLM result head (read from path) to s. Returns 0,
 * or a negative enum vllmimport_err with one line in err. */
__attribute__((warn_unused_result)) int vllmimport_add(struct peerview_side *s, const cJSON *head,
                                                       const char *path, struct buf *err);

#endif
