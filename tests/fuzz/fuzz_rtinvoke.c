/* Fuzzes the reader of a SageMaker Runtime reply (aws/rtinvoke.h): after the
 * first byte (which picks the status), the input's lines up to a NUL byte are
 * header lines as curl hands them over (status lines of interim replies
 * included), the rest the body. What is kept (reason, x-amzn-ErrorType, Date)
 * must stay within its cap and hold no control character, and the error line
 * must be one line without control characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtinvoke.h"

static void fuzz_check(const struct buf *b, size_t cap) {
    if (!b->data) {
        if (b->len) abort();
        return;
    }
    if (b->len > cap || b->data[b->len] != '\0') abort();
    for (size_t i = 0; i < b->len; i++)
        if ((unsigned char)b->data[i] < 0x20 || b->data[i] == 0x7f) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const long statuses[] = {200, 204, 400, 403, 404, 424, 429, 500, 502, 503, 0, 299, 300};
    const char *p = (const char *)data, *end = p + size;
    struct rtinvoke_reply rep;
    struct buf err;
    if (!size) return 0;
    rtinvoke_reply_init(&rep, 4096);
    buf_init(&err, 4096);
    rep.status = statuses[(unsigned char)*p++ % (sizeof statuses / sizeof statuses[0])];
    const char *nul = memchr(p, '\0', (size_t)(end - p));
    const char *head_end = nul ? nul : end;
    while (p < head_end) {
        const char *nl = memchr(p, '\n', (size_t)(head_end - p));
        size_t len = nl ? (size_t)(nl + 1 - p) : (size_t)(head_end - p);
        rtinvoke_reply_line(&rep, p, len);
        p += len;
    }
    if (nul) p = nul + 1;
    (void)!buf_add(&rep.body, p, (size_t)(end - p));
    fuzz_check(&rep.reason, 1024);
    fuzz_check(&rep.error_type, 1024);
    fuzz_check(&rep.date, 1024);
    int rc = rtinvoke_failure(&rep, &err);
    if ((rc != 0) != !(rep.status >= 200 && rep.status <= 299)) abort();
    if (rc) fuzz_check(&err, 4096);
    rtinvoke_reply_free(&rep);
    buf_free(&err);
    return 0;
}
