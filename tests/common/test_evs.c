/* The event stream codec: round trips of every header type, every decoder and
 * encoder error, any slicing of the stream (one byte at a time, random cuts,
 * two messages in one slice), zero-copy decoding, SageMaker's messages. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "evs.h"

static const uint8_t uuid[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                 0x0f, 0xed, 0xcb, 0xa9, 0x87, 0x65, 0x43, 0x21};

static struct evs_header num(const char *name, enum evs_type type, int64_t v) {
    struct evs_header h = {.name = name, .name_len = strlen(name), .type = type, .num = v};
    return h;
}

static struct evs_header blob(const char *name, enum evs_type type, const void *p, size_t n) {
    struct evs_header h = {
        .name = name, .name_len = strlen(name), .type = type, .data = p, .len = n};
    return h;
}

/* Compares a decoded header with the one encoded. */
static void check_header(const struct evs_header *got, const struct evs_header *want) {
    CHECK_INT(got->name_len, want->name_len);
    CHECK(memcmp(got->name, want->name, want->name_len) == 0);
    CHECK_INT(got->type, want->type);
    if (want->type == EVS_BYTES || want->type == EVS_STRING || want->type == EVS_UUID) {
        CHECK_INT(got->len, want->len);
        CHECK(got->len == want->len && memcmp(got->data, want->data, want->len) == 0);
    } else
        CHECK_INT(got->num, want->type == EVS_BOOL_TRUE ? 1 : want->num);
}

/* Decodes the whole of in (one slice); returns the decoder's result. */
static int decode_one(struct evs_decoder *d, const struct buf *in, struct evs_message *m) {
    const uint8_t *p = (const uint8_t *)in->data;
    size_t n = in->len;
    return evs_decoder_next(d, &p, &n, m, NULL);
}

static void test_round_trip_every_type(void) {
    static uint8_t big[EVS_MAX_VALUE_LEN];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 7);
    struct evs_header h[] = {
        num("t", EVS_BOOL_TRUE, 0),
        num("f", EVS_BOOL_FALSE, 0),
        num("byte", EVS_BYTE, -128),
        num("byte+", EVS_BYTE, 127),
        num("short", EVS_INT16, -2),
        num("short+", EVS_INT16, 32767),
        num("int", EVS_INT32, INT32_MIN),
        num("int+", EVS_INT32, 123456789),
        num("long", EVS_INT64, INT64_MIN),
        num("long+", EVS_INT64, INT64_MAX),
        blob("bytes", EVS_BYTES, "\0\1\2\377", 4),
        blob("bytes-empty", EVS_BYTES, "", 0),
        blob("bytes-max", EVS_BYTES, big, sizeof big),
        evs_header_string(":content-type", "application/json"),
        evs_header_string("string-utf8", "Bras\xc3\xadlia \xf0\x9f\x98\x80"),
        evs_header_string("", "empty name"),
        num("timestamp", EVS_TIMESTAMP, 1727212812123),
        blob("uuid", EVS_UUID, uuid, 16),
    };
    size_t count = sizeof h / sizeof h[0];
    struct buf out, err;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(evs_encode(&out, h, count, "payload\0bytes", 13, &err), EVS_OK);
    struct evs_decoder d;
    struct evs_message m;
    evs_decoder_init(&d, 0);
    CHECK_INT(decode_one(&d, &out, &m), 1);
    CHECK_INT(m.header_count, count);
    CHECK_INT(m.payload_len, 13);
    CHECK(memcmp(m.payload, "payload\0bytes", 13) == 0);
    struct evs_header_iter it;
    struct evs_header got;
    size_t i = 0;
    evs_headers_begin(&m, &it);
    while (evs_headers_next(&it, &got) && i < count) check_header(&got, &h[i++]);
    CHECK_INT(i, count);
    CHECK(evs_message_header(&m, "uuid", &got) && got.type == EVS_UUID);
    CHECK(evs_message_header(&m, "", &got) && got.len == 10);
    CHECK(!evs_message_header(&m, "missing", &got));
    /* The message lay whole in the slice: its spans point into it. */
    CHECK(!m.buffered);
    CHECK(m.payload == (const uint8_t *)out.data + out.len - 4 - 13);
    CHECK_INT(evs_decoder_finish(&d, &err), 0);
    CHECK_STR(buf_str(&err), "");
    evs_decoder_free(&d);
    buf_free(&out);
    buf_free(&err);
}

