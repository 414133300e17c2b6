/* rscan: one pass over a vLLM reply body for the few fields a run records,
 * without building a tree:
 *
 *   {"choices":[{"message":{"content":T},"finish_reason":F}, ...],
 *    "usage":{"prompt_tokens":P,"completion_tokens":C,
 *             "completion_tokens_details":{"reasoning_tokens":R},
 *             "prompt_tokens_details":{"cached_tokens":K}}, ...}
 *   (completions: "text":T in place of the message)
 *
 * It reads what cJSON_GetObjectItemCaseSensitive would find (the first member
 * of a name; a value of another type counts as none) and checks the syntax of
 * everything else as it skips it. Strings without escapes, most of a reply's
 * bytes, are searched 16 bytes at a time (SSE2), past 64 bytes with memchr
 * (control characters in them pass, as cJSON lets them); strings with escapes
 * and numbers other than plain integers are read by jscan (common/jscan.h).
 * A body it cannot read as cJSON would is refused and goes to cJSON (reply.c):
 * another shape, escaped member names or names holding a NUL byte (which cJSON
 * cuts there), a "choices" that is not a non-empty array with an object first,
 * bytes after the value, JSON outside RFC 8259 (which cJSON may accept). The
 * one difference: a lone surrogate escape (\ud800), which cJSON refuses, reads
 * as U+FFFD.
 *
 * Pure C; allocates nothing; the spans point into the body. */
#ifndef SM_RSCAN_H
#define SM_RSCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "jscan.h"

struct rscan_reply {
    bool message;          /* choices[0] has a "message" (of any type) */
    bool has_text;         /* text holds message.content, or choices[0].text without message */
    struct jscan_str text; /* decode with jstr_decode when escaped */
    bool has_finish;       /* choices[0].finish_reason was a string */
    struct jscan_str finish;
    double prompt_tokens; /* usage's counts: NAN when absent or null, -1 when of another
                             type, else the number */
    double completion_tokens;
    double reasoning_tokens; /* usage.completion_tokens_details.reasoning_tokens, the same way */
    double cached_tokens;    /* usage.prompt_tokens_details.cached_tokens, the same way */
};

/* Reads body (len bytes) into out; false when cJSON must read it instead. */
bool rscan_vllm(const char *body, size_t len, struct rscan_reply *out);

#endif
