/* batch: continuous batching as vLLM does it, over an injected clock.
 *
 * Sequences wait in a FIFO queue and are admitted, up to the profile's
 * max_seqs, at the start of a step. A step with b sequences in flight lasts
 * model_step_s(b) (with jitter) plus the prefill of the sequences it admits,
 * and gives every sequence in flight one token. The caller runs the clock:
 * batch_begin() plans a step and returns when it ends; batch_end() closes it
 * and hands back the finished sequences. Times are model seconds.
 *
 * With the profile's prefix cache (pcache.h), a sequence admitted looks its
 * prompt's blocks up: the prompt tokens the cache holds are not prefilled
 * again, and the prompt's blocks are cached from then on; the blocks of its
 * reply (all the tokens the KV cache holds once it is done: prompt and reply
 * less the last token, never fed back) when it leaves. */
#ifndef EMU_BATCH_H
#define EMU_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "pcache.h"

/* The most draft tokens a speculative step proposes. */
#define BATCH_SPEC_MAX MODEL_SPEC_MAX

/* Speculative decoding's counts since the start, as vLLM counts them
 * (vllm/v1/spec_decode/metrics.py): drafts, their proposed and accepted tokens,
 * and the drafts that accepted position i (0-based). */
struct batch_spec {
    uint64_t drafts, draft_tokens, accepted;
    uint64_t pos[BATCH_SPEC_MAX];
    unsigned k; /* the draft tokens a step proposes (the last sequence's) */
};

struct batch_seq {
    size_t prompt_tokens;
    size_t want_tokens; /* tokens to generate (>= 1) */
    size_t produced;
    unsigned spec_k;    /* speculative decoding: draft tokens a step proposes (0: none) */
    unsigned spec_step; /* tokens a speculative step gives: accepted drafts + 1 (<= 1: one) */
    size_t spec_from;   /* the tokens before speculation starts (a reasoning's, one a step) */
    double ready;       /* the first step start that may admit it (its overhead's end) */
    bool running;
    bool queued;
    const uint64_t *blocks; /* the hashes of its token blocks (pfx.h), prompt then reply; not
                               owned (valid while it is in the batch); NULL: none */
    size_t prompt_blocks;   /* the prompt's full blocks */
    size_t done_blocks;     /* the full blocks the KV cache holds once it is done */
    /* what batch_begin says of it */
    size_t cached_tokens;          /* prompt tokens the prefix cache held when it was admitted */
    double admitted;               /* when the step that admitted it started; < 0: not yet */
    double blocked;                /* the first step start that had no room for it; < 0: none */
    double queue_s;                /* admitted - blocked: its wait behind max_seqs (0: none) */
    struct batch_seq *prev, *next; /* in the waiting or running list */
    void *owner;                   /* the caller's */
};

struct batch_list {
    struct batch_seq *head, *tail;
    size_t n;
};

struct batch {
    const struct model_profile *profile; /* not owned */
    uint64_t rng;
    struct batch_list waiting, running;
    bool stepping;                                 /* a step is planned and not yet closed */
    double step_end;                               /* when the planned step ends */
    unsigned long prompt_tokens, generated_tokens; /* since the start */
    struct batch_spec spec;                        /* speculative decoding's counts */
    struct pcache cache;                           /* the prefix cache; owned */
};

/* Starts an empty batch for p (not owned) without a prefix cache. */
void batch_init(struct batch *s, const struct model_profile *p, uint64_t seed);

/* Starts the profile's prefix cache (prefix_cache_tokens; none: nothing to do).
 * Returns 0 or PCACHE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int batch_start_cache(struct batch *s);

/* Frees the prefix cache. The sequences are the caller's. */
void batch_free(struct batch *s);

/* Queues seq (want_tokens >= 1; blocks, prompt_blocks, done_blocks set or 0).
 * The caller starts a step when none is planned. */
void batch_add(struct batch *s, struct batch_seq *seq);

/* Takes seq out wherever it is (waiting or running); a planned step keeps its length. */
void batch_remove(struct batch *s, struct batch_seq *seq);

/* Whether any sequence is waiting or running. */
bool batch_busy(const struct batch *s);

/* When the next step may start, at start or later: a step needs a sequence running
 * or one ready (the first waiting). Requires batch_busy(). */
double batch_next_start(const struct batch *s, double start);

/* Plans the next step starting at start (batch_next_start's): admits the waiting
 * sequences ready by then, in order (each its admitted time, queue_s and
 * cached_tokens), and returns the time the step ends. A sequence that is not ready
 * waits for a later step, as a request that comes during a step does in vLLM.
 * Requires batch_busy() and no planned step. */
double batch_begin(struct batch *s, double start);

/* Closes the planned step: every running sequence gains one token; those that
 * are complete leave and are appended to done (the caller owns them again). */
void batch_end(struct batch *s, struct batch_list *done);

/* Removes and returns the first sequence of list, or NULL. */
struct batch_seq *batch_pop(struct batch_list *list);

#endif
