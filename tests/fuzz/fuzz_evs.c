/* Fuzzes the event stream decoder and encoder. The input is a stream:
 * - decoded in one slice and in slices of sizes drawn from the input's hash:
 *   the same messages (headers and payloads) and the same end code;
 * - each message the decoder accepts, encoded again from its decoded headers
 *   and payload, gives back its exact bytes (encode(decode(m)) == m);
 * - the input is also read as headers to encode (name, type and value taken
 *   from its bytes): what the encoder accepts decodes to the same headers and
 *   payload (decode(encode(x)) == x); what it refuses leaves its output as it was. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evs.h"

/* Appends a canonical form of a message's headers and payload. */
static void describe(struct buf *out, const struct evs_message *m) {
    struct evs_header_iter it;
    struct evs_header h;
    size_t n = 0;
    evs_headers_begin(m, &it);
    while (evs_headers_next(&it, &h)) {
        n++;
        if (buf_add(out, h.name, h.name_len) ||
            buf_addf(out, "|%d|%lld|", (int)h.type, (long long)h.num) ||
            buf_add(out, h.data ? (const char *)h.data : "", h.len) || buf_addc(out, '\n'))
            abort();
    }
    if (n != m->header_count) abort();
    if (buf_addf(out, "payload %zu:", m->payload_len) ||
        buf_add(out, (const char *)m->payload, m->payload_len) || buf_addc(out, '\n'))
        abort();
}

/* Re-encodes a decoded message and compares with its bytes in the stream. */
static void reencode(const struct evs_message *m, const uint8_t *stream) {
    struct evs_header hs[64];
    struct evs_header_iter it;
    size_t n = 0;
    if (m->header_count > 64) return;
    evs_headers_begin(m, &it);
    while (evs_headers_next(&it, &hs[n])) n++;
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    if (evs_encode(&out, hs, n, m->payload, m->payload_len, NULL) != EVS_OK) abort();
    size_t total = EVS_MIN_MESSAGE_LEN + m->headers_len + m->payload_len;
    if (out.len != total || memcmp(out.data, stream + m->offset, total) != 0) abort();
    buf_free(&out);
}

/* Decodes the stream in slices from next_size (NULL: one slice); returns the
 * end code and the description of the messages in out. */
static int decode(const uint8_t *data, size_t size, uint32_t seed, struct buf *out) {
    struct evs_decoder d;
    struct evs_message m;
    evs_decoder_init(&d, 0);
    size_t at = 0;
    int rc = 0;
    while (at < size && rc >= 0) {
        size_t n = size - at;
        if (seed) {
            seed = seed * 1103515245u + 12345u;
            n = 1 + (seed >> 16) % 64;
            if (n > size - at) n = size - at;
        }
        const uint8_t *p = data + at;
        size_t left = n;
        while ((rc = evs_decoder_next(&d, &p, &left, &m, NULL)) == 1) {
            describe(out, &m);
            if (!seed) reencode(&m, data);
        }
        if (rc == 0 && left != 0) abort();
        at += n;
    }
    if (rc >= 0) rc = evs_decoder_finish(&d, NULL);
    evs_decoder_free(&d);
    return rc;
}

/* Builds headers from the input's bytes, encodes and decodes them. */
static void round_trip(const uint8_t *data, size_t size) {
    struct evs_header h[16];
    size_t n = 0, at = 0;
    while (n < 16 && at + 3 <= size) {
        size_t nl = data[at] % 8, vl = data[at + 1];
        enum evs_type type = (enum evs_type)(data[at + 2] % 10);
        at += 3;
        if (at + nl + vl > size) break;
        h[n].name = (const char *)data + at;
        h[n].name_len = nl;
        h[n].type = type;
        h[n].num = 0;
        h[n].data = NULL;
        h[n].len = 0;
        uint64_t v = 0;
        for (size_t i = 0; i < vl && i < 8; i++) v = v << 8 | data[at + nl + i];
        h[n].num = (int64_t)v;
        /* Values of the narrow types, sign-extended from their low bytes. */
        if (type == EVS_BYTE) h[n].num = (int64_t)(v & 0xFF) - (int64_t)(v & 0x80) * 2;
        if (type == EVS_INT16) h[n].num = (int64_t)(v & 0xFFFF) - (int64_t)(v & 0x8000) * 2;
        if (type == EVS_INT32) h[n].num = (int64_t)(v & 0xFFFFFFFF) - (int64_t)(v & 0x80000000) * 2;
        if (type == EVS_BYTES || type == EVS_STRING || type == EVS_UUID) {
            h[n].data = data + at + nl;
            h[n].len = type == EVS_UUID && vl >= 16 ? 16 : vl;
        }
        at += nl + vl;
        n++;
    }
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    if (buf_adds(&out, "before")) abort();
    int rc = evs_encode(&out, h, n, data + at, size - at, NULL);
    if (rc != EVS_OK) {
        if (out.len != 6) abort();
        buf_free(&out);
        return;
    }
    struct evs_decoder d;
    struct evs_message m;
    struct evs_header got;
    struct evs_header_iter it;
    evs_decoder_init(&d, 0);
    const uint8_t *p = (const uint8_t *)out.data + 6;
    size_t left = out.len - 6;
    if (evs_decoder_next(&d, &p, &left, &m, NULL) != 1 || left != 0) abort();
    if (m.header_count != n || m.payload_len != size - at ||
        memcmp(m.payload, data + at, size - at) != 0)
        abort();
    evs_headers_begin(&m, &it);
    for (size_t i = 0; i < n; i++) {
        if (!evs_headers_next(&it, &got)) abort();
        if (got.name_len != h[i].name_len || memcmp(got.name, h[i].name, got.name_len) != 0 ||
            got.type != h[i].type || got.len != h[i].len ||
            (got.len && memcmp(got.data, h[i].data, got.len) != 0))
            abort();
        int64_t want = h[i].type == EVS_BOOL_TRUE                 ? 1
                       : h[i].data || h[i].type == EVS_BOOL_FALSE ? 0
                                                                  : h[i].num;
        if (got.num != want) abort();
    }
    evs_decoder_free(&d);
    buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint32_t seed = 2166136261u;
    for (size_t i = 0; i < size; i++) seed = (seed ^ data[i]) * 16777619u;
    struct buf whole, sliced;
    buf_init(&whole, BUF_NO_CAP);
    buf_init(&sliced, BUF_NO_CAP);
    int a = decode(data, size, 0, &whole);
    int b = decode(data, size, seed | 1, &sliced);
    if (a != b || whole.len != sliced.len ||
        (whole.len && memcmp(whole.data, sliced.data, whole.len) != 0))
        abort();
    buf_free(&whole);
    buf_free(&sliced);
    round_trip(data, size);
    return 0;
}
