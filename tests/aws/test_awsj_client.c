/* awsj's client against a fake AWS JSON service (fake_awsjson.py) that checks
 * every request's target, content type and SigV4 signature with botocore and
 * plays scripted replies. The clock, the sleeps and the randomness are
 * injected: nothing sleeps, and each wait asked for is checked exactly.
 *
 * usage: test_awsj_client PYTHON FAKE_AWSJSON_PY */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../check.h"
#include "awsj.h"
#include "cwlogs.h"
#include "cwmetrics.h"

#define CLOCK     1796034526 /* 2026-11-30T10:28:46Z, the fake server's time */
#define CLOCK_AMZ "20261130T102846Z"
#define AKID      "AKIDAWSJTEST"
#define SECRET    "awsjSECRETkey/0123456789+abcdefghijklmnopq"
#define TOKEN     "AWSJsessionTOKEN/0123456789+abcdefghijklmnopqrstuvwxyz=="
#define DENIED_MSG                                                                                 \
    "User: arn:aws:iam::123456789012:user/bench is not authorized to perform: "                    \
    "logs:FilterLogEvents on resource: arn:aws:logs:us-east-1:123456789012:log-group:"             \
    "/aws/sagemaker/Endpoints/ep because no identity-based policy allows the "                     \
    "logs:FilterLogEvents action"

extern char **environ;

static char url[64]; /* http://127.0.0.1:PORT of the fake server */

/* The injected clock, sleep and randomness. */
struct fake {
    time_t now;
    long sleeps[16];
    int n_sleeps;
    double rs[16]; /* the random numbers to hand out, in order */
    int n_rs, next_r;
};

static time_t fake_now(void *ud) {
    return ((struct fake *)ud)->now;
}

static void fake_sleep(void *ud, long ms) {
    struct fake *f = ud;
    if (f->n_sleeps < 16) f->sleeps[f->n_sleeps] = ms;
    f->n_sleeps++;
}

static double fake_random(void *ud) {
    struct fake *f = ud;
    if (f->next_r >= f->n_rs) {
        fprintf(stderr, "more random numbers asked for than scripted\n");
        check_failed++;
        return 0;
    }
    return f->rs[f->next_r++];
}

static pid_t server_start(const char *python, const char *script, int *in_fd) {
    int in[2], out[2];
    pid_t pid;
    char clock[32];
    snprintf(clock, sizeof clock, "%d", CLOCK);
    char *argv[] = {(char *)python,  (char *)script, "--key",
                    AKID "=" SECRET, "--token",      AKID "=" TOKEN,
                    "--clock",       clock,          NULL};
    posix_spawn_file_actions_t fa;
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || posix_spawn_file_actions_init(&fa) ||
        posix_spawn_file_actions_adddup2(&fa, in[0], 0) ||
        posix_spawn_file_actions_adddup2(&fa, out[1], 1) ||
        posix_spawn(&pid, python, &fa, NULL, argv, environ))
        abort();
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    char line[32] = "";
    size_t n = 0;
    while (n < sizeof line - 1 && !strchr(line, '\n')) { /* the port, once it listens */
        ssize_t got = read(out[0], line + n, sizeof line - 1 - n);
        if (got <= 0) break;
        n += (size_t)got;
    }
    close(out[0]);
    long port = strtol(line, NULL, 10);
    if (port <= 0 || port > 65535) abort();
    snprintf(url, sizeof url, "http://127.0.0.1:%ld", port);
    *in_fd = in[1];
    return pid;
}

static void env_creds(bool with_keys) {
    static const char *const vars[] = {"AWS_PROFILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                                       "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_REGION",
                                       "AWS_DEFAULT_REGION"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) unsetenv(vars[i]);
    setenv("AWS_CONFIG_FILE", "/nonexistent", 1);
    setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent", 1);
    setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
    if (with_keys) {
        setenv("AWS_ACCESS_KEY_ID", AKID, 1);
        setenv("AWS_SECRET_ACCESS_KEY", SECRET, 1);
        setenv("AWS_SESSION_TOKEN", TOKEN, 1);
    } else {
        unsetenv("AWS_ACCESS_KEY_ID");
        unsetenv("AWS_SECRET_ACCESS_KEY");
        unsetenv("AWS_SESSION_TOKEN");
    }
}

