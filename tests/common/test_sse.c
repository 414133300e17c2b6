/* The SSE parser: the WHATWG rules it keeps, each stream fed whole, one byte
 * at a time and in random slices (the events must not change), the caps, the
 * end of the stream, and spans that survive the slice they came from. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "sse.h"

static uint32_t rng_state = 777;
static uint32_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* Feeds the stream in slices (mode 0 whole, 1 bytewise, 2 random, 3 random
 * with the rest of the slice moved to a new block after each event), each
 * slice copied to its own heap block freed right after the call, so a span
 * kept past its slice is caught by ASan. Writes "type|data" per event, joined with
 * ";", to out; returns the error of sse_next or sse_finish (0 when clean). */
static int run(const char *stream, size_t n, int mode, size_t max_line, size_t max_event,
               struct buf *out) {
    struct sse_parser p;
    struct sse_event ev;
    sse_init(&p, max_line, max_event);
    buf_reset(out);
    size_t at = 0;
    int rc = 0;
    while (at < n && rc >= 0) {
        size_t k = mode == 0 ? n - at : mode == 1 ? 1 : rng() % (mode == 3 ? 30 : 9);
        if (k > n - at) k = n - at;
        char *slice = malloc(k + 1);
        memcpy(slice, stream + at, k);
        const char *s = slice;
        size_t sn = k;
        while ((rc = sse_next(&p, &s, &sn, &ev, NULL)) == 1) {
            if (out->len) CHECK_INT(buf_addc(out, ';'), BUF_OK);
            CHECK_INT(buf_add(out, ev.type, ev.type_len), BUF_OK);
            CHECK_INT(buf_addc(out, '|'), BUF_OK);
            CHECK_INT(buf_add(out, ev.data, ev.data_len), BUF_OK);
            if (mode == 3) {
                char *moved = malloc(sn + 1);
                memcpy(moved, s, sn);
                free(slice);
                s = slice = moved;
            }
        }
        if (rc == 0) CHECK_INT(sn, 0);
        free(slice);
        at += k;
    }
    if (rc >= 0) rc = sse_finish(&p, NULL);
    sse_free(&p);
    return rc;
}

struct sse_case {
    const char *name;
    const char *stream;
    const char *events;
    int end; /* the result of sse_finish (or the error) */
};

static const struct sse_case cases[] = {
    {"lf", "data: a\n\n", "|a", 0},
    {"crlf", "data:a\r\n\r\n", "|a", 0},
    {"crlf is one line end", "data: a\r\ndata: b\r\n\r\n", "|a\nb", 0},
    {"cr", "data: x\r\rdata: y\r\r", "|x;|y", 0},
    {"mixed ends", "data: a\r\n\ndata: b\n\r\ndata: c\r\n\r", "|a;|b;|c", 0},
    {"one space dropped", "data:  two\n\n", "| two", 0},
    {"no space", "data:b\n\n", "|b", 0},
    {"multi-line data", "data: l1\ndata: l2\ndata:\n\n", "|l1\nl2\n", 0},
    {"comments", ": hi\ndata: a\n: there\n\n:\n", "|a", 0},
    {"event type", "event: error\ndata: {}\n\ndata: next\n\n", "error|{};|next", 0},
    {"empty data", "data\n\n", "|", 0},
    {"two empty data lines", "data:\ndata:\n\n", "|\n", 0},
    {"type without data", "event: x\n\ndata: a\n\n", "|a", 0},
    {"ignored fields", "id: 1\nretry: 5\nfoo: bar\nDATA: no\ndata: a\n\n", "|a", 0},
    {"colon in value", "data: {\"a\":\"b: c\"}\n\n", "|{\"a\":\"b: c\"}", 0},
    {"blank lines", "\n\n\r\ndata: a\n\n\n\ndata: b\n\n", "|a;|b", 0},
    {"bom",
     "\xEF\xBB\xBF"
     "data: a\n\n",
     "|a", 0},
    {"bom once",
     "\xEF\xBB\xBF\xEF\xBB\xBF"
     "data: a\n\ndata: b\n\n",
     "|b", 0},
    {"bom cut", "\xEF\xBB", "", SSE_ERR_TRUNCATED},
    {"not a bom",
     "\xEF"
     "data: a\n\ndata: b\n\n",
     "|b", 0},
    {"vllm", "data: {\"choices\":[]}\n\ndata: [DONE]\n\n", "|{\"choices\":[]};|[DONE]", 0},
    {"no blank line at the end", "data: a\n\ndata: b\n", "|a", SSE_ERR_TRUNCATED},
    {"no line end at the end", "data: a\n\ndata: b", "|a", SSE_ERR_TRUNCATED},
    {"type at the end", "data: a\n\nevent: x\n", "|a", SSE_ERR_TRUNCATED},
    {"comment at the end", "data: a\n\n: bye\n", "|a", 0},
    {"empty", "", "", 0},
};

