#include "shards.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfmt.h"

/* The state of merging one run's files. */
struct shards_ctx {
    struct rfile *const *files; /* by shard index once checked */
    struct rfmt_head *heads;    /* by shard index */
    long n;                     /* the shard count */
    int64_t *delta;             /* per shard: what moves its clock onto the merged one */
    int64_t base;               /* the merged clock's wall-clock time at 0 */
    bool *timed;                /* per shard: it has records with wall_start_us */
    struct rfile *out;
    struct shards_info *info;
    struct warnings *w;
    struct buf *err;
};

static int shards_nomem(struct buf *err) {
    return buf_fail(err, SHARDS_ERR_NOMEM, "out of memory");
}

static const cJSON *shards_field(const struct rfile *rf, const char *name) {
    return cJSON_GetObjectItemCaseSensitive(rf->head, name);
}

static const char *shards_str(const struct rfile *rf, const char *name) {
    const cJSON *v = shards_field(rf, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

bool shards_is_shard(const struct rfile *rf) {
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(shards_field(rf, RFMT_SHARD), "count");
    return cJSON_IsNumber(n) && n->valuedouble > 1;
}

int shards_hold(struct shards_pending *p, struct rfile *rf, struct buf *err) {
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        struct rfile **f =
            realloc(p->files, cap * sizeof *f); // NOLINT(bugprone-sizeof-expression): pointers
        if (!f) {
            rfile_free(rf);
            return shards_nomem(err);
        }
        p->files = f;
        p->cap = cap;
    }
    p->files[p->n++] = rf;
    return SHARDS_OK;
}

void shards_pending_free(struct shards_pending *p) {
    for (size_t i = 0; i < p->n; i++) rfile_free(p->files[i]);
    free(p->files);
    memset(p, 0, sizeof *p);
}

void shards_info_free(struct shards_info *info) {
    if (!info) return;
    for (long i = 0; info->shards && i < info->count; i++) free(info->shards[i].path);
    free(info->shards);
    free(info->run_id);
    free(info->label);
    free(info->scenario);
    free(info->start_at);
    free(info);
}

/* ---- the checks ---------------------------------------------------------------- */

/* Puts the n files in shard order into slots, with their heads; refuses a
 * count that differs, a shard twice, another settings hash, a missing shard. */
static int shards_order(struct shards_ctx *c, struct rfile *const *files, size_t n,
                        struct rfile **slots) {
    if (!n || !files || !slots || !c->heads)
        return buf_fail(c->err, SHARDS_ERR_INPUT, "no shard files");
    for (size_t i = 0; i < n; i++) {
        struct rfmt_head h;
        if (rfmt_head_parse(files[i]->head, files[i]->path, &h, c->err)) return SHARDS_ERR_INPUT;
        if (i == 0) c->n = h.shard.count;
        if (h.shard.count != c->n)
            return buf_fail(c->err, SHARDS_ERR_INPUT,
                            "%s and %s: one run (%s) split into %ld and into %ld shards",
                            files[0]->path, files[i]->path, h.run_id ? h.run_id : "?", c->n,
                            h.shard.count);
        if (slots[h.shard.index])
            return buf_fail(c->err, SHARDS_ERR_INPUT,
                            "%s and %s: both are shard %ld of run %s (label %s); keep one",
                            slots[h.shard.index]->path, files[i]->path, h.shard.index,
                            h.run_id ? h.run_id : "?", h.label ? h.label : "?");
        slots[h.shard.index] = files[i];
        c->heads[h.shard.index] = h;
    }
    return SHARDS_OK;
}

/* Every shard present, with one settings hash, and each one that ran. */
static int shards_complete(struct shards_ctx *c, struct rfile **slots) {
    const char *run = c->heads[0].run_id ? c->heads[0].run_id : "?";
    struct rfile *any = NULL;
    for (long k = 0; k < c->n && !any; k++) any = slots[k];
    if (!any) return buf_fail(c->err, SHARDS_ERR_INPUT, "no shard files");
    for (long k = 0; k < c->n; k++) {
        if (!slots[k])
            return buf_fail(c->err, SHARDS_ERR_INPUT,
                            "run %s (label %s): shard %ld of %ld is missing (%s is one of the "
                            "others); fetch every shard's file, or run the missing shard again",
                            run, shards_str(any, RFMT_LABEL), k, c->n, any->path);
        const char *a = c->heads[0].settings_sha256, *b = c->heads[k].settings_sha256;
        if (!a || !b || strcmp(a, b) != 0)
            return buf_fail(c->err, SHARDS_ERR_INPUT,
                            "%s and %s: shards of run %s with different settings (settings_sha256 "
                            "%.12s and %.12s): not one load; run the shards with one command",
                            slots[0]->path, slots[k]->path, run, a ? a : "none", b ? b : "none");
        const char *why = shards_str(slots[k], RFMT_PARTIAL_REASON);
        if (strncmp(why, "late start", 10) == 0)
            return buf_fail(c->err, SHARDS_ERR_INPUT,
                            "%s: shard %ld of run %s did not run (%s): the other shards did not "
                            "make the load asked; run them all again",
                            slots[k]->path, k, run, why);
    }
    return SHARDS_OK;
}

/* ---- the clocks ----------------------------------------------------------------- */

static int shards_cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Each shard's wall clock minus its run clock (the median over its records),
 * then the deltas that move every shard onto the earliest one's clock. */
static int shards_deltas(struct shards_ctx *c) {
    int64_t base = 0;
    bool any = false;
    for (long k = 0; k < c->n; k++) {
        const struct rfile *rf = c->files[k];
        if (!rf) return SHARDS_ERR_INPUT; /* shards_complete saw every shard */
        int64_t *d = malloc((rf->nrecs ? rf->nrecs : 1) * sizeof *d);
        size_t m = 0;
        if (!d) return shards_nomem(c->err);
        for (size_t i = 0; i < rf->nrecs; i++)
            if (rf->recs[i].wall_start_us >= 0)
                d[m++] = rf->recs[i].wall_start_us - rf->recs[i].t_start_us;
        if (m) {
            qsort(d, m, sizeof *d, shards_cmp_i64);
            c->delta[k] = d[m / 2];
            c->timed[k] = true;
            if (!any || c->delta[k] < base) base = c->delta[k];
            any = true;
        } else if (rf->nrecs) {
            warnings_add(c->w,
                         "%s: records without wall_start_us: shard %ld's times are left on "
                         "its own clock",
                         rf->path, k);
        }
        free(d);
    }
    for (long k = 0; k < c->n; k++) c->delta[k] = c->timed[k] ? c->delta[k] - base : 0;
    c->base = base;
    return SHARDS_OK;
}

/* ---- the merged file ------------------------------------------------------------ */

static int shards_room(void **arr, size_t *cap, size_t want, size_t size) {
    if (want <= *cap) return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < want) c *= 2;
    void *p = c < SIZE_MAX / size ? realloc(*arr, c * size) : NULL;
    if (!p) return -1;
    *arr = p;
    *cap = c;
    return 0;
}

