#include "warnings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void warnings_init(struct warnings *w) {
    w->items = NULL;
    w->n = 0;
    w->nomem = false;
}

void warnings_free(struct warnings *w) {
    for (size_t i = 0; i < w->n; i++) free(w->items[i]);
    free(w->items);
    warnings_init(w);
}

static void warnings_keep(struct warnings *w, const char *msg) {
    for (size_t i = 0; i < w->n; i++)
        if (strcmp(w->items[i], msg) == 0) return;
    char **items = realloc(w->items, (w->n + 1) * sizeof *items);
    char *copy = strdup(msg);
    if (items) w->items = items;
    if (!items || !copy) {
        free(copy);
        w->nomem = true;
        return;
    }
    w->items[w->n++] = copy;
}

void warnings_add(struct warnings *w, const char *fmt, ...) {
    char *msg = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0) {
        w->nomem = true;
        return;
    }
    warnings_keep(w, msg);
    free(msg);
}

void warnings_merge(struct warnings *w, const struct warnings *from) {
    for (size_t i = 0; i < from->n; i++) warnings_keep(w, from->items[i]);
    w->nomem |= from->nomem;
}
