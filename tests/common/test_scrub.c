/* scrub (common/scrub.h): a registered secret, raw or URL-encoded, whole or its
 * first SCRUB_PREFIX characters onward, never survives; short secrets are not
 * registered; a SigV4 or bearer Authorization value is redacted whole; forgetting
 * works; in place and appended alike. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "scrub.h"

#define TOKEN  "IQoJb3JpZ2luX2VjEXAMPLE+/TOKEN=="
#define SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

static const struct {
    const char *text, *want;
} rows[] = {
    {"X-Amz-Security-Token: " TOKEN "\r\n", "X-Amz-Security-Token: <redacted>\r\n"},
    {"token=IQoJb3JpZ2luX2VjEXAMPLE%2B%2FTOKEN%3D%3D&x", "token=<redacted>&x"},
    {"cut IQoJb3JpZ2lu", "cut <redacted>"},     /* the first 12 */
    {"short IQoJb3JpZ2l", "short IQoJb3JpZ2l"}, /* 11: not an echo */
    {SECRET "!" SECRET, "<redacted>!<redacted>"},
    {"wJalrXUtnFEMI/K7MDENGxx", "<redacted>xx"}, /* the echo stops where it differs */
    {"EXAMPLEKEY alone", "EXAMPLEKEY alone"},    /* the middle is no echo */
    {"nothing here", "nothing here"},
    {"Authorization: AWS4-HMAC-SHA256 Credential=AKIDX/20261201/us-east-1/sagemaker/"
     "aws4_request, SignedHeaders=host;x-amz-date, Signature=" /* 64 hex */
     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\r\nHost: h",
     "Authorization: <redacted>\r\nHost: h"},
    {"AWS4-HMAC-SHA256 cut\nnext", "<redacted>\nnext"},
    {"Authorization: Bearer abcDEF0123456789-._~+/xyz==\r\nHost: h",
     "Authorization: <redacted>\r\nHost: h"}, /* a bearer token, registered or not */
    {"\"Bearer abcDEF0123456789xyz\"", "\"<redacted>\""},
    {"Bearer short-token here", "Bearer short-token here"}, /* under SCRUB_MIN: prose */
    {"finish: Bearer bearer-TO", "finish: <redacted>"},     /* cut at the end: an echo */
    {"bearer bonds are seldom issued", "bearer bonds are seldom issued"},
    {"", ""},
};

int main(void) {
    CHECK_INT(scrub_add(TOKEN), 0);
    CHECK_INT(scrub_add(SECRET), 0);
    CHECK_INT(scrub_add(TOKEN), 0);          /* again: kept once */
    CHECK_INT(scrub_add("short-secret"), 0); /* under SCRUB_MIN: not registered */
    CHECK_INT(scrub_add(NULL), 0);
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        buf_reset(&b);
        CHECK_INT(scrub_append(&b, rows[i].text, strlen(rows[i].text)), 0);
        CHECK_STR(buf_str(&b), rows[i].want);
        char *copy = strdup(rows[i].text);
        scrub_in_place(copy);
        CHECK_STR(copy, rows[i].want);
        free(copy);
    }
    buf_reset(&b);
    CHECK_INT(scrub_append(&b, "a short-secret b", 16), 0);
    CHECK_STR(buf_str(&b), "a short-secret b");
    scrub_forget();
    buf_reset(&b);
    CHECK_INT(scrub_append(&b, TOKEN, strlen(TOKEN)), 0);
    CHECK_STR(buf_str(&b), TOKEN);
    buf_free(&b);
    return check_exit();
}
