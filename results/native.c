#include "native.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BATCHES 16000000 /* batch indices above this are bad input */

static const char *str_of(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num_of(const cJSON *o, const char *key, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v)) return false;
    *out = v->valuedouble;
    return true;
}

static long long_of(const cJSON *o, const char *key, long dflt) {
    double v;
    return num_of(o, key, &v) && v == floor(v) && fabs(v) < 1e15 ? (long)v : dflt;
}

bool native_is_result(const struct rfile *rf) {
    const char *f = str_of(rf->head, "format");
    return f && strcmp(f, NATIVE_FORMAT) == 0;
}

static int oom(struct diag *d) {
    return diag_error(d, "out of memory");
}

/* The copy of head[key], or NULL when absent. */
static int copy_item(const cJSON *head, const char *key, cJSON **out, struct diag *d) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(head, key);
    *out = NULL;
    if (!v) return 0;
    *out = cJSON_Duplicate(v, true);
    return *out ? 0 : oom(d);
}

static int read_head(const struct rfile *rf, struct src *out, struct diag *d) {
    const cJSON *h = rf->head, *ver = cJSON_GetObjectItemCaseSensitive(h, "version");
    if (!cJSON_IsNumber(ver))
        return diag_error(d, "%s: no format version (a wrk-sagemaker result needs \"version\")",
                          rf->path);
    if (ver->valuedouble != NATIVE_VERSION)
        return diag_error(d, "%s: unknown format version %g (this sm-compare reads version %d)",
                          rf->path, ver->valuedouble, NATIVE_VERSION);
    const char *scenario = str_of(h, "scenario");
    if (!scenario) return diag_error(d, "%s: no scenario", rf->path);
    const char *label = str_of(h, "label");
    if (!label) label = str_of(cJSON_GetObjectItemCaseSensitive(h, "endpoint"), "name");
    out->kind = rf->journal ? SRC_JOURNAL : SRC_RESULT;
    out->scenario = strdup(scenario);
    out->label = src_dup(label ? label : "unnamed");
    out->run_id = src_dup(str_of(h, "run_id"));
    out->started = src_dup(str_of(h, "started_at"));
    if (!out->scenario || !out->label || copy_item(h, "endpoint", &out->endpoint, d) < 0 ||
        copy_item(h, "settings", &out->settings, d) < 0)
        return oom(d);
    if (!num_of(h, "time_scale", &out->time_scale)) {
        out->time_scale = 1;
        diag_warn(d, "%s: no time_scale; taken as 1 (real time)", rf->path);
    } else if (!(out->time_scale > 0) || out->time_scale > 1e6) {
        return diag_error(d, "%s: time_scale %g is not a positive number", rf->path,
                          out->time_scale);
    }
    const cJSON *partial = cJSON_GetObjectItemCaseSensitive(h, "partial");
    out->partial = cJSON_IsTrue(partial) || rf->journal;
    const char *why = rf->journal ? "recovered from the journal: the run ended without writing "
                                    "its result file"
                                  : str_of(h, "partial_reason");
    if (out->partial && !(out->partial_reason = strdup(why ? why : "no reason given")))
        return oom(d);
    return 0;
}

static double wall_of(const struct src *s, const struct rec *r) {
    return (double)(r->t_end_us - r->t_start_us) * s->time_scale / 1e6;
}

static int count(struct tally *t, const struct rfile *rf, const struct rec *r, struct diag *d) {
    if (tally_add(t, r->ok, rfile_str(rf, r->error), rfile_errmsg(rf, r->error)) < 0) return oom(d);
    return 0;
}

