/* Unit tests of sm-suite's modules: the words and their shell quoting, a
 * scenario's list of options, the options and their routing to the scenarios,
 * the plan's commands, the run directory's files, the manifest with its seal,
 * the lock, and the progress line. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "readall.h"
#include "scrub.h"
#include "suite_cw.h"
#include "suite_deploy.h"
#include "suite_files.h"
#include "suite_lock.h"
#include "suite_manifest.h"
#include "suite_opts.h"
#include "suite_plan.h"
#include "suite_progress.h"
#include "suite_rate.h"
#include "suite_seal.h"
#include "suite_spec.h"

/* The options of the three scenarios, as lua/sm/run.lua prints them (the common
 * ones cut to those that matter here). */
#define COMMON_OPTS                                                                                \
    "{\"name\":\"--endpoint\",\"arg\":\"NAME[=LABEL]\",\"type\":\"string\",\"many\":true},"        \
    "{\"name\":\"--label\",\"type\":\"string\",\"many\":true},"                                    \
    "{\"name\":\"--region\",\"type\":\"string\"},"                                                 \
    "{\"name\":\"--format\",\"arg\":\"FORMAT\",\"type\":\"string\",\"default\":\"vllm-chat\"},"    \
    "{\"name\":\"--extra\",\"arg\":\"JSON\",\"type\":\"string\"},"                                 \
    "{\"name\":\"--custom-attributes\",\"arg\":\"TEXT\",\"type\":\"string\"},"                     \
    "{\"name\":\"--time-scale\",\"type\":\"number\",\"default\":1},"                               \
    "{\"name\":\"--progress\",\"type\":\"number\",\"min\":0,\"default\":30},"                      \
    "{\"name\":\"--help\",\"type\":\"bool\",\"default\":false},"                                   \
    "{\"name\":\"--temperature\",\"arg\":\"T\",\"type\":\"number\",\"min\":0,\"default\":0}"

static const char *const spec_json[SUITE_OPTS_NSCENARIOS] = {
    "{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"decode\",\"options\":"
    "[" COMMON_OPTS
    ",{\"name\":\"--lengths\",\"arg\":\"N,N,...\",\"type\":\"ints\",\"default\":[16,"
    "512]},{\"name\":\"--repeats\",\"arg\":\"N\",\"type\":\"int\",\"min\":1,\"default\":5},"
    "{\"name\":\"--prompt\",\"type\":\"string\",\"default\":\"Write.\"},"
    "{\"name\":\"--ignore-eos\",\"type\":\"bool\",\"default\":true}]}",
    "{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"sweep\",\"options\":"
    "[" COMMON_OPTS ",{\"name\":\"--mode\",\"type\":\"string\",\"default\":\"batch\"},"
    "{\"name\":\"--batches\",\"type\":\"int\",\"min\":1},"
    "{\"name\":\"--duration\",\"type\":\"number\"},"
    "{\"name\":\"--max-tokens\",\"type\":\"int\",\"min\":1,\"default\":256},"
    "{\"name\":\"--prompt\",\"type\":\"string\",\"default\":\"Write.\"},"
    "{\"name\":\"--ignore-eos\",\"type\":\"bool\",\"default\":true}]}",
    "{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"quiz\",\"options\":"
    "[" COMMON_OPTS ",{\"name\":\"--quiz\",\"type\":\"string\",\"default\":\"/s/q.json\"},"
    "{\"name\":\"--max-tokens\",\"type\":\"int\",\"min\":1,\"default\":64}]}",
    "{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"rate\",\"options\":"
    "[" COMMON_OPTS ",{\"name\":\"--rates\",\"type\":\"numbers\"},"
    "{\"name\":\"--duration\",\"type\":\"number\"},"
    "{\"name\":\"--max-tokens\",\"type\":\"int\",\"min\":1,\"default\":128}]}",
};

static struct suite_spec specs[SUITE_OPTS_NSCENARIOS];
static const struct suite_spec *all_specs[SUITE_OPTS_NSCENARIOS] = {&specs[0], &specs[1], &specs[2],
                                                                    &specs[3]};

static char tmp_root[] = "/tmp/suite-units-XXXXXX";

/* A path under the test's folder (static storage, one at a time per slot). */
static const char *tmp_path(int slot, const char *name) {
    static char paths[4][512];
    snprintf(paths[slot], sizeof paths[slot], "%s/%s", tmp_root, name);
    return paths[slot];
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *path) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    if (readall_path(path, &b) != 0) {
        buf_free(&b);
        return NULL;
    }
    return buf_take(&b);
}

/* ---- suite_argv ------------------------------------------------------------ */

static void test_argv(void) {
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"wrk", "wrk"},
        {"-t4", "-t4"},
        {"runs/x/{label}/decode.json", "'runs/x/{label}/decode.json'"},
        {"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
        {"gemma=bf16", "gemma=bf16"},
        {"", "''"},
        {"a b", "'a b'"},
        {"it's", "'it'\\''s'"},
        {"$HOME", "'$HOME'"},
        {"{\"a\":1}", "'{\"a\":1}'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct buf b;
        buf_init(&b, BUF_NO_CAP);
        CHECK_INT(suite_argv_quote(&b, cases[i].in), BUF_OK);
        CHECK_STR(buf_str(&b), cases[i].want);
        buf_free(&b);
    }
    struct suite_argv a;
    char *words[] = {"x y", "z"};
    suite_argv_init(&a);
    CHECK_INT(suite_argv_add(&a, "wrk"), 0);
    CHECK_INT(suite_argv_addf(&a, "-t%d", 4), 0);
    CHECK_INT(suite_argv_addv(&a, words, 2), 0);
    for (int i = 0; i < 20; i++) CHECK_INT(suite_argv_add(&a, "w"), 0); /* grows past 16 */
    CHECK_INT(a.n, 24);
    CHECK(a.v[a.n] == NULL); /* ready for execvp */
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    a.n = 4;
    CHECK_INT(suite_argv_quote_all(&b, &a), BUF_OK);
    CHECK_STR(buf_str(&b), "wrk -t4 'x y' z");
    a.n = 24;
    buf_free(&b);
    buf_init(&b, 8); /* a cap the line passes */
    CHECK_INT(suite_argv_quote_all(&b, &a), BUF_ERR_CAP);
    buf_free(&b);
    suite_argv_free(&a);
    CHECK(a.n == 0 && a.v == NULL);
}

/* ---- suite_spec ------------------------------------------------------------ */

static void test_spec_parse(void) {
    struct buf err;
    buf_init(&err, 1024);
    for (int k = 0; k < SUITE_OPTS_NSCENARIOS; k++) {
        CHECK_INT(suite_spec_parse(spec_json[k], strlen(spec_json[k]), &specs[k], &err), 0);
        CHECK_STR(buf_str(&err), "");
    }
    CHECK_STR(specs[0].scenario, "decode");
    const struct suite_spec_opt *o = suite_spec_find(&specs[0], "--lengths");
    CHECK(o && o->type == SUITE_SPEC_INTS);
    CHECK_STR(o ? o->dflt : NULL, "16,512");
    o = suite_spec_find(&specs[0], "--repeats");
    CHECK(o && o->type == SUITE_SPEC_INT && o->has_min && o->min == 1 && !o->many);
    CHECK_STR(o ? o->dflt : NULL, "5");
    CHECK_STR(o ? o->arg : NULL, "N");
    o = suite_spec_find(&specs[0], "--endpoint");
    CHECK(o && o->many && o->dflt == NULL && o->help == NULL);
    o = suite_spec_find(&specs[0], "--ignore-eos");
    CHECK(o && o->type == SUITE_SPEC_BOOL && o->dflt == NULL);
    o = suite_spec_find(&specs[1], "--duration");
    CHECK(o && o->type == SUITE_SPEC_NUMBER && !o->has_min);
    CHECK(suite_spec_find(&specs[0], "--max-tokens") == NULL);
    CHECK_STR(suite_spec_type_name(SUITE_SPEC_INTS), "ints");

    static const struct {
        const char *json, *err;
    } bad[] = {
        {"[", "the list of options is not JSON"},
        {"{\"format\":\"x\"}", "not a list of options (wrk-sagemaker-options)"},
        {"{\"format\":\"wrk-sagemaker-options\",\"version\":2}",
         "options of another version than 1"},
        {"{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"a b\"}",
         "\"scenario\" is not a scenario's name"},
        {"{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"d\",\"options\":{}}",
         "\"options\" is not a list of at most 128"},
        {"{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"d\",\"options\":[1]}",
         "option 1 is not an object"},
        {"{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"d\",\"options\":"
         "[{\"name\":\"-x\",\"type\":\"int\"}]}",
         "option 1: \"name\" is not an option name such as --max-tokens"},
        {"{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"d\",\"options\":"
         "[{\"name\":\"--x\",\"type\":\"float\"}]}",
         "--x: \"type\" is not one of string, int, number, bool, ints, numbers"},
        {"{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"d\",\"options\":"
         "[{\"name\":\"--x\",\"type\":\"int\",\"min\":\"1\"}]}",
         "--x: \"min\" is not a number"},
        {"{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"d\",\"options\":"
         "[{\"name\":\"--x\",\"type\":\"int\",\"many\":1}]}",
         "--x: \"many\" is not true or false"},
        {"{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"d\",\"options\":"
         "[{\"name\":\"--x\",\"type\":\"int\",\"help\":7}]}",
         "--x: \"arg\" and \"help\" must be text (or null)"},
        {"{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"d\",\"options\":"
         "[{\"name\":\"--x\",\"type\":\"int\"},{\"name\":\"--x\",\"type\":\"bool\"}]}",
         "--x is there twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct suite_spec s;
        CHECK_INT(suite_spec_parse(bad[i].json, strlen(bad[i].json), &s, &err),
                  SUITE_SPEC_ERR_FORMAT);
        CHECK_STR(buf_str(&err), bad[i].err);
        suite_spec_free(&s);
    }
    /* A default no value spells (an object, an empty list) is no default. */
    const char *odd = "{\"format\":\"wrk-sagemaker-options\",\"version\":1,\"scenario\":\"d\","
                      "\"options\":[{\"name\":\"--x\",\"type\":\"ints\",\"default\":{}},"
                      "{\"name\":\"--y\",\"type\":\"number\",\"default\":0.25}]}";
    struct suite_spec s;
    CHECK_INT(suite_spec_parse(odd, strlen(odd), &s, &err), 0);
    CHECK(suite_spec_find(&s, "--x") && suite_spec_find(&s, "--x")->dflt == NULL);
    CHECK_STR(suite_spec_find(&s, "--y") ? suite_spec_find(&s, "--y")->dflt : NULL, "0.25");
    suite_spec_free(&s);
    buf_free(&err);
}

static void test_spec_check(void) {
    static const struct {
        int scenario;
        const char *name, *value, *err; /* err NULL: accepted */
    } cases[] = {
        {0, "--repeats", "3", NULL},
        {0, "--repeats", "3000000000", NULL},
        {0, "--repeats", "0", "--repeats wants a whole number >= 1, got '0'"},
        {0, "--repeats", "1.5", "--repeats wants a whole number >= 1, got '1.5'"},
        {0, "--repeats", "0x10", "--repeats wants a whole number >= 1, got '0x10'"},
        {0, "--repeats", " 3", "--repeats wants a whole number >= 1, got ' 3'"},
        {0, "--temperature", "0", NULL},
        {0, "--temperature", "-0.1", "--temperature wants a number >= 0, got '-0.1'"},
        {0, "--temperature", "inf", "--temperature wants a number >= 0, got 'inf'"},
        {1, "--duration", "0.5", NULL},
        {1, "--duration", "0", "--duration wants a number > 0, got '0'"},
        {0, "--lengths", "16,512,1024", NULL},
        {0, "--lengths", "16,,512",
         "--lengths wants whole numbers >= 1 separated by commas, got "
         "'16,,512'"},
        {0, "--lengths", "0,4",
         "--lengths wants whole numbers >= 1 separated by commas, got "
         "'0,4'"},
        {0, "--prompt", "", "--prompt wants a value"},
        {0, "--prompt", "--x", NULL},
        {0, "--ignore-eos", "1", "--ignore-eos takes no value"},
    };
    struct buf err;
    buf_init(&err, 1024);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct suite_spec_opt *o = suite_spec_find(&specs[cases[i].scenario], cases[i].name);
        CHECK(o != NULL);
        if (!o) continue;
        buf_reset(&err);
        int rc = suite_spec_check(o, cases[i].name + 2, cases[i].value, &err);
        CHECK_INT(rc, cases[i].err ? SUITE_SPEC_ERR_VALUE : 0);
        CHECK_STR(buf_str(&err), cases[i].err ? cases[i].err : "");
    }
    buf_free(&err);
}

