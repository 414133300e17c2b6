#include "native.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "openloop.h"
#include "scaling.h"
#include "rfmt.h"
#include "shards.h"
#include "smname.h"
#include "tscale.h"
#include "warmup.h"
#include "conntime.h"

#define NATIVE_MAX_BATCHES 16000000 /* batch indices above this are bad input */
#define NATIVE_MAX_LENGTH  10000000 /* a decode length above this is bad input */

/* The state of turning one file into a src. */
struct native_ctx {
    const struct rfile *rf;
    struct src *s;
    struct warnings *w;
    struct buf *err;
    uint32_t phase;            /* the string id of the scenario's phase (UINT32_MAX: none) */
    const struct slo_set *slo; /* may be NULL */
};

#define NATIVE_ANY_MAX 1e9

/* What the end of a run adds to the head (rfmt.h reads the head itself). */
static const struct field_rule native_end_rules[] = {
    {"partial", FIELD_BOOL, 0, 0},
    {"partial_reason", FIELD_STR | FIELD_NULL, 0, 0},
};

/* What every scenario's settings may hold. */
static const struct field_rule native_common_rules[] = {
    {"prompt", FIELD_STR | FIELD_NULL, 0, 0},
    {"temperature", FIELD_NUM | FIELD_NULL, 0, 100},
    {"ignore_eos", FIELD_BOOL | FIELD_NULL, 0, 0},
    {"max_tokens", FIELD_INT | FIELD_NULL, 1, NATIVE_ANY_MAX},
};

static const struct field_rule native_decode_rules[] = {
    {"lengths", FIELD_ARR, 0, 0},
    {"repeats", FIELD_INT | FIELD_NULL, 1, NATIVE_ANY_MAX},
};

static const struct field_rule native_sweep_rules[] = {
    {"mode", FIELD_STR | FIELD_NULL, 0, 0},
    {"concurrency", FIELD_INT | FIELD_NULL, 1, 1e6},
    {"batches", FIELD_INT | FIELD_NULL, 1, NATIVE_ANY_MAX},
    {"rounds", FIELD_INT | FIELD_NULL, 1, NATIVE_ANY_MAX},
    {"duration_s", FIELD_NUM | FIELD_NULL, 0, NATIVE_ANY_MAX},
};

static const struct field_rule native_quiz_rules[] = {
    {"quiz", FIELD_STR | FIELD_NULL, 0, 0},
    {"quiz_sha256", FIELD_STR | FIELD_NULL, 0, 0},
    {"questions", FIELD_INT | FIELD_NULL, 0, NATIVE_ANY_MAX},
};

static const char *native_str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A whole number member (checked by the rules), or dflt when absent or null. */
static long native_long(const cJSON *o, const char *key, long dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && fabs(v->valuedouble) < 1e15 ? (long)v->valuedouble : dflt;
}

bool native_is_result(const struct rfile *rf) {
    const char *f = native_str(rf->head, "format");
    return f && strcmp(f, RFMT_NAME) == 0;
}

static int native_nomem(struct native_ctx *c) {
    return buf_fail(c->err, NATIVE_ERR_NOMEM, "out of memory");
}

/* The copy of head[key], or NULL when absent. */
static int native_copy(struct native_ctx *c, const char *key, cJSON **out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->rf->head, key);
    *out = NULL;
    if (!v || cJSON_IsNull(v)) return 0;
    *out = cJSON_Duplicate(v, true);
    return *out ? 0 : native_nomem(c);
}

/* The label: "label", else the endpoint's name; it must follow the label rule. */
static int native_label(struct native_ctx *c) {
    const cJSON *h = c->rf->head;
    const char *label = native_str(h, "label"), *what = "label";
    if (!label) {
        label = native_str(cJSON_GetObjectItemCaseSensitive(h, "endpoint"), "name");
        what = "endpoint.name";
    }
    if (!label) label = "unnamed";
    if (!smname_label_ok(label, strlen(label)))
        return buf_fail(c->err, NATIVE_ERR_INPUT,
                        "%s: %s: \"%.64s\" is not a label (1 to 64 letters, digits, '-', '_' "
                        "and '.', not starting with '.')",
                        c->rf->path, what, label);
    return (c->s->label = strdup(label)) ? 0 : native_nomem(c);
}

