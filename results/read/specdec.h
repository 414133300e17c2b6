/* specdec: vLLM's speculative-decoding lines in a container log.
 *
 * vLLM (V1 engine) logs, every VLLM_LOG_STATS_INTERVAL seconds while a
 * speculative model serves (vllm/v1/spec_decode/metrics.py,
 * SpecDecodingLogging.log):
 *   "SpecDecoding metrics: Mean acceptance length: L, Accepted throughput: X
 *   tokens/s, Drafted throughput: Y tokens/s, Accepted: A tokens, Drafted: D
 *   tokens, Per-position acceptance rate: p1, p2, ..., Avg Draft acceptance
 *   rate: R%"
 * over the steps since its previous line, where L = 1 + A / drafts (the token
 * the target model adds to every draft counted) and R = A / D. Older releases
 * put the members in another order; each is found by its name after
 * "SpecDecoding metrics:" on the same line.
 *
 * Pooled over lines: the acceptance rate is sum A / sum D, and the mean
 * acceptance length 1 + sum A / sum drafts, which is the lines' L weighted by
 * their D (every draft proposes the same number of tokens, so a line's drafts
 * are its D over that number). Lines without D (no draft) add nothing. */
#ifndef SM_SPECDEC_H
#define SM_SPECDEC_H

#include <stddef.h>
#include <stdint.h>

struct specdec {
    size_t lines;       /* lines read with a length, an accepted and a drafted count */
    uint64_t accepted;  /* sum A */
    uint64_t drafted;   /* sum D */
    double len_drafted; /* sum L * D */
};

/* Adds the lines of n bytes of log text to sd. */
void specdec_scan(struct specdec *sd, const char *text, size_t n);
/* Adds from's lines to into. */
void specdec_merge(struct specdec *into, const struct specdec *from);
/* sum A / sum D; NAN when no line drafted. */
double specdec_acceptance_rate(const struct specdec *sd);
/* The mean acceptance length (draft tokens accepted per step, plus one); NAN
 * when no line drafted. */
double specdec_mean_length(const struct specdec *sd);

#endif
