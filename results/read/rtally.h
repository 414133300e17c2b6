/* rtally: what a measurement's successful records say of the server's prefix
 * cache and of how many tokens each streamed chunk carried.
 *
 * Prefix-cache hits: a record's cached_tokens (the reply's
 * usage.prompt_tokens_details.cached_tokens: vLLM with
 * --enable-prompt-tokens-details, OpenAI) over its prompt_tokens. The ratio
 * is vLLM's own (cached over looked-up prompt tokens): the cached tokens of
 * every successful record that said both, over those records' prompt tokens,
 * so a long prompt weighs more than a short one.
 *
 * Tokens per chunk: a streamed successful record's completion_tokens over its
 * chunks (content or reasoning), summed over such records then divided. One
 * token a chunk without speculation; with speculative decoding, the tokens a
 * step accepted come in one chunk, so the mean is above 1 (vLLM's mean
 * acceptance length, the drafts' accepted tokens plus the one the target
 * model adds, when every chunk is one step). */
#ifndef SM_RTALLY_H
#define SM_RTALLY_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "rfile.h"

struct rtally {
    size_t ok;             /* successful records added */
    size_t cache_n;        /* of them, those that said cached_tokens and prompt_tokens */
    uint64_t cache_prompt; /* their prompt tokens */
    uint64_t cache_hit;    /* their cached tokens */
    size_t chunk_n;        /* streamed successful records with chunks and completion_tokens */
    uint64_t chunk_tokens; /* their completion tokens */
    uint64_t chunks;       /* their chunks */
};

/* Adds the successful record r (others are left out). */
void rtally_add(struct rtally *t, const struct rfile_rec *r);
/* Adds from's counts to into. */
void rtally_merge(struct rtally *into, const struct rtally *from);
/* cache_hit / cache_prompt; NAN when no record said both (or no prompt tokens). */
double rtally_hit_ratio(const struct rtally *t);
/* chunk_tokens / chunks; NAN when no streamed record had both. */
double rtally_tokens_per_chunk(const struct rtally *t);

#endif