/* A string id of from as an id of to (0 stays 0). */
static int shards_id(const struct rfile *from, struct rfile *to, uint32_t id, uint32_t *out) {
    const char *s = rfile_str(from, id);
    *out = 0;
    return s ? strtab_intern(&to->strs, s, strlen(s), out) : 0;
}

/* A text offset of from as one of to. */
static int shards_text(const struct rfile *from, struct rfile *to, uint32_t off, uint32_t *out) {
    const char *s = rfile_text(from, off);
    size_t n = s ? strlen(s) : 0;
    *out = 0;
    if (!s) return 0;
    if (to->texts.len >= UINT32_MAX - n - 2) return -1;
    *out = (uint32_t)to->texts.len + 1;
    return buf_add(&to->texts, s, n + 1) == BUF_OK ? 0 : -1;
}

/* The first message of error id of from, kept for its id in to. */
static int shards_errmsg(const struct rfile *from, uint32_t id, struct rfile *to, uint32_t to_id) {
    const char *msg = rfile_errmsg(from, id);
    if (!msg || !to_id || rfile_errmsg(to, to_id)) return 0;
    if (to_id > to->nerrmsg) {
        char **m = realloc(to->errmsg, to_id * sizeof *m);
        if (!m) return -1;
        for (size_t i = to->nerrmsg; i < to_id; i++) m[i] = NULL;
        to->errmsg = m;
        to->nerrmsg = to_id;
    }
    return (to->errmsg[to_id - 1] = strdup(msg)) ? 0 : -1;
}

