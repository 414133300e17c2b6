/* What a container streams, step by step: vLLM chat and completions chunks
 * byte for byte (the role chunk, the finish on the last token, the usage chunk,
 * [DONE]), TGI's token events and LMI's JSON lines; one token a step, the
 * steps' text joined equal to the answer's; and the client's own decoder
 * (common/sstream.h) reading each format back to the same text and counts. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "cstream.h"
#include "sstream.h"
#include "tok.h"

/* A request of kind and an answer of text (hit_length: finish by length). */
static void make(enum cont_kind kind, const char *text, bool usage, bool details,
                 struct cont_request *r, struct cont_answer *a) {
    cont_request_init(r);
    cont_answer_init(a);
    r->kind = kind;
    r->prompt_tokens = 10;
    r->stream = true;
    r->include_usage = usage;
    r->details = details;
    CHECK_INT(buf_adds(&r->prompt, "Go on."), 0);
    CHECK_INT(buf_adds(&a->text, text), 0);
    a->tokens = tok_count(text, strlen(text));
    a->hit_length = true;
}

/* Every step of the stream, one after the other; the events of each step in ends. */
static size_t run(const struct cont_request *r, const struct cont_answer *a, struct buf *out,
                  size_t *events) {
    struct cstream c;
    struct cont_meta m = {"chatcmpl-1", 1700000000, "m", NULL, false, 0, NULL};
    size_t steps = 0;
    cstream_init(&c, r, a, &m);
    *events = 0;
    while (!cstream_done(&c)) {
        struct cstream_events ev;
        size_t before = out->len;
        CHECK_INT(cstream_step(&c, out, &ev), 0);
        CHECK(ev.n >= 1 && ev.ends[ev.n - 1] == out->len && ev.ends[0] > before);
        *events += ev.n;
        steps++;
    }
    return steps;
}

static const char chat_golden[] =
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
    "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
    "\"logprobs\":null,\"finish_reason\":null}],\"prompt_token_ids\":null}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
    "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"},\"logprobs\":null,"
    "\"finish_reason\":null,\"token_ids\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
    "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\",\"},\"logprobs\":null,"
    "\"finish_reason\":null,\"token_ids\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
    "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" w\xc3\xb6rld \"},"
    "\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null,\"token_ids\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
    "\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"total_tokens\":13,"
    "\"completion_tokens\":3}}\n\n"
    "data: [DONE]\n\n";

static const char completion_golden[] =
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":"
    "\"m\",\"choices\":[{\"index\":0,\"text\":\"Hi\",\"logprobs\":null,\"finish_reason\":null,"
    "\"stop_reason\":null,\"prompt_token_ids\":null,\"token_ids\":null}],\"usage\":null}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":"
    "\"m\",\"choices\":[{\"index\":0,\"text\":\" there\",\"logprobs\":null,\"finish_reason\":"
    "\"length\",\"stop_reason\":null,\"prompt_token_ids\":null,\"token_ids\":null}],\"usage\":null}"
    "\n\n"
    "data: [DONE]\n\n";

/* What the client's decoder makes of a plain body. */
struct decoded {
    struct buf content;
    size_t content_chunks;
    struct sstream_totals totals;
};

static void decode(const struct buf *body, struct decoded *d) {
    struct sstream s;
    struct schunk c;
    const char *p = buf_str(body);
    size_t n = body->len;
    int rc;
    buf_init(&d->content, BUF_NO_CAP);
    d->content_chunks = 0;
    sstream_init(&s, SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, NULL);
    while ((rc = sstream_next(&s, &p, &n, &c, NULL)) == 1) {
        CHECK_INT(buf_add(&d->content, c.content.s, c.content.n), 0);
        d->content_chunks += c.content.n > 0;
    }
    CHECK_INT(rc, 0);
    while ((rc = sstream_finish(&s, &c, NULL)) == 1) {
        CHECK_INT(buf_add(&d->content, c.content.s, c.content.n), 0);
        d->content_chunks += c.content.n > 0;
    }
    CHECK_INT(rc, 0);
    d->totals = s.totals;
    sstream_free(&s);
}