/* "TOOL via CLIENT", malloc'ed, or NULL when out of memory. */
static char *native_via(const char *tool, const char *client) {
    char *out;
    return asprintf(&out, "%s via %s", tool, client) < 0 ? NULL : out;
}

/* The client's own record of its rounds (client_rounds), each checked. */
static int native_client(struct native_ctx *c) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->rf->head, RFMT_CLIENT_ROUNDS), *one;
    climit_init(&c->s->self);
    if (!a) return 0;
    if (!cJSON_IsArray(a))
        return buf_fail(c->err, NATIVE_ERR_INPUT, "%s: " RFMT_CLIENT_ROUNDS " is not an array",
                        c->rf->path);
    size_t i = 0;
    cJSON_ArrayForEach(one, a) {
        struct rfmt_round r;
        if (rfmt_round_parse(one, c->rf->path, i++, &r, c->err)) return NATIVE_ERR_INPUT;
        climit_add_round(&c->s->self, &r);
    }
    return 0;
}

static int native_head(struct native_ctx *c) {
    const cJSON *h = c->rf->head;
    struct src *s = c->s;
    struct rfmt_head head;
    int rc;
    if (rfmt_head_parse(h, c->rf->path, &head, c->err)) return NATIVE_ERR_INPUT;
    if ((rc = field_check(h, native_end_rules, sizeof native_end_rules / sizeof native_end_rules[0],
                          c->rf->path, "", c->err)) < 0)
        return rc;
    if ((rc = native_label(c)) < 0 || (rc = native_client(c)) < 0) return rc;
    s->kind = c->rf->journal ? SRC_JOURNAL : SRC_RESULT;
    s->scenario = strdup(head.scenario);
    s->client = src_dup(head.client_name);
    s->streamed = strcmp(head.client_name, "sm-stream") == 0;
    s->tool = head.tool && strcmp(head.client_name, "wrk") != 0
                  ? native_via(head.tool, head.client_name) /* another load generator */
                  : src_dup(head.tool);
    s->run_id = src_dup(head.run_id);
    s->started = src_dup(head.started_at);
    if (!s->scenario || (head.tool && !s->tool) || !s->client || (head.run_id && !s->run_id) ||
        (head.started_at && !s->started) || native_copy(c, "endpoint", &s->endpoint) < 0 ||
        native_copy(c, "settings", &s->settings) < 0 ||
        native_copy(c, RFMT_TEMPLATE, &s->template_overhead) < 0)
        return native_nomem(c);
    s->time_scale = head.time_scale;
    if (!cJSON_GetObjectItemCaseSensitive(h, "time_scale"))
        warnings_add(c->w, "%s: no time_scale; taken as 1 (real time)", c->rf->path);
    s->partial = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "partial")) || c->rf->journal;
    const char *why = c->rf->journal ? "recovered from the journal: the run ended without writing "
                                       "its result file"
                                     : native_str(h, "partial_reason");
    if (s->partial && !(s->partial_reason = strdup(why ? why : "no reason given")))
        return native_nomem(c);
    return 0;
}

/* Checks the scenario's settings: the common rules, then its own. */
static int native_settings(struct native_ctx *c, const struct field_rule *rules, size_t n) {
    int rc = field_check(c->s->settings, native_common_rules,
                         sizeof native_common_rules / sizeof native_common_rules[0], c->rf->path,
                         "settings.", c->err);
    return rc < 0 ? rc : field_check(c->s->settings, rules, n, c->rf->path, "settings.", c->err);
}

/* A record's end-to-end seconds, real units (tscale.h); a conversion with the
 * client's share multiplied too marks s biased. */
