/* inputs: finds and reads every input of one side.
 *
 * A path is a run directory (every result file, every journal without its
 * result file, every compare.py measure file and every vLLM log in it) or a
 * file. Bad input in a named file is an error; a JSON file of another kind in
 * a directory is left out with a warning. */
#ifndef SM_INPUTS_H
#define SM_INPUTS_H

#include <stdbool.h>

#include "diag.h"
#include "facts.h"
#include "quizfile.h"
#include "src.h"

struct inputs {
    struct src *srcs; /* owned, in the order found (directories sorted by name) */
    size_t n;
    struct facts facts; /* merged: compare.py load_facts, then logs, then --facts-* */
    bool have_facts;
};

/* Reads the paths of one side, and facts_log (--facts-ROLE, may be NULL). qz
 * (may be NULL) scores compare.py replies. Bad input goes to d. */
__attribute__((warn_unused_result)) int inputs_read(char *const *paths, size_t npaths,
                                                    const char *facts_log,
                                                    const struct quizfile *qz, struct inputs *out,
                                                    struct diag *d);
void inputs_free(struct inputs *in);

#endif