/* A client of the fake server with f's clock (and rs, the random numbers). */
static struct awsj_client *client(struct fake *f, time_t now, const double *rs, int n_rs) {
    struct awsj_config cfg = {.region = "us-east-1",
                              .endpoint_url = url,
                              .now = fake_now,
                              .sleep_ms = fake_sleep,
                              .random = fake_random,
                              .ud = f};
    struct awsj_client *c = NULL;
    struct buf err;
    *f = (struct fake){.now = now, .n_rs = n_rs};
    for (int i = 0; i < n_rs; i++) f->rs[i] = rs[i];
    buf_init(&err, BUF_NO_CAP);
    if (awsj_client_new(&cfg, &c, &err)) {
        fprintf(stderr, "awsj_client_new: %s\n", buf_str(&err));
        abort();
    }
    buf_free(&err);
    return c;
}

/* Fails the test when text holds the secret key or session token, whole or
 * their first 12 characters. */
static void no_leak(const char *what, const char *text) {
    static const char *const secrets[] = {SECRET, TOKEN};
    for (size_t i = 0; i < 2; i++) {
        if (memmem(text, strlen(text), secrets[i], 12)) {
            fprintf(stderr, "%s: a secret leaked\n", what);
            check_failed++;
        }
    }
}

/* Calls svc's op with {"case": name}; the reply and error are checked for leaks. */
static int call(struct awsj_client *c, enum awsj_service_id svc, const char *op, const char *name,
                struct buf *reply, struct buf *err) {
    char req[128];
    snprintf(req, sizeof req, "{\"case\":\"%s\",\"Name\":\"ep\"}", name);
    int rc = awsj_call(c, svc, op, req, reply, err);
    no_leak("err", buf_str(err));
    no_leak("reply", buf_str(reply));
    return rc;
}

/* The string at key of a JSON reply; "" when absent (the result is copied to a static buffer). */
static const char *reply_str(const struct buf *reply, const char *key) {
    static char out[256];
    cJSON *root = cJSON_ParseWithLength(reply->data ? reply->data : "", reply->len);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    snprintf(out, sizeof out, "%s", cJSON_IsString(v) ? v->valuestring : "");
    cJSON_Delete(root);
    return out;
}

/* The service of the credential scope the server saw. */
static const char *reply_scope_service(const struct buf *reply) {
    static char out[64];
    cJSON *root = cJSON_ParseWithLength(reply->data ? reply->data : "", reply->len);
    const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "scope"), 2);
    snprintf(out, sizeof out, "%s", cJSON_IsString(v) ? v->valuestring : "");
    cJSON_Delete(root);
    return out;
}

/* How many requests of a case the server saw (it counts only well-signed ones). */
static int server_count(const char *name) {
    struct fake f;
    struct awsj_client *c = client(&f, CLOCK, NULL, 0);
    struct buf reply, err;
    buf_init(&reply, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    int n = -1;
    if (call(c, AWSJ_LOGS, "FilterLogEvents", "counts", &reply, &err) == 0) {
        cJSON *root = cJSON_ParseWithLength(reply.data, reply.len);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "counts"), name);
        n = cJSON_IsNumber(v) ? v->valueint : 0;
        cJSON_Delete(root);
    }
    buf_free(&reply);
    buf_free(&err);
    awsj_client_free(c);
    return n;
}

