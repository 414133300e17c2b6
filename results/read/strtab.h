/* strtab: interned strings, each stored once and named by a small id.
 *
 * Record fields with few distinct values (phase, quiz kind, question id,
 * error code) are kept as ids so a million records hold no strings. */
#ifndef SM_STRTAB_H
#define SM_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab {
    char **strs;     /* strs[id - 1], owned, NUL-terminated */
    size_t n;        /* strings held; ids run from 1 to n */
    uint32_t *slots; /* open addressing: id, or 0 for an empty slot */
    size_t nslots;   /* a power of two, kept above twice n */
};

void strtab_init(struct strtab *t);
void strtab_free(struct strtab *t);
/* The id of the n bytes at s (added when new; ids start at 1). */
__attribute__((warn_unused_result)) int strtab_intern(struct strtab *t, const char *s, size_t n,
                                                      uint32_t *id_out);
/* The string of id, or NULL for id 0. */
const char *strtab_get(const struct strtab *t, uint32_t id);

#endif
