/* A streamed reply as SageMaker frames it: one PayloadPart per container
 * event (or parts of --stream-split bytes cut anywhere), each message read back
 * by the project's event-stream decoder with its headers and CRCs; the client's
 * decoder (sstream) gets the container's text back whole; and every stream
 * fault at the middle step: the exceptions and their payloads, the cut inside
 * a frame, the spoiled CRC, the stall, the clean truncation, and the OpenAI
 * route's error event. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "evs.h"
#include "fault.h"
#include "rstream.h"
#include "sstream.h"
#include "tok.h"

#define TEXT "one two three four five"

static struct cont_request req;
static struct cont_answer ans;
static const struct cont_meta meta = {"chatcmpl-9", 1700000000, "m", NULL, false, 0, NULL};

/* The container's own stream, all steps (what PayloadParts must carry). */
static void container_bytes(struct buf *out) {
    struct cstream c;
    cstream_init(&c, &req, &ans, &meta);
    while (!cstream_done(&c)) CHECK_INT(cstream_step(&c, out, NULL), 0);
}

/* Runs every step of a stream; returns the bytes and, per step, what followed. */
static void run(enum rstream_wire wire, size_t split, int fault, struct buf *out,
                enum rstream_next next[8], bool token[8], size_t *steps) {
    struct rstream s;
    rstream_init(&s, &req, &ans, &meta, wire, split, fault);
    *steps = 0;
    while (!rstream_done(&s) && *steps < 8) {
        struct rstream_step st;
        CHECK_INT(rstream_next(&s, out, &st), 0);
        next[*steps] = st.next;
        token[(*steps)++] = st.token;
        if (st.next == RSTREAM_END || st.next == RSTREAM_CUT) break;
    }
    rstream_free(&s);
}

/* Decodes an event stream: the payloads of the PayloadParts joined, the
 * messages, the largest payload, the exception's type and payload. Returns
 * the decoder's result (0, or its error) at the end. */
struct decoded {
    struct buf payload, exception, exception_payload;
    size_t messages, largest;
};

static int decode(const struct buf *body, struct decoded *d) {
    struct evs_decoder dec;
    struct evs_message m;
    const uint8_t *p = (const uint8_t *)buf_str(body);
    size_t n = body->len;
    int rc;
    memset(d, 0, sizeof *d);
    buf_init(&d->payload, BUF_NO_CAP);
    buf_init(&d->exception, BUF_NO_CAP);
    buf_init(&d->exception_payload, BUF_NO_CAP);
    evs_decoder_init(&dec, 0);
    while ((rc = evs_decoder_next(&dec, &p, &n, &m, NULL)) == 1) {
        struct evs_header mt, et, ct;
        d->messages++;
        CHECK(evs_message_header(&m, ":message-type", &mt));
        CHECK(evs_message_header(&m, ":content-type", &ct));
        if (mt.len == 5 && memcmp(mt.data, "event", 5) == 0) {
            CHECK(evs_message_header(&m, ":event-type", &et) && et.len == 11 &&
                  memcmp(et.data, "PayloadPart", 11) == 0);
            CHECK_INT(buf_add(&d->payload, m.payload, m.payload_len), 0);
            if (m.payload_len > d->largest) d->largest = m.payload_len;
        } else {
            CHECK(evs_message_header(&m, ":exception-type", &et));
            CHECK_INT(buf_add(&d->exception, et.data, et.len), 0);
            CHECK_INT(buf_add(&d->exception_payload, m.payload, m.payload_len), 0);
        }
    }
    if (rc == 0) rc = evs_decoder_finish(&dec, NULL);
    evs_decoder_free(&dec);
    return rc;
}

static void decoded_free(struct decoded *d) {
    buf_free(&d->payload);
    buf_free(&d->exception);
    buf_free(&d->exception_payload);
}

/* The client's decoder over an event-stream body: the content and the usage count. */
static void client(const struct buf *body, struct buf *content, long long *tokens) {
    struct sstream s;
    struct schunk c;
    const char *p = buf_str(body);
    size_t n = body->len;
    sstream_init(&s, SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, NULL);
    while (sstream_next(&s, &p, &n, &c, NULL) == 1)
        CHECK_INT(buf_add(content, c.content.s, c.content.n), 0);
    CHECK_INT(sstream_finish(&s, &c, NULL), 0);
    *tokens = s.totals.completion_tokens;
    sstream_free(&s);
}

