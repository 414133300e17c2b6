/* watch: the client's own tally per round (client_rounds): reads and their
 * bursts, stalls over RFMT_STALL_US, CPU and wall time, a round's file and
 * batch; and the objects written read back through rfmt. */
#include <stdlib.h>

#include "../check.h"
#include "rfmt.h"
#include "watch.h"

/* Reads bringing each of these chunk counts. */
static void count_reads(void) {
    static const struct {
        long per_read[6];
        long reads, chunks, burst;
    } rows[] = {
        {{1, 1, 1, 1, 0, 0}, 4, 4, 0},    /* a chunk a read: no burst */
        {{50, 0, 0, 0, 0, 0}, 1, 50, 49}, /* fifty in one read: 49 came with another */
        {{3, 0, 2, 1, 0, 0}, 3, 6, 3},    /* a read without content is no read of content */
        {{0, 0, 0, 0, 0, 0}, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        long reads = 0, chunks = 0, burst = 0;
        for (size_t k = 0; k < 6; k++)
            watch_count_read(rows[i].per_read[k], &reads, &chunks, &burst);
        CHECK_INT(reads, rows[i].reads);
        CHECK_INT(chunks, rows[i].chunks);
        CHECK_INT(burst, rows[i].burst);
    }
}

static const cJSON *item(const cJSON *a, int i, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(a, i), key);
}

/* Two rounds into two files: each file gets its round, with what was noted in it. */
static void rounds_per_file(void) {
    struct watch w;
    struct watch_client c = {.cpus = 2, .threads = 1, .stalls_of = "event loop"};
    CHECK(watch_init(&w, 3, &c) == WATCH_OK);
    watch_stall(&w, 5000); /* before any round: nowhere */
    watch_item(&w, 0, 1000000, 1.0);
    watch_item(&w, 0, 1500000, 1.2); /* the same round: no restart */
    watch_record(&w, 1, 4);
    watch_record(&w, 0, 9);             /* the round's first record named it already */
    watch_stall(&w, RFMT_STALL_US);     /* not above the threshold */
    watch_stall(&w, RFMT_STALL_US + 1); /* a stall */
    watch_stall(&w, 7000);
    watch_reads(&w, 2, 10, 8);
    watch_item(&w, 1, 3000000, 2.5); /* round 0 ends here: 2 s, 1.5 s of CPU */
    watch_record(&w, 0, 0);
    watch_reads(&w, 5, 5, 0);
    watch_end(&w, 4000000, 2.6);

    cJSON *f1 = watch_json(&w, 1), *f0 = watch_json(&w, 0), *f2 = watch_json(&w, 2);
    CHECK_INT(cJSON_GetArraySize(f1), 1);
    CHECK_INT(cJSON_GetArraySize(f0), 1);
    CHECK_INT(cJSON_GetArraySize(f2), 0);
    CHECK_INT(item(f1, 0, "round")->valueint, 0);
    CHECK_INT(item(f1, 0, "batch")->valueint, 4);
    CHECK(item(f1, 0, "wall_s")->valuedouble == 2.0);
    CHECK(item(f1, 0, "cpu_s")->valuedouble > 1.49 && item(f1, 0, "cpu_s")->valuedouble < 1.51);
    CHECK_INT(item(f1, 0, "stalls")->valueint, 2);
    CHECK_INT(item(f1, 0, "stall_max_us")->valueint, 7000);
    CHECK_INT(item(f1, 0, "stall_us")->valueint, 7000 + RFMT_STALL_US + 1);
    CHECK_INT(item(f1, 0, "burst_chunks")->valueint, 8);
    CHECK_INT(item(f0, 0, "round")->valueint, 1);
    CHECK_INT(item(f0, 0, "reads")->valueint, 5);
    CHECK_INT(item(f0, 0, "stalls")->valueint, 0);

    struct rfmt_round r;
    struct buf err;
    buf_init(&err, 512);
    CHECK(rfmt_round_parse(cJSON_GetArrayItem(f1, 0), "f.json", 0, &r, &err) == RFMT_OK);
    CHECK_INT(r.chunks, 10);
    CHECK_INT(r.cpus, 2);
    CHECK_STR(r.stalls_of, "event loop");
    /* more chunks in bursts than chunks: refused, naming the field */
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(f1, 0), "burst_chunks", cJSON_CreateNumber(11));
    CHECK(rfmt_round_parse(cJSON_GetArrayItem(f1, 0), "f.json", 0, &r, &err) == RFMT_ERR_INPUT);
    CHECK_STR(buf_str(&err), "f.json: client_rounds[0].burst_chunks: 11 is more than chunks (10)");
    buf_reset(&err);
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(f0, 0), "cpu_s", cJSON_CreateString("x"));
    CHECK(rfmt_round_parse(cJSON_GetArrayItem(f0, 0), "g.json", 3, &r, &err) == RFMT_ERR_INPUT);
    CHECK(strstr(buf_str(&err), "g.json: client_rounds[3].cpu_s") != NULL);
    buf_free(&err);
    cJSON_Delete(f0);
    cJSON_Delete(f1);
    cJSON_Delete(f2);
    watch_free(&w);
}

int main(void) {
    count_reads();
    rounds_per_file();
    return check_exit();
}
