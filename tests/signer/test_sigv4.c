/* SigV4 for SageMaker Runtime: the SageMaker vectors of the suite's README,
 * the stages on their own, input validation, the Authorization parser, the
 * key cache under threads, and buf. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "sigv4.h"

#define AKID   "AKIDEXAMPLE"
#define SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define HOST   "runtime.sagemaker.us-east-1.amazonaws.com"
#define DATE   "20150830T123600Z"
#define BODY   "{\"inputs\":\"hi\"}"

#define HDR(n, v)                                                                                  \
    { (n), sizeof(n) - 1, (v), sizeof(v) - 1 }

struct sm_vector {
    const char *name;
    const char *target;
    const char *token;
    struct sigv4_header extra; /* name NULL: none */
    const char *signed_headers;
    const char *signature;
};

/* tests/data/README.md: SageMaker-shaped vectors (botocore and awscrt agree). */
static const struct sm_vector sm_vectors[] = {
    {"V1",
     "/endpoints/my-endpoint/invocations",
     NULL,
     {0},
     "accept;content-type;host;x-amz-date",
     "041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424e3"},
    {"V2 session token",
     "/endpoints/my-endpoint/invocations",
     "FQoGZXIvYXdzEXAMPLETOKEN",
     {0},
     "accept;content-type;host;x-amz-date;x-amz-security-token",
     "f78d3bbfef886aebd81c8dfa3726cd02efbc1b820a55c2afa51dea482e21e183"},
    {"V3 double encoding",
     "/endpoints/ep%3Ax/invocations",
     NULL,
     {0},
     "accept;content-type;host;x-amz-date",
     "4b6b9a40b257b2c8c28922c8ad84f85828afe2cbaa6398facd17f9b82dbd824e"},
    {"V4 custom attributes", "/endpoints/my-endpoint/invocations", NULL,
     HDR("X-Amzn-SageMaker-Custom-Attributes", "  a=b   c=d "),
     "accept;content-type;host;x-amz-date;x-amzn-sagemaker-custom-attributes",
     "b5d9cf7814f595db0d1d943eea90c86a7733e40b92034290b29a9eb2964cffc0"},
};

static int sign_vector(struct sigv4_signer *s, const struct sm_vector *v, struct sigv4_result *r) {
    struct sigv4_header hs[4] = {HDR("Host", HOST), HDR("Content-Type", "application/json"),
                                 HDR("Accept", "application/json"), v->extra};
    struct sigv4_request req = {
        "POST", v->target, strlen(v->target), hs, v->extra.name ? 4 : 3, BODY, strlen(BODY), NULL};
    struct sigv4_credentials c = {AKID, SECRET, v->token};
    struct sigv4_params p = {"us-east-1", "sagemaker", DATE, false, false};
    return sigv4_sign(s, &req, &c, &p, r);
}

static void test_sagemaker_vectors(void) {
    struct sigv4_signer *s = sigv4_signer_new();
    struct sigv4_result r;
    sigv4_result_init(&r);
    for (size_t i = 0; i < sizeof sm_vectors / sizeof *sm_vectors; i++) {
        const struct sm_vector *v = &sm_vectors[i];
        CHECK_INT(sign_vector(s, v, &r), SIGV4_OK);
        CHECK_STR(buf_str(&r.signed_headers), v->signed_headers);
        CHECK_STR(r.signature, v->signature);
        char auth[512];
        snprintf(auth, sizeof auth,
                 "AWS4-HMAC-SHA256 Credential=" AKID "/20150830/us-east-1/sagemaker/aws4_request, "
                 "SignedHeaders=%s, Signature=%s",
                 v->signed_headers, v->signature);
        CHECK_STR(buf_str(&r.authorization), auth);
    }
    CHECK_INT(sign_vector(s, &sm_vectors[0], &r), SIGV4_OK);
    CHECK_STR(buf_str(&r.canonical_request),
              "POST\n/endpoints/my-endpoint/invocations\n\naccept:application/json\n"
              "content-type:application/json\nhost:" HOST "\nx-amz-date:" DATE "\n\n"
              "accept;content-type;host;x-amz-date\n"
              "488d8b76651689aa401681fd5c5da49ab30742dd8ec292bd19a48143dc7245aa");
    const char *sts = buf_str(&r.string_to_sign);
    CHECK(strlen(sts) > 64 &&
          strcmp(sts + strlen(sts) - 64,
                 "5d75b66d47664abae49cd6acff11fc691b3183550af430d3611c00a128ab1d72") == 0);
    CHECK_STR(r.amz_date, DATE);
    sigv4_result_free(&r);
    sigv4_signer_free(s);
}

