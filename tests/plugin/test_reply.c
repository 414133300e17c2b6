/* The reply parser on replies shaped like each container's and each error SageMaker sends;
 * the vLLM scanner against cJSON on every body, and where it reads without cJSON. */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "../check.h"
#include "buf.h"
#include "reply.h"
#include "rfield.h"

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
    {"a component with no copy: no_capacity", 400,
     "ValidationError:http://internal.amazon.com/coral/com.amazon.sage/",
     "{\"Message\":\"Inference Component has no capacity to process this request. "
     "ApplicationAutoScaling may be in-progress (if configured) or try to increase the capacity by "
     "invoking UpdateInferenceComponentRuntimeConfig API.\"}",
     NULL, NULL, -1, -1, "no_capacity",
     "Inference Component has no capacity to process this request. ApplicationAutoScaling may be "
     "in-progress (if configured) or try to increase the capacity by invoking "
     "UpdateInferenceComponentRuntimeConfig API.",
     0},
    {"no capacity said by another code stays that code", 500, "InternalFailure",
     "{\"Message\":\"no capacity\"}", NULL, NULL, -1, -1, "InternalFailure", "no capacity", 0},
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

/* Bodies for the scanner: each is read alike with and without it; scanned
 * says whether the scanner (not cJSON) read it. */
