/* Unit tests of native (result files into a src) and measure (compare.py's
 * files): the figures' inputs, which batches count, the quiz's answered
 * questions, and the one-line errors of fields of the wrong type or range. */
#include <math.h>

#include "../check.h"
#include "measure.h"
#include "native.h"
#include "rtest.h"

/* Reads path as a native file into s; returns the code, the error in err. */
static int test_read(const char *path, struct src *s, struct warnings *w, struct buf *err) {
    struct rfile *rf;
    int rc = rfile_read(path, &rf, err);
    memset(s, 0, sizeof *s);
    if (rc == 0) rc = native_src(rf, NULL, s, w, err);
    rfile_free(rf);
    return rc;
}

#define TEST_SWEEP "{\"mode\": \"batch\", \"concurrency\": 2, \"batches\": 3, \"max_tokens\": 100}"

static void test_sweep(void) {
    char recs[4096];
    /* batch 0: 2 requests, 1 s; batch 1: one failed; batch 2: one request only */
    snprintf(recs, sizeof recs, "%s,%s,%s,%s,%s", rtest_rec("sweep", 0, 100, 0, 1000000, 1),
             rtest_rec("sweep", 0, 100, 10, 900000, 1),
             rtest_rec("sweep", 1, 100, 2000000, 2500000, 1),
             rtest_rec("sweep", 1, 100, 2000000, 2000100, 0),
             rtest_rec("sweep", 2, 100, 3000000, 4000000, 1));
    const char *path = rtest_result("sweep.json", "sweep", "a", "2", TEST_SWEEP, recs);
    struct src s;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 1024);
    CHECK(test_read(path, &s, &w, &err) == 0);
    CHECK(s.nlevels == 1 && s.levels && s.time_scale == 2);
    if (s.levels) {
        const struct src_level *l = &s.levels[0];
        CHECK(l->c == 2 && !l->steady && l->max_tokens == 100);
        CHECK(l->batches == 3 && l->batches_failed == 1 && l->batches_short == 1 && l->nb == 1);
        /* 200 tokens over 1 s measured, 2 s real: 100 tokens/s */
        CHECK(l->nb == 1 && fabs(l->tps[0] - 100) < 1e-9 && fabs(l->bwall[0] - 2) < 1e-9);
        CHECK(l->tally.sent == 5 && l->tally.ok == 4 && l->tally.failed == 1);
        CHECK(l->nlat == 4 && l->nspans == 4);
        CHECK(fabs(l->wall_first - 1764496800.0) < 1e-6 &&
              fabs(l->wall_last - 1764496804.0) < 1e-6);
    }
    CHECK(w.n == 1 && strstr(w.items[0], "1 batches with fewer than 2 requests"));
    src_free(&s);
    warnings_free(&w);
    buf_free(&err);
}

static void test_quiz(void) {
    const char *recs =
        "{\"phase\": \"quiz\", \"ok\": true, \"question\": \"add-1\", \"kind\": \"add\", "
        "\"text\": \"5\", \"answer\": \"5\", \"correct\": true, \"t_start_us\": 0, \"t_end_us\": "
        "1},"
        "{\"phase\": \"quiz\", \"ok\": true, \"question\": \"add-2\", \"kind\": \"add\", "
        "\"text\": \"7\", \"answer\": \"6\", \"correct\": false, \"t_start_us\": 2, \"t_end_us\": "
        "3},"
        "{\"phase\": \"quiz\", \"ok\": false, \"question\": \"cap-1\", \"kind\": \"cap\", "
        "\"error\": {\"code\": \"InternalFailure\"}, \"t_start_us\": 4, \"t_end_us\": 5}";
    const char *path =
        rtest_result("quiz.json", "quiz", "a", "1", "{\"quiz\": \"q\", \"questions\": 3}", recs);
    struct src s;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 1024);
    CHECK(test_read(path, &s, &w, &err) == 0);
    const struct src_quiz *q = s.quiz;
    CHECK(q && q->n == 3 && q->answered == 2 && q->correct == 1 && q->questions == 3);
    if (q) {
        CHECK(q->items[2].text == NULL && strcmp(q->items[2].error, "InternalFailure") == 0);
        CHECK(q->nkinds == 2 && q->kinds[0].answered == 2 && q->kinds[1].answered == 0 &&
              q->kinds[1].total == 1);
    }
    src_free(&s);
    warnings_free(&w);
    buf_free(&err);
}

