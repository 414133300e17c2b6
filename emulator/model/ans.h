/* ans: recognises the quiz's three question kinds and answers them.
 *
 *   "What is A * B? ..."            (kind mul, key "mul:A:B")
 *   "What is A + B - C? ..."        (kind add, key "add:A:B:C")
 *   "What is the capital of X? ..." (kind cap, key "cap:X")
 * Whatever follows the question mark (the instruction) is ignored. Keys name a
 * question in a profile's list of wrong answers. */
#ifndef EMU_ANS_H
#define EMU_ANS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

enum ans_kind { ANS_NONE, ANS_MUL, ANS_ADD, ANS_CAP };

#define ANS_KEY_MAX 96

struct ans_question {
    enum ans_kind kind;
    long a, b, c;
    char key[ANS_KEY_MAX]; /* "mul:54:28", "add:876:608:558", "cap:Brazil" */
};

/* Recognises a question in prompt[0..len); false (kind ANS_NONE) for anything else. */
bool ans_parse(const char *prompt, size_t len, struct ans_question *q);

/* Appends the correct answer ("1512", "-275", "Brasília"); false when the emulator
 * does not know it (a country missing from its table) or out of memory. */
__attribute__((warn_unused_result)) bool ans_correct(const struct ans_question *q, struct buf *out);

#endif
