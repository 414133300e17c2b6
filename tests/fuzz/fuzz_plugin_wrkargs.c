/* Fuzzes the reader of wrk's command line (plugin/wrkargs.h). Input: the
 * bytes of /proc/self/cmdline (NUL-terminated arguments).
 *
 * The split gives back every argument in order, pointing into the input, or
 * refuses an input whose last argument lacks its NUL. The parse agrees with a
 * model of wrk 4.1.0 built on glibc's own getopt_long, with wrk's option
 * string, long options, units and checks: the same lines are refused (with a
 * one-line message), and an accepted one gives the same threads, connections,
 * duration, timeout, script, URL and script arguments. */
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plugcheck.h"
#include "wrkargs.h"

/* A unit and what it multiplies by (case-insensitive, as wrk reads them). */
struct fuzz_unit {
    const char *name;
    uint64_t scale;
};

static const struct fuzz_unit fuzz_metric[] = {
    {"k", 1000ULL},          {"m", 1000000ULL},          {"g", 1000000000ULL},
    {"t", 1000000000000ULL}, {"p", 1000000000000000ULL}, {NULL, 0}};
static const struct fuzz_unit fuzz_time[] = {{"s", 1}, {"m", 60}, {"h", 3600}, {NULL, 0}};

/* wrk's number: an unsigned number, then optionally (after white space) one or
 * two characters naming a unit. Returns 0, or -1 when wrk refuses it. */
static int fuzz_number(const char *s, const struct fuzz_unit *units, unsigned long long *out) {
    uint64_t n;
    char unit[3] = "";
    int got = sscanf(s, "%" SCNu64 "%2s", &n, unit); /* NOLINT(cert-err34-c): as wrk reads them */
    if (got < 1) return -1;
    for (const struct fuzz_unit *u = units; got == 2 && u->name; u++) {
        if (strcasecmp(unit, u->name) == 0) {
            *out = n * u->scale;
            return 0;
        }
    }
    *out = n;
    return got == 2 ? -1 : 0;
}

/* An option with a number: set, and its value read from optarg. */
static int fuzz_option(const struct fuzz_unit *units, bool *set, unsigned long long *out) {
    *set = true;
    return fuzz_number(optarg, units, out);
}

/* What wrk 4.1.0 reads from argv: 0, or -1 when it prints its usage. */
static int fuzz_wrk(int argc, char **argv, struct wrkargs *w) {
    static const struct option longopts[] = {
        {"connections", required_argument, NULL, 'c'}, {"duration", required_argument, NULL, 'd'},
        {"threads", required_argument, NULL, 't'},     {"script", required_argument, NULL, 's'},
        {"header", required_argument, NULL, 'H'},      {"latency", no_argument, NULL, 'L'},
        {"timeout", required_argument, NULL, 'T'},     {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'v'},           {NULL, 0, NULL, 0}};
    int c, rc = 0;
    *w = (struct wrkargs){.threads = 2, .connections = 10, .duration_s = 10, .timeout_ms = 2000};
    if (argc < 1) return -1;
    optind = 0;
    opterr = 0;
    while (!rc && (c = getopt_long(argc, argv, "t:c:d:s:H:T:Lrv?", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            rc = fuzz_option(fuzz_metric, &w->threads_set, &w->threads);
            break;
        case 'c':
            rc = fuzz_option(fuzz_metric, &w->connections_set, &w->connections);
            break;
        case 'd':
            rc = fuzz_option(fuzz_time, &w->duration_set, &w->duration_s);
            break;
        case 'T':
            rc = fuzz_option(fuzz_time, &w->timeout_set, &w->timeout_ms);
            w->timeout_ms *= 1000;
            break;
        case 's':
            w->script = optarg;
            break;
        case 'H':
        case 'L':
        case 'v':
            break;
        default:
            rc = -1;
        }
    }
    if (rc || optind == argc || !w->threads || !w->duration_s) return -1;
    w->url = argv[optind];
    w->args = (const char **)argv + optind + 1;
    w->n_args = (size_t)(argc - optind - 1);
    return 0;
}

/* The split: argc arguments, each the next NUL-terminated string of data. */
static void fuzz_check_split(const char *data, size_t size, char **argv, int argc) {
    const char *p = data;
    for (int i = 0; i < argc; i++) {
        if (argv[i] != p) abort();
        p += strlen(p) + 1;
    }
    if (argv[argc] || p != data + size) abort();
}

static void fuzz_check_parse(int rc, const struct wrkargs *a, const struct buf *err, int want,
                             const struct wrkargs *w) {
    if (rc == WRKARGS_ERR_USAGE && want < 0) {
        plugcheck_one_line(buf_str(err), err->len);
        if (!err->len) abort();
        return;
    }
    if (rc != WRKARGS_OK || want < 0 || a->threads != w->threads ||
        a->connections != w->connections || a->duration_s != w->duration_s ||
        a->timeout_ms != w->timeout_ms || a->threads_set != w->threads_set ||
        a->connections_set != w->connections_set || a->duration_set != w->duration_set ||
        a->timeout_set != w->timeout_set || !plugcheck_same(a->script, w->script) ||
        !plugcheck_same(a->url, w->url) || a->n_args != w->n_args)
        abort();
    for (size_t i = 0; i < a->n_args; i++)
        if (!plugcheck_same(a->args[i], w->args[i])) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *copy = malloc(size ? size : 1), **argv = NULL, **permuted;
    int argc = 0;
    struct wrkargs a, w;
    struct buf err;
    if (!copy) abort();
    memcpy(copy, data, size);
    int rc = wrkargs_split(copy, size, &argv, &argc);
    if (rc != WRKARGS_OK) {
        if (rc != WRKARGS_ERR_USAGE || !size || copy[size - 1] == '\0') abort();
        free(copy);
        return 0;
    }
    fuzz_check_split(copy, size, argv, argc);
    if (!(permuted = malloc(((size_t)argc + 1) * sizeof *permuted))) abort();
    memcpy(permuted, argv, ((size_t)argc + 1) * sizeof *permuted);
    buf_init(&err, BUF_NO_CAP);
    rc = wrkargs_parse(argc, argv, &a, &err);
    fuzz_check_parse(rc, &a, &err, fuzz_wrk(argc, permuted, &w), &w);
    wrkargs_free(&a);
    buf_free(&err);
    free(permuted);
    free(argv);
    free(copy);
    return 0;
}
