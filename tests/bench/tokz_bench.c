/* tokz_bench: the cost of building a prompt of exactly N tokens with a model's
 * tokenizer (common/tokz.h), for tests/bench/run's tokenizer part.
 *
 *   tokz_bench FILE N REPS   prints "us_per_1000 X tokens N checked C"
 *
 * X is the quickest of 5 batches of REPS builds (each from its own seed, into a
 * buffer kept between builds as sm.workload's items are), in microseconds per
 * 1,000 tokens; C is the tokenizer's own count of the first prompt (= N). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tokz.h"

static double tokz_bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: tokz_bench FILE N REPS\n");
        return 2;
    }
    size_t n = strtoul(argv[2], NULL, 10), reps = strtoul(argv[3], NULL, 10), checked = 0;
    struct buf err, out;
    buf_init(&err, 1024);
    buf_init(&out, BUF_NO_CAP);
    struct tokz *t = NULL;
    if (tokz_open(argv[1], &t, &err)) {
        fprintf(stderr, "tokz_bench: %s\n", buf_str(&err));
        buf_free(&err);
        return 2;
    }
    int rc = tokz_prompt(t, n, 1, &out) || tokz_count(t, out.data, out.len, &checked, &err);
    double best = 0;
    for (int batch = 0; batch < 5 && !rc; batch++) {
        double start = tokz_bench_now();
        for (size_t i = 0; i < reps && !rc; i++) {
            buf_reset(&out);
            rc = tokz_prompt(t, n, i + 2, &out);
        }
        double us = (tokz_bench_now() - start) * 1e6 / (double)reps / ((double)n / 1000);
        if (batch == 0 || us < best) best = us;
    }
    if (!rc) printf("us_per_1000 %.4f tokens %zu checked %zu\n", best, n, checked);
    tokz_free(t);
    buf_free(&out);
    buf_free(&err);
    return rc ? 1 : 0;
}