static double native_wall(struct src *s, const struct rfile_rec *r) {
    if (!tscale_exact(r, s->time_scale)) s->scale_biased = true;
    return tscale_since_start(r, s->time_scale, r->t_end_us);
}

/* A cluster id of a batch index or a record's position (the streaming figures' units). */
static uint32_t native_cluster(int64_t v) {
    return v < 0 ? 0 : v > NATIVE_MAX_BATCHES ? NATIVE_MAX_BATCHES : (uint32_t)v;
}

/* A successful record's streaming values (and, in a streamed file, one that has none). */
static int native_stream(struct native_ctx *c, struct stream_meas *m, const struct rfile_rec *r,
                         int64_t cluster) {
    if (c->s->streamed && !r->stream) m->unstreamed++;
    if (!tscale_exact(r, c->s->time_scale)) c->s->scale_biased = true;
    if (stream_add(m, c->rf, r, native_cluster(cluster), c->s->time_scale) < 0)
        return native_nomem(c);
    return 0;
}

static void native_unstreamed(struct native_ctx *c, const struct stream_meas *m) {
    if (m->unstreamed)
        warnings_add(c->w,
                     "%s: %zu successful records of a streamed run carry no stream times "
                     "(t_first_token_us, chunks, chunk_gaps_us); left out of TTFT, ITL and TPOT",
                     c->rf->path, m->unstreamed);
}

static int native_count(struct native_ctx *c, struct src_tally *t, const struct rfile_rec *r) {
    if (src_tally_add(t, r->ok, rfile_str(c->rf, r->error), rfile_errmsg(c->rf, r->error)) < 0)
        return native_nomem(c);
    return 0;
}

/* ---- decode ---- */

static void native_sort_lengths(struct src_decode *p) {
    for (size_t i = 1; i < p->nlengths; i++)
        for (size_t k = i; k > 0 && p->lengths[k - 1] > p->lengths[k]; k--) {
            int t = p->lengths[k];
            p->lengths[k] = p->lengths[k - 1];
            p->lengths[k - 1] = t;
        }
}

/* The lengths of settings.lengths; derived from the records when absent. */
static int native_lengths(struct native_ctx *c, struct src_decode *p) {
    static const struct field_rule length = {"", FIELD_INT, 1, NATIVE_MAX_LENGTH};
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(c->s->settings, "lengths"), *v;
    char name[48];
    cJSON_ArrayForEach(v, arr) {
        snprintf(name, sizeof name, "settings.lengths[%zu]", p->nlengths);
        int rc = field_check_value(v, &length, c->rf->path, name, c->err);
        if (rc < 0) return rc;
        if (p->nlengths == SRC_MAX_LENGTHS)
            return buf_fail(c->err, NATIVE_ERR_INPUT, "%s: more than %d decode lengths",
                            c->rf->path, SRC_MAX_LENGTHS);
        p->lengths[p->nlengths++] = (int)v->valuedouble;
    }
    if (!arr) {
        warnings_add(c->w, "%s: no settings.lengths; the lengths asked for in the records are used",
                     c->rf->path);
        for (size_t i = 0; i < c->rf->nrecs && p->nlengths < SRC_MAX_LENGTHS; i++) {
            const struct rfile_rec *r = &c->rf->recs[i];
            bool seen = r->phase != c->phase || r->max_tokens < 1;
            for (size_t k = 0; k < p->nlengths && !seen; k++) seen = p->lengths[k] == r->max_tokens;
            if (!seen) p->lengths[p->nlengths++] = r->max_tokens;
        }
    }
    native_sort_lengths(p);
    return 0;
}

static bool native_is_length(const struct src_decode *p, int n) {
    for (size_t i = 0; i < p->nlengths; i++)
        if (p->lengths[i] == n) return true;
    return false;
}

