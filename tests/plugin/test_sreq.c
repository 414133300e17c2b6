/* The signed raw request: its exact shape, and re-signing only when the second
 * or the credentials change. (sreq_botocore.py checks the signature itself.) */
#include <stdlib.h>

#include "../check.h"
#include "sreq.h"

static const char body[] =
    "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":16}";

static struct sreq *make(const struct sigv4_header *extra, size_t n_extra) {
    struct sreq_params p = {
        .method = "POST",
        .target = "/endpoints/gemma-4-e2b/invocations",
        .host = "runtime.sagemaker.us-east-2.amazonaws.com",
        .content_type = "application/json",
        .accept = "application/json",
        .extra = extra,
        .n_extra = n_extra,
        .user_agent = "wrk-sagemaker/0.1.0",
        .region = "us-east-2",
        .service = "sagemaker",
        .body = body,
        .body_len = sizeof body - 1,
    };
    struct sreq *r = NULL;
    CHECK_INT(sreq_new(&p, &r), SREQ_OK);
    return r;
}

static void test_shape(void) {
    const struct sigv4_header variant = {"X-Amzn-SageMaker-Target-Variant", 31, "qat", 3};
    struct sreq *r = make(&variant, 1);
    struct sigv4_signer *signer = sigv4_signer_new();
    struct sigv4_credentials c = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                  "TOKEN123"};
    const char *raw;
    size_t len;
    CHECK_INT(sreq_build(r, signer, &c, 1, 1764498526, &raw, &len), SREQ_OK);
    char text[4096];
    snprintf(text, sizeof text, "%.*s", (int)len, raw);
    const char *head = "POST /endpoints/gemma-4-e2b/invocations HTTP/1.1\r\n"
                       "Host: runtime.sagemaker.us-east-2.amazonaws.com\r\n"
                       "Content-Type: application/json\r\n"
                       "Accept: application/json\r\n"
                       "X-Amzn-SageMaker-Target-Variant: qat\r\n"
                       "User-Agent: wrk-sagemaker/0.1.0\r\n"
                       "Content-Length: 61\r\n"
                       "X-Amz-Date: 20251130T102846Z\r\n"
                       "X-Amz-Security-Token: TOKEN123\r\n"
                       "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20251130/us-east-2/"
                       "sagemaker/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date;"
                       "x-amz-security-token;x-amzn-sagemaker-target-variant, Signature=";
    CHECK(strncmp(text, head, strlen(head)) == 0);
    if (strncmp(text, head, strlen(head)) != 0) fprintf(stderr, "got:\n%s\n", text);
    const char *end = strstr(text, "\r\n\r\n");
    CHECK(end && strcmp(end + 4, body) == 0);
    CHECK(end && end - (text + strlen(head)) == SIGV4_HEX_LEN);
    CHECK(!strstr(text, c.secret_access_key));
    sreq_free(r);
    sigv4_signer_free(signer);
}

static void test_cache(void) {
    struct sreq *r = make(NULL, 0);
    struct sigv4_signer *signer = sigv4_signer_new();
    struct sigv4_credentials c = {"AKID1", "secret-one", NULL};
    struct sigv4_credentials c2 = {"AKID2", "secret-two", NULL};
    const char *raw1, *raw2;
    size_t len1, len2;
    char first[2048];
    CHECK_INT(sreq_generation(r), 0);
    CHECK_INT(sreq_build(r, signer, &c, 1, 1764498526, &raw1, &len1), SREQ_OK);
    CHECK_INT(sreq_generation(r), 1);
    snprintf(first, sizeof first, "%.*s", (int)len1, raw1);
    CHECK(!strstr(first, "X-Amz-Security-Token"));
    /* Same second, same credentials: the very same bytes, not signed again. */
    CHECK_INT(sreq_build(r, signer, &c, 1, 1764498526, &raw2, &len2), SREQ_OK);
    CHECK(raw1 == raw2 && len1 == len2);
    CHECK(strncmp(raw2, first, len2) == 0);
    CHECK_INT(sreq_generation(r), 1);
    /* The next second: a new date and signature. */
    CHECK_INT(sreq_build(r, signer, &c, 1, 1764498527, &raw2, &len2), SREQ_OK);
    CHECK(strstr(raw2, "X-Amz-Date: 20251130T102847Z") != NULL);
    CHECK(len1 == len2 && strncmp(raw2, first, len2) != 0);
    CHECK_INT(sreq_generation(r), 2);
    /* New credentials within the same second: signed again with them. */
    CHECK_INT(sreq_build(r, signer, &c2, 2, 1764498527, &raw2, &len2), SREQ_OK);
    CHECK(strstr(raw2, "Credential=AKID2/") != NULL);
    CHECK_INT(sreq_generation(r), 3);
    sreq_free(r);
    sigv4_signer_free(signer);
}

static void test_refused(void) {
    struct sreq_params p = {.method = "POST",
                            .target = "/x",
                            .host = "h\r\nEvil: 1",
                            .region = "r",
                            .service = "s",
                            .body = "",
                            .body_len = 0};
    struct sreq *r = NULL;
    CHECK_INT(sreq_new(&p, &r), SREQ_ERR_INPUT);
    const struct sigv4_header bad = {"X-Amzn-SageMaker-Custom-Attributes", 34, "a\nb", 3};
    p.host = "h";
    p.extra = &bad;
    p.n_extra = 1;
    CHECK_INT(sreq_new(&p, &r), SREQ_ERR_INPUT);
    p.n_extra = 0;
    p.region = NULL;
    CHECK_INT(sreq_new(&p, &r), SREQ_ERR_INPUT);
    CHECK(r == NULL);
}

static void test_bad_credentials(void) {
    struct sreq *r = make(NULL, 0);
    struct sigv4_signer *signer = sigv4_signer_new();
    struct sigv4_credentials c = {"", "", NULL};
    const char *raw;
    size_t len;
    CHECK_INT(sreq_build(r, signer, &c, 1, 1764498526, &raw, &len), SREQ_ERR_SIGN);
    sreq_free(r);
    sigv4_signer_free(signer);
}

int main(void) {
    test_shape();
    test_cache();
    test_refused();
    test_bad_credentials();
    return check_exit();
}