/* ---- suite_opts ------------------------------------------------------------ */

/* Parses a command line given as one string of words separated by '|', with
 * the scenarios' specs of run (bits; 7: all). */
static int parse_run(const char *line, unsigned run, struct suite_opts *o, struct buf *err,
                     char **copy) {
    char *words[64];
    size_t n = 0;
    const struct suite_spec *spec[SUITE_OPTS_NSCENARIOS];
    for (int k = 0; k < SUITE_OPTS_NSCENARIOS; k++) spec[k] = run & (1u << k) ? all_specs[k] : NULL;
    *copy = strdup(line);
    for (char *w = strtok(*copy, "|"); w && n < 64; w = strtok(NULL, "|")) words[n++] = w;
    return suite_opts_parse(words, n, NULL, spec, o, err);
}

/* Parses as sm-suite does: the suite's own options first, then everything with
 * the specs of the scenarios they run. */
static int parse(const char *line, struct suite_opts *o, struct buf *err, char **copy) {
    char *words[64];
    size_t n = 0;
    unsigned run = 0;
    char *scan_copy = strdup(line);
    for (char *w = strtok(scan_copy, "|"); w && n < 64; w = strtok(NULL, "|")) words[n++] = w;
    int rc = suite_opts_scan(words, n, o, err);
    for (int i = 0; rc == 0 && i < o->nscenarios; i++) run |= o->order[i];
    suite_opts_free(o);
    free(scan_copy);
    return parse_run(line, run, o, err, copy);
}

static void test_usage_errors(void) {
    static const struct {
        const char *words;
        unsigned run;
        const char *err;
    } cases[] = {
        {"--baseline|a|--candidate|b", 7, "no region: pass --region REGION (or set AWS_REGION)"},
        {"--region|r|--baseline|a", 7, "no candidate: pass --candidate NAME"},
        {"--region|r", 7,
         "no endpoints: pass --baseline NAME --candidate NAME (or --endpoint NAME "
         "--baseline-variant A --candidate-variant B)"},
        {"--region|r|--baseline|a|--candidate|a", 7,
         "the baseline and the candidate share the "
         "label 'a': name them with NAME=LABEL"},
        {"--region|r|--baseline|a_b|--candidate|b", 7,
         "--baseline: 'a_b' is not a SageMaker endpoint name (letters, digits and inner '-', at "
         "most 63)"},
        {"--region|r|--baseline|a=..|--candidate|b", 7,
         "--baseline: the label '..' may hold only letters, digits, '.', '_' and '-', not start "
         "with '.', and not be the name of a file of the run directory"},
        {"--region|r|--baseline|a=manifest.json.seal|--candidate|b", 7,
         "--baseline: the label 'manifest.json.seal' may hold only letters, digits, '.', '_' and "
         "'-', not start with '.', and not be the name of a file of the run directory"},
        {"--region|r|--baseline-variant|A|--candidate-variant|B", 7,
         "--baseline-variant and --candidate-variant need --endpoint NAME"},
        {"--region|r|--baseline|a|--candidate|b|--endpoint|e", 7,
         "give two endpoints (--baseline, --candidate) or two variants of one (--endpoint, "
         "--baseline-variant, --candidate-variant), not both"},
        {"--region|r|--baseline|a|--candidate|b|--repeats|0", 7,
         "--repeats wants a whole number >= 1, got '0'"},
        {"--region|r|--baseline|a|--candidate|b|--sweep-duration|-1", 7,
         "--sweep-duration wants a number > 0, got '-1'"},
        {"--region|r|--baseline|a|--candidate|b|--levels|1,x", 7,
         "--levels wants at most 16 whole numbers >= 1 separated by commas, got '1,x'"},
        {"--region|r|--baseline|a|--candidate|b|--levels|4,4", 7, "--levels names 4 twice"},
        {"--region|r|--baseline|a|--candidate|b|--order|ba", 7,
         "--order must be ab or aba, got 'ba'"},
        {"--region|r|--baseline|a|--candidate|b|--time-scale|0", 7,
         "--time-scale wants a number > 0, got '0'"},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|quiz|--repeats|3", 4,
         "unknown option --repeats: quiz, which this suite runs, does not take it (see sm-suite "
         "--help)"},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|decode,quiz|--mode|x", 5,
         "unknown option --mode: decode and quiz, which this suite runs, do not take it (see "
         "sm-suite --help)"},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|decode|--quiz-max-tokens|3", 1,
         "--quiz-max-tokens: quiz is not among the scenarios this suite runs (--scenarios)"},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|decode,decode", 7,
         "--scenarios wants decode, sweep, quiz and rate, each at most once, separated by commas; "
         "got "
         "'decode,decode'"},
        {"--region|r|--baseline|a|--candidate|b|--quiz-repeats|3", 7,
         "unknown option --quiz-repeats (see sm-suite --help)"},
        {"--region|r|--baseline|a|--candidate|b|--label|x", 7,
         "--label: sm-suite sets --label itself for every scenario (see sm-suite --help)"},
        {"--region|r|--baseline|a|--candidate|b|--decode-progress|3", 7,
         "--decode-progress: sm-suite sets --progress itself for every scenario (see sm-suite "
         "--help)"},
        {"--region|r|--baseline|a|--candidate|b|--ignore-eos=1", 7, "--ignore-eos takes no value"},
        {"--region|r|--baseline|a|--candidate|b|--no-prompt", 7,
         "unknown option --no-prompt (see sm-suite --help)"},
        {"--region|r|--baseline|a|--candidate|b|--prompt", 7, "--prompt wants a value"},
        {"--region|r|--baseline|a|--candidate|b|extra", 7,
         "unexpected word 'extra' (options start "
         "with --; see sm-suite --help)"},
        {"--region|r|--baseline", 7, "--baseline wants a value"},
        {"--region|r|--baseline|a|--candidate|b|--dry-run=1", 7, "--dry-run takes no value"},
        {"--region|R|--baseline|a|--candidate|b", 7,
         "--region wants a region such as us-east-2, "
         "got 'R'"},
        {"--region|r|--baseline|a|--candidate|b|--url|ftp://x", 7,
         "--url wants an http:// or https:// URL, got 'ftp://x'"},
        {"--region|r|--baseline|a|--candidate|b|--out|x|--resume|y", 7,
         "--out and --resume do not go together"},
        /* the endpoints' life */
        {"--region|r|--baseline|a|--candidate|b|--delete-after", 7,
         "--delete-after goes with --deploy"},
        {"--region|r|--baseline|a|--candidate|b|--deploy|--role|arn:x|--baseline-model|m", 7,
         "--deploy needs --baseline-model and --candidate-model (their SM_VLLM_MODEL, e.g. "
         "google/gemma-4-E2B-it)"},
        {"--region|r|--baseline|a|--candidate|b|--deploy|--baseline-model|m|--candidate-model|n", 7,
         "--deploy needs --role ARN, the execution role of the endpoints"},
        {"--region|r|--endpoint|e|--baseline-variant|x|--candidate-variant|y|--deploy|--role|"
         "arn:x|--baseline-model|m|--candidate-model|n",
         7,
         "--deploy deploys two endpoints: name them with --baseline and --candidate, not "
         "--endpoint and its variants"},
        {"--region|r|--baseline|a|--candidate|b|--endpoint-url|emulator", 7,
         "--endpoint-url wants an http:// or https:// URL, got 'emulator'"},
        /* plain http to another machine: refused once, before any step (plainhttp.h) */
        {"--region|r|--baseline|a|--candidate|b|--url|http://203.0.113.1:1", 7,
         "--url: refusing to sign requests for http://203.0.113.1:1: plain http shows the "
         "signature "
         "and session token to the network on the way to a host that is not loopback (use "
         "https://, or --allow-plain-http to send them anyway)"},
        {"--region|r|--baseline|a|--candidate|b|--url|https://h|--endpoint-url|http://e.invalid", 7,
         "--endpoint-url: refusing to sign requests for http://e.invalid: plain http shows the "
         "signature "
         "and session token to the network on the way to a host that is not loopback (use "
         "https://, or --allow-plain-http to send them anyway)"},
        /* the scenarios whose options were read must be those run */
        {"--region|r|--baseline|a|--candidate|b|--scenarios|decode", 3,
         "the scenarios to run are unclear: write a value that starts with -- as --NAME=VALUE"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct suite_opts o;
        struct buf err;
        char *copy;
        buf_init(&err, 1024);
        CHECK_INT(parse_run(cases[i].words, cases[i].run, &o, &err, &copy), SUITE_OPTS_ERR_USAGE);
        CHECK_STR(buf_str(&err), cases[i].err);
        suite_opts_free(&o);
        buf_free(&err);
        free(copy);
    }
}

