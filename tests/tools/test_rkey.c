/* sm-results' keys (tools/rkey.h): a result file's head read without its
 * records, its key (a shard's with .shard-K-of-N), and a fetched key's local
 * path, refusing one that would land outside the folder. */
#include <stdlib.h>

#include "check.h"
#include "rkey.h"

static const char *result =
    "{\"format\":\"wrk-sagemaker-result\",\"version\":2,\"tool\":\"t\",\"scenario\":\"sweep\","
    "\"run_id\":\"run-20260501T120000Z\",\"label\":\"gemma-4-e2b\",\"endpoint\":{\"name\":\"e\"},"
    "\"time_scale\":1,\"shard\":{\"index\":2,\"count\":4},\"settings\":{},\"records\":[{\"seq\":0},"
    "{\"seq\":1}],\"partial\":false}";

static void test_head_and_key(void) {
    struct rkey_head h;
    struct buf key, err;
    buf_init(&key, 1024);
    buf_init(&err, 1024);
    CHECK_INT(rkey_head_of("out/sweep.json", result, strlen(result), &h, &err), RKEY_OK);
    CHECK_STR(h.run_id, "run-20260501T120000Z");
    CHECK_STR(h.label, "gemma-4-e2b");
    CHECK(h.shard == 2 && h.count == 4);
    CHECK_INT(rkey_key("runs/bench", &h, "sweep-c16.json", &key, &err), RKEY_OK);
    CHECK_STR(buf_str(&key),
              "runs/bench/run-20260501T120000Z/gemma-4-e2b/sweep-c16.shard-2-of-4.json");
    buf_reset(&key);
    CHECK_INT(rkey_key("", &h, "sweep.journal.jsonl", &key, &err), RKEY_OK);
    CHECK_STR(buf_str(&key), "run-20260501T120000Z/gemma-4-e2b/sweep.shard-2-of-4.journal.jsonl");
    buf_reset(&key);
    CHECK_INT(rkey_key("p", &h, "notes.txt", &key, &err), RKEY_ERR_INPUT);
    /* A journal's head is its first line. */
    char journal[1024];
    snprintf(journal, sizeof journal,
             "{\"format\":\"wrk-sagemaker-result\",\"version\":2,\"tool\":\"t\",\"scenario\":\"s\","
             "\"run_id\":\"r1\",\"label\":\"a\",\"endpoint\":{\"name\":\"e\"},\"time_scale\":1,"
             "\"settings\":{}}\n{\"seq\":0}\n");
    CHECK_INT(rkey_head_of("x.journal.jsonl", journal, strlen(journal), &h, &err), RKEY_OK);
    CHECK(h.count == 0 && strcmp(h.run_id, "r1") == 0);
    /* Not ours: another format, a run id that is no name, no JSON. */
    static const char *const bad[] = {
        "{\"format\":\"other\"}",
        "{\"format\":\"wrk-sagemaker-result\",\"version\":2,\"tool\":\"t\",\"scenario\":\"s\","
        "\"run_id\":\"../x\",\"label\":\"a\",\"endpoint\":{\"name\":\"e\"},\"time_scale\":1,"
        "\"settings\":{}}",
        "[1,2", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf_reset(&err);
        CHECK_INT(rkey_head_of("f.json", bad[i], strlen(bad[i]), &h, &err), RKEY_ERR_INPUT);
        CHECK(strncmp(buf_str(&err), "f.json: ", 8) == 0);
    }
    buf_free(&key);
    buf_free(&err);
}

static void test_local(void) {
    struct buf path, folder, err;
    buf_init(&path, 1024);
    buf_init(&folder, 1024);
    buf_init(&err, 1024);
    CHECK_INT(rkey_local("runs/r1/", "runs/r1/ep/sweep.shard-0-of-2.json", "fetched/", &path,
                         &folder, &err),
              RKEY_OK);
    CHECK_STR(buf_str(&path), "fetched/ep/sweep.shard-0-of-2.json");
    CHECK_STR(buf_str(&folder), "fetched/ep");
    static const char *const bad[] = {"runs/r1/../../etc/passwd", "runs/r1/ep/../x.json",
                                      "runs/r1/ep/a/b.json",      "runs/r1/.hidden/x.json",
                                      "runs/r1/ep/.x.json",       "runs/r2/ep/x.json",
                                      "runs/r1/x.json",           "runs/r1/ep/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf_reset(&path);
        buf_reset(&folder);
        CHECK_INT(rkey_local("runs/r1/", bad[i], "fetched", &path, &folder, &err), RKEY_ERR_INPUT);
    }
    buf_free(&path);
    buf_free(&folder);
    buf_free(&err);
}

int main(void) {
    test_head_and_key();
    test_local();
    return check_exit();
}
