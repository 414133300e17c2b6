#include "measure.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"

#define MEASURE_MAX 1e9 /* the largest count or time the reader takes */

/* The state of reading one measure file. */
struct measure_ctx {
    const char *path;
    const struct quizfile *qz;
    struct src *s;
    struct warnings *w;
    struct buf *err;
};

static const struct field_rule measure_top_rules[] = {
    {"endpoint", FIELD_OBJ, 0, 0},
    {"started", FIELD_STR | FIELD_NULL, 0, 0},
    {"settings", FIELD_OBJ, 0, 0},
    {"load_facts", FIELD_OBJ | FIELD_NULL, 0, 0},
    {"decode", FIELD_OBJ | FIELD_NULL, 0, 0},
    {"load", FIELD_OBJ | FIELD_NULL, 0, 0},
    {"quality", FIELD_OBJ | FIELD_NULL, 0, 0},
    {"server_throughput_during_load", FIELD_OBJ | FIELD_NULL, 0, 0},
};

static const struct field_rule measure_server_rules[] = {
    {"lines", FIELD_INT, 0, MEASURE_MAX},
    {"peak_tokens_per_second", FIELD_NUM | FIELD_NULL, 0, MEASURE_MAX},
};

static const struct field_rule measure_settings_rules[] = {
    {"short", FIELD_INT, 1, MEASURE_MAX},
    {"long", FIELD_INT, 1, MEASURE_MAX},
    {"decode_repeats", FIELD_INT, 0, MEASURE_MAX},
    {"load_tokens", FIELD_INT, 1, MEASURE_MAX},
    {"load_repeats", FIELD_INT, 0, MEASURE_MAX},
    {"temperature", FIELD_NUM, 0, 100},
    {"concurrency", FIELD_ARR, 0, 0},
};

static const struct field_rule measure_decode_rules[] = {
    {"decode_tokens_per_second", FIELD_NUM, 0, MEASURE_MAX},
    {"per_call_fixed_cost_seconds", FIELD_NUM | FIELD_NULL, -MEASURE_MAX, MEASURE_MAX},
};

static const struct field_rule measure_batch_rules[] = {
    {"tokens_per_second", FIELD_NUM, 0, MEASURE_MAX},
    {"tokens", FIELD_NUM, 0, MEASURE_MAX},
    {"wall", FIELD_NUM, 0, MEASURE_MAX},
};

