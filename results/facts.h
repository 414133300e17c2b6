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

#include "diag.h"

/* One fact: the text as logged (thousands separators kept) and its value. */
struct fact {
    bool have;
    char text[40];
    double value;
};

struct facts {
    struct fact weights_gib;     /* "Model loading took X GiB ..." */
    struct fact load_seconds;    /* "... and X seconds" */
    struct fact kv_cache_tokens; /* "GPU KV cache size: X tokens" */
    struct fact max_conc_tokens; /* "Maximum concurrency for X tokens per request" */
    struct fact max_concurrency; /* "...: Xx" */
    struct fact quantization;    /* "quantization=X" (value unused) */
    struct fact vllm_version;    /* "version X.Y.Z" (value unused) */
    char source[256];            /* where the facts came from, for the report */
};

/* Scans n bytes of log text into *out (facts not found stay !have). */
__attribute__((warn_unused_result)) int facts_scan(const char *text, size_t n, struct facts *out,
                                                   struct diag *d);
/* Reads and scans the log file at path; bad input goes to d. */
__attribute__((warn_unused_result)) int facts_read(const char *path, struct facts *out,
                                                   struct diag *d);
/* Sets f from text as logged (commas allowed); returns false for a non-number. */
bool facts_set(struct fact *f, const char *text, size_t n);
/* True when any fact is known. */
bool facts_any(const struct facts *f);

#endif
