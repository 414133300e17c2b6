/* Unit tests of sm-suite's candidates (suite_cand.h): a candidates file is read
 * whole or refused with one line naming the file, the candidate and the member;
 * the cost at capacity is the price over the tokens served; the cheapest is the
 * lowest cost; candidates.json has the documented shape. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../check.h"
#include "suite_cand.h"
#include "suite_crun.h"

static const char good[] =
    "{\"candidates\": ["
    " {\"label\": \"g6-qat\", \"endpoint\": \"gemma-qat\", \"instance_type\": \"ml.g6.xlarge\","
    "  \"price_per_hour\": 1.1267},"
    " {\"label\": \"ab.v2\", \"endpoint\": \"shared\", \"variant\": \"Blue\"},"
    " {\"label\": \"ic\", \"endpoint\": \"shared\", \"inference_component\": \"gemma-ic\"},"
    " {\"label\": \"g5-qat\", \"deploy\": {\"model\": \"google/gemma-4-E2B-it-qat-w4a16-ct\","
    "  \"instance_type\": \"ml.g5.xlarge\", \"instance_count\": 2,"
    "  \"environment\": {\"SM_VLLM_QUANTIZATION\": \"compressed-tensors\","
    "  \"SM_VLLM_TENSOR_PARALLEL_SIZE\": \"1\"}}, \"price_per_hour\": 1.41}"
    "]}";

static void test_parse_good(void) {
    struct suite_cand_list l;
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(suite_cand_parse(good, strlen(good), "c.json", &l, &err), 0);
    CHECK_INT(l.n, 4);
    CHECK(!l.c[0].deploy && strcmp(l.c[0].endpoint, "gemma-qat") == 0);
    CHECK_STR(l.c[0].instance_type, "ml.g6.xlarge");
    CHECK(l.c[0].price_per_hour == 1.1267 && l.c[0].instance_count == 1);
    CHECK_STR(l.c[1].variant, "Blue");
    CHECK_STR(l.c[2].component, "gemma-ic");
    CHECK(l.c[3].deploy && l.c[3].instance_count == 2 && l.c[3].endpoint[0] == '\0');
    CHECK_STR(l.c[3].model, "google/gemma-4-E2B-it-qat-w4a16-ct");
    CHECK_INT(l.c[3].n_env, 2);
    CHECK_STR(l.c[3].env[1].key, "SM_VLLM_TENSOR_PARALLEL_SIZE");
    CHECK_STR(l.c[3].env[1].value, "1");
    buf_free(&err);
}

/* Each bad file and the words its one line must hold. */
static void test_parse_refusals(void) {
    static const struct {
        const char *text, *words;
    } rows[] = {
        {"[]", "c.json: not a candidates file"},
        {"{\"candidates\": []}", "c.json: not a candidates file"},
        {"{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"e\"}], \"x\": 1}",
         "c.json: want only the member \"candidates\""},
        {"{\"candidates\": [{\"label\": \"a\"}]}",
         "c.json: candidates[0]: want exactly one of \"endpoint\""},
        {"{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"e\", \"deploy\": {}}]}",
         "candidates[0]: want exactly one of"},
        {"{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"e\", \"instace_type\": \"x\"}]}",
         "candidates[0]: unknown member \"instace_type\""},
        {"{\"candidates\": [{\"endpoint\": \"e\"}]}",
         "candidates[0]: label: want a value (it is missing)"},
        {"{\"candidates\": [{\"label\": \"../x\", \"endpoint\": \"e\"}]}",
         "candidates[0]: label: want 1 to 64 letters"},
        {"{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"bad_name\"}]}",
         "candidates[0]: endpoint: want a SageMaker name"},
        {"{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"e\"},"
         " {\"label\": \"a\", \"endpoint\": \"f\"}]}",
         "candidates[1]: label \"a\" is candidates[0]'s too"},
        {"{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"e\", \"variant\": \"v\","
         " \"inference_component\": \"i\"}]}",
         "candidates[0]: want a variant or an inference component, not both"},
        {"{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"e\", \"price_per_hour\": 0}]}",
         "candidates[0]: price_per_hour: want USD"},
        {"{\"candidates\": [{\"label\": \"a\", \"deploy\": {\"model\": \"m\"}}]}",
         "candidates[0]: deploy: instance_type: want a value (it is missing)"},
        {"{\"candidates\": [{\"label\": \"a\", \"deploy\": {\"model\": \"m\","
         " \"instance_type\": \"g5.xlarge\"}}]}",
         "candidates[0]: deploy: instance_type: want an instance type such as ml.g6.xlarge"},
        {"{\"candidates\": [{\"label\": \"a\", \"deploy\": {\"model\": \"m\","
         " \"instance_type\": \"ml.g5.xlarge\", \"instance_count\": 0.5}}]}",
         "candidates[0]: deploy: instance_count: want a whole number from 1 to 100"},
        {"{\"candidates\": [{\"label\": \"a\", \"deploy\": {\"model\": \"m\","
         " \"instance_type\": \"ml.g5.xlarge\", \"environment\": {\"1X\": \"v\"}}}]}",
         "candidates[0]: deploy.environment: \"1X\" is not a variable name"},
        {"{\"candidates\": [{\"label\": \"a\", \"deploy\": {\"model\": \"m\","
         " \"instance_type\": \"ml.g5.xlarge\", \"environment\": {\"X\": 1}}}]}",
         "candidates[0]: deploy.environment: X: want a string"},
        {"{\"candidates\": [{\"label\": \"a\", \"deploy\": {\"model\": \"m\","
         " \"instance_type\": \"ml.g5.xlarge\"}, \"variant\": \"v\"}]}",
         "candidates[0]: a deploy spec gives its instance type and count inside"},
        {"{\"candidates\": [{\"label\": \"a\", \"deploy\": {\"model\": \"m\","
         " \"instance_type\": \"ml.g5.xlarge\", \"role\": \"r\"}}]}",
         "candidates[0]: deploy: unknown member \"role\""},
        {"{\"candidates\": [{\"label\": \"a\", \"deploy\": {\"model\": \"m\\nX\","
         " \"instance_type\": \"ml.g5.xlarge\"}}]}",
         "candidates[0]: deploy: model: want a model id"},
    };
    struct suite_cand_list l;
    struct buf err;
    buf_init(&err, 1024);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        buf_reset(&err);
        int rc = suite_cand_parse(rows[i].text, strlen(rows[i].text), "c.json", &l, &err);
        if (rc != SUITE_CAND_ERR_INVALID || !strstr(buf_str(&err), rows[i].words) ||
            strchr(buf_str(&err), '\n'))
            fprintf(stderr, "row %zu: %d '%s'\n", i, rc, buf_str(&err));
        CHECK_INT(rc, SUITE_CAND_ERR_INVALID);
        CHECK(strstr(buf_str(&err), rows[i].words) != NULL);
        CHECK(strchr(buf_str(&err), '\n') == NULL);
    }
    buf_free(&err);
}

