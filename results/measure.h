/* measure: reads the seed tool's compare.py measure-*.json files.
 *
 * Such a file holds one endpoint's whole run: "endpoint", "started",
 * "settings" (short, long, decode_repeats, load_tokens, concurrency,
 * load_repeats, temperature), "load_facts" (strings as logged), "decode" (the
 * medians and the rate it computed), "load" (per concurrency level, the
 * batches with wall, tokens and tokens_per_second) and "quality" (correct,
 * total, by_kind, and the stripped replies in "answers"). It keeps no
 * per-request times and no per-question scores: the replies are scored again
 * with the quiz's patterns when a quiz file is at hand. */
#ifndef SM_MEASURE_H
#define SM_MEASURE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "quizfile.h"
#include "src.h"

/* True when doc looks like a measure file. */
bool measure_is(const cJSON *doc);
/* Fills *out from doc; qz (may be NULL) scores the replies. */
__attribute__((warn_unused_result)) int measure_src(const cJSON *doc, const char *path,
                                                    const struct quizfile *qz, struct src *out,
                                                    struct diag *d);

#endif
