#include "cstream.h"

#include <stdint.h>

#include "jsonw.h"
#include "tok.h"

/* A step's token: its text and made-up id and log probability. */
struct cstream_token {
    const char *text;
    size_t len;
    unsigned long id;
    double logprob;
    bool last;
    bool reasoning; /* a reasoning token (vLLM chat) */
    size_t tokens;  /* the tokens it stands for (several: a speculative step's) */
};

void cstream_init(struct cstream *c, const struct cont_request *r, const struct cont_answer *a,
                  const struct cont_meta *m) {
    *c = (struct cstream){.req = r, .ans = a, .meta = *m};
    c->reasoning_field = m->reasoning_field ? m->reasoning_field : "reasoning";
    bool vllm = r->kind == CONT_CHAT || r->kind == CONT_COMPLETION;
    c->step_tokens = vllm && m->spec_step > 1 ? m->spec_step : 1;
    size_t answer = a->tokens ? a->tokens : 1;
    c->steps = (answer + c->step_tokens - 1) / c->step_tokens + a->reasoning_tokens;
}

const char *cstream_content_type(enum cont_kind k) {
    return k == CONT_LMI ? "application/jsonlines" : "text/event-stream";
}

bool cstream_done(const struct cstream *c) {
    return c->done >= c->steps;
}

/* Whether the next step is a reasoning token's. */
static bool cstream_reasoning(const struct cstream *c) {
    return c->done < c->ans->reasoning_tokens;
}

/* The next token: up to the end of the next one, or all that is left on the last
 * step (of the reasoning, or of the whole). */
static struct cstream_token cstream_next(struct cstream *c) {
    bool think = cstream_reasoning(c);
    const struct buf *b = think ? &c->ans->reasoning : &c->ans->text;
    const char *s = b->data ? b->data : "";
    size_t len = b->len, *at = think ? &c->rat : &c->at;
    bool last = c->done + 1 >= c->steps;
    bool end_of = last || (think && c->done + 1 >= c->ans->reasoning_tokens);
    size_t n = think ? 1 : c->step_tokens, end = *at;
    for (size_t i = 0; i < n && !end_of; i++) end = tok_next(s, len, end);
    if (end_of) end = len;
    if (last) /* the answer's tokens not yet written */
        n = (c->ans->tokens ? c->ans->tokens : 1) + c->ans->reasoning_tokens - c->tokens_done;
    else if (think && end_of)
        n = c->ans->reasoning_tokens - c->tokens_done;
    struct cstream_token t = {s + *at, end - *at, 0, 0, last, think, n};
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < t.len; i++) h = (h ^ (unsigned char)t.text[i]) * 0x100000001b3ULL;
    t.id = (unsigned long)(h % 256000);
    t.logprob = -(double)(1 + (h >> 32) % 2000) / 1000.0;
    *at = end;
    return t;
}

static const char *cstream_finish(const struct cstream *c) {
    return c->ans->hit_length ? "length" : "stop";
}

/* vLLM's chunk head: {"id":..,"object":..,"created":..,"model":..,"choices":[ */
static int cstream_vllm_head(const struct cstream *c, struct buf *out) {
    bool chat = c->req->kind == CONT_CHAT;
    int rc = buf_adds(out, "data: {\"id\":");
    if (!rc) rc = jsonw_cstr(out, c->meta.id);
    if (!rc)
        rc = buf_addf(out, ",\"object\":\"%s\",\"created\":%lld,\"model\":",
                      chat ? "chat.completion.chunk" : "text_completion", c->meta.created);
    if (!rc) rc = jsonw_cstr(out, c->meta.model);
    return rc ? rc : buf_adds(out, ",\"choices\":[");
}

/* With continuous_usage_stats, a chunk's running usage: its completion tokens so far. */
static int cstream_running_usage(const struct cstream *c, size_t done, struct buf *out) {
    size_t p = c->req->prompt_tokens;
    if (!c->req->continuous_usage) return 0;
    return buf_addf(
        out, ",\"usage\":{\"prompt_tokens\":%zu,\"total_tokens\":%zu,\"completion_tokens\":%zu}", p,
        p + done, done);
}

static int cstream_vllm_role(const struct cstream *c, struct buf *out) {
    int rc = cstream_vllm_head(c, out);
    if (!rc)
        rc = buf_adds(out, "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                           "\"logprobs\":null,\"finish_reason\":null}],"
                           "\"prompt_token_ids\":null");
    if (!rc) rc = cstream_running_usage(c, 0, out);
    return rc ? rc : buf_adds(out, "}\n\n");
}

