/* qtruth: how often each emulated model gets a generated quiz item right, by
 * family (quizgen.h), so tests know the truth a comparison should find.
 *
 * A model's accuracy on a family is a fixed share (QTRUTH_TABLE in qtruth.c;
 * models not in the table are always right). Whether one item is right is
 * decided from the prompt: for QTRUTH_SHARED of the items by the item alone
 * (an easy item is easy for every model), for the rest by the item and the
 * model together, so two models disagree on a known share of items:
 *
 *   discordance = SHARED |a1 - a2| + (1 - SHARED) (a1 (1 - a2) + a2 (1 - a1))
 *
 * and a model always agrees with itself (an A/A run). The built-in bf16-l4
 * and qat-l4 profiles are equal on arithmetic and extraction and QAT is 3
 * points worse on format following. */
#ifndef EMU_QTRUTH_H
#define EMU_QTRUTH_H

#include <stdbool.h>

#include "quizgen.h"

#define QTRUTH_SHARED 0.8

/* The accuracy of the model (its model_id) on family f: 1 when not in the table. */
double qtruth_accuracy(const char *model_id, enum quizgen_family f);

/* Whether the model answers the item with this prompt (a C string) right. */
bool qtruth_right(const char *model_id, enum quizgen_family f, const char *prompt);

/* The share of family f's items two models disagree on (the formula above). */
double qtruth_discordance(const char *model_a, const char *model_b, enum quizgen_family f);

#endif
