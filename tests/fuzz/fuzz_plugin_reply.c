/* Fuzzes the reply parser (plugin/reply.h) with every status and error body.
 * Input: "STATUS[ x-amzn-ErrorType]\nBODY", else a 200 whose body is the whole
 * input (plugcheck.h).
 *
 * Each reply is one reply_parse_with may give (plugcheck_reply: a usable
 * success, or a one-line code, not blank, and a one-line message of at most
 * REPLY_MESSAGE_MAX bytes, a 424's original status in range and named in the
 * message, well-formed UTF-8 out of well-formed UTF-8 in). Reading without the
 * text changes nothing but the text; a failure reads the same with and
 * without the scanner. The header line also goes through reply_service_us:
 * -1, or a value in range that only digits gave. */
#include <stdint.h>
#include <stdlib.h>

#include "plugcheck.h"
#include "rfield.h"

static void fuzz_parse(const struct plugcheck_input *in, unsigned flags, bool utf8,
                       struct reply *r) {
    reply_init(r);
    if (reply_parse_with(in->status, in->error_type, in->body, in->len, flags, r) != REPLY_OK)
        abort();
    plugcheck_reply(r, in->status, flags, utf8);
}

/* Whether a and b agree on everything but the text. */
static bool fuzz_same_but_text(const struct reply *a, const struct reply *b) {
    return a->status == b->status && a->prompt_tokens == b->prompt_tokens &&
           a->completion_tokens == b->completion_tokens &&
           plugcheck_same(a->finish_reason, b->finish_reason) &&
           plugcheck_same(a->error_code, b->error_code) &&
           plugcheck_same(a->error_message, b->error_message) &&
           a->original_status == b->original_status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct plugcheck_input in;
    struct reply with_text, without_text, cjson;
    bool utf8 = plugcheck_utf8((const char *)data, size);
    plugcheck_input_split(data, size, &in);
    long long us = reply_service_us(in.error_type);
    if (us < -1 || us > RFIELD_SERVER_US_MAX || (us >= 0 && !in.error_type[0])) abort();
    fuzz_parse(&in, REPLY_TEXT, utf8, &with_text);
    fuzz_parse(&in, 0, utf8, &without_text);
    fuzz_parse(&in, REPLY_TEXT | REPLY_NO_SCAN, utf8, &cjson);
    if (!fuzz_same_but_text(&with_text, &without_text) || with_text.scanned != without_text.scanned)
        abort();
    if (with_text.error_code && !with_text.scanned &&
        (!fuzz_same_but_text(&with_text, &cjson) || !plugcheck_same(with_text.text, cjson.text)))
        abort();
    reply_clear(&with_text);
    reply_clear(&without_text);
    reply_clear(&cjson);
    plugcheck_input_free(&in);
    return 0;
}