/* The lengths of settings.lengths, ascending; derived from the records when absent. */
static int decode_lengths(const struct rfile *rf, const struct src *s, struct decode_part *p,
                          uint32_t phase, struct diag *d) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(s->settings, "lengths"), *v;
    cJSON_ArrayForEach(v, arr) {
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > INT32_MAX ||
            v->valuedouble != floor(v->valuedouble))
            return diag_error(d, "%s: settings.lengths holds a value that is not a length",
                              rf->path);
        if (p->nlengths == SRC_MAX_LENGTHS)
            return diag_error(d, "%s: more than %d decode lengths", rf->path, SRC_MAX_LENGTHS);
        p->lengths[p->nlengths++] = (int)v->valuedouble;
    }
    if (!arr) {
        diag_warn(d, "%s: no settings.lengths; the lengths asked for in the records are used",
                  rf->path);
        for (size_t i = 0; i < rf->nrecs && p->nlengths < SRC_MAX_LENGTHS; i++) {
            const struct rec *r = &rf->recs[i];
            bool seen = r->phase != phase || r->max_tokens < 1;
            for (size_t k = 0; k < p->nlengths && !seen; k++) seen = p->lengths[k] == r->max_tokens;
            if (!seen) p->lengths[p->nlengths++] = r->max_tokens;
        }
    }
    for (size_t i = 1; i < p->nlengths; i++)
        for (size_t k = i; k > 0 && p->lengths[k - 1] > p->lengths[k]; k--) {
            int t = p->lengths[k];
            p->lengths[k] = p->lengths[k - 1];
            p->lengths[k - 1] = t;
        }
    return 0;
}

static bool is_length(const struct decode_part *p, int n) {
    for (size_t i = 0; i < p->nlengths; i++)
        if (p->lengths[i] == n) return true;
    return false;
}

static int build_decode(const struct rfile *rf, struct src *s, uint32_t phase, struct diag *d) {
    struct decode_part *p = calloc(1, sizeof *p);
    size_t cap_t = 0, cap_w = 0, n_t = 0, stray = 0;
    if (!p) return oom(d);
    s->decode = p;
    p->repeats = long_of(s->settings, "repeats", -1);
    if (!(p->prompt = src_dup(str_of(s->settings, "prompt"))) && str_of(s->settings, "prompt"))
        return oom(d);
    if (decode_lengths(rf, s, p, phase, d) < 0) return -1;
    for (size_t i = 0; i < rf->nrecs; i++) {
        const struct rec *r = &rf->recs[i];
        if (r->phase != phase) continue;
        if (!is_length(p, r->max_tokens)) {
            stray++;
            continue;
        }
        if (count(&p->tally, rf, r, d) < 0) return -1;
        if (!r->ok) continue;
        if (r->completion_tokens == RFILE_NONE) p->unverified = true;
        if (src_push(&p->tokens, &n_t, &cap_t, r->max_tokens) < 0 ||
            src_push(&p->walls, &p->n, &cap_w, wall_of(s, r)) < 0)
            return oom(d);
    }
    if (stray)
        diag_warn(d, "%s: %zu decode records asked for a length not in settings.lengths; left out",
                  rf->path, stray);
    if (p->unverified)
        diag_warn(d,
                  "%s: some decode replies carried no token count; their lengths are not "
                  "verified",
                  rf->path);
    return 0;
}

/* Per-batch sums of a sweep in batch mode (batch indices are small and dense). */
struct batch_acc {
    int64_t first, last; /* earliest start, latest end (microseconds as measured) */
    double tokens;
    long n;
};

/* A record's batch index; a record without one belongs to batch 0. */
static int64_t batch_of(const struct rec *r) {
    return r->batch < 0 ? 0 : r->batch;
}

static int sweep_batches(const struct rfile *rf, struct src *s, struct level_part *p,
                         uint32_t phase, struct diag *d) {
    int64_t maxb = -1;
    for (size_t i = 0; i < rf->nrecs; i++)
        if (rf->recs[i].phase == phase && batch_of(&rf->recs[i]) > maxb)
            maxb = batch_of(&rf->recs[i]);
    if (maxb < 0) return 0;
    if (maxb >= MAX_BATCHES)
        return diag_error(d, "%s: batch index %lld is too large", rf->path, (long long)maxb);
    struct batch_acc *acc = calloc((size_t)maxb + 1, sizeof *acc);
    if (!acc) return oom(d);
    for (size_t i = 0; i < rf->nrecs; i++) {
        const struct rec *r = &rf->recs[i];
        if (r->phase != phase) continue;
        struct batch_acc *a = &acc[batch_of(r)];
        if (!a->n || r->t_start_us < a->first) a->first = r->t_start_us;
        if (!a->n || r->t_end_us > a->last) a->last = r->t_end_us;
        a->n++;
        if (r->ok) a->tokens += r->completion_tokens > 0 ? r->completion_tokens : 0;
    }
    size_t cap = 0, short_batches = 0;
    int rc = 0;
    for (int64_t b = 0; b <= maxb && !rc; b++) {
        const struct batch_acc *a = &acc[b];
        if (!a->n) continue;
        if (a->n < p->c || a->last == a->first) {
            short_batches++;
            continue;
        }
        double wall = (double)(a->last - a->first) * s->time_scale / 1e6;
        rc = src_push(&p->tps, &p->nb, &cap, a->tokens / wall) < 0 ? oom(d) : 0;
    }
    free(acc);
    if (short_batches)
        diag_warn(d, "%s: %zu batches with fewer than %d requests (or no duration) left out",
                  rf->path, short_batches, p->c);
    return rc;
}

