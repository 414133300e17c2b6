#include "model.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "readall.h"
#include "smerr.h"

enum model_type {
    MODEL_T_SECONDS,
    MODEL_T_FRACTION,
    MODEL_T_UINT,
    MODEL_T_ULONG,
    MODEL_T_U64,
    MODEL_T_STR,
    MODEL_T_FORMAT,
    MODEL_T_STEPS
};

struct model_param {
    const char *key;
    enum model_type type;
    size_t offset;
    size_t size; /* strings: capacity */
    const char *help;
};

#define MODEL_PARAM(key, type, field, help)                                                        \
    {                                                                                              \
        key, type, offsetof(struct model_profile, field),                                          \
            sizeof(((struct model_profile *)0)->field), help                                       \
    }

static const struct model_param model_params[] = {
    MODEL_PARAM("format", MODEL_T_FORMAT, format,
                "body format: vllm (chat and completions), tgi or lmi"),
    MODEL_PARAM("model_id", MODEL_T_STR, model_id, "model name in vLLM replies and in the log"),
    MODEL_PARAM("overhead_s", MODEL_T_SECONDS, overhead_s, "fixed cost of every call, seconds"),
    MODEL_PARAM("client_s", MODEL_T_SECONDS, client_s,
                "a client's own cost of every call (the aws CLI's), before overhead_s"),
    MODEL_PARAM("prefill_s_per_token", MODEL_T_SECONDS, prefill_s_per_token,
                "prefill time per prompt token, added to the step that admits the sequence"),
    MODEL_PARAM("step_ms", MODEL_T_STEPS, steps,
                "decode step time by sequences in flight, 'B:MS,B:MS,...' (piecewise linear)"),
    MODEL_PARAM("max_seqs", MODEL_T_UINT, max_seqs,
                "sequences in flight at most; later ones queue"),
    MODEL_PARAM("jitter", MODEL_T_FRACTION, jitter,
                "+- fraction of random variation of overheads and steps"),
    MODEL_PARAM("seed", MODEL_T_U64, seed,
                "random seed (0: derived from --seed and the endpoint's name)"),
    MODEL_PARAM("max_model_len", MODEL_T_UINT, max_model_len,
                "context length: prompt + completion tokens"),
    MODEL_PARAM("default_tokens", MODEL_T_UINT, default_tokens,
                "length of a filler reply when the request gives no max_tokens"),
    MODEL_PARAM("weight", MODEL_T_SECONDS, weight, "traffic share among the endpoint's variants"),
    MODEL_PARAM("weights_gib", MODEL_T_SECONDS, weights_gib, "weights size for the log, GiB"),
    MODEL_PARAM("load_s", MODEL_T_SECONDS, load_s, "model loading time for the log, seconds"),
    MODEL_PARAM("kv_cache_tokens", MODEL_T_ULONG, kv_cache_tokens,
                "GPU KV cache size for the log, tokens"),
    MODEL_PARAM("quantization", MODEL_T_STR, quantization,
                "quantization for the log (empty: None)"),
    MODEL_PARAM("vllm_version", MODEL_T_STR, vllm_version, "vLLM version for the log"),
    MODEL_PARAM("dtype", MODEL_T_STR, dtype, "dtype for the log"),
    MODEL_PARAM("slow_first_byte_s", MODEL_T_SECONDS, slow_first_byte_s,
                "delay of the first reply byte under the 'slow' fault, seconds"),
    MODEL_PARAM("stream_stall_s", MODEL_T_SECONDS, stream_stall_s,
                "pause between two tokens of a stream under the 'stream_stall' fault, seconds"),
    MODEL_PARAM("prefix_cache_tokens", MODEL_T_ULONG, prefix_cache_tokens,
                "prefix cache capacity, tokens in blocks of 16 (vLLM's automatic prefix "
                "caching; 0: off; at most 8388608)"),
    MODEL_PARAM("reasoning_tokens", MODEL_T_ULONG, reasoning_tokens,
                "vLLM chat: a thinking model's reasoning tokens before its answer (0: none; at "
                "most 100000; a body's chat_template_kwargs.enable_thinking=false: none)"),
    MODEL_PARAM("reasoning_field", MODEL_T_STR, reasoning_field, "reasoning or reasoning_content"),
    MODEL_PARAM("continuous_usage_stats", MODEL_T_STR, continuous_usage,
                "vLLM: stream_options.continuous_usage_stats (the running usage in every chunk): "
                "accept, or reject (400, as a vLLM older than the option)"),
    MODEL_PARAM("prompt_tokens_details", MODEL_T_ULONG, prompt_tokens_details,
                "vLLM --enable-prompt-tokens-details: 1 says the prefix cache's tokens in every "
                "reply's usage.prompt_tokens_details.cached_tokens; 0: null, vLLM's default"),
    MODEL_PARAM("spec_tokens", MODEL_T_ULONG, spec_tokens,
                "vLLM speculative decoding: draft tokens each decode step proposes "
                "(num_speculative_tokens; 0: off; at most 16)"),
    MODEL_PARAM("spec_accepted", MODEL_T_ULONG, spec_accepted,
                "of a step's draft tokens, those it accepts: a vLLM answer streams "
                "spec_accepted + 1 tokens a chunk (at most spec_tokens)"),
    MODEL_PARAM("session_ttl_s", MODEL_T_SECONDS, session_ttl_s,
                "lifetime of a stateful session, seconds (0: the container has sessions off)"),
};

