#include "reply.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "awserr.h"
#include "rfield.h"
#include "rscan.h"
#include "scrub.h"

#define REPLY_COUNT_MAX 9e15 /* larger token counts are not believed (nor cast) */

void reply_init(struct reply *r) {
    *r = (struct reply){
        .prompt_tokens = -1, .completion_tokens = -1, .reasoning_tokens = -1, .cached_tokens = -1};
}

void reply_clear(struct reply *r) {
    free(r->text);
    free(r->finish_reason);
    free(r->error_code);
    free(r->error_message);
    reply_init(r);
}

static char *reply_dup(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static bool reply_blank(unsigned char c) {
    return c <= ' ' || c == 0x7f;
}

/* A copy of s on one line: control characters become spaces, surrounding blanks go,
 * and at most REPLY_MESSAGE_MAX bytes stay, cut before a UTF-8 continuation byte. */
static char *reply_line(const char *s, size_t n) {
    while (n && reply_blank((unsigned char)*s)) s++, n--;
    if (n > REPLY_MESSAGE_MAX) {
        n = REPLY_MESSAGE_MAX;
        /* s[n] lies inside s: n was cut below its length */
        // NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult)
        while (n && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    }
    while (n && reply_blank((unsigned char)s[n - 1])) n--;
    char *d = reply_dup(s, n);
    if (!d) return NULL;
    for (size_t i = 0; i < n; i++)
        if (reply_blank((unsigned char)d[i])) d[i] = ' ';
    return d;
}

static const char *reply_string(const cJSON *obj, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A count member of obj as rscan reads one: NAN when absent or null, -1 when of
 * another type, else the number. */
static double reply_count(const cJSON *obj, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return !v || cJSON_IsNull(v) ? NAN : cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Sets a malloc'ed copy of s (or NULL) into *dst; false when out of memory. */
static bool reply_set(char **dst, const char *s) {
    if (!s) return true;
    *dst = reply_dup(s, strlen(s));
    return *dst != NULL;
}

static bool reply_set_error(struct reply *r, const char *code, const char *msg) {
    r->error_code = reply_dup(code, strlen(code));
    r->error_message = reply_line(msg, strlen(msg));
    return r->error_code && r->error_message;
}

/* *out from v (-1 when absent); a value that is there but not a whole number of
 * tokens makes r a parse error naming field (unless it is one already). Returns
 * false when out of memory. */
static bool reply_take_count(struct reply *r, const char *field, double v, long *out) {
    *out = -1;
    if (isnan(v)) return true;
    if (v >= 0 && v < REPLY_COUNT_MAX && v == floor(v)) {
        *out = (long)v;
        return true;
    }
    char msg[128];
    snprintf(msg, sizeof msg, "%s is not a whole number of tokens (%.6g)", field, v);
    return r->error_code || reply_set_error(r, "parse", msg);
}

/* Both counts (a prompt count of NAN: the format has none); false when out of
 * memory. A count that is no count makes r a parse error without any count. */
static bool reply_counts(struct reply *r, const char *prompt_field, double prompt,
                         const char *completion_field, double completion) {
    bool ok = reply_take_count(r, prompt_field, prompt, &r->prompt_tokens) &&
              reply_take_count(r, completion_field, completion, &r->completion_tokens);
    if (r->error_code) r->prompt_tokens = r->completion_tokens = -1;
    return ok;
}

/* The reasoning tokens among the completion tokens, when the usage says them
 * (its completion_tokens_details); false when out of memory. */
static bool reply_reasoning(struct reply *r, double v) {
    if (r->error_code) return true;
    bool ok = reply_take_count(r, "usage.completion_tokens_details.reasoning_tokens", v,
                               &r->reasoning_tokens);
    if (r->error_code) r->prompt_tokens = r->completion_tokens = r->reasoning_tokens = -1;
    return ok;
}

/* The prompt tokens the server's prefix cache served, when the usage says them
 * (its prompt_tokens_details: vLLM with --enable-prompt-tokens-details, OpenAI;
 * a null details says none); false when out of memory. */
static bool reply_cached(struct reply *r, double v) {
    if (r->error_code) return true;
    bool ok =
        reply_take_count(r, "usage.prompt_tokens_details.cached_tokens", v, &r->cached_tokens);
    if (r->error_code)
        r->prompt_tokens = r->completion_tokens = r->reasoning_tokens = r->cached_tokens = -1;
    return ok;
}

static const char reply_no_choice[] = "reply has no choices[0].message or text";

/* vLLM: choices[0].message.content (null for a reply that is all reasoning) or .text. */
static bool reply_vllm(const cJSON *root, bool want_text, struct reply *r) {
    const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "choices"), 0);
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(choice, "message");
    const char *text = msg ? reply_string(msg, "content") : reply_string(choice, "text");
    if (!cJSON_IsObject(choice) || (!msg && !text))
        return reply_set_error(r, "parse", reply_no_choice);
    if (!reply_counts(r, "usage.prompt_tokens", reply_count(usage, "prompt_tokens"),
                      "usage.completion_tokens", reply_count(usage, "completion_tokens")) ||
        !reply_reasoning(
            r, reply_count(cJSON_GetObjectItemCaseSensitive(usage, "completion_tokens_details"),
                           "reasoning_tokens")) ||
        !reply_cached(r,
                      reply_count(cJSON_GetObjectItemCaseSensitive(usage, "prompt_tokens_details"),
                                  "cached_tokens")))
        return false;
    if (r->error_code) return true;
    return (!want_text || reply_set(&r->text, text ? text : "")) &&
           reply_set(&r->finish_reason, reply_string(choice, "finish_reason"));
}

/* TGI (a one-element array) and DJL LMI (the object itself). */
static bool reply_generated(const cJSON *obj, bool want_text, struct reply *r) {
    const cJSON *details = cJSON_GetObjectItemCaseSensitive(obj, "details");
    if (!reply_counts(r, NULL, NAN, "details.generated_tokens",
                      reply_count(details, "generated_tokens")))
        return false;
    if (r->error_code) return true;
    return (!want_text || reply_set(&r->text, reply_string(obj, "generated_text"))) &&
           reply_set(&r->finish_reason, reply_string(details, "finish_reason"));
}

/* A malloc'ed copy of a scanned string, cut at a decoded NUL as cJSON's C strings are. */
static char *reply_scan_dup(const struct jscan_str *str) {
    if (!str->escaped) return reply_dup(str->s, str->n);
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    char *out =
        jscan_str_decode(str, &b) == BUF_OK ? reply_dup(buf_str(&b), strlen(buf_str(&b))) : NULL;
    buf_free(&b);
    return out;
}

/* 1: r filled from a vLLM reply the scanner read (rscan.h); 0: cJSON must
 * read it; -1: out of memory. */
static int reply_scan(const char *body, size_t len, bool want_text, struct reply *r) {
    struct rscan_reply v;
    if (!rscan_vllm(body, len, &v)) return 0;
    r->scanned = true;
    if (!v.message && !v.has_text) return reply_set_error(r, "parse", reply_no_choice) ? 1 : -1;
    if (!reply_counts(r, "usage.prompt_tokens", v.prompt_tokens, "usage.completion_tokens",
                      v.completion_tokens) ||
        !reply_reasoning(r, v.reasoning_tokens) || !reply_cached(r, v.cached_tokens))
        return -1;
    if (r->error_code) return 1;
    if (want_text && !(r->text = v.has_text ? reply_scan_dup(&v.text) : reply_dup("", 0)))
        return -1;
    if (v.has_finish && !(r->finish_reason = reply_scan_dup(&v.finish))) return -1;
    return 1;
}

static bool reply_success(const char *body, size_t len, unsigned flags, struct reply *r) {
    bool want_text = flags & REPLY_TEXT;
    if (!(flags & REPLY_NO_SCAN)) {
        int rc = reply_scan(body, len, want_text, r);
        if (rc) return rc > 0;
    }
    cJSON *root = cJSON_ParseWithLength(body, len);
    const cJSON *first = cJSON_IsArray(root) ? cJSON_GetArrayItem(root, 0) : root;
    bool ok;
    if (!root)
        ok = reply_set_error(r, "parse", "reply is not JSON");
    else if (cJSON_GetObjectItemCaseSensitive(root, "choices"))
        ok = reply_vllm(root, want_text, r);
    else if (reply_string(first, "generated_text"))
        ok = reply_generated(first, want_text, r);
    else
        ok = reply_set_error(r, "parse", "reply has neither choices nor generated_text");
    cJSON_Delete(root);
    return ok;
}

/* The containers' own error bodies, which name no code AWS-style: vLLM's
 * {"error":{"message":M,"type":T}} and its older flat {"object":"error",
 * "message":M,"type":T}; TGI's {"error":M,"error_type":T}. */
static const char *reply_container_error(const cJSON *root, bool want_message) {
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
    if (cJSON_IsString(error))
        return want_message ? error->valuestring : reply_string(root, "error_type");
    const char *field = want_message ? "message" : "type";
    const char *v = reply_string(error, field);
    return v ? v : reply_string(root, field);
}

/* "container answered S: M" for a 424 that carries the container's own reply. */
static void reply_original(const cJSON *root, int status, struct reply *r) {
    const char *orig = reply_string(root, "OriginalMessage");
    r->original_status = status;
    cJSON *inner = orig ? cJSON_Parse(orig) : NULL;
    const char *m = inner ? reply_container_error(inner, true) : NULL;
    if (!m) m = orig ? orig : "";
    char head[48];
    int n = snprintf(head, sizeof head, "container answered %d: ", r->original_status);
    size_t mlen = strlen(m);
    char *joined = malloc((size_t)n + mlen + 1);
    if (joined) {
        memcpy(joined, head, (size_t)n);
        memcpy(joined + n, m, mlen + 1);
        r->error_message = reply_line(joined, (size_t)n + mlen);
    }
    free(joined);
    cJSON_Delete(inner);
}

/* The code on one line: AWS's, else the container's, else "http_<status>" (NULL:
 * out of memory). */
static char *reply_code(const struct awserr *e, const cJSON *root, int status) {
    const char *code = e->code[0] ? e->code : reply_container_error(root, false);
    char *line = code ? reply_line(code, strlen(code)) : NULL;
    if (code && !line) return NULL;
    if (line && *line) return line;
    free(line);
    char fallback[24];
    snprintf(fallback, sizeof fallback, "http_%d", status);
    return reply_dup(fallback, strlen(fallback));
}

/* Whether a failure is an inference component's refusal for having no copy serving:
 * a 400 ValidationError whose message says "no capacity" (SageMaker's wording as
 * reported: "Inference Component has no capacity to process this request. ..."). */
static bool reply_no_capacity(int status, const char *code, const char *msg) {
    if (status != 400 || !code || !msg || strcmp(code, "ValidationError") != 0) return false;
    static const char words[] = "no capacity";
    for (const char *p = msg; *p; p++)
        if (strncasecmp(p, words, sizeof words - 1) == 0) return true;
    return false;
}

static bool reply_failure(const char *error_type, const char *body, size_t len, struct reply *r) {
    struct awserr e;
    awserr_parse(error_type, body, len, &e);
    cJSON *root = cJSON_ParseWithLength(body, len);
    const char *msg = e.message[0] ? e.message : reply_container_error(root, true);
    r->error_code = reply_code(&e, root, r->status);
    double status = reply_count(root, "OriginalStatusCode");
    long original = status >= 0 && status < 1000 && status == floor(status) ? (long)status : -1;
    if (original == 0 || (original >= 100 && original <= 999))
        reply_original(root, (int)original, r);
    else if (msg)
        r->error_message = reply_line(msg, strlen(msg));
    else if (len)
        r->error_message = reply_line(body, len);
    else
        r->error_message = reply_dup("(empty body)", 12);
    cJSON_Delete(root);
    if (reply_no_capacity(r->status, r->error_code, r->error_message)) {
        free(r->error_code);
        r->error_code = reply_dup(RFIELD_ERROR_NO_CAPACITY, strlen(RFIELD_ERROR_NO_CAPACITY));
    }
    return r->error_code && r->error_message;
}

int reply_parse_with(int status, const char *error_type, const char *body, size_t len,
                     unsigned flags, struct reply *out) {
    out->status = status;
    bool ok = status >= 200 && status < 300 ? reply_success(body, len, flags, out)
                                            : reply_failure(error_type, body, len, out);
    if (!ok) {
        reply_clear(out);
        return REPLY_ERR_NOMEM;
    }
    char *const strings[] = {out->text, out->finish_reason, out->error_code, out->error_message};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        if (strings[i]) scrub_in_place(strings[i]); /* a server may echo the session token */
    return REPLY_OK;
}

int reply_parse(int status, const char *error_type, const char *body, size_t len,
                struct reply *out) {
    return reply_parse_with(status, error_type, body, len, REPLY_TEXT, out);
}

long long reply_service_us(const char *value) {
    long long v = 0;
    size_t n = 0;
    for (; value && value[n] >= '0' && value[n] <= '9' && n < 12; n++)
        v = v * 10 + (value[n] - '0');
    return n && !value[n] && v <= RFIELD_SERVER_US_MAX ? v : -1;
}

void reply_trim(const char *content_length, const char **body, size_t *len) {
    if (!content_length || !*content_length || !*len) return;
    size_t n = 0, most = (*len - 1) / 10; /* a length of *len or more cuts nothing */
    for (const char *p = content_length; *p; p++) {
        if (*p < '0' || *p > '9' || n > most) return;
        n = n * 10 + (size_t)(*p - '0');
    }
    if (n < *len) {
        *body += *len - n;
        *len = n;
    }
}
