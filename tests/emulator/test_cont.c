/* Container bodies: what each format accepts, the container's own errors for
 * what it rejects, and reply lengths (ignore_eos, max_tokens, min_tokens) that
 * agree with usage. */
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "cont.h"
#include "tok.h"

struct body_case {
    const char *name;
    const char *format;
    const char *content_type;
    const char *body;
    int status;          /* 0: accepted */
    const char *message; /* a substring of the container's error body */
};

static const struct body_case cases[] = {
    {"chat", "vllm", "application/json", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
     0, NULL},
    {"chat with parts", "vllm", "application/json; charset=utf-8",
     "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]}", 0,
     NULL},
    {"completions", "vllm", "application/json", "{\"prompt\":\"hi\",\"max_tokens\":\"5\"}", 0,
     NULL},
    {"wrong content type", "vllm", "text/plain", "{\"prompt\":\"hi\"}", 415,
     "Unsupported Media Type: Only 'application/json' is allowed"},
    {"no content type", "vllm", NULL, "{\"prompt\":\"hi\"}", 415, "Unsupported Media Type"},
    {"bad json", "vllm", "application/json", "{bad", 400,
     "\"JSON decode error: Expecting value: line 1 column 3 (char 2)\",\"type\":\"Bad Request\""},
    {"extra data", "vllm", "application/json", "{} x", 400,
     "JSON decode error: Extra data: line 1 column 4 (char 3)"},
    {"empty body", "vllm", "application/json", "", 400,
     "Expecting value: line 1 column 1 (char 0)"},
    {"neither messages nor prompt", "vllm", "application/json", "{\"inputs\":\"hi\"}", 400,
     "Cannot find suitable handler for request. Expected one of: ['ChatCompletionRequest', "
     "'CompletionRequest']"},
    {"not an object", "vllm", "application/json", "[1,2]", 400, "Cannot find suitable handler"},
    {"max_tokens not a number", "vllm", "application/json",
     "{\"prompt\":\"hi\",\"max_tokens\":\"many\"}", 400, "Cannot find suitable handler"},
    {"max_tokens zero", "vllm", "application/json", "{\"prompt\":\"hi\",\"max_tokens\":0}", 400,
     "\"max_tokens must be at least 1, got 0.\",\"type\":\"BadRequestError\",\"param\":null,"
     "\"code\":400"},
    {"max_completion_tokens negative", "vllm", "application/json",
     "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_completion_tokens\":-3}", 400,
     "max_tokens must be at least 1, got -3."},
    {"negative temperature", "vllm", "application/json", "{\"prompt\":\"hi\",\"temperature\":-1}",
     400, "temperature must be non-negative, got -1.0."},
    {"min above max", "vllm", "application/json",
     "{\"prompt\":\"hi\",\"max_tokens\":4,\"min_tokens\":9}", 400,
     "min_tokens must be less than or equal to max_tokens=4, got 9."},
    {"context too long", "vllm", "application/json", "{\"prompt\":\"hi\",\"max_tokens\":9000}", 400,
     "This model's maximum context length is 8192 tokens. However, you requested 9002 tokens (2 "
     "in the messages, 9000 in the completion)."},
    {"message without role", "vllm", "application/json", "{\"messages\":[{\"content\":\"hi\"}]}",
     400, "Cannot find suitable handler"},
    {"tgi", "tgi", NULL,
     "{\"inputs\":\"hi\",\"parameters\":{\"max_new_tokens\":3,\"details\":true}}", 0, NULL},
    {"tgi without inputs", "tgi", NULL, "{\"parameters\":{}}", 422,
     "{\"error\":\"Failed to deserialize the JSON body into the target type: missing field "
     "`inputs`\",\"error_type\":\"validation\"}"},
    {"tgi zero tokens", "tgi", NULL, "{\"inputs\":\"hi\",\"parameters\":{\"max_new_tokens\":0}}",
     422, "Input validation error: `max_new_tokens` must be strictly positive"},
    {"tgi bad json", "tgi", NULL, "nope", 400, "Failed to parse the request body as JSON"},
    {"lmi", "lmi", NULL, "{\"inputs\":\"hi\",\"parameters\":{\"ignore_eos_token\":true}}", 0, NULL},
    {"lmi zero tokens", "lmi", NULL, "{\"inputs\":\"hi\",\"parameters\":{\"max_new_tokens\":0}}",
     400, "{\"code\":400,\"type\":\"BadRequestException\",\"message\":\"Input validation error"},
    {"stream options without stream", "vllm", "application/json",
     "{\"prompt\":\"hi\",\"stream_options\":{\"include_usage\":true}}", 400,
     "Stream options can only be defined when `stream=True`."},
    {"stream options not an object", "vllm", "application/json",
     "{\"prompt\":\"hi\",\"stream\":true,\"stream_options\":7}", 400,
     "Cannot find suitable handler"},
    {"tgi stream not a boolean", "tgi", NULL, "{\"inputs\":\"hi\",\"stream\":\"maybe\"}", 422,
     "parameters: invalid type"},
};

