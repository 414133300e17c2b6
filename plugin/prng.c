#include "prng.h"

#include <math.h>
#include <stdlib.h>

/* splitmix64 (Steele, Lea and Flood): a full-period 64-bit generator. */
uint64_t prng_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double prng_uniform(uint64_t *state) {
    return ((double)(prng_next(state) >> 11) + 0.5) / 9007199254740992.0; /* 53 bits */
}

double prng_normal(uint64_t *state) {
    double u = prng_uniform(state), v = prng_uniform(state);
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* Marsaglia and Tsang's method; shape < 1 boosted by U^(1/shape). */
double prng_gamma(uint64_t *state, double shape) {
    double boost = 1.0;
    if (shape < 1.0) {
        boost = pow(prng_uniform(state), 1.0 / shape);
        shape += 1.0;
    }
    double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = prng_normal(state), v = 1.0 + c * x;
        if (v <= 0) continue;
        v = v * v * v;
        double u = prng_uniform(state);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return boost * d * v;
    }
}

/* A uniform index below n. */
static size_t prng_below(uint64_t *state, size_t n) {
    return (size_t)(prng_uniform(state) * (double)n);
}

/* Without replacement: the first k of a Fisher-Yates shuffle. */
int prng_sample(size_t n, size_t k, uint64_t seed, bool replace, size_t *out) {
    uint64_t state = seed;
    if (replace) {
        for (size_t i = 0; i < k; i++) out[i] = prng_below(&state, n);
        return 0;
    }
    size_t *perm = k <= n ? malloc((n ? n : 1) * sizeof *perm) : NULL;
    if (!perm) return -1;
    for (size_t i = 0; i < n; i++) perm[i] = i;
    for (size_t i = 0; i < k; i++) {
        size_t j = i + prng_below(&state, n - i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        out[i] = perm[i];
    }
    free(perm);
    return 0;
}
