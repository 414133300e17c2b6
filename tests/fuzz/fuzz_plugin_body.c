/* Fuzzes the request body builders (plugin/body.h) with the scenario options a
 * user gives. Input: four parts, one a line:
 *   the format name (vllm-chat, vllm-completions, tgi, lmi, raw)
 *   the options: any of max_tokens=N min_tokens=N temperature=X seed=N ignore_eos
 *   the --extra JSON text (an empty line: none; text cJSON refuses: none)
 *   the prompt (the rest, up to a NUL)
 *
 * A field the format cannot carry, an extra that is not an object and a value
 * the body cannot carry as asked (an integer of more than 15 digits, a number
 * that is not finite, in extra too) are refused with a one-line message and
 * nothing written. Otherwise raw is the prompt itself, and every other body is
 * one JSON object (strict syntax; UTF-8 when the input was) whose field names
 * are unique where the builder writes them, carrying the prompt, exactly the
 * max_tokens, min_tokens and seed asked, the temperature to 15 significant
 * digits (as cJSON writes numbers), ignore_eos (TGI and LMI: in "parameters",
 * greedy as do_sample false) and nothing unasked, save the extra fields, which
 * are all there as cJSON read them and win over the built ones. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "jscan.h"
#include "plugcheck.h"

#define FUZZ_INT_MAX 999999999999999L /* 15 digits: what cJSON writes exactly */
#define FUZZ_PREFIX  "before:"        /* in the output buffer first: body_build appends */

struct fuzz_input {
    char *lines[4]; /* malloc'ed: format, options, extra, prompt */
    struct body_params p;
    cJSON *extra; /* parsed from lines[2], or NULL */
    bool utf8;    /* the input is well-formed UTF-8 */
};

static void fuzz_options(struct fuzz_input *in) {
    char *save = NULL, *w = strtok_r(in->lines[1], " ", &save);
    struct body_params *p = &in->p;
    for (; w; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        const char *v = eq ? eq + 1 : "";
        if (eq) *eq = '\0';
        if (strcmp(w, "max_tokens") == 0) p->max_tokens = strtol(v, NULL, 10);
        if (strcmp(w, "min_tokens") == 0) p->min_tokens = strtol(v, NULL, 10);
        if (strcmp(w, "seed") == 0) p->has_seed = true, p->seed = strtol(v, NULL, 10);
        if (strcmp(w, "temperature") == 0)
            p->has_temperature = true, p->temperature = strtod(v, NULL);
        p->ignore_eos |= strcmp(w, "ignore_eos") == 0;
    }
}

static void fuzz_read(const uint8_t *data, size_t size, struct fuzz_input *in) {
    const char *p = (const char *)data, *end = p + size;
    *in = (struct fuzz_input){.p = {.max_tokens = -1, .min_tokens = -1},
                              .utf8 = plugcheck_utf8(p, size)};
    for (int i = 0; i < 4; i++) {
        const char *nl = i < 3 ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        size_t n = (size_t)((nl ? nl : end) - p);
        if (!(in->lines[i] = strndup(p, n))) abort();
        p = nl ? nl + 1 : end;
    }
    fuzz_options(in);
    in->p.prompt = in->lines[3];
    in->extra = in->lines[2][0] ? cJSON_Parse(in->lines[2]) : NULL;
    in->p.extra = in->extra;
}

static void fuzz_free(struct fuzz_input *in) {
    for (int i = 0; i < 4; i++) free(in->lines[i]);
    cJSON_Delete(in->extra);
}

static bool fuzz_finite(const cJSON *v) {
    const cJSON *child;
    if (cJSON_IsNumber(v)) return isfinite(v->valuedouble);
    cJSON_ArrayForEach(child, v) if (!fuzz_finite(child)) return false;
    return true;
}

