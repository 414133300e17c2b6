#include "rfield.h"

#define RFIELD_ROW(name, type, unit, meaning) {name, type, unit, meaning},

static const struct rfield_row rfield_table[] = {RFIELD_TABLE(RFIELD_ROW)};

const struct rfield_row *rfield_all(size_t *n) {
    *n = sizeof rfield_table / sizeof rfield_table[0];
    return rfield_table;
}
