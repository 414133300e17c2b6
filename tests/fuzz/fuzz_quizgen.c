/* Fuzzes the reading back of generated quiz prompts (quizgen_reply), which the
 * emulator applies to every prompt it receives. Input: a prompt.
 *
 * A prompt recognised for the right reply is recognised for the wrong one too,
 * as the same family; the two replies differ and stay small (16 KiB); one
 * not recognised writes nothing that matters and never reads past the input
 * (the sanitizers' part). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quizgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *p = malloc(size ? size : 1); /* exactly size bytes: no terminator to lean on */
    if (!p) return 0;
    memcpy(p, data, size);
    struct buf right, wrong;
    buf_init(&right, BUF_NO_CAP);
    buf_init(&wrong, BUF_NO_CAP);
    enum quizgen_family f = QUIZGEN_FAMILIES, g = QUIZGEN_FAMILIES;
    bool r = quizgen_reply(p, size, true, &f, &right);
    bool w = quizgen_reply(p, size, false, &g, &wrong);
    if (r != w) abort();
    if (r) {
        if (f != g || (unsigned)f >= QUIZGEN_FAMILIES) abort();
        if (!right.len || !wrong.len || right.len > 16384 || wrong.len > 16384) abort();
        if (right.len == wrong.len && memcmp(right.data, wrong.data, right.len) == 0) abort();
    }
    buf_free(&right);
    buf_free(&wrong);
    free(p);
    return 0;
}