/* A decode file whose head member key is set to value fails with want. */
static void test_head_error(const char *key, const char *value, const char *want) {
    char settings[512], name[64];
    snprintf(name, sizeof name, "bad-%s.json", key);
    snprintf(settings, sizeof settings, "{\"lengths\": [16, 512]}");
    const char *path = rtest_result(name, "decode", "a", "1", settings, "");
    char text[8192];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = '\0';
    cJSON *doc = cJSON_Parse(text), *v = cJSON_Parse(value);
    const char *dot = strchr(key, '.');
    cJSON *obj = dot ? cJSON_GetObjectItem(doc, "settings") : doc;
    const char *member = dot ? dot + 1 : key;
    cJSON_DeleteItemFromObject(obj, member);
    cJSON_AddItemToObject(obj, member, v);
    char *out = cJSON_PrintUnformatted(doc);
    rtest_write(name, out);
    struct src s;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 1024);
    CHECK(test_read(path, &s, &w, &err) == NATIVE_ERR_INPUT);
    char full[1024];
    snprintf(full, sizeof full, "%s: %s", path, want);
    CHECK_STR(buf_str(&err), full);
    src_free(&s);
    warnings_free(&w);
    buf_free(&err);
    free(out);
    cJSON_Delete(doc);
}

static void test_errors(void) {
    test_head_error("time_scale", "\"fast\"", "time_scale: \"fast\" is not a number");
    test_head_error("time_scale", "0", "time_scale: 0 is out of range (0.001 to 1e+06)");
    test_head_error("label", "\"a b\"",
                    "label: \"a b\" is not a label (1 to 64 letters, digits, '-', '_' and '.', "
                    "not starting with '.')");
    test_head_error("version", "3", "unknown format version 3 (this reader reads versions 1 to 2)");
    test_head_error("version", "1.5",
                    "unknown format version 1.5 (this reader reads versions 1 to 2)");
    test_head_error("tool", "7", "tool: 7 is not a string");
    test_head_error("partial", "\"yes\"", "partial: \"yes\" is not true or false");
    test_head_error("settings.lengths", "[16, \"x\"]",
                    "settings.lengths[1]: \"x\" is not a whole number");
    test_head_error("settings.temperature", "-1",
                    "settings.temperature: -1 is out of range (0 to 100)");
}

static void test_measure(void) {
    const char *json =
        "{\"endpoint\": {\"name\": \"ep\"}, \"settings\": {\"short\": 16, \"long\": 512, "
        "\"decode_repeats\": 5, \"load_tokens\": 256}, \"decode\": {\"decode_tokens_per_second\": "
        "51.3, \"per_call_fixed_cost_seconds\": 0.633, \"wall_16_median\": 0.96}, \"load\": "
        "{\"4\": "
        "{\"batches\": [{\"tokens_per_second\": 171.5}, {\"tokens\": 1024, \"wall\": 6}]}}, "
        "\"quality\": {\"correct\": 1, \"total\": 2, \"answers\": {\"a-1\": \"5\", \"a-2\": "
        "\"6\"}}}";
    cJSON *doc = cJSON_Parse(json);
    struct src s;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 1024);
    CHECK(measure_is(doc));
    CHECK(measure_src(doc, "m.json", NULL, &s, &w, &err) == 0);
    CHECK_STR(s.tool, SRC_MEASURE_TOOL);
    CHECK(s.decode && s.decode->medians_only && s.decode->rate == 51.3 && s.decode->nlengths == 2);
    CHECK(s.decode && s.decode->med_short == 0.96 && isnan(s.decode->med_long));
    CHECK(s.nlevels == 1 && s.levels[0].c == 4 && s.levels[0].nb == 2);
    CHECK(s.nlevels == 1 && fabs(s.levels[0].tps[1] - 1024 / 6.0) < 1e-9);
    CHECK(s.quiz && s.quiz->answered == 2 && s.quiz->correct == 1);
    src_free(&s);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(doc, "quality"), "correct",
                              cJSON_CreateNumber(3));
    CHECK(measure_src(doc, "m.json", NULL, &s, &w, &err) == MEASURE_ERR_INPUT);
    CHECK_STR(buf_str(&err), "m.json: quality.correct: 3 is more than the 2 answers it saved");
    src_free(&s);
    warnings_free(&w);
    buf_free(&err);
    cJSON_Delete(doc);
}

int main(void) {
    test_sweep();
    test_quiz();
    test_errors();
    test_measure();
    return check_exit();
}
