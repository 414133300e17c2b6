/* Fuzzes the imports of another tool's run as a side of a peer view: the input
 * is written as a `vllm bench serve` detailed result (vllm-run.json) and as
 * AIPerf's export (profile_export.jsonl), and each is read as a side
 * (peerread_paths: rfile then vllmimport, or aiperfimport). A read either
 * refuses in one line naming the file, or yields requests with finite times
 * whose chunk gaps are in the side; then every view is computed over them,
 * each statistic finite (or no value). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "peerread.h"
#include "peerview.h"
#include "tmpdir.h"

static void fuzz_side(const char *name, const uint8_t *data, size_t size) {
    static const char *const views[] = {"vllm", "aiperf", "guidellm", "llmperf"};
    char *paths[] = {(char *)tmpdir_write(name, data, size)};
    struct peerview_side s = {0};
    struct buf err;
    buf_init(&err, 1024);
    int rc = peerread_paths(&s, paths, 1, &err);
    if (rc < 0 &&
        (!err.len || memchr(buf_str(&err), '\n', err.len) || !strstr(buf_str(&err), name)))
        abort();
    for (size_t i = 0; rc == 0 && i < s.n; i++)
        if (!isfinite(s.r[i].first) || !isfinite(s.r[i].end) || !isfinite(s.r[i].last) ||
            s.r[i].gap0 + s.r[i].ngaps > s.ngaps)
            abort();
    for (size_t v = 0; rc == 0 && v < sizeof views / sizeof views[0]; v++) {
        struct peerview_metric m[PEERVIEW_MAX_METRICS];
        int n = peerview_compute(peerview_find(views[v]), &s, m);
        for (int i = 0; i < n; i++)
            if (m[i].n && (!isfinite(m[i].mean) || !(m[i].min <= m[i].max))) abort();
    }
    peerview_side_free(&s);
    buf_free(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_side("vllm-run.json", data, size);
    fuzz_side("profile_export.jsonl", data, size);
    return 0;
}
