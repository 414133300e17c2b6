/* Fuzzes sm-compare's reading of one input file: the input is written as a
 * result file (.json) and as a journal (.jsonl), and each is read as a named
 * input (rfile, then native or measure). An error must be one line that names
 * the file and never claims to be out of memory; every tally must add up, and
 * a sweep level's batches must add up too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "tmpdir.h"

static void fuzz_tally(const struct src_tally *t) {
    long failed = 0;
    for (size_t i = 0; i < t->nerrs; i++) failed += t->errs[i].n;
    if (t->sent != t->ok + t->failed || failed != t->failed || t->ok < 0 || t->failed < 0) abort();
}

static void fuzz_check(const struct src *s) {
    if (s->decode) fuzz_tally(&s->decode->tally);
    for (size_t i = 0; i < s->nlevels; i++) {
        const struct src_level *l = &s->levels[i];
        fuzz_tally(&l->tally);
        if (l->batches_failed + l->batches_short + (long)l->nb != l->batches) abort();
        for (size_t k = 0; k < l->nb; k++)
            if (!(l->tps[k] >= 0)) abort();
    }
    if (s->quiz) {
        fuzz_tally(&s->quiz->tally);
        if (s->quiz->answered > (long)s->quiz->n || s->quiz->correct > s->quiz->answered) abort();
    }
}

static void fuzz_read(const char *path) {
    struct inputs in;
    struct warnings w;
    struct buf err;
    char *paths[] = {(char *)path};
    warnings_init(&w);
    buf_init(&err, 4096);
    if (inputs_read(paths, 1, NULL, NULL, &in, &w, &err) == 0) {
        if (err.len || in.n > 1) abort();
        for (size_t i = 0; i < in.n; i++) fuzz_check(&in.srcs[i]);
    } else if (strncmp(buf_str(&err), path, strlen(path)) != 0 || strchr(buf_str(&err), '\n') ||
               strstr(buf_str(&err), "out of memory")) {
        abort();
    }
    inputs_free(&in);
    warnings_free(&w);
    buf_free(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_read(tmpdir_write("result.json", data, size));
    fuzz_read(tmpdir_write("run.journal.jsonl", data, size));
    return 0;
}
