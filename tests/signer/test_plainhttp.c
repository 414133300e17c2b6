/* Signing for plain http: refused to a host that is not loopback unless
 * allowed; https and loopback (the emulator) always signed. */
#include <string.h>

#include "../check.h"
#include "plainhttp.h"

static const struct {
    const char *url;
    bool allow;
    int want;
} rows[] = {
    {"https://runtime.sagemaker.us-east-2.amazonaws.com", false, PLAINHTTP_OK},
    {"http://runtime.sagemaker.us-east-2.amazonaws.com", false, PLAINHTTP_ERR_REFUSED},
    {"HTTP://runtime.sagemaker.us-east-2.amazonaws.com/", false, PLAINHTTP_ERR_REFUSED},
    {"http://runtime.sagemaker.us-east-2.amazonaws.com", true, PLAINHTTP_OK},
    {"http://127.0.0.1:8080", false, PLAINHTTP_OK},
    {"http://127.3.4.5", false, PLAINHTTP_OK},
    {"http://localhost:8080/endpoints/x/invocations", false, PLAINHTTP_OK},
    {"http://LOCALHOST", false, PLAINHTTP_OK},
    {"http://[::1]:8080", false, PLAINHTTP_OK},
    {"http://[::ffff:127.0.0.1]:8080", false, PLAINHTTP_OK},
    {"http://10.0.0.5:8080", false, PLAINHTTP_ERR_REFUSED},
    {"http://128.0.0.1", false, PLAINHTTP_ERR_REFUSED},
    {"http://[::2]:8080", false, PLAINHTTP_ERR_REFUSED},
    {"http://localhost.evil.example", false, PLAINHTTP_ERR_REFUSED},
    {"http://127.0.0.1.nip.io", false, PLAINHTTP_ERR_REFUSED},
    {"http://127.0.0.1@evil.example", false, PLAINHTTP_ERR_REFUSED}, /* user info is no host */
    {"http://evil.example@127.0.0.1:8080", false, PLAINHTTP_OK},
    {"http://", false, PLAINHTTP_ERR_REFUSED},
    {"http://[::1", false, PLAINHTTP_ERR_REFUSED},
    {"ftp://example.com", false, PLAINHTTP_OK}, /* not this rule's: the caller refuses it */
};

int main(void) {
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct buf err;
        buf_init(&err, 512);
        int rc = plainhttp_check(rows[i].url, rows[i].allow, &err);
        if (rc != rows[i].want) fprintf(stderr, "row %zu: %s\n", i, rows[i].url);
        CHECK_INT(rc, rows[i].want);
        if (rc) { /* one line naming the host and the way out */
            CHECK(strstr(buf_str(&err), "--allow-plain-http") != NULL);
            CHECK(strchr(buf_str(&err), '\n') == NULL);
            CHECK(strstr(buf_str(&err), "evil.example@") == NULL || rows[i].want == 0);
        }
        buf_free(&err);
    }
    CHECK(plainhttp_loopback("127.0.0.1"));
    CHECK(plainhttp_loopback("::1"));
    CHECK(!plainhttp_loopback(""));
    CHECK(!plainhttp_loopback("169.254.169.254"));
    return check_exit();
}
