/* The reply parser on replies shaped like each container's and each error SageMaker sends. */
#include <stdlib.h>

#include "../check.h"
#include "reply.h"

static const struct {
    const char *name;
    int status;
    const char *error_type; /* x-amzn-ErrorType, or NULL */
    const char *body;
    const char *text, *finish;
    long prompt, completion;
    const char *code, *message;
    int original;
} cases[] = {
    {"vllm chat", 200, NULL,
     "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gemma\","
     "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Canberra\","
     "\"reasoning_content\":null,\"tool_calls\":[]},\"logprobs\":null,\"finish_reason\":\"stop\","
     "\"stop_reason\":106}],\"usage\":{\"prompt_tokens\":18,\"total_tokens\":20,"
     "\"completion_tokens\":2,\"prompt_tokens_details\":null},\"prompt_logprobs\":null}",
     "Canberra", "stop", 18, 2, NULL, NULL, 0},
    {"vllm chat with null content", 200, NULL,
     "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":null,\"reasoning\":\"hm\"},"
     "\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":64}}",
     "", "length", 5, 64, NULL, NULL, 0},
    {"vllm completions", 200, NULL,
     "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" Once "
     "upon\",\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}],"
     "\"usage\":{\"prompt_tokens\":14,\"total_tokens\":30,\"completion_tokens\":16}}",
     " Once upon", "length", 14, 16, NULL, NULL, 0},
    {"tgi", 200, NULL,
     "[{\"generated_text\":\"Paris\",\"details\":{\"finish_reason\":\"eos_token\","
     "\"generated_tokens\":2,\"seed\":null,\"prefill\":[],\"tokens\":[]}}]",
     "Paris", "eos_token", -1, 2, NULL, NULL, 0},
    {"lmi", 200, NULL,
     "{\"generated_text\":\"Paris\",\"details\":{\"finish_reason\":\"length\","
     "\"generated_tokens\":512,\"inputs\":\"x\"}}",
     "Paris", "length", -1, 512, NULL, NULL, 0},
    {"usage missing", 200, NULL, "{\"choices\":[{\"text\":\"x\"}]}", "x", NULL, -1, -1, NULL, NULL,
     0},
    {"a 200 that is not JSON", 200, NULL, "<html>", NULL, NULL, -1, -1, "parse",
     "reply is not JSON", 0},
    {"a 200 of unknown shape", 200, NULL, "{\"outputs\":[]}", NULL, NULL, -1, -1, "parse",
     "reply has neither choices nor generated_text", 0},
    {"bad signature", 403,
     "InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/",
     "{\"message\":\"The request signature we calculated does not match the signature you "
     "provided. Check your AWS Secret Access Key and signing method.\"}",
     NULL, NULL, -1, -1, "InvalidSignatureException",
     "The request signature we calculated does not match the signature you provided. Check your "
     "AWS Secret Access Key and signing method.",
     0},
    {"throttled, code from __type", 429, NULL,
     "{\"__type\":\"com.amazon.coral.availability#ThrottlingException\",\"message\":\"Rate "
     "exceeded\"}",
     NULL, NULL, -1, -1, "ThrottlingException", "Rate exceeded", 0},
    {"endpoint not found", 400, "ValidationError:http://internal.amazon.com/coral/com.amazon.sage/",
     "{\"Message\":\"Endpoint nope of account 123456789012 not found.\"}", NULL, NULL, -1, -1,
     "ValidationError", "Endpoint nope of account 123456789012 not found.", 0},
    {"model error carrying vLLM's error", 424, "ModelError:http://internal.amazon.com/coral/x/",
     "{\"ErrorCode\":\"CLIENT_ERROR_FROM_MODEL\",\"LogStreamArn\":\"arn:aws:logs:x\","
     "\"Message\":\"Received client error (400) from primary with message \\\"...\\\". See "
     "logs.\",\"OriginalMessage\":\"{\\\"error\\\":{\\\"message\\\":\\\"max_tokens is too "
     "large\\\",\\\"type\\\":\\\"BadRequestError\\\",\\\"param\\\":null,\\\"code\\\":400}}\","
     "\"OriginalStatusCode\":400}",
     NULL, NULL, -1, -1, "ModelError", "container answered 400: max_tokens is too large", 400},
    {"model error with a plain-text original", 424, "ModelError",
     "{\"Message\":\"x\",\"OriginalMessage\":\"upstream\\ntimed out\",\"OriginalStatusCode\":504}",
     NULL, NULL, -1, -1, "ModelError", "container answered 504: upstream timed out", 504},
    {"vllm error, nested", 400, NULL,
     "{\"error\":{\"message\":\"bad\\nrequest\",\"type\":\"BadRequestError\",\"param\":null,"
     "\"code\":400}}",
     NULL, NULL, -1, -1, "BadRequestError", "bad request", 0},
    {"vllm error, older flat", 400, NULL,
     "{\"object\":\"error\",\"message\":\"too long\",\"type\":\"BadRequestError\",\"param\":null,"
     "\"code\":400}",
     NULL, NULL, -1, -1, "BadRequestError", "too long", 0},
    {"tgi error", 422, NULL,
     "{\"error\":\"Input validation error: `inputs` must not be empty\",\"error_type\":"
     "\"validation\"}",
     NULL, NULL, -1, -1, "validation", "Input validation error: `inputs` must not be empty", 0},
    {"model error carrying TGI's error", 424, "ModelError",
     "{\"OriginalMessage\":\"{\\\"error\\\":\\\"missing field `inputs`\\\",\\\"error_type\\\":"
     "\\\"validation\\\"}\",\"OriginalStatusCode\":422}",
     NULL, NULL, -1, -1, "ModelError", "container answered 422: missing field `inputs`", 422},
    {"a 503 with an HTML body", 503, NULL, "<html>\r\n<b>Service Unavailable</b>\r\n</html>\n",
     NULL, NULL, -1, -1, "http_503", "<html>  <b>Service Unavailable</b>  </html>", 0},
    {"a 500 with no body", 500, NULL, "", NULL, NULL, -1, -1, "http_500", "(empty body)", 0},
};

