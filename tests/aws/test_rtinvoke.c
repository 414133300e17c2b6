/* The one signed SageMaker Runtime InvokeEndpoint (aws/rtinvoke.h): the URL,
 * Host and request target a base URL or region makes (the runtime host of a
 * China region ends in .com.cn), the bad ones refused in one line, the
 * signature of the AWS-suite-style vectors sm-invoke's dry run shows (with and
 * without a session token), the headers in the order sent, and the line an
 * error reply becomes. */
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "rtinvoke.h"

static const struct {
    const char *region, *base, *endpoint;
    bool allow;
    const char *url, *host, *target; /* made; or url NULL and host the error's start */
} rows[] = {
    {"us-east-1", NULL, "my-endpoint", false,
     "https://runtime.sagemaker.us-east-1.amazonaws.com/endpoints/my-endpoint/invocations",
     "runtime.sagemaker.us-east-1.amazonaws.com", "/endpoints/my-endpoint/invocations"},
    {"cn-north-1", NULL, "e", false,
     "https://runtime.sagemaker.cn-north-1.amazonaws.com.cn/endpoints/e/invocations",
     "runtime.sagemaker.cn-north-1.amazonaws.com.cn", "/endpoints/e/invocations"},
    {"eu-west-3", "http://127.0.0.1:8080/pre//", "e", false,
     "http://127.0.0.1:8080/pre/endpoints/e/invocations", "127.0.0.1:8080",
     "/pre/endpoints/e/invocations"},
    {"eu-west-3", "https://example.com:443", "e", false,
     "https://example.com/endpoints/e/invocations", "example.com", "/endpoints/e/invocations"},
    {"eu-west-3", "http://192.0.2.7:8080", "e", true,
     "http://192.0.2.7:8080/endpoints/e/invocations", "192.0.2.7:8080", "/endpoints/e/invocations"},
    {"eu-west-3", "ftp://127.0.0.1", "e", false, NULL,
     "'ftp://127.0.0.1': only http:// and https:// are supported", NULL},
    {"eu-west-3", "http://", "e", false, NULL, "'http://' is not a URL such as", NULL},
    {"eu-west-3", "http://127.0.0.1/?a=b", "e", false, NULL,
     "'http://127.0.0.1/?a=b': a query, user or fragment is not allowed", NULL},
    {"eu-west-3", "http://u@127.0.0.1/", "e", false, NULL, "'http://u@127.0.0.1/': a query", NULL},
    {"eu-west-3", "http://192.0.2.7:8080", "e", false, NULL,
     "refusing to sign requests for http://192.0.2.7:8080: plain http", NULL},
    {"eu west", NULL, "e", false, NULL, "'eu west' is not a region name such as us-east-1", NULL},
    {"eu-west-3", NULL, "a_b", false, NULL, "'a_b' is not an endpoint name", NULL},
};

static void test_urls(void) {
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct rtinvoke r;
        struct buf err;
        buf_init(&err, 1024);
        struct rtinvoke_req q = {.region = rows[i].region,
                                 .base_url = rows[i].base,
                                 .endpoint = rows[i].endpoint,
                                 .allow_plain_http = rows[i].allow};
        int rc = rtinvoke_init(&r, &q, &err);
        if (rows[i].url) {
            CHECK_INT(rc, RTINVOKE_OK);
            CHECK_STR(buf_str(&r.url), rows[i].url);
            CHECK_STR(buf_str(&r.host), rows[i].host);
            CHECK_STR(buf_str(&r.target), rows[i].target);
        } else {
            CHECK_INT(rc, RTINVOKE_ERR_INPUT);
            if (strncmp(buf_str(&err), rows[i].host, strlen(rows[i].host)) != 0)
                CHECK_STR(buf_str(&err), rows[i].host);
            CHECK(!strchr(buf_str(&err), '\n'));
        }
        rtinvoke_free(&r);
        buf_free(&err);
    }
}

