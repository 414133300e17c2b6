/* measure: reads the seed tool's compare.py measure-*.json files.
 *
 * Such a file holds one endpoint's whole run: "endpoint", "started",
 * "settings" (short, long, decode_repeats, load_tokens, concurrency,
 * load_repeats, temperature), "load_facts" (strings as logged), "decode" (the
 * medians and the rate it computed), "load" (per concurrency level, the
 * batches with wall, tokens and tokens_per_second) and "quality" (correct,
 * total, by_kind, and the stripped replies in "answers"). It keeps no
 * per-request times and no per-question scores: the replies are scored again
 * with the quiz's patterns when a quiz file is at hand. Its client is the aws
 * CLI (SRC_MEASURE_TOOL), whose start-up is in every time it saved. */
#ifndef SM_MEASURE_H
#define SM_MEASURE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "quizfile.h"
#include "src.h"
#include "warnings.h"

enum measure_err { MEASURE_OK = 0, MEASURE_ERR_NOMEM = -1, MEASURE_ERR_INPUT = -3 };

/* True when doc looks like a measure file. */
bool measure_is(const cJSON *doc);
/* Fills *out from doc (the caller frees it with src_free, also after an error);
 * qz (may be NULL) scores the replies. Returns 0, or a negative enum
 * measure_err with one line naming path in err; warnings go to w. */
__attribute__((warn_unused_result)) int measure_src(const cJSON *doc, const char *path,
                                                    const struct quizfile *qz, struct src *out,
                                                    struct warnings *w, struct buf *err);

#endif
