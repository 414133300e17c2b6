/* SigV4 verification worded like SageMaker: each refusal's type and message,
 * at a fixed clock (2015-08-30T12:36:00Z), with requests signed by the
 * project's signer the way a client would. */
#include <string.h>

#include "auth.h"
#include "check.h"

#define NOW    1440938160 /* 20150830T123600Z */
#define AKID   "AKIDEXAMPLE"
#define SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define TAKID  "ASIATEMP"
#define TOKEN  "FQoGZXIvYXdzEXAMPLETOKEN"
#define BODY   "{\"inputs\":\"hi\"}"
#define MISMATCH                                                                                   \
    "The request signature we calculated does not match the signature you provided. Check your "   \
    "AWS Secret Access Key and signing method. Consult the service documentation for details."

struct sign_case {
    const char *name;
    const char *akid, *secret, *token; /* what the client signs with */
    const char *region, *service;
    long skew;        /* client clock minus server clock, seconds */
    const char *body; /* sent; the signature covers BODY */
    bool no_auth, no_date, no_host, junk_auth;
    const char *type; /* expected; NULL = accepted */
    const char *message;
};

static const struct sign_case cases[] = {
    {"accepted", AKID, SECRET, NULL, "us-east-1", "sagemaker", 0, NULL, 0, 0, 0, 0, NULL, NULL},
    {"5 minutes old is still fine", AKID, SECRET, NULL, "us-east-1", "sagemaker", -300, NULL, 0, 0,
     0, 0, NULL, NULL},
    {"no authorization", AKID, SECRET, NULL, "us-east-1", "sagemaker", 0, NULL, 1, 0, 0, 0,
     "MissingAuthenticationTokenException", "Missing Authentication Token"},
    {"not sigv4", AKID, SECRET, NULL, "us-east-1", "sagemaker", 0, NULL, 0, 0, 0, 1,
     "IncompleteSignatureException",
     "Authorization header requires 'Credential' parameter. Authorization header requires "
     "'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. "
     "Authorization=Basic dXNlcjpwdw=="},
    {"no date", AKID, SECRET, NULL, "us-east-1", "sagemaker", 0, NULL, 0, 1, 0, 0,
     "IncompleteSignatureException", NULL},
    {"unknown key", "AKIDUNKNOWN", SECRET, NULL, "us-east-1", "sagemaker", 0, NULL, 0, 0, 0, 0,
     "UnrecognizedClientException", "The security token included in the request is invalid."},
    {"wrong secret", AKID, "wrong", NULL, "us-east-1", "sagemaker", 0, NULL, 0, 0, 0, 0,
     "InvalidSignatureException", MISMATCH},
    {"body changed", AKID, SECRET, NULL, "us-east-1", "sagemaker", 0, "{\"inputs\":\"ho\"}", 0, 0,
     0, 0, "InvalidSignatureException", MISMATCH},
    {"other region", AKID, SECRET, NULL, "us-west-2", "sagemaker", 0, NULL, 0, 0, 0, 0,
     "InvalidSignatureException",
     "Credential should be scoped to a valid region, not 'us-west-2'. "},
    {"other service", AKID, SECRET, NULL, "us-east-1", "execute-api", 0, NULL, 0, 0, 0, 0,
     "InvalidSignatureException", "Credential should be scoped to correct service: 'sagemaker'. "},
    {"too old", AKID, SECRET, NULL, "us-east-1", "sagemaker", -360, NULL, 0, 0, 0, 0,
     "InvalidSignatureException",
     "Signature expired: 20150830T123000Z is now earlier than 20150830T123100Z (20150830T123600Z "
     "- 5 min.)"},
    {"in the future", AKID, SECRET, NULL, "us-east-1", "sagemaker", 360, NULL, 0, 0, 0, 0,
     "InvalidSignatureException",
     "Signature not yet current: 20150830T124200Z is still later than 20150830T124100Z "
     "(20150830T123600Z + 5 min.)"},
    {"host not signed", AKID, SECRET, NULL, "us-east-1", "sagemaker", 0, NULL, 0, 0, 1, 0,
     "InvalidSignatureException",
     "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."},
    {"token accepted", TAKID, SECRET, TOKEN, "us-east-1", "sagemaker", 0, NULL, 0, 0, 0, 0, NULL,
     NULL},
    {"token missing", TAKID, SECRET, NULL, "us-east-1", "sagemaker", 0, NULL, 0, 0, 0, 0,
     "UnrecognizedClientException", "The security token included in the request is invalid."},
    {"token wrong", TAKID, SECRET, "OTHERTOKEN", "us-east-1", "sagemaker", 0, NULL, 0, 0, 0, 0,
     "UnrecognizedClientException", "The security token included in the request is invalid."},
    {"token on a key without one", AKID, SECRET, TOKEN, "us-east-1", "sagemaker", 0, NULL, 0, 0, 0,
     0, "UnrecognizedClientException", "The security token included in the request is invalid."},
    {"token expired", "ASIAOLD", SECRET, TOKEN, "us-east-1", "sagemaker", 0, NULL, 0, 0, 0, 0,
     "ExpiredTokenException", "The security token included in the request is expired"},
};

