#include "emucheck.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static void emucheck_steps(const struct model_profile *p) {
    static const unsigned batches[] = {1, 2, 7, 256, 100000};
    if (p->n_steps > MODEL_STEP_MAX) abort();
    for (size_t i = 0; i < p->n_steps; i++)
        if (!(p->steps[i].batch >= 1) || !isfinite(p->steps[i].seconds) ||
            p->steps[i].seconds < 0 || (i && p->steps[i].batch <= p->steps[i - 1].batch))
            abort();
    for (size_t i = 0; i < sizeof batches / sizeof *batches; i++) {
        double s = model_step_s(p, batches[i]);
        if (!isfinite(s) || s < 0) abort();
    }
}

void emucheck_profile(const struct model_profile *p) {
    const double times[] = {p->overhead_s,  p->client_s, p->prefill_s_per_token, p->weight,
                            p->weights_gib, p->load_s,   p->slow_first_byte_s,   p->stream_stall_s};
    for (size_t i = 0; i < sizeof times / sizeof *times; i++)
        if (!(times[i] >= 0 && times[i] <= 1e9)) abort();
    if (!(p->jitter >= 0 && p->jitter <= 0.5) || p->max_seqs < 1 || p->max_model_len < 1 ||
        p->default_tokens < 1 || !memchr(p->name, 0, sizeof p->name) ||
        !memchr(p->model_id, 0, sizeof p->model_id) ||
        !memchr(p->quantization, 0, sizeof p->quantization) ||
        !memchr(p->vllm_version, 0, sizeof p->vllm_version) ||
        !memchr(p->dtype, 0, sizeof p->dtype))
        abort();
    for (int k = 0; k < FAULT_KINDS; k++)
        if (!(p->faults[k].rate >= 0 && p->faults[k].rate <= 1)) abort();
    for (size_t i = 0; i < p->n_answers; i++)
        if (!p->answers[i].key || !p->answers[i].text ||
            model_answer(p, p->answers[i].key) != p->answers[i].text)
            abort();
    emucheck_steps(p);
}

void emucheck_one_line(const struct buf *err) {
    if (!err->len) abort();
    for (size_t i = 0; i < err->len; i++)
        if ((unsigned char)err->data[i] < ' ' || err->data[i] == 0x7f) abort();
}

bool emucheck_utf8(const char *s, size_t n) {
    uint32_t c;
    for (size_t i = 0, k; i < n; i += k)
        if (!(k = utf8_decode((const unsigned char *)s + i, n - i, &c))) return false;
    return true;
}

#define EMUCHECK_XML_DEPTH 16

/* The length of the element name at s[0..n): up to a space, '/' or '>'. */
static size_t emucheck_name(const char *s, size_t n) {
    size_t k = 0;
    while (k < n && s[k] != ' ' && s[k] != '>' && s[k] != '/') k++;
    return k;
}

void emucheck_xml(const char *s, size_t n, const char *root) {
    static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    const char *open[EMUCHECK_XML_DEPTH];
    size_t open_len[EMUCHECK_XML_DEPTH], depth = 0;
    bool first = true;
    if (!emucheck_utf8(s, n)) abort();
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c < ' ' && c != '\t' && c != '\n' && c != '\r') abort();
        if (c == '>') abort();
        if (c == '&') {
            size_t e = 0;
            while (e < 5 && !(n - i >= strlen(ents[e]) && !memcmp(s + i, ents[e], strlen(ents[e]))))
                e++;
            if (e == 5) abort();
            i += strlen(ents[e]);
            continue;
        }
        if (c != '<') {
            i++;
            continue;
        }
        const char *gt = memchr(s + i, '>', n - i);
        if (!gt) abort();
        size_t end = (size_t)(gt - s) + 1, in = end - i - 2; /* between '<' and '>' */
        const char *t = s + i + 1;
        if (t[0] == '?') {
            if (!first || in < 2 || t[in - 1] != '?') abort();
        } else if (t[0] == '/') {
            size_t k = emucheck_name(t + 1, in - 1);
            if (!depth || k != in - 1 || k != open_len[depth - 1] ||
                memcmp(t + 1, open[depth - 1], k) != 0)
                abort();
            depth--;
        } else {
            size_t k = emucheck_name(t, in);
            bool empty = in && t[in - 1] == '/';
            if (!k || (first && (k != strlen(root) || memcmp(t, root, k) != 0)) ||
                (!first && !depth) || memchr(t, '<', in))
                abort();
            first = false;
            if (!empty) {
                if (depth == EMUCHECK_XML_DEPTH) abort();
                open[depth] = t;
                open_len[depth++] = k;
            }
        }
        i = end;
    }
    if (depth || first) abort();
}
