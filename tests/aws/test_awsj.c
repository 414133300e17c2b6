/* awsj's pure parts: the service table, endpoints and targets, which failures
 * are retried and how long the waits are, scrubbing secrets, reading error
 * replies, the one-line error, next-page tokens; and a client refusing a bad
 * configuration before it sends anything. */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "awsj.h"
#include "cwlogs.h"
#include "cwmetrics.h"
#include "scrub.h"

#define SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define TOKEN  "FQoGZXIvYXdzEXAMPLETOKEN/0123456789abcdefghijklmnopqrstuvwxyz=="

static void test_services(void) {
    static const struct {
        enum awsj_service_id id;
        const char *name, *iam, *signing, *prefix, *target, *type;
        bool query_mode;
    } rows[] = {
        {AWSJ_SAGEMAKER, "sagemaker", "sagemaker", "sagemaker", "api.sagemaker", "SageMaker",
         "application/x-amz-json-1.1", false},
        {AWSJ_LOGS, "logs", "logs", "logs", "logs", "Logs_20140328", "application/x-amz-json-1.1",
         false},
        {AWSJ_SERVICE_QUOTAS, "service-quotas", "servicequotas", "servicequotas", "servicequotas",
         "ServiceQuotasV20190624", "application/x-amz-json-1.1", false},
        {AWSJ_CLOUDWATCH, "cloudwatch", "cloudwatch", "monitoring", "monitoring",
         "GraniteServiceVersion20100801", "application/x-amz-json-1.0", true},
        {AWSJ_AUTOSCALING, "application-autoscaling", "application-autoscaling",
         "application-autoscaling", "application-autoscaling", "AnyScaleFrontendService",
         "application/x-amz-json-1.1", false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const struct awsj_service *s = awsj_service(rows[i].id);
        CHECK(s != NULL);
        if (!s) continue;
        CHECK_STR(s->name, rows[i].name);
        CHECK_STR(s->iam_prefix, rows[i].iam);
        CHECK_STR(s->signing_name, rows[i].signing);
        CHECK_STR(s->endpoint_prefix, rows[i].prefix);
        CHECK_STR(s->target_prefix, rows[i].target);
        CHECK_STR(s->content_type, rows[i].type);
        CHECK_INT(s->query_mode, rows[i].query_mode);
    }
    CHECK(awsj_service(AWSJ_N_SERVICES) == NULL);
    CHECK(awsj_service((enum awsj_service_id) - 1) == NULL);
}

static void test_endpoints_and_targets(void) {
    static const struct {
        enum awsj_service_id id;
        const char *region, *url;
    } urls[] = {
        {AWSJ_SAGEMAKER, "us-east-1", "https://api.sagemaker.us-east-1.amazonaws.com/"},
        {AWSJ_LOGS, "eu-west-1", "https://logs.eu-west-1.amazonaws.com/"},
        {AWSJ_SERVICE_QUOTAS, "us-east-2", "https://servicequotas.us-east-2.amazonaws.com/"},
        {AWSJ_CLOUDWATCH, "us-west-2", "https://monitoring.us-west-2.amazonaws.com/"},
        {AWSJ_AUTOSCALING, "eu-west-3", "https://application-autoscaling.eu-west-3.amazonaws.com/"},
        {AWSJ_LOGS, "cn-north-1", "https://logs.cn-north-1.amazonaws.com.cn/"},
        {AWSJ_LOGS, "us-gov-west-1", "https://logs.us-gov-west-1.amazonaws.com/"},
        {AWSJ_LOGS, "US-EAST-1", NULL},
        {AWSJ_LOGS, "", NULL},
        {AWSJ_LOGS, "us-east-1/x", NULL},
        {AWSJ_LOGS, "us east", NULL},
    };
    static const struct {
        enum awsj_service_id id;
        const char *op, *target;
    } targets[] = {
        {AWSJ_SAGEMAKER, "DescribeEndpoint", "SageMaker.DescribeEndpoint"},
        {AWSJ_LOGS, "FilterLogEvents", "Logs_20140328.FilterLogEvents"},
        {AWSJ_SERVICE_QUOTAS, "ListServiceQuotas", "ServiceQuotasV20190624.ListServiceQuotas"},
        {AWSJ_CLOUDWATCH, "GetMetricData", "GraniteServiceVersion20100801.GetMetricData"},
        {AWSJ_LOGS, "A", "Logs_20140328.A"},
        {AWSJ_LOGS, "GetV2", "Logs_20140328.GetV2"},
        {AWSJ_LOGS, "filterLogEvents", NULL},
        {AWSJ_LOGS, "", NULL},
        {AWSJ_LOGS, "Filter-Log", NULL},
        {AWSJ_LOGS, "Filter Log", NULL},
        {AWSJ_LOGS, "Filter\r\nX-Evil: 1", NULL},
        {AWSJ_LOGS, "1Filter", NULL},
        {AWSJ_LOGS, "Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
         NULL}, /* 65 */
    };
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
        int rc = awsj_endpoint(awsj_service(urls[i].id), urls[i].region, &b);
        CHECK_INT(rc, urls[i].url ? AWSJ_OK : AWSJ_ERR_INPUT);
        if (urls[i].url) CHECK_STR(buf_str(&b), urls[i].url);
    }
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
        int rc = awsj_target(awsj_service(targets[i].id), targets[i].op, &b);
        CHECK_INT(rc, targets[i].target ? AWSJ_OK : AWSJ_ERR_INPUT);
        if (targets[i].target) CHECK_STR(buf_str(&b), targets[i].target);
    }
    CHECK_INT(awsj_target(awsj_service(AWSJ_LOGS), NULL, &b), AWSJ_ERR_INPUT);
    buf_free(&b);
}

