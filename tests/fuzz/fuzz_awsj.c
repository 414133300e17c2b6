/* Fuzzes awsj's readers of server replies: error replies (code, message, the
 * one-line error) and next-page tokens, and the request rewritten with a token.
 * Input: the x-amzn-query-error header's value on the first line, the
 * x-amzn-ErrorType value on the second (no header when there is no newline),
 * then the body. The code, message and line must be one NUL-terminated line of
 * bounded size holding no secret's first SCRUB_PREFIX characters; a
 * rewritten request must be a JSON object with the token once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "awsj.h"
#include "scrub.h"

static const char *const secrets[] = {"FUZZsecretKEY/0123456789+abcdefghijklmnop",
                                      "FUZZsessionTOKEN/0123456789+abcdefghijk=="};

static void fuzz_check(const char *s, size_t size) {
    const char *end = memchr(s, '\0', size);
    if (!end) abort();
    for (const char *p = s; p < end; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) abort();
    for (size_t k = 0; k < 2; k++)
        if (memmem(s, (size_t)(end - s), secrets[k], SCRUB_PREFIX)) abort();
}

/* Splits off one line of the input, or returns NULL (no header) when there is none. */
static char *fuzz_line(const char **p, size_t *n) {
    const char *nl = memchr(*p, '\n', *n);
    if (!nl) return NULL;
    char *line = strndup(*p, (size_t)(nl - *p));
    if (!line) abort();
    *n -= (size_t)(nl + 1 - *p);
    *p = nl + 1;
    return line;
}

static void fuzz_tokens(const char *body, size_t n) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = awsj_next_token(body, n, "nextToken", &b);
    if (rc != AWSJ_OK && rc != AWSJ_ERR_REPLY && rc != AWSJ_ERR_NOMEM) abort();
    if (rc != AWSJ_OK && b.len) abort();
    char *request = strndup(body, n);
    if (!request) abort();
    if (awsj_with_token(request, "nextToken", "T\"1", &b) == AWSJ_OK) {
        cJSON *root = cJSON_Parse(buf_str(&b)), *v;
        int seen = 0;
        if (!cJSON_IsObject(root)) abort();
        cJSON_ArrayForEach(v, root) if (v->string && strcmp(v->string, "nextToken") == 0) {
            if (!cJSON_IsString(v) || strcmp(v->valuestring, "T\"1") != 0) abort();
            seen++;
        }
        if (seen != 1) abort();
        cJSON_Delete(root);
    }
    free(request);
    buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int registered;
    if (!registered++ && (scrub_add(secrets[0]) || scrub_add(secrets[1]))) abort();
    const char *p = (const char *)data;
    size_t n = size;
    char *query_error = fuzz_line(&p, &n);
    char *error_type = query_error ? fuzz_line(&p, &n) : NULL;
    struct awsj_reply_error e;
    memset(&e, 'x', sizeof e);
    awsj_parse_error(query_error, error_type, p, n, &e);
    fuzz_check(e.code, sizeof e.code);
    fuzz_check(e.message, sizeof e.message);
    struct buf line;
    buf_init(&line, 2048);
    if (awsj_error_line(&line, awsj_service(AWSJ_LOGS), "FilterLogEvents", &e, 400, 3)) abort();
    fuzz_check(buf_str(&line), line.len + 1);
    buf_free(&line);
    fuzz_tokens(p, n);
    free(query_error);
    free(error_type);
    return 0;
}
