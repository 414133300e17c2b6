#include "batch.h"

#include "splitmix.h"

static void batch_push(struct batch_list *l, struct batch_seq *q) {
    q->next = NULL;
    q->prev = l->tail;
    if (l->tail)
        l->tail->next = q;
    else
        l->head = q;
    l->tail = q;
    l->n++;
}

static void batch_unlink(struct batch_list *l, struct batch_seq *q) {
    if (q->prev)
        q->prev->next = q->next;
    else
        l->head = q->next;
    if (q->next)
        q->next->prev = q->prev;
    else
        l->tail = q->prev;
    q->prev = q->next = NULL;
    l->n--;
}

struct batch_seq *batch_pop(struct batch_list *list) {
    struct batch_seq *q = list->head;
    if (q) batch_unlink(list, q);
    return q;
}

void batch_init(struct batch *s, const struct model_profile *p, uint64_t seed) {
    *s = (struct batch){.profile = p, .rng = seed}; /* a zeroed cache is none */
}

int batch_start_cache(struct batch *s) {
    pcache_free(&s->cache);
    return pcache_init(&s->cache, s->profile->prefix_cache_tokens);
}

void batch_free(struct batch *s) {
    pcache_free(&s->cache);
}

void batch_add(struct batch *s, struct batch_seq *seq) {
    seq->produced = 0;
    seq->running = false;
    seq->queued = true;
    seq->cached_tokens = 0;
    seq->admitted = seq->blocked = -1;
    seq->queue_s = 0;
    batch_push(&s->waiting, seq);
}

void batch_remove(struct batch *s, struct batch_seq *seq) {
    if (seq->running)
        batch_unlink(&s->running, seq);
    else if (seq->queued)
        batch_unlink(&s->waiting, seq);
    seq->running = seq->queued = false;
}

bool batch_busy(const struct batch *s) {
    return s->waiting.n > 0 || s->running.n > 0;
}

/* Admits q to the step that starts at start; returns its prefill time. */
static double batch_admit(struct batch *s, struct batch_seq *q, double start) {
    q->queued = false;
    q->running = true;
    q->admitted = start;
    q->queue_s = q->blocked >= 0 ? start - q->blocked : 0;
    batch_push(&s->running, q);
    s->prompt_tokens += q->prompt_tokens;
    if (q->blocks && pcache_on(&s->cache)) {
        q->cached_tokens = pcache_lookup(&s->cache, q->blocks, q->prompt_blocks, q->prompt_tokens);
        pcache_insert(&s->cache, q->blocks, q->prompt_blocks);
    }
    return (double)(q->prompt_tokens - q->cached_tokens) * s->profile->prefill_s_per_token;
}

double batch_next_start(const struct batch *s, double start) {
    const struct batch_seq *first = s->waiting.head;
    if (s->running.n == 0 && first && first->ready > start) return first->ready;
    return start;
}

double batch_begin(struct batch *s, double start) {
    const struct model_profile *p = s->profile;
    double prefill = 0;
    while (s->waiting.head && s->running.n < p->max_seqs && s->waiting.head->ready <= start)
        prefill += batch_admit(s, batch_pop(&s->waiting), start);
    /* no room for the ready rest: they wait behind max_seqs from now on (the newest at the tail) */
    for (struct batch_seq *q = s->waiting.tail; s->running.n >= p->max_seqs && q && q->blocked < 0;
         q = q->prev)
        if (q->ready <= start) q->blocked = start;
    double u = 2 * splitmix_unit(&s->rng) - 1;
    double step = model_step_s(p, (unsigned)s->running.n) * (1 + p->jitter * u);
    s->stepping = true;
    s->step_end = start + step + prefill;
    return s->step_end;
}

void batch_end(struct batch *s, struct batch_list *done) {
    struct batch_seq *q = s->running.head;
    s->stepping = false;
    while (q) {
        struct batch_seq *next = q->next;
        size_t k = 1; /* tokens this step gives q */
        if (q->spec_step > 1 && q->produced >= q->spec_from) {
            size_t left = q->want_tokens - q->produced;
            k = q->spec_step < left ? q->spec_step : left;
            s->spec.drafts++;
            s->spec.draft_tokens += q->spec_k;
            s->spec.accepted += k - 1;
            for (size_t i = 0; i + 1 < k && i < BATCH_SPEC_MAX; i++) s->spec.pos[i]++;
            s->spec.k = q->spec_k;
        }
        q->produced += k;
        s->generated_tokens += k;
        if (q->produced >= q->want_tokens) {
            if (q->blocks) pcache_insert(&s->cache, q->blocks, q->done_blocks);
            batch_unlink(&s->running, q);
            q->running = false;
            batch_push(done, q);
        }
        q = next;
    }
}