static int native_decode(struct native_ctx *c) {
    struct src *s = c->s;
    struct src_decode *p = calloc(1, sizeof *p);
    size_t cap_t = 0, cap_w = 0, n_t = 0, stray = 0;
    int rc;
    if (!p) return native_nomem(c);
    s->decode = p;
    if ((rc = native_settings(c, native_decode_rules,
                              sizeof native_decode_rules / sizeof native_decode_rules[0])) < 0 ||
        (rc = native_lengths(c, p)) < 0)
        return rc;
    p->repeats = native_long(s->settings, "repeats", -1);
    if (!(p->prompt = src_dup(native_str(s->settings, "prompt"))) &&
        native_str(s->settings, "prompt"))
        return native_nomem(c);
    for (size_t i = 0; i < c->rf->nrecs; i++) {
        const struct rfile_rec *r = &c->rf->recs[i];
        if (r->phase != c->phase) continue;
        if (!native_is_length(p, r->max_tokens)) {
            stray++;
            continue;
        }
        if ((rc = native_count(c, &p->tally, r)) < 0) return rc;
        if (!r->ok) continue;
        if (r->completion_tokens == RFILE_NONE) p->unverified = true;
        if (src_push(&p->tokens, &n_t, &cap_t, r->max_tokens) < 0 ||
            src_push(&p->walls, &p->n, &cap_w, native_wall(s, r)) < 0)
            return native_nomem(c);
        if ((rc = native_stream(c, &p->stream, r, (int64_t)i)) < 0) return rc; /* one at a time */
    }
    native_unstreamed(c, &p->stream);
    if (stray)
        warnings_add(c->w,
                     "%s: %zu decode records asked for a length not in settings.lengths; left out",
                     c->rf->path, stray);
    if (p->unverified)
        warnings_add(c->w,
                     "%s: some decode replies carried no token count; their lengths are not "
                     "verified",
                     c->rf->path);
    return 0;
}

/* ---- sweep ---- */

/* Per-batch sums of a sweep in batch mode (batch indices are small and dense). */
struct native_batch {
    int64_t first, last; /* earliest start, latest end (microseconds as measured) */
    double end_real;     /* the latest start + real end-to-end (tscale.h), microseconds */
    bool biased;         /* a record converted without server_us */
    double tokens;
    long n, failed;
};

/* A record's batch index; a record without one belongs to batch 0. */
static int64_t native_batch_of(const struct rfile_rec *r) {
    return r->batch < 0 ? 0 : r->batch;
}

static struct native_batch *native_batch_sums(struct native_ctx *c, int64_t *maxb) {
    *maxb = -1;
    for (size_t i = 0; i < c->rf->nrecs; i++)
        if (c->rf->recs[i].phase == c->phase && native_batch_of(&c->rf->recs[i]) > *maxb)
            *maxb = native_batch_of(&c->rf->recs[i]);
    if (*maxb < 0 || *maxb >= NATIVE_MAX_BATCHES) return NULL;
    struct native_batch *acc = calloc((size_t)*maxb + 1, sizeof *acc);
    for (size_t i = 0; acc && i < c->rf->nrecs; i++) {
        const struct rfile_rec *r = &c->rf->recs[i];
        if (r->phase != c->phase) continue;
        struct native_batch *a = &acc[native_batch_of(r)];
        if (!a->n || r->t_start_us < a->first) a->first = r->t_start_us;
        if (!a->n || r->t_end_us > a->last) a->last = r->t_end_us;
        double end =
            (double)r->t_start_us + 1e6 * tscale_since_start(r, c->s->time_scale, r->t_end_us);
        if (!a->n || end > a->end_real) a->end_real = end;
        a->biased |= !tscale_exact(r, c->s->time_scale);
        a->n++;
        a->failed += !r->ok;
        if (r->ok) a->tokens += r->completion_tokens > 0 ? r->completion_tokens : 0;
    }
    return acc;
}

