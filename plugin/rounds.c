#include "rounds.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct rounds {
    int n_threads;
    size_t n_rounds;             /* with the start barrier at 0 */
    struct rounds_round *rounds; /* rounds[0]: the start barrier; rounds[r + 1]: the caller's r */
    size_t cur;                  /* the round going on; n_rounds: all done */
    long taken;                  /* items handed out in the current round */
    long long started_us;        /* when the current round started */
    long *thread_taken;          /* per thread, in the current round */
    bool *arrived;               /* per thread, in the current round */
    int n_arrived;
    unsigned long generation;
    long shard, shards; /* this shard's stripe: senders and items i with i % shards == shard */
    int n_senders;      /* this shard's senders: those a barrier waits for */
    bool has_start;     /* the first round waits for start_us */
    long long start_us;
};

/* A copy of an open-loop round's start times. */
static long long *rounds_copy_at(const struct rounds_round *r) {
    size_t n = r->items > 0 ? (size_t)r->items : 1;
    long long *at = malloc(n * sizeof *at);
    if (at && r->items > 0) memcpy(at, r->at_us, n * sizeof *at);
    return at;
}

int rounds_new(int n_threads, const struct rounds_round *rounds, size_t n_rounds,
               struct rounds **out) {
    *out = NULL;
    if (n_threads < 1) return ROUNDS_ERR_INPUT;
    for (size_t r = 0; r < n_rounds; r++)
        if ((rounds[r].items < 0 && rounds[r].duration_us <= 0) ||
            (rounds[r].at_us && rounds[r].items < 0))
            return ROUNDS_ERR_INPUT;
    struct rounds *s = calloc(1, sizeof *s);
    if (!s) return ROUNDS_ERR_NOMEM;
    s->n_threads = n_threads;
    s->n_senders = n_threads;
    s->shards = 1;
    s->n_rounds = n_rounds + 1;
    s->rounds = calloc(s->n_rounds, sizeof *s->rounds);
    s->thread_taken = calloc((size_t)n_threads, sizeof *s->thread_taken);
    s->arrived = calloc((size_t)n_threads, sizeof *s->arrived);
    if (!s->rounds || !s->thread_taken || !s->arrived) {
        rounds_free(s);
        return ROUNDS_ERR_NOMEM;
    }
    s->rounds[0] = (struct rounds_round){.items = 0, .per_thread = -1};
    for (size_t r = 0; r < n_rounds; r++) {
        s->rounds[r + 1] = rounds[r];
        if (rounds[r].at_us && !(s->rounds[r + 1].at_us = rounds_copy_at(&rounds[r]))) {
            rounds_free(s);
            return ROUNDS_ERR_NOMEM;
        }
    }
    *out = s;
    return 0;
}

void rounds_free(struct rounds *s) {
    if (!s) return;
    for (size_t r = 1; s->rounds && r < s->n_rounds; r++) free((long long *)s->rounds[r].at_us);
    free(s->rounds);
    free(s->thread_taken);
    free(s->arrived);
    free(s);
}

int rounds_set_shard(struct rounds *s, long index, long count) {
    if (count < 1) count = 1;
    if (index < 0 || index >= count || count > s->n_threads) return ROUNDS_ERR_INPUT;
    s->shard = index;
    s->shards = count;
    s->n_senders = (int)((s->n_threads - index + count - 1) / count);
    return 0;
}

void rounds_set_start(struct rounds *s, long long start_us) {
    s->has_start = true;
    s->start_us = start_us;
}

bool rounds_is_sender(const struct rounds *s, int t) {
    return t >= 0 && t < s->n_threads && t % s->shards == s->shard;
}

bool rounds_keeps(const struct rounds *s, long i) {
    return i >= 0 && i % s->shards == s->shard;
}

/* Of a round's n items, those of this shard. */
static long rounds_kept(const struct rounds *s, long n) {
    return n <= s->shard ? 0 : (n - s->shard - 1) / s->shards + 1;
}

static bool rounds_can_take(const struct rounds *s, int t, long long now_us) {
    const struct rounds_round *r = &s->rounds[s->cur];
    if (s->arrived[t]) return false;
    if (r->items >= 0 && s->taken >= rounds_kept(s, r->items)) return false;
    if (r->per_thread >= 0 && s->thread_taken[t] >= r->per_thread) return false;
    return r->duration_us <= 0 || now_us - s->started_us < r->duration_us;
}

static void rounds_advance(struct rounds *s, long long now_us) {
    s->cur++;
    s->taken = 0;
    bool open = s->cur < s->n_rounds && s->rounds[s->cur].at_us;
    if (s->cur == 1 && s->has_start && now_us < s->start_us)
        s->started_us = s->start_us;
    else
        s->started_us = now_us + (open ? ROUNDS_OPEN_LEAD_US : 0);
    s->n_arrived = 0;
    memset(s->thread_taken, 0, (size_t)s->n_threads * sizeof *s->thread_taken);
    memset(s->arrived, 0, (size_t)s->n_threads * sizeof *s->arrived);
    s->generation++;
}

int rounds_next(struct rounds *s, int t, long long now_us, size_t *round_out, long *index_out,
                long long *due_out) {
    if (t < 0 || t >= s->n_threads) return ROUNDS_ERR_INPUT;
    if (!rounds_is_sender(s, t)) return ROUNDS_NONE;
    while (s->cur < s->n_rounds) {
        if (rounds_can_take(s, t, now_us)) {
            const struct rounds_round *r = &s->rounds[s->cur];
            s->thread_taken[t]++;
            *round_out = s->cur - 1;
            *index_out = s->shard + s->taken++ * s->shards;
            *due_out = r->at_us ? s->started_us + r->at_us[*index_out] : -1;
            return ROUNDS_ITEM;
        }
        if (!s->arrived[t]) {
            s->arrived[t] = true;
            s->n_arrived++;
        }
        if (s->n_arrived < s->n_senders) return ROUNDS_WAIT;
        rounds_advance(s, now_us);
    }
    return ROUNDS_DONE;
}

unsigned long rounds_generation(const struct rounds *s) {
    return s->generation;
}

long rounds_total(const struct rounds *s) {
    long total = 0;
    for (size_t r = 1; r < s->n_rounds; r++) {
        if (s->rounds[r].items < 0) return -1;
        total += rounds_kept(s, s->rounds[r].items);
    }
    return total;
}