/* Known bytes: a message with no headers and no payload is 16 bytes. */
static void test_empty_message_bytes(void) {
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    CHECK_INT(evs_encode(&out, NULL, 0, NULL, 0, NULL), EVS_OK);
    /* total 16, headers 0, prelude CRC, message CRC (computed with Python's zlib.crc32) */
    static const uint8_t want[16] = {0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00,
                                     0x05, 0xc2, 0x48, 0xeb, 0x7d, 0x98, 0xc8, 0xff};
    CHECK_INT(out.len, 16);
    CHECK(out.len == 16 && memcmp(out.data, want, 16) == 0);
    buf_free(&out);
}

/* A stream of n messages with varied headers and payloads. */
static void make_stream(struct buf *out, int n) {
    char payload[600], name[32];
    for (int i = 0; i < n; i++) {
        size_t plen = (size_t)(i * 37) % sizeof payload;
        for (size_t j = 0; j < plen; j++) payload[j] = (char)('a' + (i + j) % 26);
        snprintf(name, sizeof name, "h%d", i);
        struct evs_header h[] = {
            evs_header_string(":message-type", "event"),
            num(name, EVS_INT32, i),
            blob("b", EVS_BYTES, payload, plen % 40),
        };
        CHECK_INT(evs_encode(out, h, 3, payload, plen, NULL), EVS_OK);
    }
}

static uint32_t rng_state = 12345;
static uint32_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* Feeds the stream in slices from cut(); returns the messages seen and
 * checks each against the i-th message made by make_stream. */
static int feed(const struct buf *in, size_t (*cut)(size_t left), int *buffered) {
    struct evs_decoder d;
    struct evs_message m;
    evs_decoder_init(&d, 0);
    const uint8_t *p = (const uint8_t *)in->data;
    size_t left = in->len;
    int seen = 0, rc = 0;
    *buffered = 0;
    while (left && rc >= 0) {
        size_t n = cut(left);
        const uint8_t *s = p;
        size_t sn = n;
        while ((rc = evs_decoder_next(&d, &s, &sn, &m, NULL)) == 1) {
            struct evs_header h;
            CHECK(evs_message_header(&m, ":message-type", &h) && h.len == 5);
            char name[32];
            snprintf(name, sizeof name, "h%d", seen);
            CHECK(evs_message_header(&m, name, &h) && h.num == seen);
            CHECK_INT(m.payload_len, (size_t)(seen * 37) % 600);
            CHECK(m.payload_len == 0 || m.payload[0] == 'a' + seen % 26);
            *buffered += m.buffered;
            seen++;
        }
        CHECK_INT(sn, 0); /* a 0 means every byte was taken */
        p += n;
        left -= n;
    }
    CHECK_INT(rc, 0);
    CHECK_INT(evs_decoder_finish(&d, NULL), 0);
    evs_decoder_free(&d);
    return seen;
}

static size_t cut_all(size_t left) {
    return left;
}
static size_t cut_one(size_t left) {
    (void)left;
    return 1;
}
static size_t cut_random(size_t left) {
    size_t n = rng() % 700;
    return n > left ? left : n;
}

static void test_slicing(void) {
    struct buf in;
    buf_init(&in, BUF_NO_CAP);
    make_stream(&in, 40);
    int buffered;
    CHECK_INT(feed(&in, cut_all, &buffered), 40);
    CHECK_INT(buffered, 0); /* all in one slice: nothing copied */
    CHECK_INT(feed(&in, cut_one, &buffered), 40);
    CHECK_INT(buffered, 40);
    for (int round = 0; round < 50; round++) CHECK_INT(feed(&in, cut_random, &buffered), 40);
    buf_free(&in);
}

