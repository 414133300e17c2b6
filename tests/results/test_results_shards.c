/* Sharded runs in sm-compare (shards.h): the shard files of one run merged into
 * one run (records pooled, each shard's clock moved onto one, a sweep batch the
 * union of the shards' batches, counts summed, per-shard starts, rates and
 * clocks reported, the common window), never read as repeats; a missing,
 * doubled or mismatched shard, or one that did not run, refused with one line. */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "inputs.h"
#include "rtest.h"
#include "shards.h"

/* Shard k of n of run "run" for label: 2 batches of 2 requests each (senders k
 * and k + n), 64 tokens each. Its run clock starts clock_us (wall) before its
 * records: wall = t + origin_wall; extra: more head members. */
static const char *shard_file(const char *name, const char *run, int k, int n,
                              long long origin_wall, long long late_us, const char *hash,
                              const char *extra) {
    static char text[1 << 15];
    char recs[4096];
    size_t off = 0;
    long long start_at = 1777636800000000LL; /* 2026-05-01T12:00:00Z */
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 2; i++) {
            long long t = start_at - origin_wall + late_us + b * 1000000LL + i * 10LL;
            off += (size_t)snprintf(
                recs + off, sizeof recs - off,
                "%s{\"seq\":%d,\"thread\":%d,\"endpoint\":\"ep\",\"variant\":null,\"phase\":"
                "\"sweep\",\"batch\":%d,\"max_tokens\":64,\"prompt_tokens\":7,"
                "\"completion_tokens\":64,\"finish_reason\":\"length\",\"status\":200,\"ok\":true,"
                "\"error\":null,\"t_start_us\":%lld,\"t_end_us\":%lld,\"wall_start_us\":%lld}",
                off ? "," : "", b * 2 + i, k + i * n, b, t, t + 900000, t + origin_wall);
        }
    snprintf(text, sizeof text,
             "{\"format\":\"wrk-sagemaker-result\",\"version\":2,\"tool\":\"wrk-sagemaker 0.1.0\","
             "\"scenario\":\"sweep\",\"run_id\":\"%s\",\"label\":\"ep\",\"endpoint\":{\"name\":"
             "\"ep\"},\"wrk\":{\"threads\":%d,\"connections\":%d},\"client\":\"wrk\",\"api\":"
             "\"invoke\",\"time_scale\":1,\"started_at\":\"2026-05-01T11:59:58Z\",\"shard\":{"
             "\"index\":%d,\"count\":%d},\"start_at\":\"2026-05-01T12:00:00Z\","
             "\"start_tolerance_s\":1,%s\"settings_sha256\":\"%s\",\"settings\":{\"mode\":"
             "\"batch\",\"concurrency\":%d,\"max_tokens\":64},%s\"records\":[%s]}",
             run, 2 * n, 2 * n, k, n, extra ? extra : "", hash, 2 * n,
             extra && strstr(extra, "partial") ? "" : "\"partial\":false,\"partial_reason\":null,",
             recs);
    return rtest_write(name, text);
}

#define HASH_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HASH_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static struct rfile *read_file(const char *path) {
    struct rfile *rf = NULL;
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(rfile_read(path, &rf, &err), RFILE_OK);
    buf_free(&err);
    return rf;
}

static void test_merge(void) {
    /* Two shards whose run clocks started 5 s apart (other processes); shard 1
     * sent its first request 2 ms after --start-at, shard 0 at it. */
    struct rfile *f[2] = {
        read_file(
            shard_file("m1.json", "run-m", 1, 2, 1777636795000000LL, 2000, HASH_A,
                       "\"clock\":{\"offset_us\":-1000,\"uncertainty_us\":500,\"probes\":9},")),
        read_file(
            shard_file("m0.json", "run-m", 0, 2, 1777636790000000LL, 0, HASH_A,
                       "\"clock\":{\"offset_us\":14000,\"uncertainty_us\":500,\"probes\":9},"))};
    struct rfile *out;
    struct shards_info *info;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 1024);
    CHECK(shards_is_shard(f[0]) && shards_is_shard(f[1]));
    CHECK_INT(shards_merge(f, 2, &out, &info, &w, &err), SHARDS_OK);
    CHECK_INT(out->nrecs, 8);
    CHECK(!cJSON_GetObjectItem(out->head, "shard"));
    /* One clock: batch 0's four requests start within 2 ms of each other, the
     * threads are the run's senders 0 to 3. */
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < out->nrecs; i++) {
        if (out->recs[i].batch != 0) continue;
        lo = out->recs[i].t_start_us < lo ? out->recs[i].t_start_us : lo;
        hi = out->recs[i].t_start_us > hi ? out->recs[i].t_start_us : hi;
    }
    CHECK(hi - lo >= 2000 && hi - lo <= 2010);
    CHECK_INT(info->count, 2);
    CHECK_STR(info->run_id, "run-m");
    CHECK(fabs(info->shards[0].late_s - 0) < 1e-5 && fabs(info->shards[1].late_s - 0.002) < 1e-5);
    CHECK(fabs(info->skew_s - 0.002) < 1e-5);
    CHECK(info->shards[0].sent == 4 && info->shards[1].ok == 4);
    /* Each shard sent 4 requests over its 1.9 s span. */
    CHECK(fabs(info->shards[0].rate - 4 / 1.90001) < 1e-3);
    /* The window all shards sent: from shard 1's first send to shard 0's last end. */
    CHECK(fabs(info->window_s - (1.90001 - 0.002)) < 1e-4);
    CHECK(info->shards[0].clock && info->shards[0].offset_ms == 14);
    /* The clocks disagree by 15 ms (> 10): a warning naming both. */
    bool warned = false;
    for (size_t i = 0; i < w.n; i++)
        warned |= strstr(w.items[i], "clocks disagree by 15.0 ms") != NULL;
    CHECK(warned);
    int64_t a, b;
    CHECK(shards_common_window(out, &a, &b) && b > a);
    CHECK(!shards_common_window(f[0], &a, &b));
    rfile_free(out);
    shards_info_free(info);
    rfile_free(f[0]);
    rfile_free(f[1]);
    warnings_free(&w);
    buf_free(&err);
}