/* The built-in profiles, as settings over the defaults. bf16-l4 and qat-l4 are the
 * article's servers, its figures less its client's cost (the aws CLI's, 0.43 s a call
 * measured here); the -awscli profiles add that cost back (README, "Calibration"). */
static const char *const model_instant[] = {NULL};
static const char *const model_awscli[] = {"client_s=0.43", NULL};

static const char *const model_bf16[] = {
    "model_id=google/gemma-4-E2B-it",
    "overhead_s=0.202",
    "prefill_s_per_token=0.00005",
    "step_ms=1:19.4932,4:20.8256,16:23.3127",
    "jitter=0.01",
    "weights_gib=9.75",
    "load_s=82.751806",
    "kv_cache_tokens=723484",
    "answer.add:876:608:558=1026",
    "answer.add:782:571:534=829",
    "answer.add:150:937:139=918",
    NULL,
};

static const char *const model_qat[] = {
    "model_id=google/gemma-4-E2B-it-qat-w4a16-ct",
    "overhead_s=0.131",
    "prefill_s_per_token=0.00005",
    "step_ms=1:9.5147,4:9.9621,16:12.5987",
    "jitter=0.01",
    "weights_gib=8.01",
    "load_s=66.190265",
    "kv_cache_tokens=867999",
    "quantization=compressed-tensors",
    "answer.add:257:388:290=655",
    "answer.add:470:238:983=-285",
    "answer.add:150:937:139=1010",
    NULL,
};

/* The GPU classes of the built-ins (emulator/README.md, "Instance types", has the
 * sources): a decode step reads the weights and the KV cache once, so its time goes
 * as the memory bandwidth; prefill is matrix products, so its time per token goes as
 * the dense BF16 tensor throughput. The article measured the L4 profiles; the others
 * are those times scaled by the ratios to the L4, everything else kept. */
static const struct model_gpu model_gpus[] = {
    {"l4", "ml.g6.xlarge", 300, 121, 24},
    {"a10g", "ml.g5.xlarge", 600, 70, 24},
    {"l40s", "ml.g6e.xlarge", 864, 362, 48},
};
#define MODEL_GPU_L4 (&model_gpus[0])

