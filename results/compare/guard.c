#include "guard.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_SHOWN 40 /* bytes of a setting's value shown in a message */

/* The state of one check. */
struct guard_ctx {
    const struct side *b, *c;
    bool allow;
    struct warnings *w;
    struct buf *err;
    bool mixed_said; /* the loud warning of streamed against whole replies is out */
};

/* A difference: a warning with allow_mixed, else the error. */
__attribute__((format(printf, 2, 3))) static int guard_differ(struct guard_ctx *g, const char *fmt,
                                                              ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (g->allow) {
        warnings_add(g->w, "compared although %s (--allow-mixed)", msg);
        return 0;
    }
    return buf_fail(g->err, GUARD_ERR_MIXED, "%s (--allow-mixed compares them anyway)", msg);
}

/* The client without its version: every word that starts with a digit dropped
 * ("wrk-sagemaker 0.1.0 via sm-stream" is "wrk-sagemaker via sm-stream"). */
void guard_client(const char *tool, char *out, size_t cap) {
    size_t k = 0;
    if (!tool) {
        snprintf(out, cap, "an unnamed client");
        return;
    }
    for (const char *p = tool; *p && k + 1 < cap;) {
        size_t w = strcspn(p, " ");
        if (!isdigit((unsigned char)*p) && w)
            k += (size_t)snprintf(out + k, cap - k, "%s%.*s", k ? " " : "", (int)w, p);
        p += w + (p[w] == ' ');
    }
    if (k >= cap) k = cap - 1;
    out[k] = '\0';
}

static bool guard_has(const struct src *s, int part);

/* Every input of both sides in order, with its role. */
struct guard_iter {
    const struct src *src;
    const char *role;
};

static size_t guard_all(const struct guard_ctx *g, struct guard_iter *out, size_t cap) {
    size_t n = 0;
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? g->c : g->b;
        for (size_t i = 0; i < s->in.n && n < cap; i++)
            out[n++] = (struct guard_iter){&s->in.srcs[i], s->role};
    }
    return n;
}

/* Whether an earlier input than i had x's tool (its difference is already said). */
static bool guard_said(const struct guard_iter *all, size_t i) {
    for (size_t k = 1; k < i; k++) {
        const char *a = all[k].src->tool, *b = all[i].src->tool;
        if ((!a && !b) || (a && b && strcmp(a, b) == 0)) return true;
    }
    return false;
}

/* Whether two clients differ only by one streaming ("wrk-sagemaker via
 * sm-stream" against "wrk-sagemaker"): guard_streams says that louder. */
static bool guard_stream_only(const struct src *a, const struct src *x, const char *ca,
                              const char *cx) {
    static const char via[] = " via sm-stream";
    const char *s = a->streamed ? ca : cx, *w = a->streamed ? cx : ca;
    size_t n = strlen(s), k = sizeof via - 1;
    return a->streamed != x->streamed && n == strlen(w) + k && strcmp(s + n - k, via) == 0 &&
           strncmp(s, w, n - k) == 0;
}

/* One side's inputs streamed (sm-stream) and another's did not (wrk): mixed,
 * refused unless allow_mixed, and said loudly either way. */
static int guard_streams(struct guard_ctx *g, const struct guard_iter *all, size_t n) {
    for (size_t i = 1; i < n; i++) {
        const struct guard_iter *a = &all[0], *x = &all[i];
        if (a->src->streamed == x->src->streamed) continue;
        const struct guard_iter *s = a->src->streamed ? a : x, *w = a->src->streamed ? x : a;
        int rc = guard_differ(g,
                              "%s %s streamed its replies (%s), %s %s did not (%s): TTFT and ITL "
                              "exist only for streamed replies and cannot be compared",
                              s->role, s->src->path, s->src->client ? s->src->client : "sm-stream",
                              w->role, w->src->path, w->src->client ? w->src->client : "wrk");
        if (rc < 0) return rc;
        if (g->mixed_said) return 0;
        g->mixed_said = true;
        warnings_add(g->w,
                     "MIXED COMPARISON: one side streamed its replies and the other did not: "
                     "the streaming table gives TTFT, ITL and TPOT of the streamed side only; "
                     "end-to-end latency and throughput are compared, but a streamed reply ends "
                     "with its last chunk and a whole one with its last byte, over different "
                     "routes");
        return 0;
    }
    return 0;
}

static int guard_clients(struct guard_ctx *g, const struct guard_iter *all, size_t n) {
    char ref[128], cl[128];
    guard_client(all[0].src->tool, ref, sizeof ref);
    for (size_t i = 1; i < n; i++) {
        const struct src *a = all[0].src, *x = all[i].src;
        guard_client(x->tool, cl, sizeof cl);
        if (guard_said(all, i) || guard_stream_only(a, x, ref, cl)) continue;
        if (strcmp(cl, ref) != 0) {
            int rc = guard_differ(g, "%s %s was measured by %s, %s %s by %s: different clients",
                                  all[0].role, a->path, a->tool ? a->tool : ref, all[i].role,
                                  x->path, x->tool ? x->tool : cl);
            if (rc < 0) return rc;
        } else if (a->tool && x->tool && strcmp(a->tool, x->tool) != 0) {
            warnings_add(g->w, "%s %s was measured by %s, %s %s by %s", all[0].role, a->path,
                         a->tool, all[i].role, x->path, x->tool);
        }
    }
    return 0;
}