static void test_framing(void) {
    struct buf want, out, content;
    struct decoded d;
    enum rstream_next next[8] = {RSTREAM_MORE};
    bool token[8] = {false};
    size_t steps;
    long long tokens;
    buf_init(&want, BUF_NO_CAP);
    buf_init(&out, BUF_NO_CAP);
    buf_init(&content, BUF_NO_CAP);
    container_bytes(&want);
    for (size_t split = 0; split <= 7; split += 7) {
        buf_reset(&out);
        run(RSTREAM_EVENTSTREAM, split, FAULT_NONE, &out, next, token, &steps);
        CHECK_INT(steps, 5);
        CHECK(next[0] == RSTREAM_MORE && next[3] == RSTREAM_MORE && next[4] == RSTREAM_END);
        CHECK(token[0] && token[4]);
        CHECK_INT(decode(&out, &d), 0);
        CHECK(d.payload.len == want.len && memcmp(d.payload.data, want.data, want.len) == 0);
        /* one message an event (role + 5 tokens + usage + [DONE]), or parts of 7 bytes */
        CHECK(split ? d.largest == 7 && d.messages > want.len / 7 : d.messages == 8);
        decoded_free(&d);
        buf_reset(&content);
        client(&out, &content, &tokens);
        CHECK_STR(buf_str(&content), TEXT);
        CHECK_INT(tokens, 5);
    }
    /* the plain wire carries the container's bytes as they are */
    buf_reset(&out);
    run(RSTREAM_PLAIN, 3, FAULT_NONE, &out, next, token, &steps);
    CHECK(out.len == want.len && memcmp(out.data, want.data, want.len) == 0);
    /* a reply that did not stream: one PayloadPart, or parts */
    buf_reset(&out);
    CHECK_INT(rstream_whole(RSTREAM_EVENTSTREAM, 0, "{\"a\":1}", 7, &out), 0);
    CHECK_INT(decode(&out, &d), 0);
    CHECK(d.messages == 1 && strcmp(buf_str(&d.payload), "{\"a\":1}") == 0);
    decoded_free(&d);
    buf_reset(&out);
    CHECK_INT(rstream_whole(RSTREAM_EVENTSTREAM, 3, "{\"a\":1}", 7, &out), 0);
    CHECK_INT(decode(&out, &d), 0);
    CHECK(d.messages == 3 && strcmp(buf_str(&d.payload), "{\"a\":1}") == 0);
    decoded_free(&d);
    buf_free(&want);
    buf_free(&out);
    buf_free(&content);
}

/* The exception's payload: {"Message":...,"ErrorCode":...}. */
static void check_exception(const struct decoded *d, const char *type, const char *code) {
    CHECK_STR(buf_str(&d->exception), type);
    cJSON *j = cJSON_Parse(buf_str(&d->exception_payload));
    const cJSON *c = cJSON_GetObjectItem(j, "ErrorCode");
    CHECK(cJSON_IsString(cJSON_GetObjectItem(j, "Message")));
    CHECK(code ? cJSON_IsString(c) && strcmp(c->valuestring, code) == 0 : c == NULL);
    cJSON_Delete(j);
}

