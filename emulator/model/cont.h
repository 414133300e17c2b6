/* cont: the container behind an endpoint: parses invocation bodies the way the
 * AWS vLLM container (vLLM's /invocations), TGI or DJL LMI would, plans the
 * answer, and writes the reply body. A body the container rejects gives the
 * container's own status and error body, which SageMaker wraps in a ModelError.
 *
 * Prompt tokens: chat = sum over messages of (tokens of its text + 4) + 2;
 * completions, TGI and LMI = tokens of the prompt + 1 (see tok.h). */
#ifndef EMU_CONT_H
#define EMU_CONT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "model.h"
#include "pfx.h"

enum cont_kind { CONT_CHAT, CONT_COMPLETION, CONT_TGI, CONT_LMI };

#define CONT_NOT_GIVEN LONG_MIN /* max_tokens of a body without one */

struct cont_request {
    enum cont_kind kind;
    struct buf prompt; /* the text answered: last user message, prompt or inputs */
    size_t prompt_tokens;
    long max_tokens; /* CONT_NOT_GIVEN when the body has none */
    long min_tokens;
    bool ignore_eos;
    bool details;          /* TGI/LMI: "details": true */
    bool stream;           /* "stream": true: the container streams its reply (cstream.h) */
    bool include_usage;    /* vLLM: "stream_options": {"include_usage": true} */
    bool stream_options;   /* vLLM: the body gave stream_options */
    bool continuous_usage; /* vLLM: stream_options.continuous_usage_stats: usage in every chunk */
    int thinking;          /* vLLM chat: chat_template_kwargs.enable_thinking; -1: not given */
    struct pfx *pfx;       /* set by the caller before parsing: gets the prompt's tokens (the
                              prefix cache's blocks); NULL: none. Not owned */
};

struct cont_answer {
    struct buf text;
    size_t tokens;           /* the answer's tokens = tok_count(text) */
    struct buf reasoning;    /* a thinking model's reasoning before it (vLLM chat), or empty */
    size_t reasoning_tokens; /* tok_count(reasoning): completion tokens are both */
    bool hit_length;         /* finish_reason "length" (else "stop" / "eos_token") */
};

struct cont_meta {
    const char *id;              /* "chatcmpl-..." or "cmpl-..." */
    long long created;           /* Unix seconds */
    const char *model;           /* the profile's model_id */
    const char *reasoning_field; /* a streamed reasoning delta's field; NULL: "reasoning" */
    bool prompt_details;         /* vLLM --enable-prompt-tokens-details: the usage's
                                  * prompt_tokens_details says cached_tokens (else null) */
    unsigned spec_step;          /* vLLM speculative decoding: an answer's tokens a chunk (the
                                  * accepted drafts + 1; <= 1: one) */
    const size_t *cached_tokens; /* the prompt tokens the prefix cache served, read when the
                                  * usage is written (a stream starts before its admission);
                                  * NULL: 0 */
};

enum cont_error {
    CONT_OK = 0,
    CONT_ERR_NOMEM = -1,
    CONT_ERR_REJECTED = -2, /* the container refuses the body (its status and message) */
};

/* Starts an empty request / answer; each owns a buffer, freed by the _free call. */
void cont_request_init(struct cont_request *r);
void cont_request_free(struct cont_request *r);
void cont_answer_init(struct cont_answer *a);
void cont_answer_free(struct cont_answer *a);

/* Parses a body for profile p. content_type may be NULL. Returns 0,
 * CONT_ERR_NOMEM, or CONT_ERR_REJECTED with the container's status in *status
 * and its message (one line) in err: cont_error_body writes the reply. */
__attribute__((warn_unused_result)) int cont_parse(const struct model_profile *p,
                                                   const char *content_type, const char *body,
                                                   size_t len, struct cont_request *r, int *status,
                                                   struct buf *err);

/* Parses a body sent to the OpenAI-compatible route (.../openai/v1/chat/
 * completions): a vLLM chat body whatever p's format, as the container's
 * /v1/chat/completions reads it; a "model" other than p's model_id is refused
 * (404). Returns as cont_parse; the error body is vLLM's (cont_error_body with
 * MODEL_VLLM). */
__attribute__((warn_unused_result)) int
cont_parse_openai(const struct model_profile *p, const char *content_type, const char *body,
                  size_t len, struct cont_request *r, int *status, struct buf *err);

/* cont_parse (openai: cont_parse_openai) with the Content-Type header's value
 * ct[0..ct_len) (NULL: no header); on CONT_ERR_REJECTED, *status and err_body
 * hold the container's whole error reply (cont_error_body). Returns 0,
 * CONT_ERR_NOMEM or CONT_ERR_REJECTED. */
__attribute__((warn_unused_result)) int cont_parse_reply(const struct model_profile *p, bool openai,
                                                         const char *ct, size_t ct_len,
                                                         const char *body, size_t len,
                                                         struct cont_request *r, int *status,
                                                         struct buf *err_body);

/* Appends the error body container format f answers status with, around message.
 * Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cont_error_body(enum model_format f, int status,
                                                        const char *message, struct buf *out);

/* Plans the reply text: a quiz answer (right, or the profile's wrong one), else
 * filler; cut at max_tokens, padded to min_tokens, or exactly max_tokens with
 * ignore_eos. Returns 0 or CONT_ERR_NOMEM. */
__attribute__((warn_unused_result)) int
cont_answer(const struct model_profile *p, const struct cont_request *r, struct cont_answer *a);

/* Writes the reply body of r's format. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cont_reply(const struct cont_request *r,
                                                   const struct cont_answer *a,
                                                   const struct cont_meta *m, struct buf *out);

/* Appends the usage's ",\"prompt_tokens_details\":..." member as vLLM writes it
 * (m->prompt_details: {"cached_tokens":N}, else null). Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cont_prompt_details(const struct cont_meta *m,
                                                            struct buf *out);

/* The container's body for an internal error (the model_error fault), by format.
 * Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cont_server_error(enum model_format f, struct buf *out);

#endif
