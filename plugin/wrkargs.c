#include "wrkargs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "readall.h"

enum wrkargs_kind {
    WRKARGS_WA_THREADS,
    WRKARGS_WA_CONNECTIONS,
    WRKARGS_WA_DURATION,
    WRKARGS_WA_SCRIPT,
    WRKARGS_WA_HEADER,
    WRKARGS_WA_TIMEOUT,
    WRKARGS_WA_LATENCY,
    WRKARGS_WA_VERSION,
    WRKARGS_WA_HELP
};

static const struct {
    const char *name;
    char letter; /* 0: long only */
    bool has_arg;
    enum wrkargs_kind kind;
} wrkargs_options[] = {
    {"connections", 'c', true, WRKARGS_WA_CONNECTIONS},
    {"duration", 'd', true, WRKARGS_WA_DURATION},
    {"threads", 't', true, WRKARGS_WA_THREADS},
    {"script", 's', true, WRKARGS_WA_SCRIPT},
    {"header", 'H', true, WRKARGS_WA_HEADER},
    {"latency", 'L', false, WRKARGS_WA_LATENCY},
    {"timeout", 'T', true, WRKARGS_WA_TIMEOUT},
    {"help", 0, false, WRKARGS_WA_HELP},
    {"version", 'v', false, WRKARGS_WA_VERSION},
};
#define WRKARGS_WA_N_OPTIONS (sizeof wrkargs_options / sizeof wrkargs_options[0])

/* wrk's units: a number and at most two letters naming a unit, case-insensitive. */
static int wrkargs_units(const char *s, const char *base, const char *const *units,
                         unsigned long long scale_step, unsigned long long *out) {
    uint64_t n, scale = 1;
    char unit[3] = {0, 0, 0};
    int c = sscanf(s, "%" SCNu64 "%2s", &n, unit); // NOLINT(cert-err34-c): read as wrk reads it
    if (c < 1) return -1;
    if (c == 2 && strncasecmp(unit, base, 3) != 0) {
        size_t i;
        for (i = 0; units[i]; i++) {
            scale *= scale_step;
            if (strncasecmp(unit, units[i], 3) == 0) break;
        }
        if (!units[i]) return -1;
    }
    *out = n * scale;
    return 0;
}

static int wrkargs_metric(const char *s, unsigned long long *out) {
    static const char *const units[] = {"k", "M", "G", "T", "P", NULL};
    return wrkargs_units(s, "", units, 1000, out);
}

static int wrkargs_time(const char *s, unsigned long long *out) {
    static const char *const units[] = {"m", "h", NULL};
    return wrkargs_units(s, "s", units, 60, out);
}

/* One line naming what went wrong and the argument at fault (its control characters as '?'). */
static int wrkargs_usage(struct buf *err, const char *what, const char *arg) {
    buf_reset(err);
    (void)!buf_addf(err, "%s%s%s", what, arg && *arg ? " " : "", arg ? arg : "");
    buf_one_line(err);
    return WRKARGS_ERR_USAGE;
}

static int wrkargs_apply(struct wrkargs *a, enum wrkargs_kind kind, const char *arg,
                         struct buf *err) {
    int rc = 0;
    switch (kind) {
    case WRKARGS_WA_THREADS:
        a->threads_set = true;
        rc = wrkargs_metric(arg, &a->threads);
        break;
    case WRKARGS_WA_CONNECTIONS:
        a->connections_set = true;
        rc = wrkargs_metric(arg, &a->connections);
        break;
    case WRKARGS_WA_DURATION:
        a->duration_set = true;
        rc = wrkargs_time(arg, &a->duration_s);
        break;
    case WRKARGS_WA_TIMEOUT:
        a->timeout_set = true;
        rc = wrkargs_time(arg, &a->timeout_ms);
        a->timeout_ms *= 1000;
        break;
    case WRKARGS_WA_SCRIPT:
        a->script = arg;
        break;
    case WRKARGS_WA_HEADER:
    case WRKARGS_WA_LATENCY:
    case WRKARGS_WA_VERSION:
        break;
    case WRKARGS_WA_HELP:
        return wrkargs_usage(err, "wrk prints its usage for", "--help");
    }
    return rc ? wrkargs_usage(err, "wrk cannot read the value", arg) : WRKARGS_OK;
}

