/* sm-suite: the reference suite (decode, the concurrency sweep, the quiz)
 * against two endpoints with plain wrk commands, then sm-compare. It knows wrk
 * and the scenarios' command lines; it does not load the plugin. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "datadir.h"
#include "readall.h"
#include "suite_exec.h"
#include "suite_files.h"
#include "suite_manifest.h"
#include "suite_run.h"

static const char usage[] =
    "Usage: sm-suite --baseline NAME[=LABEL] --candidate NAME[=LABEL] [OPTIONS]\n"
    "       sm-suite --endpoint NAME --baseline-variant VARIANT[=LABEL]\n"
    "                --candidate-variant VARIANT[=LABEL] [OPTIONS]\n"
    "       sm-suite --resume DIR [OPTIONS]\n"
    "\n"
    "Runs the reference suite of wrk-sagemaker against two SageMaker endpoints (or two\n"
    "production variants of one) and compares them: the fixed-length decode test, the\n"
    "concurrency sweep (one level at a time) and the exact-answer quiz. Each is one plain wrk\n"
    "command with a scenario of scenarios/, printed before it runs so it can be rerun or\n"
    "changed by hand; both sides are measured in the same wrk run, their requests\n"
    "alternating, so drift lands on both. Then sm-compare prints the table of ratios\n"
    "(candidate / baseline).\n"
    "\n"
    "Everything lands in the run directory: manifest.json (what ran, when, exit status,\n"
    "files), commands.sh (every command, in order), output/ (wrk's output of each step),\n"
    "one folder per side (LABEL/) with the result files and journals, and the comparison:\n"
    "report.txt, report.md, report.json and chart.svg.\n"
    "\n"
    "Sides:\n"
    "  --baseline NAME[=LABEL]   the baseline endpoint; LABEL names its folder and column\n"
    "                            (default NAME)\n"
    "  --candidate NAME[=LABEL]  the candidate endpoint\n"
    "  --endpoint NAME           one endpoint whose two production variants are the sides\n"
    "                            (X-Amzn-SageMaker-Target-Variant), with:\n"
    "  --baseline-variant VARIANT[=LABEL], --candidate-variant VARIANT[=LABEL]\n"
    "\n"
    "Target:\n"
    "  --region REGION           the region to sign for (default: AWS_REGION, then\n"
    "                            AWS_DEFAULT_REGION)\n"
    "  --url URL                 send to URL (http:// or https://) instead of\n"
    "                            https://runtime.sagemaker.REGION.amazonaws.com, e.g. the URL\n"
    "                            sm-emulator prints\n"
    "\n"
    "The suite:\n"
    "  --scenarios LIST          which of decode,sweep,quiz to run, in this order (default all\n"
    "                            three)\n"
    "  --levels N,N,...          the sweep's concurrency levels, one wrk run of -t N -c N each\n"
    "                            (default 1,4,16)\n"
    "  --order ab|aba            ab (default): every step measures both sides, alternating;\n"
    "                            aba: then every step again for the baseline alone, and\n"
    "                            sm-compare reports how well its two runs agree\n"
    "  --time-scale K            the server runs K times faster than real time (sm-emulator's\n"
    "                            --time-scale): recorded in the result files, so sm-compare\n"
    "                            reports every time and rate in real units (default 1)\n"
    "  --out DIR                 the run directory, new or empty (default\n"
    "                            runs/suite-YYYYMMDDTHHMMSSZ)\n"
    "  --resume DIR              go on with the run in DIR: its saved options, then the ones\n"
    "                            given here (a later one wins, e.g. a new --url); steps whose\n"
    "                            result files are complete are skipped, an unfinished step's\n"
    "                            files are moved to DIR/interrupted/ and the step runs again\n"
    "  --dry-run                 print the commands and exit\n"
    "  --scenario-dir DIR        the folder of decode.lua, sweep.lua and quiz.lua (default:\n"
    "                            PREFIX/share/wrk-sagemaker/scenarios of an installed\n"
    "                            sm-suite, else the source tree's scenarios/)\n"
    "\n"
    "The comparison:\n"
    "  --price-per-hour USD      the instance's price: adds the cost per million output tokens\n"
    "  --facts-baseline LOG, --facts-candidate LOG\n"
    "                            the container's vLLM start-up log of each side (weights, KV\n"
    "                            cache, load time); copied into the side's folder as\n"
    "                            container.log, where sm-compare finds it\n"
    "\n"
    "Scenario options, passed to every scenario of the suite that takes them (see a\n"
    "scenario's --help: wrk -t1 -c1 -d1s -s scenarios/decode.lua http://x -- --help);\n"
    "prefix one with decode-, sweep- or quiz- to pass it to that scenario only, e.g.\n"
    "--sweep-max-tokens 128 or --quiz-temperature 0.7:\n"
    "  all three   --format FORMAT (vllm-chat, vllm-completions, tgi, lmi), --extra JSON,\n"
    "              --seed N, --min-tokens N, --custom-attributes TEXT, --profile NAME,\n"
    "              --refuse-after N, --temperature T\n"
    "  decode      --lengths N,N,..., --repeats N\n"
    "  decode and sweep   --prompt TEXT, --ignore-eos, --no-ignore-eos\n"
    "  sweep       --mode batch|steady, --batches N, --duration SECONDS\n"
    "  sweep and quiz     --max-tokens N\n"
    "  quiz        --quiz FILE\n"
    "\n"
    "Each wrk run is -t N -c N (one connection per thread), -d a hard cap (every reply at\n"
    "SageMaker's 60-second limit divided by --time-scale, plus a minute; a step cut short\n"
    "by it is partial and the suite goes on), --timeout 70s (above that limit),\n"
    "--progress 1. Progress: the step (done/total), its requests, the time elapsed and an\n"
    "estimate of the time left; on a terminal one line redrawn every second, elsewhere a\n"
    "line when the step's first reply is in and then every 10 seconds. At the end: the\n"
    "errors counted in the result files, then the table.\n"
    "Credentials come from the AWS chain in wrk (environment, ~/.aws, container,\n"
    "instance); sm-suite never reads them.\n"
    "\n"
    "Ctrl-C (or SIGTERM) stops the run: wrk gets SIGINT and writes its partial result\n"
    "files; sm-suite prints how to resume and how to compare what is there.\n"
    "\n"
    "Programs: wrk is $WRK, else wrk on PATH. sm-compare is $SM_COMPARE, else the one of\n"
    "this build (../results/sm-compare beside sm-suite), else sm-compare on PATH. The\n"
    "plugin: $SM_PLUGIN_PATH when set; else this build's plugin/ folder, which sm-suite then\n"
    "sets as SM_PLUGIN_PATH for wrk (shown in the commands) unless the scenarios find it\n"
    "themselves (in build/plugin/ of their source tree).\n"
    "\n"
    "  --help, --version\n"
    "\n"
    "Exit status: 0 every step complete and compared; 1 a step failed or was cut short (wrk's\n"
    "-d), or sm-compare failed; 2 bad usage (one line on standard error), or a scenario\n"
    "refused its options; 130 stopped by Ctrl-C or SIGTERM.\n";

/* Everything main owns. */
struct main_state {
    struct suite_opts o;
    struct suite_argv merged;  /* a resume's saved options and this command line's */
    struct suite_argv invoked; /* this command line */
    struct suite_tools t;
    char *wrk, *compare, *plugin, *out, *scenario_dir;
    struct suite_plan p;
};

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...) {
    va_list ap;
    fputs("sm-suite: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

static char *path_join(const char *a, const char *b) {
    char *p;
    return asprintf(&p, "%s/%s", a, b) < 0 ? NULL : p;
}

/* The folder of this program (resolved), or NULL. */
static char *self_dir(void) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    return strdup(dirname(exe));
}

/* name found in PATH (a copy of name), or NULL. */
static char *in_path(const char *name) {
    const char *path = getenv("PATH");
    for (const char *d = path ? path : "/usr/bin:/bin"; *d;) {
        size_t n = strcspn(d, ":");
        char *full;
        if (asprintf(&full, "%.*s/%s", (int)n, n ? d : ".", name) >= 0) {
            bool found = access(full, X_OK) == 0;
            free(full);
            if (found) return strdup(name);
        }
        d += n + (d[n] == ':');
    }
    return NULL;
}

static char *env_or(const char *var) {
    const char *v = getenv(var);
    return v && *v ? strdup(v) : NULL;
}

/* wrk, sm-compare, the scenarios and the plugin (see --help, "Programs"). */
static int find_tools(struct main_state *s) {
    char *here = self_dir(), *beside = here ? path_join(here, "../results/sm-compare") : NULL;
    if (beside && access(beside, X_OK) != 0) {
        free(beside);
        beside = path_join(here, "sm-compare"); /* installed: PREFIX/bin */
    }
    int rc = 2;
    s->wrk = env_or("WRK");
    if (!s->wrk) s->wrk = in_path("wrk");
    s->compare = env_or("SM_COMPARE");
    if (!s->compare && beside && access(beside, X_OK) == 0) s->compare = realpath(beside, NULL);
    if (!s->compare) s->compare = in_path("sm-compare");
    if (!s->o.scenario_dir) s->scenario_dir = datadir_path(SM_SOURCE_DIR, "scenarios");
    s->t.scenario_dir = s->o.scenario_dir ? s->o.scenario_dir : s->scenario_dir;
    char *decode = s->t.scenario_dir ? path_join(s->t.scenario_dir, "decode.lua") : NULL;
    if (!s->wrk)
        usage_error("wrk not found on PATH: install Debian's wrk (apt-get install wrk) or set WRK");
    else if (strchr(s->wrk, '/') && access(s->wrk, X_OK) != 0)
        usage_error("WRK=%s: not a program (%s)", s->wrk, strerror(errno));
    else if (!s->compare)
        usage_error("sm-compare not found beside sm-suite or on PATH: build it, or set SM_COMPARE");
    else if (!s->t.scenario_dir)
        usage_error("out of memory");
    else if (!decode || access(decode, R_OK) != 0)
        usage_error("no scenarios in %s (decode.lua): pass --scenario-dir", s->t.scenario_dir);
    else
        rc = 0;
    if (rc == 0 && !getenv("SM_PLUGIN_PATH") && here) {
        char *mine = path_join(here, "../plugin"),
             *so = mine ? path_join(mine, "sagemaker.so") : NULL;
        char *deflt = path_join(s->t.scenario_dir, "../build/plugin");
        char *a = so && access(so, R_OK) == 0 ? realpath(mine, NULL) : NULL;
        char *b = deflt ? realpath(deflt, NULL) : NULL;
        if (a && (!b || strcmp(a, b) != 0) && setenv("SM_PLUGIN_PATH", a, 1) == 0) {
            s->plugin = a;
            a = NULL;
        }
        free(mine);
        free(so);
        free(deflt);
        free(a);
        free(b);
    }
    s->t.wrk = s->wrk;
    s->t.compare = s->compare;
    s->t.plugin_dir = s->plugin;
    free(here);
    free(beside);
    free(decode);
    return rc;
}

/* The number of questions of the quiz the suite runs (40 for the default one). */
static int quiz_questions(const struct main_state *s, int *n) {
    const char *given = suite_opts_value(&s->o, SUITE_QUIZ, "--quiz");
    char *dflt = path_join(s->t.scenario_dir, "quiz-compare-py-40.json");
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = readall_path(given ? given : dflt, &b);
    cJSON *root = rc == 0 ? cJSON_ParseWithLength(buf_str(&b), b.len) : NULL;
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(root, "questions");
    *n = cJSON_IsArray(q) ? cJSON_GetArraySize(q) : 0;
    rc = 0;
    if (*n == 0 && given)
        rc = usage_error("--quiz: %s is not a quiz file (an object with a non-empty \"questions\" "
                         "list)",
                         given);
    if (*n == 0) *n = 40;
    cJSON_Delete(root);
    buf_free(&b);
    free(dflt);
    return rc;
}

/* The DIR of --resume DIR (or --resume=DIR) among the words, or NULL. */
static const char *resume_dir(int argc, char **argv) {
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--resume") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strncmp(argv[i], "--resume=", 9) == 0)
            dir = argv[i] + 9;
    }
    return dir;
}

