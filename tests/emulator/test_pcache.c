/* The prefix cache: prompts as blocks of 16 tokens (pfx: the same count as the
 * container's usage, a shared prefix shares whole blocks only, the template's
 * tokens apart from text), the cache's hits by block from the first (vLLM's
 * last-token rule), least-recently-used eviction with a prompt's first blocks
 * kept longest, the fixed capacity, and the counts /emulator/stats shows. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cont.h"
#include "pcache.h"
#include "pfx.h"

/* Parses body (vLLM format unless tgi) with a pfx attached; returns prompt_tokens. */
static size_t parsed(const char *body, bool tgi, struct pfx *h) {
    struct model_profile p;
    struct cont_request r;
    struct buf err;
    int status = 0;
    CHECK_INT(model_builtin("instant", &p), 0);
    if (tgi) p.format = MODEL_TGI;
    buf_init(&err, 1024);
    cont_request_init(&r);
    r.pfx = h;
    CHECK_INT(cont_parse(&p, "application/json", body, strlen(body), &r, &status, &err), 0);
    size_t n = r.prompt_tokens;
    cont_request_free(&r);
    buf_free(&err);
    model_free(&p);
    return n;
}

/* n words "w0 w1 ..." from offset first, into out. */
static void words(char *out, size_t size, int first, int n) {
    size_t at = 0;
    for (int i = 0; i < n && at < size; i++)
        at += (size_t)snprintf(out + at, size - at, "%sw%d", i ? " " : "", first + i);
}

