#include "cont.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "ans.h"
#include "qtruth.h"
#include "quizgen.h"
#include "jsonw.h"
#include "ptok.h"
#include "splitmix.h"
#include "tok.h"

#define CONT_CHAT_TOKENS_PER_MESSAGE 4
#define CONT_CHAT_TOKENS_PER_REPLY   2

enum cont_field { CONT_FIELD_OK, CONT_FIELD_ABSENT, CONT_FIELD_BAD };

void cont_request_init(struct cont_request *r) {
    memset(r, 0, sizeof *r);
    buf_init(&r->prompt, BUF_NO_CAP);
    r->max_tokens = CONT_NOT_GIVEN;
    r->thinking = -1;
}

void cont_request_free(struct cont_request *r) {
    buf_free(&r->prompt);
}

void cont_answer_init(struct cont_answer *a) {
    memset(a, 0, sizeof *a);
    buf_init(&a->text, BUF_NO_CAP);
    buf_init(&a->reasoning, BUF_NO_CAP);
}

void cont_answer_free(struct cont_answer *a) {
    buf_free(&a->text);
    buf_free(&a->reasoning);
}

/* --- error bodies, one per container --- */

/* vLLM's error "type" for a status and message. */
static const char *cont_vllm_type(int status, const char *msg) {
    if (status == 415) return "Unsupported Media Type";
    if (status >= 500) return "InternalServerError";
    return strncmp(msg, "JSON decode error", 17) == 0 ? "Bad Request" : "BadRequestError";
}

int cont_error_body(enum model_format f, int status, const char *msg, struct buf *out) {
    int rc;
    switch (f) {
    case MODEL_TGI:
        rc = buf_adds(out, "{\"error\":");
        if (!rc) rc = jsonw_cstr(out, msg);
        return rc ? rc : buf_adds(out, ",\"error_type\":\"validation\"}");
    case MODEL_LMI:
        rc = buf_addf(out, "{\"code\":%d,\"type\":", status);
        if (!rc)
            rc = jsonw_cstr(out, status >= 500 ? "InternalServerException" : "BadRequestException");
        if (!rc) rc = buf_adds(out, ",\"message\":");
        if (!rc) rc = jsonw_cstr(out, msg);
        return rc ? rc : buf_addc(out, '}');
    case MODEL_VLLM:
        break;
    }
    rc = buf_adds(out, "{\"error\":{\"message\":");
    if (!rc) rc = jsonw_cstr(out, msg);
    if (!rc) rc = buf_adds(out, ",\"type\":");
    if (!rc) rc = jsonw_cstr(out, cont_vllm_type(status, msg));
    return rc ? rc : buf_addf(out, ",\"param\":null,\"code\":%d}}", status);
}

int cont_server_error(enum model_format f, struct buf *out) {
    return cont_error_body(f, 500, "Internal Server Error", out);
}

/* A rejection: the container answers code with a formatted message. */
#define CONT_REJECT(status, err, code, ...)                                                        \
    (*(status) = (code), buf_fail((err), CONT_ERR_REJECTED, __VA_ARGS__))

/* --- typed fields, with pydantic's lax coercions (numeric strings, 0/1 booleans) --- */

/* An integer within +-1e15 (so never CONT_NOT_GIVEN). */
static enum cont_field cont_int(const cJSON *obj, const char *name, long *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v || cJSON_IsNull(v)) return CONT_FIELD_ABSENT;
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d != floor(d) || fabs(d) > 1e15) return CONT_FIELD_BAD;
        *out = (long)d;
        return CONT_FIELD_OK;
    }
    if (!cJSON_IsString(v)) return CONT_FIELD_BAD;
    char *end = NULL;
    long x = strtol(v->valuestring, &end, 10);
    if (end == v->valuestring || *end || labs(x) > 1000000000000000L) return CONT_FIELD_BAD;
    *out = x;
    return CONT_FIELD_OK;
}

static enum cont_field cont_bool(const cJSON *obj, const char *name, bool *out) {
    static const char *const yes[] = {"true", "1", "yes", "on", "t", "y"};
    static const char *const no[] = {"false", "0", "no", "off", "f", "n"};
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v || cJSON_IsNull(v)) return CONT_FIELD_ABSENT;
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v);
        return CONT_FIELD_OK;
    }
    if (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1)) {
        *out = v->valuedouble == 1;
        return CONT_FIELD_OK;
    }
    for (size_t i = 0; cJSON_IsString(v) && i < sizeof yes / sizeof *yes; i++) {
        if (strcasecmp(v->valuestring, yes[i]) == 0 || strcasecmp(v->valuestring, no[i]) == 0) {
            *out = strcasecmp(v->valuestring, yes[i]) == 0;
            return CONT_FIELD_OK;
        }
    }
    return CONT_FIELD_BAD;
}

