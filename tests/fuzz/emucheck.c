#include "emucheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