static void test_scan(void) {
    /* The first read: the suite's own options; a scenario option takes the next
     * word unless that starts with --; nothing else is checked. */
    char *words[] = {"--repeats", "3",           "--ignore-eos", "--scenario-dir",  "/x",
                     "--bogus",   "--scenarios", "quiz,decode",  "--resume=runs/a", "--help"};
    struct suite_opts o;
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(suite_opts_scan(words, 10, &o, &err), 0);
    CHECK_STR(o.scenario_dir, "/x");
    CHECK_STR(o.resume, "runs/a");
    CHECK(o.help && o.nscenarios == 2 && o.order[0] == SUITE_OPTS_QUIZ &&
          o.order[1] == SUITE_OPTS_DECODE);
    CHECK_INT(o.npass, 0);
    CHECK_INT(o.saved.n, 0);
    suite_opts_free(&o);
    char *bad[] = {"--levels", "0"};
    CHECK_INT(suite_opts_scan(bad, 2, &o, &err), SUITE_OPTS_ERR_USAGE);
    CHECK_STR(buf_str(&err),
              "--levels wants at most 16 whole numbers >= 1 separated by commas, got '0'");
    suite_opts_free(&o);
    buf_free(&err);
}

static void test_saved_options(void) {
    struct suite_opts o;
    struct buf err, b;
    char *copy;
    buf_init(&err, 1024);
    CHECK_INT(parse("--region|r|--out|x|--baseline=a|--candidate|b|--dry-run|--repeats|2|"
                    "--sweep-no-ignore-eos|--url|https://h|--scenario-dir|/s",
                    &o, &err, &copy),
              0);
    buf_init(&b, BUF_NO_CAP);
    CHECK(suite_argv_quote_all(&b, &o.saved) == BUF_OK);
    CHECK_STR(buf_str(&b), "--region r --baseline=a --candidate b --repeats 2 "
                           "--sweep-no-ignore-eos --url https://h --scenario-dir /s");
    CHECK_STR(suite_opts_value(&o, SUITE_OPTS_DECODE, "--repeats"), "2");
    CHECK(suite_opts_value(&o, SUITE_OPTS_SWEEP, "--repeats") == NULL);
    CHECK_INT(o.npass, 2);
    CHECK(o.pass[1].negated && o.pass[1].scenarios == SUITE_OPTS_SWEEP);
    CHECK_STR(o.pass[1].name, "--ignore-eos");
    /* a setting not given is the scenario's default */
    CHECK_STR(suite_opts_setting(&o, SUITE_OPTS_SWEEP, "--max-tokens"), "256");
    CHECK_STR(suite_opts_setting(&o, SUITE_OPTS_QUIZ, "--max-tokens"), "64");
    CHECK_STR(suite_opts_setting(&o, SUITE_OPTS_DECODE, "--repeats"), "2");
    CHECK(suite_opts_setting(&o, SUITE_OPTS_SWEEP, "--batches") == NULL);

    /* What chooses code or destination, and all the rest. */
    struct suite_argv kept, rest;
    suite_argv_init(&kept);
    suite_argv_init(&rest);
    CHECK_INT(suite_opts_guarded(&o.saved, true, &kept), 0);
    CHECK_INT(suite_opts_guarded(&o.saved, false, &rest), 0);
    buf_reset(&b);
    CHECK(suite_argv_quote_all(&b, &kept) == BUF_OK);
    CHECK_STR(buf_str(&b),
              "--region r --baseline=a --candidate b --url https://h --scenario-dir /s");
    buf_reset(&b);
    CHECK(suite_argv_quote_all(&b, &rest) == BUF_OK);
    CHECK_STR(buf_str(&b), "--repeats 2 --sweep-no-ignore-eos");
    suite_argv_free(&kept);
    suite_argv_free(&rest);
    /* a value that looks like a guarded option goes with it */
    char *odd[] = {"--facts-baseline", "--url", "--url", "--scenario-dir", "x"};
    struct suite_argv w;
    suite_argv_init(&w);
    suite_argv_init(&rest);
    CHECK_INT(suite_argv_addv(&w, odd, 5), 0);
    CHECK_INT(suite_opts_guarded(&w, false, &rest), 0);
    buf_reset(&b);
    CHECK(suite_argv_quote_all(&b, &rest) == BUF_OK);
    CHECK_STR(buf_str(&b), "--facts-baseline --url x");
    suite_argv_free(&w);
    suite_argv_free(&rest);
    buf_free(&b);
    buf_free(&err);
    suite_opts_free(&o);
    free(copy);
}

/* ---- suite_plan ------------------------------------------------------------ */

/* A plan's commands, one per line, with the words of every step and compare. */
static char *plan_text(const char *words, const char *out) {
    struct suite_opts o;
    struct suite_plan p;
    struct buf err;
    char *copy;
    struct suite_plan_tools t = {"wrk", "sm-compare", "/s", NULL, "sm-stream"};
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    buf_init(&err, 1024);
    if (parse(words, &o, &err, &copy) < 0) {
        fprintf(stderr, "%s\n", buf_str(&err));
        CHECK(!"the options parse");
    } else if (suite_plan_build(&o, &t, 40, out, &p) == 0) {
        for (size_t i = 0; i < p.n; i++) {
            CHECK(suite_plan_command_line(&t, &p.steps[i].cmd, true, &b) == BUF_OK);
            CHECK(buf_addf(&b, "  # %s %s\n", p.steps[i].id, p.steps[i].title) == BUF_OK);
        }
        for (int k = 0; k < SUITE_PLAN_NCMP; k++) {
            CHECK(suite_plan_command_line(&t, &p.compare[k], false, &b) == BUF_OK);
            CHECK(buf_addc(&b, '\n') == BUF_OK);
        }
        suite_plan_free(&p);
    }
    suite_opts_free(&o);
    buf_free(&err);
    free(copy);
    return buf_take(&b);
}

