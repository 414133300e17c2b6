/* reply: what a SageMaker invocation answered, from its status, its
 * x-amzn-ErrorType header and its body.
 *
 * Success bodies (2xx) of every container format are recognised by shape:
 *   vLLM chat         {"choices":[{"message":{"content":T},"finish_reason":F}],
 *                      "usage":{"prompt_tokens":P,"completion_tokens":C}}
 *   vLLM completions  {"choices":[{"text":T,"finish_reason":F}],"usage":{...}}
 *   TGI               [{"generated_text":T,"details":{"finish_reason":F,"generated_tokens":C}}]
 *   DJL LMI           {"generated_text":T,"details":{...}}
 * Errors: the code and message as signer/awserr.h reads AWS errors
 * (x-amzn-ErrorType up to its first ':', else the body's __type or code;
 * message/Message), else vLLM's {"error":{"message":M,"type":T}} or its older
 * flat {"object":"error","message":M,"type":T} or TGI's {"error":M,
 * "error_type":T}, else "http_<status>" and the body's first bytes (a code
 * on one line too; a blank one counts as none); a 400 ValidationError whose
 * message says "no capacity" (an inference component with no copy serving) is
 * code RFIELD_ERROR_NO_CAPACITY, its message kept; a 424 ModelError carrying
 * OriginalStatusCode (an HTTP status, or 0 when the container gave none, as on
 * a timeout) and OriginalMessage reports the container's own status and
 * message.
 *
 * The vLLM shapes go through a scanner first (rscan.h: one pass, no tree, the
 * strings copied only when kept); what it does not read goes to cJSON (TGI,
 * LMI, errors, other shapes). Both read a body alike but where cJSON refuses
 * valid JSON: a lone surrogate escape (\ud800), which the scanner reads as
 * U+FFFD.
 *
 * Pure C over cJSON and rscan; the caller owns the inputs, reply_clear frees
 * the outputs. */
#ifndef SM_REPLY_H
#define SM_REPLY_H

#include <stdbool.h>
#include <stddef.h>

#define REPLY_MESSAGE_MAX 400 /* bytes of an error message kept (cut at a UTF-8 boundary) */

enum reply_error {
    REPLY_OK = 0,
    REPLY_ERR_NOMEM = -1,
};

enum reply_flags {
    REPLY_TEXT = 1,    /* keep the reply's text (without it, text stays NULL) */
    REPLY_NO_SCAN = 2, /* cJSON only: the reference the scanner is tested against */
};

struct reply {
    int status;
    bool scanned;           /* a 2xx the scanner read (no cJSON tree) */
    char *text;             /* malloc'ed; NULL when the reply carried none */
    long prompt_tokens;     /* -1: the reply did not say */
    long completion_tokens; /* -1: the reply did not say */
    long reasoning_tokens;  /* of them, reasoning (usage.completion_tokens_details); -1: not said */
    long cached_tokens;     /* of the prompt's, the prefix cache's (usage.prompt_tokens_details);
                             * -1: not said */
    char *finish_reason;    /* malloc'ed or NULL */
    char *error_code;       /* malloc'ed; NULL for a usable success */
    char *error_message;    /* malloc'ed one line; NULL for a usable success */
    int original_status;    /* a 424 ModelError's container status, else 0 */
};

void reply_init(struct reply *r);
/* Frees the strings; r may be parsed into again. */
void reply_clear(struct reply *r);

/* Fills out (which must be initialised or cleared) from one reply. error_type is
 * the x-amzn-ErrorType header or NULL. A 2xx body that is not a known shape is an
 * error with code "parse". Returns 0, or REPLY_ERR_NOMEM (out then cleared). */
__attribute__((warn_unused_result)) int
reply_parse(int status, const char *error_type, const char *body, size_t len, struct reply *out);
/* reply_parse with flags (enum reply_flags); reply_parse is REPLY_TEXT. */
__attribute__((warn_unused_result)) int reply_parse_with(int status, const char *error_type,
                                                         const char *body, size_t len,
                                                         unsigned flags, struct reply *out);

/* The emulator's own header (emulator/README.md, Service time): a call's model
 * microseconds to its reply's head leaving. SageMaker never sends it. */
#define REPLY_SERVICE_HEADER "x-sm-emulator-service-us"

/* The value of REPLY_SERVICE_HEADER (NUL-terminated, or NULL when absent): 1 to
 * 12 decimal digits making at most RFIELD_SERVER_US_MAX; -1 for anything else
 * (absent, signed, spaced, too long, too large). */
long long reply_service_us(const char *value);

/* The reply in a body wrk 4.1.0 handed over: after a dropped connection it
 * keeps what it had read and puts it in front of the next reply, so the reply
 * is the body's last Content-Length bytes (content_length: the header or NULL). */
void reply_trim(const char *content_length, const char **body, size_t *len);

#endif