static void test_cost_and_summary(void) {
    /* 1 instance at 3.6 USD/h serving 1000 tokens/s: 1 USD per 1e6 tokens */
    CHECK(fabs(suite_cand_usd_per_million(3.6, 1, 1000) - 1.0) < 1e-12);
    CHECK(fabs(suite_cand_usd_per_million(3.6, 2, 1000) - 2.0) < 1e-12);
    CHECK(isnan(suite_cand_usd_per_million(0, 1, 1000)));
    CHECK(isnan(suite_cand_usd_per_million(3.6, 1, 0)));
    CHECK(isnan(suite_cand_usd_per_million(3.6, 1, NAN)));

    struct suite_cand_list l;
    struct buf err, out;
    buf_init(&err, 1024);
    buf_init(&out, 1 << 20);
    CHECK_INT(suite_cand_parse(good, strlen(good), "c.json", &l, &err), 0);
    struct suite_cand_figures f[4] = {
        {4, 4, 4.2, 250, 37, 40, 1.1267, "tools/endpoint-facts.json"},
        {2, 2, 2.1, 250, 38, 40, 0, NULL},     /* no price: no cost, never the cheapest */
        {NAN, NAN, NAN, NAN, 0, 0, 1.0, NULL}, /* nothing measured */
        {9, 8.9, 9.2, 250, 36, 40, 1.41, "candidates file"}, /* 2 instances */
    };
    /* g6: 1.1267/(1000 tok/s)/3600*1e6 = 0.31297; g5: 2*1.41/(2250)/3600*1e6 = 0.34815 */
    CHECK_INT(suite_cand_cheapest(&l, f), 0);
    f[3].capacity_rps = 12; /* 3000 tok/s: 0.26111 */
    CHECK_INT(suite_cand_cheapest(&l, f), 3);
    CHECK_INT(suite_cand_summary(&l, f, "ttft:p90:1", &out), 0);
    cJSON *j = cJSON_Parse(buf_str(&out));
    CHECK(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "format")->valuestring, "wrk-sagemaker-candidates");
    CHECK_STR(cJSON_GetObjectItem(j, "cheapest_at_capacity")->valuestring, "g5-qat");
    CHECK_STR(cJSON_GetObjectItem(j, "slo")->valuestring, "ttft:p90:1");
    cJSON *rows = cJSON_GetObjectItem(j, "candidates");
    CHECK_INT(cJSON_GetArraySize(rows), 4);
    cJSON *g5 = cJSON_GetArrayItem(rows, 3), *cost = cJSON_GetObjectItem(g5, "cost_at_capacity");
    CHECK(fabs(cJSON_GetObjectItem(cost, "usd_per_million_tokens")->valuedouble -
               2 * 1.41 / 3000.0 / 3600 * 1e6) < 1e-9);
    CHECK(cJSON_GetObjectItem(cost, "usd_per_million_tokens_low")->valuedouble <
          cJSON_GetObjectItem(cost, "usd_per_million_tokens_high")->valuedouble);
    CHECK(cJSON_GetObjectItem(cost, "usd_per_hour")->valuedouble == 2 * 1.41);
    CHECK_STR(cJSON_GetObjectItem(g5, "kind")->valuestring, "deploy");
    CHECK(fabs(cJSON_GetObjectItem(cJSON_GetObjectItem(g5, "quiz"), "score")->valuedouble - 0.9) <
          1e-12);
    cJSON *none = cJSON_GetArrayItem(rows, 2);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(none, "quiz")));
    CHECK(cJSON_IsNull(
        cJSON_GetObjectItem(cJSON_GetObjectItem(none, "capacity"), "requests_per_second")));
    CHECK(cJSON_IsNull(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "cost_at_capacity"),
                            "usd_per_million_tokens")));
    cJSON_Delete(j);
    buf_free(&err);
    buf_free(&out);
}