static void test_each_service(void) {
    static const struct {
        enum awsj_service_id id;
        const char *op, *target, *service, *query_mode;
    } rows[] = {
        {AWSJ_SAGEMAKER, "DescribeEndpoint", "SageMaker.DescribeEndpoint", "sagemaker", ""},
        {AWSJ_LOGS, "FilterLogEvents", "Logs_20140328.FilterLogEvents", "logs", ""},
        {AWSJ_SERVICE_QUOTAS, "ListServiceQuotas", "ServiceQuotasV20190624.ListServiceQuotas",
         "servicequotas", ""},
        {AWSJ_CLOUDWATCH, "GetMetricData", "GraniteServiceVersion20100801.GetMetricData",
         "monitoring", "true"},
    };
    struct fake f;
    struct awsj_client *c = client(&f, CLOCK, NULL, 0);
    struct buf reply, err;
    buf_init(&reply, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        CHECK_INT(call(c, rows[i].id, rows[i].op, "ok", &reply, &err), AWSJ_OK);
        CHECK_STR(buf_str(&err), "");
        CHECK_STR(reply_str(&reply, "target"), rows[i].target);
        CHECK_STR(reply_str(&reply, "amz_date"), CLOCK_AMZ);
        CHECK_STR(reply_str(&reply, "query_mode"), rows[i].query_mode);
        CHECK_STR(reply_scope_service(&reply), rows[i].service);
        CHECK_INT(awsj_last(c)->attempts, 1);
        CHECK_INT(awsj_last(c)->http_status, 200);
        CHECK_STR(awsj_last(c)->code, "");
        CHECK(strncmp(awsj_last(c)->request_id, "req-", 4) == 0);
    }
    /* An operation with no output may answer with an empty body. */
    CHECK_INT(call(c, AWSJ_SAGEMAKER, "DeleteEndpoint", "empty", &reply, &err), AWSJ_OK);
    CHECK_INT(reply.len, 0);
    CHECK_INT(f.n_sleeps, 0);
    /* A request the server cannot read is its error, not the client's. */
    CHECK_INT(awsj_call(c, AWSJ_LOGS, "FilterLogEvents", "[1]", &reply, &err), AWSJ_ERR_SERVICE);
    CHECK_STR(buf_str(&err), "logs FilterLogEvents: SerializationException: the body is not a "
                             "JSON object (HTTP 400)");
    buf_free(&reply);
    buf_free(&err);
    awsj_client_free(c);
}

/* What the page callback saw. */
struct pages {
    int n, stop_at, fail_at;
    char got[8][16]; /* the token each page was asked with ("-" for none) */
    char events[64]; /* every page's events, joined */
};

static int on_page(void *ud, const char *page, size_t len, struct buf *err) {
    struct pages *p = ud;
    cJSON *root = cJSON_ParseWithLength(page, len);
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(root, "got"), *e;
    if (p->n < 8)
        snprintf(p->got[p->n], sizeof p->got[0], "%s",
                 cJSON_IsString(got) ? got->valuestring : "-");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "events")) {
        size_t n = strlen(p->events);
        snprintf(p->events + n, sizeof p->events - n, "%s ",
                 cJSON_IsString(e) ? e->valuestring : "?");
    }
    cJSON_Delete(root);
    p->n++;
    if (p->n == p->fail_at) return buf_adds(err, "the callback failed") ? -1 : -42;
    return p->n == p->stop_at ? 1 : 0;
}

