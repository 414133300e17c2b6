/* splitmix: a small seeded generator (splitmix64) for jitter, faults and ids.
 * Deterministic: the same seed gives the same sequence on every machine. */
#ifndef EMU_SPLITMIX_H
#define EMU_SPLITMIX_H

#include <stdint.h>

/* The next 64 random bits; advances *state. */
static inline uint64_t splitmix_next(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A uniform double in [0, 1). */
static inline double splitmix_unit(uint64_t *state) {
    return (double)(splitmix_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* FNV-1a of a string: derives per-endpoint seeds from names. */
static inline uint64_t splitmix_hash(const char *s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

#endif
