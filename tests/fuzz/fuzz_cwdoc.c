/* Fuzzes the readers of CloudWatch's documents (common/cwdoc.h) and what
 * sm-compare builds on them (results/read/cloudwatch_side.h): FilterLogEvents' events and
 * GetMetricData's results, as replies and as the aws CLI prints them. Input:
 * one control byte (bit 0: events or metric data), then the document.
 *
 * Whatever comes in: no crash; each event's message within its bound and
 * NUL-terminated at its length; each result's points finite, timestamps from
 * 1970; the side's log text one line per event, without control characters. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cwdoc.h"
#include "cloudwatch_side.h"

static int fuzz_event(void *ud, const struct cwdoc_event *e) {
    (void)ud;
    if (e->message_len > CWDOC_MESSAGE_MAX || e->message[e->message_len] != '\0' ||
        strlen(e->stream) > CWDOC_NAME_MAX || strlen(e->event_id) > CWDOC_NAME_MAX ||
        e->timestamp_ms < 0)
        abort();
    return 0;
}

static int fuzz_series(void *ud, const struct cwdoc_series *s) {
    (void)ud;
    if (strlen(s->id) == 0 || strlen(s->id) > CWDOC_NAME_MAX) abort();
    for (size_t i = 0; i < s->n; i++)
        if (!(s->t[i] >= 0) || !isfinite(s->v[i])) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    struct buf err, text;
    struct cloudwatch_side side;
    memset(&side, 0, sizeof side);
    buf_init(&err, 4096);
    buf_init(&text, BUF_NO_CAP);
    if (data[0] & 1) {
        (void)!cwdoc_metrics(p, n, fuzz_series, NULL, &err);
        (void)!cloudwatch_side_metrics(&side, p, n, &err);
        (void)!cloudwatch_side_metrics(&side, p, n, &err); /* the same points twice keep one each */
        cloudwatch_side_finish(&side);
        for (int k = 0; k < CWDOC_N_METRICS; k++)
            for (size_t i = 1; i < side.m[k].n; i++)
                if (!(side.m[k].t[i] > side.m[k].t[i - 1])) abort();
    } else {
        (void)!cwdoc_events(p, n, fuzz_event, NULL, &err);
        (void)!cloudwatch_side_logs(&side, p, n, &err);
        (void)!cloudwatch_side_logs(&side, p, n, &err);
        cloudwatch_side_finish(&side);
        if (cloudwatch_side_log_text(&side, &text) == 0) {
            size_t lines = 0;
            for (size_t i = 0; i < text.len; i++) {
                unsigned char c = (unsigned char)text.data[i];
                if (c == '\n')
                    lines++;
                else if (c < 0x20 || c == 0x7f)
                    abort();
            }
            if (lines != side.nev) abort();
        }
    }
    if (err.len && strchr(buf_str(&err), '\n')) abort();
    cloudwatch_side_free(&side);
    buf_free(&err);
    buf_free(&text);
    return 0;
}