static void test_cases(void) {
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct sse_case *c = &cases[i];
        for (int mode = 0; mode < 4; mode++) {
            for (int round = 0; round < (mode >= 2 ? 20 : 1); round++) {
                int rc = run(c->stream, strlen(c->stream), mode, 0, 0, &out);
                if (rc != c->end || strcmp(buf_str(&out), c->events) != 0) {
                    fprintf(stderr, "%s (mode %d): got [%s] %d, want [%s] %d\n", c->name, mode,
                            buf_str(&out), rc, c->events, c->end);
                    check_failed++;
                }
            }
        }
    }
    buf_free(&out);
}

static void test_caps(void) {
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    for (int mode = 0; mode < 2; mode++) {
        const char *ten = "data: 1234\n\n", *eleven = "data: 12345\n\n";
        CHECK_INT(run(ten, strlen(ten), mode, 10, 0, &out), 0);
        CHECK_STR(buf_str(&out), "|1234");
        CHECK_INT(run(eleven, strlen(eleven), mode, 10, 0, &out), SSE_ERR_LINE);
        const char *five = "data: 123\ndata: 4\n\n", *six = "data: 123\ndata: 45\n\n";
        CHECK_INT(run(five, strlen(five), mode, 0, 5, &out), 0);
        CHECK_INT(run(six, strlen(six), mode, 0, 5, &out), SSE_ERR_EVENT);
        const char *one = "data: 123456\n\n";
        CHECK_INT(run(one, strlen(one), mode, 0, 5, &out), SSE_ERR_EVENT);
        /* A long comment is a long line too. */
        const char *comment = ":0123456789\n";
        CHECK_INT(run(comment, strlen(comment), mode, 10, 0, &out), SSE_ERR_LINE);
    }
    buf_free(&out);
}

static void test_sticky_error_and_message(void) {
    struct sse_parser p;
    struct sse_event ev;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    sse_init(&p, 8, 0);
    const char *s = "data: 0123456789\n\ndata: a\n\n";
    size_t n = strlen(s);
    CHECK_INT(sse_next(&p, &s, &n, &ev, &err), SSE_ERR_LINE);
    CHECK(strstr(buf_str(&err), "line over the length cap") != NULL);
    s = "data: a\n\n";
    n = strlen(s);
    CHECK_INT(sse_next(&p, &s, &n, &ev, NULL), SSE_ERR_LINE);
    CHECK_INT(sse_finish(&p, NULL), SSE_ERR_LINE);
    sse_free(&p);
    buf_free(&err);
}

/* An event whose one data line lies in the slice comes back as a span of it;
 * one that waits for the next slice is copied first. */
static void test_spans(void) {
    struct sse_parser p;
    struct sse_event ev;
    sse_init(&p, 0, 0);
    char in[] = "data: abc\n\ndata: def\n";
    const char *s = in;
    size_t n = strlen(in);
    CHECK_INT(sse_next(&p, &s, &n, &ev, NULL), 1);
    CHECK(ev.data == in + 6 && ev.data_len == 3);
    CHECK_INT(n, strlen("data: def\n"));
    CHECK_INT(sse_next(&p, &s, &n, &ev, NULL), 0);
    memset(in, 'X', sizeof in - 1); /* the caller reuses its buffer */
    s = "\n";
    n = 1;
    CHECK_INT(sse_next(&p, &s, &n, &ev, NULL), 1);
    CHECK(ev.data_len == 3 && memcmp(ev.data, "def", 3) == 0);
    CHECK(ev.type_len == 0 && ev.type[0] == '\0');
    sse_free(&p);
}

int main(void) {
    test_cases();
    test_caps();
    test_sticky_error_and_message();
    test_spans();
    return check_exit();
}
