#include "facts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* A pattern and the facts its capture groups 1 and 2 fill. */
struct facts_pattern {
    const char *re;
    size_t f1, f2; /* offsets in struct facts; f2 == 0 when there is no group 2 */
    bool text_only;
};

static const struct facts_pattern facts_patterns[] = {
    {"Model loading took ([0-9.]+) Gi?B(?: memory)? and ([0-9.]+) seconds",
     offsetof(struct facts, weights_gib), offsetof(struct facts, load_seconds), false},
    {"GPU KV cache size: ([0-9,]+) tokens", offsetof(struct facts, kv_cache_tokens), 0, false},
    {"Maximum concurrency for ([0-9,]+) tokens per request: ([0-9.]+)x",
     offsetof(struct facts, max_conc_tokens), offsetof(struct facts, max_concurrency), false},
    {"quantization=([\\w-]+)", offsetof(struct facts, quantization), 0, true},
    {"version (\\d+\\.\\d+\\.\\d+)", offsetof(struct facts, vllm_version), 0, true},
};

bool facts_set(struct facts_fact *f, const char *text, size_t n) {
    char digits[sizeof f->text];
    size_t k = 0;
    if (n == 0 || n >= sizeof f->text) return false;
    for (size_t i = 0; i < n; i++)
        if (text[i] != ',') digits[k++] = text[i];
    digits[k] = '\0';
    char *end;
    double v = strtod(digits, &end);
    if (k == 0 || *end || !isfinite(v)) return false;
    memcpy(f->text, text, n);
    f->text[n] = '\0';
    f->value = v;
    f->have = true;
    return true;
}

static void facts_set_text(struct facts_fact *f, const char *text, size_t n) {
    if (n >= sizeof f->text) n = sizeof f->text - 1;
    memcpy(f->text, text, n);
    f->text[n] = '\0';
    f->have = true;
}

static struct facts_fact *facts_at(struct facts *out, size_t off) {
    return (struct facts_fact *)((char *)out + off);
}

/* Applies the last match of p in text. */
static int facts_scan_one(const struct facts_pattern *p, const char *text, size_t n,
                          struct facts *out, struct buf *err) {
    int code;
    PCRE2_SIZE erroff, from = 0;
    pcre2_code *re =
        pcre2_compile((PCRE2_SPTR)p->re, PCRE2_ZERO_TERMINATED, 0, &code, &erroff, NULL);
    pcre2_match_data *md = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
    if (!md) {
        pcre2_code_free(re);
        return buf_fail(err, FACTS_ERR_NOMEM, "out of memory");
    }
    PCRE2_SIZE last[6] = {0};
    bool found = false;
    while (from <= n && pcre2_match(re, (PCRE2_SPTR)text, n, from, 0, md, NULL) > 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t nov = 2 * (size_t)pcre2_get_ovector_count(md);
        memcpy(last, ov, (nov < 6 ? nov : 6) * sizeof *ov);
        found = true;
        from = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
    }
    if (found) {
        if (p->text_only)
            facts_set_text(facts_at(out, p->f1), text + last[2], last[3] - last[2]);
        else
            facts_set(facts_at(out, p->f1), text + last[2], last[3] - last[2]);
        if (p->f2) facts_set(facts_at(out, p->f2), text + last[4], last[5] - last[4]);
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return 0;
}

int facts_scan(const char *text, size_t n, struct facts *out, struct buf *err) {
    for (size_t i = 0; i < sizeof facts_patterns / sizeof facts_patterns[0]; i++) {
        int rc = facts_scan_one(&facts_patterns[i], text ? text : "", n, out, err);
        if (rc < 0) return rc;
    }
    return FACTS_OK;
}

bool facts_any(const struct facts *f) {
    return f->weights_gib.have || f->load_seconds.have || f->kv_cache_tokens.have ||
           f->max_conc_tokens.have || f->max_concurrency.have || f->quantization.have ||
           f->vllm_version.have;
}