static const struct {
    const char *name;
    const char *const *settings, *const *client;
    const struct model_gpu *gpu;
} model_builtins[] = {
    {"instant", model_instant, NULL, NULL},
    {"bf16-l4", model_bf16, NULL, MODEL_GPU_L4},
    {"qat-l4", model_qat, NULL, MODEL_GPU_L4},
    {"bf16-l4-awscli", model_bf16, model_awscli, MODEL_GPU_L4},
    {"qat-l4-awscli", model_qat, model_awscli, MODEL_GPU_L4},
    {"bf16-a10g", model_bf16, NULL, &model_gpus[1]},
    {"qat-a10g", model_qat, NULL, &model_gpus[1]},
    {"bf16-l40s", model_bf16, NULL, &model_gpus[2]},
    {"qat-l40s", model_qat, NULL, &model_gpus[2]},
};

const char *model_builtin_names(void) {
    return "bf16-l4, qat-l4, bf16-l4-awscli, qat-l4-awscli, bf16-a10g, qat-a10g, bf16-l40s, "
           "qat-l40s, instant";
}

const struct model_gpu *model_gpu_of(const char *name) {
    for (size_t i = 0; i < sizeof model_builtins / sizeof *model_builtins; i++)
        if (strcmp(name, model_builtins[i].name) == 0) return model_builtins[i].gpu;
    return NULL;
}

/* Moves a profile measured on the L4 to gpu: decode steps by the bandwidths' ratio,
 * prefill by the tensor throughputs', the KV cache (for the log) by the memory left
 * after the weights at vLLM's default gpu_memory_utilization of 0.9. */
static void model_move_to(struct model_profile *p, const struct model_gpu *gpu) {
    const struct model_gpu *l4 = MODEL_GPU_L4;
    if (gpu == l4) return;
    for (size_t i = 0; i < p->n_steps; i++) p->steps[i].seconds *= l4->mem_gbps / gpu->mem_gbps;
    p->prefill_s_per_token *= l4->bf16_tflops / gpu->bf16_tflops;
    double free_l4 = 0.9 * l4->mem_gib - p->weights_gib;
    double free_gpu = 0.9 * gpu->mem_gib - p->weights_gib;
    if (free_l4 > 0 && free_gpu > 0)
        p->kv_cache_tokens = (unsigned long)((double)p->kv_cache_tokens * free_gpu / free_l4);
}

static void model_apply_builtin(struct model_profile *p, const char *const *settings) {
    struct buf err;
    buf_init(&err, 256);
    for (const char *const *s = settings; s && *s; s++) {
        char key[64];
        const char *eq = strchr(*s, '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - *s), *s);
        if (model_set(p, key, eq + 1, &err)) abort(); /* a broken built-in table */
    }
    buf_free(&err);
}

static void model_defaults(struct model_profile *p, const char *name) {
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->model_id, sizeof p->model_id, "emulated-model");
    snprintf(p->vllm_version, sizeof p->vllm_version, "0.30.0");
    snprintf(p->dtype, sizeof p->dtype, "torch.bfloat16");
    p->max_seqs = 256;
    p->max_model_len = 8192;
    p->default_tokens = 128;
    p->weight = 1;
    p->slow_first_byte_s = 5;
    p->stream_stall_s = 5;
    p->session_ttl_s = 1200;
    snprintf(p->reasoning_field, sizeof p->reasoning_field, "reasoning");
    snprintf(p->continuous_usage, sizeof p->continuous_usage, "accept");
}

int model_builtin(const char *name, struct model_profile *p) {
    for (size_t i = 0; i < sizeof model_builtins / sizeof *model_builtins; i++) {
        if (strcmp(name, model_builtins[i].name) != 0) continue;
        model_defaults(p, name);
        model_apply_builtin(p, model_builtins[i].settings);
        model_apply_builtin(p, model_builtins[i].client);
        if (model_builtins[i].gpu) model_move_to(p, model_builtins[i].gpu);
        return MODEL_OK;
    }
    return MODEL_ERR_UNKNOWN;
}

int model_find(const struct model_library *lib, const char *name, struct model_profile *p) {
    for (size_t i = 0; lib && i < lib->n; i++)
        if (strcmp(lib->profiles[i].name, name) == 0) return model_copy(p, &lib->profiles[i]);
    return model_builtin(name, p);
}