/* A batch's wall, real seconds: from its first start, the starts as measured (the
 * client's: its requests leave together) and each request's real end-to-end
 * (tscale.h); the latest end. Without server_us, the span times the time scale. */
static double native_batch_wall(struct src *s, const struct native_batch *a) {
    if (a->biased) s->scale_biased = true;
    if (a->biased || s->time_scale == 1) return (double)(a->last - a->first) * s->time_scale / 1e6;
    return (a->end_real - (double)a->first) / 1e6;
}

/* Batch mode: each complete batch without a failure gives one throughput. */
static int native_batches(struct native_ctx *c, struct src_level *p) {
    int64_t maxb;
    struct native_batch *acc = native_batch_sums(c, &maxb);
    if (maxb >= NATIVE_MAX_BATCHES)
        return buf_fail(c->err, NATIVE_ERR_INPUT, "%s: batch index %lld is too large", c->rf->path,
                        (long long)maxb);
    if (maxb < 0) return 0;
    if (!acc) return native_nomem(c);
    size_t cap = 0, capw = 0, nw = 0;
    int rc = 0;
    for (int64_t b = 0; b <= maxb && !rc; b++) {
        const struct native_batch *a = &acc[b];
        if (!a->n) continue;
        p->batches++;
        if (a->n < p->c || a->last == a->first) {
            p->batches_short++;
        } else if (a->failed) {
            p->batches_failed++;
        } else {
            double wall = native_batch_wall(c->s, a);
            if (src_push(&p->tps, &p->nb, &cap, a->tokens / wall) < 0 ||
                src_push(&p->bwall, &nw, &capw, wall) < 0)
                rc = native_nomem(c);
        }
    }
    free(acc);
    if (p->batches_short)
        warnings_add(c->w, "%s: %ld batches with fewer than %d requests (or no duration) left out",
                     c->rf->path, p->batches_short, p->c);
    return rc;
}

/* Steady mode: the successful requests' tokens over the span of all requests
 * (a merged sharded run: those that ended in its common window, over it). */
static int native_window(struct native_ctx *c, struct src_level *p) {
    int64_t first = INT64_MAX, last = 0, from, to;
    double tokens = 0;
    size_t cap = 0, capw = 0, nw = 0;
    bool common = shards_common_window(c->rf, &from, &to);
    for (size_t i = 0; i < c->rf->nrecs; i++) {
        const struct rfile_rec *r = &c->rf->recs[i];
        if (r->phase != c->phase) continue;
        if (r->t_start_us < first) first = r->t_start_us;
        if (r->t_end_us > last) last = r->t_end_us;
        if (common && (r->t_end_us < from || r->t_end_us > to)) continue;
        if (r->ok && r->completion_tokens > 0) tokens += r->completion_tokens;
    }
    if (common) first = from, last = to;
    if (last <= first) return 0;
    p->batches = 1;
    double wall = (double)(last - first) * c->s->time_scale / 1e6; /* the client's share too */
    if (c->s->time_scale != 1) c->s->scale_biased = true;
    if (src_push(&p->tps, &p->nb, &cap, tokens / wall) < 0 ||
        src_push(&p->bwall, &nw, &capw, wall) < 0)
        return native_nomem(c);
    return 0;
}

/* The concurrency: settings.concurrency, else wrk.connections. */
static int native_concurrency(struct native_ctx *c, int *out) {
    static const struct field_rule conn = {"connections", FIELD_INT, 1, 1e6};
    long n = native_long(c->s->settings, "concurrency", -1);
    if (n < 1) {
        const cJSON *wrk = cJSON_GetObjectItemCaseSensitive(c->rf->head, "wrk");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(wrk, "connections");
        if (!v || cJSON_IsNull(v))
            return buf_fail(c->err, NATIVE_ERR_INPUT, "%s: no settings.concurrency", c->rf->path);
        int rc = field_check_value(v, &conn, c->rf->path, "wrk.connections", c->err);
        if (rc < 0) return rc;
        n = (long)v->valuedouble;
        warnings_add(c->w, "%s: no settings.concurrency; wrk.connections (%ld) used", c->rf->path,
                     n);
    }
    *out = (int)n;
    return 0;
}