/* The options: this command line's, after a resume's saved ones. */
static int parse(struct main_state *s, int argc, char **argv) {
    char err[512];
    const char *region = getenv("AWS_REGION"), *resume = resume_dir(argc, argv);
    if (!region || !*region) region = getenv("AWS_DEFAULT_REGION");
    if (resume && suite_dir_state(resume) != 2)
        return usage_error("--resume %s: no such run directory", resume);
    if (resume && suite_manifest_options(resume, &s->merged, err, sizeof err) < 0)
        return usage_error("--resume: %s", err);
    if (suite_argv_addv(&s->merged, argv + 1, (size_t)argc - 1) < 0)
        return usage_error("out of memory");
    if (suite_opts_parse(s->merged.v, s->merged.n, region, &s->o, err, sizeof err) < 0)
        return usage_error("%s%s%s%s", err, resume ? " (with the options saved in " : "",
                           resume ? resume : "", resume ? "/manifest.json)" : "");
    return 0;
}

/* The run directory: --resume's, --out's (new or empty), or a new one. */
static int out_dir(struct main_state *s) {
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    if (s->o.resume) {
        s->out = strdup(s->o.resume);
    } else if (s->o.out) {
        s->out = strdup(s->o.out);
        int st = suite_dir_state(s->out);
        if (st == 2)
            return usage_error("%s already holds files: continue that run with --resume %s, or "
                               "choose another --out",
                               s->out, s->out);
        if (st < 0) return usage_error("--out %s is not a folder", s->out);
    } else {
        gmtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
        if (asprintf(&s->out, "runs/suite-%s", stamp) < 0) s->out = NULL;
    }
    size_t n = s->out ? strlen(s->out) : 0;
    while (n > 1 && s->out[n - 1] == '/') s->out[--n] = '\0';
    return s->out ? 0 : usage_error("out of memory");
}