static void test_faults(void) {
    struct buf out, clean;
    struct decoded d;
    enum rstream_next next[8] = {RSTREAM_MORE};
    bool token[8] = {false};
    size_t steps;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&clean, BUF_NO_CAP);
    /* the middle of 5 steps is step 2: two tokens, then the exception instead of the third */
    run(RSTREAM_EVENTSTREAM, 0, FAULT_STREAM_ERROR, &out, next, token, &steps);
    CHECK(steps == 3 && next[2] == RSTREAM_END && !token[2] && token[1]);
    CHECK_INT(decode(&out, &d), 0);
    CHECK(strstr(buf_str(&d.payload), "\"content\":\" three\"") == NULL &&
          strstr(buf_str(&d.payload), "\"content\":\" two\"") != NULL);
    check_exception(&d, "ModelStreamError", "StreamBroken");
    decoded_free(&d);

    buf_reset(&out);
    run(RSTREAM_EVENTSTREAM, 0, FAULT_STREAM_FAILURE, &out, next, token, &steps);
    CHECK_INT(decode(&out, &d), 0);
    check_exception(&d, "InternalStreamFailure", NULL);
    decoded_free(&d);

    buf_reset(&out);
    CHECK_INT(rstream_error(RSTREAM_EVENTSTREAM, RSTREAM_TIME_EXCEEDED, &out), 0);
    CHECK_INT(decode(&out, &d), 0);
    check_exception(&d, "ModelStreamError", "ModelInvocationTimeExceeded");
    decoded_free(&d);

    /* cut: half of step 2's first message, and the connection closes */
    buf_reset(&out);
    run(RSTREAM_EVENTSTREAM, 0, FAULT_STREAM_CUT, &out, next, token, &steps);
    CHECK(steps == 3 && next[2] == RSTREAM_CUT && !token[2]);
    CHECK_INT(decode(&out, &d), EVS_ERR_TRUNCATED);
    decoded_free(&d);
    buf_reset(&out);
    run(RSTREAM_EVENTSTREAM, 0, FAULT_DROP, &out, next, token, &steps);
    CHECK(steps == 3 && next[2] == RSTREAM_CUT);

    /* the CRC of step 2's message is spoiled; the rest is as without the fault */
    buf_reset(&out);
    run(RSTREAM_EVENTSTREAM, 0, FAULT_STREAM_CRC, &out, next, token, &steps);
    run(RSTREAM_EVENTSTREAM, 0, FAULT_NONE, &clean, next, token, &steps);
    CHECK_INT(out.len, clean.len);
    size_t differ = 0;
    for (size_t i = 0; i < out.len && i < clean.len; i++) differ += out.data[i] != clean.data[i];
    CHECK_INT(differ, 1);
    CHECK_INT(decode(&out, &d), EVS_ERR_MESSAGE_CRC);
    CHECK_INT(d.messages, 3); /* role, one, two; the third's CRC is wrong */
    decoded_free(&d);

    /* stall after step 2; truncate: the body ends cleanly without step 2 */
    buf_reset(&out);
    run(RSTREAM_EVENTSTREAM, 0, FAULT_STREAM_STALL, &out, next, token, &steps);
    CHECK(steps == 5 && next[1] == RSTREAM_MORE && next[2] == RSTREAM_STALL &&
          next[4] == RSTREAM_END && token[2]);
    buf_reset(&out);
    run(RSTREAM_EVENTSTREAM, 0, FAULT_TRUNCATE, &out, next, token, &steps);
    CHECK(steps == 3 && next[2] == RSTREAM_END && !token[2]);
    CHECK_INT(decode(&out, &d), 0);
    CHECK_INT(d.messages, 3);
    decoded_free(&d);

    /* the OpenAI route: an error event, which the client reads as an error */
    buf_reset(&out);
    run(RSTREAM_PLAIN, 0, FAULT_STREAM_ERROR, &out, next, token, &steps);
    CHECK(strstr(buf_str(&out), "data: {\"error\":{\"message\":\"") != NULL &&
          strstr(buf_str(&out), "\"type\":\"server_error\",\"param\":null,\"code\":"
                                "\"stream_broken\"}}\n\n") != NULL);
    struct sstream s;
    struct schunk c;
    const char *p = buf_str(&out);
    size_t n = out.len;
    bool error = false;
    sstream_init(&s, SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, NULL);
    while (sstream_next(&s, &p, &n, &c, NULL) == 1) error = error || c.kind == SCHUNK_ERROR;
    CHECK(error && s.totals.error);
    sstream_free(&s);
    buf_free(&out);
    buf_free(&clean);
}

/* A one-token reply: a stall has no second token to wait for. */
static void test_one_token(void) {
    struct rstream s;
    struct rstream_step st;
    struct buf out;
    struct cont_answer one;
    cont_answer_init(&one);
    CHECK_INT(buf_adds(&one.text, "42"), 0);
    one.tokens = 1;
    buf_init(&out, BUF_NO_CAP);
    rstream_init(&s, &req, &one, &meta, RSTREAM_EVENTSTREAM, 0, FAULT_STREAM_STALL);
    CHECK_INT(rstream_next(&s, &out, &st), 0);
    CHECK(st.next == RSTREAM_END && st.token && rstream_done(&s));
    rstream_free(&s);
    cont_answer_free(&one);
    buf_free(&out);
}

int main(void) {
    cont_request_init(&req);
    cont_answer_init(&ans);
    req.kind = CONT_CHAT;
    req.prompt_tokens = 12;
    req.stream = req.include_usage = true;
    CHECK_INT(buf_adds(&ans.text, TEXT), 0);
    ans.tokens = tok_count(TEXT, strlen(TEXT));
    ans.hit_length = true;
    test_framing();
    test_faults();
    test_one_token();
    cont_request_free(&req);
    cont_answer_free(&ans);
    return check_exit();
}
