/* Fuzzes the S3 client's readers of S3's replies (aws/s3.h, s3xml.h): a
 * ListObjectsV2 page and an error reply. Input: the reply's body.
 *
 * Every key handed on is a NUL-terminated string of the length the page gave
 * (no NUL inside), every size a number from 0; a truncated page names its
 * token; an error's code and message are one NUL-terminated line without
 * control characters; the element readers never read past the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "s3.h"
#include "s3xml.h"

static int fuzz_key(void *ud, const char *key, long long size, struct buf *err) {
    (void)err;
    if (!key || size < 0 || strlen(key) > (size_t)6 * S3_KEY_MAX) abort();
    return ++*(int *)ud > 100000; /* stop a runaway page */
}

static void fuzz_line(const char *s, size_t cap) {
    const char *end = memchr(s, '\0', cap);
    if (!end) abort();
    for (const char *p = s; p < end; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *xml = malloc(size ? size : 1);
    if (!xml) return 0;
    memcpy(xml, data, size); /* not NUL-terminated: a reader must keep to size */
    struct buf next, err, text;
    buf_init(&next, 4096);
    buf_init(&err, 1024);
    buf_init(&text, (size_t)64 * 1024);
    bool truncated = false;
    int n = 0;
    int rc = s3_parse_list(xml, size, fuzz_key, &n, &truncated, &next, &err);
    if (rc == S3_OK && truncated && !next.len && !memchr(xml, '<', size)) abort();
    if (rc < 0 && rc != S3_ERR_REPLY && rc != S3_ERR_NOMEM) abort();
    char code[128], msg[512];
    s3_parse_error(xml, size, code, msg);
    fuzz_line(code, sizeof code);
    fuzz_line(msg, sizeof msg);
    (void)!s3xml_text(xml, size, "Key", &text);
    buf_free(&next);
    buf_free(&err);
    buf_free(&text);
    free(xml);
    return 0;
}