static void test_retry_kinds(void) {
    static const struct {
        long status;
        const char *code;
        bool no_reply;
        enum awsj_retry want;
    } rows[] = {
        {400, "ThrottlingException", false, AWSJ_RETRY_THROTTLE},
        {400, "Throttling", false, AWSJ_RETRY_THROTTLE},
        {400, "ThrottledException", false, AWSJ_RETRY_THROTTLE},
        {400, "TooManyRequestsException", false, AWSJ_RETRY_THROTTLE},
        {400, "RequestLimitExceeded", false, AWSJ_RETRY_THROTTLE},
        {400, "ProvisionedThroughputExceededException", false, AWSJ_RETRY_THROTTLE},
        {400, "RequestThrottled", false, AWSJ_RETRY_THROTTLE},
        {400, "LimitExceededException", false, AWSJ_RETRY_THROTTLE},
        {503, "SlowDown", false, AWSJ_RETRY_THROTTLE},
        {400, "PriorRequestNotComplete", false, AWSJ_RETRY_THROTTLE},
        {429, NULL, false, AWSJ_RETRY_THROTTLE},
        {429, "", false, AWSJ_RETRY_THROTTLE},
        {408, "RequestTimeout", false, AWSJ_RETRY_TRANSIENT},
        {400, "RequestTimeoutException", false, AWSJ_RETRY_TRANSIENT},
        {500, "InternalFailure", false, AWSJ_RETRY_TRANSIENT},
        {502, NULL, false, AWSJ_RETRY_TRANSIENT},
        {503, "ServiceUnavailable", false, AWSJ_RETRY_TRANSIENT},
        {504, "", false, AWSJ_RETRY_TRANSIENT},
        {0, NULL, true, AWSJ_RETRY_TRANSIENT},
        {400, "AccessDeniedException", false, AWSJ_RETRY_NO},
        {400, "ValidationException", false, AWSJ_RETRY_NO},
        {400, "ResourceLimitExceeded", false, AWSJ_RETRY_NO}, /* a quota, not a throttle */
        {403, "UnrecognizedClientException", false, AWSJ_RETRY_NO},
        {404, NULL, false, AWSJ_RETRY_NO},
        {501, "NotImplemented", false, AWSJ_RETRY_NO},
        {400, "throttlingexception", false, AWSJ_RETRY_NO}, /* codes match exactly */
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        enum awsj_retry got = awsj_retry_kind(rows[i].status, rows[i].code, rows[i].no_reply);
        if (got != rows[i].want)
            fprintf(stderr, "row %zu: %ld %s\n", i, rows[i].status,
                    rows[i].code ? rows[i].code : "(null)");
        CHECK_INT(got, rows[i].want);
    }
}

