/* Fuzzes the vLLM reply scanner (plugin/rscan.h) against cJSON. Input: a 200
 * reply's body.
 *
 * What the scanner reads lies in the body: a plain span holds no quote or
 * backslash, an escaped one decodes. The reply parser says it scanned exactly
 * the bodies the scanner reads. Wherever both the scanner and cJSON read a
 * body, the replies agree on text, finish reason, token counts and error code
 * and message. The one documented difference, a lone surrogate escape that the
 * scanner reads as U+FFFD and cJSON refuses, is taken out by giving cJSON the
 * body with each lone surrogate escape spelled \ufffd. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugcheck.h"
#include "rscan.h"

static void fuzz_span(const struct jscan_str *s, const char *body, size_t len) {
    struct buf tmp;
    if (s->s < body || s->n > len || s->s + s->n > body + len) abort();
    if (!s->escaped && (memchr(s->s, '"', s->n) || memchr(s->s, '\\', s->n))) abort();
    buf_init(&tmp, BUF_NO_CAP);
    if (jscan_str_decode(s, &tmp) != BUF_OK) abort();
    buf_free(&tmp);
}

static int fuzz_hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The code point of the \uXXXX escape at p (n bytes left), or -1. */
static long fuzz_escape(const char *p, size_t n) {
    long v = 0;
    if (n < 6 || p[0] != '\\' || p[1] != 'u') return -1;
    for (int i = 2; i < 6; i++) {
        int h = fuzz_hex(p[i]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

static const char fuzz_fffd[4] = {'f', 'f', 'f', 'd'}; /* U+FFFD's escape digits */

/* body with each lone surrogate escape (one not of a high-low pair) spelled
 * \ufffd; malloc'ed, len bytes. */
static char *fuzz_no_lone_surrogates(const char *body, size_t len) {
    char *out = malloc(len ? len : 1);
    if (!out) abort();
    memcpy(out, body, len);
    for (size_t i = 0; i < len;) {
        long c = fuzz_escape(out + i, len - i);
        long next = len - i >= 12 ? fuzz_escape(out + i + 6, len - i - 6) : -1;
        if (out[i] != '\\') {
            i++;
        } else if (c >= 0xd800 && c < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
            i += 12;
        } else if (c >= 0xd800 && c < 0xe000) {
            memcpy(out + i + 2, fuzz_fffd, sizeof fuzz_fffd);
            i += 6;
        } else {
            i += c >= 0 ? 6 : 2;
        }
    }
    return out;
}

static bool fuzz_same(const struct reply *a, const struct reply *b) {
    return plugcheck_same(a->text, b->text) && plugcheck_same(a->finish_reason, b->finish_reason) &&
           a->prompt_tokens == b->prompt_tokens && a->completion_tokens == b->completion_tokens &&
           plugcheck_same(a->error_code, b->error_code) &&
           plugcheck_same(a->error_message, b->error_message);
}

static bool fuzz_not_json(const struct reply *r) {
    return plugcheck_same(r->error_message, "reply is not JSON");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *body = (const char *)data;
    struct rscan_reply v;
    struct reply fast, ref;
    bool scanned = rscan_vllm(body, size, &v);
    if (scanned && v.has_text) fuzz_span(&v.text, body, size);
    if (scanned && v.has_finish) fuzz_span(&v.finish, body, size);
    char *plain = fuzz_no_lone_surrogates(body, size);
    reply_init(&fast);
    reply_init(&ref);
    if (reply_parse_with(200, NULL, body, size, REPLY_TEXT, &fast) != REPLY_OK ||
        reply_parse_with(200, NULL, plain, size, REPLY_TEXT | REPLY_NO_SCAN, &ref) != REPLY_OK)
        abort();
    if (fast.scanned != scanned || (scanned && !fuzz_not_json(&ref) && !fuzz_same(&fast, &ref)))
        abort();
    reply_clear(&fast);
    reply_clear(&ref);
    free(plain);
    return 0;
}
