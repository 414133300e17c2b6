/* The JSON the emulator's cores write: the counts (tally), the request log line
 * (reqlog), SageMaker's error bodies (smerr) and the stats' endpoints (fleet),
 * byte for byte where the format is fixed, and valid UTF-8 JSON whatever bytes a
 * client or the command line put in (\xff, quotes, control characters). */
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "fleet.h"
#include "reqlog.h"
#include "smerr.h"
#include "tally.h"
#include "utf8.h"

/* Whether s is well-formed UTF-8 and parses as JSON. */
static bool json_ok(const struct buf *s) {
    uint32_t c;
    for (size_t i = 0, k; i < s->len; i += k)
        if ((k = utf8_decode((const unsigned char *)s->data + i, s->len - i, &c)) == 0)
            return false;
    cJSON *j = cJSON_ParseWithLength(s->data, s->len);
    cJSON_Delete(j);
    return j != NULL;
}

static void test_tally(void) {
    struct tally t = {.requests = 3, .prompt_tokens = 7, .completion_tokens = 9, .in_flight = 1};
    struct buf out;
    tally_reply(&t, 200);
    tally_reply(&t, 403);
    tally_reply(&t, 200);
    t.faults[FAULT_DROP] = 2;
    CHECK_INT(tally_replies(&t, 200), 2);
    CHECK_INT(tally_replies(&t, 500), 0);
    buf_init(&out, BUF_NO_CAP);
    CHECK_INT(tally_json_open(&out, &t, false), 0);
    CHECK_STR(buf_str(&out),
              "{\"requests\":3,\"replies\":{\"200\":2,\"403\":1},\"prompt_tokens\":7,"
              "\"completion_tokens\":9,\"dropped\":0,\"in_flight\":1");
    buf_reset(&out);
    CHECK_INT(tally_json_open(&out, &t, true), 0);
    CHECK(strstr(buf_str(&out), ",\"faults\":{\"throttle\":0,\"unavailable\":0,\"internal\":0,"
                                "\"model_error\":0,\"drop\":2,\"truncate\":0,\"slow\":0,\"lose\":0,"
                                "\"stream_error\":0,\"stream_failure\":0,\"stream_stall\":0,"
                                "\"stream_crc\":0,\"stream_cut\":0}") != NULL);
    /* more statuses than the table holds: the rest count with the last one */
    for (int s = 100; s < 100 + TALLY_STATUS_MAX + 5; s++) tally_reply(&t, s);
    CHECK_INT(t.n_statuses, TALLY_STATUS_MAX);
    buf_free(&out);
}

static void test_reqlog(void) {
    struct buf out;
    char prompt[REQLOG_PROMPT_MAX + 8];
    struct reqlog_entry e = {.id = "id-1",
                             .received = 1.5,
                             .replied = 2.25,
                             .endpoint = "ep",
                             .variant = "AllTraffic",
                             .access_key_id = "AKID\xff",
                             .access_key_id_len = 5,
                             .status = 200,
                             .prompt = "hi \xff \"x\"\n",
                             .prompt_len = 9,
                             .prompt_tokens = 4,
                             .completion_tokens = -1,
                             .queue_s = -1,
                             .cached_tokens = -1};
    buf_init(&out, BUF_NO_CAP);
    CHECK_INT(reqlog_format(&out, &e), 0);
    CHECK_STR(buf_str(&out),
              "{\"id\":\"id-1\",\"arrival\":1.500000,\"received\":1.500000,\"admitted\":null,"
              "\"queue_s\":null,\"replied\":2.250000,\"first_token\":null,\"last_token\":null,"
              "\"api\":null,\"endpoint\":\"ep\","
              "\"variant\":\"AllTraffic\",\"access_key_id\":"
              "\"AKID\xef\xbf\xbd\",\"status\":200,\"error_type\":null,\"fault\":null,"
              "\"prompt\":\"hi \xef\xbf\xbd \\\"x\\\"\\u000a\",\"prompt_tokens\":4,"
              "\"completion_tokens\":null,\"cached_tokens\":null,\"session\":null}");
    CHECK(json_ok(&out));
    /* the batch's times, the prefix cache's tokens and the session */
    e.arrival = 1.25;
    e.admitted = 1.75;
    e.queue_s = 0.125;
    e.cached_tokens = 32;
    e.session = "c0ffee-1\xff";
    e.session_len = 9;
    buf_reset(&out);
    CHECK_INT(reqlog_format(&out, &e), 0);
    CHECK(strstr(buf_str(&out), "{\"id\":\"id-1\",\"arrival\":1.250000,\"received\":1.500000,"
                                "\"admitted\":1.750000,\"queue_s\":0.125000,") != NULL);
    CHECK(strstr(buf_str(&out), ",\"cached_tokens\":32,\"session\":\"c0ffee-1\xef\xbf\xbd\"}") !=
          NULL);
    CHECK(json_ok(&out));
    e.session = NULL;
    /* a streamed reply: the times its first and last token left, the api */
    e.first_token = 1.75;
    e.last_token = 2.125;
    e.api = "stream";
    buf_reset(&out);
    CHECK_INT(reqlog_format(&out, &e), 0);
    CHECK(strstr(buf_str(&out), "\"replied\":2.250000,\"first_token\":1.750000,"
                                "\"last_token\":2.125000,\"api\":\"stream\",") != NULL);
    /* a prompt past REQLOG_PROMPT_MAX is cut at a character's start */
    memset(prompt, 'a', sizeof prompt);
    prompt[REQLOG_PROMPT_MAX - 1] = (char)0xc3; /* é across the cut */
    prompt[REQLOG_PROMPT_MAX] = (char)0xa9;
    e.prompt = prompt;
    e.prompt_len = sizeof prompt;
    buf_reset(&out);
    CHECK_INT(reqlog_format(&out, &e), 0);
    CHECK(json_ok(&out));
    cJSON *j = cJSON_Parse(buf_str(&out));
    const cJSON *p = cJSON_GetObjectItem(j, "prompt");
    CHECK(cJSON_IsString(p) && strlen(p->valuestring) == REQLOG_PROMPT_MAX - 1);
    cJSON_Delete(j);
    buf_free(&out);
}

