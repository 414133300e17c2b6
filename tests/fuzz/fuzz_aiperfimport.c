/* Fuzzes the import of AIPerf's per-request export (aiperfimport): the input
 * is written as profile_export.jsonl and read. An import either refuses in one
 * line naming the file, or yields requests with finite times whose chunk gaps
 * are in the side; then every view is computed over them. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aiperfimport.h"
#include "peerview.h"
#include "tmpdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const views[] = {"vllm", "aiperf", "guidellm", "llmperf"};
    const char *path = tmpdir_write("profile_export.jsonl", data, size);
    struct peerview_side s = {0};
    struct buf err;
    buf_init(&err, 1024);
    (void)aiperfimport_is(path);
    int rc = aiperfimport_read(&s, path, &err);
    if (rc < 0 && (!err.len || memchr(buf_str(&err), '\n', err.len) ||
                   !strstr(buf_str(&err), "profile_export.jsonl")))
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
    return 0;
}
