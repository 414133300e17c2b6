/* The result format's head (rfmt.h): the run's fields of a sharded run (seed,
 * shard, start_at, start_tolerance_s, clock, settings_sha256) written, read
 * back and checked; the settings hash the same for every shard of one load and
 * different for another load; its times read and written. */
#include <stdlib.h>

#include "../check.h"
#include "rfmt.h"

static const char *given_of(int threads, const char *shard, const char *settings,
                            const char *scale) {
    static char text[2048];
    snprintf(text, sizeof text,
             "{\"scenario\":\"sweep\",\"run_id\":\"run-1\",\"label\":\"ep\","
             "\"endpoint\":{\"name\":\"ep\",\"variant\":null,\"format\":\"vllm-chat\","
             "\"inference_component\":null},\"target\":{\"url\":\"http://h\",\"host\":\"h\","
             "\"region\":\"us-east-1\",\"service\":\"sagemaker\"},\"wrk\":{\"threads\":%d,"
             "\"connections\":16},\"time_scale\":%s,\"started_at\":\"2026-05-01T11:59:58Z\","
             "\"seed\":7,%s\"start_at\":\"2026-05-01T12:00:00Z\",\"start_tolerance_s\":1,"
             "\"clock\":{\"offset_us\":-2461,\"uncertainty_us\":498,\"probes\":26},"
             "\"settings\":%s}",
             threads, scale, shard, settings);
    return text;
}

/* The head rfmt_head_make makes of given, parsed back; its hash into hash. */
static cJSON *made(const char *given, char hash[65]) {
    cJSON *in = cJSON_Parse(given), *out = NULL;
    struct buf err;
    buf_init(&err, 1024);
    CHECK(in != NULL);
    CHECK_INT(rfmt_head_make(in, "wrk-sagemaker 0.1.0", &out, &err), RFMT_OK);
    struct rfmt_head h;
    CHECK_INT(rfmt_head_parse(out, "made", &h, &err), RFMT_OK);
    snprintf(hash, 65, "%s", h.settings_sha256 ? h.settings_sha256 : "");
    cJSON_Delete(in);
    buf_free(&err);
    return out;
}

static void test_sharded_head(void) {
    const char *settings = "[[\"mode\",\"batch\"],[\"concurrency\",16],[\"max_tokens\",64]]";
    char h0[65], h1[65], h2[65], h3[65];
    cJSON *a = made(given_of(2, "\"shard\":{\"index\":0,\"count\":4},", settings, "20"), h0);
    cJSON *b = made(given_of(16, "\"shard\":{\"index\":3,\"count\":4},", settings, "20"), h1);
    cJSON *c =
        made(given_of(16, "\"shard\":{\"index\":1,\"count\":4},",
                      "[[\"mode\",\"batch\"],[\"concurrency\",16],[\"max_tokens\",65]]", "20"),
             h2);
    cJSON *d = made(given_of(16, "\"shard\":{\"index\":1,\"count\":2},", settings, "20"), h3);
    /* Shards of one load (threads and index differ) share the hash; another
     * max_tokens, or another shard count, is another load. */
    CHECK_INT(strlen(h0), 64);
    CHECK_STR(h0, h1);
    CHECK(strcmp(h0, h2) != 0);
    CHECK(strcmp(h0, h3) != 0);
    struct rfmt_head h;
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(rfmt_head_parse(b, "b", &h, &err), RFMT_OK);
    CHECK_INT(h.shard.index, 3);
    CHECK_INT(h.shard.count, 4);
    CHECK(h.has_seed && h.seed == 7);
    CHECK_STR(h.start_at, "2026-05-01T12:00:00Z");
    CHECK(h.start_tolerance_s == 1);
    CHECK(h.clock.have && h.clock.offset_us == -2461 && h.clock.uncertainty_us == 498 &&
          h.clock.probes == 26);
    /* A head without the run's fields writes none of them. */
    struct rfmt_head bare = {.tool = "t",
                             .scenario = "decode",
                             .client = {-1, -1, -1, -1},
                             .time_scale = 1,
                             .start_tolerance_s = -1};
    cJSON *j = rfmt_head_json(&bare);
    char *text = cJSON_PrintUnformatted(j);
    CHECK(text && !strstr(text, "shard") && !strstr(text, "seed") && !strstr(text, "clock") &&
          !strstr(text, "start_at") && !strstr(text, "settings_sha256"));
    free(text);
    cJSON_Delete(j);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
    cJSON_Delete(d);
    buf_free(&err);
}

static void test_bad_run_fields(void) {
    static const char *const bad[] = {"\"shard\":{\"index\":4,\"count\":4},",
                                      "\"shard\":{\"index\":0},",
                                      "\"shard\":{\"index\":-1,\"count\":2},",
                                      "\"shard\":{\"index\":0,\"count\":10001},",
                                      "\"start_at\":\"yesterday\",",
                                      "\"settings_sha256\":\"abc\",",
                                      "\"clock\":{\"probes\":3},",
                                      "\"seed\":1.5,"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "{\"format\":\"wrk-sagemaker-result\",\"version\":2,\"tool\":\"t\","
                 "\"scenario\":\"s\",\"endpoint\":{\"name\":\"e\"},\"time_scale\":1,%s"
                 "\"settings\":{}}",
                 bad[i]);
        cJSON *o = cJSON_Parse(text);
        struct rfmt_head h;
        struct buf err;
        buf_init(&err, 1024);
        CHECK(o != NULL);
        if (rfmt_head_parse(o, "f.json", &h, &err) != RFMT_ERR_INPUT) {
            fprintf(stderr, "accepted: %s\n", bad[i]);
            check_failed++;
        }
        CHECK(strncmp(buf_str(&err), "f.json: ", 8) == 0);
        buf_free(&err);
        cJSON_Delete(o);
    }
}

static void test_times(void) {
    static const struct {
        const char *text;
        long long us;
    } ok[] = {{"1970-01-01T00:00:00Z", 0},
              {"2026-05-01T12:00:00Z", 1777636800000000LL},
              {"2026-05-01T12:00:00.5Z", 1777636800500000LL},
              {"2024-02-29T23:59:59.123456Z", 1709251199123456LL}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        long long us = -1;
        char back[32];
        CHECK_INT(rfmt_time_parse(ok[i].text, &us), RFMT_OK);
        CHECK_INT(us, ok[i].us);
        rfmt_time_format(us, back);
        long long again = -1;
        CHECK_INT(rfmt_time_parse(back, &again), RFMT_OK);
        CHECK_INT(again, us);
    }
    static const char *const bad[] = {"2026-05-01 12:00:00Z",      "2026-05-01T12:00:00",
                                      "2026-02-30T00:00:00Z",      "2026-05-01T24:00:00Z",
                                      "2026-05-01T12:00:00.Z",     "2026-05-01T12:00:00.1234567Z",
                                      "2026-05-01T12:00:00+01:00", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long long us;
        CHECK_INT(rfmt_time_parse(bad[i], &us), RFMT_ERR_INPUT);
    }
}

int main(void) {
    test_sharded_head();
    test_bad_run_fields();
    test_times();
    return check_exit();
}