/* The successful requests on the wall clock, and the level's window. */
static int native_spans(struct native_ctx *c, struct src_level *p, const struct rfile_rec *r) {
    if (r->wall_start_us < 0) return 0;
    double start = (double)r->wall_start_us / 1e6;
    double end = start + (double)(r->t_end_us - r->t_start_us) / 1e6;
    if (p->wall_first == 0 || start < p->wall_first) p->wall_first = start;
    if (end > p->wall_last) p->wall_last = end;
    if (!r->ok || r->completion_tokens <= 0) return 0;
    if ((p->nspans & (p->nspans - 1)) == 0) { /* grows at powers of two */
        struct src_span *sp = realloc(p->spans, (p->nspans ? 2 * p->nspans : 1) * sizeof *sp);
        if (!sp) return native_nomem(c);
        p->spans = sp;
    }
    p->spans[p->nspans++] = (struct src_span){start, end, r->completion_tokens};
    return 0;
}

static int native_level_records(struct native_ctx *c, struct src_level *p) {
    size_t cap = 0;
    int rc;
    for (size_t i = 0; i < c->rf->nrecs; i++) {
        const struct rfile_rec *r = &c->rf->recs[i];
        if (r->phase != c->phase) continue;
        if ((rc = native_count(c, &p->tally, r)) < 0 || (rc = native_spans(c, p, r)) < 0) return rc;
        if (!r->ok) continue;
        if (r->completion_tokens == RFILE_NONE) p->no_counts = true;
        if (src_push(&p->lat, &p->nlat, &cap, native_wall(c->s, r)) < 0) return native_nomem(c);
        if ((rc = native_stream(c, &p->stream, r, native_batch_of(r))) < 0) return rc;
    }
    native_unstreamed(c, &p->stream);
    return 0;
}

static int native_sweep(struct native_ctx *c) {
    struct src *s = c->s;
    int conc = 0, rc;
    if ((rc = native_settings(c, native_sweep_rules,
                              sizeof native_sweep_rules / sizeof native_sweep_rules[0])) < 0 ||
        (rc = native_concurrency(c, &conc)) < 0)
        return rc;
    struct src_level *p = calloc(1, sizeof *p);
    if (!p) return native_nomem(c);
    s->levels = p;
    s->nlevels = 1;
    p->c = conc;
    p->max_tokens = native_long(s->settings, "max_tokens", -1);
    const char *mode = native_str(s->settings, "mode");
    p->steady = mode && strcmp(mode, "steady") == 0;
    if (mode && !p->steady && strcmp(mode, "batch") != 0)
        return buf_fail(c->err, NATIVE_ERR_INPUT,
                        "%s: settings.mode: \"%.40s\" is not batch or steady", c->rf->path, mode);
    if ((rc = native_level_records(c, p)) < 0) return rc;
    if (p->no_counts) {
        warnings_add(c->w, "%s: replies carried no token counts: no throughput for c%d",
                     c->rf->path, conc);
        return 0;
    }
    return p->steady ? native_window(c, p) : native_batches(c, p);
}

/* ---- quiz ---- */

static int native_kind(struct src_quiz *q, const char *kind, bool answered, bool correct) {
    size_t i = 0;
    while (i < q->nkinds && strcmp(q->kinds[i].kind, kind) != 0) i++;
    if (i == q->nkinds) {
        struct src_kind_score *k = realloc(q->kinds, (q->nkinds + 1) * sizeof *k);
        if (!k) return -1;
        q->kinds = k;
        k[i] = (struct src_kind_score){strdup(kind), 0, 0, 0};
        if (!k[i].kind) return -1;
        q->nkinds++;
    }
    q->kinds[i].total++;
    q->kinds[i].answered += answered;
    q->kinds[i].correct += correct;
    q->answered += answered;
    q->correct += correct;
    return 0;
}