static void test_plan(void) {
    static const struct {
        const char *words, *want;
    } cases[] = {
        {"--region|us-east-2|--baseline|a|--candidate|b=qat|--scenarios|decode,sweep|--levels|"
         "1,4|--price-per-hour|1.1267|--repeats|3|--sweep-max-tokens|128|--temperature|0.5",
         "wrk -t1 -c1 -d13m --timeout 70s -s /s/decode.lua "
         "https://runtime.sagemaker.us-east-2.amazonaws.com -- --endpoint a --endpoint b=qat "
         "--region us-east-2 --out 'r/{label}/decode.json' --progress 1 --repeats 3 "
         "--temperature 0.5  # decode decode\n"
         "wrk -t1 -c1 -d17m --timeout 70s -s /s/sweep.lua "
         "https://runtime.sagemaker.us-east-2.amazonaws.com -- --endpoint a --endpoint b=qat "
         "--region us-east-2 --out 'r/{label}/sweep-c1.json' --progress 1 --max-tokens 128 "
         "--temperature 0.5  # sweep-c1 sweep c1\n"
         "wrk -t4 -c4 -d17m --timeout 70s -s /s/sweep.lua "
         "https://runtime.sagemaker.us-east-2.amazonaws.com -- --endpoint a --endpoint b=qat "
         "--region us-east-2 --out 'r/{label}/sweep-c4.json' --progress 1 --max-tokens 128 "
         "--temperature 0.5  # sweep-c4 sweep c4\n"
         "sm-compare --price-per-hour 1.1267 --svg r/chart.svg --output r/report.txt r/a r/qat\n"
         "sm-compare --price-per-hour 1.1267 --format markdown --output r/report.md r/a r/qat\n"
         "sm-compare --price-per-hour 1.1267 --format json --output r/report.json r/a r/qat\n"},
        {"--region|us-east-1|--url|http://127.0.0.1:9|--endpoint|e|--baseline-variant|A|"
         "--candidate-variant|B=qat|--scenarios|quiz|--order|aba|--time-scale|20|--quiz-max-tokens|"
         "32|--no-ignore-eos|--scenarios|sweep,quiz|--levels|2",
         "wrk -t2 -c2 -d2m --timeout 70s -s /s/sweep.lua http://127.0.0.1:9 -- --endpoint e "
         "--variant A --variant B=qat --region us-east-1 --time-scale 20 --out "
         "'r/{label}/sweep-c2.json' --progress 1 --no-ignore-eos  # sweep-c2 sweep c2\n"
         "wrk -t1 -c1 -d5m --timeout 70s -s /s/quiz.lua http://127.0.0.1:9 -- --endpoint e "
         "--variant A --variant B=qat --region us-east-1 --time-scale 20 --out "
         "'r/{label}/quiz.json' --progress 1 --max-tokens 32  # quiz quiz\n"
         "wrk -t2 -c2 -d2m --timeout 70s -s /s/sweep.lua http://127.0.0.1:9 -- --endpoint e "
         "--variant A --label A --region us-east-1 --time-scale 20 --out "
         "'r/{label}/rerun-sweep-c2.json' --progress 1 --no-ignore-eos  # rerun-sweep-c2 sweep "
         "c2, baseline again\n"
         "wrk -t1 -c1 -d3m --timeout 70s -s /s/quiz.lua http://127.0.0.1:9 -- --endpoint e "
         "--variant A --label A --region us-east-1 --time-scale 20 --out "
         "'r/{label}/rerun-quiz.json' --progress 1 --max-tokens 32  # rerun-quiz quiz, "
         "baseline again\n"
         "sm-compare --svg r/chart.svg --output r/report.txt r/A r/qat\n"
         "sm-compare --format markdown --output r/report.md r/A r/qat\n"
         "sm-compare --format json --output r/report.json r/A r/qat\n"},
        /* inference components: once per side, "-" for a side without one; a side labelled
           by its component names the label; the baseline alone takes its own */
        {"--region|r|--baseline|a|--baseline-component|c0|--candidate|b|--scenarios|quiz|"
         "--order|aba",
         "wrk -t1 -c1 -d81m --timeout 70s -s /s/quiz.lua "
         "https://runtime.sagemaker.r.amazonaws.com -- --endpoint a=c0 --endpoint b "
         "--inference-component c0 --inference-component - --region r "
         "--out 'r/{label}/quiz.json' --progress 1  # quiz quiz\n"
         "wrk -t1 -c1 -d41m --timeout 70s -s /s/quiz.lua "
         "https://runtime.sagemaker.r.amazonaws.com -- --endpoint a --inference-component c0 "
         "--label c0 --region r --out 'r/{label}/rerun-quiz.json' --progress 1  # rerun-quiz "
         "quiz, baseline again\n"
         "sm-compare --svg r/chart.svg --output r/report.txt r/c0 r/b\n"
         "sm-compare --format markdown --output r/report.md r/c0 r/b\n"
         "sm-compare --format json --output r/report.json r/c0 r/b\n"},
        {"--region|r|--baseline|e=x|--candidate|e=y|--candidate-component|c1|--scenarios|quiz",
         "wrk -t1 -c1 -d81m --timeout 70s -s /s/quiz.lua "
         "https://runtime.sagemaker.r.amazonaws.com -- --endpoint e=x --endpoint e=y "
         "--inference-component - --inference-component c1 --region r "
         "--out 'r/{label}/quiz.json' --progress 1  # quiz quiz\n"
         "sm-compare --svg r/chart.svg --output r/report.txt r/x r/y\n"
         "sm-compare --format markdown --output r/report.md r/x r/y\n"
         "sm-compare --format json --output r/report.json r/x r/y\n"},
        /* --stream: decode and sweep with sm-stream (-t1, the level's -c), the quiz with wrk */
        {"--region|r|--baseline|a|--candidate|b|--scenarios|decode,sweep,quiz|--levels|4|--stream|"
         "--repeats|1|--lengths|8,16|--sweep-batches|1|--cacert|ca.pem",
         "sm-stream -t1 --cacert ca.pem -c1 -d5m --timeout 70s -s /s/decode.lua "
         "https://runtime.sagemaker.r.amazonaws.com -- --endpoint a --endpoint b --region r "
         "--out 'r/{label}/decode.json' --progress 1 --repeats 1 --lengths 8,16  # decode decode\n"
         "sm-stream -t1 --cacert ca.pem -c4 -d3m --timeout 70s -s /s/sweep.lua "
         "https://runtime.sagemaker.r.amazonaws.com -- --endpoint a --endpoint b --region r "
         "--out 'r/{label}/sweep-c4.json' --progress 1 --batches 1  # sweep-c4 sweep c4\n"
         "wrk -t1 -c1 -d81m --timeout 70s -s /s/quiz.lua "
         "https://runtime.sagemaker.r.amazonaws.com -- --endpoint a --endpoint b --region r "
         "--out 'r/{label}/quiz.json' --progress 1  # quiz quiz\n"
         "sm-compare --svg r/chart.svg --output r/report.txt r/a r/b\n"
         "sm-compare --format markdown --output r/report.md r/a r/b\n"
         "sm-compare --format json --output r/report.json r/a r/b\n"},
        /* a count beyond an int still gives a cap of every reply at the limit */
        {"--region|r|--baseline|a|--candidate|b|--scenarios|decode|--repeats|3000000000",
         "wrk -t1 -c1 -d12000000001m --timeout 70s -s /s/decode.lua "
         "https://runtime.sagemaker.r.amazonaws.com -- --endpoint a --endpoint b --region r "
         "--out 'r/{label}/decode.json' --progress 1 --repeats 3000000000  # decode decode\n"
         "sm-compare --svg r/chart.svg --output r/report.txt r/a r/b\n"
         "sm-compare --format markdown --output r/report.md r/a r/b\n"
         "sm-compare --format json --output r/report.json r/a r/b\n"},
        /* --allow-plain-http goes to every scenario, which alone decides (plainhttp.h) */
        {"--region|r|--url|http://10.0.0.9:8080|--baseline|a|--candidate|b|--scenarios|decode|"
         "--allow-plain-http",
         "wrk -t1 -c1 -d21m --timeout 70s -s /s/decode.lua http://10.0.0.9:8080 -- --endpoint a "
         "--endpoint b --region r --allow-plain-http --out 'r/{label}/decode.json' --progress 1"
         "  # decode decode\n"
         "sm-compare --svg r/chart.svg --output r/report.txt r/a r/b\n"
         "sm-compare --format markdown --output r/report.md r/a r/b\n"
         "sm-compare --format json --output r/report.json r/a r/b\n"},
        /* steady rounds: the cap adds their seconds; the scenario's default of 16,512 and 5 */
        {"--region|r|--baseline|a|--candidate|b|--scenarios|sweep|--levels|1|--mode|steady|"
         "--duration|600",
         "wrk -t1 -c1 -d23m --timeout 70s -s /s/sweep.lua "
         "https://runtime.sagemaker.r.amazonaws.com -- --endpoint a --endpoint b --region r "
         "--out 'r/{label}/sweep-c1.json' --progress 1 --mode steady --duration 600  # sweep-c1 "
         "sweep c1\n"
         "sm-compare --svg r/chart.svg --output r/report.txt r/a r/b\n"
         "sm-compare --format markdown --output r/report.md r/a r/b\n"
         "sm-compare --format json --output r/report.json r/a r/b\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = plan_text(cases[i].words, "r");
        CHECK_STR(got, cases[i].want);
        free(got);
    }
}

/* ---- suite_files ----------------------------------------------------------- */

static void test_files(void) {
    struct buf err;
    buf_init(&err, 1024);
    const char *dir = tmp_path(0, "files/a/b");
    CHECK_INT(suite_files_dir_state(dir, NULL), SUITE_FILES_DIR_NONE);
    CHECK_INT(suite_files_mkdirs(dir, &err), 0);
    CHECK_INT(suite_files_dir_state(dir, NULL), SUITE_FILES_DIR_EMPTY);
    write_file(tmp_path(1, "files/a/b/.lock"), "1\n");
    CHECK_INT(suite_files_dir_state(dir, ".lock"), SUITE_FILES_DIR_EMPTY);
    CHECK_INT(suite_files_dir_state(dir, NULL), SUITE_FILES_DIR_FULL);
    CHECK_INT(suite_files_dir_state(tmp_path(1, "files/a/b/.lock"), NULL), SUITE_FILES_DIR_OTHER);
    CHECK_INT(suite_files_mkdirs(tmp_path(1, "files/a/b/.lock/x"), &err), SUITE_FILES_ERR_IO);
    CHECK(strncmp(buf_str(&err), "cannot create ", 14) == 0 &&
          strstr(buf_str(&err), ": Not a directory") != NULL);

    /* Written atomically; a link planted at the name is refused, not written through. */
    const char *victim = tmp_path(1, "files/victim");
    const char *path = tmp_path(2, "files/a/b/m.json");
    write_file(victim, "mine\n");
    CHECK_INT(symlink(victim, path), 0);
    CHECK_INT(suite_files_write_atomic(path, "{}\n", 3, &err), SUITE_FILES_ERR_IO);
    CHECK(strstr(buf_str(&err), "m.json is a symbolic link, refusing to follow it") != NULL);
    char *text = read_file(victim);
    CHECK_STR(text, "mine\n");
    free(text);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    unlink(path);
    CHECK_INT(suite_files_write_atomic(path, "{}\n", 3, &err), 0);
    text = read_file(path);
    CHECK_STR(text, "{}\n");
    free(text);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
    /* Nor through a link planted as the file's folder. */
    CHECK_INT(symlink(tmp_path(3, "files"), tmp_path(1, "files/a/b/sub")), 0);
    CHECK_INT(suite_files_write_atomic(tmp_path(1, "files/a/b/sub/victim"), "x\n", 2, &err),
              SUITE_FILES_ERR_IO);
    CHECK(strstr(buf_str(&err), "b/sub is a symbolic link") != NULL);
    text = read_file(victim);
    CHECK_STR(text, "mine\n");
    free(text);
    /* Appending does not follow a link either. */
    const char *cmds = tmp_path(3, "files/a/b/commands.sh");
    CHECK_INT(symlink(victim, cmds), 0);
    CHECK_INT(suite_files_append(cmds, "rm -rf ~\n", &err), SUITE_FILES_ERR_IO);
    text = read_file(victim);
    CHECK_STR(text, "mine\n");
    free(text);
    unlink(cmds);
    CHECK_INT(suite_files_append(cmds, "a\n", &err), 0);
    CHECK_INT(suite_files_append(cmds, "b\n", &err), 0);
    text = read_file(cmds);
    CHECK_STR(text, "a\nb\n");
    free(text);

    /* Copies and moves. */
    CHECK_INT(suite_files_copy(victim, tmp_path(3, "files/copy"), &err), 0);
    text = read_file(tmp_path(3, "files/copy"));
    CHECK_STR(text, "mine\n");
    free(text);
    CHECK_INT(suite_files_copy(tmp_path(3, "files/none"), tmp_path(2, "files/x"), &err),
              SUITE_FILES_ERR_IO);
    CHECK(strstr(buf_str(&err), "cannot read ") && strstr(buf_str(&err), "No such file"));
    CHECK_INT(
        suite_files_move_into(tmp_path(3, "files/copy"), tmp_path(2, "files/moved/here"), &err), 0);
    CHECK(access(tmp_path(3, "files/moved/here/copy"), F_OK) == 0);
    CHECK(access(tmp_path(3, "files/copy"), F_OK) != 0);
    CHECK_INT(suite_files_move_into(tmp_path(3, "files/copy"), tmp_path(2, "files/moved"), &err),
              0); /* nothing to move */
    /* not into a folder that is a link */
    CHECK_INT(symlink(tmp_path(2, "files/moved"), tmp_path(3, "files/aside")), 0);
    CHECK_INT(suite_files_copy(victim, tmp_path(3, "files/copy2"), &err), 0);
    CHECK_INT(suite_files_move_into(tmp_path(3, "files/copy2"), tmp_path(2, "files/aside"), &err),
              SUITE_FILES_ERR_IO);
    CHECK(strstr(buf_str(&err), "files/aside is a symbolic link, refusing") != NULL);
    CHECK(access(tmp_path(3, "files/moved/copy2"), F_OK) != 0);
    CHECK(access(tmp_path(3, "files/copy2"), F_OK) == 0);
    buf_free(&err);
}

static void test_result_read(void) {
    static const struct {
        const char *text; /* NULL: no file */
        int rc;
        bool partial;
        long sent, ok, failed;
        const char *reason, *errors;
    } cases[] = {
        {NULL, SUITE_FILES_ABSENT, false, 0, 0, 0, "", ""},
        {"[1]", SUITE_FILES_ERR_FORMAT, false, 0, 0, 0, "", ""},
#define HEAD                                                                                       \
    "\"format\":\"wrk-sagemaker-result\",\"version\":2,\"scenario\":\"decode\","                   \
    "\"endpoint\":{\"name\":\"e\"},\"time_scale\":1,\"settings\":{},"
        {"{\"format\":\"wrk-sagemaker-result\",\"counts\":{}}", SUITE_FILES_ERR_FORMAT, false, 0, 0,
         0, "", ""}, /* no head: not one of ours */
        {"{" HEAD "\"partial\":false,\"counts\":{\"sent\":4,\"ok\":4,"
         "\"failed\":0}}",
         0, false, 4, 4, 0, "", ""},
        {"{" HEAD "\"partial\":true,\"partial_reason\":\"interrupted\","
         "\"counts\":{\"sent\":3,\"ok\":1,\"failed\":2,\"errors\":{\"ModelError\":2}}}",
         0, true, 3, 1, 2, "interrupted", "2 ModelError"},
        {"{" HEAD "\"counts\":{}}", 0, true, 0, 0, 0, "", ""},
#undef HEAD
    };
    struct buf err;
    buf_init(&err, 1024);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = tmp_path(0, "result.json");
        unlink(path);
        if (cases[i].text) write_file(path, cases[i].text);
        struct suite_files_result r;
        buf_reset(&err);
        CHECK_INT(suite_files_result_read(path, &r, &err), cases[i].rc);
        if (cases[i].rc == SUITE_FILES_ERR_FORMAT)
            CHECK(strstr(buf_str(&err), "result.json: not a wrk-sagemaker result file") != NULL);
        if (cases[i].rc != 0) continue;
        CHECK_INT(r.partial, cases[i].partial);
        CHECK_INT(r.sent, cases[i].sent);
        CHECK_INT(r.ok, cases[i].ok);
        CHECK_INT(r.failed, cases[i].failed);
        CHECK_STR(r.reason, cases[i].reason);
        CHECK_STR(r.errors, cases[i].errors);
    }
    buf_free(&err);
}

