/* body: request bodies for the containers SageMaker hosts.
 *
 *   vllm-chat         {"messages":[{"role":"user","content":P}],"max_tokens":N,...}
 *                     (streamed: "stream":true,"stream_options":{"include_usage":true,
 *                     "continuous_usage_stats":true}, the latter unless plain_usage)
 *                     (or the messages of a conversation given whole)
 *   vllm-completions  {"prompt":P,"max_tokens":N,...}
 *   tgi               {"inputs":P,"parameters":{"max_new_tokens":N,"details":true,...}}
 *   lmi               as tgi, with "ignore_eos_token" (DJL LMI, vLLM backend)
 *   raw               P itself, byte for byte
 *
 * Pure C over cJSON. The caller owns every input and the output buffer. */
#ifndef SM_BODY_H
#define SM_BODY_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "buf.h"

enum body_format {
    BODY_VLLM_CHAT,
    BODY_VLLM_COMPLETIONS,
    BODY_TGI,
    BODY_LMI,
    BODY_RAW,
};

enum body_error {
    BODY_OK = 0,
    BODY_ERR_NOMEM = -1,
    BODY_ERR_INPUT = -2,       /* extra not an object, or a value out of range: an integer
                                  of more than 15 digits or a number not finite (extra too) */
    BODY_ERR_UNSUPPORTED = -3, /* the format cannot carry a field that was asked for */
};

enum body_thinking {
    BODY_THINKING_DEFAULT = 0, /* not sent: the model's template decides */
    BODY_THINKING_ON,
    BODY_THINKING_OFF,
};

struct body_params {
    const char *prompt;    /* the user message, prompt or inputs; raw: the whole body */
    const cJSON *messages; /* vllm-chat: a conversation ([{"role", "content"}, ...]) sent
                              instead of the prompt; the other formats have none */
    long max_tokens;       /* < 0: not sent */
    bool has_temperature;
    double temperature;
    bool ignore_eos; /* sent only when true */
    long min_tokens; /* < 0: not sent */
    bool has_seed;
    long seed;
    const cJSON *extra; /* NULL or an object; its fields are added last and win
                           (tgi, lmi: inside "parameters") */
    bool stream;        /* ask for a streamed reply: vLLM "stream" with usage in its last
                           chunk (stream_options.include_usage), TGI and LMI "stream" */
    bool no_stream;     /* vLLM, not stream: say "stream": false (the OpenAI route unstreamed) */
    bool plain_usage;   /* vLLM stream: no stream_options.continuous_usage_stats (a container
                           that refuses it) */
    enum body_thinking thinking; /* vllm-chat: "chat_template_kwargs":{"enable_thinking":B}
                                    (a thinking model's chat template: Qwen3, Gemma 4, ...) */
};

/* Parses "vllm-chat", "vllm-completions", "tgi", "lmi" or "raw"; returns 0 or BODY_ERR_INPUT. */
int body_format_parse(const char *name, enum body_format *out);
/* The name body_format_parse accepts for f. */
const char *body_format_name(enum body_format f);

/* Writes the body for f and p to out (appended). On error out is unchanged and err
 * (may be NULL) holds one line saying which field the format cannot take. */
__attribute__((warn_unused_result)) int body_build(enum body_format f, const struct body_params *p,
                                                   struct buf *out, struct buf *err);

#endif