/* A given payload hash replaces hashing the body. */
static void test_payload_hash_given(void) {
    struct sigv4_header hs[3] = {HDR("Host", HOST), HDR("Content-Type", "application/json"),
                                 HDR("Accept", "application/json")};
    const char *target = sm_vectors[0].target;
    struct sigv4_request req = {"POST",
                                target,
                                strlen(target),
                                hs,
                                3,
                                NULL,
                                0,
                                "488d8b76651689aa401681fd5c5da49ab30742dd8ec292bd19a48143dc7245aa"};
    struct sigv4_credentials c = {AKID, SECRET, NULL};
    struct sigv4_params p = {"us-east-1", "sagemaker", DATE, false, false};
    struct sigv4_signer *s = sigv4_signer_new();
    struct sigv4_result r;
    sigv4_result_init(&r);
    CHECK_INT(sigv4_sign(s, &req, &c, &p, &r), SIGV4_OK);
    CHECK_STR(r.signature, sm_vectors[0].signature);
    sigv4_result_free(&r);
    sigv4_signer_free(s);
}

struct canon_case {
    const char *name;
    const char *target;
    struct sigv4_header extra;
    bool sign_all;
    const char *want_uri_query; /* second and third lines of the canonical request */
    const char *want_extra;     /* the extra header's canonical line, "" if not signed */
};

static const struct canon_case canon_cases[] = {
    {"dot segments", "/a/./b/../c", {0}, false, "/a/c\n", ""},
    {"dot-dot above root", "/../../x", {0}, false, "/x\n", ""},
    {"trailing slash kept", "/a/b/", {0}, false, "/a/b/\n", ""},
    {"only slashes", "///", {0}, false, "/\n", ""},
    {"percent encoded twice", "/a%2Fb", {0}, false, "/a%252Fb\n", ""},
    {"reserved characters",
     "/$!'()*+,;=@:",
     {0},
     false,
     "/%24%21%27%28%29%2A%2B%2C%3B%3D%40%3A\n",
     ""},
    {"query sorted by key then value", "/?b=2&a=2&a=1", {0}, false, "/\na=1&a=2&b=2", ""},
    {"query decoded and encoded again",
     "/?k=a%2fb+c&%7e=%41",
     {0},
     false,
     "/\nk=a%2Fb%2Bc&~=A",
     ""},
    {"query key without value", "/?flag&a=1", {0}, false, "/\na=1&flag=", ""},
    {"query bad escape kept", "/?a=%zz", {0}, false, "/\na=%25zz", ""},
    {"user-agent not signed", "/", HDR("User-Agent", "x"), false, "/\n", ""},
    {"user-agent signed when asked", "/", HDR("User-Agent", "x"), true, "/\n", "user-agent:x\n"},
    {"tabs folded", "/", HDR("X-A", "\t1\t \t2 "), false, "/\n", "x-a:1 2\n"},
    {"empty value", "/", HDR("X-A", ""), false, "/\n", "x-a:\n"},
};

static void test_canonical_cases(void) {
    for (size_t i = 0; i < sizeof canon_cases / sizeof *canon_cases; i++) {
        const struct canon_case *t = &canon_cases[i];
        struct sigv4_header hs[2] = {HDR("Host", "h"), t->extra};
        struct sigv4_request req = {
            "GET", t->target, strlen(t->target), hs, t->extra.name ? 2 : 1, "", 0, NULL};
        struct sigv4_params p = {"us-east-1", "sagemaker", DATE, false, t->sign_all};
        struct buf creq, sh;
        buf_init(&creq, BUF_NO_CAP);
        buf_init(&sh, BUF_NO_CAP);
        CHECK_INT(sigv4_canonical_request(&req, NULL, &p, &creq, &sh), SIGV4_OK);
        const char *s = buf_str(&creq);
        const char *uri = strchr(s, '\n') + 1;
        if (strncmp(uri, t->want_uri_query, strlen(t->want_uri_query)) != 0) {
            fprintf(stderr, "%s: canonical request\n%s\n", t->name, s);
            check_failed++;
        }
        if (*t->want_extra && !strstr(s, t->want_extra)) {
            fprintf(stderr, "%s: no line [%s] in\n%s\n", t->name, t->want_extra, s);
            check_failed++;
        }
        if (!*t->want_extra && t->extra.name && strstr(buf_str(&sh), "user-agent")) {
            fprintf(stderr, "%s: signed %s\n", t->name, buf_str(&sh));
            check_failed++;
        }
        buf_free(&creq);
        buf_free(&sh);
    }
}

