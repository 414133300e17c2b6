/* Fuzzes the emulator's quiz-question recognizer. Input: a prompt.
 *
 * A question recognized starts (after white space) with "What is ", its key
 * is built from exactly the numbers or the country it names, the same
 * question written out afresh gives the same key, text after the question
 * mark changes nothing, and the answer is the exact sum or product (or the
 * table's capital). Anything else is ANS_NONE with an empty key. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ans.h"

/* The question's own text: "What is 1 * 2?", "What is the capital of X?". */
static void fuzz_render(const struct ans_question *q, char *out, size_t n) {
    if (q->kind == ANS_MUL)
        snprintf(out, n, "What is %ld * %ld?", q->a, q->b);
    else if (q->kind == ANS_ADD)
        snprintf(out, n, "What is %ld + %ld - %ld?", q->a, q->b, q->c);
    else
        snprintf(out, n, "What is the capital of %s?", q->key + 4);
}

static void fuzz_check_key(const struct ans_question *q, const char *start, const char *end) {
    char key[ANS_KEY_MAX + 32];
    if (q->kind == ANS_MUL)
        snprintf(key, sizeof key, "mul:%ld:%ld", q->a, q->b);
    else if (q->kind == ANS_ADD)
        snprintf(key, sizeof key, "add:%ld:%ld:%ld", q->a, q->b, q->c);
    else if (q->kind == ANS_CAP)
        snprintf(key, sizeof key, "cap:%.*s", (int)(end - start), start);
    else
        abort();
    if (strcmp(key, q->key) != 0) abort();
    if (q->kind == ANS_CAP && strlen(q->key) != (size_t)(end - start) + 4) abort();
}

/* The answer: the exact value, or a capital for a country of the table. */
static void fuzz_check_answer(const struct ans_question *q) {
    struct buf out;
    char want[64];
    buf_init(&out, 256);
    bool known = ans_correct(q, &out);
    if (q->kind == ANS_MUL || q->kind == ANS_ADD) {
        __int128 v = q->kind == ANS_MUL ? (__int128)q->a * q->b : (__int128)q->a + q->b - q->c;
        snprintf(want, sizeof want, "%" PRId64, (int64_t)v);
        if (!known || v != (int64_t)v || strcmp(buf_str(&out), want) != 0) abort();
    } else if (known != (out.len > 0)) {
        abort();
    }
    buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *p = (const char *)data;
    struct ans_question q, again;
    if (!ans_parse(p, size, &q)) {
        if (q.kind != ANS_NONE || q.key[0]) abort();
        return 0;
    }
    size_t skip = 0;
    while (skip < size && strchr(" \t\r\n", p[skip]) && p[skip]) skip++;
    if (size - skip < 8 || memcmp(p + skip, "What is ", 8) != 0) abort();
    const char *mark = memchr(p + skip, '?', size - skip);
    if (!mark) abort();
    fuzz_check_key(&q, p + skip + 23, mark);
    if (q.a > 1000000009L || q.a < -1000000009L || q.b > 1000000009L || q.b < -1000000009L ||
        q.c > 1000000009L || q.c < -1000000009L)
        abort();
    char text[ANS_KEY_MAX + 64];
    fuzz_render(&q, text, sizeof text);
    if (!ans_parse(text, strlen(text), &again) || strcmp(again.key, q.key) != 0) abort();
    size_t through_mark = (size_t)(mark - p) + 1;
    if (!ans_parse(p, through_mark, &again) || strcmp(again.key, q.key) != 0) abort();
    fuzz_check_answer(&q);
    return 0;
}
