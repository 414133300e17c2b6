/* model: the profile of one emulated container: reply format, timing model,
 * start-up facts for the log, wrong quiz answers and faults.
 *
 * Every field is a named parameter that model_set() parses from text, so the
 * built-in profiles, a JSON profile file and the command line all go through
 * one path. Times are model seconds (before --time-scale). */
#ifndef EMU_MODEL_H
#define EMU_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "fault.h"

#define MODEL_STEP_MAX 16
#define MODEL_NAME_MAX 64

enum model_format { MODEL_VLLM, MODEL_TGI, MODEL_LMI };

struct model_step {
    double batch;   /* sequences in flight */
    double seconds; /* one decode step with that many */
};

struct model_answer {
    char *key;  /* "add:876:608:558" (see ans.h) */
    char *text; /* the reply the model gives instead of the right one */
};

struct model_profile {
    char name[MODEL_NAME_MAX];
    enum model_format format;
    char model_id[128]; /* "model" in vLLM replies and the log */
    double overhead_s;  /* fixed cost of every call */
    double client_s;    /* a client's own cost of every call (the aws CLI's), before overhead_s */
    double prefill_s_per_token; /* added to the step that admits a sequence */
    struct model_step steps[MODEL_STEP_MAX];
    size_t n_steps;          /* 0: decode takes no time */
    unsigned max_seqs;       /* sequences in flight; more wait in a queue */
    double jitter;           /* +- fraction on overheads and steps */
    uint64_t seed;           /* 0: derived from --seed and the endpoint's name */
    unsigned max_model_len;  /* prompt + completion tokens */
    unsigned default_tokens; /* length of a filler reply without max_tokens */
    double weight;           /* share of traffic among an endpoint's variants */
    double weights_gib, load_s;
    unsigned long kv_cache_tokens;
    char quantization[48]; /* "" logs as None */
    char vllm_version[24];
    char dtype[24];
    struct model_answer *answers; /* malloc'ed */
    size_t n_answers;
    struct fault_spec faults[FAULT_KINDS];
    double slow_first_byte_s;
    double stream_stall_s;             /* the pause of the stream_stall fault */
    unsigned long prefix_cache_tokens; /* the prefix cache's capacity (pcache.h); 0: none */
    double session_ttl_s; /* stateful sessions' lifetime (sess.h); 0: sessions not enabled */
    unsigned long reasoning_tokens; /* vLLM chat: thinking tokens before the answer (0: none) */
    char reasoning_field[24];       /* their delta's field: "reasoning" or "reasoning_content" */
    char continuous_usage[8];       /* stream_options.continuous_usage_stats: "accept" or "reject"
                                     * (an older vLLM's 400) */
    unsigned long prompt_tokens_details; /* 1: vLLM --enable-prompt-tokens-details (0: off) */
    unsigned long spec_tokens;   /* speculative decoding: draft tokens a step proposes (0: off) */
    unsigned long spec_accepted; /* of them, those every step accepts (at most spec_tokens) */
};

/* The most draft tokens a speculative step proposes (spec_tokens). */
#define MODEL_SPEC_MAX 16

/* A set of named profiles (from --profile-file) searched before the built-ins. */
struct model_library {
    struct model_profile *profiles;
    size_t n;
};

enum model_error {
    MODEL_OK = 0,
    MODEL_ERR_NOMEM = -1,
    MODEL_ERR_UNKNOWN = -2, /* no profile of that name */
    MODEL_ERR_INVALID = -3, /* a bad parameter, value or profile file */
    MODEL_ERR_IO = -4,      /* the profile file cannot be read */
};

/* A GPU class of the built-in profiles and the figures their timing is derived from
 * (emulator/README.md, "Instance types"). */
struct model_gpu {
    const char *name;          /* "l4", "a10g", "l40s" */
    const char *instance_type; /* the SageMaker instance type with one of it, "ml.g6.xlarge" */
    double mem_gbps;           /* memory bandwidth, GB/s: decode steps go as its inverse */
    double bf16_tflops;        /* dense BF16 tensor throughput: prefill goes as its inverse */
    double mem_gib;            /* GPU memory, GB: the KV cache of the log */
};

/* The built-in profiles' names, ", " between them (for messages). */
const char *model_builtin_names(void);

/* The GPU of the built-in profile name, or NULL (instant, or not a built-in). */
const struct model_gpu *model_gpu_of(const char *name);

/* Fills p with the built-in profile name ("bf16-l4", "qat-l4", "bf16-l4-awscli",
 * "qat-l4-awscli", "instant", and the same model on other GPUs: "bf16-a10g",
 * "qat-a10g", "bf16-l40s", "qat-l40s").
 * Returns 0, or MODEL_ERR_UNKNOWN. p must be freed (model_free) after 0. */
__attribute__((warn_unused_result)) int model_builtin(const char *name, struct model_profile *p);

/* Fills p with the profile name from lib (may be NULL), else a built-in.
 * Returns 0, MODEL_ERR_UNKNOWN or MODEL_ERR_NOMEM. */
__attribute__((warn_unused_result)) int model_find(const struct model_library *lib,
                                                   const char *name, struct model_profile *p);

/* Sets one parameter from text. Keys: see model_help(); "answer.KEY" adds or
 * replaces a wrong answer, "fault.KIND" sets a fault spec. Returns 0, or
 * MODEL_ERR_INVALID or MODEL_ERR_NOMEM with one line in err. */
__attribute__((warn_unused_result)) int model_set(struct model_profile *p, const char *key,
                                                  const char *value, struct buf *err);

/* Deep copy into an uninitialised dst; returns 0 or MODEL_ERR_NOMEM. */
__attribute__((warn_unused_result)) int model_copy(struct model_profile *dst,
                                                   const struct model_profile *src);
/* Frees what a profile owns (its answers); p may be filled again. */
void model_free(struct model_profile *p);

/* Loads a JSON profile file into lib (see README). Returns 0, or MODEL_ERR_IO,
 * MODEL_ERR_INVALID or MODEL_ERR_NOMEM with one line in err. */
__attribute__((warn_unused_result)) int model_library_load(struct model_library *lib,
                                                           const char *path, struct buf *err);
/* Frees every profile of lib and empties it. */
void model_library_free(struct model_library *lib);

/* Seconds of one decode step with b sequences: piecewise linear over the
 * table, extended beyond its ends with the slope of the end segments. */
double model_step_s(const struct model_profile *p, unsigned b);

/* The profile's wrong answer for key, or NULL. */
const char *model_answer(const struct model_profile *p, const char *key);

/* True when every time of the profile is zero (replies are sent at once). */
bool model_is_instant(const struct model_profile *p);

/* Appends the parameter reference (for --help). */
__attribute__((warn_unused_result)) int model_help(struct buf *out);

#endif
