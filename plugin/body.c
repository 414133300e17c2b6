#include "body.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

static const char *const body_names[] = {
    [BODY_VLLM_CHAT] = "vllm-chat",
    [BODY_VLLM_COMPLETIONS] = "vllm-completions",
    [BODY_TGI] = "tgi",
    [BODY_LMI] = "lmi",
    [BODY_RAW] = "raw",
};

int body_format_parse(const char *name, enum body_format *out) {
    for (size_t i = 0; i < sizeof body_names / sizeof body_names[0]; i++) {
        if (strcmp(name, body_names[i]) == 0) {
            *out = (enum body_format)i;
            return BODY_OK;
        }
    }
    return BODY_ERR_INPUT;
}

const char *body_format_name(enum body_format f) {
    return body_names[f];
}

/* Adds (or replaces) each field of extra in obj. Returns false when out of memory. */
static bool body_merge(cJSON *obj, const cJSON *extra) {
    const cJSON *field;
    cJSON_ArrayForEach(field, extra) {
        cJSON *copy = cJSON_Duplicate(field, true);
        bool ok = copy && (cJSON_GetObjectItemCaseSensitive(obj, field->string)
                               ? cJSON_ReplaceItemInObjectCaseSensitive(obj, field->string, copy)
                               : cJSON_AddItemToObject(obj, field->string, copy));
        if (!ok) {
            cJSON_Delete(copy);
            return false;
        }
    }
    return true;
}

static bool body_add_number(cJSON *obj, const char *name, double v) {
    return cJSON_AddNumberToObject(obj, name, v) != NULL;
}

/* "stream": true, and for vLLM the usage in the stream's last chunk and, unless
 * plain, the running count in every chunk (each chunk's tokens: per-token ITL). */
static bool body_stream_fields(cJSON *root, bool usage, bool plain) {
    cJSON *options = usage ? cJSON_AddObjectToObject(root, "stream_options") : NULL;
    return cJSON_AddTrueToObject(root, "stream") &&
           (!usage || (options && cJSON_AddTrueToObject(options, "include_usage") &&
                       (plain || cJSON_AddTrueToObject(options, "continuous_usage_stats"))));
}

/* The vLLM fields, shared by chat and completions. */
static bool body_vllm_fields(cJSON *root, const struct body_params *p) {
    if (p->max_tokens >= 0 && !body_add_number(root, "max_tokens", (double)p->max_tokens))
        return false;
    if (p->has_temperature && !body_add_number(root, "temperature", p->temperature)) return false;
    if (p->ignore_eos && !cJSON_AddTrueToObject(root, "ignore_eos")) return false;
    if (p->min_tokens >= 0 && !body_add_number(root, "min_tokens", (double)p->min_tokens))
        return false;
    if (p->has_seed && !body_add_number(root, "seed", (double)p->seed)) return false;
    if (p->stream && !body_stream_fields(root, true, p->plain_usage)) return false;
    if (!p->stream && p->no_stream && !cJSON_AddFalseToObject(root, "stream")) return false;
    if (p->thinking != BODY_THINKING_DEFAULT) { /* before extra: its own kwargs win */
        cJSON *kw = cJSON_AddObjectToObject(root, "chat_template_kwargs");
        if (!kw || !cJSON_AddBoolToObject(kw, "enable_thinking", p->thinking == BODY_THINKING_ON))
            return false;
    }
    return !p->extra || body_merge(root, p->extra);
}

static cJSON *body_vllm(enum body_format f, const struct body_params *p) {
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    if (f == BODY_VLLM_CHAT && p->messages) {
        cJSON *copy = cJSON_Duplicate(p->messages, true);
        if (!copy || !cJSON_AddItemToObject(root, "messages", copy)) {
            cJSON_Delete(copy);
            goto fail;
        }
    } else if (f == BODY_VLLM_CHAT) {
        cJSON *messages = cJSON_AddArrayToObject(root, "messages");
        cJSON *msg = cJSON_CreateObject();
        if (!messages || !msg || !cJSON_AddItemToArray(messages, msg)) {
            cJSON_Delete(msg);
            goto fail;
        }
        if (!cJSON_AddStringToObject(msg, "role", "user") ||
            !cJSON_AddStringToObject(msg, "content", p->prompt))
            goto fail;
    } else if (!cJSON_AddStringToObject(root, "prompt", p->prompt)) {
        goto fail;
    }
    if (!body_vllm_fields(root, p)) goto fail;
    return root;
fail:
    cJSON_Delete(root);
    return NULL;
}