/* Pairs: two candidates are one A/B run; an odd last one runs against itself. */
static void test_pairs(void) {
    static const char three[] =
        "{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"ea\"},"
        " {\"label\": \"b\", \"endpoint\": \"eb\"}, {\"label\": \"c\", \"endpoint\": \"ec\"}]}";
    struct suite_cand_list l;
    struct suite_argv a;
    struct buf err, words;
    char *rest[] = {"--url", "http://127.0.0.1:1", "--slo", "ttft:p90:1"};
    char *owned[] = {"--price-per-hour=2"};
    buf_init(&err, 1024);
    buf_init(&words, 4096);
    suite_argv_init(&a);
    CHECK_INT(suite_crun_npairs(1), 1);
    CHECK_INT(suite_crun_npairs(3), 2);
    CHECK_INT(suite_crun_npairs(4), 2);
    CHECK_INT(suite_cand_parse(three, strlen(three), "c.json", &l, &err), 0);
    CHECK_INT(suite_crun_pair_argv(&l, 0, "/bin/sm-suite", "out", false, rest, 4, &a, &err), 0);
    CHECK_INT(suite_argv_quote_all(&words, &a), 0);
    CHECK_STR(buf_str(&words), "/bin/sm-suite --out out/pair-1 --baseline ea=a --candidate eb=b "
                               "--url http://127.0.0.1:1 --slo ttft:p90:1");
    buf_reset(&words);
    CHECK_INT(suite_crun_pair_argv(&l, 1, "/bin/sm-suite", "out", true, rest, 0, &a, &err), 0);
    CHECK_INT(suite_argv_quote_all(&words, &a), 0);
    CHECK_STR(buf_str(&words),
              "/bin/sm-suite --resume out/pair-2 --baseline ec=c --candidate ec=c.aa");
    CHECK_INT(suite_crun_pair_argv(&l, 0, "sm-suite", "out", false, owned, 1, &a, &err),
              SUITE_CRUN_ERR_USAGE);
    CHECK(strstr(buf_str(&err), "--price-per-hour: with --candidates the candidates file") != NULL);

    static const char mixed[] =
        "{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"e\", \"variant\": \"v1\"},"
        " {\"label\": \"b\", \"endpoint\": \"e\", \"variant\": \"v2\"},"
        " {\"label\": \"c\", \"endpoint\": \"e\", \"variant\": \"v3\"},"
        " {\"label\": \"d\", \"endpoint\": \"f\"},"
        " {\"label\": \"x\", \"deploy\": {\"model\": \"m\", \"instance_type\": "
        "\"ml.g5.xlarge\"}}]}";
    CHECK_INT(suite_cand_parse(mixed, strlen(mixed), "c.json", &l, &err), 0);
    buf_reset(&words);
    CHECK_INT(suite_crun_pair_argv(&l, 0, "s", "o", false, rest, 0, &a, &err), 0);
    CHECK_INT(suite_argv_quote_all(&words, &a), 0);
    CHECK_STR(buf_str(&words), "s --out o/pair-1 --endpoint e --baseline-variant v1=a "
                               "--candidate-variant v2=b");
    CHECK_INT(suite_crun_pair_argv(&l, 1, "s", "o", false, rest, 0, &a, &err),
              SUITE_CRUN_ERR_USAGE);
    CHECK(strstr(buf_str(&err), "candidates[2] (c) and [3] (d) are measured together") != NULL);
    CHECK_INT(suite_crun_pair_argv(&l, 2, "s", "o", false, rest, 0, &a, &err),
              SUITE_CRUN_ERR_USAGE);
    CHECK(strstr(buf_str(&err), "candidates[4] (x): a deploy spec is not run") != NULL);
    suite_argv_free(&a);
    buf_free(&err);
    buf_free(&words);
}