static const cJSON *measure_item(const cJSON *o, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static bool measure_num(const cJSON *o, const char *key, double *out) {
    const cJSON *v = measure_item(o, key);
    if (!cJSON_IsNumber(v)) return false;
    *out = v->valuedouble;
    return true;
}

/* A count (truncated to a whole number); false when absent or out of range. */
static bool measure_count(const cJSON *o, const char *key, long *out) {
    double v;
    if (!measure_num(o, key, &v) || !(v >= 0 && v < 1e15)) return false;
    *out = (long)v;
    return true;
}

static int measure_nomem(struct measure_ctx *c) {
    return buf_fail(c->err, MEASURE_ERR_NOMEM, "out of memory");
}

bool measure_is(const cJSON *doc) {
    return cJSON_IsObject(measure_item(doc, "endpoint")) &&
           (measure_item(doc, "load_facts") || measure_item(doc, "decode") ||
            measure_item(doc, "quality"));
}

static void measure_facts(const cJSON *lf, const char *path, struct facts *f) {
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
        const cJSON *v = measure_item(lf, map[i].key);
        struct facts_fact *fa = (struct facts_fact *)((char *)f + map[i].off);
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

/* compare.py's peak of vLLM's "Avg generation throughput" lines while it loaded
 * the endpoint: kept as the server's figure it is (no window to check it in). */
static int measure_server(struct measure_ctx *c, const cJSON *srv) {
    double peak, lines;
    if (!cJSON_IsObject(srv)) return 0;
    int rc = field_check(srv, measure_server_rules,
                         sizeof measure_server_rules / sizeof measure_server_rules[0], c->path,
                         "server_throughput_during_load.", c->err);
    if (rc < 0) return rc;
    if (!measure_num(srv, "peak_tokens_per_second", &peak) || !measure_num(srv, "lines", &lines) ||
        lines < 1)
        return 0;
    c->s->have_server_peak = true;
    c->s->server_peak_tps = peak;
    c->s->server_peak_lines = (long)lines;
    return 0;
}

static int measure_decode(struct measure_ctx *c, const cJSON *dec) {
    double rate, fixed, sh, lo, reps = -1;
    const cJSON *st = c->s->settings;
    int rc = field_check(dec, measure_decode_rules,
                         sizeof measure_decode_rules / sizeof measure_decode_rules[0], c->path,
                         "decode.", c->err);
    if (rc < 0) return rc;
    if (!measure_num(dec, "decode_tokens_per_second", &rate)) return 0;
    struct src_decode *p = calloc(1, sizeof *p);
    if (!p) return measure_nomem(c);
    c->s->decode = p;
    p->medians_only = true;
    p->rate = rate;
    p->fixed = measure_num(dec, "per_call_fixed_cost_seconds", &fixed) ? fixed : NAN;
    if (measure_num(st, "short", &sh) && measure_num(st, "long", &lo) && lo > sh) {
        p->lengths[0] = (int)sh;
        p->lengths[1] = (int)lo;
        p->nlengths = 2;
    }
    char key[64];
    p->med_short = p->med_long = NAN;
    snprintf(key, sizeof key, "wall_%d_median", p->lengths[0]);
    if (p->nlengths && !measure_num(dec, key, &p->med_short)) p->med_short = NAN;
    snprintf(key, sizeof key, "wall_%d_median", p->lengths[1]);
    if (p->nlengths && !measure_num(dec, key, &p->med_long)) p->med_long = NAN;
    measure_num(st, "decode_repeats", &reps);
    p->repeats = reps >= 0 ? (long)reps : -1;
    if (p->repeats > 0) p->tally.sent = p->tally.ok = p->repeats * (long)p->nlengths;
    return 0;
}

/* One batch's throughput: tokens_per_second, else tokens / wall; false when neither. */
static int measure_batch(struct measure_ctx *c, const cJSON *b, double *v) {
    double tokens, wall;
    int rc = field_check(b, measure_batch_rules,
                         sizeof measure_batch_rules / sizeof measure_batch_rules[0], c->path,
                         "load batch: ", c->err);
    if (rc < 0) return rc;
    if (measure_num(b, "tokens_per_second", v)) return 1;
    if (!measure_num(b, "tokens", &tokens) || !measure_num(b, "wall", &wall) || !(wall > 0))
        return 0;
    *v = tokens / wall;
    return 1;
}

static int measure_level(struct measure_ctx *c, const cJSON *lv, struct src_level *p) {
    double tokens = -1, v;
    size_t cap = 0, capw = 0, nw = 0;
    char *end;
    errno = 0;
    long conc = strtol(lv->string, &end, 10);
    if (*lv->string < '0' || *lv->string > '9' || *end || errno || conc < 1 || conc > INT_MAX)
        return buf_fail(c->err, MEASURE_ERR_INPUT, "%s: load level \"%.40s\" is not a concurrency",
                        c->path, lv->string);
    p->c = (int)conc;
    measure_num(c->s->settings, "load_tokens", &tokens);
    p->max_tokens = tokens >= 0 ? (long)tokens : -1;
    const cJSON *b;
    cJSON_ArrayForEach(b, measure_item(lv, "batches")) {
        int rc = measure_batch(c, b, &v);
        if (rc < 0) return rc;
        if (!rc) continue;
        p->batches++;
        if (src_push(&p->tps, &p->nb, &cap, v) < 0 || src_push(&p->bwall, &nw, &capw, NAN) < 0)
            return measure_nomem(c);
        p->tally.sent += p->c;
        p->tally.ok += p->c;
    }
    if (!p->nb && measure_num(lv, "aggregate_tokens_per_second_median", &v)) {
        p->batches = 1;
        if (src_push(&p->tps, &p->nb, &cap, v) < 0 || src_push(&p->bwall, &nw, &capw, NAN) < 0)
            return measure_nomem(c);
    }
    return 0;
}

static int measure_load(struct measure_ctx *c, const cJSON *load) {
    int n = cJSON_GetArraySize(load);
    if (!cJSON_IsObject(load) || n == 0) return 0;
    if (!(c->s->levels = calloc((size_t)n, sizeof *c->s->levels))) return measure_nomem(c);
    const cJSON *lv;
    cJSON_ArrayForEach(lv, load) {
        int rc = measure_level(c, lv, &c->s->levels[c->s->nlevels++]);
        if (rc < 0) return rc;
    }
    return 0;
}

/* compare.py's kind of a question: its id up to the first '-'. */
static char *measure_kind_of(const char *id) {
    const char *dash = strchr(id, '-');
    return dash ? strndup(id, (size_t)(dash - id)) : strdup(id);
}

static int measure_answer(const cJSON *a, const struct quizfile *qz, struct src_quiz_item *it) {
    const struct quizfile_question *q = quizfile_find(qz, a->string);
    it->id = strdup(a->string);
    it->kind = q && q->kind ? strdup(q->kind) : measure_kind_of(a->string);
    it->text = strdup(cJSON_IsString(a) ? a->valuestring : "");
    it->expected = q ? strdup(q->answer) : NULL;
    it->correct = q ? quizfile_score(q, it->text ? it->text : "") : -1;
    return it->id && it->kind && it->text && (!q || it->expected) ? 0 : -1;
}

static int measure_kinds(struct measure_ctx *c, const cJSON *by_kind, struct src_quiz *q) {
    int n = cJSON_GetArraySize(by_kind);
    if (!(q->kinds = calloc(n > 0 ? (size_t)n : 1, sizeof *q->kinds))) return measure_nomem(c);
    const cJSON *k;
    long right, total;
    cJSON_ArrayForEach(k, by_kind) {
        if (!measure_count(k, "correct", &right) || !measure_count(k, "total", &total)) continue;
        struct src_kind_score *ks = &q->kinds[q->nkinds++];
        *ks = (struct src_kind_score){strdup(k->string), right, total, total};
        if (!ks->kind) return measure_nomem(c);
    }
    return 0;
}

static void measure_rescored(struct measure_ctx *c, const struct src_quiz *q) {
    long rescored = 0, unknown = 0;
    for (size_t i = 0; i < q->n; i++) {
        rescored += q->items[i].correct == 1;
        unknown += q->items[i].correct < 0;
    }
    if (c->qz && unknown)
        warnings_add(c->w,
                     "%s: %ld replies answer questions that are not in %s; they are not scored",
                     c->path, unknown, c->qz->path);
    if (c->qz && !unknown && rescored != q->correct)
        warnings_add(c->w, "%s: scored again with %s, %ld replies are correct, not %ld as saved",
                     c->path, c->qz->path, rescored, q->correct);
}

static int measure_quality(struct measure_ctx *c, const cJSON *ql) {
    const cJSON *answers = measure_item(ql, "answers"), *a;
    if (!cJSON_IsObject(answers)) return 0;
    struct src_quiz *q = calloc(1, sizeof *q);
    int n = cJSON_GetArraySize(answers);
    if (!q || !(q->items = calloc(n > 0 ? (size_t)n : 1, sizeof *q->items))) {
        free(q);
        return measure_nomem(c);
    }
    c->s->quiz = q;
    cJSON_ArrayForEach(a, answers) {
        if (measure_answer(a, c->qz, &q->items[q->n++]) < 0) return measure_nomem(c);
    }
    if (!measure_count(ql, "total", &q->questions)) q->questions = (long)q->n;
    if (!measure_count(ql, "correct", &q->correct)) q->correct = 0;
    q->answered = (long)q->n;
    if (q->correct > q->answered)
        return buf_fail(c->err, MEASURE_ERR_INPUT,
                        "%s: quality.correct: %ld is more than the %ld answers it saved", c->path,
                        q->correct, q->answered);
    q->tally.sent = q->tally.ok = (long)q->n;
    int rc = measure_kinds(c, measure_item(ql, "by_kind"), q);
    if (rc < 0) return rc;
    measure_rescored(c, q);
    return 0;
}

static int measure_head(struct measure_ctx *c, const cJSON *doc) {
    struct src *s = c->s;
    const cJSON *ep = measure_item(doc, "endpoint"), *name = measure_item(ep, "name");
    const cJSON *st = measure_item(doc, "started");
    int rc =
        field_check(doc, measure_top_rules, sizeof measure_top_rules / sizeof measure_top_rules[0],
                    c->path, "", c->err);
    if (rc < 0 ||
        (rc = field_check(measure_item(doc, "settings"), measure_settings_rules,
                          sizeof measure_settings_rules / sizeof measure_settings_rules[0], c->path,
                          "settings.", c->err)) < 0)
        return rc;
    s->kind = SRC_MEASURE;
    s->tool = strdup(SRC_MEASURE_TOOL);
    s->scenario = strdup("measure");
    s->label = strdup(cJSON_IsString(name) ? name->valuestring : "unnamed");
    s->started = cJSON_IsString(st) ? strdup(st->valuestring) : NULL;
    s->endpoint = cJSON_Duplicate(ep, true);
    s->settings = cJSON_Duplicate(measure_item(doc, "settings"), true);
    s->time_scale = 1;
    if (!s->tool || !s->scenario || !s->label || !s->endpoint ||
        (cJSON_IsString(st) && !s->started) || (measure_item(doc, "settings") && !s->settings))
        return measure_nomem(c);
    return 0;
}

int measure_src(const cJSON *doc, const char *path, const struct quizfile *qz, struct src *out,
                struct warnings *w, struct buf *err) {
    struct measure_ctx c = {.path = path, .qz = qz, .s = out, .w = w, .err = err};
    memset(out, 0, sizeof *out);
    if (!(out->path = strdup(path))) return measure_nomem(&c);
    int rc = measure_head(&c, doc);
    if (rc < 0) return rc;
    const cJSON *lf = measure_item(doc, "load_facts");
    if (cJSON_IsObject(lf)) {
        if (!(out->facts = calloc(1, sizeof *out->facts))) return measure_nomem(&c);
        measure_facts(lf, path, out->facts);
    }
    if ((rc = measure_decode(&c, measure_item(doc, "decode"))) < 0 ||
        (rc = measure_load(&c, measure_item(doc, "load"))) < 0 ||
        (rc = measure_quality(&c, measure_item(doc, "quality"))) < 0 ||
        (rc = measure_server(&c, measure_item(doc, "server_throughput_during_load"))) < 0)
        return rc;
    if (out->quiz && !qz)
        warnings_add(w,
                     "%s: no quiz file to score the replies with (--quiz FILE): which reply is "
                     "right and McNemar's test are not available",
                     path);
    return 0;
}
