#include "pcache.h"

#include <stdlib.h>

#include "pfx.h"

#define PCACHE_NIL UINT32_MAX

int pcache_init(struct pcache *c, size_t capacity_tokens) {
    *c = (struct pcache){.newest = PCACHE_NIL, .oldest = PCACHE_NIL};
    if (capacity_tokens > PCACHE_MAX_TOKENS) capacity_tokens = PCACHE_MAX_TOKENS;
    size_t cap = capacity_tokens / PFX_BLOCK, nb = 16;
    if (!cap) return PCACHE_OK;
    while (nb < 2 * cap) nb *= 2;
    c->slots = malloc(cap * sizeof *c->slots);
    c->buckets = malloc(nb * sizeof *c->buckets);
    if (!c->slots || !c->buckets) {
        pcache_free(c);
        return PCACHE_ERR_NOMEM;
    }
    for (size_t i = 0; i < nb; i++) c->buckets[i] = PCACHE_NIL;
    c->capacity = cap;
    c->n_buckets = nb;
    return PCACHE_OK;
}

void pcache_free(struct pcache *c) {
    free(c->slots);
    free(c->buckets);
    *c = (struct pcache){.newest = PCACHE_NIL, .oldest = PCACHE_NIL};
}

bool pcache_on(const struct pcache *c) {
    return c->slots != NULL;
}

static uint32_t *pcache_bucket(struct pcache *c, uint64_t key) {
    return &c->buckets[(key ^ (key >> 29)) & (c->n_buckets - 1)];
}

static uint32_t pcache_find(struct pcache *c, uint64_t key) {
    uint32_t i = *pcache_bucket(c, key);
    while (i != PCACHE_NIL && c->slots[i].key != key) i = c->slots[i].next;
    return i;
}

static void pcache_unlink(struct pcache *c, uint32_t i) {
    struct pcache_slot *s = &c->slots[i];
    if (s->newer != PCACHE_NIL)
        c->slots[s->newer].older = s->older;
    else
        c->newest = s->older;
    if (s->older != PCACHE_NIL)
        c->slots[s->older].newer = s->newer;
    else
        c->oldest = s->newer;
}

static void pcache_push(struct pcache *c, uint32_t i) {
    c->slots[i].newer = PCACHE_NIL;
    c->slots[i].older = c->newest;
    if (c->newest != PCACHE_NIL) c->slots[c->newest].newer = i;
    c->newest = i;
    if (c->oldest == PCACHE_NIL) c->oldest = i;
}

static void pcache_touch(struct pcache *c, uint32_t i) {
    if (c->newest == i) return;
    pcache_unlink(c, i);
    pcache_push(c, i);
}

/* Takes slot i out of its bucket's chain. */
static void pcache_unchain(struct pcache *c, uint32_t i) {
    uint32_t *at = pcache_bucket(c, c->slots[i].key);
    while (*at != i) at = &c->slots[*at].next;
    *at = c->slots[i].next;
}

/* A slot for key: a free one, or the least recently used one's. */
static uint32_t pcache_take(struct pcache *c, uint64_t key) {
    uint32_t i;
    if (c->used < c->capacity) {
        i = (uint32_t)c->used++;
    } else {
        i = c->oldest;
        pcache_unlink(c, i);
        pcache_unchain(c, i);
        c->n.evicted++;
    }
    uint32_t *head = pcache_bucket(c, key);
    c->slots[i].key = key;
    c->slots[i].next = *head;
    *head = i;
    pcache_push(c, i);
    return i;
}

size_t pcache_lookup(struct pcache *c, const uint64_t *blocks, size_t n, size_t prompt_tokens) {
    if (!pcache_on(c)) return 0;
    size_t most = prompt_tokens ? (prompt_tokens - 1) / PFX_BLOCK : 0, hit = 0;
    if (n > most) n = most;
    while (hit < n && pcache_find(c, blocks[hit]) != PCACHE_NIL) hit++;
    for (size_t k = hit; k-- > 0;) pcache_touch(c, pcache_find(c, blocks[k]));
    c->n.lookups++;
    c->n.hits += hit > 0;
    c->n.prompt_tokens += prompt_tokens;
    c->n.cached_tokens += hit * PFX_BLOCK;
    return hit * PFX_BLOCK;
}

void pcache_insert(struct pcache *c, const uint64_t *blocks, size_t n) {
    if (!pcache_on(c)) return;
    for (size_t k = n; k-- > 0;) {
        uint32_t i = pcache_find(c, blocks[k]);
        if (i != PCACHE_NIL) {
            pcache_touch(c, i);
        } else {
            pcache_take(c, blocks[k]);
            c->n.inserted++;
        }
    }
}

int pcache_json(struct buf *out, const struct pcache *c) {
    const struct pcache_counts *n = &c->n;
    double rate = n->prompt_tokens ? (double)n->cached_tokens / (double)n->prompt_tokens : 0;
    return buf_addf(out,
                    "{\"capacity_tokens\":%zu,\"blocks\":%zu,\"lookups\":%lu,\"hits\":%lu,"
                    "\"prompt_tokens\":%lu,\"cached_tokens\":%lu,\"hit_rate\":%.6f,"
                    "\"evicted\":%lu}",
                    c->capacity * PFX_BLOCK, c->used, n->lookups, n->hits, n->prompt_tokens,
                    n->cached_tokens, rate, n->evicted);
}
