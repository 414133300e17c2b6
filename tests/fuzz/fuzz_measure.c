/* Fuzzes the reader of compare.py's measure files: the input is one such
 * file, read with a small quiz to score its replies and without one. Every
 * tally must add up, every level be a concurrency and every reply be kept;
 * an error names the file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "tmpdir.h"

/* Three rows of scenarios/quiz-compare-py-40.json. */
static const char fuzz_quiz_json[] =
    "{\"questions\": ["
    "{\"id\": \"mul-0\", \"kind\": \"mul\", \"answer\": \"1512\", \"pattern\": \"\\\\b1512\\\\b\"},"
    "{\"id\": \"add-9\", \"kind\": \"add\", \"answer\": \"-275\","
    " \"pattern\": \"(?<![\\\\d-])-275\\\\b\"},"
    "{\"id\": \"cap-Australia\", \"kind\": \"cap\", \"answer\": \"Canberra\","
    " \"pattern\": \"(?i)\\\\bCanberra\\\\b\"}"
    "]}";

static struct quizfile *fuzz_quiz(void) {
    static struct quizfile *qz;
    struct buf err;
    buf_init(&err, 1024);
    if (!qz && quizfile_read(tmpdir_write("quiz.json", (const uint8_t *)fuzz_quiz_json,
                                          sizeof fuzz_quiz_json - 1),
                             &qz, &err) < 0)
        abort();
    buf_free(&err);
    return qz;
}

static void fuzz_tally(const struct src_tally *t) {
    if (t->sent != t->ok + t->failed || t->ok < 0 || t->failed < 0) abort();
}

static void fuzz_check(const struct src *s) {
    if (s->decode) fuzz_tally(&s->decode->tally);
    for (size_t i = 0; i < s->nlevels; i++) {
        fuzz_tally(&s->levels[i].tally);
        if (s->levels[i].c < 1) abort();
    }
    if (s->quiz) {
        fuzz_tally(&s->quiz->tally);
        for (size_t i = 0; i < s->quiz->n; i++)
            if (!s->quiz->items[i].id || !s->quiz->items[i].kind || !s->quiz->items[i].text)
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
    const struct quizfile *quizzes[] = {fuzz_quiz(), NULL};
    for (size_t i = 0; i < 2 && measure_is(doc); i++) {
        struct src s;
        struct warnings w;
        struct buf err;
        warnings_init(&w);
        buf_init(&err, 4096);
        if (measure_src(doc, "measure.json", quizzes[i], &s, &w, &err) == 0)
            fuzz_check(&s);
        else if (strncmp(buf_str(&err), "measure.json: ", 14) != 0)
            abort();
        src_free(&s);
        warnings_free(&w);
        buf_free(&err);
    }
    cJSON_Delete(doc);
    return 0;
}