static int cstream_vllm_token(const struct cstream *c, const struct cstream_token *t,
                              struct buf *out) {
    bool chat = c->req->kind == CONT_CHAT;
    int rc = cstream_vllm_head(c, out);
    if (!rc && chat && t->reasoning)
        rc = buf_addf(out, "{\"index\":0,\"delta\":{\"%s\":", c->reasoning_field);
    else if (!rc)
        rc =
            buf_adds(out, chat ? "{\"index\":0,\"delta\":{\"content\":" : "{\"index\":0,\"text\":");
    if (!rc) rc = jsonw_str(out, t->text, t->len);
    if (!rc)
        rc = buf_adds(out, chat ? "},\"logprobs\":null,\"finish_reason\":"
                                : ",\"logprobs\":null,\"finish_reason\":");
    if (!rc) rc = t->last ? buf_addf(out, "\"%s\"", cstream_finish(c)) : buf_adds(out, "null");
    if (!rc && (t->last || !chat)) rc = buf_adds(out, ",\"stop_reason\":null");
    if (!rc && !chat) rc = buf_adds(out, ",\"prompt_token_ids\":null");
    if (!rc) rc = buf_adds(out, ",\"token_ids\":null}]");
    if (!rc && c->req->continuous_usage)
        rc = cstream_running_usage(c, c->tokens_done + t->tokens, out);
    else if (!rc && !chat)
        rc = buf_adds(out, ",\"usage\":null");
    return rc ? rc : buf_adds(out, "}\n\n");
}

static int cstream_vllm_usage(const struct cstream *c, struct buf *out) {
    size_t p = c->req->prompt_tokens, n = c->ans->tokens + c->ans->reasoning_tokens;
    int rc = cstream_vllm_head(c, out);
    if (!rc)
        rc = buf_addf(out,
                      "],\"usage\":{\"prompt_tokens\":%zu,\"total_tokens\":%zu,"
                      "\"completion_tokens\":%zu",
                      p, p + n, n);
    if (!rc && c->meta.prompt_details) rc = cont_prompt_details(&c->meta, out);
    return rc ? rc : buf_adds(out, "}}\n\n");
}

static int cstream_tgi_token(const struct cstream *c, const struct cstream_token *t,
                             struct buf *out) {
    int rc =
        buf_addf(out, "data:{\"index\":%zu,\"token\":{\"id\":%lu,\"text\":", c->done + 1, t->id);
    if (!rc) rc = jsonw_str(out, t->text, t->len);
    if (!rc)
        rc = buf_addf(out, ",\"logprob\":%.4f,\"special\":false},\"generated_text\":", t->logprob);
    if (!rc)
        rc = t->last ? jsonw_str(out, buf_str(&c->ans->text), c->ans->text.len)
                     : buf_adds(out, "null");
    if (!rc) rc = buf_adds(out, ",\"details\":");
    if (!rc && t->last && c->req->details)
        rc = buf_addf(out,
                      "{\"finish_reason\":\"%s\",\"generated_tokens\":%zu,\"seed\":null,"
                      "\"input_length\":%zu}",
                      c->ans->hit_length ? "length" : "eos_token", c->ans->tokens,
                      c->req->prompt_tokens);
    else if (!rc)
        rc = buf_adds(out, "null");
    return rc ? rc : buf_adds(out, "}\n\n");
}

static int cstream_lmi_token(const struct cstream *c, const struct cstream_token *t,
                             struct buf *out) {
    int rc = buf_addf(out, "{\"token\": {\"id\": %lu, \"text\": ", t->id);
    if (!rc) rc = jsonw_str(out, t->text, t->len);
    if (!rc) rc = buf_addf(out, ", \"log_prob\": %.4f}", t->logprob);
    if (!rc && t->last) rc = buf_adds(out, ", \"generated_text\": ");
    if (!rc && t->last) rc = jsonw_str(out, buf_str(&c->ans->text), c->ans->text.len);
    if (!rc && t->last && c->req->details)
        rc = buf_addf(
            out,
            ", \"details\": {\"finish_reason\": \"%s\", \"generated_tokens\": %zu, \"inputs\": ",
            c->ans->hit_length ? "length" : "eos_token", c->ans->tokens);
    if (!rc && t->last && c->req->details)
        rc = jsonw_str(out, buf_str(&c->req->prompt), c->req->prompt.len);
    if (!rc && t->last && c->req->details) rc = buf_addc(out, '}');
    return rc ? rc : buf_adds(out, "}\n");
}

/* Records the end of the event just appended. */
static void cstream_mark(struct cstream_events *ev, const struct buf *out) {
    if (ev && ev->n < CSTREAM_MAX_EVENTS) ev->ends[ev->n++] = out->len;
}

int cstream_step(struct cstream *c, struct buf *out, struct cstream_events *ev) {
    bool vllm = c->req->kind == CONT_CHAT || c->req->kind == CONT_COMPLETION;
    struct cstream_token t = cstream_next(c);
    int rc = 0;
    if (ev) ev->n = 0;
    if (c->done == 0 && c->req->kind == CONT_CHAT) {
        rc = cstream_vllm_role(c, out);
        cstream_mark(ev, out);
    }
    if (!rc) {
        rc = vllm                       ? cstream_vllm_token(c, &t, out)
             : c->req->kind == CONT_TGI ? cstream_tgi_token(c, &t, out)
                                        : cstream_lmi_token(c, &t, out);
        cstream_mark(ev, out);
    }
    if (!rc && t.last && vllm && c->req->include_usage) {
        rc = cstream_vllm_usage(c, out);
        cstream_mark(ev, out);
    }
    if (!rc && t.last && vllm) {
        rc = buf_adds(out, "data: [DONE]\n\n");
        cstream_mark(ev, out);
    }
    c->done++;
    c->tokens_done += t.tokens;
    return rc ? CSTREAM_ERR_NOMEM : CSTREAM_OK;
}
