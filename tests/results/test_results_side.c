/* Unit tests of side (one side's figures over its inputs) and guard (whether
 * two sides were measured alike): pooled walls and batches and the figures
 * they give, and each difference the guard refuses or, with allow_mixed,
 * warns about. */
#include <math.h>

#include "../check.h"
#include "guard.h"
#include "rtest.h"

#define TEST_DECODE "{\"lengths\": [16, 512], \"repeats\": 2, \"prompt\": \"%s\"}"

/* A decode file: walls fixed + n / rate, two of each length. */
static const char *test_decode(const char *name, const char *label, double rate, const char *prompt,
                               const char *scale) {
    char recs[2048], settings[256];
    long t = 0;
    size_t k = 0;
    for (int rep = 0; rep < 2; rep++)
        for (int n = 16; n <= 512; n += 496) {
            long us = lround((0.5 + n / rate) * 1e6 + rep * 1000);
            k += (size_t)snprintf(recs + k, sizeof recs - k, "%s%s", k ? "," : "",
                                  rtest_rec("decode", rep, n, t, t + us, 1));
            t += us + 100;
        }
    snprintf(settings, sizeof settings, TEST_DECODE, prompt);
    return rtest_result(name, "decode", label, scale, settings, recs);
}

static void test_pooled(void) {
    char *paths[] = {(char *)test_decode("d1.json", "a", 50, "p", "1"),
                     (char *)test_decode("d2.json", "a", 50, "p", "1")};
    struct side s;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 1024);
    CHECK(rtest_side(&s, "baseline", paths, 2, &w, &err) == 0);
    CHECK(s.dec.have && s.dec.ns == 4 && s.dec.nl == 4 && s.nruns == 2);
    CHECK(s.dec.rate.ok && fabs(s.dec.rate.v - 50) < 1e-3);
    CHECK(s.dec.fixed.ok && fabs(s.dec.fixed.v - 0.5005) < 1e-3);
    CHECK(s.dec.med_s.ok && fabs(s.dec.med_s.v - (0.5 + 16 / 50.0 + 0.0005)) < 1e-6);
    CHECK(!s.dec.ls_rate.ok && strcmp(s.dec.ls_rate.why, "a fit needs three or more lengths") == 0);
    CHECK(s.scale_lo == 1 && s.scale_hi == 1);
    CHECK_STR(s.name, "a");
    side_free(&s);
    warnings_free(&w);
    buf_free(&err);
}

static void test_levels(void) {
    char r1[1024], r2[1024];
    snprintf(r1, sizeof r1, "%s,%s", rtest_rec("sweep", 0, 100, 0, 1000000, 1),
             rtest_rec("sweep", 1, 100, 2000000, 4000000, 1));
    snprintf(r2, sizeof r2, "%s", rtest_rec("sweep", 0, 100, 0, 500000, 1));
    const char *st = "{\"mode\": \"batch\", \"concurrency\": 1, \"max_tokens\": 100}";
    char *paths[] = {(char *)rtest_result("s1.json", "sweep", "a", "1", st, r1),
                     (char *)rtest_result("s2.json", "sweep", "a", "1", st, r2)};
    struct side s;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 1024);
    CHECK(rtest_side(&s, "baseline", paths, 2, &w, &err) == 0);
    CHECK(s.nlv == 1 && s.lv[0].nb == 3 && s.lv[0].batches == 3);
    /* 100, 50 and 200 tokens/s: the median 100 */
    CHECK(s.nlv == 1 && s.lv[0].tput.ok && fabs(s.lv[0].tput.v - 100) < 1e-9);
    CHECK(s.nlv == 1 && s.lv[0].p50.ok && fabs(s.lv[0].p50.v - 1) < 1e-9);
    CHECK(s.nruns == 2 && fabs(s.runs[0].v - 75) < 1e-9 && fabs(s.runs[1].v - 200) < 1e-9);
    side_free(&s);
    /* the same level with other tokens on one side */
    const char *st2 = "{\"mode\": \"batch\", \"concurrency\": 1, \"max_tokens\": 50}";
    paths[1] = (char *)rtest_result("s3.json", "sweep", "a", "1", st2, r2);
    CHECK(rtest_side(&s, "baseline", paths, 2, &w, &err) == SIDE_ERR_INPUT);
    CHECK(strstr(buf_str(&err), "c1 was measured in batches with 50 tokens") != NULL);
    side_free(&s);
    warnings_free(&w);
    buf_free(&err);
}

