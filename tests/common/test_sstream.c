/* The pipeline from body bytes to chunks: eventstream bodies whose
 * PayloadParts cut the container's text everywhere (inside a UTF-8 character,
 * a JSON string, an SSE line), in every slicing of the body; exceptions and
 * error messages; plain SSE and JSON lines bodies; token counts and totals;
 * every error. Each slice is a heap copy freed after its call, so a chunk or
 * payload kept past its slice is caught by ASan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "sstream.h"

static uint32_t rng_state = 99;
static uint32_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* What a run saw: the chunks in short form, the text, the totals, the end. */
struct seen {
    struct buf
        kinds; /* per chunk: D (data), F (done), E (error), X (exception), O (other) + tokens */
    struct buf content; /* all content joined */
    struct buf errors;  /* "type/code/message" of errors and exceptions */
    struct sstream_totals totals;
    int rc; /* 0, or the error */
    int cause;
    struct buf err;
};

static void seen_init(struct seen *s) {
    buf_init(&s->kinds, BUF_NO_CAP);
    buf_init(&s->content, BUF_NO_CAP);
    buf_init(&s->errors, BUF_NO_CAP);
    buf_init(&s->err, BUF_NO_CAP);
}

static void seen_free(struct seen *s) {
    buf_free(&s->kinds);
    buf_free(&s->content);
    buf_free(&s->errors);
    buf_free(&s->err);
}

static void note(struct seen *s, const struct schunk *c) {
    static const char kind[] = "DFEXO";
    CHECK_INT(buf_addf(&s->kinds, "%c%d ", kind[c->kind], c->tokens), BUF_OK);
    CHECK_INT(buf_add(&s->content, c->content.s, c->content.n), BUF_OK);
    if (c->kind == SCHUNK_ERROR || c->kind == SCHUNK_EXCEPTION)
        CHECK_INT(buf_addf(&s->errors, "%.*s/%.*s/%.*s;", (int)c->error_type.n, c->error_type.s,
                           (int)c->error_code.n, c->error_code.s, (int)c->error_message.n,
                           c->error_message.s),
                  BUF_OK);
}

/* Feeds body in slices: mode 0 whole, 1 bytewise, 2 random sizes, 3 random
 * sizes and, after each chunk, the rest of the slice moved to a new block (a
 * caller that buffers anew between calls). */
