#include "suite_argv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void suite_argv_init(struct suite_argv *a) {
    memset(a, 0, sizeof *a);
}

void suite_argv_free(struct suite_argv *a) {
    for (size_t i = 0; i < a->n; i++) free(a->v[i]);
    free(a->v);
    suite_argv_init(a);
}

/* Appends s, taking it (freed on failure). */
static int suite_argv_push(struct suite_argv *a, char *s) {
    if (!s) return SUITE_ARGV_ERR_NOMEM;
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        char **v = realloc(a->v, cap * sizeof *v);
        if (!v) {
            free(s);
            return SUITE_ARGV_ERR_NOMEM;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
    return SUITE_ARGV_OK;
}

int suite_argv_add(struct suite_argv *a, const char *s) {
    return suite_argv_push(a, strdup(s));
}

int suite_argv_addf(struct suite_argv *a, const char *fmt, ...) {
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return suite_argv_push(a, n < 0 ? NULL : s);
}

int suite_argv_addv(struct suite_argv *a, char *const *words, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (suite_argv_add(a, words[i]) < 0) return SUITE_ARGV_ERR_NOMEM;
    return SUITE_ARGV_OK;
}

int suite_argv_quote(struct buf *out, const char *s) {
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_@%+=:,./-";
    if (*s && strspn(s, safe) == strlen(s)) return buf_adds(out, s);
    int rc = buf_addc(out, '\'');
    for (const char *p = s; rc == BUF_OK && *p; p++)
        rc = *p == '\'' ? buf_adds(out, "'\\''") : buf_addc(out, *p);
    return rc == BUF_OK ? buf_addc(out, '\'') : rc;
}

int suite_argv_quote_all(struct buf *out, const struct suite_argv *a) {
    int rc = BUF_OK;
    for (size_t i = 0; rc == BUF_OK && i < a->n; i++) {
        if (i) rc = buf_addc(out, ' ');
        if (rc == BUF_OK) rc = suite_argv_quote(out, a->v[i]);
    }
    return rc;
}