/* guard_check of sides read from b and c; returns the code, the error in err. */
static int test_guard(const char *b, const char *c, bool allow, struct warnings *w,
                      struct buf *err) {
    struct side sb, sc;
    char *pb[] = {(char *)b}, *pc[] = {(char *)c};
    CHECK(rtest_side(&sb, "baseline", pb, 1, w, err) == 0);
    CHECK(rtest_side(&sc, "candidate", pc, 1, w, err) == 0);
    int rc = guard_check(&sb, &sc, allow, w, err);
    side_free(&sb);
    side_free(&sc);
    return rc;
}

/* Rewrites a file's tool field. */
static const char *test_tool(const char *name, const char *from, const char *tool) {
    char text[1 << 16];
    FILE *f = fopen(from, "rb");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = '\0';
    cJSON *doc = cJSON_Parse(text);
    cJSON_ReplaceItemInObject(doc, "tool", cJSON_CreateString(tool));
    cJSON_ReplaceItemInObject(doc, "run_id", cJSON_CreateString(name));
    char *out = cJSON_PrintUnformatted(doc);
    const char *path = rtest_write(name, out);
    free(out);
    cJSON_Delete(doc);
    return path;
}

static void test_guards(void) {
    struct warnings w;
    struct buf err;
    char cl[64];
    warnings_init(&w);
    buf_init(&err, 2048);
    const char *a = test_decode("g-a.json", "a", 50, "p", "1");
    const char *b = test_decode("g-b.json", "b", 100, "p", "1");
    CHECK(test_guard(a, b, false, &w, &err) == 0 && w.n == 0);
    const char *other = test_decode("g-prompt.json", "b", 100, "q", "1");
    CHECK(test_guard(a, other, false, &w, &err) == GUARD_ERR_MIXED);
    CHECK(strstr(buf_str(&err), "decode prompts differ (--allow-mixed compares them anyway)"));
    CHECK(test_guard(a, other, true, &w, &err) == 0 && w.n == 1);
    CHECK(w.n == 1 && strstr(w.items[0], "compared although") && strstr(w.items[0], "prompts"));
    const char *scaled = test_decode("g-scale.json", "b", 100, "p", "10");
    CHECK(test_guard(a, scaled, false, &w, &err) == GUARD_ERR_MIXED);
    CHECK(strstr(buf_str(&err), "ran at time_scale 1, candidate") &&
          strstr(buf_str(&err), "at 10: different time scales"));
    CHECK(test_guard(a, test_tool("g-tool.json", b, "other 2.0"), false, &w, &err) ==
          GUARD_ERR_MIXED);
    CHECK(strstr(buf_str(&err), "by wrk-sagemaker 0.1.0") && strstr(buf_str(&err), "by other 2.0"));
    warnings_free(&w);
    warnings_init(&w);
    /* another version of the same client: a warning only */
    CHECK(test_guard(a, test_tool("g-ver.json", b, "wrk-sagemaker 0.2.0"), false, &w, &err) == 0);
    CHECK(w.n == 1 && strstr(w.items[0], "wrk-sagemaker 0.2.0"));
    guard_client("wrk-sagemaker 0.1.0", cl, sizeof cl);
    CHECK_STR(cl, "wrk-sagemaker");
    guard_client("compare.py via aws CLI", cl, sizeof cl);
    CHECK_STR(cl, "compare.py via aws CLI");
    warnings_free(&w);
    buf_free(&err);
}

int main(void) {
    test_pooled();
    test_levels();
    test_guards();
    return check_exit();
}