/* Bodies of the OpenAI-compatible route: vLLM chat only, whatever the profile's format. */
static const struct body_case openai_cases[] = {
    {"chat on a tgi endpoint", "tgi", "application/json",
     "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}", 0, NULL},
    {"the served model", "vllm", "application/json",
     "{\"model\":\"emulated-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", 0,
     NULL},
    {"an empty model", "vllm", "application/json",
     "{\"model\":\"\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", 0, NULL},
    {"another model", "vllm", "application/json",
     "{\"model\":\"my-endpoint\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", 404,
     "\"The model `my-endpoint` does not exist.\""},
    {"completions body", "vllm", "application/json", "{\"prompt\":\"hi\"}", 400,
     "'loc': ('body', 'messages'), 'msg': 'Field required'"},
    {"not json", "tgi", "application/json", "{x", 400, "JSON decode error"},
    {"no content type", "vllm", NULL, "{}", 415, "Unsupported Media Type"},
};

static void profile(struct model_profile *p, const char *format) {
    struct buf err;
    buf_init(&err, 256);
    CHECK_INT(model_builtin("instant", p), 0);
    CHECK_INT(model_set(p, "format", format, &err), 0);
    buf_free(&err);
}

static void run_case_on(const struct body_case *c, bool openai) {
    struct model_profile p;
    struct cont_request r;
    struct buf err, body;
    int status = 0;
    profile(&p, c->format);
    cont_request_init(&r);
    buf_init(&err, BUF_NO_CAP);
    buf_init(&body, BUF_NO_CAP);
    int rc =
        openai ? cont_parse_openai(&p, c->content_type, c->body, strlen(c->body), &r, &status, &err)
               : cont_parse(&p, c->content_type, c->body, strlen(c->body), &r, &status, &err);
    if (rc == CONT_ERR_REJECTED)
        CHECK_INT(cont_error_body(openai ? MODEL_VLLM : p.format, status, buf_str(&err), &body), 0);
    if (openai && rc == CONT_OK) CHECK_INT(r.kind, CONT_CHAT);
    if ((rc == CONT_OK) != (c->status == 0) || (c->message && !strstr(buf_str(&body), c->message)))
        fprintf(stderr, "case '%s': rc %d status %d body %s\n", c->name, rc, status,
                buf_str(&body));
    CHECK_INT(rc, c->status ? CONT_ERR_REJECTED : CONT_OK);
    if (c->status) CHECK_INT(status, c->status);
    if (c->status) CHECK(err.len > 0 && !strchr(buf_str(&err), '\n')); /* one line */
    if (c->message) CHECK(strstr(buf_str(&body), c->message) != NULL);
    cJSON *json = c->status ? cJSON_Parse(buf_str(&body)) : NULL;
    if (c->status) CHECK(json != NULL); /* every container error body is JSON */
    cJSON_Delete(json);
    cont_request_free(&r);
    buf_free(&err);
    buf_free(&body);
    model_free(&p);
}

