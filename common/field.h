/* field: the type and range rules of the JSON fields sm-compare reads.
 *
 * Every field of a file that a figure depends on is checked before it is used:
 * a wrong type ("time_scale": "fast") or a value out of range (time_scale
 * 1e-300) is one line naming the file, the field and the value, never a
 * silent default. A field that is absent is not checked (older files lack
 * some); the reader decides what its absence means. */
#ifndef SM_FIELD_H
#define SM_FIELD_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"

enum field_err { FIELD_OK = 0, FIELD_ERR_NOMEM = -1, FIELD_ERR_INPUT = -3 };

/* The types a field may have (or-ed). */
enum field_type {
    FIELD_STR = 1,
    FIELD_NUM = 2, /* a number within [lo, hi] */
    FIELD_INT = 4, /* a whole number within [lo, hi] */
    FIELD_BOOL = 8,
    FIELD_OBJ = 16,
    FIELD_ARR = 32,
    FIELD_NULL = 64,
};

struct field_rule {
    const char *key;
    unsigned types;
    double lo, hi; /* FIELD_NUM and FIELD_INT */
};

/* Checks the members of obj (an object, or NULL: nothing to check) against
 * rules. prefix names obj in messages ("" or "settings."). Returns 0, or
 * FIELD_ERR_INPUT with "PATH: PREFIXKEY: VALUE is not ..." in err. */
__attribute__((warn_unused_result)) int field_check(const cJSON *obj,
                                                    const struct field_rule *rules, size_t n,
                                                    const char *path, const char *prefix,
                                                    struct buf *err);
/* Like field_check for one value v (not NULL) named name. */
__attribute__((warn_unused_result)) int field_check_value(const cJSON *v,
                                                          const struct field_rule *rule,
                                                          const char *path, const char *name,
                                                          struct buf *err);

#endif
