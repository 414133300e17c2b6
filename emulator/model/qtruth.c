#include "qtruth.h"

#include <math.h>
#include <string.h>

#include "splitmix.h"

static const struct {
    const char *model_id;
    double accuracy[QUIZGEN_FAMILIES]; /* arith, extract, format */
} qtruth_table[] = {
    {"google/gemma-4-E2B-it", {0.90, 0.95, 0.85}},
    {"google/gemma-4-E2B-it-qat-w4a16-ct", {0.90, 0.95, 0.82}},
};

double qtruth_accuracy(const char *model_id, enum quizgen_family f) {
    if ((unsigned)f >= QUIZGEN_FAMILIES) return 1;
    for (size_t i = 0; i < sizeof qtruth_table / sizeof *qtruth_table; i++)
        if (strcmp(model_id, qtruth_table[i].model_id) == 0) return qtruth_table[i].accuracy[f];
    return 1;
}

bool qtruth_right(const char *model_id, enum quizgen_family f, const char *prompt) {
    double a = qtruth_accuracy(model_id, f);
    if (a >= 1) return true;
    uint64_t item = splitmix_hash(prompt), own = item ^ splitmix_hash(model_id);
    double u = splitmix_unit(&item); /* advances item: the draw below is another one */
    double v = u < QTRUTH_SHARED ? splitmix_unit(&item) : splitmix_unit(&own);
    return v < a;
}

double qtruth_discordance(const char *model_a, const char *model_b, enum quizgen_family f) {
    double a = qtruth_accuracy(model_a, f), b = qtruth_accuracy(model_b, f);
    if (strcmp(model_a, model_b) == 0) return 0;
    return QTRUTH_SHARED * fabs(a - b) + (1 - QTRUTH_SHARED) * (a * (1 - b) + b * (1 - a));
}