static void test_smerr(void) {
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    CHECK_INT(smerr_message(&out, "Variant v\xff not found"), 0);
    CHECK_STR(buf_str(&out), "{\"message\":\"Variant v\xef\xbf\xbd not found\"}");
    /* the OpenAI route's envelope: type by status, code from SageMaker's type */
    static const struct {
        int status;
        const char *type, *code, *want;
    } envelopes[] = {
        {400, "ValidationError", NULL,
         "{\"error\":{\"message\":\"m\",\"type\":\"invalid_request_error\",\"param\":null,"
         "\"code\":\"validation_error\"}}"},
        {429, "ThrottlingException", NULL,
         "{\"error\":{\"message\":\"m\",\"type\":\"invalid_request_error\",\"param\":null,"
         "\"code\":\"throttling\"}}"},
        {503, "ServiceUnavailable", NULL,
         "{\"error\":{\"message\":\"m\",\"type\":\"server_error\",\"param\":null,"
         "\"code\":\"service_unavailable\"}}"},
        {401, NULL, "invalid_api_key",
         "{\"error\":{\"message\":\"m\",\"type\":\"invalid_request_error\",\"param\":null,"
         "\"code\":\"invalid_api_key\"}}"},
        {404, NULL, NULL,
         "{\"error\":{\"message\":\"m\",\"type\":\"invalid_request_error\",\"param\":null,"
         "\"code\":null}}"},
    };
    for (size_t i = 0; i < sizeof envelopes / sizeof *envelopes; i++) {
        buf_reset(&out);
        CHECK_INT(
            smerr_openai(&out, envelopes[i].status, envelopes[i].type, envelopes[i].code, "m"), 0);
        CHECK_STR(buf_str(&out), envelopes[i].want);
    }
    buf_reset(&out);
    CHECK_INT(smerr_openai_model(&out, "us-east-1", "1", "ep", 400, "{}", 2), 0);
    CHECK(json_ok(&out) && strstr(buf_str(&out), "\"code\":\"model_error\"") &&
          strstr(buf_str(&out), "Received client error (400) from primary with message"));
    buf_reset(&out);
    CHECK_INT(smerr_model(&out, "us-east-1", "12\"34\xff", "ep", 400, "{\"error\":1}", 11), 0);
    CHECK(json_ok(&out));
    cJSON *j = cJSON_Parse(buf_str(&out));
    CHECK_STR(cJSON_GetObjectItem(j, "LogStreamArn")->valuestring,
              "arn:aws:logs:us-east-1:12\"34\xef\xbf\xbd:log-group:/aws/sagemaker/Endpoints/ep");
    CHECK_STR(cJSON_GetObjectItem(j, "ErrorCode")->valuestring, "CLIENT_ERROR_FROM_MODEL");
    CHECK_STR(cJSON_GetObjectItem(j, "OriginalMessage")->valuestring, "{\"error\":1}");
    CHECK_INT(cJSON_GetObjectItem(j, "OriginalStatusCode")->valueint, 400);
    cJSON_Delete(j);
    buf_reset(&out);
    CHECK_INT(smerr_model(&out, "us-east-1", "1", "ep", 0, "x", 1), 0);
    CHECK(strncmp(buf_str(&out), "{\"ErrorCode\":\"SERVER_ERROR_FROM_MODEL\",", 39) == 0);
    buf_free(&out);
}

static void test_fleet_json(void) {
    struct fleet f = {0};
    struct buf out, err;
    struct fleet_spec e = {"ep", "AllTraffic", "instant"};
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, 1024);
    CHECK_INT(fleet_add(&f, &e, NULL, &err), 0);
    snprintf(f.eps[0].variants[0].profile.name, MODEL_NAME_MAX, "odd\xff\"name");
    f.eps[0].counts.requests = 2;
    CHECK_INT(fleet_json(&out, &f, 0), 0);
    CHECK(json_ok(&out));
    CHECK(strstr(buf_str(&out),
                 ",\"profile\":\"odd\xef\xbf\xbd\\\"name\",\"prefix_cache\":{"
                 "\"capacity_tokens\":0,\"blocks\":0,\"lookups\":0,\"hits\":0,"
                 "\"prompt_tokens\":0,\"cached_tokens\":0,\"hit_rate\":0.000000,"
                 "\"evicted\":0},\"sessions\":{\"open\":0,\"created\":0,"
                 "\"closed\":0,\"expired\":0},\"scaling\":{\"serving\":1,"
                 "\"launching\":0,\"draining\":0,\"changes\":0,"
                 "\"instance_seconds\":0.000000,\"model_time\":0.000000}}}}}") != NULL);
    CHECK(strncmp(buf_str(&out), "{\"ep\":{\"requests\":2,", 20) == 0);
    fleet_free(&f);
    buf_free(&out);
    buf_free(&err);
}

int main(void) {
    test_tally();
    test_reqlog();
    test_smerr();
    test_fleet_json();
    return check_exit();
}