static void test_two_in_one_slice(void) {
    struct buf in;
    buf_init(&in, BUF_NO_CAP);
    CHECK_INT(evs_encode_payload_part(&in, "data: a\n\n", 9, NULL), EVS_OK);
    CHECK_INT(evs_encode_payload_part(&in, "data: b\n\n", 9, NULL), EVS_OK);
    size_t first = in.len / 2;
    struct evs_decoder d;
    struct evs_message m;
    evs_decoder_init(&d, 0);
    const uint8_t *p = (const uint8_t *)in.data;
    size_t n = in.len;
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, NULL), 1);
    CHECK_INT(n, in.len - first); /* the second message is still to be read */
    CHECK(m.payload_len == 9 && memcmp(m.payload, "data: a\n\n", 9) == 0);
    CHECK_INT(m.offset, 0);
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, NULL), 1);
    CHECK(m.payload_len == 9 && memcmp(m.payload, "data: b\n\n", 9) == 0);
    CHECK_INT(m.offset, first);
    CHECK_INT(n, 0);
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, NULL), 0);
    evs_decoder_free(&d);
    buf_free(&in);
}

static void test_sagemaker_messages(void) {
    struct buf in;
    buf_init(&in, BUF_NO_CAP);
    CHECK_INT(evs_encode_payload_part(&in, "{\"x\":1}", 7, NULL), EVS_OK);
    CHECK_INT(evs_encode_exception(&in, "ModelStreamError", "ModelInvocationTimeExceeded",
                                   "took \"too\" long\n", NULL),
              EVS_OK);
    CHECK_INT(evs_encode_exception(&in, "InternalStreamFailure", NULL, "oops", NULL), EVS_OK);
    struct evs_decoder d;
    struct evs_message m;
    struct evs_header h;
    evs_decoder_init(&d, 0);
    const uint8_t *p = (const uint8_t *)in.data;
    size_t n = in.len;
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, NULL), 1);
    CHECK_INT(m.header_count, 3);
    CHECK(evs_message_header(&m, ":event-type", &h) && h.len == 11 &&
          memcmp(h.data, "PayloadPart", 11) == 0);
    CHECK(evs_message_header(&m, ":message-type", &h) && h.len == 5 &&
          memcmp(h.data, "event", 5) == 0);
    CHECK(evs_message_header(&m, ":content-type", &h) && h.len == 24);
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, NULL), 1);
    CHECK(evs_message_header(&m, ":message-type", &h) && h.len == 9 &&
          memcmp(h.data, "exception", 9) == 0);
    CHECK(evs_message_header(&m, ":exception-type", &h) && h.len == 16);
    const char *want = "{\"Message\":\"took \\\"too\\\" long\\u000a\","
                       "\"ErrorCode\":\"ModelInvocationTimeExceeded\"}";
    CHECK(m.payload_len == strlen(want) && memcmp(m.payload, want, strlen(want)) == 0);
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, NULL), 1);
    CHECK(m.payload_len == 18 && memcmp(m.payload, "{\"Message\":\"oops\"}", 18) == 0);
    evs_decoder_free(&d);
    buf_free(&in);
}

/* ---- errors ---- */

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Builds a message by hand (lengths and CRCs as given, or right when -1). */
static size_t raw_message(uint8_t *out, const void *headers, size_t hlen, size_t plen,
                          int64_t total, int64_t hlen_field, int flip_prelude, int flip_message);

#include <libdeflate.h>

static size_t raw_message(uint8_t *out, const void *headers, size_t hlen, size_t plen,
                          int64_t total, int64_t hlen_field, int flip_prelude, int flip_message) {
    size_t size = 16 + hlen + plen;
    put32(out, (uint32_t)(total < 0 ? (int64_t)size : total));
    put32(out + 4, (uint32_t)(hlen_field < 0 ? (int64_t)hlen : hlen_field));
    put32(out + 8, libdeflate_crc32(0, out, 8) ^ (uint32_t)flip_prelude);
    memcpy(out + 12, headers, hlen);
    memset(out + 12 + hlen, 'p', plen);
    put32(out + size - 4, libdeflate_crc32(0, out, size - 4) ^ (uint32_t)flip_message);
    return size;
}

/* Decodes bytes in one slice and then in slices of 1, expecting the error code
 * and a line containing text; checks the error sticks. */