/* A candidate's figures come from its pair's report.json, its role's side. */
static void test_figures(void) {
    static const char report[] =
        "{\"open_loop\": {\"sides\": {\"baseline\": {\"capacity\": {\"requests_per_second\": 30,"
        " \"last_held\": 29, \"first_failed\": 31, \"tokens_per_request\": 128}},"
        " \"candidate\": {\"capacity\": null}}},"
        " \"quality\": {\"baseline\": {\"correct\": 37, \"questions\": 40},"
        " \"candidate\": {\"correct\": 41, \"questions\": 40}}}";
    struct suite_cand_figures f;
    CHECK_INT(suite_crun_figures(report, strlen(report), 0, &f), 0);
    CHECK(f.capacity_rps == 30 && f.last_held_rps == 29 && f.first_failed_rps == 31);
    CHECK(f.tokens_per_request == 128 && f.quiz_correct == 37 && f.quiz_total == 40);
    CHECK_INT(suite_crun_figures(report, strlen(report), 1, &f), 0);
    CHECK(isnan(f.capacity_rps) && f.quiz_total == 0); /* 41 of 40 is no score */
    CHECK_INT(suite_crun_figures("[", 1, 0, &f), SUITE_CRUN_ERR_USAGE);
}

int main(void) {
    test_pairs();
    test_figures();
    test_parse_good();
    test_parse_refusals();
    test_cost_and_summary();
    return check_exit();
}
