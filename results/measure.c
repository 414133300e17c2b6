#include "measure.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cJSON *item(const cJSON *o, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static bool num(const cJSON *o, const char *key, double *out) {
    const cJSON *v = item(o, key);
    if (!cJSON_IsNumber(v)) return false;
    *out = v->valuedouble;
    return true;
}

/* A count (truncated to a whole number); false when absent or out of range. */
static bool count_of(const cJSON *o, const char *key, long *out) {
    double v;
    if (!num(o, key, &v) || !(fabs(v) < 1e15)) return false;
    *out = (long)v;
    return true;
}

static int oom(struct diag *d) {
    return diag_error(d, "out of memory");
}

bool measure_is(const cJSON *doc) {
    return cJSON_IsObject(item(doc, "endpoint")) &&
           (item(doc, "load_facts") || item(doc, "decode") || item(doc, "quality"));
}

static void read_facts(const cJSON *lf, const char *path, struct facts *f) {
    static const struct {
        const char *key;
        size_t off;
        bool text_only;
    } map[] = {
        {"weights_gib", offsetof(struct facts, weights_gib), false},
        {"load_seconds", offsetof(struct facts, load_seconds), false},
        {"kv_cache_tokens", offsetof(struct facts, kv_cache_tokens), false},
        {"max_concurrency_at_max_len", offsetof(struct facts, max_concurrency), false},
        {"quantization", offsetof(struct facts, quantization), true},
        {"vllm_version", offsetof(struct facts, vllm_version), true},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        const cJSON *v = item(lf, map[i].key);
        struct fact *fa = (struct fact *)((char *)f + map[i].off);
        char text[sizeof fa->text];
        if (cJSON_IsString(v))
            snprintf(text, sizeof text, "%s", v->valuestring);
        else if (cJSON_IsNumber(v))
            snprintf(text, sizeof text, "%.15g", v->valuedouble);
        else
            continue;
        if (map[i].text_only) {
            snprintf(fa->text, sizeof fa->text, "%s", text);
            fa->have = true;
        } else {
            facts_set(fa, text, strlen(text));
        }
    }
    snprintf(f->source, sizeof f->source, "%s (load_facts)", path);
}

static int read_decode(const cJSON *dec, struct src *s, struct diag *d) {
    double rate, fixed, sh, lo, reps = -1;
    const cJSON *st = s->settings;
    if (!num(dec, "decode_tokens_per_second", &rate)) return 0;
    struct decode_part *p = calloc(1, sizeof *p);
    if (!p) return oom(d);
    s->decode = p;
    p->medians_only = true;
    p->rate = rate;
    p->fixed = num(dec, "per_call_fixed_cost_seconds", &fixed) ? fixed : NAN;
    if (num(st, "short", &sh) && num(st, "long", &lo) && sh >= 1 && lo > sh && lo < 1e9) {
        p->lengths[0] = (int)sh;
        p->lengths[1] = (int)lo;
        p->nlengths = 2;
    }
    char key[64];
    p->med_short = p->med_long = NAN;
    snprintf(key, sizeof key, "wall_%d_median", p->lengths[0]);
    if (p->nlengths && !num(dec, key, &p->med_short)) p->med_short = NAN;
    snprintf(key, sizeof key, "wall_%d_median", p->lengths[1]);
    if (p->nlengths && !num(dec, key, &p->med_long)) p->med_long = NAN;
    num(st, "decode_repeats", &reps);
    p->repeats = reps >= 0 && reps < 1e9 ? (long)reps : -1;
    if (p->repeats > 0) {
        p->tally.sent = p->tally.ok = p->repeats * (long)p->nlengths;
    }
    return 0;
}

static int read_level(const cJSON *lv, struct src *s, struct level_part *p, struct diag *d) {
    double tokens = -1, v, wall;
    size_t cap = 0;
    char *end;
    errno = 0;
    long c = strtol(lv->string, &end, 10);
    if (*lv->string < '0' || *lv->string > '9' || *end || errno || c < 1 || c > INT_MAX)
        return diag_error(d, "%s: load level \"%s\" is not a concurrency", s->path, lv->string);
    p->c = (int)c;
    num(s->settings, "load_tokens", &tokens);
    p->max_tokens = tokens >= 0 && tokens < 1e9 ? (long)tokens : -1;
    const cJSON *b;
    cJSON_ArrayForEach(b, item(lv, "batches")) {
        if (!num(b, "tokens_per_second", &v)) {
            if (!num(b, "tokens", &tokens) || !num(b, "wall", &wall) || !(wall > 0)) continue;
            v = tokens / wall;
        }
        if (src_push(&p->tps, &p->nb, &cap, v) < 0) return oom(d);
        p->tally.sent += p->c;
        p->tally.ok += p->c;
    }
    if (!p->nb && num(lv, "aggregate_tokens_per_second_median", &v) &&
        src_push(&p->tps, &p->nb, &cap, v) < 0)
        return oom(d);
    return 0;
}