/* A streamed record's gaps and chunk tokens copied into to. */
static int shards_chunks(const struct rfile *from, struct rfile *to, struct rfile_rec *r,
                         size_t *cap_gaps, size_t *cap_ctoks) {
    if (!r->stream) return 0;
    size_t gaps = r->chunks > 1 ? (size_t)r->chunks - 1 : 0;
    if (shards_room((void **)&to->gaps, cap_gaps, to->ngaps + gaps + 1, sizeof *to->gaps))
        return -1;
    memcpy(to->gaps + to->ngaps, from->gaps + r->gaps, gaps * sizeof *to->gaps);
    r->gaps = to->ngaps;
    to->ngaps += gaps;
    if (r->ctoks == RFILE_NO_CTOKS) return 0;
    size_t n = r->chunks > 0 ? (size_t)r->chunks : 0;
    if (shards_room((void **)&to->ctoks, cap_ctoks, to->nctoks + n + 1, sizeof *to->ctoks))
        return -1;
    memcpy(to->ctoks + to->nctoks, from->ctoks + r->ctoks, n * sizeof *to->ctoks);
    r->ctoks = to->nctoks;
    to->nctoks += n;
    return 0;
}

/* Moves a record's times by d. */
static void shards_shift(struct rfile_rec *r, int64_t d) {
    r->t_start_us += d;
    r->t_end_us += d;
    if (r->t_intended_us != RFILE_NONE) r->t_intended_us += d;
    if (r->t_headers_us != RFILE_NONE) r->t_headers_us += d;
    if (r->t_first_us != RFILE_NONE) r->t_first_us += d;
}

/* One shard's records into the merged file. */
static int shards_copy(struct shards_ctx *c, long k, size_t *cap_gaps, size_t *cap_ctoks) {
    const struct rfile *from = c->files[k];
    struct rfile *to = c->out;
    for (size_t i = 0; i < from->nrecs; i++) {
        struct rfile_rec r = from->recs[i];
        if (shards_id(from, to, r.phase, &r.phase) || shards_id(from, to, r.kind, &r.kind) ||
            shards_id(from, to, r.question, &r.question) ||
            shards_id(from, to, r.error, &r.error) ||
            shards_errmsg(from, from->recs[i].error, to, r.error) ||
            shards_text(from, to, r.text, &r.text) || shards_text(from, to, r.answer, &r.answer) ||
            shards_chunks(from, to, &r, cap_gaps, cap_ctoks))
            return shards_nomem(c->err);
        shards_shift(&r, c->delta[k]);
        r.seq = r.seq * c->n + k; /* unique across the shards */
        to->recs[to->nrecs++] = r;
    }
    return SHARDS_OK;
}

/* The merged head: shard 0's without its shard and clock, partial when a shard was. */
static int shards_head(struct shards_ctx *c) {
    cJSON *h = c->out->head;
    cJSON_DeleteItemFromObjectCaseSensitive(h, RFMT_SHARD);
    cJSON_DeleteItemFromObjectCaseSensitive(h, RFMT_CLOCK);
    cJSON_DeleteItemFromObjectCaseSensitive(h, RFMT_START_LATE_US);
    cJSON_DeleteItemFromObjectCaseSensitive(h, RFMT_CLIENT_ROUNDS);
    cJSON *rounds = cJSON_CreateArray(); /* every shard's: each its own process */
    if (!rounds || !cJSON_AddItemToObject(h, RFMT_CLIENT_ROUNDS, rounds)) {
        cJSON_Delete(rounds);
        return shards_nomem(c->err);
    }
    for (long k = 0; k < c->n; k++) {
        const cJSON *one, *from = shards_field(c->files[k], RFMT_CLIENT_ROUNDS);
        if (!cJSON_IsArray(from)) from = NULL;
        cJSON_ArrayForEach(one, from) {
            cJSON *copy = cJSON_Duplicate(one, true);
            if (!copy || !cJSON_AddItemToArray(rounds, copy)) {
                cJSON_Delete(copy);
                return shards_nomem(c->err);
            }
        }
    }
    for (long k = 0; k < c->n; k++) {
        const struct rfile *rf = c->files[k];
        bool partial = rf->journal || cJSON_IsTrue(shards_field(rf, RFMT_PARTIAL));
        if (!partial) continue;
        char why[400];
        snprintf(why, sizeof why, "shard %ld: %s", k,
                 rf->journal ? "recovered from its journal" : shards_str(rf, RFMT_PARTIAL_REASON));
        cJSON_DeleteItemFromObjectCaseSensitive(h, RFMT_PARTIAL);
        cJSON_DeleteItemFromObjectCaseSensitive(h, RFMT_PARTIAL_REASON);
        if (!cJSON_AddTrueToObject(h, RFMT_PARTIAL) ||
            !cJSON_AddStringToObject(h, RFMT_PARTIAL_REASON, why))
            return shards_nomem(c->err);
        warnings_add(c->w, "%s: shard %ld of run %s is partial (%s)", rf->path, k,
                     shards_str(rf, RFMT_RUN_ID), why);
        break;
    }
    return SHARDS_OK;
}

