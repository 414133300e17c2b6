#include "strtab.h"

#include <stdlib.h>
#include <string.h>

void strtab_init(struct strtab *t) {
    t->strs = NULL;
    t->n = 0;
    t->slots = NULL;
    t->nslots = 0;
}

void strtab_free(struct strtab *t) {
    for (size_t i = 0; i < t->n; i++) free(t->strs[i]);
    free(t->strs);
    free(t->slots);
    strtab_init(t);
}

static uint64_t strtab_hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The slot holding s, or the empty slot where it belongs. */
static size_t strtab_find(const struct strtab *t, const char *s, size_t n) {
    size_t mask = t->nslots - 1, i = (size_t)strtab_hash(s, n) & mask;
    while (t->slots[i]) {
        const char *x = t->strs[t->slots[i] - 1];
        if (strlen(x) == n && memcmp(x, s, n) == 0) break;
        i = (i + 1) & mask;
    }
    return i;
}

static int strtab_grow(struct strtab *t) {
    size_t nslots = t->nslots ? t->nslots * 2 : 64;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    char **strs = realloc(t->strs, nslots / 2 * sizeof *strs);
    if (strs) t->strs = strs;
    if (!slots || !strs) {
        free(slots);
        return -1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    for (size_t id = 1; id <= t->n; id++) {
        const char *s = t->strs[id - 1];
        t->slots[strtab_find(t, s, strlen(s))] = (uint32_t)id;
    }
    return 0;
}

int strtab_intern(struct strtab *t, const char *s, size_t n, uint32_t *id_out) {
    if (memchr(s, '\0', n)) return -1;
    if ((t->n + 1) * 2 > t->nslots && strtab_grow(t) < 0) return -1;
    size_t i = strtab_find(t, s, n);
    if (!t->slots[i]) {
        char *copy = malloc(n + 1);
        if (!copy) return -1;
        memcpy(copy, s, n);
        copy[n] = '\0';
        t->strs[t->n++] = copy;
        t->slots[i] = (uint32_t)t->n;
    }
    *id_out = t->slots[i];
    return 0;
}

const char *strtab_get(const struct strtab *t, uint32_t id) {
    return id && id <= t->n ? t->strs[id - 1] : NULL;
}
