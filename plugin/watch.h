/* watch: how the client itself fared, round by round (docs/result-format.md,
 * client_rounds), so that a reader can tell a figure the client disturbed
 * from one the server made: the process's CPU over each round's wall time,
 * the stalls of its own work (a piece longer than RFMT_STALL_US), the content
 * chunks that came in one read with the chunk before them (whose gaps say
 * nothing about the server), and the host's CPU its hypervisor took (hostcpu.h).
 *
 * A round runs from its first item handed out to the next round's (or the
 * run's end); what is noted goes to the round current then. A round belongs
 * to the file and batch of its first record. Pure: the clock and the CPU
 * time come from the caller, which serialises every call (run.c's lock). */
#ifndef SM_WATCH_H
#define SM_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "hostcpu.h"

enum watch_error { WATCH_OK = 0, WATCH_ERR_NOMEM = -1 };

/* A moment of the run: the clock, the process's CPU, the host's ticks. */
struct watch_mark {
    long long now_us;
    double cpu_s;
    struct hostcpu host;
};

/* One round's tally. */
struct watch_round {
    bool started;
    struct watch_mark m0, m1; /* its start, and its end (m1.now_us 0: still running) */
    long file, batch;         /* of its first record; file < 0: none yet */
    long stalls;
    long long stall_max_us, stall_us;
    long reads, chunks, burst_chunks;
};

/* What is the same for every round of a run. */
struct watch_client {
    long cpus;             /* the host's online processors */
    long threads;          /* the client's sending OS threads */
    bool busy_poll;        /* they never sleep */
    const char *stalls_of; /* what a stall is measured on (static text) */
};

struct watch {
    struct watch_round *rounds;
    size_t n;
    size_t cur; /* the current round; n: none */
    struct watch_client client;
};

__attribute__((warn_unused_result)) int watch_init(struct watch *w, size_t n_rounds,
                                                   const struct watch_client *c);
void watch_free(struct watch *w);

/* Round round handed out an item at m: when it is not the current round, the
 * current one ends there and it starts. */
void watch_item(struct watch *w, size_t round, const struct watch_mark *m);
/* The run ends at m: the current round ends. */
void watch_end(struct watch *w, const struct watch_mark *m);
/* A record of file and batch was written: the current round's first names them. */
void watch_record(struct watch *w, size_t file, long batch);
/* A piece of the client's work took us microseconds (counted when above RFMT_STALL_US). */
void watch_stall(struct watch *w, long long us);
/* Reads that brought content: reads of them, chunks in all, and the chunks that
 * came in a read after another of the same read. */
void watch_reads(struct watch *w, long reads, long chunks, long burst_chunks);

/* Counts what one read brought: n content chunks (0: none), into reads,
 * chunks and burst_chunks. */
void watch_count_read(long n, long *reads, long *chunks, long *burst_chunks);

/* The client_rounds of file: an array of rfmt_round objects of the rounds that
 * recorded into it, in round order (malloc'ed); NULL when out of memory. */
cJSON *watch_json(const struct watch *w, size_t file);

#endif
