#include "call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrub.h"
#include "skew.h"

struct call {
    struct call_spec spec; /* its strings point into the copies below */
    char *endpoint, *variant, *phase, *question, *kind, *answer;
    char *fixed_json; /* the fixed fields as every record of the call writes them */
};

/* A malloc'ed copy of s, or NULL for NULL; false when out of memory. */
static bool call_dup(const char *s, char **out) {
    *out = s ? strdup(s) : NULL;
    return !s || *out;
}

int call_new(const struct call_spec *spec, struct call **out) {
    const struct rec_record *f = &spec->fixed;
    struct call *c = calloc(1, sizeof *c);
    if (!c) return CALL_ERR_NOMEM;
    if (!call_dup(f->endpoint, &c->endpoint) || !call_dup(f->variant, &c->variant) ||
        !call_dup(f->phase, &c->phase) || !call_dup(f->question, &c->question) ||
        !call_dup(f->kind, &c->kind) || !call_dup(f->answer, &c->answer)) {
        call_free(c);
        return CALL_ERR_NOMEM;
    }
    c->spec = *spec;
    c->spec.fixed = (struct rec_record){
        .endpoint = c->endpoint,
        .variant = c->variant,
        .phase = c->phase,
        .batch = f->batch,
        .question = c->question,
        .kind = c->kind,
        .max_tokens = f->max_tokens,
        .answer = c->answer,
        .correct = -1,
    };
    if (!(c->fixed_json = rec_fixed_json(&c->spec.fixed))) {
        call_free(c);
        return CALL_ERR_NOMEM;
    }
    c->spec.fixed.fixed_json = c->fixed_json;
    *out = c;
    return CALL_OK;
}

void call_free(struct call *c) {
    if (!c) return;
    free(c->endpoint);
    free(c->variant);
    free(c->phase);
    free(c->question);
    free(c->kind);
    free(c->answer);
    free(c->fixed_json);
    free(c);
}

size_t call_file(const struct call *c) {
    return c->spec.file;
}

bool call_scored(const struct call *c) {
    return c->spec.pattern != NULL;
}

void call_result_init(struct call_result *out) {
    *out = (struct call_result){0};
    reply_init(&out->reply);
}

void call_result_clear(struct call_result *out) {
    reply_clear(&out->reply);
    call_result_init(out);
}

/* A streamed 2xx reply as a reply: its counts (the tokens received so far when
 * the stream failed before saying), its text and how it failed, every string
 * scrubbed (scrub.h) as reply.h's are. */
static int call_reply_stream(const struct call_stream *s, bool want_text, struct reply *r) {
    r->prompt_tokens = s->prompt_tokens;
    r->completion_tokens = s->completion_tokens >= 0 ? s->completion_tokens
                           : s->error_code           ? s->chunk_tokens
                                                     : -1;
    bool ok =
        (!want_text || (r->text = strdup(s->text ? s->text : ""))) &&
        (!s->finish_reason || (r->finish_reason = strdup(s->finish_reason))) &&
        (!s->error_code || ((r->error_code = strdup(s->error_code)) &&
                            (r->error_message = strdup(s->error_message ? s->error_message : ""))));
    char *const strings[] = {r->text, r->finish_reason, r->error_code, r->error_message};
    for (size_t i = 0; ok && i < sizeof strings / sizeof strings[0]; i++)
        if (strings[i]) scrub_in_place(strings[i]); /* a server may echo the request */
    return ok ? CALL_OK : CALL_ERR_NOMEM;
}

/* The reply, or the plugin's own "socket" failure when none came. */
static int call_reply(const struct call_reply *in, bool want_text, struct reply *r) {
    if (in->status >= 200 && in->status < 300 && in->stream) {
        r->status = in->status;
        return call_reply_stream(in->stream, want_text, r);
    }
    if (in->status == 0) {
        r->error_code = strdup("socket");
        r->error_message = strdup("the connection closed before the reply");
        return r->error_code && r->error_message ? CALL_OK : CALL_ERR_NOMEM;
    }
    const char *body = in->body ? in->body : "";
    size_t len = in->body ? in->len : 0;
    reply_trim(in->content_length, &body, &len);
    return reply_parse_with(in->status, in->error_type, body, len, want_text ? REPLY_TEXT : 0, r)
               ? CALL_ERR_NOMEM
               : CALL_OK;
}

