/* Fuzzes the vLLM log readers: the input is scanned as a whole container log
 * for its start-up facts and its throughput lines, and read as one logged
 * number. Every fact found must hold its text within bounds and, when it is a
 * number, a finite value; every throughput line finite, non-negative rates,
 * and placed in time, lines in order. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "srvlog.h"

static void fuzz_fact(const struct facts_fact *f, bool number) {
    if (f->have && (!memchr(f->text, '\0', sizeof f->text) || (number && !isfinite(f->value))))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct facts f;
    struct facts_fact one = {0};
    struct srvlog log = {0};
    struct buf err;
    buf_init(&err, 1024);
    memset(&f, 0, sizeof f);
    if (facts_scan((const char *)data, size, &f, &err) < 0) abort();
    if (srvlog_scan(&log, (const char *)data, size, &err) < 0) abort();
    srvlog_place(&log, 1790000000.0);
    for (size_t i = 0; i < log.n; i++)
        if (!isfinite(log.lines[i].t) || !(log.lines[i].gen_tps >= 0) ||
            !(log.lines[i].prompt_tps >= 0) || !log.lines[i].year_known ||
            (i && log.lines[i].t < log.lines[i - 1].t))
            abort();
    if (!(srvlog_interval(&log) >= 0)) abort();
    srvlog_free(&log);
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
    buf_free(&err);
    return 0;
}