static int model_parse_double(const char *value, double lo, double hi, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(value, &end);
    if (end == value || *end || errno || !(v >= lo && v <= hi)) return MODEL_ERR_INVALID;
    *out = v;
    return MODEL_OK;
}

static int model_parse_ulong(const char *value, unsigned long max, unsigned long *out) {
    char *end = NULL;
    errno = 0;
    if (*value < '0' || *value > '9') return MODEL_ERR_INVALID;
    unsigned long v = strtoul(value, &end, 10);
    if (*end || errno || v > max) return MODEL_ERR_INVALID;
    *out = v;
    return MODEL_OK;
}

/* "1:19.5,4:20.8": batch sizes strictly increasing from 1, times >= 0 (both finite,
 * at most 1e9 like every other parameter). */
static int model_parse_steps(struct model_profile *p, const char *value) {
    struct model_step steps[MODEL_STEP_MAX] = {{0}};
    size_t n = 0;
    const char *s = value;
    while (*s) {
        char *end = NULL;
        if (n == MODEL_STEP_MAX) return MODEL_ERR_INVALID;
        steps[n].batch = strtod(s, &end);
        if (end == s || *end != ':' || !(steps[n].batch >= 1 && steps[n].batch <= 1e9) ||
            (n > 0 && steps[n].batch <= steps[n - 1].batch))
            return MODEL_ERR_INVALID;
        s = end + 1;
        steps[n].seconds = strtod(s, &end) / 1000.0;
        if (end == s || !(steps[n].seconds >= 0 && steps[n].seconds <= 1e9) ||
            (*end && *end != ','))
            return MODEL_ERR_INVALID;
        s = *end ? end + 1 : end;
        n++;
    }
    memcpy(p->steps, steps, n * sizeof *steps);
    p->n_steps = n;
    return MODEL_OK;
}

static int model_set_answer(struct model_profile *p, const char *key, const char *value) {
    for (size_t i = 0; i < p->n_answers; i++) {
        if (strcmp(p->answers[i].key, key) != 0) continue;
        char *text = strdup(value);
        if (!text) return MODEL_ERR_NOMEM;
        free(p->answers[i].text);
        p->answers[i].text = text;
        return MODEL_OK;
    }
    struct model_answer *a = realloc(p->answers, (p->n_answers + 1) * sizeof *a);
    if (!a) return MODEL_ERR_NOMEM;
    p->answers = a;
    a[p->n_answers] = (struct model_answer){strdup(key), strdup(value)};
    if (!a[p->n_answers].key || !a[p->n_answers].text) {
        free(a[p->n_answers].key);
        free(a[p->n_answers].text);
        return MODEL_ERR_NOMEM;
    }
    p->n_answers++;
    return MODEL_OK;
}

/* The numeric parameters: seconds, fractions and counts. */
static int model_set_number(const struct model_param *mp, char *field, const char *value) {
    double d;
    unsigned long ul;
    switch (mp->type) {
    case MODEL_T_SECONDS:
    case MODEL_T_FRACTION:
        if (model_parse_double(value, 0, mp->type == MODEL_T_SECONDS ? 1e9 : 0.5, &d))
            return MODEL_ERR_INVALID;
        memcpy(field, &d, sizeof d);
        return MODEL_OK;
    case MODEL_T_UINT:
        if (model_parse_ulong(value, 100000000UL, &ul) || ul == 0) return MODEL_ERR_INVALID;
        *(unsigned *)(void *)field = (unsigned)ul;
        return MODEL_OK;
    case MODEL_T_ULONG:
        if (model_parse_ulong(value, 1000000000000UL, &ul)) return MODEL_ERR_INVALID;
        if (mp->offset == offsetof(struct model_profile, reasoning_tokens) && ul > 100000)
            return MODEL_ERR_INVALID;
        if (mp->offset == offsetof(struct model_profile, prompt_tokens_details) && ul > 1)
            return MODEL_ERR_INVALID;
        if ((mp->offset == offsetof(struct model_profile, spec_tokens) ||
             mp->offset == offsetof(struct model_profile, spec_accepted)) &&
            ul > MODEL_SPEC_MAX)
            return MODEL_ERR_INVALID;
        memcpy(field, &ul, sizeof ul);
        return MODEL_OK;
    case MODEL_T_U64:
        if (model_parse_ulong(value, (unsigned long)-1, &ul)) return MODEL_ERR_INVALID;
        *(uint64_t *)(void *)field = ul;
        return MODEL_OK;
    default:
        return MODEL_ERR_INVALID;
    }
}

