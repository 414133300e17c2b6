#include "out_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* A value rounded like its row, or null. */
static cJSON *num(const struct row *r, const struct val *v) {
    return v->ok ? cJSON_CreateNumber(cmp_round(v->v, r->decimals)) : cJSON_CreateNull();
}

static cJSON *triple(const struct row *r) {
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, num(r, &r->b));
    cJSON_AddItemToArray(a, num(r, &r->c));
    cJSON_AddItemToArray(a, !r->no_ratio && r->ratio.ok ? cJSON_CreateNumber(r->ratio.v)
                                                        : cJSON_CreateNull());
    return a;
}

static cJSON *rows_of(const struct cmp *m, enum row_group g) {
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < m->nrows; i++)
        if (m->rows[i].group == g) cJSON_AddItemToObject(o, m->rows[i].name, triple(&m->rows[i]));
    return o;
}

static cJSON *fact(const struct fact *f) {
    return f->have ? cJSON_CreateString(f->text) : cJSON_CreateNull();
}

/* compare.py's "a"/"b": name, model (the facts as logged), endpoint, window. */
static cJSON *side_obj(const struct side *s, const char *name) {
    const struct facts *f = &s->in.facts;
    const struct src *first = s->in.n ? &s->in.srcs[0] : NULL;
    cJSON *o = cJSON_CreateObject(), *model = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddItemToObject(model, "vllm_version", fact(&f->vllm_version));
    cJSON_AddItemToObject(model, "weights_gib", fact(&f->weights_gib));
    cJSON_AddItemToObject(model, "load_seconds", fact(&f->load_seconds));
    cJSON_AddItemToObject(model, "kv_cache_tokens", fact(&f->kv_cache_tokens));
    cJSON_AddItemToObject(model, "max_concurrency_at_max_len", fact(&f->max_concurrency));
    cJSON_AddItemToObject(model, "quantization", fact(&f->quantization));
    cJSON_AddItemToObject(model, "max_concurrency_tokens_per_request", fact(&f->max_conc_tokens));
    cJSON_AddItemToObject(model, "source",
                          s->in.have_facts ? cJSON_CreateString(f->source) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "model", model);
    cJSON_AddItemToObject(o, "endpoint",
                          first && first->endpoint ? cJSON_Duplicate(first->endpoint, true)
                                                   : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "window",
                          first && first->started ? cJSON_CreateString(first->started)
                                                  : cJSON_CreateNull());
    cJSON *files = cJSON_AddArrayToObject(o, "files");
    for (size_t i = 0; i < s->in.n; i++)
        cJSON_AddItemToArray(files, cJSON_CreateString(s->in.srcs[i].path));
    return o;
}

static cJSON *reply(const struct quiz_item *it) {
    return it && it->text ? cJSON_CreateString(it->text) : cJSON_CreateNull();
}

static void add_failure(cJSON *o, const char *key, const struct quiz_item *it) {
    if (!it)
        cJSON_AddStringToObject(o, key, "not asked");
    else if (!it->text)
        cJSON_AddStringToObject(o, key, it->error ? it->error : "error");
}

static cJSON *disagreements(const struct cmp *m) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < m->ndis; i++) {
        const struct disagreement *d = &m->dis[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", d->id);
        cJSON_AddItemToObject(o, m->bname, reply(d->bi));
        cJSON_AddItemToObject(o, m->cname, reply(d->ci));
        cJSON_AddItemToObject(o, "expected",
                              d->expected ? cJSON_CreateString(d->expected) : cJSON_CreateNull());
        cJSON_AddStringToObject(o, "right", d->right);
        add_failure(o, "baseline_failure", d->bi);
        add_failure(o, "candidate_failure", d->ci);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *by_kind(const struct quiz_part *q) {
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; q && i < q->nkinds; i++) {
        cJSON *k = cJSON_CreateObject();
        cJSON_AddNumberToObject(k, "correct", (double)q->kinds[i].correct);
        cJSON_AddNumberToObject(k, "total", (double)q->kinds[i].total);
        cJSON_AddItemToObject(o, q->kinds[i].kind, k);
    }
    return o;
}

static cJSON *pair(const struct ci *ci) {
    if (!ci->ok || !isfinite(ci->lo) || !isfinite(ci->hi)) return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(ci->lo));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(ci->hi));
    return a;
}