/* "--name[=value]": exact names first, else one unambiguous prefix, as getopt_long does. */
static int wrkargs_long(struct wrkargs *a, int argc, char *const *argv, int *i, struct buf *err) {
    const char *word = argv[*i] + 2, *eq = strchr(word, '=');
    size_t n = eq ? (size_t)(eq - word) : strlen(word);
    int found = -1, matches = 0;
    for (size_t k = 0; k < WRKARGS_WA_N_OPTIONS; k++) {
        if (strncmp(wrkargs_options[k].name, word, n) != 0) continue;
        if (strlen(wrkargs_options[k].name) == n) {
            found = (int)k, matches = 1;
            break;
        }
        found = (int)k, matches++;
    }
    if (matches != 1) return wrkargs_usage(err, "wrk does not know the option", argv[*i]);
    const char *arg = NULL;
    if (wrkargs_options[found].has_arg) {
        if (eq)
            arg = eq + 1;
        else if (*i + 1 < argc)
            arg = argv[++*i];
        else
            return wrkargs_usage(err, "wrk wants a value after", argv[*i]);
    } else if (eq) {
        return wrkargs_usage(err, "wrk takes no value in", argv[*i]);
    }
    return wrkargs_apply(a, wrkargs_options[found].kind, arg, err);
}

/* "-xyz", "-t2", "-t 2". */
static int wrkargs_short(struct wrkargs *a, int argc, char *const *argv, int *i, struct buf *err) {
    for (const char *p = argv[*i] + 1; *p; p++) {
        size_t k = 0;
        while (k < WRKARGS_WA_N_OPTIONS && wrkargs_options[k].letter != *p) k++;
        if (k == WRKARGS_WA_N_OPTIONS)
            return wrkargs_usage(err, "wrk does not know the option", argv[*i]);
        if (!wrkargs_options[k].has_arg) {
            int rc = wrkargs_apply(a, wrkargs_options[k].kind, NULL, err);
            if (rc) return rc;
            continue;
        }
        const char *arg = p[1] ? p + 1 : *i + 1 < argc ? argv[++*i] : NULL;
        if (!arg) return wrkargs_usage(err, "wrk wants a value after", argv[*i]);
        return wrkargs_apply(a, wrkargs_options[k].kind, arg, err);
    }
    return WRKARGS_OK;
}

int wrkargs_parse(int argc, char *const *argv, struct wrkargs *out, struct buf *err) {
    *out = (struct wrkargs){.threads = 2, .connections = 10, .duration_s = 10, .timeout_ms = 2000};
    const char **words = calloc((size_t)(argc > 0 ? argc : 1), sizeof *words);
    size_t n_words = 0;
    int rc = WRKARGS_OK;
    if (!words) return WRKARGS_ERR_NOMEM;
    out->args = words;
    for (int i = 1; i < argc && rc == WRKARGS_OK; i++) {
        const char *w = argv[i];
        if (strcmp(w, "--") == 0) {
            while (++i < argc) words[n_words++] = argv[i];
        } else if (w[0] == '-' && w[1] == '-') {
            rc = wrkargs_long(out, argc, argv, &i, err);
        } else if (w[0] == '-' && w[1]) {
            rc = wrkargs_short(out, argc, argv, &i, err);
        } else {
            words[n_words++] = w;
        }
    }
    if (rc) return rc;
    if (n_words == 0) return wrkargs_usage(err, "wrk wants a URL", "");
    if (!out->threads || !out->duration_s) return wrkargs_usage(err, "wrk refuses", "-t 0 or -d 0");
    out->url = words[0];
    memmove(words, words + 1, (n_words - 1) * sizeof *words);
    out->n_args = n_words - 1;
    return WRKARGS_OK;
}

void wrkargs_free(struct wrkargs *a) {
    free(a->args);
    free(a->argv);
    free(a->data);
    a->args = NULL;
    a->argv = NULL;
    a->data = NULL;
    a->n_args = 0;
}

int wrkargs_read(const char *path, struct wrkargs *out, struct buf *err) {
    struct buf data;
    buf_init(&data, 1 << 20);
    *out = (struct wrkargs){0};
    if (readall_path(path, &data) != 0) {
        buf_free(&data);
        return buf_fail(err, WRKARGS_ERR_USAGE, "cannot read the command line (%s)", path);
    }
    size_t len = data.len;
    char **argv;
    int argc;
    out->data = data.data ? buf_take(&data) : strdup("");
    if (!out->data) return WRKARGS_ERR_NOMEM;
    int rc = wrkargs_split(out->data, len, &argv, &argc);
    if (rc) return rc;
    char *keep = out->data;
    rc = wrkargs_parse(argc, argv, out, err);
    out->data = keep;
    out->argv = argv;
    return rc;
}

int wrkargs_split(char *data, size_t len, char ***argv_out, int *argc_out) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) n += data[i] == '\0';
    if (len && data[len - 1] != '\0') return WRKARGS_ERR_USAGE;
    char **argv = calloc(n + 1, sizeof *argv);
    if (!argv) return WRKARGS_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < len; i += strlen(data + i) + 1) argv[k++] = data + i;
    *argv_out = argv;
    *argc_out = (int)n;
    return WRKARGS_OK;
}
