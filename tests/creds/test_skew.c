/* Clock skew: HTTP-date parsing, recognising signing-time errors, the offset
 * for the retry; and the error code/message of AWS error replies. */
#include "../check.h"
#include "awserr.h"
#include "skew.h"

#define T_20261130_102846 1796034526 /* Mon, 30 Nov 2026 10:28:46 GMT */

static const struct {
    const char *text;
    int rc;
    time_t want;
} dates[] = {
    {"Mon, 30 Nov 2026 10:28:46 GMT", 0, T_20261130_102846},
    {"Monday, 30-Nov-26 10:28:46 GMT", 0, T_20261130_102846},
    {"Mon Nov 30 10:28:46 2026", 0, T_20261130_102846},
    {"Sun Nov  6 08:49:37 1994", 0, 784111777},
    {"Sun, 06 Nov 1994 08:49:37 GMT", 0, 784111777},
    {"Sunday, 06-Nov-94 08:49:37 GMT", 0, 784111777},
    {"Thu, 01 Jan 1970 00:00:00 GMT", 0, 0},
    {"", -1, 0},
    {"Mon, 30 Nov 2026 10:28:46 UTC", -1, 0},
    {"Mon, 30 Nov 2026 10:28:46 GMT ", -1, 0},
    {"Mon, 30 Nov 2026 24:28:46 GMT", -1, 0},
    {"Mon, 30 Nov 2026 10:60:46 GMT", -1, 0},
    {"Mon, 32 Nov 2026 10:28:46 GMT", -1, 0},
    {"Mon, 00 Nov 2026 10:28:46 GMT", -1, 0},
    {"Mon, 30 Noz 2026 10:28:46 GMT", -1, 0},
    {"Mon, 3 Nov 2026 10:28:46 GMT", -1, 0},
    {"30 Nov 2026 10:28:46 GMT", -1, 0},
    {"Xyz, 30 Nov 2026 10:28:46 GMT", -1, 0},
    {"Mon, 30 Nov 26 10:28:46 GMT", -1, 0},
    {"Mon Nov 30 10:28:46", -1, 0},
};

static const char expired[] = "Signature expired: 20261130T092846Z is now earlier than "
                              "20261130T102346Z (20261130T102846Z - 5 min.)";
static const char not_yet[] = "Signature not yet current: 20261130T112846Z is still later than "
                              "20261130T103346Z (20261130T102846Z + 5 min.)";
static const char mismatch[] = "The request signature we calculated does not match the signature "
                               "you provided.";

static const struct {
    int status;
    const char *code, *message;
    bool want;
} errors[] = {
    {403, "InvalidSignatureException", expired, true},
    {403, "InvalidSignatureException", not_yet, true},
    {403, NULL, "signature EXPIRED: 20261130T092846Z", true},
    {403, "InvalidSignatureException", mismatch, false},
    {403, "RequestTimeTooSkewed", NULL, true},
    {400, "RequestExpired", "Request has expired.", true},
    {400, "RequestInTheFuture", "", true},
    {403, "UnrecognizedClientException", "The security token included in the request is invalid.",
     false},
    {500, "InvalidSignatureException", expired, false},
    {424, "ModelError", "Signature expired", false},
    {403, NULL, NULL, false},
    {200, NULL, NULL, false},
};

static const struct {
    int status;
    const char *message, *date;
    time_t local;
    int rc;
    long long want;
} offsets[] = {
    {403, expired, "Mon, 30 Nov 2026 10:28:46 GMT", T_20261130_102846 - 3600, 0, 3600},
    {403, not_yet, "Mon, 30 Nov 2026 10:28:46 GMT", T_20261130_102846 + 3600, 0, -3600},
    {403, expired, "Mon, 30 Nov 2026 10:28:46 GMT", T_20261130_102846, 0, 0},
    {403, expired, NULL, T_20261130_102846, -1, 0},
    {403, expired, "yesterday", T_20261130_102846, -1, 0},
    {403, mismatch, "Mon, 30 Nov 2026 10:28:46 GMT", T_20261130_102846 - 3600, -1, 0},
};