static void test_vllm(void) {
    struct cont_request r;
    struct cont_answer a;
    struct buf out;
    struct decoded d;
    size_t events;
    buf_init(&out, BUF_NO_CAP);
    make(CONT_CHAT, "Hello, w\xc3\xb6rld ", true, false, &r, &a);
    CHECK_INT(run(&r, &a, &out, &events), 3); /* one step a token; the last takes the space */
    CHECK_INT(events, 6);
    CHECK_STR(buf_str(&out), chat_golden);
    decode(&out, &d);
    CHECK_STR(buf_str(&d.content), "Hello, w\xc3\xb6rld ");
    CHECK_INT(d.content_chunks, 3);
    CHECK_INT(d.totals.completion_tokens, 3);
    CHECK_INT(d.totals.prompt_tokens, 10);
    CHECK(d.totals.done && strcmp(d.totals.finish_reason, "length") == 0);
    buf_free(&d.content);
    cont_request_free(&r);
    cont_answer_free(&a);

    buf_reset(&out);
    make(CONT_COMPLETION, "Hi there", false, false, &r, &a);
    CHECK_INT(run(&r, &a, &out, &events), 2);
    CHECK_STR(buf_str(&out), completion_golden);
    decode(&out, &d);
    CHECK_STR(buf_str(&d.content), "Hi there");
    CHECK_INT(d.totals.completion_tokens, -1); /* no usage asked: the client has no count */
    buf_free(&d.content);
    cont_request_free(&r);
    cont_answer_free(&a);

    /* an empty answer still streams one step: the role, an empty finish, [DONE] */
    buf_reset(&out);
    make(CONT_CHAT, "", true, false, &r, &a);
    a.hit_length = false;
    CHECK_INT(run(&r, &a, &out, &events), 1);
    CHECK_INT(events, 4);
    CHECK(strstr(buf_str(&out), "\"delta\":{\"content\":\"\"},\"logprobs\":null,\"finish_reason\":"
                                "\"stop\"") != NULL);
    decode(&out, &d);
    CHECK_INT(d.totals.completion_tokens, 0);
    buf_free(&d.content);
    cont_request_free(&r);
    cont_answer_free(&a);
    buf_free(&out);
}

/* The JSON of the event that starts at text (after its "data:" or alone), or NULL. */
static cJSON *event_json(const char *text, const char *prefix) {
    CHECK(strncmp(text, prefix, strlen(prefix)) == 0);
    const char *start = text + strlen(prefix);
    const char *end = strchr(start, '\n');
    return end ? cJSON_ParseWithLength(start, (size_t)(end - start)) : NULL;
}

static void test_tgi_lmi(void) {
    struct cont_request r;
    struct cont_answer a;
    struct buf out;
    struct decoded d;
    size_t events;
    buf_init(&out, BUF_NO_CAP);
    for (int details = 0; details < 2; details++) {
        buf_reset(&out);
        make(CONT_TGI, "The sea is calm.", false, details, &r, &a);
        CHECK_INT(run(&r, &a, &out, &events), 5);
        CHECK_INT(events, 5);
        /* axum writes "data:" without a space; index from 1 */
        CHECK(strncmp(buf_str(&out), "data:{\"index\":1,\"token\":{\"id\":", 30) == 0);
        cJSON *first = event_json(buf_str(&out), "data:");
        CHECK(first && cJSON_IsNull(cJSON_GetObjectItem(first, "generated_text")) &&
              cJSON_IsNull(cJSON_GetObjectItem(first, "details")) &&
              cJSON_GetObjectItem(first, "index")->valueint == 1 &&
              strcmp(cJSON_GetObjectItem(cJSON_GetObjectItem(first, "token"), "text")->valuestring,
                     "The") == 0 &&
              cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(first, "token"), "special")));
        cJSON_Delete(first);
        const char *last_event = strstr(buf_str(&out), "data:{\"index\":5,");
        cJSON *last = last_event ? event_json(last_event, "data:") : NULL;
        const cJSON *det = cJSON_GetObjectItem(last, "details");
        CHECK(last && strcmp(cJSON_GetObjectItem(last, "generated_text")->valuestring,
                             "The sea is calm.") == 0);
        CHECK(details ? cJSON_GetObjectItem(det, "generated_tokens")->valueint == 5 &&
                            strcmp(cJSON_GetObjectItem(det, "finish_reason")->valuestring,
                                   "length") == 0 &&
                            cJSON_GetObjectItem(det, "input_length")->valueint == 10
                      : cJSON_IsNull(det));
        cJSON_Delete(last);
        decode(&out, &d);
        CHECK_STR(buf_str(&d.content), "The sea is calm.");
        CHECK_INT(d.totals.completion_tokens, details ? 5 : -1);
        CHECK(d.totals.done);
        buf_free(&d.content);
        cont_request_free(&r);
        cont_answer_free(&a);
    }
    buf_reset(&out);
    make(CONT_LMI, "One two", false, true, &r, &a);
    CHECK_INT(run(&r, &a, &out, &events), 2);
    CHECK(strncmp(buf_str(&out), "{\"token\": {\"id\": ", 17) == 0); /* Python's separators */
    const char *second = strchr(buf_str(&out), '\n') + 1;
    CHECK(strstr(second,
                 "}, \"generated_text\": \"One two\", \"details\": {\"finish_reason\": "
                 "\"length\", \"generated_tokens\": 2, \"inputs\": \"Go on.\"}}\n") != NULL);
    CHECK_STR(cstream_content_type(CONT_LMI), "application/jsonlines");
    CHECK_STR(cstream_content_type(CONT_TGI), "text/event-stream");
    decode(&out, &d);
    CHECK_STR(buf_str(&d.content), "One two");
    CHECK_INT(d.totals.completion_tokens, 2);
    buf_free(&d.content);
    cont_request_free(&r);
    cont_answer_free(&a);
    buf_free(&out);
}

int main(void) {
    test_vllm();
    test_tgi_lmi();
    return check_exit();
}
