#include "hostcpu.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOSTCPU_FIELDS 8 /* up to steal; guest time is counted in user already */

bool hostcpu_parse(const char *text, struct hostcpu *out) {
    long long v[HOSTCPU_FIELDS];
    out->total = out->steal = -1;
    if (strncmp(text, "cpu ", 4) != 0) return false;
    const char *p = text + 4;
    for (int i = 0; i < HOSTCPU_FIELDS; i++) {
        char *end;
        errno = 0;
        v[i] = strtoll(p, &end, 10);
        if (end == p || errno || v[i] < 0) return false;
        p = end;
    }
    long long total = 0;
    for (int i = 0; i < HOSTCPU_FIELDS; i++) {
        if (v[i] > LLONG_MAX - total) return false;
        total += v[i];
    }
    out->total = total;
    out->steal = v[HOSTCPU_FIELDS - 1];
    return true;
}

bool hostcpu_read(const char *path, struct hostcpu *out) {
    char line[512];
    FILE *f = fopen(path ? path : "/proc/stat", "r");
    bool ok = f && fgets(line, sizeof line, f) && hostcpu_parse(line, out);
    if (f) fclose(f);
    if (!ok) out->total = out->steal = -1;
    return ok;
}

double hostcpu_steal_share(const struct hostcpu *a, const struct hostcpu *b) {
    if (a->total < 0 || b->total <= a->total || b->steal < a->steal) return -1;
    double share = (double)(b->steal - a->steal) / (double)(b->total - a->total);
    return share > 1 ? 1 : share;
}