/* ---- suite_seal, suite_lock ------------------------------------------------ */

static void test_seal(void) {
    struct suite_seal s, other;
    struct buf err;
    buf_init(&err, 1024);
    const char *key = tmp_path(0, "config/wrk-sagemaker/suite-seal.key");
    CHECK_INT(suite_seal_open(&s, key, false, &err), SUITE_SEAL_ERR_KEY);
    CHECK(strstr(buf_str(&err), "cannot read the key ") != NULL);
    CHECK_INT(suite_seal_open(&s, key, true, &err), 0);
    struct stat st;
    CHECK(stat(key, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size == 32);
    CHECK(stat(tmp_path(1, "config/wrk-sagemaker"), &st) == 0 && (st.st_mode & 0777) == 0700);
    /* the same key again; a key others can read is refused */
    CHECK_INT(suite_seal_open(&other, key, true, &err), 0);
    CHECK(memcmp(s.key, other.key, sizeof s.key) == 0);
    suite_seal_close(&other);
    CHECK_INT(chmod(key, 0640), 0);
    CHECK_INT(suite_seal_open(&other, key, false, &err), SUITE_SEAL_ERR_KEY);
    CHECK(strstr(buf_str(&err), "must be a file of yours of 32 bytes that only you can read"));
    CHECK_INT(chmod(key, 0600), 0);

    const char *seal = tmp_path(1, "m.seal");
    CHECK_INT(suite_seal_check(&s, seal, "a", 1, &err), SUITE_SEAL_ERR_MISMATCH);
    CHECK_STR(buf_str(&err), "it has no seal");
    CHECK_INT(suite_seal_write(&s, seal, "one", 3, &err), 0);
    CHECK_INT(suite_seal_check(&s, seal, "one", 3, &err), 0);
    CHECK_INT(suite_seal_check(&s, seal, "One", 3, &err), SUITE_SEAL_ERR_MISMATCH);
    CHECK_STR(buf_str(&err), "its seal does not match");
    /* the text sealed before still checks (its file not yet replaced); two back does not */
    CHECK_INT(suite_seal_write(&s, seal, "two", 3, &err), 0);
    CHECK_INT(suite_seal_check(&s, seal, "one", 3, &err), 0);
    CHECK_INT(suite_seal_write(&s, seal, "two", 3, &err), 0);
    CHECK_INT(suite_seal_write(&s, seal, "three", 5, &err), 0);
    CHECK_INT(suite_seal_check(&s, seal, "two", 3, &err), 0);
    CHECK_INT(suite_seal_check(&s, seal, "one", 3, &err), SUITE_SEAL_ERR_MISMATCH);
    /* another key's seal does not check */
    CHECK_INT(suite_seal_open(&other, tmp_path(2, "other/k"), true, &err), 0);
    CHECK_INT(suite_seal_check(&other, seal, "three", 5, &err), SUITE_SEAL_ERR_MISMATCH);
    suite_seal_close(&other);
    suite_seal_close(&s);
    buf_free(&err);
}

static void test_lock(void) {
    struct buf err;
    char want[1024];
    int a, b;
    buf_init(&err, 1024);
    const char *dir = tmp_path(0, "locked");
    CHECK_INT(mkdir(dir, 0755), 0);
    CHECK_INT(suite_lock_take(dir, &a, &err), 0);
    char *text = read_file(tmp_path(1, "locked/" SUITE_LOCK_FILE));
    snprintf(want, sizeof want, "%ld\n", (long)getpid());
    CHECK_STR(text, want);
    free(text);
    /* a second holder (another open file) is refused, with the holder's pid */
    CHECK_INT(suite_lock_take(dir, &b, &err), SUITE_LOCK_ERR_BUSY);
    snprintf(want, sizeof want, "the run directory %s is in use by another sm-suite (pid %ld)", dir,
             (long)getpid());
    CHECK_STR(buf_str(&err), want);
    CHECK_INT(b, -1);
    suite_lock_release(a);
    CHECK_INT(suite_lock_take(dir, &b, &err), 0);
    suite_lock_release(b);
    /* a link planted at the lock's name is not followed */
    const char *other = tmp_path(1, "locked2");
    CHECK_INT(mkdir(other, 0755), 0);
    write_file(tmp_path(2, "victim2"), "keep\n");
    CHECK_INT(symlink(tmp_path(2, "victim2"), tmp_path(3, "locked2/" SUITE_LOCK_FILE)), 0);
    CHECK_INT(suite_lock_take(other, &b, &err), SUITE_LOCK_ERR_IO);
    text = read_file(tmp_path(2, "victim2"));
    CHECK_STR(text, "keep\n");
    free(text);
    buf_free(&err);
}

/* ---- suite_manifest -------------------------------------------------------- */

static void manifest_target(struct suite_manifest_target *t, const char *url) {
    memset(t, 0, sizeof *t);
    *t = (struct suite_manifest_target){"/usr/bin/wrk", "/s",         url,          "us-east-1",
                                        {"a", "b"},     {NULL, NULL}, {"a", "qat"}, {NULL, NULL}};
}

/* A manifest of the options in words, begun, saved and sealed in dir. */
static void manifest_write(const char *dir, const char *words, struct suite_seal *seal) {
    struct suite_opts o;
    struct suite_plan p;
    struct suite_manifest m;
    struct suite_manifest_target t;
    struct suite_argv inv;
    struct buf err;
    char *copy;
    struct suite_plan_tools tools = {"wrk", "sm-compare", "/s", NULL, "sm-stream"};
    buf_init(&err, 1024);
    suite_argv_init(&inv);
    CHECK_INT(parse(words, &o, &err, &copy), 0);
    CHECK_INT(suite_plan_build(&o, &tools, 40, dir, &p), 0);
    manifest_target(&t, p.url);
    CHECK_INT(suite_argv_add(&inv, "sm-suite"), 0);
    suite_manifest_init(&m);
    struct suite_manifest_run run = {&o, &p, &t, &inv, "2026-01-01T00:00:00Z"};
    CHECK_INT(suite_manifest_begin(&m, dir, seal, &run), 0);
    CHECK_INT(suite_manifest_step_start(&m, &p, 0, "wrk ...", "2026-01-01T00:00:01Z"), 0);
    CHECK_INT(suite_manifest_step_end(&m, 0, "done", 0, NULL, "2026-01-01T00:00:02Z"), 0);
    CHECK_STR(suite_manifest_output(&m, 0), "output/01-decode.txt");
    CHECK_INT(suite_manifest_end(&m, "done", "2026-01-01T00:00:03Z"), 0);
    CHECK_INT(suite_manifest_save(&m, &err), 0);
    suite_manifest_free(&m);
    suite_plan_free(&p);
    suite_opts_free(&o);
    suite_argv_free(&inv);
    buf_free(&err);
    free(copy);
}

/* --resume on a run directory whose manifest.json (or its seal) is a FIFO or a
 * link: refused at once, never a read that blocks for a writer that never comes. */
static void test_manifest_not_regular(void) {
    struct suite_manifest m;
    struct buf err;
    buf_init(&err, 1024);
    const char *dir = tmp_path(0, "fifo-run");
    CHECK_INT(mkdir(dir, 0755), 0);
    CHECK_INT(mkfifo(tmp_path(1, "fifo-run/manifest.json"), 0600), 0);
    suite_manifest_init(&m);
    CHECK_INT(suite_manifest_load(&m, dir, &err), SUITE_MANIFEST_ERR_FORMAT);
    CHECK(strstr(buf_str(&err), "fifo-run/manifest.json: not a regular file (a FIFO") != NULL);
    suite_manifest_free(&m);
    const char *ldir = tmp_path(0, "link-run");
    CHECK_INT(mkdir(ldir, 0755), 0);
    write_file(tmp_path(2, "link-target.json"), "{\"format\":\"x\"}");
    CHECK_INT(symlink(tmp_path(2, "link-target.json"), tmp_path(1, "link-run/manifest.json")), 0);
    suite_manifest_init(&m);
    CHECK_INT(suite_manifest_load(&m, ldir, &err), SUITE_MANIFEST_ERR_FORMAT);
    CHECK(strstr(buf_str(&err), "not a regular file (a symbolic link)") != NULL);
    suite_manifest_free(&m);
    buf_free(&err);
}

static void test_manifest(void) {
    struct suite_seal seal;
    struct suite_manifest m;
    struct suite_manifest_target t, now;
    struct suite_argv saved;
    struct buf err, b;
    buf_init(&err, 2048);
    buf_init(&b, BUF_NO_CAP);
    const char *dir = tmp_path(0, "run");
    CHECK_INT(mkdir(dir, 0755), 0);
    CHECK_INT(suite_seal_open(&seal, tmp_path(1, "mkey/k"), true, &err), 0);
    manifest_write(dir,
                   "--region|us-east-1|--baseline|a|--candidate|b=qat|--url|http://localhost:1|"
                   "--scenarios|decode|--repeats|2",
                   &seal);

    suite_manifest_init(&m);
    CHECK_INT(suite_manifest_load(&m, dir, &err), 0);
    CHECK_INT(suite_manifest_verify(&m, &seal, &err), 0);
    suite_argv_init(&saved);
    CHECK_INT(suite_manifest_options(&m, &saved, &err), 0);
    CHECK(suite_argv_quote_all(&b, &saved) == BUF_OK);
    CHECK_STR(buf_str(&b),
              "--region us-east-1 --baseline a --candidate b=qat --url http://localhost:1 "
              "--scenarios decode --repeats 2");
    suite_manifest_target(&m, &t);
    CHECK_STR(t.wrk, "/usr/bin/wrk");
    CHECK_STR(t.url, "http://localhost:1");
    CHECK_STR(t.label[1], "qat");
    CHECK(t.variant[0] == NULL);
    CHECK_STR(suite_manifest_output(&m, 0), "output/01-decode.txt");
    /* the same target passes; each difference is named with what the run used */
    manifest_target(&now, "http://localhost:1");
    CHECK_INT(suite_manifest_check_target(&m, &now, &err), 0);
    now.url = "http://evil:1";
    CHECK_INT(suite_manifest_check_target(&m, &now, &err), SUITE_MANIFEST_ERR_MISMATCH);
    CHECK_STR(buf_str(&err), "the run used --url http://localhost:1, this command http://evil:1");
    now.url = "http://localhost:1\nsm-suite: all good"; /* quoted text stays on the one line */
    CHECK_INT(suite_manifest_check_target(&m, &now, &err), SUITE_MANIFEST_ERR_MISMATCH);
    CHECK_STR(buf_str(&err), "the run used --url http://localhost:1, this command "
                             "http://localhost:1?sm-suite: all good");
    manifest_target(&now, "http://localhost:1");
    now.scenario_dir = "/elsewhere";
    CHECK_INT(suite_manifest_check_target(&m, &now, &err), SUITE_MANIFEST_ERR_MISMATCH);
    CHECK_STR(buf_str(&err),
              "the run used the scenarios of --scenario-dir /s, this command /elsewhere");
    manifest_target(&now, "http://localhost:1");
    now.region = "us-west-2";
    CHECK_INT(suite_manifest_check_target(&m, &now, &err), SUITE_MANIFEST_ERR_MISMATCH);
    CHECK_STR(buf_str(&err), "the run used --region us-east-1, this command us-west-2");
    manifest_target(&now, "http://localhost:1");
    now.wrk = "/tmp/wrk";
    CHECK_INT(suite_manifest_check_target(&m, &now, &err), SUITE_MANIFEST_ERR_MISMATCH);
    CHECK_STR(buf_str(&err),
              "the run used wrk (WRK or the PATH) /usr/bin/wrk, this command /tmp/wrk");
    manifest_target(&now, "http://localhost:1");
    now.endpoint[1] = "c";
    now.variant[1] = "v";
    CHECK_INT(suite_manifest_check_target(&m, &now, &err), SUITE_MANIFEST_ERR_MISMATCH);
    CHECK_STR(
        buf_str(&err),
        "the run measured the candidate b labelled qat, this command c variant v labelled qat");
    /* a resume must target the inference component the run measured (none here) */
    manifest_target(&now, "http://localhost:1");
    now.component[1] = "ic1";
    CHECK_INT(suite_manifest_check_target(&m, &now, &err), SUITE_MANIFEST_ERR_MISMATCH);
    CHECK_STR(buf_str(&err), "the run measured the candidate b labelled qat, this command b "
                             "inference component ic1 labelled qat");
    suite_manifest_free(&m);
    suite_argv_free(&saved);

    /* One byte changed, and the manifest is refused. */
    char *path = strdup(tmp_path(2, "run/manifest.json"));
    char *text = read_file(path);
    CHECK(text != NULL);
    char *at = text ? strstr(text, "http://localhost:1") : NULL;
    if (at) at[7] = 'e'; /* http://localhost:1 -> http://eocalhost:1 */
    write_file(path, text ? text : "");
    suite_manifest_init(&m);
    CHECK_INT(suite_manifest_load(&m, dir, &err), 0);
    CHECK_INT(suite_manifest_verify(&m, &seal, &err), SUITE_MANIFEST_ERR_SEAL);
    char want[2048];
    snprintf(want, sizeof want,
             "%s was changed since sm-suite wrote it, or written by another user or on another "
             "machine (its seal does not match, %s.seal): refusing to run what it says",
             path, path);
    CHECK_STR(buf_str(&err), want);
    suite_manifest_free(&m);
    /* Saved without a seal (the key could not be kept): refused as such. */
    const char *dir2 = tmp_path(3, "run2");
    CHECK_INT(mkdir(dir2, 0755), 0);
    manifest_write(dir2, "--region|us-east-1|--baseline|a|--candidate|b|--scenarios|decode", NULL);
    suite_manifest_init(&m);
    CHECK_INT(suite_manifest_load(&m, dir2, &err), 0);
    CHECK_INT(suite_manifest_verify(&m, &seal, &err), SUITE_MANIFEST_ERR_SEAL);
    snprintf(want, sizeof want,
             "%s/manifest.json has no seal (%s/manifest.json.seal): the run could not keep the "
             "key that seals it, or sm-suite did not write it for this user: refusing to run "
             "what it says",
             dir2, dir2);
    CHECK_STR(buf_str(&err), want);
    suite_manifest_free(&m);
    /* Not a manifest; none at all. */
    write_file(path, "{\"format\":\"x\"}");
    suite_manifest_init(&m);
    CHECK_INT(suite_manifest_load(&m, dir, &err), SUITE_MANIFEST_ERR_FORMAT);
    snprintf(want, sizeof want, "%s: not a sm-suite manifest", path);
    CHECK_STR(buf_str(&err), want);
    suite_manifest_free(&m);
    unlink(path);
    suite_manifest_init(&m);
    CHECK_INT(suite_manifest_load(&m, dir, &err), SUITE_MANIFEST_ERR_FORMAT);
    snprintf(want, sizeof want, "%s: no such file (not a sm-suite run directory)", path);
    CHECK_STR(buf_str(&err), want);
    suite_manifest_free(&m);
    free(text);
    free(path);
    suite_seal_close(&seal);
    buf_free(&b);
    buf_free(&err);
}

/* ---- suite_progress -------------------------------------------------------- */

static void test_progress(void) {
    static const struct {
        const char *line, *scenario;
        bool ok;
        long done, total, failed;
    } cases[] = {
        {"decode: 4/20 done, 1 failed, 3.1 s", "decode", true, 4, 20, 1},
        {"sweep: 12 done, 0 failed, 1.0 s", "sweep", true, 12, -1, 0},
        {"decode: 4/20 done, 1 failed, 3.1 s", "sweep", false, 0, 0, 0},
        {"decode: bf16: 10 ok, 0 failed -> x.json", "decode", false, 0, 0, 0},
        {"decode: 20 requests on 1 thread(s), sides a, b", "decode", false, 0, 0, 0},
        {"decode: partial result: interrupted", "decode", false, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long done = 0, total = 0, failed = 0;
        bool ok = suite_progress_parse(cases[i].line, cases[i].scenario, &done, &total, &failed);
        CHECK_INT(ok, cases[i].ok);
        if (!ok || !cases[i].ok) continue;
        CHECK_INT(done, cases[i].done);
        CHECK_INT(total, cases[i].total);
        CHECK_INT(failed, cases[i].failed);
    }
    static const struct {
        struct suite_progress_work e;
        bool ok;
        double left;
    } etas[] = {
        {{0, 0, 0, 100, 0, 300, 0, 0, 0, 0}, false, 0},     /* nothing done, nothing known */
        {{0, 0, 0.5, 100, 0.5, 300, 0, 0, 0, 0}, false, 0}, /* too soon in the first step */
        {{0, 0, 10, 100, 0.25, 300, 0, 0, 0, 0}, true, 30 + 120},
        {{20, 100, 0, 0, 0, 300, 0, 0, 0, 0}, true, 60},    /* between steps: the pace so far */
        {{20, 100, 5, 100, 0, 0, 0, 0, 0, 0}, true, 15},    /* the running step at that pace */
        {{20, 100, 30, 100, 0, 100, 0, 0, 0, 0}, true, 20}, /* a step slower than expected */
        {{20, 100, 10, 100, 0.5, 100, 0, 0, 0, 0}, true, 10 + 20},
        {{20, 100, 0, 0, 0, 0, 0, 0, 0, 0}, true, 0},
        /* Timed steps (issue 29): an open-loop rate of 20 s at --time-scale 10 lasts
         * 2 s whatever its requests' tokens; closed-loop work is paced apart. */
        {{30, 1000, 1, 0, 0.5, 0, 2, 2, 0, 0}, true, 1 + 2}, /* 1 s into 2 s, one more rate */
        {{30, 1000, 1, 0, 0, 0, 2, 2, 0, 0}, true, 1 + 2},   /* its progress unknown: the same */
        {{30, 1000, 2.5, 0, 0.9, 0, 2, 0, 0, 0}, true, 0}, /* its last replies, past its schedule */
        {{0, 0, 1, 0, 0, 0, 2, 4, 0, 0}, true, 1 + 4},     /* timed steps only: no pace needed */
        {{0, 0, 1, 0, 0, 100, 2, 4, 0, 0}, false, 0},      /* closed-loop work after, no pace */
        {{20, 100, 0, 0, 0, 0, 0, 6, 0, 0}, true, 6},      /* between steps: timed ones left */
        /* a closed-loop step running, closed-loop work and a timed step after it */
        {{20, 100, 5, 100, 0, 100, 0, 8, 0, 0}, true, 15 + 20 + 8},
        /* 1 reply of 100 in after 2 s: not 198 s, mostly the pace's 18 */
        {{20, 100, 2, 100, 0.01, 0, 0, 0, 0, 0}, true, 0.01 * 198 + 0.99 * 18},
        /* timed steps done took 1.5 times their schedules: so do those to come */
        {{20, 100, 1, 0, 0, 0, 2, 4, 6, 9}, true, (3 - 1) + 6},
    };
    for (size_t i = 0; i < sizeof etas / sizeof etas[0]; i++) {
        double left = -1;
        CHECK_INT(suite_progress_eta(&etas[i].e, &left), etas[i].ok);
        if (etas[i].ok && fabs(left - etas[i].left) > 1e-9) {
            fprintf(stderr, "eta case %zu: %g, want %g\n", i, left, etas[i].left);
            CHECK(!"the time left");
        }
    }
    static const struct {
        double s;
        const char *want;
    } clocks[] = {{0, "0:00"}, {9.4, "0:09"}, {59.6, "1:00"}, {754, "12:34"}, {3723, "1:02:03"}};
    for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
        char out[32];
        suite_progress_clock(clocks[i].s, out, sizeof out);
        CHECK_STR(out, clocks[i].want);
    }
}

/* What the progress line's estimate reads from the plan (issue 29): a closed-loop
 * step's work in tokens, a timed step's schedule in real seconds (an open-loop
 * rate's --duration over the time scale per rate and side, a capacity search's
 * probe one rate of one side, a steady sweep's rounds), never the -d bound. */
static void test_plan_sizes(void) {
    static const struct {
        const char *words;
        const char *id; /* the step */
        double weight, sched_s;
    } cases[] = {
        {"--region|r|--baseline|a|--candidate|b|--scenarios|decode,rate|--rates|12,24|"
         "--rate-duration|20|--time-scale|10|--repeats|1|--lengths|16",
         "decode", 2 * (16 + 32), 0},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|decode,rate|--rates|12,24|"
         "--rate-duration|20|--time-scale|10|--repeats|1|--lengths|16",
         "rate", 0, 2 * 2 * 20 / 10.0},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|rate|--rates|1000|"
         "--rate-duration|60|--rate-max-tokens|4000",
         "rate", 0, 2 * 60},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|rate|--capacity-search|8:64|"
         "--slo|ttft:p90:1|--rate-duration|30|--time-scale|5",
         "rate-search-1", 0, 30 / 5.0},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|sweep|--levels|2|--mode|steady|"
         "--duration|15|--batches|3",
         "sweep-c2", 0, 2 * 3 * 15},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|sweep|--levels|2|--batches|3|"
         "--sweep-max-tokens|100",
         "sweep-c2", 2 * 3 * (100 + 32), 0},
    };
    struct suite_plan_tools t = {"wrk", "sm-compare", "/s", NULL, "sm-stream"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct suite_opts o;
        struct suite_plan p;
        struct buf err;
        char *copy;
        buf_init(&err, 1024);
        if (parse(cases[i].words, &o, &err, &copy) < 0) {
            fprintf(stderr, "plan size case %zu: %s\n", i, buf_str(&err));
            CHECK(!"the options parse");
        } else if (suite_plan_build(&o, &t, 40, "r", &p) == 0) {
            bool seen = false;
            for (size_t k = 0; k < p.n; k++) {
                if (strcmp(p.steps[k].id, cases[i].id) != 0) continue;
                seen = true;
                if (fabs(p.steps[k].weight - cases[i].weight) > 1e-9 ||
                    fabs(p.steps[k].sched_s - cases[i].sched_s) > 1e-9) {
                    fprintf(stderr,
                            "plan size case %zu (%s): weight %g, schedule %g s; want %g, %g\n", i,
                            cases[i].id, p.steps[k].weight, p.steps[k].sched_s, cases[i].weight,
                            cases[i].sched_s);
                    CHECK(!"the step's size");
                }
            }
            CHECK(seen);
            suite_plan_free(&p);
        }
        suite_opts_free(&o);
        buf_free(&err);
        free(copy);
    }
}

