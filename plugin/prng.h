/* prng: the seeded random numbers of a plan (arrival times, workload sampling):
 * splitmix64, so a seed gives the same numbers on every machine. Pure C; a
 * state is a uint64_t the caller owns (its seed to start with). */
#ifndef SM_PRNG_H
#define SM_PRNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint64_t prng_next(uint64_t *state);
/* Uniform on (0, 1), never 0 nor 1. */
double prng_uniform(uint64_t *state);
/* Standard normal. */
double prng_normal(uint64_t *state);
/* Gamma(shape, 1), shape > 0. */
double prng_gamma(uint64_t *state, double shape);

/* k indices of 0..n-1 into out, drawn from seed: with replacement, or each at
 * most once, in the order drawn. Returns 0, or -1 (out of memory, or more
 * than n without replacement). */
__attribute__((warn_unused_result)) int prng_sample(size_t n, size_t k, uint64_t seed, bool replace,
                                                    size_t *out);

#endif