static void expect_error(const uint8_t *msg, size_t n, size_t max_payload, int code,
                         const char *text) {
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        struct evs_decoder d;
        struct evs_message m;
        struct buf err;
        buf_init(&err, BUF_NO_CAP);
        evs_decoder_init(&d, max_payload);
        const uint8_t *p = msg;
        size_t left = n;
        int rc = 0;
        while (left && rc >= 0) {
            size_t k = bytewise ? 1 : left;
            const uint8_t *s = p;
            size_t sn = k;
            rc = evs_decoder_next(&d, &s, &sn, &m, &err);
            p += k;
            left -= k;
        }
        if (rc >= 0) rc = evs_decoder_finish(&d, &err);
        CHECK_INT(rc, code);
        if (!strstr(buf_str(&err), text)) {
            fprintf(stderr, "error line [%s] lacks [%s]\n", buf_str(&err), text);
            check_failed++;
        }
        CHECK(!strchr(buf_str(&err), '\n'));
        /* Sticky: the same code and line again, whatever comes next. */
        buf_reset(&err);
        const uint8_t *s = msg;
        size_t sn = n;
        CHECK_INT(evs_decoder_next(&d, &s, &sn, &m, &err), code);
        CHECK(strstr(buf_str(&err), text) != NULL);
        CHECK_INT(evs_decoder_finish(&d, NULL), code);
        evs_decoder_free(&d);
        buf_free(&err);
    }
}

