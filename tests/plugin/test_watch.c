/* watch: the client's own tally per round (client_rounds): reads and their
 * bursts, stalls over RFMT_STALL_US, CPU and wall time, the host's stolen CPU
 * (hostcpu: /proc/stat's line read), a round's file and batch; and the
 * objects written read back through rfmt. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

/* A moment: clock, CPU, and the host's ticks (total < 0: not known). */
static struct watch_mark mark(long long now_us, double cpu_s, long long total, long long steal) {
    return (struct watch_mark){now_us, cpu_s, {total, steal}};
}

/* /proc/stat's first line as Linux writes it, and what is not one. */
static void host_lines(void) {
    struct hostcpu h;
    CHECK(hostcpu_parse("cpu  2201753 7698 320207 2550835 6020 0 25020 179729 0 0\n", &h));
    CHECK(h.total == 2201753LL + 7698 + 320207 + 2550835 + 6020 + 0 + 25020 + 179729);
    CHECK(h.steal == 179729);
    CHECK(hostcpu_parse("cpu 1 2 3 4 5 6 7 8", &h) && h.steal == 8 && h.total == 36);
    static const char *const bad[] = {
        "cpu0 1 2 3 4 5 6 7 8 0 0", /* a processor's line, not the host's */
        "cpu 1 2 3 4 5 6 7",        /* a kernel without steal */
        "cpu 1 2 3 -4 5 6 7 8",
        "intr 1 2 3 4 5 6 7 8",
        "",
        "cpu 1 2 3 4 5 6 7 99999999999999999999",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(!hostcpu_parse(bad[i], &h));
        CHECK(h.total == -1);
    }
    char path[] = "/tmp/test_watch_statXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("cpu  10 0 10 70 0 0 0 10 0 0\ncpu0 5 0 5 35 0 0 0 5 0 0\n", f);
    fclose(f);
    CHECK(hostcpu_read(path, &h) && h.total == 100 && h.steal == 10);
    unlink(path);
    CHECK(!hostcpu_read(path, &h) && h.total == -1); /* gone */
    struct hostcpu a = {1000, 10}, b = {1200, 16}, unknown = {-1, -1};
    CHECK(hostcpu_steal_share(&a, &b) == 0.03);
    CHECK(hostcpu_steal_share(&a, &a) < 0);       /* no tick passed */
    CHECK(hostcpu_steal_share(&b, &a) < 0);       /* backwards */
    CHECK(hostcpu_steal_share(&unknown, &b) < 0); /* not known */
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
    struct watch_mark m = mark(1000000, 1.0, 4000, 100);
    watch_item(&w, 0, &m);
    m = mark(1500000, 1.2, 4100, 150);
    watch_item(&w, 0, &m); /* the same round: no restart */
    watch_record(&w, 1, 4);
    watch_record(&w, 0, 9);             /* the round's first record named it already */
    watch_stall(&w, RFMT_STALL_US);     /* not above the threshold */
    watch_stall(&w, RFMT_STALL_US + 1); /* a stall */
    watch_stall(&w, 7000);
    watch_reads(&w, 2, 10, 8);
    m = mark(3000000, 2.5, 4400, 112);
    watch_item(&w, 1, &m); /* round 0 ends here: 2 s, 1.5 s of CPU, 12 of 400 ticks stolen */
    watch_record(&w, 0, 0);
    watch_reads(&w, 5, 5, 0);
    m = mark(4000000, 2.6, -1, -1); /* /proc/stat could not be read */
    watch_end(&w, &m);

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
    CHECK(item(f1, 0, "host_steal_share")->valuedouble == 0.03);
    CHECK(cJSON_IsNull(item(f0, 0, "host_steal_share")));

    struct rfmt_round r;
    struct buf err;
    buf_init(&err, 512);
    CHECK(rfmt_round_parse(cJSON_GetArrayItem(f1, 0), "f.json", 0, &r, &err) == RFMT_OK);
    CHECK_INT(r.chunks, 10);
    CHECK_INT(r.cpus, 2);
    CHECK_STR(r.stalls_of, "event loop");
    CHECK(r.steal_share == 0.03);
    CHECK(rfmt_round_parse(cJSON_GetArrayItem(f0, 0), "f.json", 1, &r, &err) == RFMT_OK);
    CHECK(r.steal_share < 0);
    /* a file from before host_steal_share: not known */
    cJSON_DeleteItemFromObject(cJSON_GetArrayItem(f0, 0), "host_steal_share");
    CHECK(rfmt_round_parse(cJSON_GetArrayItem(f0, 0), "f.json", 1, &r, &err) == RFMT_OK);
    CHECK(r.steal_share < 0);
    /* a share above the whole: refused, naming the field */
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(f1, 0), "host_steal_share",
                              cJSON_CreateNumber(1.5));
    CHECK(rfmt_round_parse(cJSON_GetArrayItem(f1, 0), "f.json", 0, &r, &err) == RFMT_ERR_INPUT);
    CHECK(strstr(buf_str(&err), "f.json: client_rounds[0].host_steal_share") != NULL);
    buf_reset(&err);
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(f1, 0), "host_steal_share",
                              cJSON_CreateNumber(0.03));
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
    host_lines();
    count_reads();
    rounds_per_file();
    return check_exit();
}
