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
#include "suite_cdep.h"
#include "suite_crun.h"
#include "smname.h"

static const char good[] =
    "{\"candidates\": ["
    " {\"label\": \"g6-qat\", \"endpoint\": \"gemma-qat\", \"instance_type\": \"ml.g6.xlarge\","
    "  \"price_per_hour\": 1.1267},"
    " {\"label\": \"ab.v2\", \"endpoint\": \"shared\", \"variant\": \"Blue\"},"
    " {\"label\": \"ic\", \"endpoint\": \"shared\", \"inference_component\": \"gemma-ic\","
    "  \"price_per_hour\": 0.5},"
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
    CHECK(l.c[2].price_per_hour == 0.5 && l.c[2].instance_count == 1);
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
        /* a component's share of its endpoint's instances is the user's to price */
        {"{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"e\","
         " \"inference_component\": \"i\"}]}",
         "candidates[0]: inference component i: want its price_per_hour, the USD per hour of its "
         "share"},
        {"{\"candidates\": [{\"label\": \"a\", \"endpoint\": \"e\","
         " \"inference_component\": \"i\", \"price_per_hour\": 1, \"instance_count\": 2}]}",
         "candidates[0]: inference component i: its price_per_hour is its whole cost per hour; "
         "drop instance_count"},
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
    /* g5 up to 0.35206 (held 8.9), g6 from 0.29807 (failed 4.2): the brackets overlap */
    CHECK_INT(suite_cand_rival(&l, f, 3), 0);
    /* g5 up to 0.28485 (held 11): below g6's least, so the brackets decide */
    f[3].last_held_rps = 11, f[3].first_failed_rps = 12.5;
    CHECK_INT(suite_cand_rival(&l, f, 3), -1);
    /* a candidate that failed no rate may cost anything less: never ruled out */
    f[0].first_failed_rps = NAN;
    CHECK_INT(suite_cand_rival(&l, f, 3), 0);
    f[0].first_failed_rps = 4.2;
    /* the cheapest held no rate: it may cost anything more */
    f[3].last_held_rps = NAN;
    CHECK_INT(suite_cand_rival(&l, f, 3), 0);
    f[3].last_held_rps = 11;
    CHECK_INT(suite_cand_rival(&l, f, -1), -1);
    CHECK_INT(suite_cand_summary(&l, f, "ttft:p90:1", &out), 0);
    cJSON *j = cJSON_Parse(buf_str(&out));
    CHECK(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "format")->valuestring, "wrk-sagemaker-candidates");
    CHECK_STR(cJSON_GetObjectItem(j, "cheapest_at_capacity")->valuestring, "g5-qat");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "decided_by_brackets")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "overlapping")));
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
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 2), "kind")->valuestring,
              "inference_component");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "kind")->valuestring, "endpoint");
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
    /* overlapping brackets: said, with the candidate that overlaps */
    f[3].last_held_rps = 8.9;
    buf_reset(&out);
    CHECK_INT(suite_cand_summary(&l, f, NULL, &out), 0);
    j = cJSON_Parse(buf_str(&out));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j, "decided_by_brackets")));
    CHECK_STR(cJSON_GetObjectItem(j, "overlapping")->valuestring, "g6-qat");
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
    CHECK(strstr(buf_str(&err), "candidates[4] (x): a deploy spec without its endpoint") != NULL);
    /* an inference component is its endpoint's side with --*-component; beside an endpoint
       or another component, on the same endpoint or another */
    static const char comps[] =
        "{\"candidates\": [{\"label\": \"plain\", \"endpoint\": \"e\"},"
        " {\"label\": \"ic\", \"endpoint\": \"f\", \"inference_component\": \"c1\","
        "  \"price_per_hour\": 0.5},"
        " {\"label\": \"ic2\", \"endpoint\": \"f\", \"inference_component\": \"c2\","
        "  \"price_per_hour\": 0.5}]}";
    struct suite_cand_list lc;
    CHECK_INT(suite_cand_parse(comps, strlen(comps), "c.json", &lc, &err), 0);
    buf_reset(&words);
    CHECK_INT(suite_crun_pair_argv(&lc, 0, "s", "o", false, rest, 0, &a, &err), 0);
    CHECK_INT(suite_argv_quote_all(&words, &a), 0);
    CHECK_STR(buf_str(&words),
              "s --out o/pair-1 --baseline e=plain --candidate f=ic --candidate-component c1");
    buf_reset(&words);
    CHECK_INT(suite_crun_pair_argv(&lc, 1, "s", "o", false, rest, 0, &a, &err), 0);
    CHECK_INT(suite_argv_quote_all(&words, &a), 0);
    CHECK_STR(buf_str(&words), "s --out o/pair-2 --baseline f=ic2 --candidate f=ic2.aa "
                               "--baseline-component c2 --candidate-component c2");
    char *comp_owned[] = {"--candidate-component", "x"};
    CHECK_INT(suite_crun_pair_argv(&lc, 0, "s", "o", false, comp_owned, 2, &a, &err),
              SUITE_CRUN_ERR_USAGE);
    CHECK(strstr(buf_str(&err), "--candidate-component: with --candidates the candidates file") !=
          NULL);
    /* once named (suite_cdrun_name), a deploy spec is measured as its endpoint */
    snprintf(l.c[4].endpoint, sizeof l.c[4].endpoint, "c5-x");
    buf_reset(&words);
    CHECK_INT(suite_crun_pair_argv(&l, 2, "s", "o", false, rest, 0, &a, &err), 0);
    CHECK_INT(suite_argv_quote_all(&words, &a), 0);
    CHECK_STR(buf_str(&words), "s --out o/pair-3 --baseline c5-x=x --candidate c5-x=x.aa");
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