static void test_blocks(void) {
    static const struct {
        const char *body;
        bool tgi;
    } rows[] = {
        {"{\"messages\":[{\"role\":\"user\",\"content\":\"What is 54 * 28?\"}]}", false},
        {"{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\","
         "\"content\":[{\"type\":\"text\",\"text\":\"a b\"},{\"type\":\"text\",\"text\":\"c\"}]},"
         "{\"role\":\"assistant\",\"content\":null}]}",
         false},
        {"{\"prompt\":\"Once upon a time, there was\",\"max_tokens\":4}", false},
        {"{\"prompt\":[\"one two\"]}", false},
        {"{\"inputs\":\"Tell me, why?\",\"parameters\":{\"max_new_tokens\":3}}", true},
        /* a chat body that fails: the completions reading starts again from nothing */
        {"{\"messages\":[{\"role\":\"user\",\"content\":\"x y z\"},{\"content\":\"no role\"}],"
         "\"prompt\":\"p q\"}",
         false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct pfx h;
        pfx_init(&h, 8192);
        size_t n = parsed(rows[i].body, rows[i].tgi, &h);
        CHECK_INT(h.tokens, n); /* the blocks cover exactly the tokens usage counts */
        CHECK_INT(h.n_blocks, n / PFX_BLOCK);
        pfx_free(&h);
    }

    /* two chat prompts whose first 100 words agree: 2 template tokens + 100 = 102 shared
     * tokens, so 6 whole blocks alike and the 7th apart */
    char a[4096], b[4096], body[8192];
    struct pfx ha, hb;
    words(a, sizeof a, 0, 130);
    words(b, sizeof b, 0, 100);
    strcat(b, " z0 z1 z2 z3 z4 z5 z6 z7 z8 z9 z10 z11 z12 z13 z14 z15 z16 z17 z18 z19 z20");
    pfx_init(&ha, 8192);
    pfx_init(&hb, 8192);
    snprintf(body, sizeof body, "{\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}", a);
    CHECK_INT(parsed(body, false, &ha), 136);
    snprintf(body, sizeof body, "{\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}", b);
    CHECK_INT(parsed(body, false, &hb), 127);
    CHECK_INT(ha.n_blocks, 8);
    CHECK_INT(hb.n_blocks, 7);
    CHECK(memcmp(ha.blocks, hb.blocks, 6 * sizeof *ha.blocks) == 0);
    CHECK(ha.blocks[6] != hb.blocks[6]);

    /* a reply's tokens follow the prompt's: the next turn repeating it as the assistant's
     * message has the same token stream through the reply */
    struct pfx turn1, turn2;
    pfx_init(&turn1, 8192);
    pfx_init(&turn2, 8192);
    pfx_chat_message(&turn1, "user", a, strlen(a));
    pfx_chat_end(&turn1);
    pfx_text(&turn1, " the keeper climbed.", 20);
    pfx_chat_message(&turn2, "user", a, strlen(a));
    pfx_chat_message(&turn2, "assistant", "the keeper climbed.", 19);
    pfx_chat_message(&turn2, "user", "more", 4);
    pfx_chat_end(&turn2);
    CHECK_INT(turn1.tokens, 134 + 2 + 4); /* 130 words + 4, the reply header, 4 reply tokens */
    CHECK(turn2.n_blocks > turn1.n_blocks);
    CHECK(memcmp(turn1.blocks, turn2.blocks, turn1.n_blocks * sizeof *turn1.blocks) == 0);

    /* the template's tokens cannot be spelled by text */
    struct pfx t1, t2;
    pfx_init(&t1, 8192);
    pfx_init(&t2, 8192);
    for (int i = 0; i < 16; i++) pfx_chat_end(&t1); /* <start_of_turn> model, 8 times 2 */
    for (int i = 0; i < 16; i++) {
        const char *t = i % 2 ? "model" : "<start_of_turn>";
        pfx_text(&t2, t, strlen(t));
    }
    CHECK_INT(t1.n_blocks, 2);
    CHECK(t2.n_blocks == 0 || t2.blocks[0] != t1.blocks[0]);
    /* kept at most max_tokens' blocks; counted on */
    struct pfx small;
    pfx_init(&small, 40);
    pfx_text(&small, a, strlen(a));
    CHECK_INT(small.tokens, 130);
    CHECK_INT(small.n_blocks, 2);
    CHECK_INT(pfx_blocks_of(&small, 130), 2);
    CHECK_INT(pfx_blocks_of(&ha, 40), 2);
    pfx_text(NULL, "x", 1); /* nothing to feed */
    struct pfx *all[] = {&ha, &hb, &turn1, &turn2, &t1, &t2, &small, NULL};
    for (size_t i = 0; all[i]; i++) pfx_free(all[i]);
}

static void test_hits(void) {
    struct pcache c;
    const uint64_t abc[] = {11, 12, 13, 14}, abx[] = {11, 12, 99}, xb[] = {98, 12};
    CHECK_INT(pcache_init(&c, (size_t)64 * 16), 0);
    CHECK(pcache_on(&c));
    CHECK_INT(pcache_lookup(&c, abc, 3, 50), 0); /* empty: a miss, counted */
    pcache_insert(&c, abc, 3);
    CHECK_INT(pcache_lookup(&c, abc, 4, 64), 48);   /* 3 blocks held; (64-1)/16 = 3 allowed */
    CHECK_INT(pcache_lookup(&c, abx, 3, 100), 32);  /* the run stops at the first miss */
    CHECK_INT(pcache_lookup(&c, xb, 2, 100), 0);    /* a held second block after a miss: none */
    CHECK_INT(pcache_lookup(&c, abc, 3, 48), 32);   /* the last token is always computed */
    CHECK_INT(pcache_lookup(&c, abc, 3, 49), 48);   /* ... it is the 49th here */
    CHECK_INT(pcache_lookup(&c, abc, 1, 1000), 16); /* only the blocks given */
    CHECK_INT(c.n.lookups, 7);
    CHECK_INT(c.n.hits, 5);
    CHECK_INT(c.n.prompt_tokens, 50 + 64 + 100 + 100 + 48 + 49 + 1000);
    CHECK_INT(c.n.cached_tokens, 48 + 32 + 32 + 48 + 16);
    CHECK_INT(c.n.inserted, 3);
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    CHECK_INT(pcache_json(&out, &c), 0);
    CHECK_STR(buf_str(&out), "{\"capacity_tokens\":1024,\"blocks\":3,\"lookups\":7,\"hits\":5,"
                             "\"prompt_tokens\":1411,\"cached_tokens\":176,\"hit_rate\":0.124734,"
                             "\"evicted\":0}");
    pcache_free(&c);
    CHECK(!pcache_on(&c));
    CHECK_INT(pcache_lookup(&c, abc, 3, 64), 0); /* no cache: nothing, not counted */
    CHECK_INT(c.n.lookups, 0);
    buf_free(&out);
}

static void test_eviction(void) {
    struct pcache c;
    const uint64_t abcd[] = {1, 2, 3, 4}, e[] = {5}, fg[] = {6, 7};
    CHECK_INT(pcache_init(&c, 4 * PFX_BLOCK + 15), 0); /* whole blocks: 4 */
    CHECK_INT(c.capacity, 4);
    pcache_insert(&c, abcd, 4); /* newest first: 1 2 3 4 */
    pcache_insert(&c, e, 1);    /* evicts 4, the oldest: 5 1 2 3 */
    CHECK_INT(c.n.evicted, 1);
    CHECK_INT(pcache_lookup(&c, abcd, 4, 1000), 48); /* 1 2 3 touched: 1 2 3 5 */
    pcache_insert(&c, fg, 2);                        /* 7 evicts 5, then 6 evicts 3: 6 7 1 2 */
    CHECK_INT(c.n.evicted, 3);
    CHECK_INT(c.used, 4);
    CHECK_INT(pcache_lookup(&c, abcd, 4, 1000), 32);
    CHECK_INT(pcache_lookup(&c, e, 1, 1000), 0);
    CHECK_INT(pcache_lookup(&c, fg, 2, 1000), 32);
    /* a prompt longer than the cache keeps its first blocks */
    const uint64_t long_prompt[] = {20, 21, 22, 23, 24, 25};
    pcache_insert(&c, long_prompt, 6);
    CHECK_INT(pcache_lookup(&c, long_prompt, 6, 1000), 64);
    pcache_free(&c);

    /* the capacity: none below a block, at most PCACHE_MAX_TOKENS */
    CHECK_INT(pcache_init(&c, 15), 0);
    CHECK(!pcache_on(&c));
    CHECK_INT(pcache_init(&c, 4 * (size_t)PCACHE_MAX_TOKENS), 0);
    CHECK_INT(c.capacity, PCACHE_MAX_TOKENS / PFX_BLOCK);
    pcache_free(&c);
}

int main(void) {
    test_blocks();
    test_hits();
    test_eviction();
    return check_exit();
}
