/* facts: the container facts found in a vLLM start-up log.
 *
 * The patterns are those of the reference method (DESIGN.md section 6); each
 * may match many times (a log group shared by several deployments) and the
 * last match wins. Lines may carry any prefix ("(EngineCore_DP0 pid=81) INFO
 * 09-25 18:40:12 [gpu_model_runner.py:2345] "). */
#ifndef SM_FACTS_H
#define SM_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

enum facts_err { FACTS_OK = 0, FACTS_ERR_NOMEM = -1 };

/* One fact: the text as logged (thousands separators kept) and its value. */
struct facts_fact {
    bool have;
    char text[40];
    double value;
};

struct facts {
    struct facts_fact weights_gib;     /* "Model loading took X GiB ..." */
    struct facts_fact load_seconds;    /* "... and X seconds" */
    struct facts_fact kv_cache_tokens; /* "GPU KV cache size: X tokens" */
    struct facts_fact max_conc_tokens; /* "Maximum concurrency for X tokens per request" */
    struct facts_fact max_concurrency; /* "...: Xx" */
    struct facts_fact quantization;    /* "quantization=X" (value unused) */
    struct facts_fact vllm_version;    /* "version X.Y.Z" (value unused) */
    char source[256];                  /* where the facts came from, for the report */
};

/* Scans n bytes of log text into *out (facts not found stay !have). Returns 0,
 * or FACTS_ERR_NOMEM with "out of memory" in err. */
__attribute__((warn_unused_result)) int facts_scan(const char *text, size_t n, struct facts *out,
                                                   struct buf *err);
/* Sets f from text as logged (commas allowed); returns false for a non-number. */
bool facts_set(struct facts_fact *f, const char *text, size_t n);
/* True when any fact is known. */
bool facts_any(const struct facts *f);

#endif