/* A deploy spec's endpoint name: the run's and the candidate's, a valid SageMaker name. */
static void test_cdep_name(void) {
    char a[64], b[64], c[64];
    suite_cdep_name("cand-1", 0, "g6_qat.v2", a);
    suite_cdep_name("cand-2", 0, "g6_qat.v2", b);
    CHECK(strncmp(a, "c1-", 3) == 0 && strstr(a, "-g6-qat-v2") != NULL);
    CHECK(strcmp(a, b) != 0); /* another run, another name */
    suite_cdep_name("cand-1", 11,
                    "a-label-of-sixty-four-characters-that-is-long-enough-to-cut-it__", c);
    CHECK(strlen(c) <= 63 && smname_endpoint_ok(c, strlen(c)) && c[strlen(c) - 1] != '-');
    CHECK(strncmp(c, "c12-", 4) == 0);
}

static const char four[] =
    "{\"candidates\": ["
    " {\"label\": \"a\", \"deploy\": {\"model\": \"m\", \"instance_type\": \"ml.g6.xlarge\"}},"
    " {\"label\": \"b\", \"deploy\": {\"model\": \"m\", \"instance_type\": \"ml.g6.xlarge\","
    "  \"instance_count\": 2}},"
    " {\"label\": \"c\", \"deploy\": {\"model\": \"m\", \"instance_type\": \"ml.g5.xlarge\"}},"
    " {\"label\": \"d\", \"endpoint\": \"e\"},"
    " {\"label\": \"f\", \"deploy\": {\"model\": \"m\", \"instance_type\": \"ml.g6.xlarge\"}}"
    "]}";

/* The list of four, err ready for messages. */
static void cdep_four(struct suite_cand_list *l, struct buf *err) {
    buf_init(err, 4096);
    CHECK_INT(suite_cand_parse(four, strlen(four), "c.json", l, err), 0);
}

/* The plan: pairs at once while the free quotas hold them, else one after another;
 * a pair that does not fit alone is refused naming the type and the quota. */