static cJSON *intervals(const struct cmp *m) {
    cJSON *o = cJSON_CreateObject(), *rows = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "level", 0.95);
    cJSON_AddStringToObject(o, "method", "percentile bootstrap");
    cJSON_AddNumberToObject(o, "seed", (double)m->opts.seed);
    cJSON_AddNumberToObject(o, "resamples", (double)m->opts.resamples);
    for (size_t i = 0; i < m->nrows; i++) {
        const struct row *r = &m->rows[i];
        if (!r->ci_b.ok && !r->ci_c.ok && !r->ci_r.ok) continue;
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToObject(x, "baseline", pair(&r->ci_b));
        cJSON_AddItemToObject(x, "candidate", pair(&r->ci_c));
        cJSON_AddItemToObject(x, "ratio", pair(&r->ci_r));
        long n = r->ci_r.ok   ? r->ci_r.resamples
                 : r->ci_b.ok ? r->ci_b.resamples
                              : r->ci_c.resamples;
        cJSON_AddNumberToObject(x, "resamples", (double)n);
        cJSON_AddItemToObject(rows, r->name, x);
    }
    cJSON_AddItemToObject(o, "rows", rows);
    return o;
}

static cJSON *not_available(const struct cmp *m) {
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < m->nrows; i++) {
        const struct row *r = &m->rows[i];
        if (r->b.ok && r->c.ok && (r->no_ratio || r->ratio.ok)) continue;
        cJSON *x = cJSON_CreateObject();
        if (!r->b.ok) cJSON_AddStringToObject(x, "baseline", r->b.why);
        if (!r->c.ok) cJSON_AddStringToObject(x, "candidate", r->c.why);
        if (!r->no_ratio && !r->ratio.ok) cJSON_AddStringToObject(x, "ratio", r->ratio.why);
        cJSON_AddItemToObject(o, r->name, x);
    }
    return o;
}

static cJSON *tally(const char *side, const char *what, const struct tally *t) {
    cJSON *o = cJSON_CreateObject(), *e = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "side", side);
    cJSON_AddStringToObject(o, "measurement", what);
    cJSON_AddNumberToObject(o, "sent", (double)t->sent);
    cJSON_AddNumberToObject(o, "ok", (double)t->ok);
    cJSON_AddNumberToObject(o, "failed", (double)t->failed);
    for (size_t i = 0; i < t->nerrs; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "count", (double)t->errs[i].n);
        cJSON_AddItemToObject(x, "message",
                              t->errs[i].message ? cJSON_CreateString(t->errs[i].message)
                                                 : cJSON_CreateNull());
        cJSON_AddItemToObject(e, t->errs[i].code, x);
    }
    cJSON_AddItemToObject(o, "errors", e);
    return o;
}

static cJSON *requests(const struct cmp *m) {
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        const char *role = k ? "candidate" : "baseline";
        if (s->dec.have) cJSON_AddItemToArray(a, tally(role, "decode", &s->dec.tally));
        for (size_t i = 0; i < s->nlv; i++) {
            char what[32];
            snprintf(what, sizeof what, "load c%d", s->lv[i].c);
            cJSON_AddItemToArray(a, tally(role, what, &s->lv[i].tally));
        }
        if (s->quiz) cJSON_AddItemToArray(a, tally(role, "quiz", &s->quiz->tally));
    }
    return a;
}

static cJSON *runs(const struct cmp *m) {
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        for (size_t i = 0; i < s->nruns; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "side", k ? "candidate" : "baseline");
            cJSON_AddStringToObject(o, "measurement", s->runs[i].what);
            cJSON_AddStringToObject(o, "file", s->runs[i].src->path);
            cJSON_AddItemToObject(o, "value",
                                  isfinite(s->runs[i].v)
                                      ? cJSON_CreateNumber(cmp_round(s->runs[i].v, 2))
                                      : cJSON_CreateNull());
            cJSON_AddItemToArray(a, o);
        }
    }
    return a;
}