static int model_set_param(struct model_profile *p, const struct model_param *mp,
                           const char *value) {
    char *field = (char *)p + mp->offset;
    switch (mp->type) {
    case MODEL_T_STR:
        if (strlen(value) >= mp->size) return MODEL_ERR_INVALID;
        if (field == p->reasoning_field && strcmp(value, "reasoning") != 0 &&
            strcmp(value, "reasoning_content") != 0)
            return MODEL_ERR_INVALID;
        if (field == p->continuous_usage && strcmp(value, "accept") != 0 &&
            strcmp(value, "reject") != 0)
            return MODEL_ERR_INVALID;
        memcpy(field, value, strlen(value) + 1);
        return MODEL_OK;
    case MODEL_T_FORMAT:
        if (strcmp(value, "vllm") == 0)
            p->format = MODEL_VLLM;
        else if (strcmp(value, "tgi") == 0)
            p->format = MODEL_TGI;
        else if (strcmp(value, "lmi") == 0)
            p->format = MODEL_LMI;
        else
            return MODEL_ERR_INVALID;
        return MODEL_OK;
    case MODEL_T_STEPS:
        return model_parse_steps(p, value);
    default:
        return model_set_number(mp, field, value);
    }
}

static int model_set_text(struct model_profile *p, const char *key, const char *value,
                          struct buf *err) {
    if (strncmp(key, "answer.", 7) == 0 && key[7])
        return model_set_answer(p, key + 7, value) ? buf_fail(err, MODEL_ERR_NOMEM, "out of memory")
                                                   : MODEL_OK;
    if (strncmp(key, "fault.", 6) == 0) {
        int kind = fault_lookup(key + 6);
        if (kind == FAULT_NONE)
            return buf_fail(err, MODEL_ERR_INVALID,
                            "unknown fault '%s' (throttle, unavailable, internal, "
                            "model_error, drop, truncate, slow, stream_error, stream_failure, "
                            "stream_stall, stream_crc, stream_cut)",
                            key + 6);
        return fault_parse_spec(value, &p->faults[kind], err) ? MODEL_ERR_INVALID : MODEL_OK;
    }
    for (size_t i = 0; i < sizeof model_params / sizeof *model_params; i++) {
        if (strcmp(key, model_params[i].key) != 0) continue;
        if (model_set_param(p, &model_params[i], value) == 0) return MODEL_OK;
        return buf_fail(err, MODEL_ERR_INVALID, "bad value '%s' for %s (%s)", value, key,
                        model_params[i].help);
    }
    return buf_fail(err, MODEL_ERR_INVALID, "unknown profile parameter '%s'", key);
}

int model_set(struct model_profile *p, const char *key, const char *value, struct buf *err) {
    int rc = model_set_text(p, key, value, err);
    if (rc) buf_one_line(err);
    return rc;
}

int model_copy(struct model_profile *dst, const struct model_profile *src) {
    *dst = *src;
    dst->answers = NULL;
    dst->n_answers = 0;
    for (size_t i = 0; i < src->n_answers; i++) {
        if (model_set_answer(dst, src->answers[i].key, src->answers[i].text)) {
            model_free(dst);
            return MODEL_ERR_NOMEM;
        }
    }
    return MODEL_OK;
}

