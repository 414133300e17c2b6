#include "out_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cloudwatch_report.h"
#include "esc.h"
#include "openloop_json.h"
#include "scaling_report.h"
#include "prose.h"
#include "quiz_family_report.h"
#include "shard_report.h"
#include "tokreport.h"
#include "verdict.h"

/* A string from a file: ill-formed UTF-8 becomes U+FFFD, so the output is valid JSON. */
cJSON *out_json_str(const char *s) {
    if (!s) return cJSON_CreateNull();
    char *fixed = esc_utf8(s);
    cJSON *v = fixed ? cJSON_CreateString(fixed) : NULL;
    free(fixed);
    return v;
}

static void out_json_add_str(cJSON *o, const char *key, const char *s) {
    char *fixed = esc_utf8(key);
    if (fixed) cJSON_AddItemToObject(o, fixed, out_json_str(s));
    free(fixed);
}

static void out_json_add(cJSON *o, const char *key, cJSON *v) {
    char *fixed = esc_utf8(key);
    if (fixed)
        cJSON_AddItemToObject(o, fixed, v);
    else
        cJSON_Delete(v);
    free(fixed);
}

/* o.name = v, or null when v is not finite. */
static void out_json_finite(cJSON *o, const char *name, double v) {
    cJSON_AddItemToObject(o, name, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

static cJSON *out_json_num(const struct side_val *v) {
    return v->ok ? cJSON_CreateNumber(v->v) : cJSON_CreateNull();
}

static cJSON *out_json_triple(const struct cmp_row *r) {
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, out_json_num(&r->b));
    cJSON_AddItemToArray(a, out_json_num(&r->c));
    cJSON_AddItemToArray(a, !r->no_ratio && r->ratio.ok ? cJSON_CreateNumber(r->ratio.v)
                                                        : cJSON_CreateNull());
    return a;
}

static cJSON *out_json_rows(const struct cmp *m, enum cmp_group g) {
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < m->nrows; i++)
        if (m->rows[i].group == g)
            cJSON_AddItemToObject(o, m->rows[i].name, out_json_triple(&m->rows[i]));
    return o;
}

static cJSON *out_json_n(const struct side_val *v, const struct cmp_n *n) {
    if (!v->ok) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "requests", (double)n->requests);
    if (n->tokens) cJSON_AddNumberToObject(o, "tokens", (double)n->tokens);
    return o;
}

/* The streaming rows (when some side streamed): values, samples, and whether mixed. */
static void out_json_stream(cJSON *o, const struct cmp *m) {
    cJSON *samples = cJSON_CreateObject();
    bool any = false;
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *r = &m->rows[i];
        if (r->group != CMP_STREAM) continue;
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToObject(x, "baseline", out_json_n(&r->b, &r->n_b));
        cJSON_AddItemToObject(x, "candidate", out_json_n(&r->c, &r->n_c));
        cJSON_AddItemToObject(samples, r->name, x);
        any = true;
    }
    if (!any) {
        cJSON_Delete(samples);
        return;
    }
    cJSON *st = cJSON_AddObjectToObject(o, "streaming_seconds");
    cJSON_AddBoolToObject(st, "mixed", m->stream_mixed);
    if (m->itl_token[0] + m->itl_chunk[0] + m->itl_token[1] + m->itl_chunk[1]) {
        cJSON *u = cJSON_AddObjectToObject(st, "itl_unit"); /* what the records said */
        for (int k = 0; k < 2; k++) {
            const char *v = cmp_itl_unit(m, k);
            cJSON_AddItemToObject(u, k ? "candidate" : "baseline",
                                  v ? cJSON_CreateString(v) : cJSON_CreateNull());
        }
    }
    if (m->conn[0].timed || m->conn[1].timed) {
        cJSON *cn = cJSON_AddObjectToObject(st, "connections"); /* conntime.h */
        for (int k = 0; k < 2; k++) {
            const struct conntime_summary *c = &m->conn[k];
            cJSON *o = cJSON_AddObjectToObject(cn, k ? "candidate" : "baseline");
            cJSON_AddNumberToObject(o, "requests_timed", (double)c->timed);
            cJSON_AddNumberToObject(o, "opened", (double)c->opened);
            out_json_finite(o, "opened_share", c->opened_share);
            out_json_finite(o, "connect_median_ms", c->connect_ms);
            out_json_finite(o, "tls_median_ms", c->tls_ms);
        }
    }
    cJSON_AddItemToObject(st, "rows", out_json_rows(m, CMP_STREAM));
    cJSON_AddItemToObject(st, "samples", samples);
}