static const struct {
    const char *name, *body;
    bool scanned;
    const char *text, *finish; /* NULL: none */
    long prompt, completion;
    const char *code; /* NULL: a usable success */
} scans[] = {
    {"escapes in the text", "{\"choices\":[{\"message\":{\"content\":\"a\\nb\\u00e9\\\"\\/\"}}]}",
     true, "a\nb\xc3\xa9\"/", NULL, -1, -1, NULL},
    {"an escaped NUL ends the text", "{\"choices\":[{\"message\":{\"content\":\"a\\u0000b\"}}]}",
     true, "a", NULL, -1, -1, NULL},
    {"raw UTF-8", "{\"choices\":[{\"message\":{\"content\":\"Bras\xc3\xadlia\"}}]}", true,
     "Bras\xc3\xadlia", NULL, -1, -1, NULL},
    {"white space around everything",
     " \r\n{ \"choices\" : [ { \"text\" : \"x\" , \"finish_reason\" : \"stop\" } ] ,"
     " \"usage\" : { \"prompt_tokens\" : 3 } }\n\t",
     true, "x", "stop", 3, -1, NULL},
    {"the first of duplicate members counts",
     "{\"choices\":[{\"message\":{\"content\":\"one\",\"content\":\"two\"},\"message\":{"
     "\"content\":\"three\"},\"finish_reason\":\"stop\",\"finish_reason\":\"length\"}],"
     "\"choices\":[{\"text\":\"four\"}],\"usage\":{\"prompt_tokens\":1,\"prompt_tokens\":2},"
     "\"usage\":{\"completion_tokens\":9}}",
     true, "one", "stop", 1, -1, NULL},
    {"a null content before a string one",
     "{\"choices\":[{\"message\":{\"content\":null,\"content\":\"y\"}}]}", true, "", NULL, -1, -1,
     NULL},
    {"a message that is not an object", "{\"choices\":[{\"message\":\"hi\",\"text\":\"t\"}]}", true,
     "", NULL, -1, -1, NULL},
    {"neither message nor text", "{\"choices\":[{\"finish_reason\":\"stop\"}]}", true, NULL, NULL,
     -1, -1, "parse"},
    {"a text that is not a string", "{\"choices\":[{\"text\":7}]}", true, NULL, NULL, -1, -1,
     "parse"},
    {"a whole count in any notation, a null one absent",
     "{\"choices\":[{\"text\":\"\",\"finish_reason\":5}],\"usage\":{\"prompt_tokens\":1.6e1,"
     "\"completion_tokens\":null}}",
     true, "", NULL, 16, -1, NULL},
    {"a count with a fraction is no count",
     "{\"choices\":[{\"text\":\"\"}],\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":16.5}}",
     true, NULL, NULL, -1, -1, "parse"},
    {"a negative count is no count",
     "{\"choices\":[{\"text\":\"\"}],\"usage\":{\"prompt_tokens\":-3}}", true, NULL, NULL, -1, -1,
     "parse"},
    {"a count that is a string is no count",
     "{\"choices\":[{\"text\":\"\"}],\"usage\":{\"completion_tokens\":\"9\"}}", true, NULL, NULL,
     -1, -1, "parse"},
    {"a huge count", "{\"choices\":[{\"text\":\"\"}],\"usage\":{\"prompt_tokens\":1e300}}", true,
     NULL, NULL, -1, -1, "parse"},
    {"usage that is not an object",
     "{\"usage\":[{\"prompt_tokens\":3}],\"choices\":[{\"text\":"
     "\"x\"}]}",
     true, "x", NULL, -1, -1, NULL},
    {"values skipped of every type",
     "{\"a\":[1,-2.5e-3,true,false,null,{\"b\":[[]]},\"\\ud83d\\ude00\"],\"choices\":[{\"text\":"
     "\"x\",\"logprobs\":{\"c\":[0.1]}},{\"text\":\"second\"}],\"created\":1796037627}",
     true, "x", NULL, -1, -1, NULL},
    {"members that are literals or empty",
     "{\"t\":true,\"f\":false,\"n\":null,\"a\":[],\"o\":{},\"s\":[ ],\"choices\":[{\"text\":"
     "\"x\",\"tool_calls\":[],\"logprobs\":null,\"u\":false}],\"usage\":{\"x\":{},\"prompt_"
     "tokens\":2}}",
     true, "x", NULL, 2, -1, NULL},
    {"a literal cut short", "{\"t\":tru,\"choices\":[{\"text\":\"x\"}]}", false, NULL, NULL, -1, -1,
     "parse"},
    {"numbers of every shape",
     "{\"a\":[0,-0,12,-3.5e2,1E+2,0.5,123456789012345678],\"choices\":"
     "[{\"text\":\"x\"}],\"usage\":{\"prompt_tokens\":-0,\"completion_tokens\":"
     "900000000000000}}",
     true, "x", NULL, 0, 900000000000000, NULL},
    {"a number with a leading zero (cJSON reads it)",
     "{\"choices\":[{\"text\":\"x\"}],"
     "\"usage\":{\"prompt_tokens\":007}}",
     false, "x", NULL, 7, -1, NULL},
    {"choices that are empty", "{\"choices\":[]}", false, NULL, NULL, -1, -1, "parse"},
    {"choices that are an object", "{\"choices\":{\"a\":{\"text\":\"x\"}}}", false, "x", NULL, -1,
     -1, NULL},
    {"a first choice that is not an object", "{\"choices\":[\"x\"]}", false, NULL, NULL, -1, -1,
     "parse"},
    {"an escaped member name", "{\"choi\\u0063es\":[{\"text\":\"x\"}]}", false, "x", NULL, -1, -1,
     NULL},
    {"bytes after the value", "{\"choices\":[{\"text\":\"x\"}]} trailing", false, "x", NULL, -1, -1,
     NULL},
    {"a byte order mark", "\xef\xbb\xbf{\"choices\":[{\"text\":\"x\"}]}", false, "x", NULL, -1, -1,
     NULL},
    {"cut short", "{\"choices\":[{\"text\":\"x\"}]", false, NULL, NULL, -1, -1, "parse"},
    {"a control character in a string", "{\"choices\":[{\"text\":\"a\tb\"}]}", true, "a\tb", NULL,
     -1, -1, NULL},
    {"an escaped quote in the text", "{\"choices\":[{\"text\":\"say \\\"hi\\\"\"}]}", true,
     "say \"hi\"", NULL, -1, -1, NULL},
    {"a backslash before the closing quote", "{\"choices\":[{\"text\":\"a\\\\\"}]}", true, "a\\",
     NULL, -1, -1, NULL},
    {"a control character in a skipped string (cJSON lets it pass too)",
     "{\"id\":\"a\tb\",\"choices\":[{\"text\":\"x\"}]}", true, "x", NULL, -1, -1, NULL},
    {"a control character in a string with escapes", "{\"choices\":[{\"text\":\"a\\n\tb\"}]}",
     false, "a\n\tb", NULL, -1, -1, NULL},
    {"a text never closed", "{\"choices\":[{\"text\":\"abc", false, NULL, NULL, -1, -1, "parse"},
    {"no choices: TGI's shape", "[{\"generated_text\":\"P\",\"details\":{\"generated_tokens\":2}}]",
     false, "P", NULL, -1, 2, NULL},
    {"no choices: LMI's shape", "{\"generated_text\":\"P\"}", false, "P", NULL, -1, -1, NULL},
    {"an empty body", "", false, NULL, NULL, -1, -1, "parse"},
};