static void test_decoder_errors(void) {
    static uint8_t msg[300000];
    static const uint8_t one[] = {1, 'a', 0}; /* "a": true */
    size_t n;

    n = raw_message(msg, one, sizeof one, 5, -1, -1, 1, 0);
    expect_error(msg, n, 0, EVS_ERR_PRELUDE_CRC, "prelude CRC");
    n = raw_message(msg, one, sizeof one, 5, -1, -1, 0, 0x100);
    expect_error(msg, n, 0, EVS_ERR_MESSAGE_CRC, "message CRC");
    n = raw_message(msg, one, sizeof one, 5, -1, EVS_MAX_HEADERS_LEN + 1, 0, 0);
    expect_error(msg, n, 0, EVS_ERR_HEADERS_LENGTH, "headers length 131073 over 131072");
    n = raw_message(msg, one, sizeof one, 5, 16 + 3 + EVS_MAX_PAYLOAD_LEN + 1, -1, 0, 0);
    expect_error(msg, 12, 0, EVS_ERR_PAYLOAD_LENGTH, "payload length 16777217 over 16777216");
    /* A smaller cap of the decoder's own. */
    n = raw_message(msg, one, sizeof one, 101, -1, -1, 0, 0);
    expect_error(msg, n, 100, EVS_ERR_PAYLOAD_LENGTH, "payload length 101 over 100");
    n = raw_message(msg, one, sizeof one, 100, -1, -1, 0, 0);
    expect_error(msg, n - 1, 100, EVS_ERR_TRUNCATED, "ended after");
    n = raw_message(msg, one, sizeof one, 0, 15, 0, 0, 0);
    expect_error(msg, 16, 0, EVS_ERR_LENGTH, "total length 15 under 16");
    n = raw_message(msg, one, sizeof one, 0, 18, 3, 0, 0);
    expect_error(msg, 18, 0, EVS_ERR_LENGTH, "total length 18 under 16 + headers length 3");
    expect_error(msg, 11, 0, EVS_ERR_TRUNCATED, "ended after 11");

    struct {
        const char *bytes;
        size_t n;
        int code;
        const char *text;
    } bad[] = {
        {"\1a\12", 3, EVS_ERR_HEADER, "unknown header type"},
        {"\5ab", 3, EVS_ERR_HEADER, "name or type cut short"},
        {"\1a", 2, EVS_ERR_HEADER, "name or type cut short"},
        {"\1a\4\0\0", 5, EVS_ERR_HEADER, "value cut short"},
        {"\1a\7\0", 4, EVS_ERR_HEADER, "value length cut short"},
        {"\1a\7\0\5abc", 8, EVS_ERR_HEADER, "value cut short"},
        {"\1a\6\0\5abc", 8, EVS_ERR_HEADER, "value cut short"},
        {"\1a\11abcdefgh", 11, EVS_ERR_HEADER, "value cut short"},
        {"\2\xc3\x28\0", 4, EVS_ERR_HEADER, "name is not UTF-8"},
        {"\1a\7\0\3\xed\xa0\x80", 8, EVS_ERR_HEADER, "string value is not UTF-8"},
        {"\1a\7\0\2\xc0\xaf", 7, EVS_ERR_HEADER, "string value is not UTF-8"},
        {"\1a\7\0\4\xf4\x90\x80\x80", 9, EVS_ERR_HEADER, "string value is not UTF-8"},
        {"\1a\0\1b\1\1a\1", 9, EVS_ERR_DUP_HEADER, "header \"a\" appears twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        n = raw_message(msg, bad[i].bytes, bad[i].n, 2, -1, -1, 0, 0);
        expect_error(msg, n, 0, bad[i].code, bad[i].text);
    }
    /* Valid UTF-8 of every length passes. */
    n = raw_message(msg, "\1a\7\0\12\x41\xc3\xad\xe2\x82\xac\xf0\x9f\x98\x80", 15, 0, -1, -1, 0, 0);
    struct evs_decoder d;
    struct evs_message m;
    evs_decoder_init(&d, 0);
    const uint8_t *p = msg;
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, NULL), 1);
    evs_decoder_free(&d);

    /* Duplicates among many headers (found through the hash table), and many
     * distinct headers (no false duplicate). */
    uint8_t *hs = msg + 100000;
    size_t hl = 0;
    for (int i = 0; i < 3000; i++) {
        char name[8];
        int k = snprintf(name, sizeof name, "n%d", i);
        hs[hl++] = (uint8_t)k;
        memcpy(hs + hl, name, (size_t)k);
        hl += (size_t)k;
        hs[hl++] = EVS_BOOL_TRUE;
    }
    n = raw_message(msg, hs, hl, 0, -1, -1, 0, 0);
    evs_decoder_init(&d, 0);
    p = msg;
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, NULL), 1);
    CHECK_INT(m.header_count, 3000);
    evs_decoder_free(&d);
    static const uint8_t last[] = {5, 'n', '2', '9', '9', '9', EVS_BOOL_TRUE}; /* again */
    memcpy(hs + hl, last, sizeof last);
    n = raw_message(msg, hs, hl + sizeof last, 0, -1, -1, 0, 0);
    expect_error(msg, n, 0, EVS_ERR_DUP_HEADER, "header \"n2999\" appears twice");
    static const uint8_t first[] = {2, 'n', '0', EVS_BOOL_TRUE}; /* again */
    memcpy(hs + hl, first, sizeof first);
    n = raw_message(msg, hs, hl + sizeof first, 0, -1, -1, 0, 0);
    expect_error(msg, n, 0, EVS_ERR_DUP_HEADER, "header \"n0\" appears twice");

    /* A small table after a large one: nothing left over from the first
     * message makes (or hides) a duplicate in the next ones, each in a block
     * of its own size (ASan sees a read past it). */
    evs_decoder_init(&d, 0);
    n = raw_message(msg, hs, hl, 0, -1, -1, 0, 0);
    p = msg;
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, NULL), 1);
    for (int dup = 0; dup < 2; dup++) {
        uint8_t small[20 * 4];
        size_t sl = 0;
        for (int i = 0; i < 20; i++) {
            small[sl++] = 2;
            small[sl++] = 'm';
            small[sl++] = (uint8_t)('a' + (dup && i == 19 ? 0 : i));
            small[sl++] = EVS_BOOL_FALSE;
        }
        n = raw_message(msg, small, sl, 0, -1, -1, 0, 0);
        uint8_t *own = malloc(n);
        memcpy(own, msg, n);
        p = own;
        CHECK_INT(evs_decoder_next(&d, &p, &n, &m, NULL), dup ? EVS_ERR_DUP_HEADER : 1);
        CHECK_INT(m.header_count, 20);
        free(own);
    }
    evs_decoder_free(&d);
}