static bool native_seen(const struct src_quiz *q, const char *id) {
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->items[i].id, id) == 0) return true;
    return false;
}

/* One quiz record into q; *skipped counts records without a question id or repeated. */
static int native_question(const struct rfile *rf, const struct rfile_rec *r, struct src_quiz *q,
                           size_t *skipped, size_t *nocorrect) {
    const char *id = rfile_str(rf, r->question), *kind = rfile_str(rf, r->kind);
    if (!id || native_seen(q, id)) {
        (*skipped)++;
        return 0;
    }
    struct src_quiz_item *it = &q->items[q->n++];
    memset(it, 0, sizeof *it);
    it->correct = r->ok && r->correct == 1;
    if (r->ok && r->correct < 0) (*nocorrect)++;
    it->id = strdup(id);
    it->kind = strdup(kind ? kind : "other");
    it->expected = src_dup(rfile_text(rf, r->answer));
    it->text = r->ok ? strdup(rfile_text(rf, r->text) ? rfile_text(rf, r->text) : "") : NULL;
    it->error = r->ok ? NULL : strdup(rfile_str(rf, r->error) ? rfile_str(rf, r->error) : "error");
    if (!it->id || !it->kind || (r->ok ? !it->text : !it->error) ||
        (rfile_text(rf, r->answer) && !it->expected))
        return -1;
    return native_kind(q, it->kind, r->ok, it->correct);
}

static void native_quiz_warnings(struct native_ctx *c, const struct src_quiz *q, size_t skipped,
                                 size_t nocorrect) {
    const char *path = c->rf->path;
    if (skipped)
        warnings_add(c->w, "%s: %zu quiz records without a question id or repeating one; left out",
                     path, skipped);
    if (nocorrect)
        warnings_add(c->w,
                     "%s: %zu quiz replies do not say whether they were correct; counted wrong",
                     path, nocorrect);
    if ((long)q->n < q->questions)
        warnings_add(c->w, "%s: %zu of %ld questions have a reply or failure recorded", path, q->n,
                     q->questions);
}

static int native_quiz(struct native_ctx *c) {
    struct src *s = c->s;
    int rc;
    if ((rc = native_settings(c, native_quiz_rules,
                              sizeof native_quiz_rules / sizeof native_quiz_rules[0])) < 0)
        return rc;
    struct src_quiz *q = calloc(1, sizeof *q);
    if (!q) return native_nomem(c);
    s->quiz = q;
    q->name = src_dup(native_str(s->settings, "quiz"));
    q->sha = src_dup(native_str(s->settings, "quiz_sha256"));
    if ((native_str(s->settings, "quiz") && !q->name) ||
        (native_str(s->settings, "quiz_sha256") && !q->sha) ||
        !(q->items = calloc(c->rf->nrecs ? c->rf->nrecs : 1, sizeof *q->items)))
        return native_nomem(c);
    size_t skipped = 0, nocorrect = 0;
    for (size_t i = 0; i < c->rf->nrecs; i++) {
        const struct rfile_rec *r = &c->rf->recs[i];
        if (r->phase != c->phase) continue;
        if ((rc = native_count(c, &q->tally, r)) < 0) return rc;
        if (native_question(c->rf, r, q, &skipped, &nocorrect) < 0) return native_nomem(c);
    }
    q->questions = native_long(s->settings, "questions", (long)q->n);
    native_quiz_warnings(c, q, skipped, nocorrect);
    return 0;
}

/* ---- rate ---- */

static int native_rate(struct native_ctx *c) {
    int rc = native_settings(c, openloop_rules, openloop_nrules);
    if (rc < 0) return rc;
    c->s->rate_free = openloop_free; /* src_free's way to free the rounds */
    return openloop_read(c->rf, c->phase, c->s, c->slo, &c->s->rate, c->w, c->err);
}