static void check_reply(const struct reply *r, const char *text, const char *finish, long prompt,
                        long completion, const char *code) {
    if (text)
        CHECK_STR(r->text, text);
    else
        CHECK(r->text == NULL);
    if (finish)
        CHECK_STR(r->finish_reason, finish);
    else
        CHECK(r->finish_reason == NULL);
    CHECK_INT(r->prompt_tokens, prompt);
    CHECK_INT(r->completion_tokens, completion);
    if (code)
        CHECK_STR(r->error_code, code);
    else
        CHECK(r->error_code == NULL);
}

/* What a count that is no count is called, on both paths and for TGI. */
static void test_count_messages(void) {
    static const char *const bodies[][2] = {
        {"{\"choices\":[{\"text\":\"x\"}],\"usage\":{\"completion_tokens\":4.5}}",
         "usage.completion_tokens is not a whole number of tokens (4.5)"},
        {"{\"choices\":[{\"text\":\"x\"}],\"usage\":{\"prompt_tokens\":-1}}",
         "usage.prompt_tokens is not a whole number of tokens (-1)"},
        {"[{\"generated_text\":\"x\",\"details\":{\"generated_tokens\":2.25}}]",
         "details.generated_tokens is not a whole number of tokens (2.25)"},
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++)
        for (unsigned flags = 0; flags < 4; flags += 2) {
            struct reply r;
            reply_init(&r);
            CHECK_INT(reply_parse_with(200, NULL, bodies[i][0], strlen(bodies[i][0]), flags, &r),
                      REPLY_OK);
            CHECK_STR(r.error_code, "parse");
            CHECK_STR(r.error_message, bodies[i][1]);
            reply_clear(&r);
        }
}

static void test_scanner(void) {
    for (size_t i = 0; i < sizeof scans / sizeof scans[0]; i++) {
        const char *b = scans[i].body;
        for (unsigned flags = 0; flags < 4; flags++) {
            int failed = check_failed;
            struct reply r;
            reply_init(&r);
            CHECK_INT(reply_parse_with(200, NULL, b, strlen(b), flags, &r), REPLY_OK);
            bool text = flags & REPLY_TEXT, scan = !(flags & REPLY_NO_SCAN);
            const char *want_text = text ? scans[i].text : NULL;
            if (text && !scans[i].text && !scans[i].code) want_text = "";
            check_reply(&r, want_text, scans[i].finish, scans[i].prompt, scans[i].completion,
                        scans[i].code);
            CHECK(r.scanned == (scan && scans[i].scanned));
            if (check_failed > failed)
                fprintf(stderr, "after scan case: %s, flags %u\n", scans[i].name, flags);
            reply_clear(&r);
        }
    }
}

/* Every 2xx body of the container cases reads the same through the scanner and cJSON. */
static void test_scanner_agrees(void) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *b = cases[i].body;
        int failed = check_failed;
        struct reply fast, ref;
        reply_init(&fast);
        reply_init(&ref);
        CHECK_INT(
            reply_parse_with(cases[i].status, cases[i].error_type, b, strlen(b), REPLY_TEXT, &fast),
            REPLY_OK);
        CHECK_INT(reply_parse_with(cases[i].status, cases[i].error_type, b, strlen(b),
                                   REPLY_TEXT | REPLY_NO_SCAN, &ref),
                  REPLY_OK);
        check_reply(&fast, ref.text, ref.finish_reason, ref.prompt_tokens, ref.completion_tokens,
                    ref.error_code);
        CHECK(fast.scanned == (cases[i].status == 200 && strstr(b, "\"choices\"") != NULL));
        if (check_failed > failed) fprintf(stderr, "after case: %s\n", cases[i].name);
        reply_clear(&fast);
        reply_clear(&ref);
    }
}

