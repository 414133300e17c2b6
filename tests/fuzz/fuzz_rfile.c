/* Fuzzes sm-compare's reading of one input file: the input is written as a
 * result file (.json) and as a journal (.jsonl), and each is read as a named
 * input (rfile, then native or measure). An error must name the file and never
 * claim to be out of memory; every tally must add up. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "tmpdir.h"

static void fuzz_tally(const struct tally *t) {
    long failed = 0;
    for (size_t i = 0; i < t->nerrs; i++) failed += t->errs[i].n;
    if (t->sent != t->ok + t->failed || failed != t->failed || t->ok < 0 || t->failed < 0) abort();
}

static void fuzz_check(const struct src *s) {
    if (s->decode) fuzz_tally(&s->decode->tally);
    for (size_t i = 0; i < s->nlevels; i++) fuzz_tally(&s->levels[i].tally);
    if (s->quiz) fuzz_tally(&s->quiz->tally);
}

/* Whether an error message blames memory (which a fuzzed file cannot exhaust). */
static bool fuzz_ends_oom(const char *msg) {
    static const char oom[] = ": out of memory";
    size_t n = strlen(msg);
    return n >= sizeof oom - 1 && strcmp(msg + n - (sizeof oom - 1), oom) == 0;
}

static void fuzz_read(const char *path) {
    struct inputs in;
    struct diag d;
    char *paths[] = {(char *)path};
    diag_init(&d);
    if (inputs_read(paths, 1, NULL, NULL, &in, &d) == 0) {
        if (d.error[0] || in.n > 1) abort();
        for (size_t i = 0; i < in.n; i++) fuzz_check(&in.srcs[i]);
    } else if (strncmp(d.error, path, strlen(path)) != 0 || fuzz_ends_oom(d.error)) {
        abort();
    }
    inputs_free(&in);
    diag_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_read(tmpdir_write("result.json", data, size));
    fuzz_read(tmpdir_write("run.journal.jsonl", data, size));
    return 0;
}