static void run(const char *body, size_t n, enum sstream_body kind, enum sstream_framing framing,
                const struct sstream_limits *lim, int mode, struct seen *out) {
    struct sstream s;
    struct schunk c;
    sstream_init(&s, kind, framing, lim);
    buf_reset(&out->kinds);
    buf_reset(&out->content);
    buf_reset(&out->errors);
    buf_reset(&out->err);
    size_t at = 0;
    int rc = 0;
    while (at < n && rc >= 0) {
        size_t k = mode == 0 ? n - at : mode == 1 ? 1 : rng() % (mode == 3 ? 400 : 97);
        if (k > n - at) k = n - at;
        char *slice = malloc(k + 1);
        memcpy(slice, body + at, k);
        const char *p = slice;
        size_t left = k;
        while ((rc = sstream_next(&s, &p, &left, &c, &out->err)) == 1) {
            note(out, &c);
            if (mode == 3) {
                char *moved = malloc(left + 1);
                memcpy(moved, p, left);
                free(slice);
                p = slice = moved;
            }
        }
        if (rc == 0) CHECK_INT(left, 0);
        free(slice);
        at += k;
    }
    while (rc >= 0 && (rc = sstream_finish(&s, &c, &out->err)) == 1) note(out, &c);
    out->rc = rc;
    out->cause = s.cause;
    out->totals = s.totals;
    sstream_free(&s);
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

/* Runs every slicing and checks they agree; returns through out the whole-body run. */
static void run_all(const char *body, size_t n, enum sstream_body kind,
                    enum sstream_framing framing, struct seen *out) {
    struct seen other;
    seen_init(&other);
    run(body, n, kind, framing, NULL, 0, out);
    for (int mode = 1; mode < 4; mode++)
        for (int round = 0; round < (mode >= 2 ? 10 : 1); round++) {
            run(body, n, kind, framing, NULL, mode, &other);
            CHECK_STR(buf_str(&other.kinds), buf_str(&out->kinds));
            CHECK_STR(buf_str(&other.content), buf_str(&out->content));
            CHECK_STR(buf_str(&other.errors), buf_str(&out->errors));
            CHECK_INT(other.rc, out->rc);
            CHECK(totals_equal(&other.totals, &out->totals));
        }
    seen_free(&other);
}

/* vLLM's chat stream with include_usage: role chunk, content with escapes and
 * multi-byte characters, finish, usage, [DONE]. */
static const char vllm_sse[] =
    "data: "
    "{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":"
    "null,"
    "\"finish_reason\":null}],\"usage\":null}\n\n"
    "data: "
    "{\"id\":\"chatcmpl-9\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Bras\xc3\xadlia\"},"
    "\"finish_reason\":null}],\"usage\":null}\n\n"
    "data: {\"id\":\"chatcmpl-9\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" "
    "\\\"is\\\"\\n\"},"
    "\"finish_reason\":null}],\"usage\":null}\n\n"
    "data: {\"id\":\"chatcmpl-9\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" "
    "\xf0\x9f\x98\x80"
    "\\u00e9\"},\"finish_reason\":null}],\"usage\":null}\n\n"
    "data: "
    "{\"id\":\"chatcmpl-9\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}],"
    "\"usage\":null}\n\n"
    "data: "
    "{\"id\":\"chatcmpl-9\",\"choices\":[],\"usage\":{\"prompt_tokens\":17,\"total_tokens\":21,"
    "\"completion_tokens\":4}}\n\n"
    "data: [DONE]\n\n";
static const char vllm_content[] = "Bras\xc3\xadlia \"is\"\n \xf0\x9f\x98\x80\xc3\xa9";
static const char vllm_kinds[] = "D0 D1 D1 D1 D0 D0 F0 ";

/* Wraps text in PayloadParts cut at the given offsets. */
static void parts(struct buf *body, const char *text, size_t n, const size_t *cuts, size_t ncuts) {
    size_t from = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        CHECK_INT(evs_encode_payload_part(body, text + from, to - from, NULL), EVS_OK);
        from = to;
    }
}

static void check_vllm(const struct seen *s) {
    CHECK_INT(s->rc, 0);
    CHECK_STR(buf_str(&s->kinds), vllm_kinds);
    CHECK_STR(buf_str(&s->content), vllm_content);
    CHECK_INT(s->totals.content_chunks, 3);
    CHECK_INT(s->totals.content_bytes, strlen(vllm_content));
    CHECK_INT(s->totals.tokens, 3);
    CHECK_INT(s->totals.prompt_tokens, 17);
    CHECK_INT(s->totals.completion_tokens, 4);
    CHECK_STR(s->totals.finish_reason, "length");
    CHECK(s->totals.done && !s->totals.error);
    CHECK_INT(s->totals.chunks, 7);
    CHECK_INT(s->totals.payload_bytes, strlen(vllm_sse));
}

/* Every cut of the text into two PayloadParts (inside each UTF-8 character,
 * JSON string and escape), and random cuts into many. */