static void test_cdep_plan(void) {
    struct suite_cand_list l;
    struct buf err;
    cdep_four(&l, &err);
    struct suite_cdep_quota q[2] = {{"ml.g6.xlarge", 4, 0, 0}, {"ml.g5.xlarge", 1, 0, 0}};
    bool done[3] = {false, false, false};
    int wave[3], n = 0;
    /* pairs: (a,b) 3 g6, (c,d) 1 g5, (f,f) 1 g6: all at once with 4 g6 free */
    CHECK_INT(suite_cdep_plan(&l, q, 2, done, "r", wave, &n, &err), 0);
    CHECK(n == 1 && wave[0] == 0 && wave[1] == 0 && wave[2] == 0);
    /* 1 in use by others: (a,b) and (c,d, on g5) fill the 3 free, then (f,f) */
    q[0].in_use = 1;
    CHECK_INT(suite_cdep_plan(&l, q, 2, done, "r", wave, &n, &err), 0);
    CHECK(n == 2 && wave[0] == 0 && wave[1] == 0 && wave[2] == 1);
    /* this run's own endpoints do not count against it (a resumed run) */
    q[0].in_use = 3, q[0].ours = 3;
    CHECK_INT(suite_cdep_plan(&l, q, 2, done, "r", wave, &n, &err), 0);
    CHECK(n == 1);
    /* a pair done is not planned */
    q[0].ours = 0, q[0].in_use = 0, q[0].quota = 1;
    done[0] = true;
    CHECK_INT(suite_cdep_plan(&l, q, 2, done, "r", wave, &n, &err), 0);
    CHECK(n == 1 && wave[0] == -1 && wave[1] == 0 && wave[2] == 0);
    done[0] = false;
    CHECK_INT(suite_cdep_plan(&l, q, 2, done, "us-east-2", wave, &n, &err), SUITE_CDEP_ERR_REFUSED);
    CHECK_STR(buf_str(&err), "--candidates: candidates a and b, measured together, need 3 "
                             "ml.g6.xlarge: the quota \"ml.g6.xlarge for endpoint usage\" in "
                             "us-east-2 is 1 with 0 in use by others; nothing was created");
    q[1].quota = -1;
    q[0].quota = 8;
    CHECK_INT(suite_cdep_plan(&l, q, 2, done, "us-east-2", wave, &n, &err), SUITE_CDEP_ERR_REFUSED);
    CHECK(strstr(buf_str(&err), "candidate c needs 1 ml.g5.xlarge: us-east-2 has no quota") !=
          NULL);
    buf_free(&err);
}

/* The manifest: written and read back; one that names another file's spec is refused. */
static void test_cdep_manifest(void) {
    struct suite_cand_list l;
    struct suite_cdep_manifest m, back;
    struct buf err, json;
    buf_init(&json, 1u << 16);
    cdep_four(&l, &err);
    memset(&m, 0, sizeof m);
    snprintf(m.run, sizeof m.run, "cand-20260101T000000Z-1f");
    m.named[0] = m.named[1] = m.deleted[0] = true;
    m.done[2] = true;
    CHECK_INT(suite_cdep_manifest_json(&l, &m, &json), 0);
    CHECK_INT(suite_cdep_manifest_read(buf_str(&json), json.len, "d.json", &l, &back, &err), 0);
    CHECK_STR(back.run, m.run);
    CHECK(back.named[0] && back.named[1] && !back.named[2] && back.deleted[0] && !back.deleted[1] &&
          back.done[2] && !back.done[0]);
    static const char other[] = "{\"run\": \"x\", \"deployments\": [{\"label\": \"a\", "
                                "\"endpoint\": \"c1-00000000-a\", \"deleted\": false}], "
                                "\"pairs_done\": []}";
    CHECK_INT(suite_cdep_manifest_read(other, strlen(other), "d.json", &l, &back, &err),
              SUITE_CDEP_ERR_REFUSED);
    CHECK(strstr(buf_str(&err), "d.json: a deployment the candidates file does not name") != NULL);
    static const char quotas[] =
        "{\"quotas\": [{\"instance_type\": \"ml.g6.xlarge\", \"region\": \"r\", \"quota\": 4, "
        "\"in_use\": 1}, {\"instance_type\": \"ml.g5.xlarge\", \"region\": \"r\", "
        "\"quota\": null, \"in_use\": 0}]}";
    struct suite_cdep_quota q[4];
    size_t nq = 0;
    CHECK_INT(suite_cdep_quotas_read(quotas, strlen(quotas), q, 4, &nq, &err), 0);
    CHECK(nq == 2 && q[0].quota == 4 && q[0].in_use == 1 && q[1].quota < 0);
    buf_free(&json);
    buf_free(&err);
}

int main(void) {
    test_pairs();
    test_figures();
    test_cdep_name();
    test_cdep_plan();
    test_cdep_manifest();
    test_parse_good();
    test_parse_refusals();
    test_cost_and_summary();
    return check_exit();
}
