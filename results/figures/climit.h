/* climit: whether the client, not the server, made a figure: the thresholds
 * (docs/compare.md, Client-limited figures) and the judgement over what the
 * client recorded of itself (client_rounds: rfmt.h) and of its sends.
 *
 * A figure is client-limited when, in what it was measured from:
 * - more than CLIMIT_LATE_SHARE of the open-loop sends left more than
 *   CLIMIT_LATE_US after their intended start;
 * - a round of at least CLIMIT_CPU_MIN_WALL_S had the client's process use
 *   more than CLIMIT_CPU_SHARE of the CPU it could (its sending threads, at
 *   most the host's processors), unless it busy-polls (its CPU says nothing);
 * - a round's stalls (RFMT_STALL_US) added up to more than CLIMIT_STALL_SHARE
 *   of its wall time;
 * - the host's hypervisor took more than CLIMIT_STEAL_SHARE of the host's CPU
 *   in a round (steal: every process of the host, the client's too, was held
 *   off its CPU that long, whatever the client's own CPU and stalls say).
 * ITL per token is resolved only when at most CLIMIT_BURST_SHARE of the gaps
 * between chunks are below CLIMIT_READ_RES_US: a chunk read in one read with
 * the chunk before it (sm-stream stamps a read's chunks with one time) has a
 * gap of 0 that says nothing about the server.
 * Pure: no I/O. */
#ifndef SM_CLIMIT_H
#define SM_CLIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rfmt.h"

#define CLIMIT_LATE_US        1000 /* a send later than this after its intended start is late */
#define CLIMIT_LATE_SHARE     0.05 /* of open-loop sends more than CLIMIT_LATE_US late */
#define CLIMIT_CPU_SHARE      0.90 /* of the CPU the client could use in a round */
#define CLIMIT_CPU_MIN_WALL_S 1.0  /* a shorter round's CPU share is not judged */
#define CLIMIT_STALL_SHARE    0.05 /* of a round's wall time stalled */
#define CLIMIT_STEAL_SHARE    0.05 /* of the host's CPU time stolen in a round */
#define CLIMIT_READ_RES_US    1    /* a chunk gap below this: read with the chunk before */
#define CLIMIT_BURST_SHARE    0.10 /* of the gaps below CLIMIT_READ_RES_US: ITL not resolved */

#define CLIMIT_WHY 240 /* room for a reason */

/* What a side's client recorded of itself, over its rounds. */
struct climit_run {
    long rounds;            /* client_rounds read */
    double cpu_share;       /* the highest judged round's CPU share (0 to 1+); < 0: none judged */
    long cpu_round;         /* its round */
    bool busy_poll;         /* some round busy-polled (its CPU not judged) */
    double stall_share;     /* the highest round's stalled share of its wall time */
    long long stall_max_us; /* the longest stall of any round */
    const char *stalls_of;  /* what the stalls were measured on (static text), or NULL */
    double steal_share; /* the highest round's stolen share of the host's CPU; < 0: none known */
    long steal_round;   /* its round */
};

void climit_init(struct climit_run *c);
/* Adds one round of client_rounds. */
void climit_add_round(struct climit_run *c, const struct rfmt_round *r);
/* Adds from's rounds to into's. */
void climit_merge(struct climit_run *into, const struct climit_run *from);

/* The gaps (microseconds) of one record's chunks below CLIMIT_READ_RES_US. */
size_t climit_bursts(const uint32_t *gaps, size_t n);

/* Whether a figure measured by client c with late_share of its sends late
 * (NAN: no open-loop sends) is client-limited; why: "38% of sends >1 ms late;
 * client CPU 97% (round 0)" (every reason, "; " between them), "" when not. */
bool climit_judge(const struct climit_run *c, double late_share, char *why, size_t cap);

/* Whether ITL is resolved over gaps of which burst were below the read
 * resolution; why: "ITL not resolved: 62% of chunks read in bursts", "" when it is. */
bool climit_itl(uint64_t gaps, uint64_t burst, char *why, size_t cap);

#endif
