/* quizfile: a quiz file's questions and their scoring patterns.
 *
 * The file is the reference layout (scenarios/quiz-compare-py-40.json):
 * {"questions": [{"id", "kind", "prompt", "answer", "pattern"}, ...]}. A
 * reply is correct when the pattern matches anywhere in it, with Python's
 * semantics for text (the plugin's quiz matcher, quiz.h). sm-compare
 * needs it only to score compare.py measure files, which keep the replies but
 * not which were right. */
#ifndef SM_QUIZFILE_H
#define SM_QUIZFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

struct quiz_re;

enum quizfile_err {
    QUIZFILE_OK = 0,
    QUIZFILE_ERR_NOMEM = -1,
    QUIZFILE_ERR_READ = -2,
    QUIZFILE_ERR_INPUT = -3
};

struct quizfile_question {
    char *id, *kind, *answer; /* owned */
    struct quiz_re *re;       /* the compiled pattern, owned */
};

struct quizfile {
    char *path;
    struct quizfile_question *q;
    size_t n;
};

/* Reads and compiles the quiz at path; the caller frees *out with
 * quizfile_free. Returns 0, or a negative enum quizfile_err with one line
 * naming the file in err. */
__attribute__((warn_unused_result)) int quizfile_read(const char *path, struct quizfile **out,
                                                      struct buf *err);
void quizfile_free(struct quizfile *qz);
/* The question with this id, or NULL. */
const struct quizfile_question *quizfile_find(const struct quizfile *qz, const char *id);
/* 1 when the pattern matches the reply, else 0. */
int quizfile_score(const struct quizfile_question *q, const char *reply);

#endif
