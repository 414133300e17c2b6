/* The body builders against the exact JSON each container takes. */
#include <stdlib.h>

#include "../check.h"
#include "body.h"

static const struct {
    const char *name;
    const char *format;
    struct body_params p;
    const char *extra; /* JSON text or NULL */
    int rc;
    const char *want; /* the body, or the error message */
} cases[] = {
    {"vllm chat, the decode request",
     "vllm-chat",
     {.prompt = "Write a story.",
      .max_tokens = 512,
      .has_temperature = true,
      .ignore_eos = true,
      .min_tokens = -1},
     NULL,
     BODY_OK,
     "{\"messages\":[{\"role\":\"user\",\"content\":\"Write a story.\"}],\"max_tokens\":512,"
     "\"temperature\":0,\"ignore_eos\":true}"},
    {"vllm completions with min_tokens and seed",
     "vllm-completions",
     {.prompt = "Hi", .max_tokens = 16, .min_tokens = 16, .has_seed = true, .seed = 7},
     NULL,
     BODY_OK,
     "{\"prompt\":\"Hi\",\"max_tokens\":16,\"min_tokens\":16,\"seed\":7}"},
    {"nothing optional sent when absent",
     "vllm-chat",
     {.prompt = "x", .max_tokens = -1, .min_tokens = -1},
     NULL,
     BODY_OK,
     "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"},
    {"extra fields added and overriding",
     "vllm-chat",
     {.prompt = "x", .max_tokens = 8, .min_tokens = -1},
     "{\"model\":\"m\",\"max_tokens\":9}",
     BODY_OK,
     "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":9,\"model\":\"m\"}"},
    {"prompt escaped as JSON",
     "vllm-completions",
     {.prompt = "a \"q\"\n\\ Brasília", .max_tokens = -1, .min_tokens = -1},
     NULL,
     BODY_OK,
     "{\"prompt\":\"a \\\"q\\\"\\n\\\\ Brasília\"}"},
    {"tgi greedy is do_sample false",
     "tgi",
     {.prompt = "x", .max_tokens = 64, .has_temperature = true, .min_tokens = -1},
     NULL,
     BODY_OK,
     "{\"inputs\":\"x\",\"parameters\":{\"max_new_tokens\":64,\"do_sample\":false,\"details\":true}"
     "}"},
    {"tgi sampling",
     "tgi",
     {.prompt = "x",
      .max_tokens = 4,
      .has_temperature = true,
      .temperature = 0.5,
      .min_tokens = -1,
      .has_seed = true,
      .seed = 3},
     "{\"top_p\":0.9}",
     BODY_OK,
     "{\"inputs\":\"x\",\"parameters\":{\"max_new_tokens\":4,\"do_sample\":true,"
     "\"temperature\":0.5,\"seed\":3,\"details\":true,\"top_p\":0.9}}"},
    {"lmi carries ignore_eos_token",
     "lmi",
     {.prompt = "x",
      .max_tokens = 512,
      .has_temperature = true,
      .ignore_eos = true,
      .min_tokens = -1},
     NULL,
     BODY_OK,
     "{\"inputs\":\"x\",\"parameters\":{\"max_new_tokens\":512,\"do_sample\":false,"
     "\"ignore_eos_token\":true,\"details\":true}}"},
    {"tgi refuses ignore_eos",
     "tgi",
     {.prompt = "x", .max_tokens = 1, .ignore_eos = true, .min_tokens = -1},
     NULL,
     BODY_ERR_UNSUPPORTED,
     "the tgi format has no ignore_eos"},
    {"lmi refuses min_tokens",
     "lmi",
     {.prompt = "x", .max_tokens = 1, .min_tokens = 1},
     NULL,
     BODY_ERR_UNSUPPORTED,
     "the lmi format has no min_tokens"},
    {"raw is the text itself",
     "raw",
     {.prompt = "{\"anything\": [1]}", .max_tokens = 5, .min_tokens = -1},
     NULL,
     BODY_OK,
     "{\"anything\": [1]}"},
    {"extra must be an object",
     "vllm-chat",
     {.prompt = "x", .max_tokens = -1, .min_tokens = -1},
     "[1]",
     BODY_ERR_INPUT,
     "the extra fields must be a JSON object"},
    {"a vLLM stream asks the running usage in every chunk (per-token ITL)",
     "vllm-chat",
     {.prompt = "x", .max_tokens = 4, .min_tokens = -1, .stream = true},
     NULL,
     BODY_OK,
     "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":4,"
     "\"stream_options\":{\"include_usage\":true,\"continuous_usage_stats\":true},\"stream\":"
     "true}"},
    {"plain usage for a container that refused continuous_usage_stats",
     "vllm-completions",
     {.prompt = "x", .max_tokens = 4, .min_tokens = -1, .stream = true, .plain_usage = true},
     NULL,
     BODY_OK,
     "{\"prompt\":\"x\",\"max_tokens\":4,\"stream_options\":{\"include_usage\":true},"
     "\"stream\":true}"},
    {"thinking off: the chat template's enable_thinking, extra's own kwargs win",
     "vllm-chat",
     {.prompt = "x", .max_tokens = -1, .min_tokens = -1, .thinking = BODY_THINKING_OFF},
     "{\"chat_template_kwargs\": {\"enable_thinking\": true, \"x\": 1}}",
     BODY_OK,
     "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"chat_template_kwargs\":{"
     "\"enable_thinking\":true,\"x\":1}}"},
    {"thinking on",
     "vllm-chat",
     {.prompt = "x", .max_tokens = -1, .min_tokens = -1, .thinking = BODY_THINKING_ON},
     NULL,
     BODY_OK,
     "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"chat_template_kwargs\":{"
     "\"enable_thinking\":true}}"},
    {"thinking needs a chat template",
     "tgi",
     {.prompt = "x", .max_tokens = -1, .min_tokens = -1, .thinking = BODY_THINKING_OFF},
     NULL,
     BODY_ERR_UNSUPPORTED,
     "the tgi format has no thinking (a chat template's: vllm-chat)"},
};