/* The sm-endpoint commands of --deploy, --delete-after and the check, and what
 * sm-endpoint status --json says of an endpoint. */
static void test_deploy(void) {
    struct suite_opts o;
    struct buf err, line;
    char *copy;
    struct suite_argv cmd;
    buf_init(&err, 1024);
    buf_init(&line, BUF_NO_CAP);
    suite_argv_init(&cmd);
    CHECK_INT(parse_run("--region|us-east-2|--baseline|a=bf16|--candidate|b|--deploy|--role|arn:r|"
                        "--baseline-model|org/m|--candidate-model|org/q|--instance-type|"
                        "ml.g6.xlarge,ml.g6.2xlarge|--endpoint-url|http://"
                        "e:1|--allow-plain-http|--time-scale|10|"
                        "--price-per-hour|1.5|--delete-after",
                        7, &o, &err, &copy),
              0);
    CHECK(o.deploy && o.delete_after && o.time_scale == 10);
    CHECK_INT(suite_deploy_command(&o, "sm-endpoint", "deploy", 0, "suite-r1", &cmd), 0);
    CHECK_INT(suite_argv_quote_all(&line, &cmd), 0);
    CHECK_STR(buf_str(&line),
              "sm-endpoint --endpoint-url http://e:1 --allow-plain-http --region us-east-2 "
              "--time-scale 10 deploy a --model org/m --role arn:r "
              "--instance-type ml.g6.xlarge,ml.g6.2xlarge --no-wait "
              "--price-per-hour 1.5 --run suite-r1");
    buf_reset(&line);
    /* the delete acts on what the run's deploys created only */
    CHECK_INT(suite_deploy_command(&o, "sm-endpoint", "delete", 1, "suite-r1", &cmd), 0);
    CHECK_INT(suite_argv_quote_all(&line, &cmd), 0);
    CHECK_STR(buf_str(&line),
              "sm-endpoint --endpoint-url http://e:1 --allow-plain-http --region us-east-2 "
              "--time-scale 10 delete b --yes --wait --price-per-hour 1.5 "
              "--run suite-r1");
    buf_reset(&line);
    CHECK_INT(suite_deploy_command(&o, "sm-endpoint", "status", 1, "suite-r1", &cmd), 0);
    CHECK_INT(suite_argv_quote_all(&line, &cmd), 0);
    CHECK_STR(buf_str(&line),
              "sm-endpoint --endpoint-url http://e:1 --allow-plain-http --region us-east-2 "
              "--time-scale 10 status b --json");
    /* the saved options bring nothing of the deploy back on a resume */
    for (size_t i = 0; i < o.saved.n; i++)
        CHECK(strcmp(o.saved.v[i], "--deploy") != 0 && strcmp(o.saved.v[i], "--role") != 0);
    /* sm-endpoint status --json of endpoint e (variant: the one the side targets), or
       DescribeInferenceComponent of component ic (component true) */
    static const struct {
        bool component;
        const char *json, *variant, *why;
    } rows[] = {
        {false, "{\"status\":\"InService\",\"variants\":[{\"name\":\"AllTraffic\"}]}", NULL, ""},
        {false, "{\"status\":\"InService\",\"variants\":[{\"name\":\"bf16\"}]}", "bf16", ""},
        {false, "{\"status\":\"InService\",\"variants\":[{\"name\":\"bf16\"}]}", "qat",
         "endpoint e has no production variant qat"},
        {false, "{\"status\":\"Creating\"}", NULL, "endpoint e is Creating, not InService"},
        {false, "{\"status\":\"Failed\",\"failure_reason\":\"no capacity\"}", NULL,
         "endpoint e is Failed, not InService: no capacity"},
        {false, "nonsense", NULL, "sm-endpoint status e gave no status"},
        /* an inference component: InService on the endpoint the side names */
        {true, "{\"EndpointName\":\"e\",\"InferenceComponentStatus\":\"InService\"}", NULL, ""},
        {true, "{\"EndpointName\":\"f\",\"InferenceComponentStatus\":\"InService\"}", NULL,
         "inference component ic is on endpoint f, not e"},
        {true, "{\"EndpointName\":\"e\",\"InferenceComponentStatus\":\"Creating\"}", NULL,
         "inference component ic of endpoint e is Creating, not InService"},
        {true,
         "{\"EndpointName\":\"e\",\"InferenceComponentStatus\":\"Failed\","
         "\"FailureReason\":\"no room\\non the instance\"}",
         NULL,
         "inference component ic of endpoint e is Failed, not InService: no room?on the instance"},
        {true, "[]", NULL, "DescribeInferenceComponent ic gave no status or endpoint"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *j = rows[i].json;
        buf_reset(&err);
        int rc = rows[i].component ? suite_deploy_judge_component(j, strlen(j), "e", "ic", &err)
                                   : suite_deploy_judge(j, strlen(j), "e", rows[i].variant, &err);
        CHECK_INT(rc, rows[i].why[0] ? SUITE_DEPLOY_ERR_NOT_READY : 0);
        CHECK_STR(buf_str(&err), rows[i].why);
    }
    /* the component's failure reason is a server's text: a secret it echoes is scrubbed */
    static const char echo[] = "{\"EndpointName\":\"e\",\"InferenceComponentStatus\":\"Failed\","
                               "\"FailureReason\":\"token IQoJb3JpZ2luX2VjSUITEtoken\"}";
    CHECK_INT(scrub_add("IQoJb3JpZ2luX2VjSUITEtoken"), 0);
    buf_reset(&err);
    CHECK_INT(suite_deploy_judge_component(echo, strlen(echo), "e", "ic", &err),
              SUITE_DEPLOY_ERR_NOT_READY);
    CHECK_STR(buf_str(&err), "inference component ic of endpoint e is Failed, not InService: "
                             "token <redacted>");
    scrub_forget();
    suite_argv_free(&cmd);
    suite_opts_free(&o);
    free(copy);
    buf_free(&err);
    buf_free(&line);
}

/* A side's decode rate from its records, and what it says of a longer reply. */
static void test_rate(void) {
    struct suite_rate r;
    struct buf err;
    buf_init(&err, 1024);
    /* 16 tokens in 1.0 s, 512 in 10.92 s (median of three each; one failed record ignored):
     * 50 tokens/s and 0.68 s a call, at time scale 2 (walls are half the model's) */
    const char *json = "{\"time_scale\":2,\"records\":["
                       "{\"ok\":true,\"max_tokens\":16,\"t_start_us\":0,\"t_end_us\":400000},"
                       "{\"ok\":true,\"max_tokens\":16,\"t_start_us\":0,\"t_end_us\":500000},"
                       "{\"ok\":true,\"max_tokens\":16,\"t_start_us\":0,\"t_end_us\":600000},"
                       "{\"ok\":true,\"max_tokens\":512,\"t_start_us\":0,\"t_end_us\":5460000},"
                       "{\"ok\":true,\"max_tokens\":512,\"t_start_us\":0,\"t_end_us\":5000000},"
                       "{\"ok\":true,\"max_tokens\":512,\"t_start_us\":0,\"t_end_us\":6000000},"
                       "{\"ok\":false,\"max_tokens\":512,\"t_start_us\":0,\"t_end_us\":99000000}]}";
    CHECK_INT(suite_rate_parse(json, strlen(json), &r, &err), 0);
    CHECK(fabs(r.rate - 50) < 1e-9 && fabs(r.fixed - 0.68) < 1e-9);
    CHECK(fabs(suite_rate_seconds(&r, 256) - 5.8) < 1e-9);
    CHECK_INT(suite_rate_fits(&r, 60), 2966);
    CHECK_INT(suite_rate_parse("{\"records\":[]}", 14, &r, &err), SUITE_RATE_ERR_FORMAT);
    CHECK_STR(buf_str(&err), "no successful decode records");
    buf_free(&err);
}

/* Where the CloudWatch calls go and where their files are; a result file's window. */
static void test_cloudwatch(void) {
    static const struct {
        const char *url, *endpoint_url, *want; /* want NULL: AWS */
    } rows[] = {
        {NULL, NULL, NULL},
        {"http://127.0.0.1:8080", NULL, "http://127.0.0.1:8080"},
        {"http://127.0.0.1:8080", "http://127.0.0.1:9", "http://127.0.0.1:9"},
        {"https://runtime.sagemaker.us-east-2.amazonaws.com", NULL, NULL},
        {"https://vpce-1.runtime.sagemaker.us-east-2.vpce.AMAZONAWS.com:443/x", NULL, NULL},
        {"https://runtime.sagemaker.cn-north-1.amazonaws.com.cn", NULL, NULL},
        {"https://amazonaws.com.example", NULL, "https://amazonaws.com.example"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct suite_opts o = {.url = rows[i].url, .endpoint_url = rows[i].endpoint_url};
        const char *got = suite_cw_url(&o);
        CHECK((got == NULL) == (rows[i].want == NULL));
        if (got && rows[i].want) CHECK_STR(got, rows[i].want);
    }
    char *p = suite_cw_path("run/bf16", "sweep-c4", "metrics");
    CHECK_STR(p, "run/bf16/cloudwatch/sweep-c4.metrics.json");
    free(p);
    p = suite_cw_path("run/bf16", "queries", NULL);
    CHECK_STR(p, "run/bf16/cloudwatch/queries.json");
    free(p);
    const char *path = tmp_path(0, "window.json");
    write_file(path, "{\"format\":\"wrk-sagemaker-result\",\"version\":2,\"scenario\":"
                     "\"decode\",\"endpoint\":{\"name\":\"e\"},\"time_scale\":1,\"settings\":"
                     "{},\"started_at\":\"2026-11-30T10:28:46.250000Z\",\"ended_at\":"
                     "\"2026-11-30T10:29:46Z\",\"partial\":false,\"counts\":{}}");
    struct suite_files_result r;
    CHECK_INT(suite_files_result_read(path, &r, NULL), 0);
    CHECK(fabs(r.started - 1796034526.25) < 1e-6 && r.ended == 1796034586);
}

int main(void) {
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_argv();
    test_spec_parse();
    test_spec_check();
    test_usage_errors();
    test_scan();
    test_saved_options();
    test_plan();
    test_files();
    test_result_read();
    test_seal();
    test_lock();
    test_manifest();
    test_manifest_not_regular();
    test_progress();
    test_plan_sizes();
    test_deploy();
    test_rate();
    test_cloudwatch();
    for (int k = 0; k < 3; k++) suite_spec_free(&specs[k]);
    int rc = check_exit();
    if (rc == 0) {
        char cmd[sizeof tmp_root + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
        if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmp_root);
    }
    return rc;
}