static int sweep_window(const struct rfile *rf, struct src *s, struct level_part *p, uint32_t phase,
                        struct diag *d) {
    int64_t first = INT64_MAX, last = 0;
    double tokens = 0;
    for (size_t i = 0; i < rf->nrecs; i++) {
        const struct rec *r = &rf->recs[i];
        if (r->phase != phase) continue;
        if (r->t_start_us < first) first = r->t_start_us;
        if (r->t_end_us > last) last = r->t_end_us;
        if (r->ok && r->completion_tokens > 0) tokens += r->completion_tokens;
    }
    if (last <= first) return 0;
    size_t cap = 0;
    double wall = (double)(last - first) * s->time_scale / 1e6;
    return src_push(&p->tps, &p->nb, &cap, tokens / wall) < 0 ? oom(d) : 0;
}

/* The concurrency: settings.concurrency, else wrk.connections. */
static int sweep_level(const struct rfile *rf, const struct src *s, struct diag *d) {
    long c = long_of(s->settings, "concurrency", -1);
    if (c < 1) {
        c = long_of(cJSON_GetObjectItemCaseSensitive(rf->head, "wrk"), "connections", -1);
        if (c < 1) return diag_error(d, "%s: no settings.concurrency", rf->path);
        diag_warn(d, "%s: no settings.concurrency; wrk.connections (%ld) used", rf->path, c);
    }
    if (c > 1000000) return diag_error(d, "%s: concurrency %ld is out of range", rf->path, c);
    return (int)c;
}

static int build_sweep(const struct rfile *rf, struct src *s, uint32_t phase, struct diag *d) {
    int c = sweep_level(rf, s, d);
    if (c < 0) return -1;
    struct level_part *p = calloc(1, sizeof *p);
    if (!p) return oom(d);
    s->levels = p;
    s->nlevels = 1;
    p->c = c;
    p->max_tokens = long_of(s->settings, "max_tokens", -1);
    const char *mode = str_of(s->settings, "mode");
    p->steady = mode && strcmp(mode, "steady") == 0;
    if (mode && !p->steady && strcmp(mode, "batch") != 0)
        return diag_error(d, "%s: unknown sweep mode \"%s\"", rf->path, mode);
    size_t cap = 0;
    for (size_t i = 0; i < rf->nrecs; i++) {
        const struct rec *r = &rf->recs[i];
        if (r->phase != phase) continue;
        if (count(&p->tally, rf, r, d) < 0) return -1;
        if (!r->ok) continue;
        if (r->completion_tokens == RFILE_NONE) p->no_counts = true;
        if (src_push(&p->lat, &p->nlat, &cap, wall_of(s, r)) < 0) return oom(d);
    }
    if (p->no_counts) {
        diag_warn(d, "%s: replies carried no token counts: no throughput for c%d", rf->path, c);
        return 0;
    }
    return p->steady ? sweep_window(rf, s, p, phase, d) : sweep_batches(rf, s, p, phase, d);
}

static int add_kind(struct quiz_part *q, const char *kind, bool correct) {
    size_t i = 0;
    while (i < q->nkinds && strcmp(q->kinds[i].kind, kind) != 0) i++;
    if (i == q->nkinds) {
        struct kind_score *k = realloc(q->kinds, (q->nkinds + 1) * sizeof *k);
        if (!k) return -1;
        q->kinds = k;
        k[i] = (struct kind_score){strdup(kind), 0, 0};
        if (!k[i].kind) return -1;
        q->nkinds++;
    }
    q->kinds[i].total++;
    q->kinds[i].correct += correct;
    q->correct += correct;
    return 0;
}