static cJSON *out_json_fact(const struct facts_fact *f) {
    return f->have ? out_json_str(f->text) : cJSON_CreateNull();
}

/* compare.py's "a"/"b": name, model (the facts as logged), endpoint, window. */
static cJSON *out_json_side(const struct side *s, const char *name) {
    const struct facts *f = &s->in.facts;
    const struct src *first = s->in.n ? &s->in.srcs[0] : NULL;
    cJSON *o = cJSON_CreateObject(), *model = cJSON_CreateObject();
    out_json_add_str(o, "name", name);
    cJSON_AddItemToObject(model, "vllm_version", out_json_fact(&f->vllm_version));
    cJSON_AddItemToObject(model, "weights_gib", out_json_fact(&f->weights_gib));
    cJSON_AddItemToObject(model, "load_seconds", out_json_fact(&f->load_seconds));
    cJSON_AddItemToObject(model, "kv_cache_tokens", out_json_fact(&f->kv_cache_tokens));
    cJSON_AddItemToObject(model, "max_concurrency_at_max_len", out_json_fact(&f->max_concurrency));
    cJSON_AddItemToObject(model, "quantization", out_json_fact(&f->quantization));
    cJSON_AddItemToObject(model, "max_concurrency_tokens_per_request",
                          out_json_fact(&f->max_conc_tokens));
    cJSON_AddItemToObject(model, "source",
                          s->in.have_facts ? out_json_str(f->source) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "model", model);
    char *ep = first && first->endpoint ? cJSON_PrintUnformatted(first->endpoint) : NULL;
    char *fixed = ep ? esc_utf8(ep) : NULL;
    cJSON_AddItemToObject(o, "endpoint", fixed ? cJSON_Parse(fixed) : cJSON_CreateNull());
    free(fixed);
    free(ep);
    cJSON_AddItemToObject(o, "window", out_json_str(first ? first->started : NULL));
    cJSON_AddItemToObject(o, "tool", out_json_str(first ? first->tool : NULL));
    cJSON *files = cJSON_AddArrayToObject(o, "files");
    for (size_t i = 0; i < s->in.n; i++)
        cJSON_AddItemToArray(files, out_json_str(s->in.srcs[i].path));
    return o;
}

static cJSON *out_json_reply(const struct src_quiz_item *it) {
    return it && it->text ? out_json_str(it->text) : cJSON_CreateNull();
}

static void out_json_failure(cJSON *o, const char *key, const struct src_quiz_item *it) {
    if (!it)
        cJSON_AddStringToObject(o, key, "not asked");
    else if (!it->text)
        cJSON_AddItemToObject(o, key, out_json_str(it->error ? it->error : "error"));
}

static cJSON *out_json_disagreements(const struct cmp *m) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < m->quiz.ndis; i++) {
        const struct quiz_cmp_dis *d = &m->quiz.dis[i];
        cJSON *o = cJSON_CreateObject();
        out_json_add_str(o, "id", d->id);
        out_json_add(o, m->bname, out_json_reply(d->bi));
        out_json_add(o, m->cname, out_json_reply(d->ci));
        out_json_add_str(o, "expected", d->expected);
        cJSON_AddStringToObject(o, "right", d->right);
        out_json_failure(o, "baseline_failure", d->bi);
        out_json_failure(o, "candidate_failure", d->ci);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *out_json_by_kind(const struct src_quiz *q) {
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; q && i < q->nkinds; i++) {
        cJSON *k = cJSON_CreateObject();
        cJSON_AddNumberToObject(k, "correct", (double)q->kinds[i].correct);
        cJSON_AddNumberToObject(k, "total", (double)q->kinds[i].total);
        cJSON_AddNumberToObject(k, "answered", (double)q->kinds[i].answered);
        out_json_add(o, q->kinds[i].kind, k);
    }
    return o;
}

static cJSON *out_json_pair(const struct interval *ci) {
    if (!ci->ok || !isfinite(ci->lo) || !isfinite(ci->hi)) return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(ci->lo));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(ci->hi));
    return a;
}

static void out_json_why(cJSON *o, const char *key, const struct interval *ci) {
    if (!ci->ok) cJSON_AddStringToObject(o, key, ci->why);
}

