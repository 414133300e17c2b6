/* Fuzzes sm-emulator's command line and the --set parameters. Input: the
 * arguments, one a line. options_parse must give the same result on the same
 * arguments whatever it parsed before; an error is one line that names an
 * argument actually given; accepted options hold valid endpoints and sets.
 * Every --set is then applied to a profile (model_set): it is refused with
 * one line, or leaves every parameter in its range. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emucheck.h"
#include "model.h"
#include "options.h"
#include "smerr.h"
#include "smname.h"

#define FUZZ_MAX_ARGS 64
#define FUZZ_ARGV0    "fuzz-argv0"

/* Splits the input into argv (copies the caller frees with fuzz_free_args). */
static int fuzz_args(const uint8_t *data, size_t size, char **argv) {
    int argc = 0;
    argv[argc++] = strdup(FUZZ_ARGV0);
    for (size_t at = 0; at < size && argc < FUZZ_MAX_ARGS;) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - data - at) : size - at;
        argv[argc++] = strndup((const char *)data + at, len);
        at += len + 1;
    }
    argv[argc] = NULL;
    for (int i = 0; i < argc; i++)
        if (!argv[i]) abort();
    return argc;
}

static void fuzz_free_args(int argc, char **argv) {
    for (int i = 0; i < argc; i++) free(argv[i]);
}

/* Parses a fixed command line: it must not matter what was parsed before. */
static void fuzz_check_fresh(void) {
    char a0[] = FUZZ_ARGV0, a1[] = "--seed", a2[] = "7";
    char *argv[] = {a0, a1, a2, NULL};
    struct options o;
    struct buf err;
    buf_init(&err, 4096);
    if (options_parse(3, argv, &o, &err) != OPTIONS_OK || o.done || o.seed != 7) abort();
    options_free(&o);
    buf_free(&err);
}

/* The error is one line and quotes an argument that was given (not the
 * program's name), shown as buf_one_line shows it ('?' for what a terminal
 * would obey or is no UTF-8; a byte of a character quoted alone is '?'). */
static void fuzz_check_error(const struct buf *err, const uint8_t *data, size_t size) {
    const char *msg = buf_str(err), *q = strchr(msg, '\'');
    emucheck_one_line(err);
    if (strncmp(msg, "unknown option or missing value: '", 34) != 0) return;
    const char *end = strrchr(msg, '\'');
    size_t n = (size_t)(end - q - 1);
    if (n == strlen(FUZZ_ARGV0) && memcmp(q + 1, FUZZ_ARGV0, n) == 0) abort();
    struct buf shown; /* the arguments as a message shows them */
    buf_init(&shown, size + 1);
    if (buf_add(&shown, (const char *)data, size)) abort();
    buf_one_line(&shown);
    /* a short option cut from a UTF-8 character is a lone byte: "-?" */
    bool lone = n >= 1 && strspn(q + 1 + (q[1] == '-'), "?") >= n - (q[1] == '-');
    if (!lone && !memmem(buf_str(&shown), shown.len, q + 1, n)) abort();
    buf_free(&shown);
}

static void fuzz_check_options(const struct options *o) {
    if (o->n_endpoints == 0 || !(o->time_scale >= 1e-3) || o->time_scale > 1e9 ||
        !(o->max_duration >= 0) || !(o->log_interval >= 0) || !(o->idle_timeout >= 1) ||
        !(o->head_timeout >= 0.1) || !(o->body_timeout >= 0.1) || o->max_connections < 1 ||
        o->max_body_buffer < 6291456 || !o->tls_cert != !o->tls_key)
        abort();
    for (size_t i = 0; i < o->n_endpoints; i++)
        if (!smname_endpoint_ok(o->endpoints[i].name, strlen(o->endpoints[i].name)) ||
            !smname_endpoint_ok(o->endpoints[i].variant, strlen(o->endpoints[i].variant)))
            abort();
    for (size_t i = 0; i < o->n_sets; i++) {
        const struct fleet_setting *s = &o->sets[i];
        if (!s->target[0] || strchr(s->target, '.') || !s->key[0] || strchr(s->key, '=')) abort();
    }
}

/* Applies the sets in order to one profile. */
static void fuzz_apply(const struct options *o) {
    struct model_profile p;
    struct buf err;
    if (model_builtin("bf16-l4", &p)) abort();
    buf_init(&err, 4096);
    for (size_t i = 0; i < o->n_sets; i++) {
        const struct fleet_setting *s = &o->sets[i];
        buf_reset(&err);
        if (model_set(&p, s->key, s->value, &err)) {
            emucheck_one_line(&err);
            continue;
        }
        if (strncmp(s->key, "answer.", 7) == 0 && s->key[7] &&
            strcmp(model_answer(&p, s->key + 7), s->value) != 0)
            abort();
        emucheck_profile(&p);
    }
    buf_free(&err);
    model_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool quiet;
    if (!quiet && !freopen("/dev/null", "w", stdout)) abort(); /* --help, --version */
    quiet = true;
    char *argv[FUZZ_MAX_ARGS + 1], *argv_again[FUZZ_MAX_ARGS + 1];
    int argc = fuzz_args(data, size, argv);
    (void)fuzz_args(data, size, argv_again);
    struct options o, again;
    struct buf err, err_again;
    buf_init(&err, 4096);
    buf_init(&err_again, 4096);
    int rc = options_parse(argc, argv, &o, &err);
    fuzz_check_fresh();
    int rc_again = options_parse(argc, argv_again, &again, &err_again);
    if (rc != rc_again || strcmp(buf_str(&err), buf_str(&err_again)) != 0) abort();
    if (rc != OPTIONS_OK && rc != OPTIONS_ERR_USAGE) abort();
    if (rc) fuzz_check_error(&err, data, size);
    if (!rc && !o.done) {
        fuzz_check_options(&o);
        fuzz_apply(&o);
    }
    options_free(&o);
    options_free(&again);
    buf_free(&err);
    buf_free(&err_again);
    fuzz_free_args(argc, argv);
    fuzz_free_args(argc, argv_again);
    return 0;
}