/* check over the inputs of each measurement in turn (those with its part): the
 * client and streaming of one measurement must agree, not those of two (the
 * quiz on wrk beside a streamed decode is one comparison of each). */
static int guard_per_part(struct guard_ctx *g, const struct guard_iter *all, size_t n,
                          int (*check)(struct guard_ctx *, const struct guard_iter *, size_t)) {
    struct guard_iter *part = malloc(n * sizeof *part);
    int rc = 0;
    if (!part) return buf_fail(g->err, BUF_ERR_NOMEM, "out of memory");
    for (int p = 0; rc == 0 && p < 4; p++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (guard_has(all[i].src, p)) part[m++] = all[i];
        if (m > 1) rc = check(g, part, m);
    }
    free(part);
    return rc;
}

static int guard_scales(struct guard_ctx *g, const struct guard_iter *all, size_t n) {
    for (size_t i = 1; i < n; i++) {
        const struct src *a = all[0].src, *x = all[i].src;
        bool said = false;
        for (size_t k = 1; k < i; k++) said |= all[k].src->time_scale == x->time_scale;
        if (x->time_scale == a->time_scale || said) continue;
        int rc =
            guard_differ(g, "%s %s ran at time_scale %g, %s %s at %g: different time scales",
                         all[0].role, a->path, a->time_scale, all[i].role, x->path, x->time_scale);
        if (rc < 0) return rc;
    }
    return 0;
}

/* Whether src has the part a scenario's settings describe. */
static bool guard_has(const struct src *s, int part) {
    return part == 0   ? s->decode != NULL
           : part == 1 ? s->nlevels > 0
           : part == 2 ? s->quiz != NULL
                       : s->rate != NULL;
}

/* One setting of two inputs of one part; both must have it to be compared. */
static int guard_setting(struct guard_ctx *g, const struct guard_iter *a,
                         const struct guard_iter *x, const char *part, const char *key) {
    const cJSON *va = cJSON_GetObjectItemCaseSensitive(a->src->settings, key);
    const cJSON *vx = cJSON_GetObjectItemCaseSensitive(x->src->settings, key);
    if (!va || !vx || cJSON_IsNull(va) || cJSON_IsNull(vx) || cJSON_Compare(va, vx, true)) return 0;
    if (strcmp(key, "prompt") == 0)
        return guard_differ(g, "%s %s and %s %s: %s prompts differ", a->role, a->src->path, x->role,
                            x->src->path, part);
    char *ta = cJSON_PrintUnformatted(va), *tx = cJSON_PrintUnformatted(vx);
    int rc = guard_differ(g, "%s %s and %s %s: %s %s %.*s and %.*s differ", a->role, a->src->path,
                          x->role, x->src->path, part, key, GUARD_SHOWN, ta ? ta : "?", GUARD_SHOWN,
                          tx ? tx : "?");
    free(ta);
    free(tx);
    return rc;
}

static int guard_settings(struct guard_ctx *g, const struct guard_iter *all, size_t n) {
    static const char *const parts[] = {"decode", "sweep", "quiz", "open-loop"};
    /* An open-loop run's rates may differ: each side's rounds are pooled by rate
     * into one curve (openloop_pool), e.g. a capacity search's probes of one rate each. */
    static const char *const keys[4][11] = {{"prompt", "temperature", "ignore_eos", NULL},
                                            {"prompt", "temperature", "ignore_eos", NULL},
                                            {"max_tokens", "temperature", NULL},
                                            {"arrivals", "duration_s", "burstiness", "arrival_seed",
                                             "max_concurrency", "max_tokens", "prompt",
                                             "temperature", "ignore_eos", NULL}};
    for (int p = 0; p < 4; p++) {
        const struct guard_iter *ref = NULL;
        for (size_t i = 0; i < n; i++) {
            if (!guard_has(all[i].src, p)) continue;
            if (!ref) {
                ref = &all[i];
                continue;
            }
            for (int k = 0; keys[p][k]; k++) {
                int rc = guard_setting(g, ref, &all[i], parts[p], keys[p][k]);
                if (rc < 0) return rc;
            }
        }
    }
    return 0;
}

static void guard_lengths_text(const struct side_decode *d, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < d->nlengths && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%d", i ? ", " : "", d->lengths[i]);
}