/* Where cJSON refuses valid JSON, the scanner reads it (reply.h says so). */
static void test_scanner_where_cjson_refuses(void) {
    static const char *const bodies[][2] = {
        {"{\"choices\":[{\"text\":\"a\\ud800b\"}]}", "a\xef\xbf\xbd"
                                                     "b"},
        {"{\"choices\":[{\"text\":\"\\udc00\"}]}", "\xef\xbf\xbd"},
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        struct reply r;
        reply_init(&r);
        CHECK_INT(reply_parse(200, NULL, bodies[i][0], strlen(bodies[i][0]), &r), REPLY_OK);
        CHECK(r.scanned && r.error_code == NULL);
        CHECK_STR(r.text, bodies[i][1]);
        reply_clear(&r);
        CHECK_INT(reply_parse_with(200, NULL, bodies[i][0], strlen(bodies[i][0]),
                                   REPLY_TEXT | REPLY_NO_SCAN, &r),
                  REPLY_OK);
        CHECK_STR(r.error_code, "parse");
        reply_clear(&r);
    }
}

static bool same_string(const char *a, const char *b) {
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Raw NUL bytes and strings longer than the scanner's 64-byte window (its
 * 16-byte steps, then memchr): read as cJSON reads them, names with a NUL
 * left to cJSON (which cuts them there). */
static void test_scanner_nul_and_long(void) {
#define LONG60  "123456789012345678901234567890123456789012345678901234567890"
#define BODY(s) s, sizeof(s) - 1
    static const struct {
        const char *body;
        size_t len;
        bool scanned;
        const char *text;
    } bodies[] = {
        {BODY("{\"cho\0ices\":[{\"text\":\"x\"}],\"choices\":[{\"text\":\"y\"}]}"), false, "y"},
        {BODY("{\"id\":\"a\0b\",\"choices\":[{\"text\":\"x\"}]}"), true, "x"},
        {BODY("{\"choices\":[{\"text\":\"a\0b\"}]}"), true, "a"},
        {BODY("{\"choices\":[{\"text\":\"" LONG60 "\0" LONG60 "\"}]}"), true, LONG60},
        {BODY("{\"choices\":[{\"text\":\"" LONG60 LONG60 "\\n" LONG60 "\"}]}"), true,
         LONG60 LONG60 "\n" LONG60},
        {BODY("{\"choices\":[{\"text\":\"" LONG60 LONG60 "\"}]}"), true, LONG60 LONG60},
        {BODY("{\"" LONG60 LONG60 "\":1,\"choices\":[{\"text\":\"x\"}]}"), true, "x"},
        {BODY("{\"" LONG60 LONG60 "\0\":1,\"choices\":[{\"text\":\"x\"}]}"), false, "x"},
        {BODY("{\"" LONG60 LONG60 "\\n\":1,\"choices\":[{\"text\":\"x\"}]}"), false, "x"},
        {BODY("{\"choices\":[{\"text\":\"" LONG60 LONG60), false, NULL},
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        int failed = check_failed;
        struct reply fast, ref;
        reply_init(&fast);
        reply_init(&ref);
        CHECK_INT(reply_parse_with(200, NULL, bodies[i].body, bodies[i].len, REPLY_TEXT, &fast),
                  REPLY_OK);
        CHECK_INT(reply_parse_with(200, NULL, bodies[i].body, bodies[i].len,
                                   REPLY_TEXT | REPLY_NO_SCAN, &ref),
                  REPLY_OK);
        CHECK(fast.scanned == bodies[i].scanned);
        CHECK(same_string(fast.text, bodies[i].text) && same_string(ref.text, bodies[i].text));
        CHECK(same_string(fast.error_code, ref.error_code));
        if (check_failed > failed) fprintf(stderr, "after NUL/long case %zu\n", i);
        reply_clear(&fast);
        reply_clear(&ref);
    }
#undef BODY
#undef LONG60
}

/* Random damage to two vLLM replies (a seeded generator: the same bodies every
 * run): whatever the scanner reads, it reads as cJSON does. Bodies that could
 * hold a surrogate escape (reply.h: the one difference) are left out. */