static cJSON *out_json_interval_row(const struct cmp_row *r) {
    cJSON *x = cJSON_CreateObject(), *why = cJSON_CreateObject(), *n = cJSON_CreateArray();
    cJSON_AddItemToObject(x, "baseline", out_json_pair(&r->ci_b));
    cJSON_AddItemToObject(x, "candidate", out_json_pair(&r->ci_c));
    cJSON_AddItemToObject(x, "ratio", out_json_pair(&r->ci_r));
    cJSON_AddItemToArray(n, cJSON_CreateNumber((double)r->nb));
    cJSON_AddItemToArray(n, cJSON_CreateNumber((double)r->nc));
    cJSON_AddItemToObject(x, "samples", n);
    cJSON_AddStringToObject(x, "method", r->method);
    out_json_why(why, "baseline", &r->ci_b);
    out_json_why(why, "candidate", &r->ci_c);
    out_json_why(why, "ratio", &r->ci_r);
    cJSON_AddItemToObject(x, "no_interval", why);
    return x;
}

static cJSON *out_json_intervals(const struct cmp *m) {
    cJSON *o = cJSON_CreateObject(), *rows = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "level", INTERVAL_LEVEL);
    for (size_t i = 0; i < m->nrows; i++)
        if (m->rows[i].method)
            cJSON_AddItemToObject(rows, m->rows[i].name, out_json_interval_row(&m->rows[i]));
    cJSON_AddItemToObject(o, "rows", rows);
    return o;
}

static cJSON *out_json_count(const struct src_tally *t) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "ok", (double)t->ok);
    cJSON_AddNumberToObject(o, "sent", (double)t->sent);
    return o;
}

/* Each figure's requests: n ok / n sent per side. */
static cJSON *out_json_counts(const struct cmp *m) {
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *r = &m->rows[i];
        if ((!r->tb && !r->tc) || r->group == CMP_OPEN) continue; /* open_loop has its own */
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToObject(x, "baseline", r->tb ? out_json_count(r->tb) : cJSON_CreateNull());
        cJSON_AddItemToObject(x, "candidate", r->tc ? out_json_count(r->tc) : cJSON_CreateNull());
        cJSON_AddItemToObject(o, r->name, x);
    }
    return o;
}

static cJSON *out_json_not_available(const struct cmp *m) {
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *r = &m->rows[i];
        if ((r->b.ok && r->c.ok && (r->no_ratio || r->ratio.ok)) || r->group == CMP_OPEN) continue;
        cJSON *x = cJSON_CreateObject();
        if (!r->b.ok) out_json_add_str(x, "baseline", r->b.why);
        if (!r->c.ok) out_json_add_str(x, "candidate", r->c.why);
        if (!r->no_ratio && !r->ratio.ok) out_json_add_str(x, "ratio", r->ratio.why);
        cJSON_AddItemToObject(o, r->name, x);
    }
    return o;
}

static cJSON *out_json_tally(const char *side, const char *what, const struct src_tally *t) {
    cJSON *o = cJSON_CreateObject(), *e = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "side", side);
    cJSON_AddStringToObject(o, "measurement", what);
    cJSON_AddNumberToObject(o, "sent", (double)t->sent);
    cJSON_AddNumberToObject(o, "ok", (double)t->ok);
    cJSON_AddNumberToObject(o, "failed", (double)t->failed);
    for (size_t i = 0; i < t->nerrs; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddNumberToObject(x, "count", (double)t->errs[i].n);
        cJSON_AddItemToObject(x, "message", out_json_str(t->errs[i].message));
        out_json_add(e, t->errs[i].code, x);
    }
    cJSON_AddItemToObject(o, "errors", e);
    return o;
}

static cJSON *out_json_requests(const struct cmp *m) {
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        const char *role = k ? "candidate" : "baseline";
        if (s->dec.have) cJSON_AddItemToArray(a, out_json_tally(role, "decode", &s->dec.tally));
        for (size_t i = 0; i < s->nlv; i++) {
            char what[32];
            snprintf(what, sizeof what, "load c%d", s->lv[i].c);
            cJSON_AddItemToArray(a, out_json_tally(role, what, &s->lv[i].tally));
        }
        if (s->quiz) cJSON_AddItemToArray(a, out_json_tally(role, "quiz", &s->quiz->tally));
        for (size_t i = 0; i < s->rate.n; i++) {
            char what[64];
            snprintf(what, sizeof what, "rate %g/s", s->rate.r[i].rate);
            cJSON_AddItemToArray(a, out_json_tally(role, what, &s->rate.r[i].tally));
        }
    }
    return a;
}

static cJSON *out_json_runs(const struct cmp *m) {
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < 2; k++) {
        const struct side *s = k ? m->c : m->b;
        for (size_t i = 0; i < s->nruns; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "side", k ? "candidate" : "baseline");
            cJSON_AddStringToObject(o, "measurement", s->runs[i].what);
            cJSON_AddItemToObject(o, "file", out_json_str(s->runs[i].src->path));
            cJSON_AddItemToObject(o, "value",
                                  isfinite(s->runs[i].v) ? cJSON_CreateNumber(s->runs[i].v)
                                                         : cJSON_CreateNull());
            cJSON_AddItemToArray(a, o);
        }
    }
    return a;
}