static void test_eventstream_every_cut(void) {
    struct buf body;
    struct seen s;
    buf_init(&body, BUF_NO_CAP);
    seen_init(&s);
    size_t n = strlen(vllm_sse);
    for (size_t cut = 0; cut <= n; cut++) {
        buf_reset(&body);
        parts(&body, vllm_sse, n, &cut, 1);
        run(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, NULL,
            (int)(cut % 4), &s);
        check_vllm(&s);
        CHECK_INT(s.totals.messages, 2);
        CHECK_INT(s.totals.body_bytes, body.len);
    }
    for (int round = 0; round < 30; round++) {
        size_t cuts[40], k = 0, at = 0;
        while (k < 40 && (at += rng() % 60) < n) cuts[k++] = at;
        buf_reset(&body);
        parts(&body, vllm_sse, n, cuts, k);
        run_all(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_SSE, &s);
        check_vllm(&s);
    }
    /* One event per part, as the container flushes them: whole-body slices hit
     * the zero-copy paths. */
    size_t ev_cuts[16], k = 0;
    for (const char *p = vllm_sse; (p = strstr(p, "\n\n")) && p + 2 < vllm_sse + n; p += 2)
        ev_cuts[k++] = (size_t)(p + 2 - vllm_sse);
    buf_reset(&body);
    parts(&body, vllm_sse, n, ev_cuts, k);
    run_all(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, &s);
    check_vllm(&s);
    buf_free(&body);
    seen_free(&s);
}

static void test_plain_sse(void) {
    struct seen s;
    seen_init(&s);
    run_all(vllm_sse, strlen(vllm_sse), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, &s);
    check_vllm(&s);
    CHECK_INT(s.totals.messages, 0);
    CHECK_INT(s.totals.body_bytes, strlen(vllm_sse));
    seen_free(&s);
}

static void test_exception_ends_stream(void) {
    struct buf body;
    struct seen s;
    buf_init(&body, BUF_NO_CAP);
    seen_init(&s);
    const char *text =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"cho";
    CHECK_INT(evs_encode_payload_part(&body, text, strlen(text), NULL), EVS_OK);
    CHECK_INT(evs_encode_exception(&body, "ModelStreamError", "ModelInvocationTimeExceeded",
                                   "Model \"m\" timed out", NULL),
              EVS_OK);
    size_t end = body.len;
    CHECK_INT(evs_encode_payload_part(&body, "data: [DONE]\n\n", 14, NULL), EVS_OK);
    CHECK_INT(buf_adds(&body, "garbage after the end"), BUF_OK);
    run_all(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, &s);
    CHECK_INT(s.rc, 0);
    CHECK_STR(buf_str(&s.kinds), "D1 X0 ");
    CHECK_STR(buf_str(&s.errors),
              "ModelStreamError/ModelInvocationTimeExceeded/Model \"m\" timed out;");
    CHECK(s.totals.error && !s.totals.done);
    CHECK_INT(s.totals.bytes_after_end, body.len - end);
    CHECK_INT(s.totals.body_bytes, end);

    buf_reset(&body);
    CHECK_INT(evs_encode_exception(&body, "InternalStreamFailure", NULL, "x", NULL), EVS_OK);
    run_all(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, &s);
    CHECK_STR(buf_str(&s.errors), "InternalStreamFailure//x;");

    /* A payload that is not JSON is the message as it is. */
    buf_reset(&body);
    struct evs_header h[] = {evs_header_string(":message-type", "exception"),
                             evs_header_string(":exception-type", "ModelStreamError")};
    CHECK_INT(evs_encode(&body, h, 2, "not json", 8, NULL), EVS_OK);
    run_all(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, &s);
    CHECK_STR(buf_str(&s.errors), "ModelStreamError//not json;");

    /* An unmodeled error message: code and message in headers. */
    buf_reset(&body);
    struct evs_header e[] = {evs_header_string(":message-type", "error"),
                             evs_header_string(":error-code", "InternalError"),
                             evs_header_string(":error-message", "An internal error occurred.")};
    CHECK_INT(evs_encode(&body, e, 3, NULL, 0, NULL), EVS_OK);
    run_all(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, &s);
    CHECK_STR(buf_str(&s.kinds), "X0 ");
    CHECK_STR(buf_str(&s.errors), "InternalError//An internal error occurred.;");
    buf_free(&body);
    seen_free(&s);
}

