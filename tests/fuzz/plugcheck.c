#include "plugcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

#define PLUGCHECK_COUNT_MAX 9000000000000000L /* reply.c believes no larger count */

void plugcheck_input_split(const uint8_t *data, size_t size, struct plugcheck_input *in) {
    const char *p = (const char *)data, *nl = memchr(p, '\n', size);
    size_t digits = 0;
    int status = 0;
    while (digits < size && digits < 3 && p[digits] >= '0' && p[digits] <= '9')
        status = status * 10 + (p[digits++] - '0');
    *in = (struct plugcheck_input){.status = 200, .body = p, .len = size};
    if (!nl || !digits || (p + digits != nl && p[digits] != ' ')) return;
    in->status = status;
    if (p + digits != nl &&
        !(in->error_type = strndup(p + digits + 1, (size_t)(nl - p) - digits - 1)))
        abort();
    in->body = nl + 1;
    in->len = size - (size_t)(nl + 1 - p);
}

void plugcheck_input_free(struct plugcheck_input *in) {
    free(in->error_type);
    in->error_type = NULL;
}

bool plugcheck_same(const char *a, const char *b) {
    return a == b || (a && b && strcmp(a, b) == 0);
}

bool plugcheck_utf8(const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c;
    for (size_t i = 0, k; i < n; i += k)
        if (!(k = utf8_decode(u + i, n - i, &c))) return false;
    return true;
}

void plugcheck_one_line(const char *s, size_t max) {
    if (!s || strlen(s) > max) abort();
    for (; *s; s++)
        if ((unsigned char)*s < ' ' || *s == 0x7f) abort();
}

static void plugcheck_count(long n) {
    if (n < -1 || n >= PLUGCHECK_COUNT_MAX) abort();
}

static void plugcheck_utf8_opt(const char *s) {
    if (s && !plugcheck_utf8(s, strlen(s))) abort();
}

/* A failure: a one-line code (not blank, no space around) and message, nothing
 * of a success. */
static void plugcheck_failure(const struct reply *r, bool success) {
    char head[48];
    size_t n = strlen(r->error_code);
    if (r->text || r->finish_reason || r->prompt_tokens != -1 || r->completion_tokens != -1 ||
        !r->error_message || !n || r->error_code[0] == ' ' || r->error_code[n - 1] == ' ' ||
        (success && strcmp(r->error_code, "parse") != 0) || (!success && r->scanned))
        abort();
    plugcheck_one_line(r->error_code, REPLY_MESSAGE_MAX);
    plugcheck_one_line(r->error_message, REPLY_MESSAGE_MAX);
    if (!r->original_status) return;
    snprintf(head, sizeof head, "container answered %d:", r->original_status);
    if (success || r->original_status < 100 || r->original_status > 999 ||
        strncmp(r->error_message, head, strlen(head)) != 0)
        abort();
}

void plugcheck_reply(const struct reply *r, int status, unsigned flags, bool utf8) {
    bool success = status >= 200 && status < 300;
    plugcheck_count(r->prompt_tokens);
    plugcheck_count(r->completion_tokens);
    if (r->status != status) abort();
    if (r->error_code) {
        plugcheck_failure(r, success);
    } else if (!success || r->error_message || r->original_status ||
               (r->text != NULL) != ((flags & REPLY_TEXT) != 0)) {
        abort();
    }
    if (!utf8) return;
    plugcheck_utf8_opt(r->text);
    plugcheck_utf8_opt(r->finish_reason);
    plugcheck_utf8_opt(r->error_code);
    plugcheck_utf8_opt(r->error_message);
}

const struct quizfile *plugcheck_quiz(void) {
    static struct quizfile *qz;
    struct buf err;
    if (qz) return qz;
    buf_init(&err, 1024);
    if (quizfile_read(SM_QUIZ_FILE, &qz, &err) < 0 || qz->n == 0) abort();
    buf_free(&err);
    return qz;
}