static void test_scanner_damaged(void) {
    static const char alphabet[] = "{}[]\",:0123456789.-eEtrfalsn \\/\n\x01\xc3";
    const char *bases[] = {cases[0].body, cases[2].body};
    unsigned long long rng = 12345;
    char body[2048];
    int scanned = 0;
    for (int i = 0; i < 20000; i++) {
        const char *base = bases[i % 2];
        size_t n = strlen(base);
        memcpy(body, base, n);
        for (int k = 0; k < 1 + i % 3; k++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t at = (size_t)(rng >> 33) % n;
            char c = alphabet[(rng >> 20) % (sizeof alphabet - 1)];
            if ((rng >> 8) % 3 == 0 && n > 1) {
                memmove(body + at, body + at + 1, --n - at); /* delete */
            } else if ((rng >> 8) % 3 == 1 && n < sizeof body - 1) {
                memmove(body + at + 1, body + at, n++ - at); /* insert */
                body[at] = c;
            } else {
                body[at] = c;
            }
        }
        body[n] = '\0';
        if (strstr(body, "\\u")) continue;
        struct reply fast, ref;
        reply_init(&fast);
        reply_init(&ref);
        CHECK_INT(reply_parse_with(200, NULL, body, n, REPLY_TEXT, &fast), REPLY_OK);
        CHECK_INT(reply_parse_with(200, NULL, body, n, REPLY_TEXT | REPLY_NO_SCAN, &ref), REPLY_OK);
        bool same = same_string(fast.text, ref.text) &&
                    same_string(fast.finish_reason, ref.finish_reason) &&
                    same_string(fast.error_code, ref.error_code) &&
                    fast.prompt_tokens == ref.prompt_tokens &&
                    fast.completion_tokens == ref.completion_tokens;
        if (!same) fprintf(stderr, "scanner and cJSON differ on: %s\n", body);
        CHECK(same);
        scanned += fast.scanned;
        reply_clear(&fast);
        reply_clear(&ref);
    }
    CHECK(scanned > 1000); /* many damaged bodies are still read by the scanner */
}

/* A value nested past the scanner's depth goes to cJSON, which reads it. */
static void test_deep(void) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    CHECK_INT(buf_adds(&b, "{\"deep\":"), BUF_OK);
    for (int i = 0; i < 300; i++) CHECK_INT(buf_addc(&b, '['), BUF_OK);
    for (int i = 0; i < 300; i++) CHECK_INT(buf_addc(&b, ']'), BUF_OK);
    CHECK_INT(buf_adds(&b, ",\"choices\":[{\"text\":\"x\"}]}"), BUF_OK);
    struct reply r;
    reply_init(&r);
    CHECK_INT(reply_parse(200, NULL, b.data, b.len, &r), REPLY_OK);
    CHECK(!r.scanned && r.error_code == NULL);
    CHECK_STR(r.text, "x");
    reply_clear(&r);
    buf_free(&b);
}

/* reply_trim: the last Content-Length bytes, when the body holds more. */
static void test_trim(void) {
    static const struct {
        const char *length, *body, *want;
    } trims[] = {
        {"3", "abcdef", "def"},
        {"6", "abcdef", "abcdef"},
        {"9", "abcdef", "abcdef"},
        {NULL, "abcdef", "abcdef"},
        {"", "abcdef", "abcdef"},
        {"3x", "abcdef", "abcdef"},
        {"0", "abcdef", ""},
        {"+3", "abcdef", "abcdef"},
        {" 3", "abcdef", "abcdef"},
        {"-1", "abcdef", "abcdef"},
        {"003", "abcdef", "def"},
        {"5", "", ""},
        {"99999999999999999999999", "abcdef", "abcdef"},
        {"18446744073709551619", "ab", "ab"},
    };
    for (size_t i = 0; i < sizeof trims / sizeof trims[0]; i++) {
        const char *b = trims[i].body;
        size_t n = strlen(b);
        reply_trim(trims[i].length, &b, &n);
        CHECK_INT(n, strlen(trims[i].want));
        CHECK(strncmp(b, trims[i].want, n) == 0);
    }
}

