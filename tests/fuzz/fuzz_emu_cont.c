/* Fuzzes the emulator's container body parsers (vLLM chat and completions,
 * TGI, LMI, and the OpenAI route's chat) and the streamed replies they lead
 * to. Input: one control byte (bits 0-1 the format, 2-3 the Content-Type, 4 a
 * short context, 5 a short default length, 6 the OpenAI route, 7 PayloadParts
 * of 3 bytes), then the body.
 *
 * A rejected body gets the format's own status, a one-line message, and the
 * JSON error body cont_error_body writes around it. An
 * accepted one has lengths in range (max_tokens given and at least 1, or not
 * given at all; prompt plus completion within the context), its answer obeys
 * them, and the reply is JSON whose text and usage agree with the answer. Its
 * stream, framed as event-stream messages and as plain bytes, reads back with
 * the client's decoder (common/sstream.h) as the answer's text, a token a step,
 * with the usage or details the body asked for. The prompt's token blocks for
 * the prefix cache (pfx.h) cover exactly the tokens usage counts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cont.h"
#include "fault.h"
#include "pfx.h"
#include "rstream.h"
#include "sstream.h"
#include "tok.h"

static const char *const fuzz_formats[] = {"vllm", "tgi", "lmi", "vllm"};
static const char *const fuzz_types[] = {"application/json", "Application/JSON; charset=utf-8",
                                         NULL, "text/plain"};

struct fuzz_case {
    struct model_profile p;
    const char *content_type;
    bool json_type;    /* one of the application/json types */
    bool openai;       /* the OpenAI route's parser */
    const cJSON *root; /* the body as JSON, or NULL */
};

static void fuzz_profile(uint8_t control, struct model_profile *p) {
    struct buf err;
    buf_init(&err, 256);
    if (model_builtin("bf16-l4", p) || model_set(p, "format", fuzz_formats[control & 3], &err) ||
        ((control & 16) && model_set(p, "max_model_len", "48", &err)) ||
        ((control & 32) && model_set(p, "default_tokens", "3", &err)))
        abort();
    buf_free(&err);
}

static bool fuzz_is(const cJSON *o, const char *name, const char *value) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) && strcmp(v->valuestring, value) == 0;
}

static bool fuzz_is_number(const cJSON *o, const char *name, double value) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) && v->valuedouble == value;
}

/* The container's error body: JSON of the format's shape, naming status. */
static void fuzz_check_rejected(const struct fuzz_case *c, int status, const struct buf *why) {
    struct buf body;
    buf_init(&body, BUF_NO_CAP);
    if (why->len == 0 || memchr(why->data, '\n', why->len) ||
        cont_error_body(c->p.format, status, buf_str(why), &body))
        abort();
    cJSON *j = cJSON_Parse(buf_str(&body));
    buf_free(&body);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
    switch (c->p.format) {
    case MODEL_VLLM:
        if (status != 400 && status != 415 && !(c->openai && status == 404)) abort();
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "message")) ||
            !fuzz_is_number(e, "code", status) || (status == 415) == c->json_type)
            abort();
        break;
    case MODEL_TGI:
        if ((status != 400 && status != 422) || !cJSON_IsString(e) ||
            !fuzz_is(j, "error_type", "validation"))
            abort();
        break;
    case MODEL_LMI:
        if (status != 400 || !fuzz_is_number(j, "code", 400) ||
            !fuzz_is(j, "type", "BadRequestException") ||
            !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "message")))
            abort();
        break;
    }
    cJSON_Delete(j);
}

/* Whether the body gives a length field: a value that is not null. */
static bool fuzz_given(const cJSON *o, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return v && !cJSON_IsNull(v);
}

