#include "schunk.h"

#include <math.h>
#include <string.h>

#include "jscan.h"

/* The walk over one chunk: the scanner, the output, and what the top level
 * said (its keys may come in any order, so the kind is settled at the end). */
struct schunk_walk {
    struct jscan s;
    struct buf *scratch;
    size_t room;   /* the chunk's length: no string decodes longer than it is written */
    bool reserved; /* scratch has that room (made at the first escaped string) */
    struct schunk *c;
    bool choices, usage, token, outputs, details, generated_text, error, flat_error;
    bool text_choice; /* a choice with "text": a completions chunk */
    bool choice0;     /* the choice with index 0 was read */
    int64_t token_id;
    struct schunk_str message, type, code; /* top-level fields of a flat error */
};

static const struct schunk_str empty = {"", 0};

/* A key equal to a literal: its length known at compile time rejects most
 * keys at once (this runs for every key of every chunk). */
#define SCHUNK_KEY_IS(key, lit)                                                                    \
    ((key)->n == sizeof(lit) - 1 && !(key)->escaped &&                                             \
     memcmp((key)->s, (lit), sizeof(lit) - 1) == 0)

void schunk_clear(struct schunk *c) {
    memset(c, 0, sizeof *c);
    c->content = c->reasoning = c->finish_reason = empty;
    c->error_type = c->error_code = c->error_message = empty;
    c->logprob_tokens = -1;
    c->prompt_tokens = c->completion_tokens = c->reasoning_tokens = c->cached_tokens = -1;
}

static int schunk_nomem(struct schunk_walk *w) {
    w->s.err = "out of memory";
    return -1;
}

/* A string, decoded when it has escapes; null or any other value leaves *out
 * empty (a field of an unexpected type is ignored, not an error). */
static int schunk_read_str(struct schunk_walk *w, struct schunk_str *out) {
    struct jscan_str j;
    *out = empty;
    if (jscan_peek(&w->s) != '"') return jscan_null(&w->s) == 1 ? 0 : jscan_skip(&w->s);
    if (jscan_string(&w->s, &j) < 0) return -1;
    if (!j.escaped) {
        out->s = j.s;
        out->n = j.n;
        return 0;
    }
    /* Room for the whole chunk, made once: the data never moves during a parse, so
     * the strings decoded before stay where they are. */
    if (!w->reserved) {
        if (!buf_grow(w->scratch, w->room)) return schunk_nomem(w);
        buf_truncate(w->scratch, w->scratch->len - w->room);
        w->reserved = true;
    }
    size_t at = w->scratch->len;
    if (jscan_str_decode(&j, w->scratch) != BUF_OK) return schunk_nomem(w);
    out->s = w->scratch->data + at;
    out->n = w->scratch->len - at;
    return 0;
}

/* A string as read_str, or a number or boolean as written (an error "code"). */
static int schunk_read_scalar(struct schunk_walk *w, struct schunk_str *out) {
    int c = jscan_peek(&w->s);
    if (c == '"' || c == 'n' || c == '{' || c == '[') return schunk_read_str(w, out);
    const char *at = w->s.p;
    if (jscan_skip(&w->s) < 0) return -1;
    out->s = at;
    out->n = (size_t)(w->s.p - at);
    return 0;
}

/* A whole number; -1 for null or anything else. */
static int schunk_read_count(struct schunk_walk *w, int64_t *out) {
    int c = jscan_peek(&w->s);
    double d;
    *out = -1;
    if (c != '-' && (c < '0' || c > '9')) return jscan_null(&w->s) == 1 ? 0 : jscan_skip(&w->s);
    struct jscan as_int = w->s; /* integers take the fast path, without strtod */
    if (jscan_int(&as_int, out) == 0) {
        w->s = as_int;
        return 0;
    }
    *out = -1;
    if (jscan_number(&w->s, &d) < 0) return -1;
    if (d == floor(d) && fabs(d) < 9e15) *out = (int64_t)d;
    return 0;
}

static int schunk_read_bool(struct schunk_walk *w, bool *out) {
    int c = jscan_peek(&w->s);
    if (c == 't' || c == 'f') return jscan_bool(&w->s, out);
    return jscan_skip(&w->s);
}

