/* Plain http in the AWS clients (awsj.h, s3.h, awscurl.h): an endpoint URL
 * whose host is not loopback is refused when the client is made, naming the
 * URL, unless allow_plain_http; loopback and https need nothing. And the curl
 * side refuses to send such a request at all, whoever built it: no connection
 * is tried (the TEST-NET address would time out, the .invalid name would not
 * resolve; the refusal comes back as its own code instead). */
#include <stdio.h>
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

/* Makes a client of each kind for url and frees it: its code, err its message. */
static int make_awsj(const char *url, bool allow, struct buf *err) {
    struct awsj_config cfg = {
        .region = "us-east-1", .endpoint_url = url, .allow_plain_http = allow};
    struct awsj_client *c = NULL;
    int rc = awsj_client_new(&cfg, &c, err);
    CHECK(!rc == (c != NULL));
    awsj_client_free(c);
    return rc;
}

static int make_s3(const char *url, bool allow, struct buf *err) {
    struct s3_config cfg = {.region = "us-east-1", .endpoint_url = url, .allow_plain_http = allow};
    struct s3_client *c = NULL;
    int rc = s3_client_new(&cfg, &c, err);
    CHECK(!rc == (c != NULL));
    s3_client_free(c);
    return rc;
}

static void test_clients(void) {
    static const struct {
        int (*make)(const char *url, bool allow, struct buf *err);
        int refused;
    } kinds[] = {{make_awsj, AWSJ_ERR_INPUT}, {make_s3, S3_ERR_INPUT}};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
            /* s3 takes a lower-case scheme only */
            if (k == 1 && strncmp(rows[i].url, "HTTP", 4) == 0) continue;
            int rc = kinds[k].make(rows[i].url, rows[i].allow, &err);
            if (!rows[i].refused) {
                CHECK_INT(rc, 0);
                continue;
            }
            char want[512];
            snprintf(want, sizeof want, "refusing to sign requests for http://%s" WHY,
                     rows[i].refused);
            CHECK_INT(rc, kinds[k].refused);
            CHECK_STR(buf_str(&err), want);
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
    test_clients();
    test_perform();
    return check_exit();
}
