#include "pfx.h"

#include <stdlib.h>
#include <string.h>

#include "tok.h"

#define PFX_TEXT    0x54u /* the domains of a token's hash: text and the template's own */
#define PFX_SPECIAL 0x53u

/* splitmix64's finalizer over a ^ b, a mix that spreads every input bit. */
static uint64_t pfx_mix(uint64_t a, uint64_t b) {
    uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void pfx_init(struct pfx *h, size_t max_tokens) {
    *h = (struct pfx){.max_blocks = max_tokens / PFX_BLOCK};
}

void pfx_free(struct pfx *h) {
    free(h->blocks);
    h->blocks = NULL;
    h->n_blocks = h->cap = 0;
}

void pfx_reset(struct pfx *h) {
    if (!h) return;
    h->n_blocks = h->tokens = 0;
    h->chain = h->cur = 0;
    h->nomem = false;
}

static void pfx_keep(struct pfx *h, uint64_t block) {
    if (h->nomem || h->n_blocks >= h->max_blocks) return;
    if (h->n_blocks == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 32;
        uint64_t *b = realloc(h->blocks, cap * sizeof *b);
        if (!b) {
            h->nomem = true;
            return;
        }
        h->blocks = b;
        h->cap = cap;
    }
    h->blocks[h->n_blocks++] = block;
}

/* One token: its bytes s[0..len) in domain. */
static void pfx_token(struct pfx *h, unsigned domain, const char *s, size_t len) {
    uint64_t t = 0xcbf29ce484222325ULL ^ domain;
    for (size_t i = 0; i < len; i++) t = (t ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    h->cur = pfx_mix(h->cur, t);
    if (++h->tokens % PFX_BLOCK) return;
    h->chain = pfx_mix(h->chain, h->cur);
    h->cur = 0;
    pfx_keep(h, h->chain);
}

static void pfx_special(struct pfx *h, const char *name) {
    pfx_token(h, PFX_SPECIAL, name, strlen(name));
}

void pfx_text(struct pfx *h, const char *s, size_t len) {
    if (!h) return;
    size_t at = 0, end;
    while ((end = tok_next(s, len, at)) != at) {
        size_t start = at;
        while (start < end && (s[start] == ' ' || (s[start] >= '\t' && s[start] <= '\r'))) start++;
        pfx_token(h, PFX_TEXT, s + start, end - start);
        at = end;
    }
}

void pfx_chat_message(struct pfx *h, const char *role, const char *text, size_t len) {
    if (!h) return;
    pfx_special(h, "<start_of_turn>");
    pfx_special(h, strcmp(role, "assistant") == 0 ? "model" : role);
    pfx_text(h, text, len);
    pfx_special(h, "<end_of_turn>");
    pfx_special(h, "\n");
}

void pfx_chat_end(struct pfx *h) {
    if (!h) return;
    pfx_special(h, "<start_of_turn>");
    pfx_special(h, "model");
}

void pfx_plain(struct pfx *h, const char *s, size_t len) {
    if (!h) return;
    pfx_special(h, "<bos>");
    pfx_text(h, s, len);
}

size_t pfx_blocks_of(const struct pfx *h, size_t tokens) {
    size_t n = tokens / PFX_BLOCK;
    return n < h->n_blocks ? n : h->n_blocks;
}
