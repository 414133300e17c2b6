/* The chunk parser: one row per chunk shape of vLLM (chat, completions,
 * usage, logprobs, reasoning, errors), TGI (tokens, the final event, errors)
 * and DJL LMI (JSON lines tokens, the final line, the error line, dynamic
 * batching), "[DONE]", unknown and malformed chunks; then zero-copy spans and
 * a scratch buffer that stops growing. */
#include <stdint.h>
#include <string.h>

#include "../check.h"
#include "schunk.h"

struct row {
    const char *name, *json;
    int rc;
    enum schunk_kind kind;
    enum schunk_format format;
    const char *content, *reasoning, *finish;
    int tokens, logprob_tokens;
    int64_t prompt, completion;
    int final, special;
    const char *error_type, *error_code, *error_message;
};

#define CHUNK(delta)                                                                               \
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1727212812,"          \
    "\"model\":\"/opt/ml/model\",\"choices\":[{\"index\":0,\"delta\":" delta "}]}"

static const struct row rows[] = {
    {"chat role only",
     CHUNK("{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null"), 0,
     SCHUNK_DATA, SCHUNK_FMT_CHAT, "", "", "", 0, -1, -1, -1, 0, 0, "", "", ""},
    {"chat content", CHUNK("{\"content\":\" the\"},\"logprobs\":null,\"finish_reason\":null"), 0,
     SCHUNK_DATA, SCHUNK_FMT_CHAT, " the", "", "", 1, -1, -1, -1, 0, 0, "", "", ""},
    {"chat escapes", CHUNK("{\"content\":\"caf\\u00e9 \\\"q\\\"\\n\\ud83d\\ude00\"}"), 0,
     SCHUNK_DATA, SCHUNK_FMT_CHAT, "caf\xc3\xa9 \"q\"\n\xf0\x9f\x98\x80", "", "", 1, -1, -1, -1, 0,
     0, "", "", ""},
    {"chat reasoning_content", CHUNK("{\"reasoning_content\":\"hmm\",\"content\":null}"), 0,
     SCHUNK_DATA, SCHUNK_FMT_CHAT, "", "hmm", "", 1, -1, -1, -1, 0, 0, "", "", ""},
    {"chat reasoning", CHUNK("{\"reasoning\":\"so\"}"), 0, SCHUNK_DATA, SCHUNK_FMT_CHAT, "", "so",
     "", 1, -1, -1, -1, 0, 0, "", "", ""},
    {"chat finish", CHUNK("{},\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null"),
     0, SCHUNK_DATA, SCHUNK_FMT_CHAT, "", "", "length", 0, -1, -1, -1, 0, 0, "", "", ""},
    {"chat usage with include_usage",
     "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_"
     "tokens\":17,"
     "\"total_tokens\":529,\"completion_tokens\":512}}",
     0, SCHUNK_DATA, SCHUNK_FMT_CHAT, "", "", "", 0, -1, 17, 512, 0, 0, "", "", ""},
    {"chat usage null",
     "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}],\"usage\":null}", 0, SCHUNK_DATA,
     SCHUNK_FMT_CHAT, "a", "", "", 1, -1, -1, -1, 0, 0, "", "", ""},
    {"chat logprobs",
     CHUNK("{\"content\":\"ab\"},\"logprobs\":{\"content\":[{\"token\":\"a\",\"logprob\":-0.1,"
           "\"bytes\":[97],"
           "\"top_logprobs\":[]},{\"token\":\"b\",\"logprob\":-2,\"bytes\":[98],\"top_logprobs\":[]"
           "}]}"),
     0, SCHUNK_DATA, SCHUNK_FMT_CHAT, "ab", "", "", 2, 2, -1, -1, 0, 0, "", "", ""},
    {"completions text",
     "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" "
     "hello\","
     "\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}",
     0, SCHUNK_DATA, SCHUNK_FMT_TEXT, " hello", "", "", 1, -1, -1, -1, 0, 0, "", "", ""},
    {"completions logprobs",
     "{\"choices\":[{\"index\":0,\"text\":\"abc\",\"logprobs\":{\"text_offset\":[0,1,2],\"tokens\":"
     "[\"a\","
     "\"b\",\"c\"],\"token_logprobs\":[-1,-1,-1],\"top_logprobs\":null},\"finish_reason\":\"stop\"}"
     "]}",
     0, SCHUNK_DATA, SCHUNK_FMT_TEXT, "abc", "", "stop", 3, 3, -1, -1, 0, 0, "", "", ""},
    {"choice index 0 of two",
     "{\"choices\":[{\"index\":1,\"delta\":{\"content\":\"x\"}},{\"delta\":{\"content\":\"y\"},"
     "\"index\":0}]}",
     0, SCHUNK_DATA, SCHUNK_FMT_CHAT, "y", "", "", 1, -1, -1, -1, 0, 0, "", "", ""},
    {"choice index 1 only", "{\"choices\":[{\"index\":1,\"delta\":{\"content\":\"x\"}}]}", 0,
     SCHUNK_DATA, SCHUNK_FMT_CHAT, "", "", "", 0, -1, -1, -1, 0, 0, "", "", ""},
    {"continuous usage",
     "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}],\"usage\":{"
     "\"prompt_tokens\":5,\"completion_tokens\":3}}",
     0, SCHUNK_DATA, SCHUNK_FMT_CHAT, "a", "", "", 1, -1, 5, 3, 0, 0, "", "", ""},
    {"field of another type",
     "{\"choices\":[{\"index\":0,\"delta\":{\"content\":5}}],\"usage\":{"
     "\"completion_tokens\":1.5,\"prompt_tokens\":\"7\"}}",
     0, SCHUNK_DATA, SCHUNK_FMT_CHAT, "", "", "", 0, -1, -1, -1, 0, 0, "", "", ""},
    {"openai error",
     "{\"error\":{\"message\":\"bad \\\"x\\\"\",\"type\":\"BadRequestError\",\"param\":null,"
     "\"code\":400}}",
     0, SCHUNK_ERROR, SCHUNK_FMT_NONE, "", "", "", 0, -1, -1, -1, 0, 0, "BadRequestError", "400",
     "bad \"x\""},
    {"openai flat error",
     "{\"object\":\"error\",\"message\":\"m\",\"type\":\"t\",\"param\":null,"
     "\"code\":\"model_error\"}",
     0, SCHUNK_ERROR, SCHUNK_FMT_NONE, "", "", "", 0, -1, -1, -1, 0, 0, "t", "model_error", "m"},
    {"tgi token",
     "{\"index\":1,\"token\":{\"id\":42,\"text\":\" the\",\"logprob\":-0.5,\"special\":false},"
     "\"generated_text\":null,\"details\":null}",
     0, SCHUNK_DATA, SCHUNK_FMT_TOKEN, " the", "", "", 1, -1, -1, -1, 0, 0, "", "", ""},
    {"tgi final",
     "{\"index\":3,\"token\":{\"id\":2,\"text\":\"</s>\",\"logprob\":-0.1,\"special\":true},"
     "\"generated_text\":\"Hi the "
     "end\",\"details\":{\"finish_reason\":\"eos_token\",\"generated_tokens\":3,"
     "\"seed\":null,\"input_length\":7}}",
     0, SCHUNK_DATA, SCHUNK_FMT_TOKEN, "", "", "eos_token", 1, -1, 7, 3, 1, 1, "", "", ""},
    {"tgi error",
     "{\"error\":\"Request failed during generation: out of memory\",\"error_type\":"
     "\"generation\"}",
     0, SCHUNK_ERROR, SCHUNK_FMT_NONE, "", "", "", 0, -1, -1, -1, 0, 0, "generation", "",
     "Request failed during generation: out of memory"},
    {"lmi token",
     "{\"token\": {\"id\": 304, \"text\": \"Deep \", \"log_prob\": -0.052432529628276825}}", 0,
     SCHUNK_DATA, SCHUNK_FMT_TOKEN, "Deep ", "", "", 1, -1, -1, -1, 0, 0, "", "", ""},
    {"lmi final",
     "{\"token\": {\"id\": 5972, \"text\": \" field.\", \"log_prob\": -0.69}, "
     "\"generated_text\": \"Deep Learning is a really cool field.\", \"details\": "
     "{\"finish_reason\": "
     "\"length\", \"generated_tokens\": 100, \"inputs\": \"What is Deep Learning?\"}}",
     0, SCHUNK_DATA, SCHUNK_FMT_TOKEN, " field.", "", "length", 1, -1, -1, 100, 1, 0, "", "", ""},
    {"lmi error line",
     "{\"token\": {\"id\": -1, \"text\": \"\", \"log_prob\": -1, \"special_token\": true}, "
     "\"generated_text\": \"\", \"details\": {\"finish_reason\": \"error\", \"generated_tokens\": "
     "null, "
     "\"inputs\": null}}",
     0, SCHUNK_ERROR, SCHUNK_FMT_TOKEN, "", "", "error", 0, -1, -1, -1, 0, 1, "", "",
     "the container ended the generation with finish_reason \"error\""},
    {"lmi request error", "{\"error\": \"bad input\", \"code\": 424}", 0, SCHUNK_ERROR,
     SCHUNK_FMT_NONE, "", "", "", 0, -1, -1, -1, 0, 0, "", "424", "bad input"},
    {"lmi outputs", "{\"outputs\": [\"This\"]}", 0, SCHUNK_DATA, SCHUNK_FMT_OUTPUTS, "This", "", "",
     1, -1, -1, -1, 0, 0, "", "", ""},
    {"done", "[DONE]", 0, SCHUNK_DONE, SCHUNK_FMT_NONE, "", "", "", 0, -1, -1, -1, 0, 0, "", "",
     ""},
    {"done with spaces", " [DONE] \r", 0, SCHUNK_DONE, SCHUNK_FMT_NONE, "", "", "", 0, -1, -1, -1,
     0, 0, "", "", ""},
    {"unknown object", "{\"ping\":1}", 0, SCHUNK_OTHER, SCHUNK_FMT_NONE, "", "", "", 0, -1, -1, -1,
     0, 0, "", "", ""},
    {"number", "42", 0, SCHUNK_OTHER, SCHUNK_FMT_NONE, "", "", "", 0, -1, -1, -1, 0, 0, "", "", ""},
    {"cut short", "{\"choices\":[", SCHUNK_ERR_JSON, SCHUNK_DATA, SCHUNK_FMT_NONE, "", "", "", 0,
     -1, -1, -1, 0, 0, "", "", ""},
    {"empty", "", SCHUNK_ERR_JSON, SCHUNK_DATA, SCHUNK_FMT_NONE, "", "", "", 0, -1, -1, -1, 0, 0,
     "", "", ""},
    {"text after", "{\"a\":1} x", SCHUNK_ERR_JSON, SCHUNK_DATA, SCHUNK_FMT_NONE, "", "", "", 0, -1,
     -1, -1, 0, 0, "", "", ""},
    {"not json", "DONE", SCHUNK_ERR_JSON, SCHUNK_DATA, SCHUNK_FMT_NONE, "", "", "", 0, -1, -1, -1,
     0, 0, "", "", ""},
};