static enum cont_field cont_num(const cJSON *obj, const char *name, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v || cJSON_IsNull(v)) return CONT_FIELD_ABSENT;
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return CONT_FIELD_OK;
    }
    char *end = NULL;
    if (!cJSON_IsString(v)) return CONT_FIELD_BAD;
    *out = strtod(v->valuestring, &end);
    return end != v->valuestring && !*end ? CONT_FIELD_OK : CONT_FIELD_BAD;
}

/* Python's repr of a float, close enough for messages: "-1.0", "0.5". */
static void cont_float_repr(double d, char out[32]) {
    snprintf(out, 32, "%.15g", d);
    if (!strpbrk(out, ".eni")) strcat(out, ".0");
}

/* "stream_options": {"include_usage": bool}; false when it has the wrong type. */
static bool cont_stream_options(const cJSON *obj, struct cont_request *r) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(obj, "stream_options");
    if (!o || cJSON_IsNull(o)) return true;
    r->stream_options = true;
    return cJSON_IsObject(o) &&
           cont_bool(o, "include_usage", &r->include_usage) != CONT_FIELD_BAD &&
           cont_bool(o, "continuous_usage_stats", &r->continuous_usage) != CONT_FIELD_BAD;
}

/* The sampling fields every kind shares; false when a field has the wrong type. */
static bool cont_sampling(const cJSON *obj, struct cont_request *r, double *temperature,
                          bool *has_temperature) {
    long seed;
    enum cont_field f = cont_int(obj, "max_tokens", &r->max_tokens);
    if (f == CONT_FIELD_BAD) return false;
    if (r->kind == CONT_CHAT &&
        cont_int(obj, "max_completion_tokens", &r->max_tokens) == CONT_FIELD_BAD)
        return false;
    if (cont_int(obj, "min_tokens", &r->min_tokens) == CONT_FIELD_BAD) return false;
    if (cont_bool(obj, "ignore_eos", &r->ignore_eos) == CONT_FIELD_BAD) return false;
    if (cont_int(obj, "seed", &seed) == CONT_FIELD_BAD) return false;
    if (cont_bool(obj, "stream", &r->stream) == CONT_FIELD_BAD) return false;
    if (!cont_stream_options(obj, r)) return false;
    f = cont_num(obj, "temperature", temperature);
    *has_temperature = f == CONT_FIELD_OK;
    return f != CONT_FIELD_BAD;
}

/* Appends a message's content (a string, a list of text parts, or null). */
static bool cont_content(const cJSON *content, struct buf *out) {
    if (!content || cJSON_IsNull(content)) return true;
    if (cJSON_IsString(content)) return buf_adds(out, content->valuestring) == 0;
    if (!cJSON_IsArray(content)) return false;
    const cJSON *part;
    cJSON_ArrayForEach(part, content) {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(part, "type");
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(part, "text");
        if (!cJSON_IsString(type)) return false;
        if (strcmp(type->valuestring, "text") != 0) continue;
        if (!cJSON_IsString(text) || buf_addf(out, "%s%s", out->len ? "\n" : "", text->valuestring))
            return false;
    }
    return true;
}

/* chat_template_kwargs.enable_thinking (Qwen3's, Gemma 4's chat templates):
 * r->thinking; false when it has the wrong type. */
static bool cont_thinking(const cJSON *root, struct cont_request *r) {
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(root, "chat_template_kwargs");
    bool on = true;
    r->thinking = -1;
    if (!k || cJSON_IsNull(k)) return true;
    if (!cJSON_IsObject(k)) return false;
    enum cont_field f = cont_bool(k, "enable_thinking", &on);
    if (f == CONT_FIELD_OK) r->thinking = on;
    return f != CONT_FIELD_BAD;
}

