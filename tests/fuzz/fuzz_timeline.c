/* Fuzzes the reader of sm-timeline's samples (results/read/timeline.h) that
 * sm-compare's Scaling section reads. Input: the file's bytes.
 *
 * Whatever comes in: a read either fails with one line naming the file, or
 * gives samples in time order with counts from -1 up, Unix times in range,
 * and activities with an id, each once, sorted by start, all of one endpoint. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct timeline t;
    struct buf err;
    buf_init(&err, 4096);
    int rc = timeline_parse("fuzz.jsonl", (const char *)data, size, &t, &err);
    if (rc == TIMELINE_ERR_NOMEM) abort();
    if (rc) {
        if (rc != TIMELINE_ERR_INPUT || t.n || t.s || t.a || !err.len ||
            strncmp(buf_str(&err), "fuzz.jsonl", 10) != 0 || memchr(err.data, '\n', err.len))
            abort();
    } else {
        if (!t.n || !t.endpoint[0]) abort();
        for (size_t i = 0; i < t.n; i++) {
            if (!(t.s[i].t > 0) || t.s[i].current < -1 || t.s[i].desired < -1) abort();
            if (i && t.s[i].t < t.s[i - 1].t) abort();
        }
        for (size_t i = 0; i < t.na; i++) {
            if (!t.a[i].id[0] || !(t.a[i].start > 0) || t.a[i].end < 0) abort();
            if (i && t.a[i].start < t.a[i - 1].start) abort();
            for (size_t k = 0; k < i; k++)
                if (strcmp(t.a[k].id, t.a[i].id) == 0) abort();
        }
    }
    timeline_free(&t);
    buf_free(&err);
    return 0;
}