static bool seen_question(const struct quiz_part *q, const char *id) {
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->items[i].id, id) == 0) return true;
    return false;
}

/* One quiz record into q; *skipped counts records without a question id or repeated. */
static int quiz_record(const struct rfile *rf, const struct rec *r, struct quiz_part *q,
                       size_t *skipped, size_t *nocorrect) {
    const char *id = rfile_str(rf, r->question), *kind = rfile_str(rf, r->kind);
    if (!id || seen_question(q, id)) {
        (*skipped)++;
        return 0;
    }
    struct quiz_item *it = &q->items[q->n++];
    memset(it, 0, sizeof *it);
    it->correct = r->ok && r->correct == 1;
    if (r->ok && r->correct < 0) (*nocorrect)++;
    it->id = strdup(id);
    it->kind = strdup(kind ? kind : "other");
    it->expected = src_dup(rfile_text(rf, r->answer));
    it->text = r->ok ? strdup(rfile_text(rf, r->text) ? rfile_text(rf, r->text) : "") : NULL;
    it->error = r->ok ? NULL : strdup(rfile_str(rf, r->error) ? rfile_str(rf, r->error) : "error");
    if (!it->id || !it->kind || (r->ok ? !it->text : !it->error)) return -1;
    return add_kind(q, it->kind, it->correct);
}

static int build_quiz(const struct rfile *rf, struct src *s, uint32_t phase, struct diag *d) {
    struct quiz_part *q = calloc(1, sizeof *q);
    if (!q) return oom(d);
    s->quiz = q;
    q->name = src_dup(str_of(s->settings, "quiz"));
    q->sha = src_dup(str_of(s->settings, "quiz_sha256"));
    q->max_tokens = long_of(s->settings, "max_tokens", -1);
    if (!(q->items = calloc(rf->nrecs ? rf->nrecs : 1, sizeof *q->items))) return oom(d);
    size_t skipped = 0, nocorrect = 0;
    for (size_t i = 0; i < rf->nrecs; i++) {
        const struct rec *r = &rf->recs[i];
        if (r->phase != phase) continue;
        if (count(&q->tally, rf, r, d) < 0) return -1;
        if (quiz_record(rf, r, q, &skipped, &nocorrect) < 0) return oom(d);
    }
    q->questions = long_of(s->settings, "questions", (long)q->n);
    if (skipped)
        diag_warn(d, "%s: %zu quiz records without a question id or repeating one; left out",
                  rf->path, skipped);
    if (nocorrect)
        diag_warn(d, "%s: %zu quiz replies do not say whether they were correct; counted wrong",
                  rf->path, nocorrect);
    if ((long)q->n < q->questions)
        diag_warn(d, "%s: %zu of %ld questions have a reply or failure recorded", rf->path, q->n,
                  q->questions);
    return 0;
}

int native_src(const struct rfile *rf, struct src *out, struct diag *d) {
    memset(out, 0, sizeof *out);
    if (!(out->path = strdup(rf->path))) return oom(d);
    if (read_head(rf, out, d) < 0) return -1;
    if (rf->cut_tail)
        diag_warn(d,
                  "%s: the last line was incomplete (the run was killed while writing it); "
                  "left out",
                  rf->path);
    static const struct {
        const char *scenario;
        int (*build)(const struct rfile *, struct src *, uint32_t, struct diag *);
    } kinds[] = {{"decode", build_decode}, {"sweep", build_sweep}, {"quiz", build_quiz}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strcmp(out->scenario, kinds[i].scenario) != 0) continue;
        uint32_t phase = 0;
        for (uint32_t id = 1; id <= rf->strs.n; id++)
            if (strcmp(rfile_str(rf, id), kinds[i].scenario) == 0) phase = id;
        size_t other = 0;
        for (size_t k = 0; k < rf->nrecs; k++) other += rf->recs[k].phase != phase;
        if (other)
            diag_warn(d, "%s: %zu records of other phases than \"%s\" left out", rf->path, other,
                      kinds[i].scenario);
        return kinds[i].build(rf, out, phase ? phase : UINT32_MAX, d);
    }
    diag_warn(d,
              "%s: scenario \"%s\" has no comparison (only decode, sweep and quiz have); "
              "left out",
              rf->path, out->scenario);
    return 0;
}
