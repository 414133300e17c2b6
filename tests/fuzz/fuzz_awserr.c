/* Fuzzes the AWS error reply reader. Input: the x-amzn-ErrorType header's
 * value on the first line (no header when there is no newline), then the body.
 * The code and message must come back NUL-terminated and on one line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "awserr.h"

static void fuzz_check(const char *s, size_t size) {
    const char *end = memchr(s, '\0', size);
    if (!end) abort();
    for (; s < end; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *p = (const char *)data, *nl = memchr(p, '\n', size);
    char *type = nl ? strndup(p, (size_t)(nl - p)) : NULL;
    const char *body = nl ? nl + 1 : p;
    struct awserr e;
    if (nl && !type) return 0;
    memset(&e, 'x', sizeof e);
    awserr_parse(type, body, size - (size_t)(body - p), &e);
    fuzz_check(e.code, sizeof e.code);
    fuzz_check(e.message, sizeof e.message);
    free(type);
    return 0;
}
