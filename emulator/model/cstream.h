/* cstream: what a container streams for a body that asks for "stream": true,
 * one decode step at a time: each step carries one token of the planned
 * answer (cont_answer; its white space before it, the last step all that is
 * left), so the steps' text joined is the answer's text. Pure: no I/O, no clock.
 *
 * Formats (the container's bytes, as its source writes them):
 * - vLLM chat (serving_chat.py, chunks dumped with exclude_unset): SSE
 *   "data: {json}\n\n" events. The first step opens with the role chunk
 *   {"id","object":"chat.completion.chunk","created","model","choices":[{"index":0,
 *   "delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],
 *   "prompt_token_ids":null}; every step has a content chunk whose choice is
 *   {"index":0,"delta":{"content":TEXT},"logprobs":null,"finish_reason":null,
 *   "token_ids":null}, the last one with "finish_reason":"length"|"stop",
 *   "stop_reason":null; then, with stream_options.include_usage, the usage chunk
 *   {...,"choices":[],"usage":{"prompt_tokens","total_tokens","completion_tokens"}};
 *   then "data: [DONE]".
 * - vLLM completions (serving_completion.py, every field dumped): choices
 *   [{"index":0,"text":TEXT,"logprobs":null,"finish_reason":null,"stop_reason":null,
 *   "prompt_token_ids":null,"token_ids":null}], "usage":null; the same usage
 *   chunk and [DONE].
 * - TGI generate_stream (router server.rs, axum's "data:" without a space):
 *   {"index":N,"token":{"id","text","logprob","special":false},
 *   "generated_text":null,"details":null}, N from 1; the last event has the
 *   whole "generated_text" and, when the body asked "details": true, "details":
 *   {"finish_reason":"length"|"eos_token","generated_tokens","seed":null,
 *   "input_length"}.
 * - DJL LMI (rolling batch's JSON lines formatter, Python's json.dumps with its
 *   ", " and ": " separators): {"token": {"id": N, "text": T, "log_prob": X}}
 *   per line; the last adds "generated_text" and, with "details": true,
 *   "details": {"finish_reason", "generated_tokens", "inputs"}.
 * Token ids and log probabilities are made up from the token's text.
 *
 * A thinking model's reply (the answer's reasoning_tokens, vLLM chat only, as
 * vLLM's reasoning parsers stream it): first one step a reasoning token, each a
 * chunk whose delta is {"reasoning":TEXT} (or, for an older vLLM,
 * {"reasoning_content":TEXT}), then the answer's steps as above; the usage's
 * completion_tokens count both. */
#ifndef EMU_CSTREAM_H
#define EMU_CSTREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cont.h"

#define CSTREAM_MAX_EVENTS 4 /* events of one step: role, token, usage, [DONE] */

/* The events a step appended: each one's end, as an offset into the buffer. */
struct cstream_events {
    size_t ends[CSTREAM_MAX_EVENTS];
    size_t n;
};

/* One streamed reply. The request, answer and meta strings stay the caller's
 * and must outlive it. */
struct cstream {
    const struct cont_request *req;
    const struct cont_answer *ans;
    struct cont_meta meta;
    const char *reasoning_field; /* vLLM chat: "reasoning" or "reasoning_content" */
    size_t steps;         /* decode steps: the reasoning's tokens, then the answer's (at least 1) */
    size_t done;          /* steps written */
    size_t tokens_done;   /* tokens written (more than done when a step gives several) */
    unsigned step_tokens; /* an answer's tokens a step (vLLM speculative decoding; 1: one) */
    size_t at;            /* bytes of the answer's text written */
    size_t rat;           /* bytes of the reasoning's text written */
};

enum cstream_error { CSTREAM_OK = 0, CSTREAM_ERR_NOMEM = -1 };

void cstream_init(struct cstream *c, const struct cont_request *r, const struct cont_answer *a,
                  const struct cont_meta *m);

/* The container's content type for kind k's stream: "text/event-stream", or
 * "application/jsonlines" for LMI. */
const char *cstream_content_type(enum cont_kind k);

/* Appends the events of the next step to out (requires done < steps) and,
 * when ev is not NULL, where each ends. Returns 0 or CSTREAM_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cstream_step(struct cstream *c, struct buf *out,
                                                     struct cstream_events *ev);

/* Whether every step has been written. */
bool cstream_done(const struct cstream *c);

#endif