static void test_backoff(void) {
    /* The ceiling of retry n: base * 2^(n-1) up to 20 s; the wait r times it. */
    static const long throttle[] = {1000, 2000, 4000, 8000, 16000, 20000, 20000, 20000};
    static const long transient[] = {100, 200, 400, 800, 1600, 3200, 6400, 12800, 20000, 20000};
    static const double rs[] = {0, 0.25, 0.5, 0.999999};
    for (size_t n = 1; n <= sizeof throttle / sizeof *throttle; n++)
        for (size_t k = 0; k < sizeof rs / sizeof *rs; k++) {
            long got = awsj_backoff_ms(AWSJ_RETRY_THROTTLE, (int)n, rs[k]);
            CHECK_INT(got, (long)(rs[k] * (double)throttle[n - 1]));
            CHECK(got >= 0 && got < throttle[n - 1]);
        }
    for (size_t n = 1; n <= sizeof transient / sizeof *transient; n++)
        for (size_t k = 0; k < sizeof rs / sizeof *rs; k++) {
            long got = awsj_backoff_ms(AWSJ_RETRY_TRANSIENT, (int)n, rs[k]);
            CHECK_INT(got, (long)(rs[k] * (double)transient[n - 1]));
            CHECK(got >= 0 && got < transient[n - 1]);
        }
    CHECK_INT(awsj_backoff_ms(AWSJ_RETRY_THROTTLE, 1000, 0.5), 10000);
    CHECK_INT(awsj_backoff_ms(AWSJ_RETRY_THROTTLE, 1, 1.0), 999); /* a bad rng stays under */
    CHECK_INT(awsj_backoff_ms(AWSJ_RETRY_THROTTLE, 1, -0.5), 0);
    CHECK_INT(awsj_backoff_ms(AWSJ_RETRY_THROTTLE, 1, NAN), 0);
}

static void test_scrub(void) {
    static const struct {
        const char *text, *want;
    } rows[] = {
        {"nothing here", "nothing here"},
        {"", ""},
        {"token " TOKEN " is bad", "token <redacted> is bad"},
        {TOKEN TOKEN, "<redacted><redacted>"},
        {"key=" SECRET, "key=<redacted>"},
        {"both " SECRET "/" TOKEN ".", "both <redacted>/<redacted>."},
        {"cut FQoGZXIvYXdzEX", "cut <redacted>"},    /* the first 12 and more */
        {"cut FQoGZXIvYXdz", "cut <redacted>"},      /* exactly 12 */
        {"short FQoGZXIvYXd", "short FQoGZXIvYXd"},  /* 11: not an echo */
        {"wJalrXUtnFEMI/K7MDENGxx", "<redacted>xx"}, /* the echo ends where it stops matching */
        {"FQoGZXIvYXdzEXAMPLE-then", "<redacted>-then"},
        {"EXAMPLEKEY alone", "EXAMPLEKEY alone"}, /* the middle of a secret is not an echo */
    };
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        buf_reset(&b);
        CHECK_INT(scrub_append(&b, rows[i].text, strlen(rows[i].text)), 0);
        CHECK_STR(buf_str(&b), rows[i].want);
    }
    buf_free(&b);
}

static char long_message[2048];