static void check_str(const char *row, const char *field, struct schunk_str got, const char *want) {
    if (got.n != strlen(want) || memcmp(got.s, want, got.n) != 0) {
        fprintf(stderr, "%s: %s is [%.*s], want [%s]\n", row, field, (int)got.n, got.s, want);
        check_failed++;
    }
}

#define CHECK_FIELD(got, want)                                                                     \
    do {                                                                                           \
        if ((long long)(got) != (long long)(want)) {                                               \
            fprintf(stderr, "%s: %s is %lld, want %lld\n", r->name, #got, (long long)(got),        \
                    (long long)(want));                                                            \
            check_failed++;                                                                        \
        }                                                                                          \
    } while (0)

static void test_rows(void) {
    struct buf scratch, err;
    buf_init(&scratch, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct row *r = &rows[i];
        struct schunk c;
        buf_reset(&err);
        CHECK_FIELD(schunk_parse(r->json, strlen(r->json), &scratch, &c, &err), r->rc);
        if (r->rc) {
            if (!strstr(buf_str(&err), "stream chunk: ") || !strstr(buf_str(&err), " at byte ")) {
                fprintf(stderr, "%s: error line [%s]\n", r->name, buf_str(&err));
                check_failed++;
            }
        }
        CHECK_FIELD(c.kind, r->kind);
        CHECK_FIELD(c.format, r->format);
        check_str(r->name, "content", c.content, r->content);
        check_str(r->name, "reasoning", c.reasoning, r->reasoning);
        check_str(r->name, "finish_reason", c.finish_reason, r->finish);
        CHECK_FIELD(c.tokens, r->tokens);
        CHECK_FIELD(c.logprob_tokens, r->logprob_tokens);
        CHECK_FIELD(c.prompt_tokens, r->prompt);
        CHECK_FIELD(c.completion_tokens, r->completion);
        CHECK_FIELD(c.final, r->final);
        CHECK_FIELD(c.special, r->special);
        check_str(r->name, "error_type", c.error_type, r->error_type);
        check_str(r->name, "error_code", c.error_code, r->error_code);
        check_str(r->name, "error_message", c.error_message, r->error_message);
    }
    buf_free(&scratch);
    buf_free(&err);
}

