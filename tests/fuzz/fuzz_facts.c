/* Fuzzes the vLLM log reader: the input is scanned as a whole start-up log,
 * and read as one logged number. Every fact found must hold its text within
 * bounds and, when it is a number, a finite value. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"

static void fuzz_fact(const struct fact *f, bool number) {
    if (f->have && (!memchr(f->text, '\0', sizeof f->text) || (number && !isfinite(f->value))))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct facts f;
    struct fact one = {0};
    struct diag d;
    diag_init(&d);
    memset(&f, 0, sizeof f);
    if (facts_scan((const char *)data, size, &f, &d) < 0) abort();
    fuzz_fact(&f.weights_gib, true);
    fuzz_fact(&f.load_seconds, true);
    fuzz_fact(&f.kv_cache_tokens, true);
    fuzz_fact(&f.max_conc_tokens, true);
    fuzz_fact(&f.max_concurrency, true);
    fuzz_fact(&f.quantization, false);
    fuzz_fact(&f.vllm_version, false);
    if (facts_set(&one, (const char *)data, size)) fuzz_fact(&one, true);
    if (facts_any(&f) != (f.weights_gib.have || f.load_seconds.have || f.kv_cache_tokens.have ||
                          f.max_conc_tokens.have || f.max_concurrency.have || f.quantization.have ||
                          f.vllm_version.have))
        abort();
    diag_free(&d);
    return 0;
}