struct bad_case {
    const char *name;
    const char *method, *target, *region, *service, *date, *akid, *secret;
    struct sigv4_header extra;
    bool no_host;
};

static const struct bad_case bad_cases[] = {
    {"no host", "GET", "/", "us-east-1", "sagemaker", DATE, AKID, SECRET, {0}, true},
    {"target without slash", "GET", "x", "us-east-1", "sagemaker", DATE, AKID, SECRET, {0}, false},
    {"CR in target", "GET", "/a\rb", "us-east-1", "sagemaker", DATE, AKID, SECRET, {0}, false},
    {"empty method", "", "/", "us-east-1", "sagemaker", DATE, AKID, SECRET, {0}, false},
    {"space in method", "G T", "/", "us-east-1", "sagemaker", DATE, AKID, SECRET, {0}, false},
    {"region with slash", "GET", "/", "us/east", "sagemaker", DATE, AKID, SECRET, {0}, false},
    {"empty service", "GET", "/", "us-east-1", "", DATE, AKID, SECRET, {0}, false},
    {"date without Z",
     "GET",
     "/",
     "us-east-1",
     "sagemaker",
     "20150830T123600",
     AKID,
     SECRET,
     {0},
     false},
    {"month 13",
     "GET",
     "/",
     "us-east-1",
     "sagemaker",
     "20151330T123600Z",
     AKID,
     SECRET,
     {0},
     false},
    {"empty access key", "GET", "/", "us-east-1", "sagemaker", DATE, "", SECRET, {0}, false},
    {"slash in access key", "GET", "/", "us-east-1", "sagemaker", DATE, "A/B", SECRET, {0}, false},
    {"empty secret", "GET", "/", "us-east-1", "sagemaker", DATE, AKID, "", {0}, false},
    {"newline in header value", "GET", "/", "us-east-1", "sagemaker", DATE, AKID, SECRET,
     HDR("X-A", "a\r\nX-Injected: 1"), false},
    {"colon in header name", "GET", "/", "us-east-1", "sagemaker", DATE, AKID, SECRET,
     HDR("X:A", "a"), false},
};

static void test_bad_input(void) {
    struct sigv4_signer *s = sigv4_signer_new();
    struct sigv4_result r;
    sigv4_result_init(&r);
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const struct bad_case *t = &bad_cases[i];
        struct sigv4_header hs[2] = {HDR("Host", "h"), t->extra};
        size_t n = t->extra.name ? 2 : 1;
        struct sigv4_request req = {t->method,
                                    t->target,
                                    strlen(t->target),
                                    t->no_host ? hs + 1 : hs,
                                    t->no_host ? 0 : n,
                                    "",
                                    0,
                                    NULL};
        struct sigv4_credentials c = {t->akid, t->secret, NULL};
        struct sigv4_params p = {t->region, t->service, t->date, false, false};
        int rc = sigv4_sign(s, &req, &c, &p, &r);
        if (rc != SIGV4_ERR_INPUT) {
            fprintf(stderr, "%s: sigv4_sign returned %d, want SIGV4_ERR_INPUT\n", t->name, rc);
            check_failed++;
        }
    }
    struct sigv4_header many[200];
    for (size_t i = 0; i < 200; i++) many[i] = (struct sigv4_header)HDR("Host", "h");
    struct sigv4_request req = {"GET", "/", 1, many, 200, "", 0, NULL};
    struct sigv4_credentials c = {AKID, SECRET, NULL};
    struct sigv4_params p = {"us-east-1", "sagemaker", DATE, false, false};
    CHECK_INT(sigv4_sign(s, &req, &c, &p, &r), SIGV4_ERR_INPUT);
    sigv4_result_free(&r);
    sigv4_signer_free(s);
}

