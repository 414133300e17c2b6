/* Fuzzes the import of a `vllm bench serve` detailed result (vllmimport) and
 * the peer views over what it imported: the input is parsed as JSON; a
 * document that looks like vLLM's is imported, and then every view computed.
 * An import either refuses in one line or yields requests whose times are
 * finite, and every statistic is finite or NAN (no value). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "peerview.h"
#include "vllmimport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const views[] = {"vllm", "aiperf", "guidellm", "llmperf"};
    cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
    struct peerview_side s = {0};
    struct buf err;
    buf_init(&err, 1024);
    if (doc && vllmimport_is(doc)) {
        int rc = vllmimport_add(&s, doc, "fuzz.json", &err);
        if (rc < 0 && (!err.len || memchr(buf_str(&err), '\n', err.len))) abort();
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
    }
    peerview_side_free(&s);
    buf_free(&err);
    cJSON_Delete(doc);
    return 0;
}