/* Plain strings are spans of the chunk; escaped ones go to scratch, which
 * grows once and then keeps its block. */
static void test_spans_and_scratch(void) {
    struct buf scratch;
    buf_init(&scratch, BUF_NO_CAP);
    struct schunk c;
    const char *plain = CHUNK("{\"content\":\" plain\"}");
    CHECK_INT(schunk_parse(plain, strlen(plain), &scratch, &c, NULL), 0);
    CHECK(c.content.s > plain && c.content.s < plain + strlen(plain));
    const char *esc = CHUNK("{\"content\":\"\\ttab\"}");
    CHECK_INT(schunk_parse(esc, strlen(esc), &scratch, &c, NULL), 0);
    CHECK(c.content.s == scratch.data);
    const char *block = scratch.data;
    size_t cap = scratch.cap;
    for (int i = 0; i < 100; i++) {
        CHECK_INT(schunk_parse(esc, strlen(esc), &scratch, &c, NULL), 0);
        CHECK_INT(schunk_parse(plain, strlen(plain), &scratch, &c, NULL), 0);
    }
    CHECK(scratch.data == block && scratch.cap == cap);
    /* A scratch buffer whose cap is too small for the chunk. */
    struct buf small;
    buf_init(&small, 8);
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(schunk_parse(esc, strlen(esc), &small, &c, &err), SCHUNK_ERR_NOMEM);
    CHECK_STR(buf_str(&err), "stream chunk: out of memory");
    CHECK_INT(c.kind, SCHUNK_DATA);
    buf_free(&small);
    buf_free(&err);
    buf_free(&scratch);
}