static void test_pages(void) {
    struct fake f;
    struct awsj_client *c = client(&f, CLOCK, NULL, 0);
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    struct pages p = {0};
    CHECK_INT(awsj_paginate(c, AWSJ_LOGS, "FilterLogEvents",
                            "{\"case\":\"pages\",\"logGroupName\":\"/aws/sagemaker/Endpoints/ep\"}",
                            "nextToken", 10, on_page, &p, &err),
              AWSJ_OK);
    CHECK_STR(buf_str(&err), "");
    CHECK_INT(p.n, 3);
    CHECK_STR(p.got[0], "-");
    CHECK_STR(p.got[1], "t1");
    CHECK_STR(p.got[2], "t2");
    CHECK_STR(p.events, "e1 e2 e3 e4 ");
    /* SageMaker's key is NextToken. */
    p = (struct pages){0};
    CHECK_INT(awsj_paginate(c, AWSJ_SAGEMAKER, "ListEndpoints", "{\"case\":\"pages\"}", "NextToken",
                            3, on_page, &p, &err),
              AWSJ_OK);
    CHECK_INT(p.n, 3);
    CHECK_STR(p.got[2], "t2");
    /* Stopped by the callback, or failed by it. */
    p = (struct pages){.stop_at = 2};
    CHECK_INT(awsj_paginate(c, AWSJ_LOGS, "FilterLogEvents", "{\"case\":\"pages\"}", "nextToken",
                            10, on_page, &p, &err),
              AWSJ_OK);
    CHECK_INT(p.n, 2);
    p = (struct pages){.fail_at = 1};
    CHECK_INT(awsj_paginate(c, AWSJ_LOGS, "FilterLogEvents", "{\"case\":\"pages\"}", "nextToken",
                            10, on_page, &p, &err),
              -42);
    CHECK_STR(buf_str(&err), "the callback failed");
    /* The page cap, a token repeated, a page that is not an object. */
    p = (struct pages){0};
    CHECK_INT(awsj_paginate(c, AWSJ_LOGS, "FilterLogEvents", "{\"case\":\"endless\"}", "nextToken",
                            3, on_page, &p, &err),
              AWSJ_ERR_PAGES);
    CHECK_INT(p.n, 3);
    CHECK_STR(buf_str(&err), "logs FilterLogEvents: more than 3 pages (nextToken goes on)");
    p = (struct pages){0};
    CHECK_INT(awsj_paginate(c, AWSJ_LOGS, "FilterLogEvents", "{\"case\":\"repeat\"}", "nextToken",
                            10, on_page, &p, &err),
              AWSJ_ERR_PAGES);
    CHECK_INT(p.n, 2);
    CHECK_STR(buf_str(&err), "logs FilterLogEvents: page 2 repeats the nextToken it was asked for");
    p = (struct pages){0};
    CHECK_INT(awsj_paginate(c, AWSJ_LOGS, "FilterLogEvents", "{\"case\":\"notjson-page\"}",
                            "nextToken", 10, on_page, &p, &err),
              AWSJ_ERR_REPLY);
    CHECK_INT(p.n, 0);
    CHECK_STR(buf_str(&err),
              "logs FilterLogEvents: page 1 is not a JSON object with a string nextToken");
    CHECK_INT(f.n_sleeps, 0);
    buf_free(&err);
    awsj_client_free(c);
}