static void test_dates(void) {
    char out[SIGV4_DATE_LEN + 1];
    time_t t = 0;
    CHECK_INT(sigv4_format_date(1440938160, out), SIGV4_OK);
    CHECK_STR(out, DATE);
    CHECK_INT(sigv4_parse_date(DATE, &t), SIGV4_OK);
    CHECK_INT(t, 1440938160);
    CHECK_INT(sigv4_parse_date("20261130T235960Z", &t), SIGV4_OK); /* a leap second */
    static const char *const bad[] = {"",
                                      "2015083T123600Z",
                                      "20150830 123600Z",
                                      "20150830T1236000",
                                      "2015-830T123600Z",
                                      "20150832T123600Z",
                                      "20150830T243600Z",
                                      "20150830T126000Z",
                                      "20150830T123600ZZ"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (sigv4_parse_date(bad[i], &t) != SIGV4_ERR_INPUT) {
            fprintf(stderr, "date [%s] accepted\n", bad[i]);
            check_failed++;
        }
}

static void test_authorization_parser(void) {
    const char *ok = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/sagemaker/"
                     "aws4_request, SignedHeaders=host;x-amz-date, Signature="
                     "041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424e3";
    struct sigv4_authorization a;
    CHECK_INT(sigv4_parse_authorization(ok, strlen(ok), &a), SIGV4_OK);
    CHECK(a.access_key_id_len == 11 && memcmp(a.access_key_id, AKID, 11) == 0);
    CHECK(memcmp(a.date8, "20150830", 8) == 0);
    CHECK(a.region_len == 9 && memcmp(a.region, "us-east-1", 9) == 0);
    CHECK(a.service_len == 9 && memcmp(a.service, "sagemaker", 9) == 0);
    CHECK(a.signed_headers_len == 15 && memcmp(a.signed_headers, "host;x-amz-date", 15) == 0);
    CHECK(memcmp(a.signature, "041aade8", 8) == 0);
    const char *tight =
        "AWS4-HMAC-SHA256 Credential=K/20150830/r/s/aws4_request,SignedHeaders=host,"
        "Signature=041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424e3";
    CHECK_INT(sigv4_parse_authorization(tight, strlen(tight), &a), SIGV4_OK);
    static const char *const bad[] = {
        "",
        "AWS4-HMAC-SHA1 Credential=K/20150830/r/s/aws4_request, SignedHeaders=host, Signature=00",
        "AWS4-HMAC-SHA256 Credential=K/20150830/r/s/aws4_request, SignedHeaders=host",
        "AWS4-HMAC-SHA256 Credential=K/2015083/r/s/aws4_request, SignedHeaders=host, "
        "Signature=041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424e3",
        "AWS4-HMAC-SHA256 Credential=K/20150830/r/s/aws5_request, SignedHeaders=host, "
        "Signature=041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424e3",
        "AWS4-HMAC-SHA256 Credential=K/20150830/r/aws4_request, SignedHeaders=host, "
        "Signature=041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424e3",
        "AWS4-HMAC-SHA256 Credential=K/20150830/r/s/aws4_request, SignedHeaders=host, "
        "Signature=041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424eZ",
        "AWS4-HMAC-SHA256 Credential=/20150830/r/s/aws4_request, SignedHeaders=host, "
        "Signature=041aade881711189b08ea4b658df62bb89e14acb342cd488ea682934a90424e3",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (sigv4_parse_authorization(bad[i], strlen(bad[i]), &a) != SIGV4_ERR_INPUT) {
            fprintf(stderr, "authorization [%s] accepted\n", bad[i]);
            check_failed++;
        }
}

/* Many threads share one signer while the cache turns over (more key
 * combinations than slots): every signature must equal a fresh signer's. */
#define CACHE_THREADS 4
#define CACHE_COMBOS  12

static char cache_want[CACHE_COMBOS][SIGV4_HEX_LEN + 1];

/* Signs combination k with r, which callers reuse across keys on purpose. */
static int sign_combo(struct sigv4_signer *s, struct sigv4_result *r, int k,
                      char sig[SIGV4_HEX_LEN + 1]) {
    char secret[32], date[SIGV4_DATE_LEN + 1];
    snprintf(secret, sizeof secret, "secret-%d", k % 3);
    snprintf(date, sizeof date, "201508%02dT123600Z", 1 + k % 4);
    struct sigv4_header hs[1] = {HDR("Host", HOST)};
    struct sigv4_request req = {"POST", "/", 1, hs, 1, BODY, strlen(BODY), NULL};
    struct sigv4_credentials c = {AKID, secret, NULL};
    struct sigv4_params p = {"us-east-1", "sagemaker", date, false, false};
    int rc = sigv4_sign(s, &req, &c, &p, r);
    memcpy(sig, r->signature, SIGV4_HEX_LEN + 1);
    return rc;
}

/* A thread signing with one shared signer; counts the signatures that differ. */
struct cache_job {
    struct sigv4_signer *s;
    long bad;
};

static void *cache_worker(void *arg) {
    struct cache_job *job = arg;
    struct sigv4_signer *s = job->s;
    struct sigv4_result r;
    sigv4_result_init(&r);
    long bad = 0;
    for (int i = 0; i < 3000; i++) {
        char sig[SIGV4_HEX_LEN + 1];
        int k = (i * 7) % CACHE_COMBOS;
        if (sign_combo(s, &r, k, sig) || strcmp(sig, cache_want[k]) != 0) bad++;
    }
    sigv4_result_free(&r);
    job->bad = bad;
    return NULL;
}

static void test_key_cache_threads(void) {
    for (int k = 0; k < CACHE_COMBOS; k++) {
        struct sigv4_signer *fresh = sigv4_signer_new();
        struct sigv4_result r;
        sigv4_result_init(&r);
        CHECK_INT(sign_combo(fresh, &r, k, cache_want[k]), SIGV4_OK);
        sigv4_result_free(&r);
        sigv4_signer_free(fresh);
        /* the stages called one by one agree with the signer */
        char secret[32], date[SIGV4_DATE_LEN + 1], sig[SIGV4_HEX_LEN + 1];
        unsigned char key[SIGV4_KEY_LEN];
        snprintf(secret, sizeof secret, "secret-%d", k % 3);
        snprintf(date, sizeof date, "201508%02dT123600Z", 1 + k % 4);
        struct sigv4_header hs[1] = {HDR("Host", HOST)};
        struct sigv4_request req = {"POST", "/", 1, hs, 1, BODY, strlen(BODY), NULL};
        struct sigv4_params p = {"us-east-1", "sagemaker", date, false, false};
        struct buf creq, sh, sts;
        buf_init(&creq, BUF_NO_CAP);
        buf_init(&sh, BUF_NO_CAP);
        buf_init(&sts, BUF_NO_CAP);
        CHECK_INT(sigv4_canonical_request(&req, NULL, &p, &creq, &sh), SIGV4_OK);
        CHECK_INT(sigv4_string_to_sign(&p, creq.data, creq.len, &sts), SIGV4_OK);
        date[8] = '\0';
        CHECK_INT(sigv4_signing_key(secret, date, "us-east-1", "sagemaker", key), SIGV4_OK);
        CHECK_INT(sigv4_signature(key, sts.data, sts.len, sig), SIGV4_OK);
        CHECK_STR(sig, cache_want[k]);
        buf_free(&creq);
        buf_free(&sh);
        buf_free(&sts);
    }
    struct sigv4_signer *s = sigv4_signer_new();
    pthread_t t[CACHE_THREADS];
    struct cache_job jobs[CACHE_THREADS];
    for (int i = 0; i < CACHE_THREADS; i++) {
        jobs[i] = (struct cache_job){s, 0};
        pthread_create(&t[i], NULL, cache_worker, &jobs[i]);
    }
    for (int i = 0; i < CACHE_THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT(jobs[i].bad, 0);
    }
    sigv4_signer_free(s);
}

static void test_buf(void) {
    struct buf b;
    buf_init(&b, 8);
    CHECK_STR(buf_str(&b), "");
    CHECK_INT(buf_adds(&b, "abcd"), BUF_OK);
    CHECK_INT(buf_addf(&b, "%d", 1234), BUF_OK);
    CHECK_INT(buf_addc(&b, 'x'), BUF_ERR_CAP);
    CHECK_INT(buf_addf(&b, "%s", "y"), BUF_ERR_CAP);
    CHECK_STR(buf_str(&b), "abcd1234");
    buf_truncate(&b, 2);
    CHECK_STR(buf_str(&b), "ab");
    char *s = buf_take(&b);
    CHECK_STR(s, "ab");
    CHECK_INT(b.len, 0);
    free(s);
    buf_init(&b, BUF_NO_CAP);
    for (int i = 0; i < 1000; i++) CHECK_INT(buf_addf(&b, "%03d", i % 1000), BUF_OK);
    CHECK_INT(b.len, 3000);
    CHECK(memcmp(b.data + 2997, "999", 3) == 0);
    buf_free_secret(&b);
    CHECK(b.data == NULL);
}

int main(void) {
    test_sagemaker_vectors();
    test_payload_hash_given();
    test_canonical_cases();
    test_bad_input();
    test_dates();
    test_authorization_parser();
    test_key_cache_threads();
    test_buf();
    return check_exit();
}