static void test_other_messages_skipped(void) {
    struct buf body;
    struct seen s;
    buf_init(&body, BUF_NO_CAP);
    seen_init(&s);
    struct evs_header h[] = {evs_header_string(":message-type", "event"),
                             evs_header_string(":event-type", "initial-response")};
    CHECK_INT(evs_encode(&body, h, 2, "{}", 2, NULL), EVS_OK);
    CHECK_INT(evs_encode(&body, NULL, 0, "x", 1, NULL), EVS_OK);
    CHECK_INT(evs_encode_payload_part(&body, "data: [DONE]\n\n", 14, NULL), EVS_OK);
    run_all(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, &s);
    CHECK_STR(buf_str(&s.kinds), "F0 ");
    CHECK_INT(s.totals.messages, 3);
    CHECK_INT(s.totals.ignored_messages, 2);
    CHECK_INT(s.totals.payload_bytes, 14);
    buf_free(&body);
    seen_free(&s);
}

/* TGI's SSE ("data:" without a space), each token an event. */
static void test_tgi(void) {
    const char *text =
        "data:{\"index\":1,\"token\":{\"id\":5,\"text\":\"Hi\",\"logprob\":-0.1,\"special\":false},"
        "\"generated_text\":null,\"details\":null}\n\n"
        "data:{\"index\":2,\"token\":{\"id\":6,\"text\":\" "
        "there\",\"logprob\":-0.1,\"special\":false},"
        "\"generated_text\":null,\"details\":null}\n\n"
        "data:{\"index\":3,\"token\":{\"id\":2,\"text\":\"</"
        "s>\",\"logprob\":-0.1,\"special\":true},"
        "\"generated_text\":\"Hi there\",\"details\":{\"finish_reason\":\"eos_token\","
        "\"generated_tokens\":3,\"seed\":null}}\n\n";
    size_t cuts[] = {10, 100, 101, 250};
    struct buf body;
    struct seen s;
    buf_init(&body, BUF_NO_CAP);
    seen_init(&s);
    parts(&body, text, strlen(text), cuts, 4);
    run_all(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, &s);
    CHECK_INT(s.rc, 0);
    CHECK_STR(buf_str(&s.kinds), "D1 D1 D1 ");
    CHECK_STR(buf_str(&s.content), "Hi there");
    CHECK_INT(s.totals.tokens, 3);
    CHECK_INT(s.totals.completion_tokens, 3);
    CHECK_INT(s.totals.prompt_tokens, -1);
    CHECK_STR(s.totals.finish_reason, "eos_token");
    CHECK(s.totals.done);
    buf_free(&body);
    seen_free(&s);
}

/* DJL LMI's JSON lines, the last line without its line end. */
static void test_lmi_jsonl(void) {
    const char *text =
        "{\"token\": {\"id\": 304, \"text\": \"Deep \", \"log_prob\": -0.05}}\n"
        "\r\n"
        "{\"token\": {\"id\": 11157, \"text\": \"Learning\", \"log_prob\": -1.2}}\r\n"
        "{\"token\": {\"id\": 5972, \"text\": \" field.\", \"log_prob\": -0.69}, "
        "\"generated_text\": "
        "\"Deep Learning field.\", \"details\": {\"finish_reason\": \"length\", "
        "\"generated_tokens\": 3, "
        "\"inputs\": \"What is Deep Learning?\"}}";
    size_t cuts[] = {3, 60, 61, 62, 140};
    struct buf body;
    struct seen s;
    buf_init(&body, BUF_NO_CAP);
    seen_init(&s);
    parts(&body, text, strlen(text), cuts, 5);
    run_all(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, &s);
    CHECK_INT(s.rc, 0);
    CHECK_STR(buf_str(&s.kinds), "D1 D1 D1 ");
    CHECK_STR(buf_str(&s.content), "Deep Learning field.");
    CHECK_INT(s.totals.completion_tokens, 3);
    CHECK(s.totals.done);
    /* The same as a plain body, framing named. */
    run_all(text, strlen(text), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_JSONL, &s);
    CHECK_STR(buf_str(&s.content), "Deep Learning field.");
    /* LMI's error line ends the generation with an error chunk. */
    const char *bad =
        "{\"token\": {\"id\": 1, \"text\": \"a\", \"log_prob\": -1}}\n"
        "{\"token\": {\"id\": -1, \"text\": \"\", \"log_prob\": -1, \"special_token\": true}, "
        "\"generated_text\": \"\", \"details\": {\"finish_reason\": \"error\", "
        "\"generated_tokens\": null, \"inputs\": null}}\n";
    run_all(bad, strlen(bad), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, &s);
    CHECK_STR(buf_str(&s.kinds), "D1 E0 ");
    CHECK(s.totals.error);
    buf_free(&body);
    seen_free(&s);
}