static void test_parse_error(void) {
    static const struct {
        const char *query_error, *error_type, *body, *code, *message;
    } rows[] = {
        {NULL, NULL, "{\"__type\":\"AccessDeniedException\",\"message\":\"User: x\"}",
         "AccessDeniedException", "User: x"},
        {NULL, NULL,
         "{\"__type\":\"com.amazonaws.logs#ResourceNotFoundException\","
         "\"Message\":\"The specified log group does not exist.\"}",
         "ResourceNotFoundException", "The specified log group does not exist."},
        {NULL, "ValidationException:http://internal.amazon.com/coral/com.amazon.coral.validate/",
         "{\"__type\":\"Other\",\"message\":\"m\"}", "ValidationException", "m"},
        {NULL, "aws.protocoltests#FooError:http://x/", "{}", "FooError", ""},
        {"ResourceNotFound;Sender", "ResourceNotFoundException", "{\"message\":\"gone\"}",
         "ResourceNotFound", "gone"},
        {"", "ThrottlingException", "{}", "ThrottlingException", ""},
        {NULL, NULL, "{\"code\":\"ModelError\",\"message\":\"a\\nb\\u0007c\"}", "ModelError",
         "a b c"},
        {NULL, NULL, "{\"message\":\"only a message\"}", "", "only a message"},
        {NULL, NULL, "<html><body>Bad Gateway</body></html>", "", ""},
        {NULL, NULL, "[\"__type\"]", "", ""},
        {NULL, NULL, "{\"__type\":7,\"message\":false}", "", ""},
        {NULL, NULL, "", "", ""},
        {NULL, NULL, "{\"__type\":\"X\",\"message\":\"The security token " TOKEN " is invalid\"}",
         "X", "The security token <redacted> is invalid"},
        {NULL, "Evil" SECRET ":x", "{}", "Evil<redacted>", ""},
        {NULL, NULL, "{\"message\":\"escaped FQoGZXIvYXdzEXAMPLETOKEN\\/0123\"}", "",
         "escaped <redacted>"},
    };
    struct awsj_reply_error e;
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        memset(&e, 'x', sizeof e);
        awsj_parse_error(rows[i].query_error, rows[i].error_type, rows[i].body,
                         strlen(rows[i].body), &e);
        CHECK_STR(e.code, rows[i].code);
        CHECK_STR(e.message, rows[i].message);
    }
    /* A long message is cut after scrubbing: a token past the cut is not half-kept. */
    struct buf body;
    buf_init(&body, BUF_NO_CAP);
    memset(long_message, 'm', 508);
    long_message[508] = '\0';
    CHECK_INT(buf_addf(&body, "{\"message\":\"%s " TOKEN " and more\"}", long_message), 0);
    awsj_parse_error(NULL, NULL, body.data, body.len, &e);
    CHECK_INT(strlen(e.message), AWSJ_MESSAGE_MAX + 3);
    CHECK(strncmp(e.message + 508, " <re...", 8) == 0);
    CHECK(strstr(e.message, "FQoG") == NULL);
    /* A cut never splits a UTF-8 character. */
    buf_reset(&body);
    memset(long_message, 'm', 511);
    long_message[511] = '\0';
    CHECK_INT(buf_addf(&body, "{\"message\":\"%s\xc3\xa9\xc3\xa9\"}", long_message), 0);
    awsj_parse_error(NULL, NULL, body.data, body.len, &e);
    CHECK_INT(strlen(e.message), 511 + 3);
    CHECK_STR(e.message + 511, "...");
    /* A code is at most 127 bytes. */
    buf_reset(&body);
    memset(long_message, 'C', 300);
    long_message[300] = '\0';
    awsj_parse_error(NULL, long_message, "{}", 2, &e);
    CHECK_INT(strlen(e.code), AWSJ_CODE_MAX - 1);
    buf_free(&body);
}

static void test_error_line(void) {
    static const struct awsj_reply_error denied = {
        "AccessDeniedException",
        "User: arn:aws:iam::123456789012:user/bench is not authorized to perform: "
        "logs:FilterLogEvents"};
    static const struct awsj_reply_error bare = {"", ""}, nomsg = {"ThrottlingException", ""};
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    CHECK_INT(awsj_error_line(&b, awsj_service(AWSJ_LOGS), "FilterLogEvents", &denied, 400, 1), 0);
    CHECK_STR(buf_str(&b), "logs FilterLogEvents: AccessDeniedException: User: "
                           "arn:aws:iam::123456789012:user/bench is not authorized to perform: "
                           "logs:FilterLogEvents (HTTP 400)");
    CHECK_INT(awsj_error_line(&b, awsj_service(AWSJ_SAGEMAKER), "DescribeEndpoint", &bare, 502, 3),
              0);
    CHECK_STR(buf_str(&b), "sagemaker DescribeEndpoint: error (HTTP 502, 3 attempts)");
    CHECK_INT(
        awsj_error_line(&b, awsj_service(AWSJ_SERVICE_QUOTAS), "GetServiceQuota", &nomsg, 400, 2),
        0);
    CHECK_STR(buf_str(&b),
              "service-quotas GetServiceQuota: ThrottlingException (HTTP 400, 2 attempts)");
    buf_free(&b);
}