/* The signatures tests/invoke/test_invoke.py's dry-run cases pin for sm-invoke. */
static void test_sign(void) {
    static const char body[] = "{\"inputs\":\"hi\"}";
    static const char *const order[] = {"Host", "Content-Type", "Accept", "X-Amz-Date",
                                        "X-Amz-Security-Token"};
    struct {
        const char *token, *signature;
        size_t n_headers;
    } cases[] = {
        {NULL, "041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424e3", 4},
        {"FQoGZXIvYXdzEXAMPLETOKEN",
         "f78d3bbfef886aebd81c8dfa3726cd02efbc1b820a55c2afa51dea482e21e183", 5},
    };
    for (size_t i = 0; i < 2; i++) {
        char akid[] = "AKIDEXAMPLE", secret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
        struct creds cr = {.access_key_id = akid,
                           .secret_access_key = secret,
                           .session_token = (char *)cases[i].token};
        struct rtinvoke r;
        struct buf err;
        buf_init(&err, 1024);
        struct rtinvoke_req q = {.region = "us-east-1",
                                 .endpoint = "my-endpoint",
                                 .body = body,
                                 .body_len = strlen(body)};
        CHECK_INT(rtinvoke_init(&r, &q, &err), RTINVOKE_OK);
        CHECK_INT(rtinvoke_sign(&r, &cr, 0, "20150830T123600Z", &err), RTINVOKE_OK);
        CHECK_STR(r.signed_req.signature, cases[i].signature);
        CHECK_INT(r.n_headers, cases[i].n_headers);
        for (size_t k = 0; k < r.n_headers && k < cases[i].n_headers; k++)
            CHECK_INT(r.headers[k].name_len == strlen(order[k]) &&
                          memcmp(r.headers[k].name, order[k], r.headers[k].name_len) == 0,
                      1);
        /* Signed again at another time (the clock-skew retry): another date, the same
         * headers. */
        CHECK_INT(rtinvoke_sign(&r, &cr, 86400, NULL, &err), RTINVOKE_OK);
        CHECK_STR(r.amz_date, "19700102T000000Z");
        CHECK_INT(r.n_headers, cases[i].n_headers);
        rtinvoke_free(&r);
        buf_free(&err);
    }
}

static void test_failure(void) {
    struct {
        long status;
        const char *reason, *error_type, *body, *want;
    } cases[] = {
        {200, "OK", NULL, "{}", NULL},
        {404, "Not Found", "ValidationError", "{\"message\":\"Endpoint e of account not found.\"}",
         "404 ValidationError: Endpoint e of account not found."},
        {424, "Failed Dependency", NULL,
         "{\"__type\":\"ModelError\",\"message\":\"Received server error (500)\"}",
         "424 ModelError: Received server error (500)"},
        {500, "Internal Server Error", NULL, "", "500 Internal Server Error"},
        {502, "", NULL, "", "502 HTTPError"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rtinvoke_reply rep;
        struct buf err;
        buf_init(&err, 1024);
        rtinvoke_reply_init(&rep, 4096);
        rep.status = cases[i].status;
        CHECK_INT(buf_adds(&rep.reason, cases[i].reason), 0);
        if (cases[i].error_type) CHECK_INT(buf_adds(&rep.error_type, cases[i].error_type), 0);
        CHECK_INT(buf_adds(&rep.body, cases[i].body), 0);
        int rc = rtinvoke_failure(&rep, &err);
        CHECK_INT(rc, cases[i].want ? RTINVOKE_ERR_SERVICE : RTINVOKE_OK);
        if (cases[i].want) CHECK_STR(buf_str(&err), cases[i].want);
        rtinvoke_reply_free(&rep);
        buf_free(&err);
    }
}

/* The reply's header lines as curl hands them over: the last reply's headers
 * kept, control characters from the server as '?'. */
static void test_reply_lines(void) {
    static const char *const lines[] = {
        "HTTP/1.1 100 Continue\r\n",
        "x-amzn-ErrorType: Stale\r\n",
        "\r\n",
        "HTTP/1.1 503 Bad\x1b[2J Gateway\r\n",
        "date:  Wed, 02 Dec 2026 09:00:00 GMT \t\r\n",
        "X-Amzn-ErrorType:\tServiceUnavailable\x07:http://internal.amazon.com/coral/\r\n",
        "x-amzn-errortypes: not this one\r\n",
        "\r\n",
    };
    struct rtinvoke_reply rep;
    struct buf err;
    buf_init(&err, 1024);
    rtinvoke_reply_init(&rep, 4096);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        rtinvoke_reply_line(&rep, lines[i], strlen(lines[i]));
    CHECK_STR(buf_str(&rep.reason), "Bad?[2J Gateway");
    CHECK_STR(buf_str(&rep.date), "Wed, 02 Dec 2026 09:00:00 GMT");
    CHECK_STR(buf_str(&rep.error_type), "ServiceUnavailable?:http://internal.amazon.com/coral/");
    rep.status = 503;
    CHECK_INT(rtinvoke_failure(&rep, &err), RTINVOKE_ERR_SERVICE);
    CHECK_STR(buf_str(&err), "503 ServiceUnavailable?");
    /* No code anywhere: the reason, as kept. */
    static const char status[] = "HTTP/1.1 502 Bad\x1b]0;x\x07Gateway";
    rtinvoke_reply_line(&rep, status, strlen(status));
    rep.status = 502;
    CHECK_INT(rtinvoke_failure(&rep, &err), RTINVOKE_ERR_SERVICE);
    CHECK_STR(buf_str(&err), "502 Bad?]0;x?Gateway");
    rtinvoke_reply_free(&rep);
    buf_free(&err);
}

int main(void) {
    test_urls();
    test_sign();
    test_failure();
    test_reply_lines();
    return check_exit();
}
