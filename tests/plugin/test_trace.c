/* trace: the four formats read into one schedule; the window, the cap and the
 * speed; a malformed line named by its number. */
#include "trace.h"

#include <string.h>

#include "../check.h"

static const struct trace_spec trace_all = {1.0, 0, -1, 0};

static struct trace *parse(const char *text, const struct trace_spec *s, struct buf *err) {
    struct trace *t = NULL;
    buf_reset(err);
    int rc = trace_parse("t.txt", text, strlen(text), s, &t, err);
    CHECK(rc == 0 || !t);
    return t;
}

static void test_mooncake(struct buf *err) {
    const char *text =
        "{\"timestamp\": 0, \"input_length\": 700, \"output_length\": 20, \"hash_ids\": [1, 2]}\n"
        "{\"timestamp\": 1500, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 3],"
        " \"extra\": \"ignored\"}\n"
        "\n"
        "{\"timestamp\": 3000.5, \"input_length\": 10, \"output_length\": 1}\n";
    struct trace_spec s = trace_all;
    s.speed = 2;
    struct trace *t = parse(text, &s, err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(t->format, TRACE_MOONCAKE);
    CHECK_STR(trace_format_name(t->format), "mooncake");
    CHECK_INT(t->n, 3);
    CHECK_INT(t->reqs[0].at_us, 0);
    CHECK_INT(t->reqs[1].t_us, 1500000);
    CHECK_INT(t->reqs[1].at_us, 750000);
    CHECK_INT(t->reqs[2].t_us, 3000500);
    CHECK_INT(t->reqs[2].at_us, 1500250);
    CHECK_INT(t->reqs[2].line, 4);
    CHECK_INT(t->reqs[0].input_tokens, 700);
    CHECK_INT(t->reqs[1].output_tokens, 5);
    CHECK_INT(t->reqs[1].n_hash_ids, 2);
    CHECK_INT(t->reqs[1].hash_ids[1], 3);
    CHECK_INT(t->reqs[2].n_hash_ids, 0);
    CHECK(t->reqs[0].body == NULL);
    trace_free(t);
}

static void test_azure(struct buf *err) {
    const char *text = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
                       "2023-11-16 18:15:46.6805900,4808,10\r\n"
                       "2023-11-16 18:15:50.0000000,3180,8\r\n"
                       "2023-11-17 00:00:00,1,1\r\n";
    struct trace *t = parse(text, &trace_all, err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(t->format, TRACE_AZURE);
    CHECK_INT(t->n, 3);
    CHECK_INT(t->reqs[0].t_us, 0);
    CHECK_INT(t->reqs[1].at_us, 3319410); /* 50.0 - 46.68059 s */
    CHECK_INT(t->reqs[2].at_us, (5 * 3600 + 44 * 60 + 13) * 1000000LL + 319410);
    CHECK_INT(t->reqs[0].input_tokens, 4808);
    CHECK_INT(t->reqs[1].output_tokens, 8);
    trace_free(t);
}

static void test_burstgpt(struct buf *err) {
    /* Columns in BurstGPT's order, a quoted one, and rows out of time order. */
    const char *text = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                       "5,ChatGPT,472,18,490,Conversation log\n"
                       "2.25,\"GPT-4\",1024,0,1024,API log\n"
                       "5,ChatGPT,7,9,16,Conversation log\n";
    struct trace *t = parse(text, &trace_all, err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(t->format, TRACE_BURSTGPT);
    CHECK_INT(t->n, 3);
    CHECK_INT(t->reqs[0].line, 3); /* the earliest first */
    CHECK_INT(t->reqs[0].input_tokens, 1024);
    CHECK_INT(t->reqs[0].output_tokens, 0);
    CHECK_INT(t->reqs[1].line, 2); /* ties in file order */
    CHECK_INT(t->reqs[1].at_us, 2750000);
    CHECK_INT(t->reqs[2].line, 4);
    CHECK_INT(t->reqs[2].at_us, 2750000);
    trace_free(t);
}

static void test_capture(struct buf *err) {
    const char *text =
        "{\"captureData\":{\"endpointInput\":{\"observedContentType\":\"application/json\","
        "\"mode\":\"INPUT\",\"data\":\"{\\\"inputs\\\":\\\"hi\\\"}\",\"encoding\":\"JSON\"},"
        "\"endpointOutput\":{\"observedContentType\":\"application/json\",\"mode\":\"OUTPUT\","
        "\"data\":\"x\",\"encoding\":\"JSON\"}},\"eventMetadata\":{\"eventId\":\"e1\","
        "\"inferenceTime\":\"2024-03-01T10:00:00Z\"},\"eventVersion\":\"0\"}\n"
        "{\"captureData\":{\"endpointInput\":{\"data\":\"eyJpbnB1dHMiOiAiaG8ifQ==\","
        "\"encoding\":\"BASE64\"}},\"eventMetadata\":{\"inferenceTime\":"
        "\"2024-03-01T10:00:01.250Z\"}}\n"
        "{\"captureData\":{\"endpointInput\":{\"data\":\"1,2,3\",\"encoding\":\"CSV\"}},"
        "\"eventMetadata\":{\"inferenceTime\":\"2024-03-01T10:00:02.000001Z\"}}\n";
    struct trace *t = parse(text, &trace_all, err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(t->format, TRACE_CAPTURE);
    CHECK_INT(t->n, 3);
    CHECK_STR(t->reqs[0].body, "{\"inputs\":\"hi\"}");
    CHECK_STR(t->reqs[0].content_type, "application/json");
    CHECK(t->reqs[1].content_type == NULL);
    CHECK_STR(t->reqs[1].body, "{\"inputs\": \"ho\"}");
    CHECK_INT(t->reqs[1].body_len, 16);
    CHECK_INT(t->reqs[1].at_us, 1250000);
    CHECK_STR(t->reqs[2].body, "1,2,3");
    CHECK_INT(t->reqs[2].at_us, 2000001);
    CHECK_INT(t->reqs[2].input_tokens, -1);
    trace_free(t);
}

static void test_window_and_cap(struct buf *err) {
    const char *text = "Timestamp,Request tokens,Response tokens\n"
                       "0,1,1\n1,2,2\n2,3,3\n3,4,4\n4,5,5\n";
    struct trace_spec s = {4.0, 1000000, 4000000, 0};
    struct trace *t = parse(text, &s, err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(t->n, 3); /* 1, 2 and 3 s: the end is left out */
    CHECK_INT(t->n_read, 5);
    CHECK_INT(t->reqs[0].input_tokens, 2);
    CHECK_INT(t->reqs[0].at_us, 0); /* from the window's start */
    CHECK_INT(t->reqs[2].at_us, 500000);
    trace_free(t);
    s.cap = 2;
    t = parse(text, &s, err);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(t->n, 2);
    CHECK_INT(t->reqs[1].input_tokens, 3);
    trace_free(t);
}

/* Rows of a trace that must be refused, and the line that names why. */
static const struct {
    const char *text;
    const char *message;
} trace_refused[] = {
    {"{\"timestamp\":0,\"input_length\":1,\"output_length\":1}\n\n{\"timestamp\":1,"
     "\"input_length\":-1,\"output_length\":1}\n",
     "t.txt:3: \"input_length\" must be a whole number of tokens"},
    {"{\"timestamp\":0,\"input_length\":1,\"output_length\":1}\nnot json\n",
     "t.txt:2: not a JSON object"},
    {"{\"timestamp\":0,\"input_length\":1,\"output_length\":1,\"hash_ids\":[1,\"a\"]}\n",
     "t.txt:1: \"hash_ids\" must be a list of whole numbers"},
    {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10,1\n2023-13-16 18:15:46,1,1\n",
     "t.txt:3: TIMESTAMP must be a date and time (YYYY-MM-DD HH:MM:SS[.frac])"},
    {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10\n",
     "t.txt:2: fewer columns than the header names"},
    {"Timestamp,Model,Request tokens,Response tokens\n1,m,2.5,1\n",
     "t.txt:2: Request tokens must be a whole number of tokens"},
    {"Timestamp,Request tokens,Response tokens\n-1,2,1\n",
     "t.txt:2: Timestamp must be seconds from 0"},
    {"{\"captureData\":{\"endpointInput\":{\"data\":\"%%%\",\"encoding\":\"BASE64\"}},"
     "\"eventMetadata\":{\"inferenceTime\":\"2024-03-01T10:00:00Z\"}}\n",
     "t.txt:1: \"captureData.endpointInput.data\" is no BASE64"},
    {"{\"captureData\":{\"endpointInput\":{\"data\":\"x\",\"encoding\":\"XML\"}},"
     "\"eventMetadata\":{\"inferenceTime\":\"2024-03-01T10:00:00Z\"}}\n",
     "t.txt:1: \"captureData.endpointInput.encoding\" must be JSON, CSV or BASE64"},
    {"{\"captureData\":{\"endpointInput\":{\"data\":\"x\",\"encoding\":\"CSV\"}}}\n",
     "t.txt:1: \"eventMetadata.inferenceTime\" must be a UTC time (YYYY-MM-DDTHH:MM:SS[.frac]Z)"},
    {"a,b,c\n1,2,3\n",
     "t.txt:1: not a trace this reads: Mooncake or Data Capture JSON lines, or a CSV header with "
     "TIMESTAMP,ContextTokens,GeneratedTokens (Azure) or Timestamp,Request tokens,Response "
     "tokens (BurstGPT)"},
    {"{\"captureData\":{\"endpointInput\":{\"data\":\"x\",\"encoding\":\"CSV\","
     "\"observedContentType\":\"text/csv\\r\\nX-Evil: 1\"}},"
     "\"eventMetadata\":{\"inferenceTime\":\"2024-03-01T10:00:00Z\"}}\n",
     "t.txt:1: \"captureData.endpointInput.observedContentType\" must be a header value of 1 to "
     "255 printable ASCII characters"},
    {"\n\n", "t.txt: no requests"},
};

static void test_refused(struct buf *err) {
    for (size_t i = 0; i < sizeof trace_refused / sizeof *trace_refused; i++) {
        struct trace *t = parse(trace_refused[i].text, &trace_all, err);
        CHECK(t == NULL);
        CHECK_STR(buf_str(err), trace_refused[i].message);
        trace_free(t);
    }
    struct trace_spec s = {1.0, 5000000, -1, 0};
    CHECK(parse("Timestamp,Request tokens,Response tokens\n0,1,1\n1,1,1\n", &s, err) == NULL);
    CHECK_STR(buf_str(err), "t.txt: no requests in the window");
    s = (struct trace_spec){0, 0, -1, 0};
    CHECK(parse("Timestamp,Request tokens,Response tokens\n0,1,1\n", &s, err) == NULL);
    CHECK_STR(buf_str(err), "t.txt: the speed must be above 0 (and at most 1e6)");
}

int main(void) {
    struct buf err;
    buf_init(&err, 4096);
    test_mooncake(&err);
    test_azure(&err);
    test_burstgpt(&err);
    test_capture(&err);
    test_window_and_cap(&err);
    test_refused(&err);
    buf_free(&err);
    return check_exit();
}