static const struct {
    const char *error_type, *body, *code, *message;
} replies[] = {
    {"ModelError:http://internal.amazon.com/coral/com.amazonaws.sagemaker/",
     "{\"ErrorCode\":\"CLIENT_ERROR_FROM_MODEL\",\"Message\":\"Received client error (400)\"}",
     "ModelError", "Received client error (400)"},
    {"InvalidSignatureException", "{\"message\":\"Signature expired: x\"}",
     "InvalidSignatureException", "Signature expired: x"},
    {NULL,
     "{\"__type\":\"com.amazon.coral.availability#ThrottlingException\",\"message\":\"Rate\"}",
     "ThrottlingException", "Rate"},
    {NULL, "{\"code\":\"ValidationError\",\"Message\":\"bad\"}", "ValidationError", "bad"},
    {"ValidationError:x", "{\"__type\":\"Other\",\"message\":\"m\"}", "ValidationError", "m"},
    {NULL, "{\"message\":\"line one\\nline\\ttwo\"}", "", "line one line two"},
    {NULL, "<html>Bad Gateway</html>", "", ""},
    {"", "", "", ""},
    {NULL, "{\"message\":42}", "", ""},
};

static void test_long_message(void) {
    char body[3000];
    struct awserr e;
    snprintf(body, sizeof body, "{\"message\":\"%02000d\"}", 7);
    awserr_parse(NULL, body, strlen(body), &e);
    CHECK_INT(strlen(e.message), sizeof e.message - 1);
    CHECK(strcmp(e.message + sizeof e.message - 4, "...") == 0);
    /* Cut before a character, not inside it: 2-byte characters from an odd offset. */
    char code[300] = "{\"__type\":\"x#A";
    for (int i = 0; i < 100; i++) strcat(code, "\xc3\xa9");
    strcat(code, "\"}");
    awserr_parse(NULL, code, strlen(code), &e);
    size_t kept = 1 + 61 * 2; /* "A" and 61 characters: 123 bytes, not the 124 that fit */
    CHECK_INT(strlen(e.code), kept + 3);
    CHECK(strcmp(e.code + kept, "...") == 0);
}

int main(void) {
    for (size_t i = 0; i < sizeof dates / sizeof *dates; i++) {
        time_t t = -5;
        int rc = skew_parse_http_date(dates[i].text, &t);
        fprintf(stderr, "date: '%s'\n", dates[i].text);
        CHECK_INT(rc, dates[i].rc);
        if (!rc) CHECK_INT(t, dates[i].want);
    }
    for (size_t i = 0; i < sizeof errors / sizeof *errors; i++) {
        fprintf(stderr, "error: %d %s\n", errors[i].status, errors[i].code ? errors[i].code : "-");
        CHECK_INT(skew_is_time_error(errors[i].status, errors[i].code, errors[i].message),
                  errors[i].want);
    }
    for (size_t i = 0; i < sizeof offsets / sizeof *offsets; i++) {
        long long off = 12345;
        fprintf(stderr, "offset case %zu\n", i);
        CHECK_INT(skew_offset(offsets[i].status, "InvalidSignatureException", offsets[i].message,
                              offsets[i].date, offsets[i].local, &off),
                  offsets[i].rc);
        CHECK_INT(off, offsets[i].rc ? 12345 : offsets[i].want);
    }
    for (size_t i = 0; i < sizeof replies / sizeof *replies; i++) {
        struct awserr e;
        fprintf(stderr, "reply: %s\n", replies[i].body);
        awserr_parse(replies[i].error_type, replies[i].body, strlen(replies[i].body), &e);
        CHECK_STR(e.code, replies[i].code);
        CHECK_STR(e.message, replies[i].message);
    }
    test_long_message();
    return check_exit();
}