static int shards_build(struct shards_ctx *c) {
    size_t total = 0, cap_gaps = 0, cap_ctoks = 0;
    if (c->n < 1 || !c->files[0]) return buf_fail(c->err, SHARDS_ERR_INPUT, "no shard files");
    for (long k = 0; k < c->n; k++) total += c->files[k]->nrecs;
    struct rfile *o = c->out = calloc(1, sizeof *o);
    if (!o) return shards_nomem(c->err);
    strtab_init(&o->strs);
    buf_init(&o->texts, BUF_NO_CAP);
    char path[4200];
    snprintf(path, sizeof path, "%s [%ld shards of run %s]", c->files[0]->path, c->n,
             shards_str(c->files[0], RFMT_RUN_ID));
    o->has_records = true;
    if (!(o->path = strdup(path)) || !(o->head = cJSON_Duplicate(c->files[0]->head, true)) ||
        !(o->recs = malloc((total ? total : 1) * sizeof *o->recs)))
        return shards_nomem(c->err);
    for (long k = 0; k < c->n; k++) {
        int rc = shards_copy(c, k, &cap_gaps, &cap_ctoks);
        if (rc) return rc;
    }
    return shards_head(c);
}

/* ---- what the report says ------------------------------------------------------- */

static double shards_scale(const struct shards_ctx *c) {
    return c->heads[0].time_scale > 0 ? c->heads[0].time_scale : 1;
}

/* One shard's figures, on the merged clock (microseconds as measured). */
static void shards_one(struct shards_ctx *c, long k, long long start_at, int64_t *first,
                       int64_t *last) {
    const struct rfile *rf = c->files[k];
    struct shards_shard *s = &c->info->shards[k];
    double scale = shards_scale(c), tokens = 0;
    *first = INT64_MAX;
    *last = INT64_MIN;
    for (size_t i = 0; i < rf->nrecs; i++) {
        const struct rfile_rec *r = &rf->recs[i];
        s->sent++;
        s->ok += r->ok;
        if (r->ok && r->completion_tokens > 0) tokens += r->completion_tokens;
        if (r->t_start_us + c->delta[k] < *first) *first = r->t_start_us + c->delta[k];
        if (r->t_end_us + c->delta[k] > *last) *last = r->t_end_us + c->delta[k];
    }
    s->late_s = start_at >= 0 && *first != INT64_MAX && c->timed[k]
                    ? (double)(*first + c->base - start_at) / 1e6 /* wall clock, not scaled */
                    : NAN;
    double span = *last > *first ? (double)(*last - *first) * scale / 1e6 : NAN;
    s->first_s = *first != INT64_MAX ? (double)*first * scale / 1e6 : NAN;
    s->last_s = *last != INT64_MIN ? (double)*last * scale / 1e6 : NAN;
    s->rate = span > 0 ? (double)s->sent / span : NAN;
    s->tokens_per_s = span > 0 ? tokens / span : NAN;
    s->clock = c->heads[k].clock.have;
    s->offset_ms = (double)c->heads[k].clock.offset_us / 1e3;
    s->uncertainty_ms = (double)c->heads[k].clock.uncertainty_us / 1e3;
}

