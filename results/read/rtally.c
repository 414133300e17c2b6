#include "rtally.h"

void rtally_add(struct rtally *t, const struct rfile_rec *r) {
    if (!r->ok) return;
    t->ok++;
    if (r->cached_tokens >= 0 && r->prompt_tokens > 0) {
        t->cache_n++;
        t->cache_prompt += (uint64_t)r->prompt_tokens;
        t->cache_hit += (uint64_t)r->cached_tokens;
    }
    if (r->stream && r->chunks > 0 && r->completion_tokens != RFILE_NONE) {
        t->chunk_n++;
        t->chunk_tokens += (uint64_t)r->completion_tokens;
        t->chunks += (uint64_t)r->chunks;
    }
}

void rtally_merge(struct rtally *into, const struct rtally *from) {
    into->ok += from->ok;
    into->cache_n += from->cache_n;
    into->cache_prompt += from->cache_prompt;
    into->cache_hit += from->cache_hit;
    into->chunk_n += from->chunk_n;
    into->chunk_tokens += from->chunk_tokens;
    into->chunks += from->chunks;
}

double rtally_hit_ratio(const struct rtally *t) {
    return t->cache_n && t->cache_prompt ? (double)t->cache_hit / (double)t->cache_prompt : NAN;
}

double rtally_tokens_per_chunk(const struct rtally *t) {
    return t->chunk_n && t->chunks ? (double)t->chunk_tokens / (double)t->chunks : NAN;
}
