/* epown: the tags on what sm-endpoint creates, the verdict on a resource's
 * tags for a run or for the tool (issue 28: a delete acts on nothing else),
 * run ids, and which other endpoint uses a config or a model. */
#include <string.h>

#include "check.h"
#include "epown.h"

static void test_tag_and_run(void) {
    struct buf req;
    char run[EPOWN_RUN_MAX];
    buf_init(&req, BUF_NO_CAP);
    CHECK_INT(buf_adds(&req, "{\"ModelName\":\"m\",\"Tags\":[{\"Key\":\"old\",\"Value\":\"x\"}]}"),
              0);
    CHECK_INT(epown_tag(&req, "r1"), 0);
    CHECK_STR(buf_str(&req), "{\"ModelName\":\"m\",\"Tags\":[{\"Key\":\"wrk-sagemaker:created-by\","
                             "\"Value\":\"wrk-sagemaker\"},{\"Key\":\"wrk-sagemaker:run\","
                             "\"Value\":\"r1\"}]}");
    CHECK_INT(epown_tag(&req, "a b"), EPOWN_ERR_INPUT); /* not a run id */
    buf_reset(&req);
    CHECK_INT(buf_adds(&req, "[1]"), 0);
    CHECK_INT(epown_tag(&req, "r1"), EPOWN_ERR_INPUT);
    buf_free(&req);
    static const struct {
        const char *s;
        bool ok;
    } ids[] = {{"r1", true},    {"suite-20261202T060004Z-5d72", true},
               {"a.b_c", true}, {"", false},
               {"a b", false},  {"a/b", false},
               {"x=y", false},  {NULL, false}};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        CHECK(epown_run_ok(ids[i].s) == ids[i].ok);
    char long_id[80];
    memset(long_id, 'a', 64);
    long_id[64] = '\0';
    CHECK(!epown_run_ok(long_id));
    epown_run_make(1790000000.0, 0xabcdef12u, run);
    CHECK_STR(run, "20260921T141320Z-abcdef12");
    CHECK(epown_run_ok(run));
}

static void test_judge(void) {
#define TOOL "{\"Key\":\"wrk-sagemaker:created-by\",\"Value\":\"wrk-sagemaker\"}"
    static const struct {
        const char *tags, *run;
        int want;
        const char *why;
    } rows[] = {
        {"{\"Tags\":[" TOOL ",{\"Key\":\"wrk-sagemaker:run\",\"Value\":\"r1\"}]}", "r1", 0, ""},
        {"{\"Tags\":[" TOOL ",{\"Key\":\"wrk-sagemaker:run\",\"Value\":\"r1\"}]}", NULL, 0, ""},
        {"{\"Tags\":[" TOOL ",{\"Key\":\"wrk-sagemaker:run\",\"Value\":\"r1\"}]}", "r2", 1,
         "run 'r1' created it, not run 'r2'"},
        {"{\"Tags\":[" TOOL "]}", "r2", 1,
         "it has no tag wrk-sagemaker:run: not created by run 'r2'"},
        {"{\"Tags\":[" TOOL "]}", NULL, 0, ""},
        {"{\"Tags\":[]}", NULL, 1,
         "it has no tag wrk-sagemaker:created-by=wrk-sagemaker: wrk-sagemaker did not create it"},
        {"{\"Tags\":[{\"Key\":\"wrk-sagemaker:run\",\"Value\":\"r1\"}]}", "r1", 1,
         "it has no tag wrk-sagemaker:created-by=wrk-sagemaker: wrk-sagemaker did not create it"},
        {"{\"Tags\":[{\"Key\":\"wrk-sagemaker:created-by\",\"Value\":\"other-tool\"}]}", NULL, 1,
         "it has no tag wrk-sagemaker:created-by=wrk-sagemaker: wrk-sagemaker did not create it"},
        {"{}", NULL, EPOWN_ERR_INPUT, "ListTags gave no Tags list"},
        {"not json", "r1", EPOWN_ERR_INPUT, "ListTags gave no Tags list"},
    };
    struct buf why;
    buf_init(&why, 1024);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        buf_reset(&why);
        CHECK_INT(epown_judge(rows[i].tags, strlen(rows[i].tags), rows[i].run, &why), rows[i].want);
        CHECK_STR(buf_str(&why), rows[i].why);
    }
    buf_free(&why);
#undef TOOL
}

static void test_user(void) {
    struct epown_use uses[2] = {
        {.endpoint = "mine",
         .configs = {"mine"},
         .n_configs = 1,
         .models = {"mine"},
         .n_models = 1},
        {.endpoint = "other",
         .configs = {"other", "mine-next"},
         .n_configs = 2,
         .models = {"shared", "Mine"},
         .n_models = 2},
    };
    CHECK(epown_user(uses, 2, "mine", false, "mine") == NULL);           /* its own only */
    CHECK_STR(epown_user(uses, 2, "mine", false, "mine-next"), "other"); /* the pending config */
    CHECK_STR(epown_user(uses, 2, "mine", true, "mine"), "other");       /* names are caseless */
    CHECK_STR(epown_user(uses, 2, "MINE", true, "shared"), "other");
    CHECK(epown_user(uses, 2, "other", true, "shared") == NULL);
    CHECK(epown_user(uses, 0, "x", true, "mine") == NULL);
}

int main(void) {
    test_tag_and_run();
    test_judge();
    test_user();
    return check_exit();
}
