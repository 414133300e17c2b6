/* Plain http in the AWS clients (awsj.h, s3.h, awscurl.h): an endpoint URL
 * whose host is not loopback is refused when the client is made, naming the
 * URL, unless allow_plain_http; loopback and https need nothing. And the curl
 * side refuses to send such a request at all, whoever built it: no connection
 * is tried (the TEST-NET address would time out, the .invalid name would not
 * resolve; the refusal comes back as its own code instead). */
#include <string.h>

#include "../check.h"
#include "awscurl.h"
#include "awsj.h"
#include "s3.h"

#define WHY                                                                                        \
    ": plain http shows the signature and session token to the network on the way to a host "      \
    "that is not loopback (use https://, or --allow-plain-http to send them anyway)"

static const struct {
    const char *url;
    bool allow;
    const char *refused; /* the host in the message, or NULL: made */
} rows[] = {
    {"http://203.0.113.1:1", false, "203.0.113.1:1"},
    {"http://sagemaker.invalid/", false, "sagemaker.invalid"},
    {"HTTP://api.sagemaker.us-east-1.amazonaws.com", false,
     "api.sagemaker.us-east-1.amazonaws.com"},
    {"http://10.0.0.5:8080/prefix", false, "10.0.0.5:8080"},
    {"http://203.0.113.1:1", true, NULL},
    {"https://203.0.113.1:1", false, NULL},
    {"http://127.0.0.1:1", false, NULL},
    {"http://localhost:1", false, NULL},
    {"http://[::1]:1", false, NULL},
};

static void test_awsj_client(void) {
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct awsj_config cfg = {
            .region = "us-east-1", .endpoint_url = rows[i].url, .allow_plain_http = rows[i].allow};
        struct awsj_client *c = NULL;
        int rc = awsj_client_new(&cfg, &c, &err);
        if (rows[i].refused) {
            char want[512];
            snprintf(want, sizeof want, "refusing to sign requests for http://%s" WHY,
                     rows[i].refused);
            CHECK_INT(rc, AWSJ_ERR_INPUT);
            CHECK(c == NULL);
            CHECK_STR(buf_str(&err), want);
        } else {
            CHECK_INT(rc, AWSJ_OK);
        }
        awsj_client_free(c);
    }
    buf_free(&err);
}

static void test_s3_client(void) {
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        if (strncmp(rows[i].url, "HTTP", 4) == 0) continue; /* s3 takes lower case only */
        struct s3_config cfg = {
            .region = "us-east-1", .endpoint_url = rows[i].url, .allow_plain_http = rows[i].allow};
        struct s3_client *c = NULL;
        int rc = s3_client_new(&cfg, &c, &err);
        if (rows[i].refused) {
            char want[512];
            snprintf(want, sizeof want, "refusing to sign requests for http://%s" WHY,
                     rows[i].refused);
            CHECK_INT(rc, S3_ERR_INPUT);
            CHECK(c == NULL);
            CHECK_STR(buf_str(&err), want);
        } else {
            CHECK_INT(rc, S3_OK);
        }
        s3_client_free(c);
    }
    buf_free(&err);
}

/* awscurl_perform sends nothing to such a URL: its own code, before connecting. */
static void test_perform(void) {
    CHECK_INT(curl_global_init(CURL_GLOBAL_DEFAULT), 0);
    CURL *h = curl_easy_init();
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *headers = NULL;
    CHECK_INT(awscurl_add(&headers, "Authorization: AWS4-HMAC-SHA256 Credential=AKID/x"), 0);
    const char *urls[] = {"http://203.0.113.1:1/", "http://sagemaker.invalid/"};
    for (size_t i = 0; i < 2; i++) {
        struct awscurl_call call = {.url = urls[i],
                                    .method = "POST",
                                    .headers = headers,
                                    .timeout_ms = 600000,
                                    .connect_ms = 600000,
                                    .errbuf = errbuf};
        long status = -1;
        CHECK_INT(awscurl_perform(h, &call, &status), CURLE_UNSUPPORTED_PROTOCOL);
        CHECK_INT(status, 0);
        CHECK_STR(errbuf,
                  "refused: plain http to a host that is not loopback (--allow-plain-http)");
    }
    awscurl_free(headers);
    curl_easy_cleanup(h);
    curl_global_cleanup();
}

int main(void) {
    test_awsj_client();
    test_s3_client();
    test_perform();
    return check_exit();
}
