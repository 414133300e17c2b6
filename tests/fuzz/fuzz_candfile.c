/* Fuzzes sm-compare --candidates' reader of candidates.json (candfile): the
 * input is one such file. A file read keeps 1 to CANDFILE_MAX candidates, each
 * label and folder a label (never a path), distinct labels, a price above 0 or
 * none; a refusal is one line naming the file. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "candfile.h"
#include "smname.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct candfile f;
    struct buf err;
    buf_init(&err, 4096);
    int rc = candfile_parse((const char *)data, size, "c.json", &f, &err);
    if (rc == 0) {
        if (f.n < 1 || f.n > CANDFILE_MAX) abort();
        for (size_t i = 0; i < f.n; i++) {
            const struct candfile_cand *c = &f.c[i];
            if (!smname_label_ok(c->label, strlen(c->label)) ||
                !smname_label_ok(c->folder, strlen(c->folder)) || strchr(c->folder, '/'))
                abort();
            if (!isnan(c->usd_per_hour) && !(c->usd_per_hour > 0)) abort();
            if (c->instance_count < 1 || c->instance_count > 100) abort();
            for (size_t j = 0; j < i; j++)
                if (strcmp(f.c[j].label, c->label) == 0) abort();
        }
    } else if (rc != CANDFILE_ERR_INPUT || strncmp(buf_str(&err), "c.json: ", 8) != 0 ||
               memchr(buf_str(&err), '\n', err.len)) {
        abort();
    }
    buf_free(&err);
    return 0;
}