static bool cont_chat(const cJSON *root, struct cont_request *r) {
    const cJSON *messages = cJSON_GetObjectItemCaseSensitive(root, "messages"), *m;
    struct buf text;
    bool ok = cJSON_IsArray(messages) && cont_thinking(root, r);
    buf_init(&text, BUF_NO_CAP);
    r->kind = CONT_CHAT;
    r->prompt_tokens = CONT_CHAT_TOKENS_PER_REPLY;
    const cJSON *list = ok ? messages : NULL;
    cJSON_ArrayForEach(m, list) {
        const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
        buf_reset(&text);
        if (!cJSON_IsString(role) ||
            !cont_content(cJSON_GetObjectItemCaseSensitive(m, "content"), &text)) {
            ok = false;
            break;
        }
        r->prompt_tokens += ptok_count(text.data, text.len) + CONT_CHAT_TOKENS_PER_MESSAGE;
        pfx_chat_message(r->pfx, role->valuestring, text.data ? text.data : "", text.len);
        if (strcmp(role->valuestring, "user") == 0) {
            buf_reset(&r->prompt);
            ok = buf_add(&r->prompt, buf_str(&text), text.len) == 0;
        }
    }
    buf_free(&text);
    if (ok) pfx_chat_end(r->pfx);
    return ok;
}

static bool cont_completion(const cJSON *root, struct cont_request *r) {
    const cJSON *prompt = cJSON_GetObjectItemCaseSensitive(root, "prompt");
    r->kind = CONT_COMPLETION;
    if (cJSON_IsArray(prompt) && cJSON_GetArraySize(prompt) == 1)
        prompt = cJSON_GetArrayItem(prompt, 0);
    if (!cJSON_IsString(prompt)) return false;
    r->prompt_tokens = ptok_count(prompt->valuestring, strlen(prompt->valuestring)) + 1;
    pfx_plain(r->pfx, prompt->valuestring, strlen(prompt->valuestring));
    return buf_adds(&r->prompt, prompt->valuestring) == 0;
}

/* vLLM's checks of the sampling parameters, after the request type is known. */
static int cont_check_vllm(const struct model_profile *p, struct cont_request *r,
                           double temperature, bool has_temperature, int *status, struct buf *err) {
    char repr[32];
    if (r->stream_options && !r->stream)
        return CONT_REJECT(status, err, 400,
                           "Stream options can only be defined when `stream=True`.");
    if (r->continuous_usage && strcmp(p->continuous_usage, "reject") == 0)
        return CONT_REJECT(status, err, 400,
                           "[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options', "
                           "'continuous_usage_stats'), 'msg': 'Extra inputs are not permitted', "
                           "'input': True}]");
    if (r->max_tokens != CONT_NOT_GIVEN && r->max_tokens < 1)
        return CONT_REJECT(status, err, 400, "max_tokens must be at least 1, got %ld.",
                           r->max_tokens);
    if (has_temperature && temperature < 0) {
        cont_float_repr(temperature, repr);
        return CONT_REJECT(status, err, 400, "temperature must be non-negative, got %s.", repr);
    }
    if (r->min_tokens < 0)
        return CONT_REJECT(status, err, 400,
                           "min_tokens must be greater than or equal to 0, got %ld.",
                           r->min_tokens);
    if (r->max_tokens != CONT_NOT_GIVEN && r->min_tokens > r->max_tokens)
        return CONT_REJECT(status, err, 400,
                           "min_tokens must be less than or equal to max_tokens=%ld, got %ld.",
                           r->max_tokens, r->min_tokens);
    if (r->prompt_tokens >= p->max_model_len)
        return CONT_REJECT(status, err, 400,
                           "This model's maximum context length is %u tokens. However, your "
                           "request has %zu input tokens. Please reduce the length of the input "
                           "messages.",
                           p->max_model_len, r->prompt_tokens);
    if (r->max_tokens != CONT_NOT_GIVEN &&
        r->prompt_tokens + (size_t)r->max_tokens > p->max_model_len)
        return CONT_REJECT(status, err, 400,
                           "This model's maximum context length is %u tokens. However, you "
                           "requested %zu tokens (%zu in the messages, %ld in the completion). "
                           "Please reduce the length of the messages or completion.",
                           p->max_model_len, r->prompt_tokens + (size_t)r->max_tokens,
                           r->prompt_tokens, r->max_tokens);
    return CONT_OK;
}

