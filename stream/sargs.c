#include "sargs.h"

#include <stdlib.h>
#include <string.h>

/* The value of the engine option at argv[*i] ("--x V" or "--x=V"), or NULL when
 * argv[*i] is not name; *missing when the value is. */
static const char *sargs_value(int argc, char **argv, int *i, const char *name, bool *missing) {
    size_t n = strlen(name);
    if (!argv[*i] || strncmp(argv[*i], name, n) != 0) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

/* One engine option at argv[*i]: 1 taken, 0 not one, or an error. */
static int sargs_engine(int argc, char **argv, int *i, struct sargs *a, struct buf *err) {
    bool missing = false;
    const char *v;
    if ((v = sargs_value(argc, argv, i, "--api", &missing))) {
        if (strcmp(v, "stream") != 0 && strcmp(v, "openai") != 0)
            return buf_fail(err, SARGS_ERR_USAGE, "--api wants stream or openai, got '%.40s'", v);
        a->api = strcmp(v, "stream") == 0 ? "stream" : "openai";
        a->route = strcmp(v, "stream") == 0 ? PLAN_ROUTE_STREAM : PLAN_ROUTE_OPENAI;
    } else if ((v = sargs_value(argc, argv, i, "--bearer-token-env", &missing))) {
        a->bearer_env = v;
    } else if ((v = sargs_value(argc, argv, i, "--cacert", &missing))) {
        a->cacert = v;
    } else if (argv[*i] && strcmp(argv[*i], "--insecure") == 0) {
        a->insecure = true;
    } else if (argv[*i] && strcmp(argv[*i], "--busy-poll") == 0) {
        a->busy_poll = true;
    } else if (!missing) {
        return 0;
    }
    return missing ? buf_fail(err, SARGS_ERR_USAGE, "%s needs a value", argv[*i]) : 1;
}

/* Whether argv word w is a wrk option whose value is the next word. */
static bool sargs_wrk_takes_next(const char *w) {
    static const char *const names[] = {"-t",         "-c",       "-d",        "-s",
                                        "-H",         "-T",       "--threads", "--connections",
                                        "--duration", "--script", "--header",  "--timeout"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(w, names[i]) == 0) return true;
    return false;
}

int sargs_parse(int argc, char **argv, struct sargs *out, struct buf *err) {
    *out = (struct sargs){.route = PLAN_ROUTE_STREAM, .api = "stream"};
    if (!(out->rest = calloc((size_t)argc + 1, sizeof *out->rest))) return SARGS_ERR_NOMEM;
    int n = 0, rc = 0;
    bool scenario_words = false; /* after "--": the scenario's, copied as they are */
    for (int i = 0; i < argc && rc >= 0; i++) {
        scenario_words |= strcmp(argv[i], "--") == 0;
        if (i > 0 && !scenario_words && argv[i][0] == '-' &&
            (rc = sargs_engine(argc, argv, &i, out, err)) != 0)
            continue;
        out->rest[n++] = argv[i];
        if (!scenario_words && sargs_wrk_takes_next(argv[i]) && i + 1 < argc)
            out->rest[n++] = argv[++i];
    }
    if (rc < 0) return rc;
    for (int i = 1; i < n; i++) {
        if (strcmp(out->rest[i], "--help") == 0 || strcmp(out->rest[i], "-h") == 0)
            return SARGS_HELP;
        if (strcmp(out->rest[i], "--version") == 0 || strcmp(out->rest[i], "-v") == 0)
            return SARGS_VERSION;
        if (strcmp(out->rest[i], "--") == 0) break;
    }
    rc = wrkargs_parse(n, out->rest, &out->w, err);
    if (rc == WRKARGS_ERR_NOMEM) return SARGS_ERR_NOMEM;
    if (rc) return SARGS_ERR_USAGE;
    if (!out->w.script) return buf_fail(err, SARGS_ERR_USAGE, "no scenario: pass -s SCENARIO.lua");
    if (out->w.threads > out->w.connections)
        return buf_fail(err, SARGS_ERR_USAGE,
                        "-t %llu is more threads than -c %llu connections: each thread drives "
                        "some of the connections",
                        out->w.threads, out->w.connections);
    if (out->bearer_env && out->route != PLAN_ROUTE_OPENAI)
        return buf_fail(err, SARGS_ERR_USAGE, "--bearer-token-env goes with --api openai");
    return SARGS_OK;
}

void sargs_free(struct sargs *a) {
    wrkargs_free(&a->w);
    free(a->rest);
    a->rest = NULL;
}