/* Counts the elements of an array (null or another value: -1). */
static int schunk_count_items(struct schunk_walk *w, int *out) {
    size_t count = 0;
    int more;
    *out = -1;
    if (jscan_peek(&w->s) != '[') return jscan_skip(&w->s);
    if (jscan_array(&w->s) < 0) return -1;
    while ((more = jscan_item(&w->s, &count)) > 0)
        if (jscan_skip(&w->s) < 0) return -1;
    if (more == 0) *out = (int)(count > 1000000 ? 1000000 : count);
    return more;
}

/* Calls fn for each member of an object; null or another value is skipped. */
typedef int member_fn(struct schunk_walk *w, const struct jscan_str *key, void *arg);

static int schunk_each_member(struct schunk_walk *w, member_fn *fn, void *arg) {
    struct jscan_str key;
    size_t count = 0;
    int more;
    if (jscan_peek(&w->s) != '{') return jscan_skip(&w->s);
    if (jscan_object(&w->s) < 0) return -1;
    while ((more = jscan_member(&w->s, &count, &key)) > 0)
        if (fn(w, &key, arg) < 0) return -1;
    return more;
}

/* One element of "choices", read into its own chunk; kept when its index is 0. */
struct schunk_choice {
    int64_t index;
    struct schunk_str content, reasoning, finish;
    int logprob_tokens;
    bool text;
};

static int schunk_logprobs_member(struct schunk_walk *w, const struct jscan_str *key, void *arg) {
    struct schunk_choice *ch = arg;
    if (SCHUNK_KEY_IS(key, "content") || SCHUNK_KEY_IS(key, "tokens"))
        return schunk_count_items(w, &ch->logprob_tokens);
    return jscan_skip(&w->s);
}

static int schunk_delta_member(struct schunk_walk *w, const struct jscan_str *key, void *arg) {
    struct schunk_choice *ch = arg;
    if (SCHUNK_KEY_IS(key, "content")) return schunk_read_str(w, &ch->content);
    if (SCHUNK_KEY_IS(key, "reasoning_content") || SCHUNK_KEY_IS(key, "reasoning"))
        return schunk_read_str(w, &ch->reasoning);
    return jscan_skip(&w->s);
}

static int schunk_choice_member(struct schunk_walk *w, const struct jscan_str *key, void *arg) {
    struct schunk_choice *ch = arg;
    if (SCHUNK_KEY_IS(key, "index")) return schunk_read_count(w, &ch->index);
    if (SCHUNK_KEY_IS(key, "delta")) return schunk_each_member(w, schunk_delta_member, ch);
    if (SCHUNK_KEY_IS(key, "text")) {
        ch->text = true;
        return schunk_read_str(w, &ch->content);
    }
    if (SCHUNK_KEY_IS(key, "logprobs")) return schunk_each_member(w, schunk_logprobs_member, ch);
    if (SCHUNK_KEY_IS(key, "finish_reason")) return schunk_read_str(w, &ch->finish);
    return jscan_skip(&w->s);
}

static int schunk_read_choices(struct schunk_walk *w) {
    size_t count = 0;
    int more;
    if (jscan_peek(&w->s) != '[') return jscan_skip(&w->s);
    w->choices = true;
    if (jscan_array(&w->s) < 0) return -1;
    while ((more = jscan_item(&w->s, &count)) > 0) {
        struct schunk_choice ch = {.index = 0, .logprob_tokens = -1};
        ch.content = ch.reasoning = ch.finish = empty;
        if (schunk_each_member(w, schunk_choice_member, &ch) < 0) return -1;
        if (ch.index != 0 || w->choice0) continue;
        w->choice0 = true;
        w->text_choice = ch.text;
        w->c->content = ch.content;
        w->c->reasoning = ch.reasoning;
        w->c->finish_reason = ch.finish;
        w->c->logprob_tokens = ch.logprob_tokens;
    }
    return more;
}

static int schunk_usage_details_member(struct schunk_walk *w, const struct jscan_str *key,
                                       void *arg) {
    (void)arg;
    if (SCHUNK_KEY_IS(key, "reasoning_tokens"))
        return schunk_read_count(w, &w->c->reasoning_tokens);
    return jscan_skip(&w->s);
}

/* vLLM (--enable-prompt-tokens-details) and OpenAI: the prompt tokens its prefix cache served. */
static int schunk_prompt_details_member(struct schunk_walk *w, const struct jscan_str *key,
                                        void *arg) {
    (void)arg;
    if (SCHUNK_KEY_IS(key, "cached_tokens")) return schunk_read_count(w, &w->c->cached_tokens);
    return jscan_skip(&w->s);
}

