/* dist: the lengths of a synthetic workload (prompt or reply tokens), drawn from
 * a distribution named in one word:
 *
 *   N | fixed:N                  always N
 *   uniform:A:B                  a whole number from A to B, each as likely
 *   normal:MEAN:SD[:MIN:MAX]     rounded, then kept within MIN..MAX
 *   lognormal:MEAN:SD[:MIN:MAX]  the same, with this mean and standard deviation
 *
 * MIN defaults to 1 and MAX to 1,000,000 (a length is never below 1). Pure C
 * over prng.h: a seed gives the same lengths everywhere. */
#ifndef SM_DIST_H
#define SM_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define DIST_MAX 1000000L

enum dist_error {
    DIST_OK = 0,
    DIST_ERR_INPUT = -2, /* err says what */
};

enum dist_kind { DIST_FIXED, DIST_UNIFORM, DIST_NORMAL, DIST_LOGNORMAL };

struct dist {
    enum dist_kind kind;
    double a, b; /* N; A and B; MEAN and SD */
    long min, max;
};

/* Parses text (the forms above) into d; err names what is wrong with it. */
__attribute__((warn_unused_result)) int dist_parse(const char *text, struct dist *d,
                                                   struct buf *err);

/* n lengths drawn from d with seed into out. */
void dist_draw(const struct dist *d, size_t n, uint64_t seed, long *out);

#endif
