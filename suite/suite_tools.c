#include "suite_tools.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datadir.h"
#include "suite_exec.h"

#define SUITE_TOOLS_HELP_WIDTH 90

void suite_tools_init(struct suite_tools *t) {
    memset(t, 0, sizeof *t);
}

void suite_tools_free(struct suite_tools *t) {
    free(t->wrk);
    free(t->wrk_path);
    free(t->compare);
    free(t->endpoint);
    free(t->stream);
    free(t->scenario_dir);
    free(t->scenario_real);
    free(t->plugin);
    for (int k = 0; k < SUITE_OPTS_NSCENARIOS; k++) suite_spec_free(&t->spec[k]);
    memset(t, 0, sizeof *t);
}

static char *suite_tools_join(const char *a, const char *b) {
    char *p;
    return asprintf(&p, "%s/%s", a, b) < 0 ? NULL : p;
}

/* The folder of this program (resolved), or NULL. */
static char *suite_tools_self_dir(void) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    return strdup(dirname(exe));
}

/* The full path of name found in PATH (resolved), or NULL. */
static char *suite_tools_in_path(const char *name) {
    const char *path = getenv("PATH");
    for (const char *d = path ? path : "/usr/bin:/bin"; *d;) {
        size_t n = strcspn(d, ":");
        char *full;
        if (asprintf(&full, "%.*s/%s", (int)n, n ? d : ".", name) >= 0) {
            char *real = access(full, X_OK) == 0 ? realpath(full, NULL) : NULL;
            free(full);
            if (real) return real;
        }
        d += n + (d[n] == ':');
    }
    return NULL;
}

static char *suite_tools_env(const char *var) {
    const char *v = getenv(var);
    return v && *v ? strdup(v) : NULL;
}

/* wrk: $WRK, else wrk on the PATH. */
static int suite_tools_find_wrk(struct suite_tools *t, struct buf *err) {
    t->wrk = suite_tools_env("WRK");
    if (t->wrk && strchr(t->wrk, '/')) {
        if (access(t->wrk, X_OK) != 0)
            return buf_fail(err, SUITE_TOOLS_ERR_NOT_FOUND, "WRK=%s: not a program (%s)", t->wrk,
                            strerror(errno));
        t->wrk_path = realpath(t->wrk, NULL);
    } else {
        t->wrk_path = suite_tools_in_path(t->wrk ? t->wrk : "wrk");
        if (!t->wrk && t->wrk_path) t->wrk = strdup("wrk");
    }
    if (!t->wrk_path)
        return buf_fail(err, SUITE_TOOLS_ERR_NOT_FOUND,
                        "%s not found on PATH: install Debian's wrk (apt-get install wrk) or set "
                        "WRK",
                        t->wrk ? t->wrk : "wrk");
    return t->wrk ? SUITE_TOOLS_OK : buf_fail(err, SUITE_TOOLS_ERR_NOMEM, "out of memory");
}

/* A program of the project: $ENV, else the build's (at build_rel from sm-suite's
 * folder), else beside sm-suite (an install: PREFIX/bin), else on the PATH; NULL
 * when none is. */
static char *suite_tools_find_ours(const char *here, const char *env, const char *build_rel,
                                   const char *name) {
    char *found = suite_tools_env(env);
    for (int k = 0; !found && here && k < 2; k++) {
        char *p = suite_tools_join(here, k == 0 ? build_rel : name);
        if (p && access(p, X_OK) == 0) found = realpath(p, NULL);
        free(p);
    }
    return found ? found : suite_tools_in_path(name);
}

static int suite_tools_find_scenarios(struct suite_tools *t, const char *given, struct buf *err) {
    t->scenario_dir = given ? strdup(given) : datadir_path(SM_SOURCE_DIR, "scenarios");
    char *decode = t->scenario_dir ? suite_tools_join(t->scenario_dir, "decode.lua") : NULL;
    int rc = SUITE_TOOLS_OK;
    if (!decode)
        rc = buf_fail(err, SUITE_TOOLS_ERR_NOMEM, "out of memory");
    else if (access(decode, R_OK) != 0 || !(t->scenario_real = realpath(t->scenario_dir, NULL)))
        rc = buf_fail(err, SUITE_TOOLS_ERR_NOT_FOUND,
                      "no scenarios in %s (decode.lua): pass --scenario-dir", t->scenario_dir);
    free(decode);
    return rc;
}

