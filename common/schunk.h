/* schunk: what a streaming benchmark needs from one chunk of an LLM
 * container's streamed reply (the data of one SSE event or one JSON line),
 * read with the allocation-free scanner jscan, without building a tree.
 * Pure: no I/O, no clock. The shape is recognised from the chunk's keys, so
 * one parser serves every container:
 *
 * - vLLM, OpenAI chat/completions chunks (vLLM's protocol.py, the OpenAI API):
 *   {"choices":[{"index":0,"delta":{"role":..,"content":"..",
 *   "reasoning_content"|"reasoning":".."},"logprobs":{"content":[..]}|null,
 *   "finish_reason":null|"stop"|"length"}],"usage":null|{..}}; completions
 *   put the text in choices[i].text and logprobs in {"tokens":[..],..}. With
 *   "stream_options":{"include_usage":true} the last chunk has "choices":[]
 *   and "usage":{"prompt_tokens":N,"completion_tokens":N,..}; the stream ends
 *   with the data "[DONE]". Errors in the stream: {"error":{"message":..,
 *   "type":..,"code":..}} or the older flat {"object":"error","message":..,
 *   "type":..,"code":..}. Only the choice with index 0 is read.
 * - TGI generate_stream (text-generation-inference router/src/lib.rs,
 *   StreamResponse and StreamDetails): {"index":N,"token":{"id":N,"text":"..",
 *   "logprob":X,"special":false},"generated_text":null,"details":null}, one
 *   token per event; the last one has "generated_text":".." and "details":
 *   {"finish_reason":"length"|"eos_token"|"stop_sequence","generated_tokens":N,
 *   "seed":..} (newer releases add "input_length"). An error in the stream is
 *   the event {"error":"..","error_type":".."} (server.rs, From<InferError>
 *   for Event).
 * - DJL LMI rolling batch (djl-serving docs, lmi_input_output_schema.md):
 *   JSON lines (application/jsonlines; "data:"-prefixed SSE with
 *   option.output_formatter=sse or tgi_compat) of {"token":{"id":N,"text":"..",
 *   "log_prob":X}}, the last line adding "generated_text" and "details":
 *   {"finish_reason":..,"generated_tokens":N,"inputs":..}. An error during
 *   generation is the line {"token":{"id":-1,"text":"","log_prob":-1,
 *   "special_token":true},"generated_text":"","details":{"finish_reason":
 *   "error","generated_tokens":null,..}}; a request error {"error":"..",
 *   "code":424}. LMI's chat schema streams OpenAI chunks as JSON lines (read
 *   as above); its dynamic batching streams {"outputs":[".."]}.
 *
 * Token count of a chunk (struct schunk.tokens): a TGI/LMI token event is one
 * token (special tokens included: they are generated tokens); an OpenAI chunk
 * counts its logprobs entries when it has them (one per token), else 1 when
 * its delta carries text (content or reasoning), else 0. vLLM may put the text
 * of several tokens in one delta, so this is a lower bound used for the
 * inter-chunk gaps; the count in the final usage/details is authoritative
 * (sstream keeps both, and refines the count from cumulative usage when the
 * server sends it with every chunk). The reasoning tokens among the completion
 * tokens come from usage.completion_tokens_details.reasoning_tokens (the OpenAI
 * API's shape) when the server gives it. */
#ifndef SM_SCHUNK_H
#define SM_SCHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum schunk_error {
    SCHUNK_OK = 0,
    SCHUNK_ERR_NOMEM = -1,
    SCHUNK_ERR_JSON = -2, /* the chunk is not JSON (nor "[DONE]") */
};

enum schunk_kind {
    SCHUNK_DATA = 0,  /* a piece of the reply: text, finish, usage in any combination */
    SCHUNK_DONE,      /* the OpenAI end marker "[DONE]" */
    SCHUNK_ERROR,     /* the container reported an error in the stream */
    SCHUNK_EXCEPTION, /* (sstream only) SageMaker ended the stream with an exception */
    SCHUNK_OTHER,     /* valid JSON of no known shape: ignored */
};

enum schunk_format {
    SCHUNK_FMT_NONE = 0,
    SCHUNK_FMT_CHAT,    /* OpenAI chat.completion.chunk (choices[].delta) */
    SCHUNK_FMT_TEXT,    /* OpenAI text completion chunk (choices[].text) */
    SCHUNK_FMT_TOKEN,   /* TGI / LMI token event */
    SCHUNK_FMT_OUTPUTS, /* LMI dynamic batching {"outputs":[..]} */
};

/* Decoded text (JSON escapes resolved), not NUL-terminated; n 0 when absent. */
struct schunk_str {
    const char *s;
    size_t n;
};

/* One chunk. Spans point into the chunk's bytes or the scratch buffer given to
 * schunk_parse, valid while both are. */
struct schunk {
    enum schunk_kind kind;
    enum schunk_format format;
    struct schunk_str content;       /* the reply text this chunk adds */
    struct schunk_str reasoning;     /* reasoning text (vLLM reasoning_content / reasoning) */
    bool special;                    /* TGI/LMI: a special token (its text is not content) */
    bool final;                      /* TGI/LMI: the last event (generated_text or details set) */
    int tokens;                      /* tokens this chunk stands for (rule above) */
    int logprob_tokens;              /* entries of logprobs content/tokens; -1 when none */
    struct schunk_str finish_reason; /* "stop", "length", "eos_token", ...; n 0 while generating */
    int64_t prompt_tokens;           /* from usage (or details input_length); -1 when absent */
    int64_t completion_tokens;       /* from usage or details generated_tokens; -1 when absent */
    int64_t reasoning_tokens; /* usage.completion_tokens_details.reasoning_tokens; -1 when absent */
    int64_t cached_tokens;    /* usage.prompt_tokens_details.cached_tokens; -1 when absent */
    struct schunk_str error_type; /* ERROR: type / error_type; EXCEPTION: :exception-type */
    struct schunk_str
        error_code; /* ERROR: code (string or number as written); EXCEPTION: ErrorCode */
    struct schunk_str error_message; /* ERROR/EXCEPTION: the message */
};

/* Resets c to an empty DATA chunk (counts -1, spans empty). */
void schunk_clear(struct schunk *c);

/* Parses the chunk data[0..n) into out. Escaped strings are decoded into
 * scratch (emptied first; it grows once to n bytes and is reused, so steady
 * use allocates nothing). Returns 0, or a negative schunk_error with its line
 * appended to err (when not NULL); out is then a cleared chunk. */
__attribute__((warn_unused_result)) int
schunk_parse(const char *data, size_t n, struct buf *scratch, struct schunk *out, struct buf *err);

#endif
