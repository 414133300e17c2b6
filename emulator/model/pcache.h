/* pcache: a variant's prefix cache, as vLLM's automatic prefix caching keeps
 * computed KV blocks: blocks of PFX_BLOCK tokens named by their chained hashes
 * (pfx.h), least recently used evicted first, memory fixed when it starts.
 *
 * A lookup takes the longest run of the prompt's blocks, from the first, that
 * the cache holds, and as vLLM never serves a prompt's last token from the
 * cache (it must compute it to sample the first reply token), at most the full
 * blocks of prompt_tokens - 1 tokens. A lookup and an insertion touch the blocks
 * from the last to the first, so a prompt's first blocks, which most requests
 * share, are evicted last (vLLM frees a request's blocks tail first). */
#ifndef EMU_PCACHE_H
#define EMU_PCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define PCACHE_MAX_TOKENS 8388608 /* the largest capacity kept (512 Ki blocks, 16 MiB) */

struct pcache_slot {
    uint64_t key;
    uint32_t newer, older; /* the LRU list */
    uint32_t next;         /* the bucket's chain */
};

struct pcache_counts {
    unsigned long lookups;       /* prompts looked up */
    unsigned long hits;          /* of them, those that got at least one block */
    unsigned long prompt_tokens; /* the prompts' tokens */
    unsigned long cached_tokens; /* of them, those served from the cache */
    unsigned long inserted;      /* blocks added */
    unsigned long evicted;       /* blocks evicted to make room */
};

struct pcache {
    struct pcache_slot *slots; /* capacity of them (malloc'ed); NULL: no cache */
    uint32_t *buckets;         /* n_buckets chain heads (malloc'ed) */
    size_t capacity;           /* blocks */
    size_t n_buckets, used;
    uint32_t newest, oldest;
    struct pcache_counts n;
};

enum pcache_error { PCACHE_OK = 0, PCACHE_ERR_NOMEM = -1 };

/* Starts a cache of capacity_tokens tokens (whole blocks; at most
 * PCACHE_MAX_TOKENS): all its memory at once. 0 tokens (or fewer than a block):
 * no cache, every lookup a miss that is not counted. Returns 0 or
 * PCACHE_ERR_NOMEM (c is then no cache). c owns its memory: pcache_free. */
__attribute__((warn_unused_result)) int pcache_init(struct pcache *c, size_t capacity_tokens);
void pcache_free(struct pcache *c);

/* Whether c caches anything. */
bool pcache_on(const struct pcache *c);

/* The prompt tokens of a prompt of prompt_tokens tokens, its full blocks'
 * hashes blocks[0..n), that c serves (a multiple of PFX_BLOCK); counts it. */
size_t pcache_lookup(struct pcache *c, const uint64_t *blocks, size_t n, size_t prompt_tokens);

/* Caches blocks[0..n) (computed KV), evicting the least recently used. */
void pcache_insert(struct pcache *c, const uint64_t *blocks, size_t n);

/* Appends {"capacity_tokens":...,"blocks":...,"lookups":...,"hits":...,
 * "prompt_tokens":...,"cached_tokens":...,"hit_rate":...,"evicted":...}.
 * Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int pcache_json(struct buf *out, const struct pcache *c);

#endif