/* vLLM's /v1/chat/completions: a chat body, and the served model if one is named. */
static int cont_parse_openai_root(const struct model_profile *p, const cJSON *root,
                                  struct cont_request *r, int *status, struct buf *err) {
    double temperature = 1;
    bool has_temperature = false;
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (!cJSON_IsObject(root) || !cJSON_HasObjectItem(root, "messages"))
        return CONT_REJECT(status, err, 400,
                           "[{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field "
                           "required'}]");
    if (!cont_chat(root, r) || !cont_sampling(root, r, &temperature, &has_temperature) ||
        (model && !cJSON_IsNull(model) && !cJSON_IsString(model)))
        return CONT_REJECT(status, err, 400,
                           "[{'type': 'invalid', 'loc': ('body',), 'msg': 'Input should be a "
                           "valid ChatCompletionRequest'}]");
    const char *name = model && cJSON_IsString(model) ? model->valuestring : NULL;
    if (name && *name && strcmp(name, p->model_id) != 0)
        return CONT_REJECT(status, err, 404, "The model `%.200s` does not exist.", name);
    return cont_check_vllm(p, r, temperature, has_temperature, status, err);
}

static int cont_parse_vllm(const struct model_profile *p, const cJSON *root, struct cont_request *r,
                           int *status, struct buf *err) {
    double temperature = 1;
    bool has_temperature = false;
    bool is_chat = cJSON_IsObject(root) && cJSON_HasObjectItem(root, "messages") &&
                   cont_chat(root, r) && cont_sampling(root, r, &temperature, &has_temperature);
    if (!is_chat) {
        struct pfx *pfx = r->pfx;
        cont_request_free(r);
        cont_request_init(r);
        r->pfx = pfx;
        pfx_reset(pfx);
        bool is_completion = cJSON_IsObject(root) && cont_completion(root, r) &&
                             cont_sampling(root, r, &temperature, &has_temperature);
        if (!is_completion)
            return CONT_REJECT(status, err, 400,
                               "Cannot find suitable handler for request. Expected one of: "
                               "['ChatCompletionRequest', 'CompletionRequest']");
    }
    return cont_check_vllm(p, r, temperature, has_temperature, status, err);
}

/* TGI's and LMI's checks of the lengths and the temperature, once the fields are read. */
static int cont_check_tgi(const struct model_profile *p, const struct cont_request *r,
                          double temperature, int *status, struct buf *err) {
    int code = p->format == MODEL_LMI ? 400 : 422;
    if (r->max_tokens != CONT_NOT_GIVEN && r->max_tokens < 1)
        return CONT_REJECT(status, err, code,
                           "Input validation error: `max_new_tokens` must be strictly positive");
    if (temperature <= 0)
        return CONT_REJECT(status, err, code,
                           "Input validation error: `temperature` must be strictly positive");
    long want = r->max_tokens == CONT_NOT_GIVEN ? (long)p->default_tokens : r->max_tokens;
    if (r->prompt_tokens + (size_t)want > p->max_model_len)
        return CONT_REJECT(status, err, code,
                           "Input validation error: `inputs` tokens + `max_new_tokens` must be <= "
                           "%u. Given: %zu `inputs` tokens and %ld `max_new_tokens`",
                           p->max_model_len, r->prompt_tokens, want);
    return CONT_OK;
}

/* TGI and LMI: {"inputs": "...", "parameters": {...}}. */
static int cont_parse_tgi(const struct model_profile *p, const cJSON *root, struct cont_request *r,
                          int *status, struct buf *err) {
    const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(root, "inputs");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "parameters");
    bool lmi = p->format == MODEL_LMI;
    double temperature = 1;
    r->kind = lmi ? CONT_LMI : CONT_TGI;
    if (!cJSON_IsString(inputs))
        return CONT_REJECT(status, err, lmi ? 400 : 422,
                           "Failed to deserialize the JSON body into the target type: %s",
                           inputs ? "inputs: invalid type, expected a string"
                                  : "missing field `inputs`");
    if (params && !cJSON_IsNull(params) && !cJSON_IsObject(params))
        return CONT_REJECT(status, err, lmi ? 400 : 422,
                           "Failed to deserialize the JSON body into the target type: "
                           "parameters: invalid type, expected struct GenerateParameters");
    if (cont_int(params, "max_new_tokens", &r->max_tokens) == CONT_FIELD_BAD ||
        cont_bool(params, "details", &r->details) == CONT_FIELD_BAD ||
        cont_bool(root, "stream", &r->stream) == CONT_FIELD_BAD ||
        (lmi && cont_bool(params, "ignore_eos_token", &r->ignore_eos) == CONT_FIELD_BAD) ||
        cont_num(params, "temperature", &temperature) == CONT_FIELD_BAD)
        return CONT_REJECT(status, err, lmi ? 400 : 422,
                           "Failed to deserialize the JSON body into the target type: "
                           "parameters: invalid type");
    r->prompt_tokens = ptok_count(inputs->valuestring, strlen(inputs->valuestring)) + 1;
    pfx_plain(r->pfx, inputs->valuestring, strlen(inputs->valuestring));
    if (buf_adds(&r->prompt, inputs->valuestring)) return CONT_ERR_NOMEM;
    return cont_check_tgi(p, r, temperature, status, err);
}