/* Decode: a reply of another length than asked is no measurement. */
static void call_check_tokens(const struct call_spec *s, struct call_result *out) {
    long want = s->expect_tokens, got = out->reply.completion_tokens;
    struct rec_record *rec = &out->rec;
    if (got < 0) {
        rec->ok = false;
        rec->error_code = "no_token_count";
        rec->error_message =
            "the reply does not say how many tokens it generated (no usage or details)";
    } else if (got != want) {
        const char *what = got < want && s->ignore_eos ? "the container ignored ignore_eos: "
                           : got > want                ? "the container passed max_tokens: "
                                                       : "";
        snprintf(out->message, sizeof out->message, "%sasked %ld, got %ld", what, want, got);
        rec->ok = false;
        rec->error_code = "token_mismatch";
        rec->error_message = out->message;
    }
}

/* Quiz: the reply's scored prefix stripped (cut in place) and searched with the
 * question's pattern (quiz.h: the same bounds under both engines). */
static void call_check_quiz(const struct call_spec *s, struct call_result *out) {
    struct reply *r = &out->reply;
    out->rec.correct = 0;
    if (!r->text || r->error_code) return;
    size_t off, n;
    bool found;
    int rc = quiz_score(s->pattern, r->text, strlen(r->text), &off, &n, &found);
    r->text[off + n] = '\0';
    out->rec.text = r->text + off;
    out->rec.correct = rc == QUIZ_OK && found;
    if (n > CALL_TEXT_MAX) { /* kept bounded: cut before a UTF-8 character */
        size_t keep = CALL_TEXT_MAX;
        while (keep > 0 && ((unsigned char)out->rec.text[keep] & 0xC0) == 0x80) keep--;
        r->text[off + keep] = '\0';
    }
}

/* Whether the container refused stream_options.continuous_usage_stats: a 400 (or
 * SageMaker's 424 ModelError of a container's reply: its OriginalStatusCode 400,
 * or none said, as on the OpenAI route) whose message names the field, as an
 * older vLLM's request validation does. */
static bool call_refused_usage(const struct call_reply *in, const struct reply *r) {
    bool bad_request =
        in->status == 400 ||
        (in->status == 424 && (r->original_status == 400 || r->original_status == 0));
    return bad_request && r->error_message &&
           strstr(r->error_message, "continuous_usage_stats") != NULL;
}

int call_finish(const struct call *c, const struct call_reply *in, struct call_result *out) {
    const struct call_spec *s = &c->spec;
    struct reply *r = &out->reply;
    if (call_reply(in, s->pattern || in->want_text, r) != CALL_OK) {
        call_result_clear(out);
        return CALL_ERR_NOMEM;
    }
    out->skewed = r->error_code && skew_offset(in->status, r->error_code, r->error_message,
                                               in->date, in->now, &out->skew_offset) == 0;
    out->plain_usage = !in->retried && call_refused_usage(in, r);
    out->retry = (out->skewed || out->plain_usage) && !in->retried;
    struct rec_record *rec = &out->rec;
    *rec = s->fixed;
    rec->prompt_tokens = r->prompt_tokens;
    rec->completion_tokens = r->completion_tokens;
    rec->reasoning_tokens = in->stream ? in->stream->reasoning_tokens : r->reasoning_tokens;
    rec->finish_reason = r->finish_reason;
    rec->status = in->status;
    rec->ok = r->error_code == NULL;
    rec->cached_tokens = in->stream ? in->stream->cached_tokens : r->cached_tokens;
    /* a count that cannot be a share of the prompt's is not kept */
    rec->has_cached_tokens = rec->ok && rec->cached_tokens >= 0 && rec->prompt_tokens >= 0 &&
                             rec->cached_tokens <= rec->prompt_tokens;
    rec->error_code = r->error_code;
    rec->error_message = r->error_message;
    rec->original_status = r->original_status;
    rec->thread = in->thread;
    rec->t_start_us = in->t_start_us;
    rec->t_end_us = in->t_end_us;
    rec->wall_start_us = in->wall_start_us;
    rec->t_intended_us = in->t_due_us;
    rec->server_us = reply_service_us(in->service_us);
    rec->has_server_us = rec->server_us >= 0;
    rec->has_conn = in->conn_timed;
    rec->connect_us = in->connect_us;
    rec->tls_us = in->tls_us;
    if (in->stream) {
        rec->t_headers_us = in->stream->t_headers_us > 0 ? in->stream->t_headers_us : in->t_end_us;
        rec->t_first_token_us = in->stream->t_first_us;
        rec->t_first_output_us = in->stream->t_first_output_us;
        rec->chunk_gaps_us = in->stream->gaps_us;
        rec->chunk_tokens = in->stream->tokens;
        rec->n_chunks = in->stream->n_chunks;
        rec->n_received = in->stream->n_received;
        rec->itl_per_token = in->stream->itl_per_token;
    }
    if (rec->ok && s->expect_tokens >= 0) call_check_tokens(s, out);
    if (s->pattern) call_check_quiz(s, out);
    return CALL_OK;
}