static int schunk_usage_member(struct schunk_walk *w, const struct jscan_str *key, void *arg) {
    (void)arg;
    if (SCHUNK_KEY_IS(key, "prompt_tokens_details"))
        return schunk_each_member(w, schunk_prompt_details_member, NULL);
    if (SCHUNK_KEY_IS(key, "prompt_tokens")) return schunk_read_count(w, &w->c->prompt_tokens);
    if (SCHUNK_KEY_IS(key, "completion_tokens"))
        return schunk_read_count(w, &w->c->completion_tokens);
    if (SCHUNK_KEY_IS(key, "completion_tokens_details"))
        return schunk_each_member(w, schunk_usage_details_member, NULL);
    return jscan_skip(&w->s);
}

static int schunk_token_member(struct schunk_walk *w, const struct jscan_str *key, void *arg) {
    (void)arg;
    if (SCHUNK_KEY_IS(key, "text")) return schunk_read_str(w, &w->c->content);
    if (SCHUNK_KEY_IS(key, "special") || SCHUNK_KEY_IS(key, "special_token"))
        return schunk_read_bool(w, &w->c->special);
    if (SCHUNK_KEY_IS(key, "id")) return schunk_read_count(w, &w->token_id);
    return jscan_skip(&w->s);
}

static int schunk_details_member(struct schunk_walk *w, const struct jscan_str *key, void *arg) {
    (void)arg;
    w->details = true;
    if (SCHUNK_KEY_IS(key, "finish_reason")) return schunk_read_str(w, &w->c->finish_reason);
    if (SCHUNK_KEY_IS(key, "generated_tokens"))
        return schunk_read_count(w, &w->c->completion_tokens);
    if (SCHUNK_KEY_IS(key, "input_length") || SCHUNK_KEY_IS(key, "prompt_tokens"))
        return schunk_read_count(w, &w->c->prompt_tokens);
    return jscan_skip(&w->s);
}

static int schunk_error_member(struct schunk_walk *w, const struct jscan_str *key, void *arg) {
    (void)arg;
    if (SCHUNK_KEY_IS(key, "message")) return schunk_read_str(w, &w->c->error_message);
    if (SCHUNK_KEY_IS(key, "type")) return schunk_read_str(w, &w->c->error_type);
    if (SCHUNK_KEY_IS(key, "code")) return schunk_read_scalar(w, &w->c->error_code);
    return jscan_skip(&w->s);
}

static int schunk_read_outputs(struct schunk_walk *w) {
    size_t count = 0;
    int more;
    if (jscan_peek(&w->s) != '[') return jscan_skip(&w->s);
    w->outputs = true;
    if (jscan_array(&w->s) < 0) return -1;
    while ((more = jscan_item(&w->s, &count)) > 0) {
        struct schunk_str s;
        if (schunk_read_str(w, &s) < 0) return -1;
        if (count == 1) w->c->content = s;
    }
    return more;
}

static int schunk_top_member(struct schunk_walk *w, const struct jscan_str *key, void *arg) {
    (void)arg;
    int c;
    if (SCHUNK_KEY_IS(key, "choices")) return schunk_read_choices(w);
    if (SCHUNK_KEY_IS(key, "usage")) {
        w->usage = jscan_peek(&w->s) == '{';
        return schunk_each_member(w, schunk_usage_member, NULL);
    }
    if (SCHUNK_KEY_IS(key, "token")) {
        w->token = jscan_peek(&w->s) == '{';
        return schunk_each_member(w, schunk_token_member, NULL);
    }
    if (SCHUNK_KEY_IS(key, "details")) return schunk_each_member(w, schunk_details_member, NULL);
    if (SCHUNK_KEY_IS(key, "generated_text")) {
        w->generated_text = jscan_peek(&w->s) == '"';
        return jscan_skip(&w->s);
    }
    if (SCHUNK_KEY_IS(key, "outputs")) return schunk_read_outputs(w);
    if (SCHUNK_KEY_IS(key, "error")) {
        c = jscan_peek(&w->s);
        w->error = c == '{' || c == '"';
        return c == '{' ? schunk_each_member(w, schunk_error_member, NULL)
                        : schunk_read_str(w, &w->c->error_message);
    }
    if (SCHUNK_KEY_IS(key, "error_type")) return schunk_read_str(w, &w->c->error_type);
    if (SCHUNK_KEY_IS(key, "object")) {
        struct schunk_str s;
        if (schunk_read_str(w, &s) < 0) return -1;
        w->flat_error = s.n == 5 && memcmp(s.s, "error", 5) == 0;
        return 0;
    }
    if (SCHUNK_KEY_IS(key, "message")) return schunk_read_str(w, &w->message);
    if (SCHUNK_KEY_IS(key, "type")) return schunk_read_str(w, &w->type);
    if (SCHUNK_KEY_IS(key, "code")) return schunk_read_scalar(w, &w->code);
    return jscan_skip(&w->s);
}