/* The report's sentences (prose.h, verdict.h), written once for the document. */
struct out_json_prose {
    struct buf scale, mcnemar, verdict;
};

static cJSON *out_json_mcnemar(const struct cmp *m, const struct out_json_prose *p) {
    cJSON *o = cJSON_CreateObject();
    if (m->quiz.have_mcnemar) {
        cJSON_AddNumberToObject(o, "only_baseline_right", m->quiz.mc_b);
        cJSON_AddNumberToObject(o, "only_candidate_right", m->quiz.mc_c);
        cJSON_AddNumberToObject(o, "p", m->quiz.mc_p);
    }
    out_json_add_str(o, "text", buf_str(&p->mcnemar));
    if (m->fam.have) cJSON_AddItemToObject(o, "by_family", quiz_family_report_json(&m->fam));
    return o;
}

static cJSON *out_json_quality(const struct side *s) {
    if (!s->quiz) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "correct", (double)s->quiz->correct);
    cJSON_AddNumberToObject(o, "answered", (double)s->quiz->answered);
    cJSON_AddNumberToObject(o, "unanswered", (double)(s->quiz->questions - s->quiz->answered));
    cJSON_AddNumberToObject(o, "questions", (double)s->quiz->questions);
    return o;
}

static cJSON *out_json_xcheck(const struct cmp *m) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < m->xc.n; i++) {
        const struct xcheck_row *x = &m->xc.rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "side", x->side->role);
        cJSON_AddNumberToObject(o, "concurrency", x->c);
        cJSON_AddItemToObject(o, "file", out_json_str(x->src->path));
        if (x->ok) {
            cJSON_AddNumberToObject(o, "client_tokens_per_second", x->client);
            cJSON_AddNumberToObject(o, "client_low", x->client_lo);
            cJSON_AddNumberToObject(o, "client_high", x->client_hi);
            cJSON_AddNumberToObject(o, "server_tokens_per_second", x->server);
            cJSON_AddNumberToObject(o, "seconds", x->seconds);
            cJSON_AddNumberToObject(o, "log_lines", (double)x->lines);
            cJSON_AddBoolToObject(o, "differs", x->differs);
        } else {
            cJSON_AddStringToObject(o, "no_cross_check", x->why);
        }
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *out_json_strings(char *const *s, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(a, out_json_str(s[i]));
    return a;
}

/* The reference's keys: a, b, columns, rows, identical_answers, disagreements, quality_by_kind. */
static void out_json_reference(cJSON *o, const struct cmp *m) {
    cJSON *cols = cJSON_CreateArray();
    char ratio[340];
    snprintf(ratio, sizeof ratio, "%s / %s", m->cname, m->bname);
    cJSON_AddItemToObject(o, "a", out_json_side(m->b, m->bname));
    cJSON_AddItemToObject(o, "b", out_json_side(m->c, m->cname));
    cJSON_AddItemToArray(cols, out_json_str(m->bname));
    cJSON_AddItemToArray(cols, out_json_str(m->cname));
    cJSON_AddItemToArray(cols, out_json_str(ratio));
    cJSON_AddItemToObject(o, "columns", cols);
    cJSON_AddItemToObject(o, "rows", out_json_rows(m, CMP_MAIN));
    cJSON *ident = cJSON_AddObjectToObject(o, "identical_answers");
    cJSON_AddItemToObject(ident, "count",
                          m->quiz.have ? cJSON_CreateNumber((double)m->quiz.identical)
                                       : cJSON_CreateNull());
    cJSON_AddItemToObject(ident, "total",
                          m->quiz.have ? cJSON_CreateNumber((double)m->quiz.both)
                                       : cJSON_CreateNull());
    cJSON_AddItemToObject(ident, "asked",
                          m->quiz.have ? cJSON_CreateNumber((double)m->quiz.asked)
                                       : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "disagreements", out_json_disagreements(m));
    cJSON *kinds = cJSON_AddObjectToObject(o, "quality_by_kind");
    out_json_add(kinds, m->bname, out_json_by_kind(m->b->quiz));
    out_json_add(kinds, m->cname, out_json_by_kind(m->c->quiz));
}

static cJSON *out_json_reason(const char *why) {
    return why[0] ? out_json_str(why) : cJSON_CreateNull();
}