/* The lengths of an accepted request against the body and the profile. */
static void fuzz_check_request(const struct fuzz_case *c, const struct cont_request *r) {
    const struct model_profile *p = &c->p;
    bool vllm = p->format == MODEL_VLLM, chat = r->kind == CONT_CHAT;
    const cJSON *params = vllm ? c->root : cJSON_GetObjectItemCaseSensitive(c->root, "parameters");
    bool given = vllm ? fuzz_given(params, "max_tokens") ||
                            (chat && fuzz_given(params, "max_completion_tokens"))
                      : fuzz_given(params, "max_new_tokens");
    if (!cJSON_IsObject(c->root) || given != (r->max_tokens != CONT_NOT_GIVEN)) abort();
    if (vllm ? !(chat || r->kind == CONT_COMPLETION)
             : r->kind != (p->format == MODEL_TGI ? CONT_TGI : CONT_LMI))
        abort();
    if (r->max_tokens != CONT_NOT_GIVEN && r->max_tokens < 1) abort();
    size_t want = r->max_tokens != CONT_NOT_GIVEN ? (size_t)r->max_tokens
                  : vllm                          ? 0
                                                  : p->default_tokens;
    if (r->prompt_tokens >= p->max_model_len || want > p->max_model_len - r->prompt_tokens) abort();
    if (r->min_tokens < 0 || (r->max_tokens != CONT_NOT_GIVEN && r->min_tokens > r->max_tokens))
        abort();
    if (!vllm && r->min_tokens) abort();
    size_t text = tok_count(r->prompt.data, r->prompt.len);
    if (chat ? r->prompt_tokens < text + 2 : r->prompt_tokens != text + 1) abort();
}

/* The answer obeys the lengths asked for. */
static void fuzz_check_answer(const struct fuzz_case *c, const struct cont_request *r,
                              const struct cont_answer *a) {
    size_t limit = r->max_tokens != CONT_NOT_GIVEN ? (size_t)r->max_tokens
                                                   : c->p.max_model_len - r->prompt_tokens;
    size_t floor = (size_t)r->min_tokens < limit ? (size_t)r->min_tokens : limit;
    if (a->tokens != tok_count(a->text.data, a->text.len) || a->tokens > limit ||
        a->tokens < floor || (r->ignore_eos && (a->tokens != limit || !a->hit_length)))
        abort();
}

/* The reply: JSON with the answer's text and counts. */
static void fuzz_check_reply(const struct cont_request *r, const struct cont_answer *a) {
    struct buf out;
    struct cont_meta m = {"chatcmpl-fuzz", 1440938160, "emulated-model", NULL, false, 0, NULL};
    buf_init(&out, BUF_NO_CAP);
    if (cont_reply(r, a, &m, &out)) abort();
    cJSON *j = cJSON_Parse(buf_str(&out)), *one = j;
    const cJSON *text, *usage = cJSON_GetObjectItemCaseSensitive(j, "usage");
    if (r->kind == CONT_TGI) one = cJSON_GetArrayItem(j, 0);
    if (r->kind == CONT_TGI || r->kind == CONT_LMI) {
        text = cJSON_GetObjectItemCaseSensitive(one, "generated_text");
        const cJSON *details = cJSON_GetObjectItemCaseSensitive(one, "details");
        if (r->details != (details != NULL) ||
            (details &&
             (!fuzz_is_number(details, "generated_tokens", (double)a->tokens) ||
              !fuzz_is(details, "finish_reason", a->hit_length ? "length" : "eos_token"))))
            abort();
    } else {
        const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "choices"), 0);
        text = r->kind == CONT_CHAT
                   ? cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetObjectItemCaseSensitive(choice, "message"), "content")
                   : cJSON_GetObjectItemCaseSensitive(choice, "text");
        if (!fuzz_is(choice, "finish_reason", a->hit_length ? "length" : "stop") ||
            !fuzz_is_number(usage, "prompt_tokens", (double)r->prompt_tokens) ||
            !fuzz_is_number(usage, "completion_tokens", (double)a->tokens) ||
            !fuzz_is_number(usage, "total_tokens", (double)(r->prompt_tokens + a->tokens)))
            abort();
    }
    if (!cJSON_IsString(text) || strcmp(text->valuestring, buf_str(&a->text)) != 0) abort();
    cJSON_Delete(j);
    buf_free(&out);
}