static void test_tokens(void) {
    static const struct {
        const char *reply, *key;
        int rc;
        const char *token;
    } next[] = {
        {"{\"events\":[],\"nextToken\":\"t1\"}", "nextToken", AWSJ_OK, "t1"},
        {"{\"NextToken\":\"abc/+=\"}", "NextToken", AWSJ_OK, "abc/+="},
        {"{\"events\":[]}", "nextToken", AWSJ_OK, ""},
        {"{\"nextToken\":null}", "nextToken", AWSJ_OK, ""},
        {"{\"nextToken\":\"\"}", "nextToken", AWSJ_OK, ""},
        {"{\"NextToken\":\"x\"}", "nextToken", AWSJ_OK, ""}, /* the key's case matters */
        {"{\"nextToken\":5}", "nextToken", AWSJ_ERR_REPLY, ""},
        {"{\"nextToken\":{}}", "nextToken", AWSJ_ERR_REPLY, ""},
        {"[1,2]", "nextToken", AWSJ_ERR_REPLY, ""},
        {"not json", "nextToken", AWSJ_ERR_REPLY, ""},
        {"", "nextToken", AWSJ_ERR_REPLY, ""},
    };
    static const struct {
        const char *request;
        int rc;
        const char *want;
    } with[] = {
        {NULL, AWSJ_OK, "{\"nextToken\":\"t\\\"1\"}"},
        {"{}", AWSJ_OK, "{\"nextToken\":\"t\\\"1\"}"},
        {"{\"logGroupName\":\"/aws/x\",\"limit\":5}", AWSJ_OK,
         "{\"logGroupName\":\"/aws/x\",\"limit\":5,\"nextToken\":\"t\\\"1\"}"},
        {"{\"nextToken\":\"old\",\"a\":1,\"nextToken\":\"older\"}", AWSJ_OK,
         "{\"a\":1,\"nextToken\":\"t\\\"1\"}"},
        {"[]", AWSJ_ERR_INPUT, ""},
        {"{", AWSJ_ERR_INPUT, ""},
    };
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof next / sizeof *next; i++) {
        CHECK_INT(awsj_next_token(next[i].reply, strlen(next[i].reply), next[i].key, &b),
                  next[i].rc);
        CHECK_STR(buf_str(&b), next[i].token);
    }
    for (size_t i = 0; i < sizeof with / sizeof *with; i++) {
        CHECK_INT(awsj_with_token(with[i].request, "nextToken", "t\"1", &b), with[i].rc);
        CHECK_STR(buf_str(&b), with[i].want);
    }
    buf_free(&b);
}

static void test_bad_config(void) {
    static const struct {
        const char *region, *url, *err;
        int max_attempts;
    } rows[] = {
        {NULL, NULL, "aws client: no region, or not a region name such as us-east-1", 0},
        {"Us-East-1", NULL, "aws client: no region, or not a region name such as us-east-1", 0},
        {"us-east-1", "ftp://127.0.0.1/", "aws endpoint URL is not http:// or https://", 0},
        {"us-east-1", "http://", "aws endpoint URL is not a URL such as http://127.0.0.1:8080", 0},
        {"us-east-1", "http://127.0.0.1/?a=b", "aws endpoint URL has a query, user or fragment", 0},
        {"us-east-1", "http://u:p@127.0.0.1/", "aws endpoint URL has a query, user or fragment", 0},
        {"us-east-1", NULL, "aws client: max_attempts and timeout_ms must not be negative", -1},
    };
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct awsj_config cfg = {.region = rows[i].region,
                                  .endpoint_url = rows[i].url,
                                  .max_attempts = rows[i].max_attempts};
        struct awsj_client *c = (struct awsj_client *)&cfg;
        CHECK_INT(awsj_client_new(&cfg, &c, &err), AWSJ_ERR_INPUT);
        CHECK(c == NULL);
        CHECK_STR(buf_str(&err), rows[i].err);
    }
    /* A bad operation or service is refused before anything is sent (port 1 is closed). */
    struct awsj_config cfg = {.region = "us-east-1", .endpoint_url = "http://127.0.0.1:1"};
    struct awsj_client *c;
    struct buf reply;
    buf_init(&reply, BUF_NO_CAP);
    CHECK_INT(awsj_client_new(&cfg, &c, &err), AWSJ_OK);
    CHECK_INT(awsj_call(c, AWSJ_LOGS, "filter-log-events", "{}", &reply, &err), AWSJ_ERR_INPUT);
    CHECK_STR(buf_str(&err),
              "logs: not an operation name (a capital letter, then letters and digits)");
    CHECK_INT(awsj_last(c)->attempts, 0);
    CHECK_INT(awsj_call(c, AWSJ_N_SERVICES, "X", "{}", &reply, &err), AWSJ_ERR_INPUT);
    CHECK_STR(buf_str(&err), "aws: unknown service");
    CHECK_INT(awsj_paginate(c, AWSJ_LOGS, "FilterLogEvents", "{}", "", 5, NULL, NULL, &err),
              AWSJ_ERR_INPUT);
    awsj_client_free(c);
    buf_free(&reply);
    buf_free(&err);
}

