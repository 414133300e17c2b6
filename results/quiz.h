/* quiz: a quiz file's questions and their scoring patterns (PCRE2).
 *
 * The file is the reference layout (shared/reference/quiz-compare-py-40.json):
 * {"questions": [{"id", "kind", "prompt", "answer", "pattern"}, ...]}. A
 * reply is correct when the pattern matches anywhere in it, with Python's
 * semantics for text: UTF-8, Unicode classes (\b, \w, \d) and (?i). sm-compare
 * needs it only to score compare.py measure files, which keep the replies but
 * not which were right. */
#ifndef SM_QUIZ_H
#define SM_QUIZ_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

struct quiz_question {
    char *id, *kind, *answer; /* owned */
    void *re;                 /* the compiled pattern (pcre2_code *) */
};

struct quiz {
    char *path;
    struct quiz_question *q;
    size_t n;
};

/* Reads and compiles the quiz at path; the caller frees it with quiz_free. */
__attribute__((warn_unused_result)) int quiz_read(const char *path, struct quiz **out,
                                                  struct diag *d);
void quiz_free(struct quiz *qz);
/* The question with this id, or NULL. */
const struct quiz_question *quiz_find(const struct quiz *qz, const char *id);
/* 1 when the pattern matches the reply, else 0. */
int quiz_score(const struct quiz_question *q, const char *reply);

#endif