/* The rc body_build must give, and the field an unsupported one names. */
static int fuzz_want_rc(enum body_format f, const struct body_params *p, const char **field) {
    bool tgi = f == BODY_TGI || f == BODY_LMI;
    *field = f == BODY_TGI && p->ignore_eos ? "ignore_eos"
             : tgi && p->min_tokens >= 0    ? "min_tokens"
                                            : NULL;
    if (*field) return BODY_ERR_UNSUPPORTED;
    if (p->extra && !cJSON_IsObject(p->extra)) return BODY_ERR_INPUT;
    if (f == BODY_RAW) return BODY_OK;
    if (p->max_tokens > FUZZ_INT_MAX || p->min_tokens > FUZZ_INT_MAX ||
        (p->has_seed && (p->seed > FUZZ_INT_MAX || p->seed < -FUZZ_INT_MAX)) ||
        (p->has_temperature && !isfinite(p->temperature)) || (p->extra && !fuzz_finite(p->extra)))
        return BODY_ERR_INPUT;
    return BODY_OK;
}

/* The last of extra's members named name, or NULL. */
static const cJSON *fuzz_extra(const cJSON *extra, const char *name) {
    const cJSON *m, *last = NULL;
    cJSON_ArrayForEach(m, extra) if (strcmp(m->string, name) == 0) last = m;
    return last;
}

/* Aborts unless obj's field name is the number v (when want) or absent; a
 * fraction to 15 significant digits. */
static void fuzz_number(const cJSON *obj, const cJSON *extra, const char *name, bool want,
                        double v) {
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (fuzz_extra(extra, name)) return;
    if (want ? !cJSON_IsNumber(got) || fabs(got->valuedouble - v) > fabs(v) * 1e-15 : got != NULL)
        abort();
}

/* Aborts unless obj's field name is true (when want) or absent. */
static void fuzz_true(const cJSON *obj, const cJSON *extra, const char *name, bool want) {
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (fuzz_extra(extra, name)) return;
    if (want ? !cJSON_IsTrue(got) : got != NULL) abort();
}

static bool fuzz_is_string(const cJSON *obj, const char *name, const char *s) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsString(v) && strcmp(v->valuestring, s) == 0;
}

static bool fuzz_known(const char *name, const char *const *names) {
    for (; *names; names++)
        if (strcmp(name, *names) == 0) return true;
    return false;
}

/* Aborts unless obj's fields are unique, each one built (named in built) or
 * extra, and every extra field is there as given. */
static void fuzz_fields(const cJSON *obj, const cJSON *extra, const char *const *built) {
    const cJSON *a, *b;
    cJSON_ArrayForEach(a, obj) {
        if (!fuzz_known(a->string, built) && !fuzz_extra(extra, a->string)) abort();
        for (b = a->next; b; b = b->next)
            if (strcmp(a->string, b->string) == 0) abort();
    }
    cJSON_ArrayForEach(a, extra) {
        if (fuzz_extra(extra, a->string) != a) continue;
        char *want = cJSON_PrintUnformatted(a);
        char *got = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(obj, a->string));
        if (!want || !got || strcmp(want, got) != 0) abort();
        cJSON_free(want);
        cJSON_free(got);
    }
}

static void fuzz_vllm(enum body_format f, const struct body_params *p, const cJSON *root) {
    const cJSON *x = p->extra;
    const cJSON *msg = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "messages"), 0);
    if (f == BODY_VLLM_CHAT && !fuzz_extra(x, "messages") &&
        (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "messages")) != 1 ||
         cJSON_GetArraySize(msg) != 2 || !fuzz_is_string(msg, "role", "user") ||
         !fuzz_is_string(msg, "content", p->prompt)))
        abort();
    if (f == BODY_VLLM_COMPLETIONS && !fuzz_extra(x, "prompt") &&
        !fuzz_is_string(root, "prompt", p->prompt))
        abort();
    fuzz_number(root, x, "max_tokens", p->max_tokens >= 0, (double)p->max_tokens);
    fuzz_number(root, x, "temperature", p->has_temperature, p->temperature);
    fuzz_true(root, x, "ignore_eos", p->ignore_eos);
    fuzz_number(root, x, "min_tokens", p->min_tokens >= 0, (double)p->min_tokens);
    fuzz_number(root, x, "seed", p->has_seed, (double)p->seed);
    static const char *const chat[] = {"messages",   "max_tokens", "temperature", "ignore_eos",
                                       "min_tokens", "seed",       NULL};
    static const char *const completions[] = {
        "prompt", "max_tokens", "temperature", "ignore_eos", "min_tokens", "seed", NULL};
    fuzz_fields(root, x, f == BODY_VLLM_CHAT ? chat : completions);
}

