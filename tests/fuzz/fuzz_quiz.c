/* Fuzzes the quiz file reader: the input is a quiz file; every question read
 * is found again by its id and scored against a few short replies. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quizfile.h"
#include "tmpdir.h"

static const char *const fuzz_replies[] = {"1512", "The answer is -275.", "canberra", "Straße 42",
                                           ""};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = tmpdir_write("quiz.json", data, size);
    struct quizfile *qz;
    struct buf err;
    buf_init(&err, 4096);
    if (quizfile_read(path, &qz, &err) < 0) {
        if (strncmp(buf_str(&err), path, strlen(path)) != 0) abort();
        buf_free(&err);
        return 0;
    }
    for (size_t i = 0; i < qz->n; i++) {
        const struct quizfile_question *q = quizfile_find(qz, qz->q[i].id);
        if (!q || strcmp(q->id, qz->q[i].id) != 0 || !q->answer || !q->re) abort();
        for (size_t r = 0; r < sizeof fuzz_replies / sizeof *fuzz_replies; r++)
            if (quizfile_score(&qz->q[i], fuzz_replies[r]) > 1) abort();
    }
    quizfile_free(qz);
    buf_free(&err);
    return 0;
}