/* The plugin: this build's plugin/ folder, set as SM_PLUGIN_PATH for wrk unless
 * it is set already or the scenarios find it themselves (their tree's build/plugin). */
static void suite_tools_find_plugin(struct suite_tools *t, const char *here) {
    if (getenv("SM_PLUGIN_PATH") || !here) return;
    char *mine = suite_tools_join(here, "../plugin");
    char *so = mine ? suite_tools_join(mine, "sagemaker.so") : NULL;
    char *deflt = suite_tools_join(t->scenario_dir, "../build/plugin");
    char *a = so && access(so, R_OK) == 0 ? realpath(mine, NULL) : NULL;
    char *b = deflt ? realpath(deflt, NULL) : NULL;
    if (a && (!b || strcmp(a, b) != 0) && setenv("SM_PLUGIN_PATH", a, 1) == 0) {
        t->plugin = a;
        a = NULL;
    }
    free(mine);
    free(so);
    free(deflt);
    free(a);
    free(b);
}

char *suite_tools_find_endpoint(void) {
    char *here = suite_tools_self_dir();
    char *found = suite_tools_find_ours(here, "SM_ENDPOINT", "../tools/sm-endpoint", "sm-endpoint");
    free(here);
    return found;
}

int suite_tools_find(struct suite_tools *t, const char *scenario_dir, struct buf *err) {
    char *here = suite_tools_self_dir();
    int rc = suite_tools_find_wrk(t, err);
    if (rc == SUITE_TOOLS_OK && !(t->compare = suite_tools_find_ours(
                                      here, "SM_COMPARE", "../results/sm-compare", "sm-compare")))
        rc = buf_fail(err, SUITE_TOOLS_ERR_NOT_FOUND,
                      "sm-compare not found beside sm-suite or on PATH: build it, or set "
                      "SM_COMPARE");
    if (rc == SUITE_TOOLS_OK) {
        t->endpoint =
            suite_tools_find_ours(here, "SM_ENDPOINT", "../tools/sm-endpoint", "sm-endpoint");
        t->stream = suite_tools_find_ours(here, "SM_STREAM", "../stream/sm-stream", "sm-stream");
    }
    if (rc == SUITE_TOOLS_OK) rc = suite_tools_find_scenarios(t, scenario_dir, err);
    if (rc == SUITE_TOOLS_OK) suite_tools_find_plugin(t, here);
    free(here);
    return rc;
}

/* What a probe prints: standard output, and the last line of standard error. */
struct suite_tools_probe_out {
    struct buf out;
    char last[512];
    bool too_long;
};

static void suite_tools_on_line(void *ctx, const char *line, bool is_stderr) {
    struct suite_tools_probe_out *p = ctx;
    if (is_stderr)
        snprintf(p->last, sizeof p->last, "%s", line);
    else if (buf_adds(&p->out, line) != BUF_OK || buf_addc(&p->out, '\n') != BUF_OK)
        p->too_long = true;
}

/* Runs wrk with the scenario's --options-json; its output into po. */
static int suite_tools_run_probe(const struct suite_tools *t, const char *script,
                                 struct suite_tools_probe_out *po, struct buf *err) {
    char *argv[] = {
        t->wrk,           "-t1", "-c1", "-d1s", "-s", (char *)script, SUITE_TOOLS_PROBE_URL, "--",
        "--options-json", NULL};
    struct suite_exec_io io = {-1, -1, suite_tools_on_line, NULL, po, false};
    int status = -1;
    if (suite_exec_run(argv, &io, &status, err) < 0) return SUITE_TOOLS_ERR_PROBE;
    if (status == 0 && !po->too_long) return SUITE_TOOLS_OK;
    if (po->too_long)
        return buf_fail(err, SUITE_TOOLS_ERR_PROBE,
                        "%s did not give its options: it printed more than %zu bytes", script,
                        SUITE_SPEC_MAX_BYTES);
    return buf_fail(err, SUITE_TOOLS_ERR_PROBE,
                    "%s did not give its options: %s -t1 -c1 -d1s -s %s %s -- --options-json "
                    "exited with status %d%s%s",
                    script, t->wrk, script, SUITE_TOOLS_PROBE_URL, status, po->last[0] ? ": " : "",
                    po->last);
}

