/* suite_tools: what sm-suite runs: where wrk, sm-compare, the scenarios and the
 * plugin are (sm-suite --help, "Programs"), and each scenario's options, asked
 * of the scenario itself:
 *   wrk -t1 -c1 -d1s -s SCENARIO http://127.0.0.1:9 -- --options-json
 * The scenario prints them and exits in wrk's main state, before wrk resolves
 * the URL or connects (the loopback URL keeps even a scenario that does not
 * know --options-json from reaching anything but this machine for -d1s). */
#ifndef SM_SUITE_TOOLS_H
#define SM_SUITE_TOOLS_H

#include "suite_opts.h"

#define SUITE_TOOLS_PROBE_URL "http://127.0.0.1:9"

enum suite_tools_error {
    SUITE_TOOLS_OK = 0,
    SUITE_TOOLS_ERR_NOT_FOUND = -1, /* a program or the scenarios are not there */
    SUITE_TOOLS_ERR_PROBE = -2,     /* a scenario did not give its options */
    SUITE_TOOLS_ERR_NOMEM = -3,
};

struct suite_tools {
    char *wrk;           /* as the commands name it: $WRK, else "wrk" */
    char *wrk_path;      /* its full path, resolved (what a resume must match) */
    char *compare;       /* sm-compare */
    char *endpoint;      /* sm-endpoint, or NULL when not found (suite_deploy.h needs it) */
    char *stream;        /* sm-stream, or NULL when not found (--stream needs it) */
    char *scenario_dir;  /* --scenario-dir, else the default */
    char *scenario_real; /* the same, resolved */
    char *plugin;        /* SM_PLUGIN_PATH as sm-suite set it for wrk, or NULL */
    struct suite_spec spec[SUITE_OPTS_NSCENARIOS]; /* the scenarios' options, once asked */
    bool have_spec[SUITE_OPTS_NSCENARIOS];
};

/* Starts empty tools (for suite_tools_free). */
void suite_tools_init(struct suite_tools *t);
/* Finds wrk, sm-compare, the scenarios (scenario_dir, or NULL for the
 * default) and the plugin, setting SM_PLUGIN_PATH for wrk when sm-suite knows
 * it and the scenarios would not find it. Returns 0, or
 * SUITE_TOOLS_ERR_NOT_FOUND or _NOMEM with a one-line message in err (what
 * was found before stays in t). */
__attribute__((warn_unused_result)) int suite_tools_find(struct suite_tools *t,
                                                         const char *scenario_dir, struct buf *err);
/* sm-endpoint's path (SM_ENDPOINT, beside sm-suite, or on PATH; to free), or NULL. */
char *suite_tools_find_endpoint(void);
/* Asks the scenario (a SUITE_OPTS_* bit) for its options, once. Returns 0, or
 * SUITE_TOOLS_ERR_PROBE or _NOMEM with a one-line message in err. */
__attribute__((warn_unused_result)) int suite_tools_probe(struct suite_tools *t, unsigned scenario,
                                                          struct buf *err);
/* Appends to out the scenario options of the specs asked for, for --help: one
 * line per group of scenarios that take them ("  decode and sweep   --prompt
 * TEXT, ..."). Returns BUF_OK or a BUF_ERR_*. */
__attribute__((warn_unused_result)) int suite_tools_help(const struct suite_tools *t,
                                                         struct buf *out);
/* Frees the tools. */
void suite_tools_free(struct suite_tools *t);

#endif