/* vLLM's continuous_usage_stats: each chunk's count is the growth of usage. */
static void test_continuous_usage(void) {
    const char *text =
        "data: "
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}],\"usage\":{\"prompt_tokens\":3,"
        "\"completion_tokens\":1}}\n\n"
        "data: "
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"bcd\"}}],\"usage\":{\"prompt_tokens\":"
        "3,"
        "\"completion_tokens\":4}}\n\n"
        "data: "
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"e\"}}],\"usage\":{\"prompt_tokens\":3,"
        "\"completion_tokens\":5}}\n\n"
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":5}}\n\n";
    struct seen s;
    seen_init(&s);
    run_all(text, strlen(text), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_SSE, &s);
    CHECK_STR(buf_str(&s.kinds), "D1 D3 D1 D0 ");
    CHECK_INT(s.totals.tokens, 5);
    CHECK_INT(s.totals.completion_tokens, 5);
    seen_free(&s);
}

/* The stream's last usage says the prefix cache's tokens: the totals keep them;
 * a stream that never says them keeps -1. */
static void test_cached_tokens_in_totals(void) {
    const char *text =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":1,"
        "\"prompt_tokens_details\":{\"cached_tokens\":32}}}\n\n"
        "data: [DONE]\n\n";
    struct seen s;
    seen_init(&s);
    run_all(text, strlen(text), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_SSE, &s);
    CHECK_INT(s.totals.prompt_tokens, 40);
    CHECK_INT(s.totals.cached_tokens, 32);
    seen_free(&s);
    seen_init(&s);
    run_all(vllm_sse, strlen(vllm_sse), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, &s);
    CHECK_INT(s.totals.cached_tokens, -1);
    seen_free(&s);
}

static void test_sse_error_event(void) {
    const char *text = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
                       "event: error\ndata: upstream went away\n\n";
    struct seen s;
    seen_init(&s);
    run_all(text, strlen(text), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, &s);
    CHECK_STR(buf_str(&s.kinds), "D1 E0 ");
    CHECK_STR(buf_str(&s.errors), "//upstream went away;");
    seen_free(&s);
}

/* Each error: its code, its cause, a line naming it, in every slicing. */
static void expect_error(const char *body, size_t n, enum sstream_body kind,
                         enum sstream_framing framing, const struct sstream_limits *lim, int code,
                         int cause, const char *text) {
    struct seen s;
    seen_init(&s);
    for (int mode = 0; mode < 4; mode++) {
        run(body, n, kind, framing, lim, mode, &s);
        CHECK_INT(s.rc, code);
        CHECK_INT(s.cause, cause);
        if (!strstr(buf_str(&s.err), text)) {
            fprintf(stderr, "error line [%s] lacks [%s]\n", buf_str(&s.err), text);
            check_failed++;
        }
    }
    seen_free(&s);
}