/* The stream of the answer on wire, read back by the client's decoder. */
static void fuzz_check_stream(const struct cont_request *r, const struct cont_answer *a,
                              enum rstream_wire wire, size_t split) {
    struct cont_meta m = {"chatcmpl-fuzz", 1440938160, "emulated-model", NULL, false, 0, NULL};
    struct rstream rs;
    struct rstream_step st;
    struct buf out, content;
    struct sstream ss;
    struct schunk c;
    size_t steps = 0;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&content, BUF_NO_CAP);
    rstream_init(&rs, r, a, &m, wire, split, FAULT_NONE);
    while (!rstream_done(&rs)) {
        if (rstream_next(&rs, &out, &st) || !st.token) abort();
        if (st.next != (rstream_done(&rs) ? RSTREAM_END : RSTREAM_MORE)) abort();
        steps++;
    }
    rstream_free(&rs);
    if (steps != (a->tokens ? a->tokens : 1)) abort();
    const char *p = buf_str(&out);
    size_t n = out.len;
    int rc;
    sstream_init(&ss, wire == RSTREAM_PLAIN ? SSTREAM_BODY_PLAIN : SSTREAM_BODY_EVENTSTREAM,
                 SSTREAM_FRAMING_AUTO, NULL);
    while ((rc = sstream_next(&ss, &p, &n, &c, NULL)) == 1)
        if (buf_add(&content, c.content.s, c.content.n)) abort();
    if (rc != 0) abort();
    while ((rc = sstream_finish(&ss, &c, NULL)) == 1)
        if (buf_add(&content, c.content.s, c.content.n)) abort();
    if (rc != 0 || content.len != a->text.len ||
        (content.len && memcmp(content.data, a->text.data, content.len) != 0))
        abort();
    bool vllm = r->kind == CONT_CHAT || r->kind == CONT_COMPLETION;
    bool counted = vllm ? r->include_usage : r->details;
    if (ss.totals.completion_tokens != (counted ? (int64_t)a->tokens : -1) || !ss.totals.done)
        abort();
    sstream_free(&ss);
    buf_free(&out);
    buf_free(&content);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    struct fuzz_case c;
    struct cont_request r;
    struct cont_answer a;
    struct buf err;
    struct pfx blocks;
    int status = 0;
    const char *body = (const char *)data + 1;
    fuzz_profile(data[0], &c.p);
    pfx_init(&blocks, c.p.max_model_len);
    c.content_type = fuzz_types[(data[0] >> 2) & 3];
    c.json_type = ((data[0] >> 2) & 3) < 2;
    cJSON *root = cJSON_ParseWithLength(body, size - 1);
    c.root = root;
    cont_request_init(&r);
    cont_answer_init(&a);
    r.pfx = &blocks;
    buf_init(&err, BUF_NO_CAP);
    bool openai = data[0] & 64;
    c.openai = openai;
    int rc = openai ? cont_parse_openai(&c.p, c.content_type, body, size - 1, &r, &status, &err)
                    : cont_parse(&c.p, c.content_type, body, size - 1, &r, &status, &err);
    if (openai) c.p.format = MODEL_VLLM; /* the route's container speaks vLLM's chat */
    if (rc == CONT_ERR_REJECTED) {
        fuzz_check_rejected(&c, status, &err);
    } else if (rc == CONT_OK) {
        if (openai && r.kind != CONT_CHAT) abort();
        if (blocks.tokens != r.prompt_tokens || blocks.n_blocks != r.prompt_tokens / PFX_BLOCK)
            abort(); /* accepted: within max_model_len, every block kept */
        fuzz_check_request(&c, &r);
        if (cont_answer(&c.p, &r, &a)) abort();
        fuzz_check_answer(&c, &r, &a);
        fuzz_check_reply(&r, &a);
        fuzz_check_stream(&r, &a, RSTREAM_PLAIN, 0);
        fuzz_check_stream(&r, &a, RSTREAM_EVENTSTREAM, data[0] & 128 ? 3 : 0);
    } else {
        abort();
    }
    cJSON_Delete(root);
    buf_free(&err);
    cont_answer_free(&a);
    cont_request_free(&r);
    pfx_free(&blocks);
    model_free(&c.p);
    return 0;
}