static void fuzz_tgi(enum body_format f, const struct body_params *p, const cJSON *root) {
    const cJSON *x = p->extra, *params = cJSON_GetObjectItemCaseSensitive(root, "parameters");
    const cJSON *sample = cJSON_GetObjectItemCaseSensitive(params, "do_sample");
    bool hot = p->has_temperature && p->temperature > 0;
    if (cJSON_GetArraySize(root) != 2 || !fuzz_is_string(root, "inputs", p->prompt) ||
        !cJSON_IsObject(params) ||
        (p->has_temperature && !fuzz_extra(x, "do_sample") &&
         !(hot ? cJSON_IsTrue(sample) : cJSON_IsFalse(sample))))
        abort();
    fuzz_number(params, x, "max_new_tokens", p->max_tokens >= 0, (double)p->max_tokens);
    fuzz_number(params, x, "temperature", hot, p->temperature);
    fuzz_true(params, x, "ignore_eos_token", f == BODY_LMI && p->ignore_eos);
    fuzz_number(params, x, "seed", p->has_seed, (double)p->seed);
    fuzz_true(params, x, "details", true);
    static const char *const built[] = {
        "max_new_tokens", "do_sample", "temperature", "ignore_eos_token", "seed", "details", NULL};
    fuzz_fields(params, x, built);
}

/* A JSON body: one object, strict syntax, UTF-8 when the input was. */
static void fuzz_json(enum body_format f, const struct fuzz_input *in, const char *body,
                      size_t len) {
    struct jscan s;
    const char *end = NULL;
    jscan_init(&s, body, len);
    if (jscan_skip(&s) != 0 || jscan_peek(&s) != 0 || (in->utf8 && !plugcheck_utf8(body, len)))
        abort();
    cJSON *root = cJSON_ParseWithLengthOpts(body, len, &end, false);
    if (!cJSON_IsObject(root) || end != body + len) abort();
    if (f == BODY_TGI || f == BODY_LMI)
        fuzz_tgi(f, &in->p, root);
    else
        fuzz_vllm(f, &in->p, root);
    cJSON_Delete(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct fuzz_input in;
    enum body_format f;
    struct buf out, err;
    const char *field;
    fuzz_read(data, size, &in);
    if (body_format_parse(in.lines[0], &f) != BODY_OK) {
        fuzz_free(&in);
        return 0;
    }
    if (strcmp(body_format_name(f), in.lines[0]) != 0) abort();
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    if (buf_adds(&out, FUZZ_PREFIX) != BUF_OK) abort();
    int rc = body_build(f, &in.p, &out, &err), want = fuzz_want_rc(f, &in.p, &field);
    const char *body = buf_str(&out) + strlen(FUZZ_PREFIX);
    size_t len = out.len - strlen(FUZZ_PREFIX);
    char message[96];
    if (rc != want || strncmp(buf_str(&out), FUZZ_PREFIX, strlen(FUZZ_PREFIX)) != 0) abort();
    if (rc) {
        plugcheck_one_line(buf_str(&err), err.len);
        if (!err.len || len) abort();
        if (field) snprintf(message, sizeof message, "the %s format has no %s", in.lines[0], field);
        if (field && strcmp(buf_str(&err), message) != 0) abort();
    } else if (f == BODY_RAW) {
        if (strcmp(body, in.p.prompt) != 0) abort();
    } else {
        fuzz_json(f, &in, body, len);
    }
    buf_free(&out);
    buf_free(&err);
    fuzz_free(&in);
    return 0;
}