static int guard_decode(struct guard_ctx *g) {
    const struct side_decode *x = &g->b->dec, *y = &g->c->dec;
    if (!x->have || !y->have || !x->nlengths || !y->nlengths) return 0;
    if (x->nlengths != y->nlengths ||
        memcmp(x->lengths, y->lengths, x->nlengths * sizeof x->lengths[0]) != 0) {
        char a[200], e[200];
        guard_lengths_text(y, a, sizeof a);
        guard_lengths_text(x, e, sizeof e);
        return guard_differ(g, "%s: decode lengths [%s] differ from the baseline's [%s] (%s)",
                            y->first->path, a, e, x->first->path);
    }
    if (x->repeats > 0 && y->repeats > 0 && x->repeats != y->repeats)
        warnings_add(g->w, "decode repeats differ: baseline %ld, candidate %ld", x->repeats,
                     y->repeats);
    return 0;
}

static void guard_levels_text(const struct side *s, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < s->nlv && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%d", i ? ", " : "", s->lv[i].c);
}

static const struct side_level *guard_level(const struct side *s, int c) {
    for (size_t i = 0; i < s->nlv; i++)
        if (s->lv[i].c == c) return &s->lv[i];
    return NULL;
}

static int guard_levels(struct guard_ctx *g) {
    const struct side *b = g->b, *c = g->c;
    char lb[300], lc[300];
    int rc = 0;
    if (!b->nlv || !c->nlv) return 0;
    guard_levels_text(b, lb, sizeof lb);
    guard_levels_text(c, lc, sizeof lc);
    if (strcmp(lb, lc) != 0 &&
        (rc = guard_differ(g, "%s: concurrency levels %s differ from the baseline's %s (%s)",
                           c->lv[0].first->path, lc, lb, b->lv[0].first->path)) < 0)
        return rc;
    for (size_t i = 0; i < c->nlv && !rc; i++) {
        const struct side_level *y = &c->lv[i], *x = guard_level(b, y->c);
        if (!x) continue;
        if (x->steady != y->steady)
            return buf_fail(g->err, GUARD_ERR_MIXED,
                            "%s: c%d was measured %s, the baseline %s (%s)", y->first->path, y->c,
                            y->steady ? "in steady mode" : "in batches",
                            x->steady ? "in steady mode" : "in batches", x->first->path);
        if (x->max_tokens >= 0 && y->max_tokens >= 0 && x->max_tokens != y->max_tokens)
            rc = guard_differ(g,
                              "%s: c%d asked for %ld tokens per request, the baseline for %ld (%s)",
                              y->first->path, y->c, y->max_tokens, x->max_tokens, x->first->path);
    }
    return rc;
}

static const struct src_quiz_item *guard_item(const struct src_quiz *q, const char *id) {
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->items[i].id, id) == 0) return &q->items[i];
    return NULL;
}

static int guard_quiz(struct guard_ctx *g) {
    const struct src_quiz *x = g->b->quiz, *y = g->c->quiz;
    if (!x || !y) return 0;
    const char *pb = g->b->quiz_src->path, *pc = g->c->quiz_src->path;
    if (x->name && y->name && strcmp(x->name, y->name) != 0)
        return buf_fail(g->err, GUARD_ERR_MIXED,
                        "%s: quiz \"%.60s\" differs from the baseline's \"%.60s\" (%s)", pc,
                        y->name, x->name, pb);
    if (x->sha && y->sha && strcmp(x->sha, y->sha) != 0)
        return buf_fail(g->err, GUARD_ERR_MIXED,
                        "%s: quiz file sha256 differs from the baseline's (%s)", pc, pb);
    if (x->questions != y->questions)
        return buf_fail(g->err, GUARD_ERR_MIXED,
                        "%s: quiz of %ld questions, the baseline's has %ld (%s)", pc, y->questions,
                        x->questions, pb);
    size_t common = 0;
    for (size_t i = 0; i < x->n; i++) common += guard_item(y, x->items[i].id) != NULL;
    if (x->n && y->n && !common)
        return buf_fail(g->err, GUARD_ERR_MIXED,
                        "%s: no quiz question in common with the baseline (%s)", pc, pb);
    return 0;
}

int guard_check(const struct side *b, const struct side *c, bool allow_mixed, struct warnings *w,
                struct buf *err) {
    struct guard_ctx g = {b, c, allow_mixed, w, err, false};
    size_t cap = b->in.n + c->in.n, n;
    struct guard_iter *all = malloc((cap ? cap : 1) * sizeof *all);
    int rc;
    if (!all) return buf_fail(err, BUF_ERR_NOMEM, "out of memory");
    n = guard_all(&g, all, cap);
    if ((rc = guard_quiz(&g)) == 0 &&
        (!n || (rc = guard_per_part(&g, all, n, guard_streams)) == 0) &&
        (!n || (rc = guard_per_part(&g, all, n, guard_clients)) == 0) &&
        (!n || (rc = guard_scales(&g, all, n)) == 0) && (rc = guard_settings(&g, all, n)) == 0 &&
        (rc = guard_decode(&g)) == 0)
        rc = guard_levels(&g);
    free(all);
    return rc;
}