int suite_tools_probe(struct suite_tools *t, unsigned scenario, struct buf *err) {
    int k = __builtin_ctz(scenario);
    if (t->have_spec[k]) return SUITE_TOOLS_OK;
    const char *name = suite_opts_scenario_name(scenario);
    char *script;
    if (asprintf(&script, "%s/%s.lua", t->scenario_dir, name) < 0)
        return buf_fail(err, SUITE_TOOLS_ERR_NOMEM, "out of memory");
    struct suite_tools_probe_out po = {.last = ""};
    buf_init(&po.out, SUITE_SPEC_MAX_BYTES);
    struct buf why;
    buf_init(&why, 1024);
    int rc = suite_tools_run_probe(t, script, &po, err);
    if (rc == SUITE_TOOLS_OK &&
        suite_spec_parse(buf_str(&po.out), po.out.len, &t->spec[k], &why) < 0)
        rc = buf_fail(err, SUITE_TOOLS_ERR_PROBE, "%s --options-json: %s", script, buf_str(&why));
    if (rc == SUITE_TOOLS_OK && strcmp(t->spec[k].scenario, name) != 0)
        rc = buf_fail(err, SUITE_TOOLS_ERR_PROBE, "%s calls itself %s, not %s", script,
                      t->spec[k].scenario, name);
    t->have_spec[k] = rc == SUITE_TOOLS_OK;
    if (rc < 0) suite_spec_free(&t->spec[k]);
    buf_free(&po.out);
    buf_free(&why);
    free(script);
    return rc;
}

/* The scenarios (bits) that take the option named name, among those asked. */
static unsigned suite_tools_takers(const struct suite_tools *t, const char *name) {
    unsigned bits = 0;
    for (int k = 0; k < SUITE_OPTS_NSCENARIOS; k++)
        if (t->have_spec[k] && suite_spec_find(&t->spec[k], name)) bits |= 1u << k;
    return bits;
}

/* "--name ARG" or "--name, --no-name", with ", " before it but the first. */
static int suite_tools_help_item(const struct suite_spec_opt *o, bool first, size_t *col,
                                 struct buf *out) {
    char item[2 * SUITE_SPEC_NAME_MAX + 64];
    if (o->type == SUITE_SPEC_BOOL)
        snprintf(item, sizeof item, "%s, --no-%s", o->name, o->name + 2);
    else
        snprintf(item, sizeof item, "%s %.40s", o->name, o->arg ? o->arg : "VALUE");
    int rc = first ? BUF_OK : buf_addc(out, ',');
    if (rc == BUF_OK && !first && *col + 2 + strlen(item) > SUITE_TOOLS_HELP_WIDTH) {
        rc = buf_addf(out, "\n%21s", "");
        *col = 21;
    } else if (rc == BUF_OK && !first) {
        rc = buf_addc(out, ' ');
        (*col)++;
    }
    *col += strlen(item) + 1;
    return rc == BUF_OK ? buf_adds(out, item) : rc;
}

/* The line of the options that exactly the scenarios of bits take. */
static int suite_tools_help_group(const struct suite_tools *t, unsigned bits, const char *label,
                                  struct buf *out) {
    size_t col = 21;
    int rc = BUF_OK;
    bool first = true;
    for (int k = 0; rc == BUF_OK && k < SUITE_OPTS_NSCENARIOS; k++)
        for (size_t i = 0; rc == BUF_OK && t->have_spec[k] && i < t->spec[k].n; i++) {
            const struct suite_spec_opt *o = &t->spec[k].opts[i];
            unsigned takers = suite_tools_takers(t, o->name);
            if (takers != bits || __builtin_ctz(takers) != k || suite_opts_reserved(o->name))
                continue;
            if (first) /* a long label on a line of its own */
                rc = strlen(label) > 18 ? buf_addf(out, "  %s\n%21s", label, "")
                                        : buf_addf(out, "  %-18s ", label);
            if (rc == BUF_OK) rc = suite_tools_help_item(o, first, &col, out);
            first = false;
        }
    return rc == BUF_OK && !first ? buf_addc(out, '\n') : rc;
}

/* Each group of scenarios that take the same options, the most scenarios first. */
int suite_tools_help(const struct suite_tools *t, struct buf *out) {
    int rc = BUF_OK;
    for (int n = SUITE_OPTS_NSCENARIOS; rc == BUF_OK && n > 0; n--)
        for (unsigned bits = 1; rc == BUF_OK && bits < 1u << SUITE_OPTS_NSCENARIOS; bits++) {
            char label[64];
            if (__builtin_popcount(bits) != n) continue;
            suite_opts_list(bits, label, sizeof label);
            rc = suite_tools_help_group(t, bits, label, out);
        }
    return rc;
}
