/* Fuzzes the SSE parser: the input is a stream, parsed in one slice and in
 * slices of sizes drawn from its hash, with small caps so that they are hit.
 * Both must give the same events and the same end; no event's data or type
 * holds a '\r', no type holds a '\n', and no event is larger than the caps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sse.h"

#define MAX_LINE  64
#define MAX_EVENT 100

static int parse(const uint8_t *data, size_t size, uint32_t seed, struct buf *out) {
    struct sse_parser p;
    struct sse_event ev;
    sse_init(&p, MAX_LINE, MAX_EVENT);
    size_t at = 0;
    int rc = 0;
    while (at < size && rc >= 0) {
        size_t n = size - at;
        if (seed) {
            seed = seed * 1103515245u + 12345u;
            n = (seed >> 16) % 16;
            if (n > size - at) n = size - at;
        }
        const char *s = (const char *)data + at;
        size_t left = n;
        while ((rc = sse_next(&p, &s, &left, &ev, NULL)) == 1) {
            if (ev.data_len > MAX_EVENT || ev.type_len > MAX_LINE) abort();
            if (memchr(ev.data, '\r', ev.data_len) || memchr(ev.type, '\r', ev.type_len) ||
                memchr(ev.type, '\n', ev.type_len))
                abort();
            if (buf_add(out, ev.type, ev.type_len) || buf_addc(out, 0) ||
                buf_add(out, ev.data, ev.data_len) || buf_addc(out, 0))
                abort();
        }
        if (rc == 0 && left != 0) abort();
        at += n;
    }
    if (rc >= 0) rc = sse_finish(&p, NULL);
    sse_free(&p);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint32_t seed = 2166136261u;
    for (size_t i = 0; i < size; i++) seed = (seed ^ data[i]) * 16777619u;
    struct buf whole, sliced;
    buf_init(&whole, BUF_NO_CAP);
    buf_init(&sliced, BUF_NO_CAP);
    int a = parse(data, size, 0, &whole), b = parse(data, size, seed | 1, &sliced);
    /* A cap is met at the same byte however the stream is cut, so the events
     * before it agree too. */
    if (a != b || whole.len != sliced.len ||
        (whole.len && memcmp(whole.data, sliced.data, whole.len) != 0))
        abort();
    buf_free(&whole);
    buf_free(&sliced);
    return 0;
}