/* The emulator's service-time header: whole microseconds, bounded; else none. */
static void test_service_us(void) {
    CHECK(reply_service_us("0") == 0);
    CHECK(reply_service_us("4321") == 4321);
    CHECK(reply_service_us("100000000000") == RFIELD_SERVER_US_MAX);
    CHECK(reply_service_us("000000000012") == 12);
    const char *bad[] = {NULL,
                         "",
                         "-5",
                         "+5",
                         " 5",
                         "5 ",
                         "5.0",
                         "1e3",
                         "0x10",
                         "100000000001",
                         "1234567890123",
                         "99999999999999999999999",
                         "12a"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK(reply_service_us(bad[i]) == -1);
}

/* One count of the usage's details, read through the scanner and through cJSON
 * alike: ok says want (its text, when given, the reply's), none (details null)
 * says -1, bad (a count that is no count) is a parse error naming field. The count
 * is the long at offset off of struct reply. */
static void check_usage_detail(const char *ok, const char *text, const char *none, const char *bad,
                               const char *field, size_t off, long want) {
    for (unsigned flags = REPLY_TEXT; flags <= (REPLY_TEXT | REPLY_NO_SCAN);
         flags += REPLY_NO_SCAN) {
        struct reply r;
        const char *const bodies[] = {ok, none, bad};
        for (int i = 0; i < 3; i++) {
            reply_init(&r);
            CHECK_INT(reply_parse_with(200, NULL, bodies[i], strlen(bodies[i]), flags, &r),
                      REPLY_OK);
            CHECK_INT(*(const long *)(const void *)((const char *)&r + off), i ? -1 : want);
            if (i == 0 && text) CHECK_STR(r.text, text);
            if (i < 2) CHECK(r.error_code == NULL);
            if (i == 2) {
                CHECK_STR(r.error_code, "parse");
                CHECK(r.error_message && strstr(r.error_message, field));
                CHECK_INT(r.completion_tokens, -1);
            }
            reply_clear(&r);
        }
    }
}

/* A thinking model's whole reply: its reasoning stays out of the scored text, its
 * reasoning tokens come from usage.completion_tokens_details. */
static void test_reasoning(void) {
    static const char ok[] =
        "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Canberra\","
        "\"reasoning\":\"The capital is Canberra, not Sydney\",\"reasoning_content\":\"Sydney?\"},"
        "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":40,"
        "\"completion_tokens_details\":{\"reasoning_tokens\":39}}}";
    static const char none[] = "{\"choices\":[{\"message\":{\"content\":\"x\"}}],"
                               "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,"
                               "\"completion_tokens_details\":null}}";
    static const char bad[] = "{\"choices\":[{\"message\":{\"content\":\"x\"}}],"
                              "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":3,"
                              "\"completion_tokens_details\":{\"reasoning_tokens\":1.5}}}";
    check_usage_detail(ok, "Canberra", none, bad,
                       "usage.completion_tokens_details.reasoning_tokens",
                       offsetof(struct reply, reasoning_tokens), 39);
}

/* A whole reply's usage.prompt_tokens_details.cached_tokens (vLLM with
 * --enable-prompt-tokens-details): the prompt tokens its prefix cache served. */
static void test_cached_tokens(void) {
    static const char ok[] = "{\"choices\":[{\"message\":{\"content\":\"x\"}}],"
                             "\"usage\":{\"prompt_tokens\":64,\"completion_tokens\":1,"
                             "\"prompt_tokens_details\":{\"cached_tokens\":48}}}";
    static const char none[] = "{\"choices\":[{\"message\":{\"content\":\"x\"}}],"
                               "\"usage\":{\"prompt_tokens\":64,\"completion_tokens\":1,"
                               "\"prompt_tokens_details\":null}}";
    static const char bad[] = "{\"choices\":[{\"message\":{\"content\":\"x\"}}],"
                              "\"usage\":{\"prompt_tokens\":64,\"completion_tokens\":1,"
                              "\"prompt_tokens_details\":{\"cached_tokens\":\"many\"}}}";
    check_usage_detail(ok, "x", none, bad, "usage.prompt_tokens_details.cached_tokens",
                       offsetof(struct reply, cached_tokens), 48);
}

int main(void) {
    test_cached_tokens();
    test_reasoning();
    test_service_us();
    test_cases();
    test_long_message();
    test_count_messages();
    test_scanner();
    test_scanner_agrees();
    test_scanner_where_cjson_refuses();
    test_scanner_nul_and_long();
    test_scanner_damaged();
    test_deep();
    test_trim();
    return check_exit();
}