static bool schunk_str_is(struct schunk_str s, const char *lit) {
    return s.n == strlen(lit) && memcmp(s.s, lit, s.n) == 0;
}

/* Settles the kind, format and token count from what the walk saw. */
static void schunk_settle(struct schunk_walk *w) {
    struct schunk *c = w->c;
    bool lmi_error = w->details && schunk_str_is(c->finish_reason, "error");
    if (w->flat_error) {
        if (!c->error_message.n) c->error_message = w->message;
        if (!c->error_type.n) c->error_type = w->type;
    }
    if ((w->error || w->flat_error) && !c->error_code.n) c->error_code = w->code;
    if (w->error || w->flat_error || lmi_error) {
        c->kind = SCHUNK_ERROR;
        if (lmi_error && !c->error_message.n) {
            c->error_message.s = "the container ended the generation with finish_reason \"error\"";
            c->error_message.n = strlen(c->error_message.s);
        }
        c->content = c->reasoning = empty;
        c->format = w->token ? SCHUNK_FMT_TOKEN : SCHUNK_FMT_NONE;
        return;
    }
    c->final = w->token && (w->generated_text || w->details);
    if (w->choices) {
        c->format = w->text_choice ? SCHUNK_FMT_TEXT : SCHUNK_FMT_CHAT;
        if (c->logprob_tokens > 0)
            c->tokens = c->logprob_tokens;
        else
            c->tokens = c->content.n || c->reasoning.n ? 1 : 0;
    } else if (w->token) {
        c->format = SCHUNK_FMT_TOKEN;
        c->tokens = 1;
        if (c->special) c->content = empty;
    } else if (w->outputs) {
        c->format = SCHUNK_FMT_OUTPUTS;
        c->tokens = c->content.n ? 1 : 0;
    } else if (!w->usage && !w->details && !w->generated_text)
        c->kind = SCHUNK_OTHER;
}

static bool schunk_is_done(const char *p, size_t n) {
    while (n && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++, n--;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\n')) n--;
    return n == 6 && memcmp(p, "[DONE]", 6) == 0;
}

int schunk_parse(const char *data, size_t n, struct buf *scratch, struct schunk *out,
                 struct buf *err) {
    schunk_clear(out);
    if (schunk_is_done(data, n)) {
        out->kind = SCHUNK_DONE;
        return 0;
    }
    buf_reset(scratch);
    struct schunk_walk w = {.scratch = scratch, .room = n, .c = out, .token_id = -1};
    w.message = w.type = w.code = empty;
    jscan_init(&w.s, data, n);
    int rc;
    if (jscan_peek(&w.s) == '{')
        rc = schunk_each_member(&w, schunk_top_member, NULL);
    else {
        rc = jscan_skip(&w.s);
        out->kind = SCHUNK_OTHER;
    }
    if (rc == 0 && jscan_peek(&w.s) != 0) rc = jscan_fail(&w.s, "text after the JSON value");
    if (rc < 0) {
        bool oom = w.s.err && strcmp(w.s.err, "out of memory") == 0;
        if (err &&
            (oom ? buf_adds(err, "stream chunk: out of memory")
                 : buf_addf(err, "stream chunk: %s at byte %zu", w.s.err ? w.s.err : "bad JSON",
                            (size_t)((w.s.err_at ? w.s.err_at : w.s.p) - data))) != BUF_OK)
            oom = true;
        schunk_clear(out);
        return oom ? SCHUNK_ERR_NOMEM : SCHUNK_ERR_JSON;
    }
    if (out->kind == SCHUNK_DATA) schunk_settle(&w);
    return 0;
}