static void test_errors(void) {
    struct buf body;
    buf_init(&body, BUF_NO_CAP);
    CHECK_INT(evs_encode_payload_part(&body, "data: [DONE]\n\n", 14, NULL), EVS_OK);
    body.data[body.len - 1] ^= 1;
    expect_error(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, NULL,
                 SSTREAM_ERR_EVENTSTREAM, EVS_ERR_MESSAGE_CRC, "message CRC");
    expect_error(body.data, body.len - 5, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, NULL,
                 SSTREAM_ERR_TRUNCATED, EVS_ERR_TRUNCATED, "the stream ended after");
    buf_reset(&body);
    CHECK_INT(evs_encode_payload_part(&body, "0123456789", 10, NULL), EVS_OK);
    struct sstream_limits small = {.max_payload = 9};
    expect_error(body.data, body.len, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, &small,
                 SSTREAM_ERR_EVENTSTREAM, EVS_ERR_PAYLOAD_LENGTH, "payload length 10 over 9");

    const char *bad_json = "data: {\"choices\":[}\n\n";
    expect_error(bad_json, strlen(bad_json), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, NULL,
                 SSTREAM_ERR_CHUNK, SCHUNK_ERR_JSON, "stream chunk: ");
    const char *cut = "data: [DONE]\n\ndata: {\"choices\":[]}\n";
    expect_error(cut, strlen(cut), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, NULL,
                 SSTREAM_ERR_TRUNCATED, SSE_ERR_TRUNCATED, "ended inside an event");
    struct sstream_limits lines = {.max_line = 16};
    const char *long_sse = "data: 0123456789abcdef\n\n";
    expect_error(long_sse, strlen(long_sse), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, &lines,
                 SSTREAM_ERR_SSE, SSE_ERR_LINE, "line over the length cap");
    const char *long_jl = "{\"a\":\"0123456789abcdef\"}\n";
    expect_error(long_jl, strlen(long_jl), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, &lines,
                 SSTREAM_ERR_LINE, 0, "JSON lines: line over the length cap");
    const char *cut_jl = "{\"token\":{\"text\":\"a\"}}\n{\"token\":{\"te";
    expect_error(cut_jl, strlen(cut_jl), SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_JSONL, NULL,
                 SSTREAM_ERR_TRUNCATED, SCHUNK_ERR_JSON, "the body ended inside a line (13 bytes)");

    /* Sticky: the same error for any later call. */
    struct sstream s;
    struct schunk c;
    sstream_init(&s, SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, NULL);
    const char *p = bad_json;
    size_t n = strlen(bad_json);
    CHECK_INT(sstream_next(&s, &p, &n, &c, NULL), SSTREAM_ERR_CHUNK);
    p = vllm_sse;
    n = strlen(vllm_sse);
    CHECK_INT(sstream_next(&s, &p, &n, &c, NULL), SSTREAM_ERR_CHUNK);
    CHECK_INT(sstream_finish(&s, &c, NULL), SSTREAM_ERR_CHUNK);
    sstream_free(&s);
    buf_free(&body);
}

static void test_framing_for(void) {
    CHECK_INT(sstream_framing_for("text/event-stream"), SSTREAM_FRAMING_SSE);
    CHECK_INT(sstream_framing_for("Text/Event-Stream; charset=utf-8"), SSTREAM_FRAMING_SSE);
    CHECK_INT(sstream_framing_for("application/jsonlines"), SSTREAM_FRAMING_JSONL);
    CHECK_INT(sstream_framing_for(" application/x-ndjson"), SSTREAM_FRAMING_JSONL);
    CHECK_INT(sstream_framing_for("application/json"), SSTREAM_FRAMING_AUTO);
    CHECK_INT(sstream_framing_for(NULL), SSTREAM_FRAMING_AUTO);
}

int main(void) {
    test_cached_tokens_in_totals();
    test_eventstream_every_cut();
    test_plain_sse();
    test_exception_ends_stream();
    test_other_messages_skipped();
    test_tgi();
    test_lmi_jsonl();
    test_continuous_usage();
    test_sse_error_event();
    test_errors();
    test_framing_for();
    return check_exit();
}
