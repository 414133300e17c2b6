/* Fuzzes the ramp reader (plugin/ramp.h). Input: one control byte (bit 0: a
 * curve file, else --ramp's text), then the bytes.
 *
 * A read either fails with one line naming the piece or the line, or gives
 * pieces of positive finite seconds and finite rates at least 0; a schedule
 * drawn from them (when not too many arrivals) never goes back and ends
 * before the ramp's end. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugcheck.h"
#include "ramp.h"

static void fuzz_ramp_check(const struct arrivals_seg *segs, size_t n) {
    double total = 0, seconds = 0;
    if (!n || !segs) abort();
    for (size_t i = 0; i < n; i++) {
        if (!(segs[i].dur_s > 0 && isfinite(segs[i].dur_s))) abort();
        if (!(segs[i].from >= 0 && isfinite(segs[i].from))) abort();
        if (!(segs[i].to >= 0 && isfinite(segs[i].to))) abort();
        total += (segs[i].from + segs[i].to) / 2 * segs[i].dur_s;
        seconds += segs[i].dur_s;
    }
    if (!(total > 0 && total < 1e5 && seconds < 1e9)) return; /* a bounded draw only */
    struct arrivals_spec s = {.process = ARRIVALS_POISSON, .seed = 3, .segs = segs, .n_segs = n};
    long long *at;
    long k;
    struct buf err;
    buf_init(&err, 4096);
    if (arrivals_draw(&s, &at, &k, &err)) abort();
    for (long i = 0; i < k; i++)
        if (at[i] < 0 || (i && at[i] < at[i - 1]) || at[i] > llround(seconds * 1e6)) abort();
    free(at);
    buf_free(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!size) return 0;
    struct arrivals_seg *segs = NULL;
    size_t n = 0;
    struct buf err;
    buf_init(&err, 4096);
    int rc;
    if (data[0] & 1) {
        rc = ramp_parse_csv("fuzz.csv", (const char *)data + 1, size - 1, &segs, &n, &err);
        if (rc == RAMP_ERR_INPUT && strncmp(buf_str(&err), "fuzz.csv", 8) != 0) abort();
    } else {
        char *text = malloc(size);
        if (!text) abort();
        memcpy(text, data + 1, size - 1);
        text[size - 1] = 0;
        rc = ramp_parse(text, &segs, &n, &err);
        free(text);
    }
    if (rc == RAMP_ERR_NOMEM) abort();
    if (rc) {
        if (segs) abort();
        plugcheck_one_line(buf_str(&err), 4096);
    } else {
        fuzz_ramp_check(segs, n);
    }
    free(segs);
    buf_free(&err);
    return 0;
}