static void run_case(const struct body_case *c) {
    run_case_on(c, false);
}

/* "stream", "stream_options.include_usage" as each format reads them. */
static void test_stream_fields(void) {
    static const struct {
        const char *format, *body;
        bool stream, usage;
    } rows[] = {
        {"vllm", "{\"prompt\":\"hi\"}", false, false},
        {"vllm", "{\"prompt\":\"hi\",\"stream\":true}", true, false},
        {"vllm",
         "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,"
         "\"stream_options\":{\"include_usage\":true}}",
         true, true},
        {"vllm", "{\"prompt\":\"hi\",\"stream\":1,\"stream_options\":{\"include_usage\":false}}",
         true, false},
        {"tgi", "{\"inputs\":\"hi\",\"stream\":true}", true, false},
        {"lmi", "{\"inputs\":\"hi\",\"parameters\":{},\"stream\":true}", true, false},
        {"lmi", "{\"inputs\":\"hi\",\"parameters\":{\"stream\":true}}", false, false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct model_profile p;
        struct cont_request r;
        struct buf err;
        int status = 0;
        profile(&p, rows[i].format);
        cont_request_init(&r);
        buf_init(&err, BUF_NO_CAP);
        CHECK_INT(cont_parse(&p, "application/json", rows[i].body, strlen(rows[i].body), &r,
                             &status, &err),
                  CONT_OK);
        CHECK_INT(r.stream, rows[i].stream);
        CHECK_INT(r.include_usage, rows[i].usage);
        cont_request_free(&r);
        buf_free(&err);
        model_free(&p);
    }
}

/* Sends body to profile p and returns the reply JSON and the answer. */
static cJSON *reply(const char *format, const char *body, struct cont_answer *a) {
    struct model_profile p;
    struct cont_request r;
    struct buf err, out;
    int status = 0;
    profile(&p, format);
    cont_request_init(&r);
    buf_init(&err, BUF_NO_CAP);
    buf_init(&out, BUF_NO_CAP);
    CHECK_INT(cont_parse(&p, "application/json", body, strlen(body), &r, &status, &err), CONT_OK);
    CHECK_INT(cont_answer(&p, &r, a), CONT_OK);
    struct cont_meta m = {"cmpl-1", 1700000000, p.model_id, NULL, false, 0, NULL};
    CHECK_INT(cont_reply(&r, a, &m, &out), 0);
    cJSON *j = cJSON_Parse(buf_str(&out));
    CHECK(j != NULL);
    cont_request_free(&r);
    buf_free(&err);
    buf_free(&out);
    model_free(&p);
    return j;
}

static const struct {
    const char *format, *body;
    size_t tokens;      /* completion tokens, 0: tok_count of the expected text */
    const char *text;   /* exact reply text, or NULL */
    const char *finish; /* vLLM finish_reason or TGI/LMI details.finish_reason */
} lengths[] = {
    {"vllm", "{\"prompt\":\"Write a story.\",\"max_tokens\":16,\"ignore_eos\":true}", 16, NULL,
     "length"},
    {"vllm", "{\"prompt\":\"Write a story.\",\"max_tokens\":512,\"ignore_eos\":true}", 512, NULL,
     "length"},
    {"vllm",
     "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 54 * 28? Reply with the number "
     "only.\"}],\"max_tokens\":64,\"ignore_eos\":true}",
     64, NULL, "length"},
    {"vllm",
     "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 54 * 28? Reply with the number "
     "only.\"}],\"max_tokens\":64}",
     1, "1512", "stop"},
    {"vllm", "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 470 + 238 - 983? Reply.\"}]}",
     2, "-275", "stop"},
    {"vllm",
     "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 470 + 238 - 983? Reply.\"}],"
     "\"max_tokens\":1}",
     1, "-", "length"},
    {"vllm",
     "{\"messages\":[{\"role\":\"user\",\"content\":\"What is the capital of Brazil? Answer "
     "in one word.\"}]}",
     1, "Brasília", "stop"},
    {"vllm", "{\"prompt\":\"What is 12 * 26?\",\"min_tokens\":5,\"max_tokens\":9}", 5, NULL,
     "stop"},
    {"vllm", "{\"prompt\":\"Tell me anything.\"}", 128, NULL, "stop"},
    {"vllm", "{\"prompt\":\"Tell me anything.\",\"max_tokens\":40}", 40, NULL, "length"},
    {"tgi", "{\"inputs\":\"Tell me.\",\"parameters\":{\"max_new_tokens\":33,\"details\":true}}", 33,
     NULL, "length"},
    {"tgi", "{\"inputs\":\"What is 12 * 26?\",\"parameters\":{\"details\":true}}", 1, "312",
     "eos_token"},
    {"lmi",
     "{\"inputs\":\"What is 12 * 26?\",\"parameters\":{\"max_new_tokens\":20,"
     "\"ignore_eos_token\":true,\"details\":true}}",
     20, NULL, "length"},
};

static void run_length(size_t i) {
    struct cont_answer a;
    cont_answer_init(&a);
    cJSON *j = reply(lengths[i].format, lengths[i].body, &a);
    CHECK_INT(a.tokens, lengths[i].tokens);
    CHECK_INT(tok_count(a.text.data, a.text.len), lengths[i].tokens);
    if (lengths[i].text) CHECK_STR(buf_str(&a.text), lengths[i].text);
    if (strcmp(lengths[i].format, "vllm") == 0) {
        const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "choices"), 0);
        const cJSON *usage = cJSON_GetObjectItem(j, "usage");
        const cJSON *msg = cJSON_GetObjectItem(choice, "message");
        const char *text = msg ? cJSON_GetObjectItem(msg, "content")->valuestring
                               : cJSON_GetObjectItem(choice, "text")->valuestring;
        CHECK_STR(text, buf_str(&a.text));
        CHECK_INT(cJSON_GetObjectItem(usage, "completion_tokens")->valueint, lengths[i].tokens);
        CHECK_STR(cJSON_GetObjectItem(choice, "finish_reason")->valuestring, lengths[i].finish);
        CHECK_STR(cJSON_GetObjectItem(j, "object")->valuestring,
                  msg ? "chat.completion" : "text_completion");
    } else {
        const cJSON *o = cJSON_IsArray(j) ? cJSON_GetArrayItem(j, 0) : j;
        const cJSON *d = cJSON_GetObjectItem(o, "details");
        CHECK_INT(cJSON_IsArray(j), strcmp(lengths[i].format, "tgi") == 0);
        CHECK_STR(cJSON_GetObjectItem(o, "generated_text")->valuestring, buf_str(&a.text));
        CHECK_INT(cJSON_GetObjectItem(d, "generated_tokens")->valueint, lengths[i].tokens);
        CHECK_STR(cJSON_GetObjectItem(d, "finish_reason")->valuestring, lengths[i].finish);
    }
    cJSON_Delete(j);
    cont_answer_free(&a);
}

int main(void) {
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i]);
    for (size_t i = 0; i < sizeof openai_cases / sizeof *openai_cases; i++)
        run_case_on(&openai_cases[i], true);
    test_stream_fields();
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) run_length(i);
    struct buf e;
    buf_init(&e, BUF_NO_CAP);
    CHECK_INT(cont_server_error(MODEL_VLLM, &e), 0);
    CHECK_STR(buf_str(&e), "{\"error\":{\"message\":\"Internal Server Error\",\"type\":"
                           "\"InternalServerError\",\"param\":null,\"code\":500}}");
    buf_free(&e);
    return check_exit();
}