/* Merging the files refuses with a message that holds want. */
static void refused(struct rfile **f, size_t n, const char *want) {
    struct rfile *out;
    struct shards_info *info;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 2048);
    CHECK_INT(shards_merge(f, n, &out, &info, &w, &err), SHARDS_ERR_INPUT);
    if (!strstr(buf_str(&err), want)) {
        fprintf(stderr, "refusal [%s] lacks [%s]\n", buf_str(&err), want);
        check_failed++;
    }
    CHECK(out == NULL && info == NULL);
    warnings_free(&w);
    buf_free(&err);
}

static void test_refusals(void) {
    struct rfile *s0 = read_file(shard_file("r0.json", "run-r", 0, 3, 1, 0, HASH_A, NULL));
    struct rfile *s1 = read_file(shard_file("r1.json", "run-r", 1, 3, 1, 0, HASH_A, NULL));
    struct rfile *s1b = read_file(shard_file("r1b.json", "run-r", 1, 3, 7, 0, HASH_A, NULL));
    struct rfile *s2 = read_file(shard_file("r2.json", "run-r", 2, 3, 1, 0, HASH_A, NULL));
    struct rfile *x2 = read_file(shard_file("x2.json", "run-r", 2, 3, 1, 0, HASH_B, NULL));
    struct rfile *four = read_file(shard_file("f2.json", "run-r", 2, 4, 1, 0, HASH_A, NULL));
    struct rfile *late = read_file(shard_file(
        "l2.json", "run-r", 2, 3, 1, 0, HASH_A,
        "\"partial\":true,\"partial_reason\":\"late start: the first round started 1.5 s after "
        "--start-at (tolerance 1 s)\","));
    struct rfile *missing[] = {s0, s2}, *twice[] = {s0, s1, s1b, s2}, *other[] = {s0, s1, x2},
                 *count[] = {s0, s1, four}, *ran[] = {s0, s1, late};
    refused(missing, 2, "shard 1 of 3 is missing");
    refused(twice, 4, "both are shard 1 of run run-r");
    refused(other, 3, "different settings");
    refused(count, 3, "split into 3 and into 4 shards");
    refused(ran, 3, "shard 2 of run run-r did not run");
    struct rfile *all[] = {s2, s0, s1}; /* in any order */
    struct rfile *out;
    struct shards_info *info;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 1024);
    CHECK_INT(shards_merge(all, 3, &out, &info, &w, &err), SHARDS_OK);
    CHECK_INT(out->nrecs, 12);
    CHECK_INT(w.n, 0);
    rfile_free(out);
    shards_info_free(info);
    struct rfile *files[] = {s0, s1, s1b, s2, x2, four, late};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) rfile_free(files[i]);
    warnings_free(&w);
    buf_free(&err);
}

static void test_side(void) {
    /* A side given the three shards of a c6 run and an unsharded c6 run: two
     * inputs, the shards one run of 12 requests at c6 (2 batches of 6), never a
     * repeat of each other; a side missing a shard is refused. */
    char *paths[4] = {
        (char *)shard_file("s0.json", "run-s", 0, 3, 1777636790000000LL, 0, HASH_A, NULL),
        (char *)shard_file("s1.json", "run-s", 1, 3, 1777636791000000LL, 0, HASH_A, NULL),
        (char *)shard_file("s2.json", "run-s", 2, 3, 1777636792000000LL, 0, HASH_A, NULL)};
    struct inputs in;
    struct warnings w;
    struct buf err;
    warnings_init(&w);
    buf_init(&err, 2048);
    CHECK_INT(inputs_read(paths, 3, NULL, NULL, NULL, &in, &w, &err), INPUTS_OK);
    CHECK_INT(in.n, 1);
    if (in.n == 1) {
        const struct src *s = &in.srcs[0];
        CHECK(s->shards && s->shards->count == 3);
        CHECK(s->nlevels == 1 && s->levels[0].c == 6);
        CHECK_INT(s->levels[0].nb, 2); /* each batch the union of the shards': 6 requests */
        CHECK_INT(s->levels[0].tally.sent, 12);
        CHECK(strstr(s->path, "[3 shards of run run-s]") != NULL);
    }
    inputs_free(&in);
    CHECK_INT(inputs_read(paths, 2, NULL, NULL, NULL, &in, &w, &err), INPUTS_ERR_INPUT);
    CHECK(strstr(buf_str(&err), "shard 2 of 3 is missing") != NULL);
    inputs_free(&in);
    warnings_free(&w);
    buf_free(&err);
}

int main(void) {
    test_merge();
    test_refusals();
    test_side();
    return check_exit();
}