static int check_facts(const struct main_state *s) {
    static const char *const opt[] = {"--facts-baseline", "--facts-candidate"};
    for (int k = 0; k < 2; k++)
        if (s->o.facts[k] && !s->o.resume && access(s->o.facts[k], R_OK) != 0)
            return usage_error("%s: cannot read %s: %s", opt[k], s->o.facts[k], strerror(errno));
    return 0;
}

static int dry_run(const struct main_state *s) {
    const struct suite_plan *p = &s->p;
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = buf_addf(&b, "# sm-suite --dry-run: %zu steps, then sm-compare; run directory %s\n",
                      p->n, s->out);
    for (size_t i = 0; rc == BUF_OK && i < p->n; i++) {
        int present;
        bool done = s->o.resume && suite_step_complete(p, i, &present, NULL, 0);
        rc = buf_addf(&b, "# [%zu/%zu] %s%s\n", i + 1, p->n, p->steps[i].title,
                      done ? ": complete, would be skipped" : "");
        if (rc == BUF_OK) rc = suite_plan_command_line(&s->t, &p->steps[i].cmd, true, &b);
        if (rc == BUF_OK) rc = buf_addc(&b, '\n');
    }
    if (rc == BUF_OK) rc = buf_adds(&b, "# the comparison\n");
    for (int k = 0; rc == BUF_OK && k < SUITE_NCMP; k++) {
        rc = suite_plan_command_line(&s->t, &p->compare[k], false, &b);
        if (rc == BUF_OK) rc = buf_addc(&b, '\n');
    }
    rc = rc == BUF_OK && fwrite(buf_str(&b), 1, b.len, stdout) == b.len ? 0 : 1;
    buf_free(&b);
    return rc;
}