static void test_cases(void) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct reply r;
        reply_init(&r);
        const char *b = cases[i].body;
        CHECK_INT(reply_parse(cases[i].status, cases[i].error_type, b, strlen(b), &r), REPLY_OK);
        if (cases[i].text)
            CHECK_STR(r.text, cases[i].text);
        else
            CHECK(r.text == NULL);
        if (cases[i].finish)
            CHECK_STR(r.finish_reason, cases[i].finish);
        else
            CHECK(r.finish_reason == NULL);
        CHECK_INT(r.prompt_tokens, cases[i].prompt);
        CHECK_INT(r.completion_tokens, cases[i].completion);
        if (cases[i].code) {
            CHECK_STR(r.error_code, cases[i].code);
            CHECK_STR(r.error_message, cases[i].message);
        } else {
            CHECK(r.error_code == NULL && r.error_message == NULL);
        }
        CHECK_INT(r.original_status, cases[i].original);
        CHECK_INT(r.status, cases[i].status);
        if (check_failed) fprintf(stderr, "after case: %s\n", cases[i].name);
        reply_clear(&r);
    }
}

/* A long message is cut to REPLY_MESSAGE_MAX bytes, never inside a UTF-8 sequence. */
static void test_long_message(void) {
    char body[2048];
    int n = snprintf(body, sizeof body, "{\"message\":\"");
    for (int i = 0; i < 300; i++) n += snprintf(body + n, sizeof body - (size_t)n, "é");
    snprintf(body + n, sizeof body - (size_t)n, "\"}");
    struct reply r;
    reply_init(&r);
    CHECK_INT(reply_parse(500, NULL, body, strlen(body), &r), REPLY_OK);
    CHECK(strlen(r.error_message) <= REPLY_MESSAGE_MAX);
    CHECK(strlen(r.error_message) % 2 == 0); /* whole two-byte characters */
    reply_clear(&r);
}

int main(void) {
    test_cases();
    test_long_message();
    return check_exit();
}
