/* Continuous batching over a fake clock: step times by batch size, prefill,
 * the max_seqs queue, joining at step boundaries (never before a sequence is
 * ready), and removal; each sequence's admission time and its wait behind
 * max_seqs (none when there was room, even for one that waited for the step
 * boundary); the prefix cache's tokens taken
 * off the prefill, prompt blocks cached at admission and reply blocks when done. */
#include <math.h>

#include "batch.h"
#include "check.h"

#define NEAR(a, b) CHECK(fabs((a) - (b)) < 1e-9)

static struct model_profile profile(void) {
    struct model_profile p;
    struct buf err;
    buf_init(&err, 256);
    if (model_builtin("instant", &p)) p.n_steps = 0;
    CHECK_INT(model_set(&p, "step_ms", "1:10,4:16", &err), 0);
    CHECK_INT(model_set(&p, "max_seqs", "2", &err), 0);
    CHECK_INT(model_set(&p, "prefill_s_per_token", "0.001", &err), 0);
    buf_free(&err);
    return p;
}

/* The prefix cache in the batch: max_seqs 1, prefill 1 ms a token, steps 10 ms. */
static void test_cache(void) {
    struct model_profile p = profile();
    struct buf err;
    buf_init(&err, 256);
    CHECK_INT(model_set(&p, "max_seqs", "1", &err), 0);
    CHECK_INT(model_set(&p, "prefix_cache_tokens", "1024", &err), 0);
    buf_free(&err);
    struct batch b;
    struct batch_list done = {0};
    const uint64_t blocks[] = {1, 2, 3, 4, 5, 6};
    batch_init(&b, &p, 1);
    CHECK(!pcache_on(&b.cache)); /* started apart */
    CHECK_INT(batch_start_cache(&b), 0);
    CHECK(pcache_on(&b.cache));
    /* 50 prompt tokens (3 blocks), 40 reply tokens: 89 in the KV cache once done, 5 blocks */
    struct batch_seq s1 = {.prompt_tokens = 50,
                           .want_tokens = 40,
                           .blocks = blocks,
                           .prompt_blocks = 3,
                           .done_blocks = 5},
                     s2 = s1,
                     s3 = {.prompt_tokens = 90,
                           .want_tokens = 1,
                           .blocks = blocks,
                           .prompt_blocks = 5,
                           .done_blocks = 5};
    batch_add(&b, &s1);
    batch_add(&b, &s2);
    NEAR(batch_begin(&b, 0), 0.010 + 0.050); /* nothing cached yet */
    CHECK_INT(s1.cached_tokens, 0);
    batch_end(&b, &done);
    for (int i = 1; i < 40; i++) {
        (void)batch_begin(&b, 0.060 + 0.010 * (i - 1));
        batch_end(&b, &done);
    }
    CHECK(batch_pop(&done) == &s1);
    /* s2 waited behind max_seqs 1 from 0 and finds the prompt's 3 blocks */
    NEAR(batch_begin(&b, 0.450), 0.450 + 0.010 + 0.002);
    CHECK_INT(s2.cached_tokens, 48);
    NEAR(s2.queue_s, 0.450);
    batch_remove(&b, &s2); /* gone before its reply blocks: they are not cached */
    batch_end(&b, &done);
    /* s3 repeats s1's reply: 5 blocks cached by s1 when it left, (90 - 1) / 16 = 5 allowed */
    batch_add(&b, &s3);
    NEAR(batch_begin(&b, 1), 1 + 0.010 + 0.010);
    CHECK_INT(s3.cached_tokens, 80);
    batch_end(&b, &done);
    CHECK_INT(b.cache.n.lookups, 3);
    CHECK_INT(b.cache.n.hits, 2);
    CHECK_INT(b.cache.n.cached_tokens, 128);
    CHECK_INT(b.prompt_tokens, 190); /* prompt tokens seen, cached or not */
    batch_free(&b);
    CHECK(!pcache_on(&b.cache));
    model_free(&p);
}

/* A speculative sequence (4 drafts a step, 2 accepted): its 2 reasoning tokens one a
 * step, then 3 tokens a step, the last step what is left; the batch counts the drafts
 * as vLLM does (drafts, proposed and accepted tokens, accepted per position). */
static void test_speculation(void) {
    struct model_profile p = profile();
    struct batch b;
    struct batch_list done = {0};
    struct batch_seq s = {
        .prompt_tokens = 10, .want_tokens = 10, .spec_k = 4, .spec_step = 3, .spec_from = 2};
    static const size_t produced[] = {1, 2, 5, 8, 10};
    batch_init(&b, &p, 1);
    batch_add(&b, &s);
    double t = 0;
    for (size_t i = 0; i < sizeof produced / sizeof *produced; i++) {
        t = batch_begin(&b, t);
        batch_end(&b, &done);
        CHECK_INT(s.produced, produced[i]);
    }
    CHECK(batch_pop(&done) == &s && !batch_busy(&b));
    CHECK_INT(b.generated_tokens, 10);
    CHECK_INT(b.spec.drafts, 3);
    CHECK_INT(b.spec.draft_tokens, 12);
    CHECK_INT(b.spec.accepted, 2 + 2 + 1);
    CHECK_INT(b.spec.pos[0], 3);
    CHECK_INT(b.spec.pos[1], 2);
    CHECK_INT(b.spec.pos[2], 0);
    CHECK_INT(b.spec.k, 4);
    batch_free(&b);
}