/* Python's json.JSONDecodeError text for the error at pos. */
static int cont_json_error(enum model_format f, const char *body, size_t len, size_t pos,
                           bool extra, int *status, struct buf *err) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos && i < len; i++) {
        if (body[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    const char *what = extra ? "Extra data" : "Expecting value";
    if (f == MODEL_VLLM)
        return CONT_REJECT(status, err, 400,
                           "JSON decode error: %s: line %zu column %zu (char %zu)", what, line, col,
                           pos);
    return CONT_REJECT(status, err, 400,
                       "Failed to parse the request body as JSON: %s at line %zu column %zu", what,
                       line, col);
}

static bool cont_is_json_type(const char *ct) {
    if (!ct) return false;
    while (*ct == ' ') ct++;
    size_t n = strcspn(ct, "; ");
    return n == 16 && strncasecmp(ct, "application/json", 16) == 0;
}

/* Parses body as format f reads it; openai: as vLLM's /v1/chat/completions. */
static int cont_parse_as(const struct model_profile *p, enum model_format f, bool openai,
                         const char *content_type, const char *body, size_t len,
                         struct cont_request *r, int *status, struct buf *err) {
    const char *end = NULL;
    if (f == MODEL_VLLM && !cont_is_json_type(content_type))
        return CONT_REJECT(status, err, 415,
                           "Unsupported Media Type: Only 'application/json' is allowed");
    cJSON *root = cJSON_ParseWithLengthOpts(body, len, &end, false);
    size_t pos = end ? (size_t)(end - body) : 0;
    if (!root) return cont_json_error(f, body, len, pos, false, status, err);
    while (pos < len && body[pos] && strchr(" \t\r\n", body[pos])) pos++;
    int rc;
    if (pos < len)
        rc = cont_json_error(f, body, len, pos, true, status, err);
    else if (openai)
        rc = cont_parse_openai_root(p, root, r, status, err);
    else if (f == MODEL_VLLM)
        rc = cont_parse_vllm(p, root, r, status, err);
    else if (cJSON_IsObject(root))
        rc = cont_parse_tgi(p, root, r, status, err);
    else
        rc = CONT_REJECT(status, err, f == MODEL_TGI ? 422 : 400,
                         "Failed to deserialize the JSON body into the target type: invalid type, "
                         "expected struct GenerateRequest");
    cJSON_Delete(root);
    return rc;
}

int cont_parse(const struct model_profile *p, const char *content_type, const char *body,
               size_t len, struct cont_request *r, int *status, struct buf *err) {
    return cont_parse_as(p, p->format, false, content_type, body, len, r, status, err);
}

int cont_parse_openai(const struct model_profile *p, const char *content_type, const char *body,
                      size_t len, struct cont_request *r, int *status, struct buf *err) {
    return cont_parse_as(p, MODEL_VLLM, true, content_type, body, len, r, status, err);
}

int cont_parse_reply(const struct model_profile *p, bool openai, const char *ct, size_t ct_len,
                     const char *body, size_t len, struct cont_request *r, int *status,
                     struct buf *err_body) {
    char type[256] = "";
    struct buf why;
    if (ct) snprintf(type, sizeof type, "%.*s", (int)(ct_len < 255 ? ct_len : 255), ct);
    buf_init(&why, BUF_NO_CAP);
    int rc = openai ? cont_parse_openai(p, ct ? type : NULL, body, len, r, status, &why)
                    : cont_parse(p, ct ? type : NULL, body, len, r, status, &why);
    if (rc == CONT_ERR_REJECTED &&
        cont_error_body(openai ? MODEL_VLLM : p->format, *status, buf_str(&why), err_body))
        rc = CONT_ERR_NOMEM;
    buf_free(&why);
    return rc;
}

/* --- answers --- */

/* A generated quiz item's reply (quizgen.h): right or wrong as the model's
 * per-family accuracy decides (qtruth.h); false for any other prompt. */
static bool cont_generated(const struct model_profile *p, const struct cont_request *r,
                           struct cont_answer *a, enum quizgen_family *f) {
    const char *prompt = buf_str(&r->prompt);
    if (!quizgen_reply(prompt, r->prompt.len, true, f, &a->text)) {
        buf_reset(&a->text);
        return false;
    }
    if (qtruth_right(p->model_id, *f, prompt)) return true;
    buf_reset(&a->text);
    if (quizgen_reply(prompt, r->prompt.len, false, f, &a->text)) return true;
    buf_reset(&a->text);
    return false;
}

/* The natural reply before length rules: a quiz answer, else filler. */
static int cont_natural(const struct model_profile *p, const struct cont_request *r,
                        struct cont_answer *a, bool *is_filler) {
    struct ans_question q;
    enum quizgen_family f;
    *is_filler = false;
    if (r->prompt.data && cont_generated(p, r, a, &f)) return CONT_OK;
    if (ans_parse(r->prompt.data ? r->prompt.data : "", r->prompt.len, &q)) {
        const char *wrong = model_answer(p, q.key);
        if (wrong) return buf_adds(&a->text, wrong) ? CONT_ERR_NOMEM : CONT_OK;
        if (ans_correct(&q, &a->text)) return CONT_OK;
        buf_reset(&a->text);
    }
    *is_filler = true;
    size_t n = r->max_tokens != CONT_NOT_GIVEN ? (size_t)r->max_tokens : p->default_tokens;
    return tok_filler(&a->text, n, splitmix_hash(buf_str(&r->prompt))) ? CONT_ERR_NOMEM : CONT_OK;
}

/* Pads a->text with filler up to want tokens. */
static int cont_pad(const struct cont_request *r, struct cont_answer *a, size_t want) {
    size_t have = tok_count(a->text.data, a->text.len);
    if (have >= want) return CONT_OK;
    if (have > 0 && buf_addc(&a->text, ' ')) return CONT_ERR_NOMEM;
    return tok_filler(&a->text, want - have, splitmix_hash(buf_str(&r->prompt)) ^ 1)
               ? CONT_ERR_NOMEM
               : CONT_OK;
}

/* A thinking model's reasoning before the answer (vLLM chat, thinking not turned
 * off): the profile's reasoning tokens of filler, within max_tokens (which
 * counts both, as vLLM's does: the answer is cut to what is left). */
static int cont_reasoning(const struct model_profile *p, const struct cont_request *r,
                          struct cont_answer *a, size_t limit) {
    buf_reset(&a->reasoning);
    a->reasoning_tokens = 0;
    if (!p->reasoning_tokens || r->kind != CONT_CHAT || r->thinking == 0) return CONT_OK;
    size_t n = p->reasoning_tokens < limit ? p->reasoning_tokens : limit;
    if (tok_filler(&a->reasoning, n, n)) return CONT_ERR_NOMEM;
    a->reasoning_tokens = tok_count(a->reasoning.data, a->reasoning.len);
    size_t left = limit - a->reasoning_tokens;
    if (a->tokens > left) {
        buf_truncate(&a->text, tok_prefix(a->text.data, a->text.len, left));
        a->tokens = tok_count(a->text.data, a->text.len);
        a->hit_length = true;
    }
    return CONT_OK;
}

int cont_answer(const struct model_profile *p, const struct cont_request *r,
                struct cont_answer *a) {
    bool is_filler;
    buf_reset(&a->text);
    int rc = cont_natural(p, r, a, &is_filler);
    size_t natural = tok_count(a->text.data, a->text.len);
    size_t limit = r->max_tokens != CONT_NOT_GIVEN ? (size_t)r->max_tokens
                                                   : p->max_model_len - r->prompt_tokens;
    a->hit_length = is_filler && r->max_tokens != CONT_NOT_GIVEN;
    if (!rc && r->ignore_eos) {
        rc = cont_pad(r, a, limit);
        a->hit_length = true;
    } else if (!rc && (size_t)r->min_tokens > natural) {
        rc = cont_pad(r, a, (size_t)r->min_tokens < limit ? (size_t)r->min_tokens : limit);
    }
    if (rc) return rc;
    size_t have = tok_count(a->text.data, a->text.len);
    if (have > limit) {
        buf_truncate(&a->text, tok_prefix(a->text.data, a->text.len, limit));
        a->hit_length = true;
    }
    a->tokens = tok_count(a->text.data, a->text.len);
    return cont_reasoning(p, r, a, limit);
}

/* --- replies --- */

int cont_prompt_details(const struct cont_meta *m, struct buf *out) {
    if (!m->prompt_details) return buf_adds(out, ",\"prompt_tokens_details\":null");
    return buf_addf(out, ",\"prompt_tokens_details\":{\"cached_tokens\":%zu}",
                    m->cached_tokens ? *m->cached_tokens : 0);
}

static int cont_usage(const struct cont_request *r, const struct cont_answer *a,
                      const struct cont_meta *m, struct buf *out) {
    size_t n = a->tokens + a->reasoning_tokens; /* vLLM's count: reasoning and answer */
    int rc = buf_addf(out,
                      "\"usage\":{\"prompt_tokens\":%zu,\"total_tokens\":%zu,"
                      "\"completion_tokens\":%zu",
                      r->prompt_tokens, r->prompt_tokens + n, n);
    if (!rc) rc = cont_prompt_details(m, out);
    return rc ? rc : buf_addc(out, '}');
}

static int cont_reply_vllm(const struct cont_request *r, const struct cont_answer *a,
                           const struct cont_meta *m, struct buf *out) {
    bool chat = r->kind == CONT_CHAT;
    const char *finish = a->hit_length ? "length" : "stop";
    int rc = buf_adds(out, "{\"id\":");
    if (!rc) rc = jsonw_cstr(out, m->id);
    if (!rc)
        rc = buf_addf(out, ",\"object\":\"%s\",\"created\":%lld,\"model\":",
                      chat ? "chat.completion" : "text_completion", m->created);
    if (!rc) rc = jsonw_cstr(out, m->model);
    if (!rc && chat)
        rc = buf_adds(out, ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                           "\"content\":");
    if (!rc && !chat) rc = buf_adds(out, ",\"choices\":[{\"index\":0,\"text\":");
    if (!rc) rc = jsonw_str(out, buf_str(&a->text), a->text.len);
    if (!rc && chat)
        rc = buf_adds(out, ",\"refusal\":null,\"annotations\":null,\"audio\":null,"
                           "\"function_call\":null,\"tool_calls\":[],\"reasoning\":");
    if (!rc && chat)
        rc = a->reasoning_tokens ? jsonw_str(out, buf_str(&a->reasoning), a->reasoning.len)
                                 : buf_adds(out, "null");
    if (!rc && chat) rc = buf_addc(out, '}');
    if (!rc)
        rc = buf_addf(out,
                      ",\"logprobs\":null,\"finish_reason\":\"%s\",\"stop_reason\":null%s}],"
                      "\"service_tier\":null,\"system_fingerprint\":null,",
                      finish, chat ? "" : ",\"prompt_logprobs\":null");
    if (!rc) rc = cont_usage(r, a, m, out);
    if (!rc)
        rc = buf_addf(out, "%s,\"kv_transfer_params\":null}",
                      chat ? ",\"prompt_logprobs\":null" : "");
    return rc;
}

static int cont_reply_tgi(const struct cont_request *r, const struct cont_answer *a,
                          struct buf *out) {
    bool tgi = r->kind == CONT_TGI;
    int rc = buf_adds(out, tgi ? "[{\"generated_text\":" : "{\"generated_text\":");
    if (!rc) rc = jsonw_str(out, buf_str(&a->text), a->text.len);
    if (!rc && r->details)
        rc = buf_addf(out,
                      ",\"details\":{\"finish_reason\":\"%s\",\"generated_tokens\":%zu,"
                      "\"seed\":null,\"prefill\":[],\"tokens\":[]}",
                      a->hit_length ? "length" : "eos_token", a->tokens);
    return rc ? rc : buf_adds(out, tgi ? "}]" : "}");
}

int cont_reply(const struct cont_request *r, const struct cont_answer *a, const struct cont_meta *m,
               struct buf *out) {
    if (r->kind == CONT_TGI || r->kind == CONT_LMI) return cont_reply_tgi(r, a, out);
    return cont_reply_vllm(r, a, m, out);
}
