/* rfield_dump: prints common/rfield.h's table of record fields, one field a
 * line: name, type and unit ("-": none), tab-separated, in the table's order
 * (test_rfield_doc.py compares it with docs/result-format.md). */
#include <stdio.h>

#include "rfield.h"

int main(void) {
    size_t n;
    const struct rfield_row *f = rfield_all(&n);
    for (size_t i = 0; i < n; i++)
        printf("%s\t%s\t%s\n", f[i].name, f[i].type, f[i].unit ? f[i].unit : "-");
    return fflush(stdout) == 0 ? 0 : 1;
}
