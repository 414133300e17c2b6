/* The built-in profiles of other instance types are the L4 profiles with the
 * hardware's ratios applied: decode steps by memory bandwidth, prefill by dense
 * BF16 tensor throughput, nothing else changed but the KV cache of the log. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model.h"

static int near(double got, double want) {
    return fabs(got - want) <= 1e-12 * fabs(want);
}

int main(void) {
    const char *pairs[][2] = {{"bf16-l4", "bf16-a10g"},
                              {"qat-l4", "qat-a10g"},
                              {"bf16-l4", "bf16-l40s"},
                              {"qat-l4", "qat-l40s"}};
    const struct model_gpu *l4 = model_gpu_of("bf16-l4");
    if (!l4) return 1;
    CHECK(strcmp(l4->name, "l4") == 0 && strcmp(l4->instance_type, "ml.g6.xlarge") == 0);
    CHECK(model_gpu_of("instant") == NULL && model_gpu_of("gpt-9") == NULL);
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        struct model_profile base, moved;
        CHECK_INT(model_builtin(pairs[i][0], &base), 0);
        CHECK_INT(model_builtin(pairs[i][1], &moved), 0);
        const struct model_gpu *gpu = model_gpu_of(pairs[i][1]);
        CHECK(gpu != NULL && gpu != l4);
        if (!gpu) return 1;
        for (unsigned b = 1; b <= 64; b++)
            CHECK(near(model_step_s(&moved, b),
                       model_step_s(&base, b) * l4->mem_gbps / gpu->mem_gbps));
        CHECK(near(moved.prefill_s_per_token,
                   base.prefill_s_per_token * l4->bf16_tflops / gpu->bf16_tflops));
        CHECK(moved.overhead_s == base.overhead_s && moved.max_seqs == base.max_seqs);
        CHECK_STR(moved.model_id, base.model_id);
        CHECK_STR(moved.quantization, base.quantization);
        CHECK_INT(moved.n_answers, base.n_answers); /* the same model answers the same */
        CHECK(gpu->mem_gib > l4->mem_gib ? moved.kv_cache_tokens > base.kv_cache_tokens
                                         : moved.kv_cache_tokens == base.kv_cache_tokens);
        model_free(&base);
        model_free(&moved);
    }
    CHECK(strcmp(model_gpu_of("qat-a10g")->instance_type, "ml.g5.xlarge") == 0);
    CHECK(strcmp(model_gpu_of("qat-l40s")->instance_type, "ml.g6e.xlarge") == 0);

    /* every name the messages list is a built-in */
    char names[256];
    snprintf(names, sizeof names, "%s", model_builtin_names());
    int n = 0;
    for (char *save = NULL, *t = strtok_r(names, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        struct model_profile p;
        CHECK_INT(model_builtin(t, &p), 0);
        model_free(&p);
        n++;
    }
    CHECK_INT(n, 9);
    return check_exit();
}
