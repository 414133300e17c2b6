/* Fuzzes the whole pipeline, body bytes to chunks. The first input byte picks
 * the body (plain or eventstream), the framing (auto, SSE, JSON lines) and,
 * for an eventstream, whether the rest is a raw body or container text that
 * this target wraps in PayloadParts cut where the input says (so the fuzzer
 * reaches SSE and JSON under the eventstream layer). The body is fed in one
 * slice and in slices of sizes drawn from its hash, with small caps: both must
 * give the same chunks and the same end (and the same totals when clean); a
 * chunk's counts and spans stay within the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sstream.h"

static const struct sstream_limits limits = {
    .max_payload = 1024, .max_line = 256, .max_event = 512};

static void describe(struct buf *out, const struct schunk *c, size_t body_len) {
    if (c->tokens < 0 || c->content.n > body_len || c->reasoning.n > body_len ||
        c->error_message.n > body_len + 100 || (c->kind != SCHUNK_DATA && c->content.n))
        abort();
    if (buf_addf(out, "%d %d %d %d %lld %lld|", (int)c->kind, (int)c->format, c->tokens,
                 c->logprob_tokens, (long long)c->prompt_tokens, (long long)c->completion_tokens) ||
        buf_add(out, c->content.s, c->content.n) || buf_addc(out, '|') ||
        buf_add(out, c->reasoning.s, c->reasoning.n) || buf_addc(out, '|') ||
        buf_add(out, c->finish_reason.s, c->finish_reason.n) || buf_addc(out, '|') ||
        buf_add(out, c->error_type.s, c->error_type.n) || buf_addc(out, '|') ||
        buf_add(out, c->error_code.s, c->error_code.n) || buf_addc(out, '|') ||
        buf_add(out, c->error_message.s, c->error_message.n) || buf_addc(out, '\n'))
        abort();
}

static int run(const char *body, size_t size, enum sstream_body kind, enum sstream_framing framing,
               uint32_t seed, struct buf *out, struct sstream_totals *totals) {
    struct sstream s;
    struct schunk c;
    sstream_init(&s, kind, framing, &limits);
    size_t at = 0;
    int rc = 0;
    while (at < size && rc >= 0) {
        size_t n = size - at;
        if (seed) {
            seed = seed * 1103515245u + 12345u;
            n = (seed >> 16) % 40;
            if (n > size - at) n = size - at;
        }
        /* A copy of its own, so a span kept past its slice is caught. */
        char *slice = malloc(n + 1);
        if (!slice) abort();
        memcpy(slice, body + at, n);
        const char *p = slice;
        size_t left = n;
        while ((rc = sstream_next(&s, &p, &left, &c, NULL)) == 1) {
            describe(out, &c, size);
            if (seed) { /* the rest of the slice moves: nothing may point into it */
                char *moved = malloc(left + 1);
                if (!moved) abort();
                memcpy(moved, p, left);
                free(slice);
                p = slice = moved;
            }
        }
        if (rc == 0 && left != 0) abort();
        free(slice);
        at += n;
    }
    while (rc >= 0 && (rc = sstream_finish(&s, &c, NULL)) == 1) describe(out, &c, size);
    if (s.totals.body_bytes + s.totals.bytes_after_end > size) abort();
    *totals = s.totals;
    sstream_free(&s);
    return rc;
}

static bool totals_equal(const struct sstream_totals *a, const struct sstream_totals *b) {
    return a->body_bytes == b->body_bytes && a->messages == b->messages &&
           a->ignored_messages == b->ignored_messages && a->payload_bytes == b->payload_bytes &&
           a->chunks == b->chunks && a->content_chunks == b->content_chunks &&
           a->content_bytes == b->content_bytes && a->reasoning_bytes == b->reasoning_bytes &&
           a->tokens == b->tokens && a->prompt_tokens == b->prompt_tokens &&
           a->completion_tokens == b->completion_tokens &&
           strcmp(a->finish_reason, b->finish_reason) == 0 && a->done == b->done &&
           a->error == b->error && a->bytes_after_end == b->bytes_after_end;
}

/* Wraps text in PayloadParts, cut every (cut byte % 32) + 1 bytes. */
static void wrap(const uint8_t *text, size_t n, uint8_t cut, struct buf *body) {
    size_t step = (size_t)(cut % 32) + 1;
    for (size_t at = 0; at < n; at += step) {
        size_t k = n - at < step ? n - at : step;
        if (evs_encode_payload_part(body, text + at, k, NULL) != EVS_OK) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    uint8_t mode = data[0];
    enum sstream_framing framing = (enum sstream_framing)(mode % 3);
    enum sstream_body kind = mode & 4 ? SSTREAM_BODY_EVENTSTREAM : SSTREAM_BODY_PLAIN;
    struct buf body;
    buf_init(&body, BUF_NO_CAP);
    if (kind == SSTREAM_BODY_EVENTSTREAM && (mode & 8))
        wrap(data + 2, size - 2, data[1], &body);
    else if (buf_add(&body, data + 1, size - 1))
        abort();
    uint32_t seed = 2166136261u;
    for (size_t i = 0; i < size; i++) seed = (seed ^ data[i]) * 16777619u;
    struct buf whole, sliced;
    struct sstream_totals tw, ts;
    buf_init(&whole, BUF_NO_CAP);
    buf_init(&sliced, BUF_NO_CAP);
    const char *b = body.data ? body.data : "";
    int a = run(b, body.len, kind, framing, 0, &whole, &tw);
    int c = run(b, body.len, kind, framing, seed | 1, &sliced, &ts);
    if (a != c || whole.len != sliced.len ||
        (whole.len && memcmp(whole.data, sliced.data, whole.len) != 0))
        abort();
    if (a == 0 && !totals_equal(&tw, &ts)) abort();
    buf_free(&whole);
    buf_free(&sliced);
    buf_free(&body);
    return 0;
}
