/* hostcpu: the host's CPU time and the part of it its hypervisor gave to
 * other guests (steal, the eighth number of /proc/stat's "cpu" line), so that
 * a round can say how much of the host's CPU was taken from under the client.
 * A virtual machine whose CPUs are stolen holds every process off its CPU,
 * the client's sends and reads too, while its own load average and CPU stay
 * low (an oversubscribed host, a burstable instance out of credits). */
#ifndef SM_HOSTCPU_H
#define SM_HOSTCPU_H

#include <stdbool.h>

/* Clock ticks since boot, all processors together; total < 0: not known. */
struct hostcpu {
    long long total; /* user nice system idle iowait irq softirq steal */
    long long steal;
};

/* Reads the "cpu " line that text starts with. Returns false (out->total -1)
 * for anything else. */
bool hostcpu_parse(const char *text, struct hostcpu *out);

/* Reads path's first line (NULL: /proc/stat). Returns false (out->total -1)
 * when it cannot be read or is not such a line. */
bool hostcpu_read(const char *path, struct hostcpu *out);

/* The share of the host's CPU time from a to b that was stolen, 0 to 1; < 0
 * when either is not known or no tick passed. */
double hostcpu_steal_share(const struct hostcpu *a, const struct hostcpu *b);

#endif
