#include "climit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void climit_init(struct climit_run *c) {
    *c =
        (struct climit_run){.cpu_share = -1, .cpu_round = -1, .steal_share = -1, .steal_round = -1};
}

void climit_add_round(struct climit_run *c, const struct rfmt_round *r) {
    c->rounds++;
    static const char *const known[] = {"event loop",
                                        "lua hooks"}; /* the file's text is not kept */
    for (size_t i = 0; i < 2 && !c->stalls_of; i++)
        if (r->stalls_of && strcmp(r->stalls_of, known[i]) == 0) c->stalls_of = known[i];
    if (r->busy_poll) c->busy_poll = true;
    if (r->stall_max_us > c->stall_max_us) c->stall_max_us = r->stall_max_us;
    if (r->wall_s > 0) {
        double stalled = (double)r->stall_us / 1e6 / r->wall_s;
        if (stalled > c->stall_share) c->stall_share = stalled;
    }
    if (r->steal_share > c->steal_share) c->steal_share = r->steal_share, c->steal_round = r->round;
    if (r->busy_poll || r->wall_s < CLIMIT_CPU_MIN_WALL_S) return;
    long room = r->threads < r->cpus ? r->threads : r->cpus;
    double share = r->cpu_s / r->wall_s / (double)(room > 0 ? room : 1);
    if (share > c->cpu_share) c->cpu_share = share, c->cpu_round = r->round;
}

void climit_merge(struct climit_run *into, const struct climit_run *from) {
    into->rounds += from->rounds;
    into->busy_poll |= from->busy_poll;
    if (!into->stalls_of) into->stalls_of = from->stalls_of;
    if (from->stall_max_us > into->stall_max_us) into->stall_max_us = from->stall_max_us;
    if (from->stall_share > into->stall_share) into->stall_share = from->stall_share;
    if (from->steal_share > into->steal_share)
        into->steal_share = from->steal_share, into->steal_round = from->steal_round;
    if (from->cpu_share > into->cpu_share)
        into->cpu_share = from->cpu_share, into->cpu_round = from->cpu_round;
}

size_t climit_bursts(const uint32_t *gaps, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += gaps[i] < CLIMIT_READ_RES_US;
    return k;
}

/* Appends one reason to why. */
__attribute__((format(printf, 4, 5))) static void climit_add(char *why, size_t cap, size_t *k,
                                                             const char *fmt, ...) {
    if (*k >= cap) return;
    int n = snprintf(why + *k, cap - *k, "%s", *k ? "; " : "");
    if (n > 0) *k += (size_t)n;
    if (*k >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    n = vsnprintf(why + *k, cap - *k, fmt, ap);
    va_end(ap);
    if (n > 0) *k += (size_t)n;
    if (*k >= cap) *k = cap - 1;
}

bool climit_judge(const struct climit_run *c, double late_share, char *why, size_t cap) {
    size_t k = 0;
    why[0] = '\0';
    if (isfinite(late_share) && late_share > CLIMIT_LATE_SHARE)
        climit_add(why, cap, &k, "%.0f%% of sends >%.0f ms late", 100 * late_share,
                   CLIMIT_LATE_US / 1000.0);
    if (c && c->cpu_share > CLIMIT_CPU_SHARE)
        climit_add(why, cap, &k, "client CPU %.0f%% (round %ld)", 100 * c->cpu_share, c->cpu_round);
    if (c && c->stall_share > CLIMIT_STALL_SHARE)
        climit_add(why, cap, &k, "%s stalls %.0f%% of a round (longest %.1f ms)",
                   c->stalls_of ? c->stalls_of : "client", 100 * c->stall_share,
                   (double)c->stall_max_us / 1e3);
    if (c && c->steal_share > CLIMIT_STEAL_SHARE)
        climit_add(why, cap, &k, "host CPU %.0f%% stolen by its hypervisor (round %ld)",
                   100 * c->steal_share, c->steal_round);
    return k > 0;
}

bool climit_itl(uint64_t gaps, uint64_t burst, char *why, size_t cap) {
    why[0] = '\0';
    if (!gaps || (double)burst <= CLIMIT_BURST_SHARE * (double)gaps) return true;
    snprintf(why, cap, "ITL not resolved: %.0f%% of chunks read in bursts",
             100.0 * (double)burst / (double)gaps);
    return false;
}
