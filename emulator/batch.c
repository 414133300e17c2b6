#include "batch.h"

#include "rng.h"

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
    *s = (struct batch){.profile = p, .rng = seed};
}

void batch_add(struct batch *s, struct batch_seq *seq) {
    seq->produced = 0;
    seq->running = false;
    seq->queued = true;
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

double batch_begin(struct batch *s, double start) {
    const struct model_profile *p = s->profile;
    double prefill = 0;
    while (s->waiting.n > 0 && s->running.n < p->max_seqs) {
        struct batch_seq *q = batch_pop(&s->waiting);
        q->queued = false;
        q->running = true;
        batch_push(&s->running, q);
        prefill += (double)q->prompt_tokens * p->prefill_s_per_token;
        s->prompt_tokens += q->prompt_tokens;
    }
    double u = 2 * rng_unit(&s->rng) - 1;
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
        q->produced++;
        s->generated_tokens++;
        if (q->produced >= q->want_tokens) {
            batch_unlink(&s->running, q);
            q->running = false;
            batch_push(done, q);
        }
        q = next;
    }
}
