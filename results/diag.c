#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages repeat strings from the input: control characters become spaces,
 * so an error or a warning stays one line. */
static void diag_one_line(char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = ' ';
}

void diag_init(struct diag *d) {
    d->error[0] = '\0';
    d->warnings = NULL;
    d->nwarnings = 0;
}

void diag_free(struct diag *d) {
    for (size_t i = 0; i < d->nwarnings; i++) free(d->warnings[i]);
    free(d->warnings);
    diag_init(d);
}

int diag_error(struct diag *d, const char *fmt, ...) {
    if (d->error[0]) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->error, sizeof d->error, fmt, ap);
    va_end(ap);
    diag_one_line(d->error);
    return -1;
}

void diag_warn(struct diag *d, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_one_line(msg);
    for (size_t i = 0; i < d->nwarnings; i++)
        if (strcmp(d->warnings[i], msg) == 0) return;
    char **w = realloc(d->warnings, (d->nwarnings + 1) * sizeof *w);
    char *copy = strdup(msg);
    if (w) d->warnings = w;
    if (!w || !copy) {
        free(copy);
        diag_error(d, "out of memory");
        return;
    }
    d->warnings[d->nwarnings++] = copy;
}

void diag_merge(struct diag *d, const struct diag *from) {
    if (from->error[0]) diag_error(d, "%s", from->error);
    for (size_t i = 0; i < from->nwarnings; i++) diag_warn(d, "%s", from->warnings[i]);
}