static void test_cases(void) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enum body_format f;
        struct buf out, err;
        struct body_params p = cases[i].p;
        buf_init(&out, BUF_NO_CAP);
        buf_init(&err, BUF_NO_CAP);
        CHECK_INT(body_format_parse(cases[i].format, &f), BODY_OK);
        CHECK_STR(body_format_name(f), cases[i].format);
        cJSON *extra = cases[i].extra ? cJSON_Parse(cases[i].extra) : NULL;
        p.extra = extra;
        int rc = body_build(f, &p, &out, &err);
        if (rc != cases[i].rc) fprintf(stderr, "case: %s\n", cases[i].name);
        CHECK_INT(rc, cases[i].rc);
        CHECK_STR(rc ? buf_str(&err) : buf_str(&out), cases[i].want);
        if (rc) CHECK_INT(out.len, 0);
        cJSON_Delete(extra);
        buf_free(&out);
        buf_free(&err);
    }
}

/* A conversation goes into vllm-chat whole, in its order; another format, or a
 * conversation that is no list of role and content, is refused in one line. */
static void test_messages(void) {
    static const struct {
        const char *format, *messages;
        int rc;
        const char *want;
    } cases[] = {
        {"vllm-chat",
         "[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":"
         "\"Hi\"},{\"role\":\"assistant\",\"content\":\"Hello.\"},{\"role\":\"user\","
         "\"content\":\"Bye\"}]",
         BODY_OK,
         "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\","
         "\"content\":\"Hi\"},{\"role\":\"assistant\",\"content\":\"Hello.\"},{\"role\":"
         "\"user\",\"content\":\"Bye\"}],\"max_tokens\":8}"},
        {"vllm-completions", "[{\"role\":\"user\",\"content\":\"Hi\"}]", BODY_ERR_UNSUPPORTED,
         "the vllm-completions format has no messages (a conversation needs vllm-chat)"},
        {"tgi", "[{\"role\":\"user\",\"content\":\"Hi\"}]", BODY_ERR_UNSUPPORTED,
         "the tgi format has no messages (a conversation needs vllm-chat)"},
        {"vllm-chat", "[]", BODY_ERR_INPUT,
         "messages must be a list of {\"role\": ..., \"content\": ...} objects"},
        {"vllm-chat", "[{\"role\":\"user\",\"content\":3}]", BODY_ERR_INPUT,
         "messages must be a list of {\"role\": ..., \"content\": ...} objects"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enum body_format f;
        struct buf out, err;
        buf_init(&out, BUF_NO_CAP);
        buf_init(&err, BUF_NO_CAP);
        cJSON *m = cJSON_Parse(cases[i].messages);
        struct body_params p = {.prompt = "", .messages = m, .max_tokens = 8, .min_tokens = -1};
        CHECK_INT(body_format_parse(cases[i].format, &f), BODY_OK);
        int rc = body_build(f, &p, &out, &err);
        CHECK_INT(rc, cases[i].rc);
        CHECK_STR(rc ? buf_str(&err) : buf_str(&out), cases[i].want);
        cJSON_Delete(m);
        buf_free(&out);
        buf_free(&err);
    }
}

static void test_unknown_format(void) {
    enum body_format f;
    CHECK_INT(body_format_parse("openai", &f), BODY_ERR_INPUT);
}

int main(void) {
    test_cases();
    test_messages();
    test_unknown_format();
    return check_exit();
}