static int read_load(const cJSON *load, struct src *s, struct diag *d) {
    int n = cJSON_GetArraySize(load);
    if (!cJSON_IsObject(load) || n == 0) return 0;
    if (!(s->levels = calloc((size_t)n, sizeof *s->levels))) return oom(d);
    const cJSON *lv;
    cJSON_ArrayForEach(lv, load) {
        if (read_level(lv, s, &s->levels[s->nlevels++], d) < 0) return -1;
    }
    return 0;
}

/* compare.py's kind of a question: its id up to the first '-'. */
static char *kind_of(const char *id) {
    const char *dash = strchr(id, '-');
    return dash ? strndup(id, (size_t)(dash - id)) : strdup(id);
}

static int read_answer(const cJSON *a, const struct quizfile *qz, struct quiz_item *it) {
    const struct quizfile_question *q = quizfile_find(qz, a->string);
    it->id = strdup(a->string);
    it->kind = q && q->kind ? strdup(q->kind) : kind_of(a->string);
    it->text = strdup(cJSON_IsString(a) ? a->valuestring : "");
    it->expected = q ? strdup(q->answer) : NULL;
    it->correct = q ? quizfile_score(q, it->text ? it->text : "") : -1;
    return it->id && it->kind && it->text && (!q || it->expected) ? 0 : -1;
}

static int read_kinds(const cJSON *by_kind, struct quiz_part *q, struct diag *d) {
    int n = cJSON_GetArraySize(by_kind);
    if (!(q->kinds = calloc(n > 0 ? (size_t)n : 1, sizeof *q->kinds))) return oom(d);
    const cJSON *k;
    long c, t;
    cJSON_ArrayForEach(k, by_kind) {
        if (!count_of(k, "correct", &c) || !count_of(k, "total", &t)) continue;
        struct kind_score *ks = &q->kinds[q->nkinds++];
        *ks = (struct kind_score){strdup(k->string), c, t};
        if (!ks->kind) return oom(d);
    }
    return 0;
}

static int read_quality(const cJSON *ql, const struct quizfile *qz, struct src *s, struct diag *d) {
    const cJSON *answers = item(ql, "answers"), *a;
    if (!cJSON_IsObject(answers)) return 0;
    struct quiz_part *q = calloc(1, sizeof *q);
    int n = cJSON_GetArraySize(answers);
    if (!q || !(q->items = calloc(n > 0 ? (size_t)n : 1, sizeof *q->items))) {
        free(q);
        return oom(d);
    }
    s->quiz = q;
    q->max_tokens = -1;
    cJSON_ArrayForEach(a, answers) {
        if (read_answer(a, qz, &q->items[q->n++]) < 0) return oom(d);
    }
    if (!count_of(ql, "total", &q->questions)) q->questions = (long)q->n;
    if (!count_of(ql, "correct", &q->correct)) q->correct = 0;
    q->tally.sent = q->tally.ok = (long)q->n;
    if (read_kinds(item(ql, "by_kind"), q, d) < 0) return -1;
    long rescored = 0, unknown = 0;
    for (size_t i = 0; i < q->n; i++) {
        rescored += q->items[i].correct == 1;
        unknown += q->items[i].correct < 0;
    }
    if (qz && unknown)
        diag_warn(d, "%s: %ld replies answer questions that are not in %s; they are not scored",
                  s->path, unknown, qz->path);
    if (qz && !unknown && rescored != q->correct)
        diag_warn(d, "%s: scored again with %s, %ld replies are correct, not %ld as saved", s->path,
                  qz->path, rescored, q->correct);
    return 0;
}

static int read_head(const cJSON *doc, struct src *s, struct diag *d) {
    const cJSON *ep = item(doc, "endpoint"), *name = item(ep, "name"), *st = item(doc, "started");
    s->kind = SRC_MEASURE;
    s->scenario = strdup("measure");
    s->label = strdup(cJSON_IsString(name) ? name->valuestring : "unnamed");
    s->started = cJSON_IsString(st) ? strdup(st->valuestring) : NULL;
    s->endpoint = cJSON_Duplicate(ep, true);
    s->settings = cJSON_Duplicate(item(doc, "settings"), true);
    s->time_scale = 1;
    if (!s->scenario || !s->label || !s->endpoint || (cJSON_IsString(st) && !s->started) ||
        (item(doc, "settings") && !s->settings))
        return oom(d);
    return 0;
}

int measure_src(const cJSON *doc, const char *path, const struct quizfile *qz, struct src *out,
                struct diag *d) {
    memset(out, 0, sizeof *out);
    if (!(out->path = strdup(path)) || read_head(doc, out, d) < 0) return oom(d);
    const cJSON *lf = item(doc, "load_facts");
    if (cJSON_IsObject(lf)) {
        if (!(out->facts = calloc(1, sizeof *out->facts))) return oom(d);
        read_facts(lf, path, out->facts);
    }
    if (read_decode(item(doc, "decode"), out, d) < 0 || read_load(item(doc, "load"), out, d) < 0 ||
        read_quality(item(doc, "quality"), qz, out, d) < 0)
        return -1;
    if (out->quiz && !qz)
        diag_warn(d,
                  "%s: no quiz file to score the replies with (--quiz FILE): which reply is "
                  "right and McNemar's test are not available",
                  path);
    return 0;
}