static cJSON *mcnemar(const struct cmp *m) {
    cJSON *o = cJSON_CreateObject();
    if (m->have_mcnemar) {
        cJSON_AddNumberToObject(o, "only_baseline_right", m->mc_b);
        cJSON_AddNumberToObject(o, "only_candidate_right", m->mc_c);
        cJSON_AddNumberToObject(o, "p", cmp_round(m->mc_p, 4));
    }
    cJSON_AddStringToObject(o, "text", m->mc_text);
    return o;
}

static cJSON *strings(char *const *s, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(s[i]));
    return a;
}

static cJSON *document(const struct cmp *m, const struct diag *d) {
    cJSON *o = cJSON_CreateObject(), *cols = cJSON_CreateArray();
    char ratio[340];
    snprintf(ratio, sizeof ratio, "%s / %s", m->cname, m->bname);
    cJSON_AddItemToObject(o, "a", side_obj(m->b, m->bname));
    cJSON_AddItemToObject(o, "b", side_obj(m->c, m->cname));
    cJSON_AddItemToArray(cols, cJSON_CreateString(m->bname));
    cJSON_AddItemToArray(cols, cJSON_CreateString(m->cname));
    cJSON_AddItemToArray(cols, cJSON_CreateString(ratio));
    cJSON_AddItemToObject(o, "columns", cols);
    cJSON_AddItemToObject(o, "rows", rows_of(m, ROW_MAIN));
    cJSON *ident = cJSON_AddObjectToObject(o, "identical_answers");
    cJSON_AddItemToObject(ident, "count",
                          m->have_quiz ? cJSON_CreateNumber((double)m->identical)
                                       : cJSON_CreateNull());
    cJSON_AddItemToObject(
        ident, "total", m->have_quiz ? cJSON_CreateNumber((double)m->qtotal) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "disagreements", disagreements(m));
    cJSON *kinds = cJSON_AddObjectToObject(o, "quality_by_kind");
    cJSON_AddItemToObject(kinds, m->bname, by_kind(m->b->quiz));
    cJSON_AddItemToObject(kinds, m->cname, by_kind(m->c->quiz));
    cJSON_AddStringToObject(o, "tool", "sm-compare " SM_VERSION);
    cJSON_AddStringToObject(o, "time_scale", m->scale_note[0] ? m->scale_note : "real time");
    cJSON_AddItemToObject(o, "intervals", intervals(m));
    cJSON_AddItemToObject(o, "decode", rows_of(m, ROW_DECODE));
    cJSON_AddItemToObject(o, "latency_seconds", rows_of(m, ROW_LATENCY));
    if (m->opts.have_price) {
        cJSON *c = cJSON_AddObjectToObject(o, "cost");
        cJSON_AddNumberToObject(c, "usd_per_hour", m->opts.price);
        cJSON_AddItemToObject(c, "rows", rows_of(m, ROW_COST));
    }
    cJSON_AddItemToObject(o, "quality_rows", rows_of(m, ROW_KIND));
    cJSON_AddItemToObject(o, "not_available", not_available(m));
    cJSON_AddItemToObject(o, "requests", requests(m));
    cJSON_AddItemToObject(o, "runs", runs(m));
    cJSON_AddItemToObject(o, "mcnemar", mcnemar(m));
    cJSON_AddItemToObject(o, "warnings", strings(d->warnings, d->nwarnings));
    cJSON_AddStringToObject(o, "verdict", m->verdict);
    return o;
}

int out_json(const struct cmp *m, const struct diag *d, struct buf *out) {
    cJSON *doc = document(m, d);
    char *text = doc ? cJSON_Print(doc) : NULL;
    int rc = text ? buf_adds(out, text) : BUF_ERR_NOMEM;
    if (!rc) rc = buf_addc(out, '\n');
    free(text);
    cJSON_Delete(doc);
    return rc;
}
