#include "watch.h"

#include <stdlib.h>

#include "rfmt.h"

int watch_init(struct watch *w, size_t n_rounds, const struct watch_client *c) {
    *w = (struct watch){.n = n_rounds, .cur = n_rounds, .client = *c};
    if (n_rounds && !(w->rounds = calloc(n_rounds, sizeof *w->rounds))) return WATCH_ERR_NOMEM;
    for (size_t i = 0; i < n_rounds; i++) w->rounds[i].file = w->rounds[i].batch = -1;
    return WATCH_OK;
}

void watch_free(struct watch *w) {
    free(w->rounds);
    *w = (struct watch){0};
}

void watch_end(struct watch *w, const struct watch_mark *m) {
    if (w->cur >= w->n) return;
    w->rounds[w->cur].m1 = *m;
    w->cur = w->n;
}

void watch_item(struct watch *w, size_t round, const struct watch_mark *m) {
    if (round >= w->n || round == w->cur) return;
    watch_end(w, m);
    struct watch_round *r = &w->rounds[round];
    if (!r->started) {
        r->started = true;
        r->m0 = *m;
    }
    w->cur = round;
}

void watch_record(struct watch *w, size_t file, long batch) {
    if (w->cur >= w->n || w->rounds[w->cur].file >= 0) return;
    w->rounds[w->cur].file = (long)file;
    w->rounds[w->cur].batch = batch;
}

void watch_stall(struct watch *w, long long us) {
    if (w->cur >= w->n || us <= RFMT_STALL_US) return;
    struct watch_round *r = &w->rounds[w->cur];
    r->stalls++;
    r->stall_us += us;
    if (us > r->stall_max_us) r->stall_max_us = us;
}

void watch_reads(struct watch *w, long reads, long chunks, long burst_chunks) {
    if (w->cur >= w->n) return;
    struct watch_round *r = &w->rounds[w->cur];
    r->reads += reads;
    r->chunks += chunks;
    r->burst_chunks += burst_chunks;
}

void watch_count_read(long n, long *reads, long *chunks, long *burst_chunks) {
    if (n <= 0) return;
    *reads += 1;
    *chunks += n;
    *burst_chunks += n - 1;
}

cJSON *watch_json(const struct watch *w, size_t file) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < w->n; i++) {
        const struct watch_round *r = &w->rounds[i];
        if (r->file != (long)file || !r->started) continue;
        long long t1 = r->m1.now_us > r->m0.now_us ? r->m1.now_us : r->m0.now_us;
        double cpu = r->m1.cpu_s > r->m0.cpu_s ? r->m1.cpu_s - r->m0.cpu_s : 0;
        struct rfmt_round o = {
            .round = (long)i,
            .batch = r->batch,
            .wall_s = (double)(t1 - r->m0.now_us) / 1e6,
            .cpu_s = cpu,
            .cpus = w->client.cpus > 0 ? w->client.cpus : 1,
            .threads = w->client.threads > 0 ? w->client.threads : 1,
            .busy_poll = w->client.busy_poll,
            .stalls_of = w->client.stalls_of,
            .stalls = r->stalls,
            .stall_max_us = r->stall_max_us,
            .stall_us = r->stall_us,
            .reads = r->reads,
            .chunks = r->chunks,
            .burst_chunks = r->burst_chunks,
            .steal_share = hostcpu_steal_share(&r->m0.host, &r->m1.host),
        };
        cJSON *one = rfmt_round_json(&o);
        if (!one || !cJSON_AddItemToArray(a, one)) {
            cJSON_Delete(one);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}