void model_free(struct model_profile *p) {
    for (size_t i = 0; i < p->n_answers; i++) {
        free(p->answers[i].key);
        free(p->answers[i].text);
    }
    free(p->answers);
    p->answers = NULL;
    p->n_answers = 0;
}

double model_step_s(const struct model_profile *p, unsigned b) {
    const struct model_step *s = p->steps;
    size_t n = p->n_steps;
    if (n == 0) return 0;
    if (n == 1) return s[0].seconds;
    size_t i = 0; /* the segment [i, i+1] used for b */
    while (i + 2 < n && b > s[i + 1].batch) i++;
    double slope = (s[i + 1].seconds - s[i].seconds) / (s[i + 1].batch - s[i].batch);
    double t = s[i].seconds + slope * ((double)b - s[i].batch);
    return t > 0 ? t : 0;
}

const char *model_answer(const struct model_profile *p, const char *key) {
    for (size_t i = 0; i < p->n_answers; i++)
        if (strcmp(p->answers[i].key, key) == 0) return p->answers[i].text;
    return NULL;
}

bool model_is_instant(const struct model_profile *p) {
    for (size_t i = 0; i < p->n_steps; i++)
        if (p->steps[i].seconds > 0) return false;
    return p->overhead_s == 0 && p->client_s == 0 && p->prefill_s_per_token == 0;
}

int model_help(struct buf *out) {
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof model_params / sizeof *model_params; i++)
        rc = buf_addf(out, "  %-20s %s\n", model_params[i].key, model_params[i].help);
    if (!rc)
        rc = buf_adds(out, "  answer.KEY           the wrong reply to one quiz question; KEY is\n"
                           "                       mul:A:B, add:A:B:C or cap:COUNTRY\n"
                           "  fault.KIND           RATE (0..1) or every:N; KIND is throttle,\n"
                           "                       unavailable, internal, model_error, drop,\n"
                           "                       truncate, slow or lose (counted, then closed\n"
                           "                       unanswered); for streamed replies also\n"
                           "                       stream_error (ModelStreamError StreamBroken),\n"
                           "                       stream_failure (InternalStreamFailure),\n"
                           "                       stream_stall, stream_crc or stream_cut, each\n"
                           "                       at the reply's middle token\n");
    return rc;
}

/* One JSON value as the text model_set() takes: numbers, strings, and for
 * step_ms also [[B, MS], ...]. */
static int model_json_text(const cJSON *v, struct buf *text) {
    if (cJSON_IsString(v)) return buf_adds(text, v->valuestring) ? MODEL_ERR_NOMEM : MODEL_OK;
    if (cJSON_IsNumber(v))
        return buf_addf(text, "%.17g", v->valuedouble) ? MODEL_ERR_NOMEM : MODEL_OK;
    if (!cJSON_IsArray(v)) return MODEL_ERR_INVALID;
    const cJSON *pair;
    cJSON_ArrayForEach(pair, v) {
        const cJSON *b = cJSON_GetArrayItem(pair, 0), *ms = cJSON_GetArrayItem(pair, 1);
        if (cJSON_GetArraySize(pair) != 2 || !cJSON_IsNumber(b) || !cJSON_IsNumber(ms))
            return MODEL_ERR_INVALID;
        if (buf_addf(text, "%s%.17g:%.17g", text->len ? "," : "", b->valuedouble, ms->valuedouble))
            return MODEL_ERR_NOMEM;
    }
    return MODEL_OK;
}

/* Applies one member of a profile (or of its "answers" / "faults" when prefix is set). */
static int model_json_member(struct model_profile *p, const cJSON *item, const char *prefix,
                             struct buf *err);

/* Applies the members of obj as "prefix.KEY" (or KEY) settings. */
static int model_json_apply(struct model_profile *p, const cJSON *obj, const char *prefix,
                            struct buf *err) {
    const cJSON *item;
    cJSON_ArrayForEach(item, obj) {
        if (strcmp(item->string, "base") == 0 && !*prefix) continue;
        int rc = model_json_member(p, item, prefix, err);
        if (rc) return rc;
    }
    return MODEL_OK;
}