/* Each side's reason its client limited its figures (null: it did not), and
 * every figure so marked with each side's reason. */
static cJSON *out_json_limited(const struct cmp *m) {
    cJSON *o = cJSON_CreateObject(), *figures = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "baseline", out_json_reason(m->b->limited));
    cJSON_AddItemToObject(o, "candidate", out_json_reason(m->c->limited));
    for (size_t i = 0; i < m->nrows; i++) {
        const struct cmp_row *r = &m->rows[i];
        if (!cmp_row_limited(r)) continue;
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToObject(x, "baseline", out_json_reason(r->limited_b));
        cJSON_AddItemToObject(x, "candidate", out_json_reason(r->limited_c));
        cJSON_AddItemToObject(figures, r->name, x);
    }
    cJSON_AddItemToObject(o, "figures", figures);
    return o;
}

static cJSON *out_json_document(const struct cmp *m, const struct warnings *w,
                                const struct out_json_prose *p) {
    cJSON *o = cJSON_CreateObject();
    out_json_reference(o, m);
    cJSON_AddStringToObject(o, "tool", "sm-compare " SM_VERSION);
    cJSON_AddStringToObject(o, "time_scale", p->scale.len ? buf_str(&p->scale) : "real time");
    cJSON_AddItemToObject(o, "requests_per_figure", out_json_counts(m));
    cJSON_AddItemToObject(o, "intervals", out_json_intervals(m));
    cJSON_AddItemToObject(o, "decode", out_json_rows(m, CMP_DECODE));
    cJSON_AddItemToObject(o, "latency_seconds", out_json_rows(m, CMP_LATENCY));
    out_json_stream(o, m);
    cJSON *open = openloop_json_build(m);
    if (open) cJSON_AddItemToObject(o, "open_loop", open);
    cJSON *scaling = scaling_report_json(m);
    if (scaling) cJSON_AddItemToObject(o, "scaling", scaling);
    if (m->opts.have_price) {
        cJSON *c = cJSON_AddObjectToObject(o, "cost");
        cJSON_AddNumberToObject(c, "usd_per_hour", m->opts.price);
        cJSON_AddItemToObject(c, "rows", out_json_rows(m, CMP_COST));
    }
    cJSON *q = cJSON_AddObjectToObject(o, "quality");
    cJSON_AddItemToObject(q, "baseline", out_json_quality(m->b));
    cJSON_AddItemToObject(q, "candidate", out_json_quality(m->c));
    cJSON_AddItemToObject(o, "quality_rows", out_json_rows(m, CMP_KIND));
    cJSON_AddItemToObject(o, "not_available", out_json_not_available(m));
    cJSON_AddItemToObject(o, "requests", out_json_requests(m));
    cJSON_AddItemToObject(o, "runs", out_json_runs(m));
    cJSON *shards = shard_report_json(m);
    if (shards) cJSON_AddItemToObject(o, "shards", shards);
    cJSON_AddItemToObject(o, "mcnemar", out_json_mcnemar(m, p));
    cJSON_AddItemToObject(o, "server_log", out_json_xcheck(m));
    if (m->cw.n) cJSON_AddItemToObject(o, "cloudwatch", cloudwatch_report_json(m));
    cJSON *tok = tokreport_json(m);
    if (tok) cJSON_AddItemToObject(o, "server_tokens", tok);
    cJSON_AddItemToObject(o, "warnings", out_json_strings(w->items, w->n));
    cJSON_AddItemToObject(o, "client_limited", out_json_limited(m));
    cJSON_AddItemToObject(o, "verdict", out_json_str(buf_str(&p->verdict)));
    return o;
}

int out_json_render(const struct cmp *m, const struct warnings *w, struct buf *out) {
    struct out_json_prose p;
    cJSON *doc = NULL;
    char *text = NULL;
    buf_init(&p.scale, BUF_NO_CAP);
    buf_init(&p.mcnemar, BUF_NO_CAP);
    buf_init(&p.verdict, BUF_NO_CAP);
    int rc = prose_scale(m, &p.scale);
    if (!rc) rc = prose_mcnemar(m, &p.mcnemar);
    if (!rc) rc = verdict_build(m, &p.verdict);
    if (!rc) {
        doc = out_json_document(m, w, &p);
        text = doc ? cJSON_Print(doc) : NULL;
        rc = text ? buf_adds(out, text) : BUF_ERR_NOMEM;
    }
    if (!rc) rc = buf_addc(out, '\n');
    free(text);
    cJSON_Delete(doc);
    buf_free(&p.scale);
    buf_free(&p.mcnemar);
    buf_free(&p.verdict);
    return rc;
}