static int run(struct main_state *s, int argc, char **argv) {
    int rc = parse(s, argc, argv), questions = 40;
    if (rc) return rc;
    if (s->o.help) return fputs(usage, stdout) == EOF;
    if (s->o.version) return printf("sm-suite (wrk-sagemaker) %s\n", SM_VERSION) < 0;
    if ((rc = find_tools(s)) || (rc = out_dir(s)) || (rc = check_facts(s))) return rc;
    bool has_quiz = false;
    for (int i = 0; i < s->o.nscenarios; i++) has_quiz |= s->o.order[i] == SUITE_QUIZ;
    if (has_quiz && (rc = quiz_questions(s, &questions))) return rc;
    if (suite_argv_addv(&s->invoked, argv, (size_t)argc) < 0 ||
        suite_plan_build(&s->o, &s->t, questions, s->out, &s->p) < 0)
        return usage_error("out of memory");
    if (s->o.dry_run) return dry_run(s);
    struct suite_job job = {&s->o, &s->t, &s->p, s->out, argv[0], &s->invoked};
    return suite_run(&job);
}

int main(int argc, char **argv) {
    struct main_state s;
    memset(&s, 0, sizeof s);
    suite_argv_init(&s.merged);
    suite_argv_init(&s.invoked);
    if (suite_exec_init() < 0) {
        perror("sm-suite: signals");
        return 1;
    }
    int rc = run(&s, argc, argv);
    suite_plan_free(&s.p);
    suite_opts_free(&s.o);
    suite_argv_free(&s.merged);
    suite_argv_free(&s.invoked);
    free(s.wrk);
    free(s.compare);
    free(s.plugin);
    free(s.out);
    free(s.scenario_dir);
    return rc;
}