static int model_json_member(struct model_profile *p, const cJSON *item, const char *prefix,
                             struct buf *err) {
    bool nested =
        !*prefix && (strcmp(item->string, "answers") == 0 || strcmp(item->string, "faults") == 0);
    if (nested && !cJSON_IsObject(item))
        return buf_fail(err, MODEL_ERR_INVALID, "bad value for '%s'", item->string);
    if (nested) return model_json_apply(p, item, item->string[0] == 'a' ? "answer" : "fault", err);
    struct buf key, text;
    buf_init(&key, 256);
    buf_init(&text, 4096);
    int rc = buf_addf(&key, "%s%s%s", prefix, *prefix ? "." : "", item->string) ? MODEL_ERR_INVALID
                                                                                : MODEL_OK;
    if (!rc) rc = model_json_text(item, &text);
    if (rc)
        rc = buf_fail(err, rc, "bad value for '%s'", item->string);
    else
        rc = model_set(p, buf_str(&key), buf_str(&text), err);
    buf_free(&key);
    buf_free(&text);
    return rc;
}

static int model_library_add(struct model_library *lib, const char *name, const cJSON *def,
                             const char *path, struct buf *err) {
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(def, "base");
    struct model_profile p;
    const char *base_name = cJSON_IsString(base) ? base->valuestring : "instant";
    if (!cJSON_IsObject(def) || strlen(name) >= MODEL_NAME_MAX)
        return buf_fail(err, MODEL_ERR_INVALID,
                        "%s: profile '%s' must be an object with a short name", path, name);
    int rc = model_find(lib, base_name, &p);
    if (rc)
        return buf_fail(err, rc, "%s: profile '%s': unknown base profile '%s'", path, name,
                        base_name);
    snprintf(p.name, sizeof p.name, "%s", name);
    struct buf why;
    buf_init(&why, 512);
    rc = model_json_apply(&p, def, "", &why);
    if (rc) (void)buf_fail(err, rc, "%s: profile '%s': %s", path, name, buf_str(&why));
    buf_free(&why);
    struct model_profile *grown = rc ? NULL : realloc(lib->profiles, (lib->n + 1) * sizeof p);
    if (!grown) {
        model_free(&p);
        return rc ? rc : buf_fail(err, MODEL_ERR_NOMEM, "out of memory");
    }
    lib->profiles = grown;
    lib->profiles[lib->n++] = p;
    return MODEL_OK;
}

int model_library_load(struct model_library *lib, const char *path, struct buf *err) {
    struct buf text;
    buf_init(&text, 16 << 20);
    int rd = readall_path(path, &text);
    cJSON *root = rd ? NULL : cJSON_ParseWithLength(text.data ? text.data : "", text.len);
    buf_free(&text);
    const cJSON *profiles = cJSON_GetObjectItemCaseSensitive(root, "profiles"), *def;
    int rc = MODEL_OK;
    if (rd)
        rc = buf_fail(err, MODEL_ERR_IO, "%s: cannot read: %s", path,
                      smerr_read_why(rd, "larger than 16 MiB"));
    else if (!cJSON_IsObject(profiles))
        rc = buf_fail(err, MODEL_ERR_INVALID, "%s: not JSON with a \"profiles\" object", path);
    if (!rc) {
        cJSON_ArrayForEach(def, profiles) {
            rc = model_library_add(lib, def->string, def, path, err);
            if (rc) break;
        }
    }
    cJSON_Delete(root);
    if (rc) buf_one_line(err);
    return rc;
}

void model_library_free(struct model_library *lib) {
    for (size_t i = 0; i < lib->n; i++) model_free(&lib->profiles[i]);
    free(lib->profiles);
    lib->profiles = NULL;
    lib->n = 0;
}