/* TGI and LMI: temperature 0 means greedy, which they spell do_sample=false. */
static bool body_tgi_fields(cJSON *params, enum body_format f, const struct body_params *p) {
    if (p->max_tokens >= 0 && !body_add_number(params, "max_new_tokens", (double)p->max_tokens))
        return false;
    if (p->has_temperature) {
        if (p->temperature > 0) {
            if (!cJSON_AddTrueToObject(params, "do_sample") ||
                !body_add_number(params, "temperature", p->temperature))
                return false;
        } else if (!cJSON_AddFalseToObject(params, "do_sample")) {
            return false;
        }
    }
    if (f == BODY_LMI && p->ignore_eos && !cJSON_AddTrueToObject(params, "ignore_eos_token"))
        return false;
    if (p->has_seed && !body_add_number(params, "seed", (double)p->seed)) return false;
    return cJSON_AddTrueToObject(params, "details") != NULL;
}

static cJSON *body_tgi(enum body_format f, const struct body_params *p) {
    cJSON *root = cJSON_CreateObject();
    cJSON *params = NULL;
    if (!root || !cJSON_AddStringToObject(root, "inputs", p->prompt)) goto fail;
    params = cJSON_AddObjectToObject(root, "parameters");
    if (!params || !body_tgi_fields(params, f, p)) goto fail;
    if (p->stream && !body_stream_fields(root, false, true)) goto fail;
    if (p->extra && !body_merge(params, p->extra)) goto fail;
    return root;
fail:
    cJSON_Delete(root);
    return NULL;
}

/* Names the first field p asks for that f cannot carry, or NULL. */
static const char *body_unsupported(enum body_format f, const struct body_params *p) {
    if (f != BODY_VLLM_CHAT && p->messages) return "messages (a conversation needs vllm-chat)";
    if (f == BODY_TGI && p->ignore_eos) return "ignore_eos";
    if ((f == BODY_TGI || f == BODY_LMI) && p->min_tokens >= 0) return "min_tokens";
    if (f != BODY_VLLM_CHAT && p->thinking != BODY_THINKING_DEFAULT)
        return "thinking (a chat template's: vllm-chat)";
    return NULL;
}

#define BODY_INT_MAX 999999999999999L /* cJSON writes integers exactly to 15 digits */

/* Whether every number in v is finite (cJSON writes the others as null). */
static bool body_finite(const cJSON *v) {
    const cJSON *child;
    if (cJSON_IsNumber(v)) return isfinite(v->valuedouble);
    cJSON_ArrayForEach(child, v) {
        if (!body_finite(child)) return false;
    }
    return true;
}

/* Whether m is a non-empty array of objects with a string role and content. */
static bool body_conversation(const cJSON *m) {
    const cJSON *msg;
    if (!cJSON_IsArray(m) || !cJSON_GetArraySize(m)) return false;
    cJSON_ArrayForEach(msg, m) {
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(msg, "role")) ||
            !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(msg, "content")))
            return false;
    }
    return true;
}

/* Names the first value of p a body cannot carry as asked, or NULL. */
static const char *body_out_of_range(const struct body_params *p) {
    if (p->max_tokens > BODY_INT_MAX) return "max_tokens";
    if (p->min_tokens > BODY_INT_MAX) return "min_tokens";
    if (p->has_seed && (p->seed > BODY_INT_MAX || p->seed < -BODY_INT_MAX)) return "seed";
    if (p->has_temperature && !isfinite(p->temperature)) return "temperature";
    if (p->extra && !body_finite(p->extra)) return "a number in the extra fields";
    return NULL;
}

int body_build(enum body_format f, const struct body_params *p, struct buf *out, struct buf *err) {
    const char *bad = body_unsupported(f, p);
    if (bad) {
        return buf_fail(err, BODY_ERR_UNSUPPORTED, "the %s format has no %s", body_names[f], bad);
    }
    if (p->messages && !body_conversation(p->messages)) {
        return buf_fail(err, BODY_ERR_INPUT,
                        "messages must be a list of {\"role\": ..., \"content\": ...} objects");
    }
    if (p->extra && !cJSON_IsObject(p->extra)) {
        return buf_fail(err, BODY_ERR_INPUT, "the extra fields must be a JSON object");
    }
    if (f == BODY_RAW) return buf_adds(out, p->prompt) == BUF_OK ? BODY_OK : BODY_ERR_NOMEM;
    bad = body_out_of_range(p);
    if (bad) {
        return buf_fail(err, BODY_ERR_INPUT,
                        "%s is out of range (integers of at most 15 digits, finite numbers)", bad);
    }
    cJSON *root = f == BODY_TGI || f == BODY_LMI ? body_tgi(f, p) : body_vllm(f, p);
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    int rc = text && buf_adds(out, text) == BUF_OK ? BODY_OK : BODY_ERR_NOMEM;
    cJSON_free(text);
    return rc;
}