#define SHARDS_WINDOW "merged_window_us" /* the merged head's [from, to]: in memory only */

bool shards_common_window(const struct rfile *rf, int64_t *from_us, int64_t *to_us) {
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(rf->head, SHARDS_WINDOW);
    const cJSON *a = cJSON_GetArrayItem(w, 0), *b = cJSON_GetArrayItem(w, 1);
    if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b) || !(b->valuedouble > a->valuedouble))
        return false;
    *from_us = (int64_t)a->valuedouble;
    *to_us = (int64_t)b->valuedouble;
    return true;
}

/* The tokens of the merged file's successful requests that ended in [a, b]. */
static int shards_window(struct shards_ctx *c, int64_t a, int64_t b) {
    struct shards_info *in = c->info;
    double tokens = 0;
    if (!c->out) return SHARDS_ERR_INPUT; /* shards_build made it */
    cJSON *w = b > a ? cJSON_AddArrayToObject(c->out->head, SHARDS_WINDOW) : NULL;
    if (b > a && !(w && cJSON_AddItemToArray(w, cJSON_CreateNumber((double)a)) &&
                   cJSON_AddItemToArray(w, cJSON_CreateNumber((double)b))))
        return shards_nomem(c->err);
    in->window_s = b > a ? (double)(b - a) * shards_scale(c) / 1e6 : NAN;
    for (size_t i = 0; b > a && i < c->out->nrecs; i++) {
        const struct rfile_rec *r = &c->out->recs[i];
        if (!r->ok || r->t_end_us < a || r->t_end_us > b) continue;
        in->window_requests++;
        if (r->completion_tokens > 0) tokens += r->completion_tokens;
    }
    in->window_tokens_per_s = in->window_s > 0 ? tokens / in->window_s : NAN;
    return SHARDS_OK;
}

/* Warnings: clock offsets or first sends further apart than their bounds. */
static void shards_skews(struct shards_ctx *c) {
    const struct shards_info *in = c->info;
    long lo = -1, hi = -1;
    for (long k = 0; k < in->count; k++) {
        if (!in->shards[k].clock) continue;
        if (lo < 0 || in->shards[k].offset_ms < in->shards[lo].offset_ms) lo = k;
        if (hi < 0 || in->shards[k].offset_ms > in->shards[hi].offset_ms) hi = k;
    }
    if (lo >= 0 &&
        (in->shards[hi].offset_ms - in->shards[lo].offset_ms) * 1e3 > SHARDS_CLOCK_WARN_US)
        warnings_add(c->w,
                     "run %s: the shards' clocks disagree by %.1f ms (shard %ld: %+.1f ms +- %.1f, "
                     "shard %ld: %+.1f ms +- %.1f against the endpoint's): their --start-at was "
                     "not one instant; synchronise the hosts' clocks (NTP)",
                     in->run_id, in->shards[hi].offset_ms - in->shards[lo].offset_ms, hi,
                     in->shards[hi].offset_ms, in->shards[hi].uncertainty_ms, lo,
                     in->shards[lo].offset_ms, in->shards[lo].uncertainty_ms);
    if (in->skew_s * 1e6 > SHARDS_SKEW_WARN_US)
        warnings_add(c->w,
                     "run %s: the shards' first requests left %.1f ms apart (more than %d ms): "
                     "the shards' Shards table says which started late",
                     in->run_id, in->skew_s * 1e3, SHARDS_SKEW_WARN_US / 1000);
}