/* The CloudWatch requests, exactly: FilterLogEvents' members (only those given),
 * GetMetricData's queries with their dimensions, period and statistic. */
static void test_cloudwatch_requests(void) {
    struct buf out, err;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    struct cwlogs_query q = {"gemma-4-e2b", "bf16/", 1000, 2000, "?\"a b\" ?c", 50};
    CHECK_INT(cwlogs_request(&q, &out, &err), 0);
    CHECK_STR(buf_str(&out), "{\"logGroupName\":\"/aws/sagemaker/Endpoints/gemma-4-e2b\","
                             "\"startTime\":1000,\"endTime\":2000,\"logStreamNamePrefix\":"
                             "\"bf16/\",\"filterPattern\":\"?\\\"a b\\\" ?c\",\"limit\":50}");
    struct cwlogs_query plain = {"e", NULL, 0, 0, NULL, 0};
    CHECK_INT(cwlogs_request(&plain, &out, &err), 0);
    CHECK_STR(buf_str(&out), "{\"logGroupName\":\"/aws/sagemaker/Endpoints/e\",\"startTime\":0,"
                             "\"limit\":10000}");
    static const struct cwlogs_query bad[] = {
        {"e_1", NULL, 0, 0, NULL, 0}, {"e", NULL, 5, 4, NULL, 0}, {"e", NULL, 0, 0, NULL, 10001}};
    static const char *const why[] = {"'e_1' is not an endpoint name",
                                      "the log window 5 to 4 ms is not a window",
                                      "10001 events a page is not 1 to 10000"};
    for (size_t i = 0; i < 3; i++) {
        CHECK_INT(cwlogs_request(&bad[i], &out, &err), AWSJ_ERR_INPUT);
        CHECK_STR(buf_str(&err), why[i]);
    }
    struct cwmetrics_query m = {"gemma-4-e2b", NULL, 1790361600, 1790361660.5, 0};
    CHECK_INT(cwmetrics_request(&m, &out, &err), 0);
    const char *inv = "{\"MetricDataQueries\":[{\"Id\":\"invocations\",\"MetricStat\":{\"Metric\":{"
                      "\"Namespace\":\"AWS/SageMaker\",\"MetricName\":\"Invocations\","
                      "\"Dimensions\":[{\"Name\":\"EndpointName\",\"Value\":\"gemma-4-e2b\"},"
                      "{\"Name\":\"VariantName\",\"Value\":\"AllTraffic\"}]},\"Period\":60,"
                      "\"Stat\":\"Sum\"},\"ReturnData\":true},";
    CHECK(strncmp(buf_str(&out), inv, strlen(inv)) == 0);
    CHECK(strstr(buf_str(&out), "\"MetricName\":\"GPUUtilization\",") != NULL);
    CHECK(strstr(buf_str(&out), "\"MetricName\":\"OverheadLatency\",") != NULL);
    const char *tail = "],\"StartTime\":1790361600.000,\"EndTime\":1790361660.500,"
                       "\"ScanBy\":\"TimestampAscending\"}";
    CHECK_STR(buf_str(&out) + out.len - strlen(tail), tail);
    struct cwmetrics_query v = {"e", "bf16", 0, 0, 300};
    CHECK_INT(cwmetrics_queries(&v, &out, &err), 0);
    CHECK(out.data[0] == '[' && strstr(buf_str(&out), "\"Value\":\"bf16\"}]},\"Period\":300,"));
    CHECK_INT(cwmetrics_request(&v, &out, &err), AWSJ_ERR_INPUT); /* no window */
    struct cwmetrics_query badv = {"e", "b f", 0, 1, 0};
    CHECK_INT(cwmetrics_request(&badv, &out, &err), AWSJ_ERR_INPUT);
    CHECK_STR(buf_str(&err), "'b f' is not a variant name");
    buf_free(&out);
    buf_free(&err);
}

int main(void) {
    if (scrub_add(SECRET) || scrub_add(TOKEN)) return 1; /* as the credential chain does */
    test_services();
    test_endpoints_and_targets();
    test_retry_kinds();
    test_backoff();
    test_scrub();
    test_parse_error();
    test_error_line();
    test_tokens();
    test_bad_config();
    test_cloudwatch_requests();
    return check_exit();
}