/* The usage's details: completion_tokens_details.reasoning_tokens (the reasoning
 * among the completion tokens) and prompt_tokens_details.cached_tokens (vLLM with
 * --enable-prompt-tokens-details: the prompt tokens its prefix cache served), each
 * -1 when the server does not say it (absent, or details null). */
static void test_reasoning_tokens(void) {
    static const struct {
        const char *json;
        int64_t completion, reasoning, cached;
    } cases[] = {
        {"{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":40,"
         "\"completion_tokens_details\":{\"accepted_prediction_tokens\":0,\"reasoning_tokens\":39}}"
         "}",
         40, 39, -1},
        {"{\"choices\":[],\"usage\":{\"completion_tokens\":4,\"completion_tokens_details\":null}}",
         4, -1, -1},
        {"{\"choices\":[],\"usage\":{\"completion_tokens\":4}}", 4, -1, -1},
        {"{\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"x\"}}]}", -1, -1, -1},
        {"{\"choices\":[],\"usage\":{\"prompt_tokens\":64,\"completion_tokens\":4,"
         "\"prompt_tokens_details\":{\"audio_tokens\":0,\"cached_tokens\":48}}}",
         4, -1, 48},
        {"{\"choices\":[],\"usage\":{\"completion_tokens\":4,\"prompt_tokens_details\":null}}", 4,
         -1, -1},
    };
    struct buf scratch;
    buf_init(&scratch, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct schunk c;
        CHECK(schunk_parse(cases[i].json, strlen(cases[i].json), &scratch, &c, NULL) == 0);
        CHECK(c.completion_tokens == cases[i].completion);
        CHECK(c.reasoning_tokens == cases[i].reasoning);
        CHECK(c.cached_tokens == cases[i].cached);
    }
    buf_free(&scratch);
}

int main(void) {
    test_reasoning_tokens();
    test_rows();
    test_spans_and_scratch();
    return check_exit();
}