static void test_throttling(void) {
    static const double rs[] = {0.5, 0.75};
    struct fake f;
    struct awsj_client *c = client(&f, CLOCK, rs, 2);
    struct buf reply, err;
    buf_init(&reply, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(call(c, AWSJ_LOGS, "FilterLogEvents", "throttle2", &reply, &err), AWSJ_OK);
    CHECK_INT(awsj_last(c)->attempts, 3);
    CHECK_STR(awsj_last(c)->code, ""); /* the throttles' code went with them */
    CHECK_INT(awsj_last(c)->http_status, 200);
    CHECK_STR(reply_str(&reply, "target"), "Logs_20140328.FilterLogEvents");
    CHECK_INT(f.n_sleeps, 2);
    /* Full jitter after throttling: r * min(20 s, 1 s * 2^(n-1)). */
    CHECK_INT(f.sleeps[0], 500);
    CHECK_INT(f.sleeps[1], 1500);
    CHECK(f.sleeps[0] >= 0 && f.sleeps[0] < 1000 && f.sleeps[1] >= 0 && f.sleeps[1] < 2000);
    CHECK_INT(server_count("throttle2"), 3);
    awsj_client_free(c);

    static const double r429[] = {0.25};
    c = client(&f, CLOCK, r429, 1);
    CHECK_INT(call(c, AWSJ_SERVICE_QUOTAS, "ListServiceQuotas", "429", &reply, &err), AWSJ_OK);
    CHECK_INT(awsj_last(c)->attempts, 2);
    CHECK_INT(f.n_sleeps, 1);
    CHECK_INT(f.sleeps[0], 250);
    buf_free(&reply);
    buf_free(&err);
    awsj_client_free(c);
}

static void test_denied(void) {
    struct fake f;
    struct awsj_client *c = client(&f, CLOCK, NULL, 0);
    struct buf reply, err;
    buf_init(&reply, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(call(c, AWSJ_LOGS, "FilterLogEvents", "denied", &reply, &err), AWSJ_ERR_SERVICE);
    CHECK_STR(buf_str(&err),
              "logs FilterLogEvents: AccessDeniedException: " DENIED_MSG " (HTTP 400)");
    CHECK_STR(awsj_last(c)->code, "AccessDeniedException");
    CHECK_INT(awsj_last(c)->http_status, 400);
    CHECK_INT(awsj_last(c)->attempts, 1);
    CHECK_INT(reply.len, 0);
    CHECK_INT(f.n_sleeps, 0);
    CHECK_INT(server_count("denied"), 1);
    CHECK_INT(call(c, AWSJ_LOGS, "FilterLogEvents", "denied-header", &reply, &err),
              AWSJ_ERR_SERVICE);
    CHECK_STR(buf_str(&err),
              "logs FilterLogEvents: AccessDeniedException: " DENIED_MSG " (HTTP 400)");
    CHECK_INT(awsj_last(c)->attempts, 1);
    /* CloudWatch's code comes from x-amzn-query-error; other services ignore that header. */
    CHECK_INT(call(c, AWSJ_CLOUDWATCH, "ListMetrics", "query-error", &reply, &err),
              AWSJ_ERR_SERVICE);
    CHECK_STR(buf_str(&err), "cloudwatch ListMetrics: ResourceNotFound: gone (HTTP 400)");
    CHECK_INT(call(c, AWSJ_LOGS, "DescribeLogGroups", "query-error", &reply, &err),
              AWSJ_ERR_SERVICE);
    CHECK_STR(awsj_last(c)->code, "ResourceNotFoundException");
    buf_free(&reply);
    buf_free(&err);
    awsj_client_free(c);
}

static void test_unavailable(void) {
    static const double rs[] = {0.9, 0.9};
    struct fake f;
    struct awsj_client *c = client(&f, CLOCK, rs, 2);
    struct buf reply, err;
    buf_init(&reply, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(call(c, AWSJ_SAGEMAKER, "DescribeEndpoint", "unavailable", &reply, &err),
              AWSJ_ERR_SERVICE);
    CHECK_STR(buf_str(&err), "sagemaker DescribeEndpoint: ServiceUnavailableException: Service is "
                             "unavailable (HTTP 503, 3 attempts)");
    CHECK_INT(awsj_last(c)->attempts, 3);
    CHECK_INT(reply.len, 0);
    /* Full jitter after a 5xx: r * min(20 s, 100 ms * 2^(n-1)). */
    CHECK_INT(f.n_sleeps, 2);
    CHECK_INT(f.sleeps[0], 90);
    CHECK_INT(f.sleeps[1], 180);
    CHECK_INT(server_count("unavailable"), 3);
    awsj_client_free(c);
    buf_free(&reply);
    buf_free(&err);
}

static void test_skew(void) {
    struct fake f;
    struct awsj_client *c = client(&f, CLOCK - 3600, NULL, 0); /* an hour slow */
    struct buf reply, err;
    buf_init(&reply, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(call(c, AWSJ_SAGEMAKER, "DescribeEndpoint", "ok", &reply, &err), AWSJ_OK);
    CHECK_STR(buf_str(&err), "");
    CHECK_INT(awsj_last(c)->attempts, 2);
    CHECK_STR(reply_str(&reply, "amz_date"), CLOCK_AMZ); /* signed again with the server's time */
    CHECK_INT(awsj_clock_offset(c), 3600);
    CHECK_INT(f.n_sleeps, 0);
    /* The offset stays for the next call. */
    CHECK_INT(call(c, AWSJ_SAGEMAKER, "DescribeEndpoint", "ok", &reply, &err), AWSJ_OK);
    CHECK_INT(awsj_last(c)->attempts, 1);
    awsj_client_free(c);
    /* Two hours fast; the skew retry comes on top of the attempts. */
    struct awsj_config cfg = {.region = "us-east-1",
                              .endpoint_url = url,
                              .max_attempts = 1,
                              .now = fake_now,
                              .sleep_ms = fake_sleep,
                              .random = fake_random,
                              .ud = &f};
    f = (struct fake){.now = CLOCK + 7200};
    CHECK_INT(awsj_client_new(&cfg, &c, &err), AWSJ_OK);
    CHECK_INT(call(c, AWSJ_LOGS, "FilterLogEvents", "ok", &reply, &err), AWSJ_OK);
    CHECK_INT(awsj_last(c)->attempts, 2);
    CHECK_INT(awsj_clock_offset(c), -7200);
    CHECK_STR(reply_str(&reply, "amz_date"), CLOCK_AMZ);
    awsj_client_free(c);
    buf_free(&reply);
    buf_free(&err);
}

static void test_secrets_and_size(void) {
    struct fake f;
    struct awsj_client *c = client(&f, CLOCK, NULL, 0);
    struct buf reply, err;
    buf_init(&reply, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(call(c, AWSJ_LOGS, "FilterLogEvents", "echo", &reply, &err), AWSJ_ERR_SERVICE);
    CHECK_STR(buf_str(&err), "logs FilterLogEvents: UnrecognizedClientException: The security "
                             "token <redacted> with key <redacted> is invalid. (HTTP 400)");
    CHECK_INT(call(c, AWSJ_LOGS, "FilterLogEvents", "echo-id", &reply, &err), AWSJ_OK);
    CHECK_STR(awsj_last(c)->request_id, "<redacted>");
    awsj_client_free(c);
    /* A reply past the cap is refused, and not retried. */
    struct awsj_config cfg = {.region = "us-east-1",
                              .endpoint_url = url,
                              .max_reply = 65536,
                              .now = fake_now,
                              .sleep_ms = fake_sleep,
                              .random = fake_random,
                              .ud = &f};
    f = (struct fake){.now = CLOCK};
    CHECK_INT(awsj_client_new(&cfg, &c, &err), AWSJ_OK);
    CHECK_INT(call(c, AWSJ_CLOUDWATCH, "GetMetricData", "big", &reply, &err), AWSJ_ERR_TOO_LARGE);
    CHECK_STR(buf_str(&err),
              "cloudwatch GetMetricData: the reply is larger than 65536 bytes (HTTP 200)");
    CHECK_INT(awsj_last(c)->attempts, 1);
    CHECK_INT(reply.len, 0);
    /* The client goes on working after it hung up. */
    CHECK_INT(call(c, AWSJ_CLOUDWATCH, "GetMetricData", "ok", &reply, &err), AWSJ_OK);
    awsj_client_free(c);
    buf_free(&reply);
    buf_free(&err);
}

static void test_refused_and_no_creds(void) {
    struct fake f = {.now = CLOCK, .n_rs = 2, .rs = {0.5, 0.5}};
    struct awsj_config cfg = {.region = "us-east-1",
                              .endpoint_url = "http://127.0.0.1:1", /* nothing listens on port 1 */
                              .now = fake_now,
                              .sleep_ms = fake_sleep,
                              .random = fake_random,
                              .ud = &f};
    struct awsj_client *c;
    struct buf reply, err;
    buf_init(&reply, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(awsj_client_new(&cfg, &c, &err), AWSJ_OK);
    CHECK_INT(call(c, AWSJ_LOGS, "FilterLogEvents", "ok", &reply, &err), AWSJ_ERR_NETWORK);
    static const char head[] = "logs FilterLogEvents: no reply from http://127.0.0.1:1/: ";
    CHECK(strncmp(buf_str(&err), head, sizeof head - 1) == 0);
    CHECK(err.len > 13 && strcmp(buf_str(&err) + err.len - 13, " (3 attempts)") == 0);
    CHECK_INT(awsj_last(c)->attempts, 3);
    CHECK_INT(awsj_last(c)->http_status, 0);
    CHECK_INT(f.n_sleeps, 2);
    CHECK_INT(f.sleeps[0], 50);
    CHECK_INT(f.sleeps[1], 100);
    awsj_client_free(c);
    /* No credentials: nothing is sent. */
    env_creds(false);
    f = (struct fake){.now = CLOCK};
    cfg.endpoint_url = url;
    CHECK_INT(awsj_client_new(&cfg, &c, &err), AWSJ_OK);
    CHECK_INT(call(c, AWSJ_LOGS, "FilterLogEvents", "no-creds", &reply, &err), AWSJ_ERR_CREDS);
    CHECK(strncmp(buf_str(&err), "logs FilterLogEvents: no AWS credentials", 40) == 0);
    CHECK_INT(awsj_last(c)->attempts, 0);
    awsj_client_free(c);
    env_creds(true);
    CHECK_INT(server_count("no-creds"), 0);
    buf_free(&reply);
    buf_free(&err);
}

/* Two clients share one credential cache. */
static void test_shared_cache(void) {
    struct creds_options o = {0};
    struct creds_cache *cache = creds_cache_new(&o);
    struct fake f = {.now = CLOCK};
    struct awsj_config cfg = {
        .region = "us-east-1", .endpoint_url = url, .cache = cache, .now = fake_now, .ud = &f};
    struct awsj_client *a, *b;
    struct buf reply, err;
    buf_init(&reply, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(awsj_client_new(&cfg, &a, &err), AWSJ_OK);
    CHECK_INT(awsj_client_new(&cfg, &b, &err), AWSJ_OK);
    CHECK_INT(call(a, AWSJ_LOGS, "FilterLogEvents", "ok", &reply, &err), AWSJ_OK);
    awsj_client_free(a);
    CHECK_INT(call(b, AWSJ_SAGEMAKER, "ListEndpoints", "ok", &reply, &err), AWSJ_OK);
    awsj_client_free(b);
    creds_cache_free(cache);
    buf_free(&reply);
    buf_free(&err);
}

/* cwlogs: every page's events, in order, in the aws CLI's document; a cap on
 * events; a reply that is not FilterLogEvents'; a refusal with its code. */
static void test_cwlogs(void) {
    struct fake f;
    struct awsj_client *c = client(&f, CLOCK, NULL, 0);
    struct buf doc, err;
    size_t n = 0;
    bool cut = true;
    buf_init(&doc, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    struct cwlogs_query q = {"cw-logpages", "s/", 0, 5000, NULL, 2};
    CHECK_INT(cwlogs_fetch_doc(c, &q, 0, &doc, &n, &cut, &err), 0);
    CHECK_INT(n, 4);
    CHECK(!cut);
    CHECK_STR(
        buf_str(&doc),
        "{\"events\":[{\"logStreamName\":\"s/1\",\"timestamp\":1000,\"message\":\"first\","
        "\"ingestionTime\":1005,\"eventId\":\"e1000\"},{\"logStreamName\":\"s/1\",\"timestamp\":"
        "2000,\"message\":\"second\",\"ingestionTime\":2005,\"eventId\":\"e2000\"},"
        "{\"logStreamName\":\"s/2\",\"timestamp\":2500,\"message\":\"third \\\"quoted\\\"\","
        "\"ingestionTime\":2505,\"eventId\":\"e2500\"},{\"logStreamName\":\"s/1\",\"timestamp\":"
        "3000,\"message\":\"last\",\"ingestionTime\":3005,\"eventId\":\"e3000\"}],"
        "\"searchedLogStreams\":[]}\n");
    CHECK_INT(server_count("logpages"), 3);
    /* at most 2 events: the second page is cut, the third never asked for */
    CHECK_INT(cwlogs_fetch_doc(c, &q, 2, &doc, &n, &cut, &err), 0);
    CHECK(n == 2 && cut);
    CHECK_INT(server_count("logpages"), 5);
    struct cwlogs_query bad = {"cw-noevents", NULL, 0, 0, NULL, 0};
    CHECK_INT(cwlogs_fetch_doc(c, &bad, 0, &doc, &n, &cut, &err), AWSJ_ERR_REPLY);
    CHECK_STR(buf_str(&err), "logs FilterLogEvents: the reply is not FilterLogEvents': no "
                             "\"events\" list in the object");
    CHECK(doc.len == 0 && n == 0);
    struct cwlogs_query denied = {"cw-denied", NULL, 0, 0, NULL, 0};
    CHECK_INT(cwlogs_fetch_doc(c, &denied, 0, &doc, &n, &cut, &err), AWSJ_ERR_SERVICE);
    CHECK_STR(awsj_last(c)->code, "AccessDeniedException");
    CHECK_STR(buf_str(&err),
              "logs FilterLogEvents: AccessDeniedException: " DENIED_MSG " (HTTP 400)");
    struct cwlogs_query noname = {"not a name", NULL, 0, 0, NULL, 0};
    CHECK_INT(cwlogs_fetch_doc(c, &noname, 0, &doc, &n, &cut, &err), AWSJ_ERR_INPUT);
    CHECK_STR(buf_str(&err), "'not a name' is not an endpoint name");
    buf_free(&doc);
    buf_free(&err);
    awsj_client_free(c);
}

/* cwmetrics: the JSON 1.0 request the fake checks (target, content type,
 * x-amzn-query-mode, signing name monitoring), two pages merged per query,
 * sorted, a time given twice kept once with its later value, an Id not asked
 * for left out, every query in the document even without points. */
static void test_cwmetrics(void) {
    struct fake f;
    struct awsj_client *c = client(&f, CLOCK, NULL, 0);
    struct buf doc, err;
    size_t points = 0;
    buf_init(&doc, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    struct cwmetrics_query q = {"cw-metricpages", "bf16", CLOCK - 600, CLOCK, 0};
    CHECK_INT(cwmetrics_fetch_doc(c, &q, &doc, &points, &err), 0);
    CHECK_INT(points, 3);
    CHECK_INT(server_count("metricpages"), 2);
    cJSON *d = cJSON_Parse(buf_str(&doc));
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(d, "MetricDataResults");
    CHECK_INT(cJSON_GetArraySize(res), CWDOC_N_METRICS);
    const cJSON *inv = cJSON_GetArrayItem(res, CWDOC_INVOCATIONS);
    char *text = cJSON_PrintUnformatted(inv);
    CHECK_STR(text, "{\"Id\":\"invocations\",\"Label\":\"Invocations\",\"Timestamps\":["
                    "\"2026-11-30T10:27:00+00:00\",\"2026-11-30T10:28:00+00:00\"],\"Values\":[2,4],"
                    "\"StatusCode\":\"Complete\"}");
    free(text);
    const cJSON *gpu = cJSON_GetArrayItem(res, CWDOC_GPU);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(gpu, "Values")) == 1);
    const cJSON *cpu = cJSON_GetArrayItem(res, CWDOC_CPU);
    CHECK_STR(cJSON_GetObjectItemCaseSensitive(cpu, "Id")->valuestring, "cpu");
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cpu, "Values")), 0);
    cJSON_Delete(d);
    struct cwmetrics_query denied = {"cw-denied", NULL, CLOCK - 600, CLOCK, 0};
    CHECK_INT(cwmetrics_fetch_doc(c, &denied, &doc, &points, &err), AWSJ_ERR_SERVICE);
    CHECK_STR(awsj_last(c)->code, "AccessDeniedException");
    CHECK(doc.len == 0 && points == 0);
    struct cwmetrics_query notjson = {"cw-notjson-page", NULL, CLOCK - 600, CLOCK, 0};
    CHECK_INT(cwmetrics_fetch_doc(c, &notjson, &doc, &points, &err), AWSJ_ERR_REPLY);
    buf_free(&doc);
    buf_free(&err);
    awsj_client_free(c);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: test_awsj_client PYTHON FAKE_AWSJSON_PY\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    env_creds(true);
    int in_fd;
    pid_t pid = server_start(argv[1], argv[2], &in_fd);
    test_each_service();
    test_pages();
    test_throttling();
    test_denied();
    test_unavailable();
    test_skew();
    test_secrets_and_size();
    test_refused_and_no_creds();
    test_shared_cache();
    test_cwlogs();
    test_cwmetrics();
    close(in_fd);
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return check_exit();
}
