/* Fuzzes the quiz matcher (plugin/quiz.h) with the reference quiz's patterns
 * (scenarios/quiz-compare-py-40.json). Input: one byte choosing the question,
 * then a reply of any bytes.
 *
 * quiz_strip drops only white space (Python's str.isspace) around the part it
 * keeps, which neither starts nor ends with white space and is kept whole when
 * stripped again; on well-formed UTF-8 it cuts where a strip of the decoded
 * code points does. Every search succeeds; a pattern matches the stripped reply
 * exactly when it matches the whole reply (no reference pattern can use the
 * white space around), and the answer between spaces always matches, whatever
 * bytes come around it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugcheck.h"
#include "quiz.h"
#include "utf8.h"

/* The code points Python's str.isspace() accepts, as ranges. */
static const uint32_t fuzz_spaces[][2] = {
    {0x09, 0x0d},     {0x1c, 0x20},     {0x85, 0x85},     {0xa0, 0xa0},     {0x1680, 0x1680},
    {0x2000, 0x200a}, {0x2028, 0x2029}, {0x202f, 0x202f}, {0x205f, 0x205f}, {0x3000, 0x3000},
};

static bool fuzz_space(uint32_t c) {
    for (size_t i = 0; i < sizeof fuzz_spaces / sizeof *fuzz_spaces; i++)
        if (c >= fuzz_spaces[i][0] && c <= fuzz_spaces[i][1]) return true;
    return false;
}

/* Whether s[0..n) is white space, sequence by sequence. */
static bool fuzz_all_space(const unsigned char *s, size_t n) {
    uint32_t c;
    for (size_t i = 0, k; i < n; i += k)
        if (!(k = utf8_decode(s + i, n - i, &c)) || !fuzz_space(c)) return false;
    return true;
}

/* The strip of well-formed UTF-8 done on its code points: *off and *n (*off
 * 0 when nothing is left). */
static void fuzz_strip_decoded(const unsigned char *s, size_t len, size_t *off, size_t *n) {
    size_t first = len, last = 0, k;
    uint32_t c;
    for (size_t i = 0; i < len; i += k) {
        k = utf8_decode(s + i, len - i, &c);
        if (fuzz_space(c)) continue;
        if (first == len) first = i;
        last = i + k;
    }
    *off = first == len ? 0 : first;
    *n = first == len ? 0 : last - first;
}

static void fuzz_check_strip(const unsigned char *s, size_t len, size_t off, size_t n) {
    size_t again_off, again_n, want_off, want_n;
    uint32_t c;
    if (off > len || n > len - off || !fuzz_all_space(s, off) ||
        !fuzz_all_space(s + off + n, len - off - n))
        abort();
    if (n && utf8_decode(s + off, n, &c) && fuzz_space(c)) abort();
    for (size_t k = 1; k <= 4 && k <= n; k++)
        if (utf8_decode(s + off + n - k, k, &c) == k && fuzz_space(c)) abort();
    quiz_strip((const char *)s + off, n, &again_off, &again_n);
    if (again_off != 0 || again_n != n) abort();
    if (!plugcheck_utf8((const char *)s, len)) return;
    fuzz_strip_decoded(s, len, &want_off, &want_n);
    if (n != want_n || (n && off != want_off)) abort();
}

static bool fuzz_search(const struct quiz_re *re, const char *s, size_t n) {
    bool found;
    if (quiz_re_search(re, s, n, &found) != QUIZ_OK) abort();
    return found;
}

/* s, then " answer ", then s again, into out. */
static void fuzz_around(const char *s, size_t len, const char *answer, struct buf *out) {
    if (buf_add(out, s, len) || buf_addc(out, ' ') || buf_adds(out, answer) || buf_addc(out, ' ') ||
        buf_add(out, s, len))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const struct quizfile *qz = plugcheck_quiz();
    size_t off, n;
    struct buf around;
    if (size == 0) return 0;
    const struct quizfile_question *q = &qz->q[data[0] % qz->n];
    const char *reply = (const char *)data + 1;
    size_t len = size - 1;
    quiz_strip(reply, len, &off, &n);
    fuzz_check_strip(data + 1, len, off, n);
    if (fuzz_search(q->re, reply, len) != fuzz_search(q->re, reply + off, n)) abort();
    buf_init(&around, BUF_NO_CAP);
    fuzz_around(reply, len, q->answer, &around);
    if (!fuzz_search(q->re, around.data, around.len)) abort();
    buf_free(&around);
    return 0;
}