int main(void) {
    test_speculation();
    struct model_profile p = profile();
    static const struct {
        unsigned b;
        double ms;
    } steps[] = {{1, 10}, {2, 12}, {4, 16}, {8, 24}, {0, 8}};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        NEAR(model_step_s(&p, steps[i].b), steps[i].ms / 1000);

    struct batch b;
    struct batch_list done = {0};
    struct batch_seq s1 = {.prompt_tokens = 10, .want_tokens = 3};
    batch_init(&b, &p, 1);
    batch_add(&b, &s1);
    CHECK(batch_busy(&b));
    NEAR(batch_begin(&b, 0), 0.010 + 0.010); /* one step + prefill of 10 tokens */
    batch_end(&b, &done);
    CHECK_INT(done.n, 0);
    NEAR(batch_begin(&b, 0.020), 0.030);
    batch_end(&b, &done);
    NEAR(batch_begin(&b, 0.030), 0.040);
    batch_end(&b, &done);
    CHECK(batch_pop(&done) == &s1);
    CHECK_INT(s1.produced, 3);
    CHECK(!batch_busy(&b));
    CHECK_INT(b.generated_tokens, 3);
    CHECK_INT(b.prompt_tokens, 10);

    /* max_seqs 2: the third waits, then joins when a slot frees */
    struct batch_seq a = {.want_tokens = 1}, c = {.want_tokens = 2}, d = {.want_tokens = 1};
    batch_add(&b, &a);
    batch_add(&b, &c);
    batch_add(&b, &d);
    NEAR(batch_begin(&b, 1), 1.012);
    CHECK_INT(b.running.n, 2);
    CHECK_INT(b.waiting.n, 1);
    batch_end(&b, &done);
    CHECK(batch_pop(&done) == &a);
    NEAR(batch_begin(&b, 1.012), 1.024); /* c and d together */
    batch_end(&b, &done);
    CHECK_INT(done.n, 2);
    CHECK(batch_pop(&done) == &c);
    CHECK(batch_pop(&done) == &d);

    /* the times: a and c admitted at once, d behind max_seqs from 1 until 1.012 */
    NEAR(a.admitted, 1);
    NEAR(c.admitted, 1);
    NEAR(d.admitted, 1.012);
    NEAR(a.queue_s, 0);
    NEAR(c.queue_s, 0);
    NEAR(d.queue_s, 0.012);

    /* waiting for the next step boundary with room is no queueing */
    struct batch_seq h = {.want_tokens = 2}, k = {.want_tokens = 1};
    batch_add(&b, &h);
    NEAR(batch_begin(&b, 3), 3.010);
    batch_add(&b, &k); /* mid-step: joins at 3.010 */
    batch_end(&b, &done);
    NEAR(batch_begin(&b, 3.010), 3.022);
    NEAR(k.admitted, 3.010);
    NEAR(k.queue_s, 0);
    batch_end(&b, &done);
    CHECK_INT(done.n, 2);
    while (batch_pop(&done)) {
    }

    /* not admitted before it is ready: a step that starts earlier (a late timer's planned
     * start) runs without it; alone, the step waits for it; a sequence blocked behind
     * max_seqs is only one that was ready */
    struct batch_seq r1 = {.want_tokens = 2}, r2 = {.want_tokens = 1, .ready = 4.005};
    batch_add(&b, &r1);
    batch_add(&b, &r2);
    NEAR(batch_next_start(&b, 4), 4);
    NEAR(batch_begin(&b, 4), 4.010);
    CHECK_INT(b.running.n, 1);
    NEAR(r2.blocked, -1);
    batch_end(&b, &done);
    NEAR(batch_begin(&b, 4.010), 4.022);
    NEAR(r2.admitted, 4.010);
    batch_end(&b, &done);
    CHECK_INT(done.n, 2);
    while (batch_pop(&done)) {
    }
    struct batch_seq r3 = {.want_tokens = 1, .ready = 5.5};
    batch_add(&b, &r3);
    NEAR(batch_next_start(&b, 5), 5.5);
    NEAR(batch_begin(&b, batch_next_start(&b, 5)), 5.510);
    NEAR(r3.admitted, 5.5);
    batch_end(&b, &done);
    CHECK(batch_pop(&done) == &r3);

    /* removal: a waiting sequence never runs, a running one stops */
    struct batch_seq e = {.want_tokens = 5}, f = {.want_tokens = 5}, g = {.want_tokens = 1};
    batch_add(&b, &e);
    batch_add(&b, &f);
    batch_add(&b, &g);
    batch_remove(&b, &g);
    CHECK_INT(b.waiting.n, 2);
    (void)batch_begin(&b, 2);
    batch_remove(&b, &e);
    batch_end(&b, &done);
    CHECK_INT(b.running.n, 1);
    CHECK_INT(f.produced, 1);
    CHECK_INT(e.produced, 0);
    batch_remove(&b, &f);
    CHECK(!batch_busy(&b));

    /* jitter stays within its bounds and is seeded */
    struct buf err;
    buf_init(&err, 256);
    CHECK_INT(model_set(&p, "jitter", "0.1", &err), 0);
    buf_free(&err);
    struct batch j1, j2;
    batch_init(&j1, &p, 7);
    batch_init(&j2, &p, 7);
    for (int i = 0; i < 100; i++) {
        struct batch_seq x = {.want_tokens = 1}, y = {.want_tokens = 1};
        batch_add(&j1, &x);
        batch_add(&j2, &y);
        double t1 = batch_begin(&j1, 0), t2 = batch_begin(&j2, 0);
        NEAR(t1, t2);
        CHECK(t1 >= 0.009 - 1e-12 && t1 <= 0.011 + 1e-12);
        batch_end(&j1, &done);
        batch_end(&j2, &done);
        while (batch_pop(&done)) {
        }
    }
    model_free(&p);
    test_cache();
    return check_exit();
}