/* Signs like a client and runs the verifier at NOW. */
static void run(struct auth *a, struct sigv4_signer *signer, const struct sign_case *c) {
    char date[SIGV4_DATE_LEN + 1];
    CHECK_INT(sigv4_format_date(NOW + c->skew, date), 0);
    struct sigv4_header hs[8] = {
        {"Accept", 6, "application/json", 16},
        {"Content-Type", 12, "application/json", 16},
        {"Host", 4, "runtime.sagemaker.us-east-1.amazonaws.com", 41},
        {"X-Amz-Date", 10, date, SIGV4_DATE_LEN},
    };
    size_t n = 4;
    if (c->token)
        hs[n++] = (struct sigv4_header){"X-Amz-Security-Token", 20, c->token, strlen(c->token)};
    const char *target = "/endpoints/my-endpoint/invocations";
    struct sigv4_request req = {"POST", target, strlen(target), hs, n, BODY, strlen(BODY), NULL};
    struct sigv4_credentials creds = {c->akid, c->secret, NULL};
    struct sigv4_params p = {c->region, c->service, date, false, false};
    struct sigv4_result r;
    sigv4_result_init(&r);
    CHECK_INT(sigv4_sign(signer, &req, &creds, &p, &r), 0);
    char *host = strstr(r.authorization.data, ";host");
    if (c->no_host && host) { /* a client that left Host out of SignedHeaders */
        memmove(host, host + 5, strlen(host + 5) + 1);
        r.authorization.len -= 5;
    }
    if (c->junk_auth) {
        buf_reset(&r.authorization);
        CHECK_INT(buf_adds(&r.authorization, "Basic dXNlcjpwdw=="), 0);
    }
    struct sigv4_header sent[10];
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!(c->no_date && i == 3)) sent[m++] = hs[i];
    if (!c->no_auth)
        sent[m++] =
            (struct sigv4_header){"Authorization", 13, r.authorization.data, r.authorization.len};
    const char *body = c->body ? c->body : BODY;
    struct auth_request ar = {"POST", target, strlen(target), sent, m, body, strlen(body)};
    struct buf why;
    buf_init(&why, BUF_NO_CAP);
    int rc = auth_verify(a, &ar, NOW, &why);
    const char *type = auth_error_type(rc);
    if ((rc == 0) != (c->type == NULL) || (c->type && (!type || strcmp(type, c->type) != 0)))
        fprintf(stderr, "case '%s': got %d %s: %s\n", c->name, rc, type ? type : "accepted",
                buf_str(&why));
    CHECK((rc == 0) == (c->type == NULL));
    CHECK(rc == 0 || type != NULL); /* every refusal has a SageMaker error type */
    if (c->type && type) CHECK_STR(type, c->type);
    if (c->message) CHECK_STR(buf_str(&why), c->message);
    if (c->no_date)
        CHECK(strstr(buf_str(&why), "requires existence of either a 'X-Amz-Date' or a "
                                    "'Date' header. Authorization=AWS4-HMAC-SHA256 ") != NULL);
    buf_free(&why);
    sigv4_result_free(&r);
}