static int shards_report(struct shards_ctx *c) {
    struct shards_info *in = c->info = calloc(1, sizeof *in);
    if (!in) return shards_nomem(c->err);
    const struct rfmt_head *h = &c->heads[0];
    in->count = c->n;
    in->run_id = strdup(h->run_id ? h->run_id : "?");
    in->label = strdup(h->label ? h->label : "?");
    in->scenario = strdup(h->scenario ? h->scenario : "?");
    in->start_at = h->start_at ? strdup(h->start_at) : NULL;
    in->shards = calloc((size_t)c->n, sizeof *in->shards);
    if (!in->run_id || !in->label || !in->scenario || (h->start_at && !in->start_at) || !in->shards)
        return shards_nomem(c->err);
    long long start_at = -1;
    if (h->start_at && rfmt_time_parse(h->start_at, &start_at)) start_at = -1;
    int64_t a = INT64_MIN, b = INT64_MAX, f0 = INT64_MAX, f1 = INT64_MIN, first, last;
    /* Skew and lateness are the clocks' (as measured); the window is the model's (scaled). */
    for (long k = 0; k < c->n; k++) {
        in->shards[k].index = k;
        if (!(in->shards[k].path = strdup(c->files[k]->path))) return shards_nomem(c->err);
        shards_one(c, k, start_at, &first, &last);
        if (first == INT64_MAX) continue; /* no records */
        if (first > a) a = first;
        if (last < b) b = last;
        if (first < f0) f0 = first;
        if (first > f1) f1 = first;
    }
    in->skew_s = f1 >= f0 ? (double)(f1 - f0) / 1e6 : 0;
    int rc = shards_window(c, a, b);
    if (!rc) shards_skews(c);
    return rc;
}

/* The merge's steps once its arrays are there. */
static int shards_steps(struct shards_ctx *c, struct rfile *const *files, size_t n,
                        struct rfile **slots) {
    int rc = shards_order(c, files, n, slots);
    if (!rc) rc = shards_complete(c, slots);
    if (rc) return rc;
    c->files = slots;
    if (!(c->delta = calloc((size_t)c->n, sizeof *c->delta)) ||
        !(c->timed = calloc((size_t)c->n, sizeof *c->timed)))
        return shards_nomem(c->err);
    if (!rc) rc = shards_deltas(c);
    if (!rc) rc = shards_build(c);
    if (!rc) rc = shards_report(c);
    return rc;
}

int shards_merge(struct rfile *const *files, size_t n, struct rfile **out,
                 struct shards_info **info, struct warnings *w, struct buf *err) {
    struct shards_ctx c = {.w = w, .err = err};
    *out = NULL;
    *info = NULL;
    if (!n) return buf_fail(err, SHARDS_ERR_INPUT, "no shard files");
    struct rfile **slots =
        calloc(RFMT_SHARDS_MAX, sizeof *slots); // NOLINT(bugprone-sizeof-expression): pointers
    c.heads = calloc(RFMT_SHARDS_MAX, sizeof *c.heads);
    int rc = slots && c.heads ? shards_steps(&c, files, n, slots) : shards_nomem(err);
    if (rc) {
        rfile_free(c.out);
        shards_info_free(c.info);
    } else {
        *out = c.out;
        *info = c.info;
    }
    free(slots);
    free(c.heads);
    free(c.delta);
    free(c.timed);
    return rc;
}

/* ---- a side's held files -------------------------------------------------------- */

static bool shards_same_run(const struct rfile *a, const struct rfile *b) {
    return strcmp(shards_str(a, RFMT_RUN_ID), shards_str(b, RFMT_RUN_ID)) == 0 &&
           strcmp(shards_str(a, RFMT_LABEL), shards_str(b, RFMT_LABEL)) == 0 &&
           strcmp(shards_str(a, RFMT_SCENARIO), shards_str(b, RFMT_SCENARIO)) == 0;
}

int shards_flush(struct shards_pending *p, shards_add_fn *add, void *ud, struct warnings *w,
                 struct buf *err) {
    struct rfile **group =
        calloc(p->n ? p->n : 1, sizeof *group); // NOLINT(bugprone-sizeof-expression): pointers
    bool *taken = calloc(p->n ? p->n : 1, sizeof *taken);
    if (!group || !taken) {
        free(group);
        free(taken);
        shards_pending_free(p);
        return shards_nomem(err);
    }
    int rc = SHARDS_OK;
    for (size_t i = 0; !rc && i < p->n; i++) {
        if (taken[i]) continue;
        size_t m = 0;
        for (size_t k = i; k < p->n; k++)
            if (!taken[k] && shards_same_run(p->files[i], p->files[k])) {
                taken[k] = true;
                group[m++] = p->files[k];
            }
        struct rfile *merged;
        struct shards_info *info;
        rc = shards_merge(group, m, &merged, &info, w, err);
        if (!rc) rc = add(ud, merged, info);
    }
    free(group);
    free(taken);
    shards_pending_free(p);
    return rc;
}