/* A ramp: an open loop at its mean offered rate, and its scaling (scaling.h). */
static int native_ramp(struct native_ctx *c) {
    int rc = native_rate(c);
    if (rc < 0) return rc;
    c->s->scaling_free = scaling_free;
    return scaling_read(c->rf, c->phase, c->s, c->slo, &c->s->scaling, c->w, c->err);
}

/* ---- every request on the wall clock ---- */

/* The records of the phase that carry wall_start_us, as src_calls. */
static int native_calls(struct native_ctx *c) {
    const struct rfile *rf = c->rf;
    struct src *s = c->s;
    size_t n = 0;
    for (size_t i = 0; i < rf->nrecs; i++)
        n += rf->recs[i].phase == c->phase && rf->recs[i].wall_start_us >= 0;
    if (!n) return 0;
    if (!(s->calls = malloc(n * sizeof *s->calls))) return native_nomem(c);
    for (size_t i = 0; i < rf->nrecs; i++) {
        const struct rfile_rec *r = &rf->recs[i];
        if (r->phase != c->phase || r->wall_start_us < 0) continue;
        double start = (double)r->wall_start_us / 1e6;
        s->calls[s->ncalls++] =
            (struct src_call){start, start + (double)(r->t_end_us - r->t_start_us) / 1e6, r->status,
                              native_wall(s, r)};
    }
    return 0;
}

/* ---- the file ---- */

/* The string id of name in rf, or UINT32_MAX when no record has it. */
static uint32_t native_phase(const struct rfile *rf, const char *name) {
    for (uint32_t id = 1; id <= rf->strs.n; id++)
        if (strcmp(rfile_str(rf, id), name) == 0) return id;
    return UINT32_MAX;
}

int native_src(const struct rfile *rf, const struct slo_set *slo, struct src *out,
               struct warnings *w, struct buf *err) {
    static const struct {
        const char *scenario;
        int (*build)(struct native_ctx *);
    } kinds[] = {{"decode", native_decode}, {"sweep", native_sweep}, {"quiz", native_quiz},
                 {"rate", native_rate},     {"replay", native_rate}, /* a trace replay: an open loop
                                                                        at its offered rate */
                 {"ramp", native_ramp}};
    struct native_ctx c = {.rf = rf, .s = out, .w = w, .err = err, .slo = slo};
    memset(out, 0, sizeof *out);
    if (!(out->path = strdup(rf->path))) return native_nomem(&c);
    int rc = native_head(&c);
    if (rc < 0) return rc;
    for (size_t i = 0; i < rf->nrecs && !out->streamed; i++) out->streamed = rf->recs[i].stream;
    if (rf->cut_tail)
        warnings_add(w,
                     "%s: the last line was incomplete (the run was killed while writing it); "
                     "left out",
                     rf->path);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strcmp(out->scenario, kinds[i].scenario) != 0) continue;
        c.phase = native_phase(rf, kinds[i].scenario);
        size_t warm = warmup_count(rf), other = 0;
        for (size_t k = 0; k < rf->nrecs; k++) other += rf->recs[k].phase != c.phase;
        other -= warm;
        if (warm)
            warnings_add(w, "%s: %zu warm-up request%s left out of every figure", rf->path, warm,
                         warm == 1 ? "" : "s");
        if (other)
            warnings_add(w, "%s: %zu records of other phases than \"%s\" left out", rf->path, other,
                         kinds[i].scenario);
        for (size_t k = 0; k < rf->nrecs; k++)
            if (rf->recs[k].phase == c.phase && conntime_add(&out->conn, &rf->recs[k]) < 0)
                return native_nomem(&c);
        rc = native_calls(&c);
        return rc < 0 ? rc : kinds[i].build(&c);
    }
    warnings_add(
        w,
        "%s: scenario \"%s\" has no comparison (only decode, sweep, quiz, rate, replay and ramp "
        "have); "
        "left out",
        rf->path, out->scenario);
    return 0;
}