/* --credential's EXPIRY: each form and each kind of bad value (0: refused). */
static void test_expiry(void) {
    static const struct {
        const char *text;
        time_t want;
    } cases[] = {
        {"K:s:T@1440938220", NOW + 60},
        {"K:s:T@+60", NOW + 60},
        {"K:s:T@-60", NOW - 60},
        {"K:s:T@2015-08-30T12:37:00Z", NOW + 60},
        {"K:s:T@2015-08-30T12:37:00.250Z", NOW + 60},
        {"K:s:T@2015-08-30T14:37:00+02:00", NOW + 60},
        {"K:s:T@2015-13-30T12:37:00Z", 0},
        {"K:s:T@2015-8-30T12:37:00Z", 0},
        {"K:s:T@2015-08-30T12:37:00", 0},
        {"K:s:T@99999999999999999999", 0},
        {"K:s:T@+", 0},
        {"K:s:T@soon", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct auth a;
        struct buf err;
        buf_init(&err, 4096);
        CHECK_INT(auth_init(&a, "us-east-1"), 0);
        int rc = auth_add_text(&a, cases[i].text, NOW, &err);
        CHECK_INT(rc, cases[i].want ? 0 : AUTH_ERR_INVALID);
        if (rc == 0) CHECK_INT(a.keys[0].expiration, cases[i].want);
        if (rc)
            CHECK_STR(buf_str(&err), "--credential: want AKID:SECRET[:TOKEN][@EXPIRY] (key 'K')");
        auth_free(&a);
        buf_free(&err);
    }
}

/* Bearer tokens (the OpenAI route): only a token given is accepted, the scheme
 * in any case; a refusal never quotes the token; bad tokens are refused at start. */
static void test_bearer(void) {
    static const struct {
        const char *value;
        int rc;
    } rows[] = {
        {"Bearer sagemaker-api-key-abc", AUTH_OK},
        {"bearer sagemaker-api-key-abc", AUTH_OK},
        {"Bearer  other", AUTH_OK},
        {"Bearer sagemaker-api-key-ab", AUTH_ERR_BEARER},
        {"Bearer sagemaker-api-key-abcd", AUTH_ERR_BEARER},
        {"Bearer ", AUTH_ERR_BEARER},
        {"Basic sagemaker-api-key-abc", AUTH_ERR_BEARER},
        {"AWS4-HMAC-SHA256 Credential=x", AUTH_ERR_BEARER},
    };
    struct auth a;
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(auth_init(&a, "us-east-1"), 0);
    CHECK_INT(auth_add_bearer(&a, "sagemaker-api-key-abc", &err), 0);
    CHECK_INT(auth_add_bearer(&a, "other", &err), 0);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        buf_reset(&err);
        const char *v = rows[i].value;
        CHECK_INT(auth_bearer(&a, v, strlen(v), &err), rows[i].rc);
        if (rows[i].rc)
            CHECK_STR(buf_str(&err), "The bearer token included in the request is invalid.");
    }
    CHECK(auth_is_bearer("BEARER x", 8) && !auth_is_bearer("Bearer", 6));
    static const char *const bad[] = {"", "two words", "tab\tin", "\xc3\xa9t\xc3\xa9"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        buf_reset(&err);
        CHECK_INT(auth_add_bearer(&a, bad[i], &err), AUTH_ERR_INVALID);
        CHECK(strncmp(buf_str(&err), "--bearer-token: want 1 to", 25) == 0);
        CHECK(!*bad[i] || !strstr(buf_str(&err), bad[i]));
    }
    CHECK_INT(a.n_bearers, 2);
    auth_free(&a);
    buf_free(&err);
}

int main(void) {
    test_expiry();
    test_bearer();
    struct auth a;
    struct sigv4_signer *signer = sigv4_signer_new();
    CHECK_INT(auth_init(&a, "us-east-1"), 0);
    CHECK_INT(auth_add_key(&a, AKID, SECRET, NULL, 0), 0);
    CHECK_INT(auth_add_key(&a, TAKID, SECRET, TOKEN, NOW + 60), 0);
    CHECK_INT(auth_add_key(&a, "ASIAOLD", SECRET, TOKEN, NOW - 1), 0);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run(&a, signer, &cases[i]);
    auth_free(&a);
    sigv4_signer_free(signer);
    return check_exit();
}
