#include "src.h"

#include <stdlib.h>
#include <string.h>

#include "shards.h"

char *src_dup(const char *s) {
    return s ? strdup(s) : NULL;
}

int src_push(double **arr, size_t *n, size_t *cap, double v) {
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        double *p = realloc(*arr, c * sizeof *p);
        if (!p) return -1;
        *arr = p;
        *cap = c;
    }
    (*arr)[(*n)++] = v;
    return 0;
}

int src_tally_fail(struct src_tally *t, const char *code, const char *message, long n) {
    t->sent += n;
    t->failed += n;
    if (!code) code = "unknown";
    for (size_t i = 0; i < t->nerrs; i++)
        if (strcmp(t->errs[i].code, code) == 0) {
            t->errs[i].n += n;
            if (!t->errs[i].message && message && !(t->errs[i].message = strdup(message)))
                return -1;
            return 0;
        }
    struct src_tally_err *e = realloc(t->errs, (t->nerrs + 1) * sizeof *e);
    if (!e) return -1;
    t->errs = e;
    e[t->nerrs] = (struct src_tally_err){strdup(code), src_dup(message), n};
    if (!e[t->nerrs].code || (message && !e[t->nerrs].message)) {
        free(e[t->nerrs].code);
        free(e[t->nerrs].message);
        return -1;
    }
    t->nerrs++;
    return 0;
}

int src_tally_add(struct src_tally *t, bool ok, const char *code, const char *message) {
    if (!ok) return src_tally_fail(t, code, message, 1);
    t->sent++;
    t->ok++;
    return 0;
}

int src_tally_merge(struct src_tally *into, const struct src_tally *from) {
    into->sent += from->sent - from->failed;
    into->ok += from->ok;
    for (size_t i = 0; i < from->nerrs; i++)
        if (src_tally_fail(into, from->errs[i].code, from->errs[i].message, from->errs[i].n) < 0)
            return -1;
    return 0;
}

void src_tally_free(struct src_tally *t) {
    for (size_t i = 0; i < t->nerrs; i++) {
        free(t->errs[i].code);
        free(t->errs[i].message);
    }
    free(t->errs);
    memset(t, 0, sizeof *t);
}

static void src_decode_free(struct src_decode *p) {
    if (!p) return;
    free(p->prompt);
    free(p->tokens);
    free(p->walls);
    stream_free(&p->stream);
    src_tally_free(&p->tally);
    free(p);
}

static void src_quiz_free(struct src_quiz *q) {
    if (!q) return;
    for (size_t i = 0; i < q->n; i++) {
        struct src_quiz_item *it = &q->items[i];
        free(it->id);
        free(it->kind);
        free(it->expected);
        free(it->text);
        free(it->error);
    }
    for (size_t i = 0; i < q->nkinds; i++) free(q->kinds[i].kind);
    free(q->items);
    free(q->kinds);
    free(q->name);
    free(q->sha);
    src_tally_free(&q->tally);
    free(q);
}

static void src_level_free(struct src_level *l) {
    free(l->tps);
    free(l->bwall);
    free(l->lat);
    free(l->spans);
    stream_free(&l->stream);
    src_tally_free(&l->tally);
}

void src_free(struct src *s) {
    free(s->path);
    free(s->tool);
    free(s->client);
    free(s->label);
    free(s->run_id);
    free(s->scenario);
    free(s->started);
    free(s->partial_reason);
    cJSON_Delete(s->endpoint);
    cJSON_Delete(s->settings);
    cJSON_Delete(s->template_overhead);
    src_decode_free(s->decode);
    for (size_t i = 0; i < s->nlevels; i++) src_level_free(&s->levels[i]);
    free(s->levels);
    src_quiz_free(s->quiz);
    if (s->rate) s->rate_free(s->rate);
    if (s->scaling) s->scaling_free(s->scaling);
    free(s->rate);
    free(s->facts);
    shards_info_free(s->shards);
    free(s->calls);
    conntime_free(&s->conn);
    memset(s, 0, sizeof *s);
}

const char *src_name(const struct src *s) {
    const char *slash = strrchr(s->path, '/');
    return slash ? slash + 1 : s->path;
}