/* A message after a good one fails with its stream offset in the line. */
static void test_error_offset(void) {
    uint8_t msg[200];
    struct buf in, err;
    buf_init(&in, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(evs_encode_payload_part(&in, "abc", 3, NULL), EVS_OK);
    size_t first = in.len;
    size_t n = raw_message(msg, "", 0, 3, -1, -1, 1, 0);
    CHECK_INT(buf_add(&in, msg, n), BUF_OK);
    struct evs_decoder d;
    struct evs_message m;
    evs_decoder_init(&d, 0);
    const uint8_t *p = (const uint8_t *)in.data;
    n = in.len;
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, &err), 1);
    CHECK_INT(evs_decoder_next(&d, &p, &n, &m, &err), EVS_ERR_PRELUDE_CRC);
    char want[64];
    snprintf(want, sizeof want, "message at byte %zu: prelude CRC", first);
    CHECK(strstr(buf_str(&err), want) != NULL);
    evs_decoder_free(&d);
    buf_free(&in);
    buf_free(&err);
}

static void test_encoder_errors(void) {
    static char longname[256];
    memset(longname, 'n', sizeof longname);
    static uint8_t big[EVS_MAX_VALUE_LEN + 1];
    struct evs_header h1[] = {{.name = longname, .name_len = 256, .type = EVS_BOOL_TRUE}};
    struct evs_header h2[] = {blob("u", EVS_UUID, uuid, 15)};
    struct evs_header h3[] = {blob("b", EVS_BYTES, big, sizeof big)};
    struct evs_header h4[] = {num("a", EVS_INT32, 1), num("a", EVS_INT64, 2)};
    struct evs_header h5[] = {num("\xff", EVS_INT32, 1)};
    struct evs_header h6[] = {blob("s", EVS_STRING, "\xed\xa0\x80", 3)};
    struct evs_header h7[] = {num("t", (enum evs_type)10, 1)};
    struct {
        const struct evs_header *h;
        size_t n;
        int code;
        const char *text;
    } bad[] = {
        {h1, 1, EVS_ERR_HEADER, "header name longer than 255 bytes"},
        {h2, 1, EVS_ERR_HEADER, "uuid value not 16 bytes"},
        {h3, 1, EVS_ERR_HEADER, "header value longer than 65535 bytes"},
        {h4, 2, EVS_ERR_DUP_HEADER, "appears twice"},
        {h5, 1, EVS_ERR_HEADER, "header name is not UTF-8"},
        {h6, 1, EVS_ERR_HEADER, "string value is not UTF-8"},
        {h7, 1, EVS_ERR_HEADER, "unknown header type"},
    };
    struct buf out, err;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(buf_adds(&out, "keep"), BUF_OK);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf_reset(&err);
        CHECK_INT(evs_encode(&out, bad[i].h, bad[i].n, NULL, 0, &err), bad[i].code);
        CHECK(strstr(buf_str(&err), bad[i].text) != NULL);
        CHECK_STR(buf_str(&out), "keep"); /* unchanged */
    }
    /* Headers of exactly 128 KiB (65540 + 65532 bytes), then one byte more. */
    static uint8_t v[EVS_MAX_VALUE_LEN];
    struct evs_header h8[] = {blob("a", EVS_BYTES, v, sizeof v), blob("b", EVS_BYTES, v, 65527)};
    CHECK_INT(evs_encode(&out, h8, 2, NULL, 0, NULL), EVS_OK);
    buf_reset(&out);
    h8[1].len++;
    CHECK_INT(evs_encode(&out, h8, 2, NULL, 0, &err), EVS_ERR_HEADERS_LENGTH);
    CHECK_INT(evs_encode(&out, NULL, 0, v, EVS_MAX_PAYLOAD_LEN + 1, &err), EVS_ERR_PAYLOAD_LENGTH);
    CHECK_INT(out.len, 0);
    /* The output's own cap. */
    struct buf small;
    buf_init(&small, 20);
    CHECK_INT(evs_encode(&small, NULL, 0, "12345", 5, &err), EVS_ERR_NOMEM);
    CHECK_INT(small.len, 0);
    CHECK_INT(evs_encode(&small, NULL, 0, "1234", 4, &err), EVS_OK);
    buf_free(&small);
    buf_free(&out);
    buf_free(&err);
}

int main(void) {
    test_round_trip_every_type();
    test_empty_message_bytes();
    test_slicing();
    test_two_in_one_slice();
    test_sagemaker_messages();
    test_decoder_errors();
    test_error_offset();
    test_encoder_errors();
    CHECK_STR(evs_strerror(EVS_ERR_DUP_HEADER), "duplicate header");
    return check_exit();
}
