/* sm-suite: the reference suite (decode, the concurrency sweep, the quiz)
 * against two endpoints with plain wrk commands, then sm-compare. It knows wrk
 * and the scenarios' command lines (each scenario says which options it takes);
 * it does not load the plugin. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "readall.h"
#include "suite_crun.h"
#include "suite_deploy.h"
#include "suite_exec.h"
#include "suite_files.h"
#include "suite_lock.h"
#include "suite_manifest.h"
#include "suite_probe.h"
#include "suite_run.h"
#include "suite_tools.h"

static const char sm_suite_usage_head[] =
    "Usage: sm-suite --baseline NAME[=LABEL] --candidate NAME[=LABEL] [OPTIONS]\n"
    "       sm-suite --endpoint NAME --baseline-variant VARIANT[=LABEL]\n"
    "                --candidate-variant VARIANT[=LABEL] [OPTIONS]\n"
    "       sm-suite --resume DIR [the run's --url, --region, sides] [OPTIONS]\n"
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
    "files) and its seal manifest.json.seal, commands.sh (every command, in order), output/\n"
    "(wrk's output of each step), one folder per side (LABEL/) with the result files and\n"
    "journals, and the comparison: report.txt, report.md, report.json and chart.svg.\n"
    "\n"
    "Sides:\n"
    "  --baseline NAME[=LABEL]   the baseline endpoint; LABEL names its folder and column\n"
    "                            (default NAME)\n"
    "  --candidate NAME[=LABEL]  the candidate endpoint\n"
    "  --endpoint NAME           one endpoint whose two production variants are the sides\n"
    "                            (X-Amzn-SageMaker-Target-Variant), with:\n"
    "  --baseline-variant VARIANT[=LABEL], --candidate-variant VARIANT[=LABEL]\n"
    "  --baseline-component NAME, --candidate-component NAME\n"
    "                            the side is this inference component of its endpoint\n"
    "                            (X-Amzn-SageMaker-Inference-Component on every request of\n"
    "                            every step); it labels the side unless NAME=LABEL does\n"
    "\n"
    "Target:\n"
    "  --region REGION           the region to sign for (default: AWS_REGION, then\n"
    "                            AWS_DEFAULT_REGION)\n"
    "  --url URL                 send to URL (http:// or https://) instead of\n"
    "                            https://runtime.sagemaker.REGION.amazonaws.com, e.g. the URL\n"
    "                            sm-emulator prints\n"
    "  --allow-plain-http        sign for an http:// --url or --endpoint-url whose host is not\n"
    "                            loopback (the scenarios, sm-endpoint and the CloudWatch\n"
    "                            calls); without it sm-suite refuses such a URL before any\n"
    "                            step: the signature and session token would cross the\n"
    "                            network in clear\n"
    "\n"
    "The suite:\n"
    "  --scenarios LIST          which of decode,sweep,quiz,rate to run, in this order (default\n"
    "                            decode,sweep,quiz; rate is open-loop load at --rates R,...,\n"
    "                            -t64 -c64, or sm-stream -t1 -c512 with --stream, for the\n"
    "                            capacity at an SLO)\n"
    "  --slo METRIC:pQ:SECONDS   passed to sm-compare (repeatable, at most 8): with rate, the\n"
    "                            report gives the capacity at these SLOs\n"
    "  --max-error-rate F        passed to sm-compare with --slo\n"
    "  --min-attainment PCT      passed to sm-compare with --slo: a rate holds when at least\n"
    "                            PCT% of its requests met every SLO at once (the capacity\n"
    "                            search's criterion too)\n"
    "  --capacity-search LO:HI   with rate (and --slo): instead of --rates, search each side\n"
    "                            on its own for the highest rate at which the SLOs hold, by\n"
    "                            probes of rate.lua at one rate each (--rate-duration\n"
    "                            seconds): LO (failing: capacity < LO), HI (holding: >= HI),\n"
    "                            then the geometric middle of the bracket [highest rate held,\n"
    "                            lowest failed] until it is within 2%; the sides' probes\n"
    "                            alternate. sm-compare --format json --slo ... judges each\n"
    "                            probe's file, LABEL/rate-search-K.json; the report reads a\n"
    "                            side's probes as one curve, its capacity from the bracket\n"
    "  --search-probes N         probes per side at most, 2 to 20 (default 6)\n"
    "  --levels N,N,...          the sweep's concurrency levels, one wrk run of -t N -c N each\n"
    "                            (default 1,4,16)\n"
    "  --order ab|aba            ab (default): every step measures both sides, alternating;\n"
    "                            aba: then every step again for the baseline alone, and\n"
    "                            sm-compare reports how well its two runs agree\n"
    "  --stream                  run decode and sweep with sm-stream (streamed replies: time to\n"
    "                            first token, inter-token latency; -t1 -c N); the quiz stays\n"
    "                            on wrk. sm-stream is $SM_STREAM, else beside sm-suite, else\n"
    "                            on PATH\n"
    "  --cacert FILE             with --stream over HTTPS: the CA certificates (PEM) sm-stream\n"
    "                            trusts (wrk checks no certificate); the CloudWatch calls too\n"
    "                            (else $AWS_CA_BUNDLE, as for the AWS CLI)\n"
    "  --time-scale K            the server runs K times faster than real time (sm-emulator's\n"
    "                            --time-scale): recorded in the result files, so sm-compare\n"
    "                            reports every time and rate in real units (default 1)\n"
    "  --out DIR                 the run directory, new or empty (default\n"
    "                            runs/suite-YYYYMMDDTHHMMSSZ)\n"
    "  --resume DIR              go on with the run in DIR: its saved options, then the ones\n"
    "                            given here (a later one wins); steps whose result files are\n"
    "                            complete are skipped, an unfinished step's files are moved to\n"
    "                            DIR/interrupted/ and the step runs again. What chooses the\n"
    "                            code and where the signed requests go (--url, --region, the\n"
    "                            sides, --scenario-dir, wrk) is never taken from DIR: give it\n"
    "                            again; it must be what the run used (a stopped run prints the\n"
    "                            whole command)\n"
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
    "Scenario options, passed to every scenario of the suite that takes them; prefix one\n"
    "with decode-, sweep- or quiz- to pass it to that scenario only, e.g. --sweep-max-tokens\n"
    "128 or --quiz-temperature 0.7. sm-suite asks each scenario it runs for its options\n"
    "(wrk -t1 -c1 -d1s -s SCENARIO " SUITE_TOOLS_PROBE_URL " -- --options-json: the scenario\n"
    "prints them and wrk exits before it connects) and checks every value's type before\n"
    "anything runs; the scenario checks the rest when its step starts (a scenario's --help:\n"
    "wrk -t1 -c1 -d1s -s scenarios/decode.lua http://x -- --help). The scenarios in\n";

static const char sm_suite_usage_tail[] =
    "\n"
    "Candidates (choosing among N endpoints):\n"
    "  --candidates FILE         measure every candidate of FILE (JSON, docs/result-format.md,\n"
    "                            \"Candidates file\"): two at a time, each pair one ordinary\n"
    "                            sm-suite run in OUT/pair-K/ with the other options given here\n"
    "                            (e.g. --scenarios quiz,rate --capacity-search LO:HI --slo ...),\n"
    "                            an odd last one against itself (LABEL.aa); OUT/LABEL links to\n"
    "                            each candidate's folder. Then OUT/candidates.json and a table:\n"
    "                            capacity at the SLO with its bracket, cost per million tokens\n"
    "                            at that capacity (the file's price_per_hour x instance_count),\n"
    "                            quiz score, and the cheapest, saying so on its line when the\n"
    "                            brackets' edges alone do not decide it (another candidate's\n"
    "                            cost range overlaps its). The same command again resumes.\n"
    "                            The file's sides, prices and instances are not options then.\n"
    "                            A deploy spec (\"deploy\") is deployed for its pair and\n"
    "                            deleted after it, by sm-endpoint with --role ARN, tagged with\n"
    "                            the run's id (OUT/deployments.json names each endpoint before\n"
    "                            its deploy starts): the \"TYPE for endpoint usage\" quotas are\n"
    "                            read first and the plan told (pairs at once while the quotas\n"
    "                            hold them, else one after another); a pair that does not fit\n"
    "                            is refused (exit 2) before anything is created. Creating needs\n"
    "                            --yes (asked on a terminal). Ctrl-C leaves the named endpoints\n"
    "                            for the same command again, which deploys only what is missing.\n"
    "                            An inference component (\"inference_component\" beside its\n"
    "                            endpoint) is measured as that endpoint's side with\n"
    "                            --baseline-component or --candidate-component, checked\n"
    "                            InService before the first pair (a missing one: exit 2,\n"
    "                            nothing measured); it shares its\n"
    "                            endpoint's instances with others, so its cost is its own\n"
    "                            price_per_hour (its share of the instance-hours, which the\n"
    "                            file must give; no instance_count), never the instance's.\n"
    "The endpoints' life (by running sm-endpoint, as wrk is run):\n"
    "  --deploy                  create both endpoints first (sm-endpoint deploy: CreateModel "
    "with\n"
    "                            SM_VLLM_MODEL, CreateEndpointConfig, CreateEndpoint) and wait "
    "for\n"
    "                            them, with --baseline-model ID and --candidate-model ID (their\n"
    "                            SM_VLLM_MODEL), --role ARN and --instance-type T[,T...]\n"
    "  --delete-after            delete them at the end, however the run ends (a failure, Ctrl-C,\n"
    "                            SIGTERM; a delete waits out Creating, which SageMaker does not\n"
    "                            stop); not after kill -9\n"
    "  --endpoint-url URL        where sm-endpoint sends the control-plane calls (sm-emulator's\n"
    "                            URL; default AWS)\n"
    "  --no-endpoint-check       before a run against AWS (no --url) or with --endpoint-url,\n"
    "                            sm-suite checks that each endpoint is InService with the "
    "variants\n"
    "                            it targets (sm-endpoint status --json), and each inference\n"
    "                            component InService on it (DescribeInferenceComponent); a\n"
    "                            side that is not there is refused (exit 2); this skips it\n"
    "CloudWatch: after the steps, sm-suite fetches each side's container log (CloudWatch\n"
    "Logs FilterLogEvents) and metrics (GetMetricData, 1-minute periods) for each step's\n"
    "window into OUT/LABEL/cloudwatch/ (against AWS after waiting 150 s for the last\n"
    "minute to be published; with --url and no --endpoint-url it asks --url, as\n"
    "sm-emulator serves both); sm-compare reads them. A missing permission\n"
    "(logs:FilterLogEvents, cloudwatch:GetMetricData) is a warning, never a failure. A side\n"
    "that targets an inference component gets its variant's logs and metrics (every\n"
    "component's on it), and a note says so.\n"
    "  --no-cloudwatch           fetch nothing\n"
    "After the decode step, sm-suite warns before the other steps when a reply of their asked\n"
    "length would pass SageMaker's 60 s at a side's measured rate.\n"
    "Each wrk run is -t N -c N (one connection per thread), -d a hard cap (every reply at\n"
    "SageMaker's 60-second limit divided by --time-scale, plus a minute; a step cut short\n"
    "by it is partial and the suite goes on), --timeout 70s (above that limit),\n"
    "--progress 1. Progress: the step (done/total), its requests, the time elapsed and an\n"
    "estimate of the time left; on a terminal one line redrawn every second, elsewhere a\n"
    "line when the step's first reply is in and then every 10 seconds. At the end: the\n"
    "errors counted in the result files, then the table.\n"
    "Credentials come from the AWS chain in wrk (environment, ~/.aws, container,\n"
    "instance), and in sm-suite for the CloudWatch calls; neither prints or writes them.\n"
    "\n"
    "Ctrl-C (or SIGTERM) stops the run: wrk gets SIGINT and writes its partial result\n"
    "files; sm-suite prints how to resume and how to compare what is there. wrk never\n"
    "outlives sm-suite: if sm-suite is killed, the kernel sends wrk SIGTERM.\n"
    "\n"
    "One sm-suite at a time uses a run directory: it locks DIR/.sm-suite.lock (the kernel\n"
    "releases the lock when sm-suite and its wrk end, however they end), and a second run\n"
    "or a --resume of a directory in use is refused. manifest.json is sealed with an\n"
    "HMAC-SHA-256 under a key of yours ($XDG_CONFIG_HOME or ~/.config, then\n"
    "wrk-sagemaker/suite-seal.key, made on first use, mode 0600): --resume refuses a\n"
    "manifest changed since sm-suite wrote it, or one sealed by another user.\n"
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
    "-d), or sm-compare failed; 2 bad usage (one line on standard error), a run directory in\n"
    "use, a --resume refused, or a scenario refused its options; 130 stopped by Ctrl-C or\n"
    "SIGTERM.\n";

/* Everything main owns. */
struct sm_suite_state {
    struct suite_opts scan;    /* the suite's own options, read first */
    struct suite_opts o;       /* everything, read with the scenarios' options */
    struct suite_argv saved;   /* a resume's options, as its manifest has them */
    struct suite_argv words;   /* those without the guarded ones, then this command line */
    struct suite_argv invoked; /* this command line */
    struct suite_tools tools;
    struct suite_plan_tools t;
    struct suite_manifest m; /* a resume's, loaded */
    struct suite_seal seal;
    bool sealed; /* seal holds a key */
    struct suite_manifest_target target;
    char *out;
    int lock; /* the run directory's lock, -1: none */
    struct suite_plan p;
    struct buf err;
};

__attribute__((format(printf, 1, 2))) static int sm_suite_fail(const char *fmt, ...) {
    va_list ap;
    fputs("sm-suite: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* --help: the text, with the scenario options the scenarios say they take. */
static int sm_suite_help(struct sm_suite_state *s) {
    struct buf b;
    int rc = suite_tools_find(&s->tools, s->scan.scenario_dir, &s->err);
    for (unsigned k = 0; rc == 0 && k < SUITE_OPTS_NSCENARIOS; k++)
        rc = suite_tools_probe(&s->tools, 1u << k, &s->err);
    buf_init(&b, BUF_NO_CAP);
    int brc = buf_adds(&b, sm_suite_usage_head);
    if (brc == BUF_OK && rc == 0) brc = buf_addf(&b, "%s take:\n", s->tools.scenario_real);
    if (brc == BUF_OK && rc == 0) brc = suite_tools_help(&s->tools, &b);
    if (brc == BUF_OK && rc < 0)
        brc = buf_addf(&b, "the scenario folder cannot be asked here: %s\n", buf_str(&s->err));
    if (brc == BUF_OK) brc = buf_adds(&b, sm_suite_usage_tail);
    rc = brc == BUF_OK && fwrite(buf_str(&b), 1, b.len, stdout) == b.len ? 0 : 1;
    buf_free(&b);
    return rc;
}

/* A resume's manifest: locked (unless a dry run), read, and its seal checked. */
static int sm_suite_load(struct sm_suite_state *s, const char *dir) {
    char *key = NULL, *manifest;
    if (suite_files_dir_state(dir, NULL) != SUITE_FILES_DIR_FULL)
        return sm_suite_fail("--resume %s: no such run directory", dir);
    if (asprintf(&manifest, "%s/manifest.json", dir) < 0) return sm_suite_fail("out of memory");
    bool lock = !s->scan.dry_run && access(manifest, F_OK) == 0;
    free(manifest);
    if (lock && suite_lock_take(dir, &s->lock, &s->err) < 0)
        return sm_suite_fail("--resume: %s; wait for it to end, or stop it", buf_str(&s->err));
    if (suite_manifest_load(&s->m, dir, &s->err) < 0)
        return sm_suite_fail("--resume: %s", buf_str(&s->err));
    int rc = suite_seal_key_path(&key, &s->err);
    if (rc == 0) rc = suite_seal_open(&s->seal, key, false, &s->err);
    free(key);
    s->sealed = rc == 0;
    if (rc < 0)
        return sm_suite_fail("--resume %s: cannot check that its manifest is unchanged: %s", dir,
                             buf_str(&s->err));
    if (suite_manifest_verify(&s->m, &s->seal, &s->err) < 0 ||
        suite_manifest_options(&s->m, &s->saved, &s->err) < 0)
        return sm_suite_fail("--resume: %s", buf_str(&s->err));
    return 0;
}

/* "sm-suite --resume DIR" and the guarded options of list. */
static int sm_suite_resume_line(const char *dir, const struct suite_argv *list, struct buf *b) {
    struct suite_argv guarded;
    suite_argv_init(&guarded);
    int rc = suite_opts_guarded(list, true, &guarded) == 0 ? buf_adds(b, "sm-suite --resume ")
                                                           : BUF_ERR_NOMEM;
    if (rc == BUF_OK) rc = suite_argv_quote(b, dir);
    if (rc == BUF_OK && guarded.n) rc = buf_addc(b, ' ');
    if (rc == BUF_OK) rc = suite_argv_quote_all(b, &guarded);
    suite_argv_free(&guarded);
    return rc;
}

/* Whether the words name a side (--baseline, --candidate, --endpoint, --*-variant). */
static bool sm_suite_names_sides(const struct suite_argv *words) {
    static const char *const sides[] = {"--baseline", "--candidate", "--endpoint"};
    for (size_t i = 0; i < words->n; i++)
        for (size_t k = 0; k < sizeof sides / sizeof sides[0]; k++)
            if (strncmp(words->v[i], sides[k], strlen(sides[k])) == 0) return true;
    return false;
}

/* The words to read on a resume: its saved options without those that choose
 * code or destination (they come from this command line only), then this
 * command line, which must name the sides at least. */
static int sm_suite_words(struct sm_suite_state *s, int argc, char **argv) {
    const char *dir = s->scan.resume;
    struct suite_argv given, mine;
    struct buf line;
    suite_argv_init(&given);
    suite_argv_init(&mine);
    buf_init(&line, BUF_NO_CAP);
    bool ok = suite_argv_addv(&given, argv + 1, (size_t)argc - 1) == 0 &&
              suite_opts_guarded(&s->saved, false, &s->words) == 0 &&
              suite_argv_addv(&s->words, argv + 1, (size_t)argc - 1) == 0 &&
              suite_opts_guarded(&given, true, &mine) == 0;
    int rc = ok ? 0 : sm_suite_fail("out of memory");
    if (ok && !sm_suite_names_sides(&mine))
        rc = sm_suite_resume_line(dir, &s->saved, &line) == BUF_OK
                 ? sm_suite_fail("--resume %s: give the run's target again, as %s/manifest.json "
                                 "says: %s",
                                 dir, dir, buf_str(&line))
                 : sm_suite_fail("out of memory");
    suite_argv_free(&given);
    suite_argv_free(&mine);
    buf_free(&line);
    return rc;
}

/* Reads the options: the suite's own first, then the scenarios' by what each
 * scenario says it takes. */
static int sm_suite_parse(struct sm_suite_state *s, int argc, char **argv) {
    const char *region = getenv("AWS_REGION");
    int rc;
    if (!region || !*region) region = getenv("AWS_DEFAULT_REGION");
    if (s->scan.resume &&
        ((rc = sm_suite_load(s, s->scan.resume)) || (rc = sm_suite_words(s, argc, argv))))
        return rc;
    if (!s->scan.resume && suite_argv_addv(&s->words, argv + 1, (size_t)argc - 1) < 0)
        return sm_suite_fail("out of memory");
    suite_opts_free(&s->scan);
    if (suite_opts_scan(s->words.v, s->words.n, &s->scan, &s->err) < 0)
        return sm_suite_fail("%s", buf_str(&s->err));
    if (suite_tools_find(&s->tools, s->scan.scenario_dir, &s->err) < 0)
        return sm_suite_fail("%s", buf_str(&s->err));
    const struct suite_spec *spec[SUITE_OPTS_NSCENARIOS] = {NULL};
    for (int i = 0; i < s->scan.nscenarios; i++) {
        int k = __builtin_ctz(s->scan.order[i]);
        if (suite_tools_probe(&s->tools, s->scan.order[i], &s->err) < 0)
            return sm_suite_fail("%s", buf_str(&s->err));
        spec[k] = &s->tools.spec[k];
    }
    if (suite_opts_parse(s->words.v, s->words.n, region, spec, &s->o, &s->err) < 0)
        return sm_suite_fail(
            "%s%s%s%s", buf_str(&s->err), s->scan.resume ? " (with the options saved in " : "",
            s->scan.resume ? s->scan.resume : "", s->scan.resume ? "/manifest.json)" : "");
    return 0;
}

/* The run directory: --resume's, --out's (new or empty), or a new one. */
static int sm_suite_out_dir(struct sm_suite_state *s) {
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    if (s->o.resume) {
        s->out = strdup(s->o.resume);
    } else if (s->o.out) {
        s->out = strdup(s->o.out);
        int st = suite_files_dir_state(s->out, SUITE_LOCK_FILE);
        if (st == SUITE_FILES_DIR_FULL)
            return sm_suite_fail("%s already holds files: continue that run with --resume %s, "
                                 "or choose another --out",
                                 s->out, s->out);
        if (st == SUITE_FILES_DIR_OTHER) return sm_suite_fail("--out %s is not a folder", s->out);
    } else {
        gmtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
        if (asprintf(&s->out, "runs/suite-%s", stamp) < 0) s->out = NULL;
    }
    size_t n = s->out ? strlen(s->out) : 0;
    while (n > 1 && s->out[n - 1] == '/') s->out[--n] = '\0';
    return s->out ? 0 : sm_suite_fail("out of memory");
}

static int sm_suite_check_facts(const struct sm_suite_state *s) {
    static const char *const opt[] = {"--facts-baseline", "--facts-candidate"};
    for (int k = 0; k < 2; k++)
        if (s->o.facts[k] && !s->o.resume && !s->o.deploy && access(s->o.facts[k], R_OK) != 0)
            return sm_suite_fail("%s: cannot read %s: %s", opt[k], s->o.facts[k], strerror(errno));
    return 0;
}

/* The number of questions of the quiz the suite runs (40 for the default one). */
static int sm_suite_questions(const struct sm_suite_state *s, int *n) {
    const char *given = suite_opts_value(&s->o, SUITE_OPTS_QUIZ, "--quiz");
    const char *path = suite_opts_setting(&s->o, SUITE_OPTS_QUIZ, "--quiz");
    struct buf b;
    buf_init(&b, (size_t)64 << 20);
    int rc = path ? readall_path(path, &b) : -1;
    cJSON *root = rc == 0 ? cJSON_ParseWithLength(buf_str(&b), b.len) : NULL;
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(root, "questions");
    *n = cJSON_IsArray(q) ? cJSON_GetArraySize(q) : 0;
    rc = 0;
    if (*n == 0 && given)
        rc = sm_suite_fail("--quiz: %s is not a quiz file (an object with a non-empty "
                           "\"questions\" list)",
                           given);
    if (*n == 0) *n = 40;
    cJSON_Delete(root);
    buf_free(&b);
    return rc;
}

/* The sm-endpoint commands of verb for both sides, for --dry-run. */
static int sm_suite_dry_endpoints(const struct sm_suite_state *s, const char *verb, struct buf *b) {
    struct suite_argv cmd;
    suite_argv_init(&cmd);
    int rc = buf_addf(b, "# %s the endpoints\n", verb);
    for (int k = 0; rc == BUF_OK && k < 2; k++) {
        if (suite_deploy_command(&s->o, s->tools.endpoint ? s->tools.endpoint : "sm-endpoint", verb,
                                 k, "RUN_ID", &cmd)) /* the run's id is made when it deploys */
            rc = BUF_ERR_NOMEM;
        if (rc == BUF_OK) rc = suite_argv_quote_all(b, &cmd);
        if (rc == BUF_OK) rc = buf_addc(b, '\n');
    }
    suite_argv_free(&cmd);
    return rc;
}

/* A probe of the capacity search: the first two (LO, HI) with their commands
 * and the verdict's; the later ones' rates depend on the verdicts. */
static int sm_suite_dry_probe(const struct sm_suite_state *s, size_t i, struct buf *b) {
    const struct suite_plan *p = &s->p;
    const struct suite_plan_step *st = &p->steps[i];
    if (st->probe > 2)
        return buf_addf(b,
                        "# [%zu/%zu] %s: bisection between the highest rate of %s that held and "
                        "the lowest that failed, unless the search ended\n",
                        i + 1, p->n, st->title, s->o.side[st->side].label);
    int rc = buf_addf(b, "# [%zu/%zu] %s: %s%s\n", i + 1, p->n, st->title,
                      st->probe == 1 ? "LO" : "HI", st->probe == 2 ? ", if LO held" : "");
    if (rc == BUF_OK) rc = suite_plan_command_line(&s->t, &st->cmd, true, b);
    if (rc == BUF_OK) rc = buf_adds(b, "\n# its verdict\n");
    struct suite_argv cmd;
    char *file = suite_plan_result(p, st, st->side);
    suite_argv_init(&cmd);
    if (rc == BUF_OK && (!file || suite_probe_command(&s->o, s->t.compare, file, &cmd) < 0))
        rc = BUF_ERR_NOMEM;
    if (rc == BUF_OK) rc = suite_plan_command_line(&s->t, &cmd, false, b);
    if (rc == BUF_OK) rc = buf_addc(b, '\n');
    suite_argv_free(&cmd);
    free(file);
    return rc;
}

static int sm_suite_dry_run(const struct sm_suite_state *s) {
    const struct suite_plan *p = &s->p;
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = buf_addf(&b, "# sm-suite --dry-run: %zu steps, then sm-compare; run directory %s\n",
                      p->n, s->out);
    if (rc == BUF_OK && s->o.deploy) rc = sm_suite_dry_endpoints(s, "deploy", &b);
    if (rc == BUF_OK && s->o.deploy) rc = sm_suite_dry_endpoints(s, "wait", &b);
    for (size_t i = 0; rc == BUF_OK && i < p->n; i++) {
        int present;
        if (p->steps[i].probe) {
            rc = sm_suite_dry_probe(s, i, &b);
            continue;
        }
        bool done = s->o.resume && suite_run_step_complete(p, i, &present, NULL);
        rc = buf_addf(&b, "# [%zu/%zu] %s%s\n", i + 1, p->n, p->steps[i].title,
                      done ? ": complete, would be skipped" : "");
        if (rc == BUF_OK) rc = suite_plan_command_line(&s->t, &p->steps[i].cmd, true, &b);
        if (rc == BUF_OK) rc = buf_addc(&b, '\n');
    }
    if (rc == BUF_OK) rc = buf_adds(&b, "# the comparison\n");
    for (int k = 0; rc == BUF_OK && k < SUITE_PLAN_NCMP; k++) {
        rc = suite_plan_command_line(&s->t, &p->compare[k], false, &b);
        if (rc == BUF_OK) rc = buf_addc(&b, '\n');
    }
    if (rc == BUF_OK && s->o.delete_after) rc = sm_suite_dry_endpoints(s, "delete", &b);
    rc = rc == BUF_OK && fwrite(buf_str(&b), 1, b.len, stdout) == b.len ? 0 : 1;
    buf_free(&b);
    return rc;
}

/* What this session runs and where it sends: the plan's, for the manifest. */
static void sm_suite_target(struct sm_suite_state *s) {
    struct suite_manifest_target *t = &s->target;
    t->wrk = s->tools.wrk_path;
    t->scenario_dir = s->tools.scenario_real;
    t->url = s->p.url;
    t->region = s->o.region;
    for (int k = 0; k < 2; k++) {
        t->endpoint[k] = s->o.side[k].name;
        t->variant[k] = s->o.variants ? s->o.side[k].variant : NULL;
        t->component[k] = s->o.side[k].component[0] ? s->o.side[k].component : NULL;
        t->label[k] = s->o.side[k].label;
    }
}

/* A resume must run the same code against the same target as the run did. */
static int sm_suite_check_resume(struct sm_suite_state *s) {
    struct buf line;
    if (!s->o.resume || suite_manifest_check_target(&s->m, &s->target, &s->err) == 0) return 0;
    buf_init(&line, BUF_NO_CAP);
    int rc = sm_suite_resume_line(s->o.resume, &s->saved, &line) == BUF_OK
                 ? sm_suite_fail("--resume %s: %s (%s/manifest.json): resume with the run's own, "
                                 "%s, or start a new run with --out",
                                 s->o.resume, buf_str(&s->err), s->o.resume, buf_str(&line))
                 : sm_suite_fail("out of memory");
    buf_free(&line);
    return rc;
}

/* A new run's directory: made, locked, and still empty once locked. */
static int sm_suite_lock_new(struct sm_suite_state *s) {
    if (suite_files_mkdirs(s->out, &s->err) < 0) return sm_suite_fail("%s", buf_str(&s->err));
    if (suite_lock_take(s->out, &s->lock, &s->err) < 0)
        return sm_suite_fail("--out: %s; wait for it to end, or stop it", buf_str(&s->err));
    if (suite_files_dir_state(s->out, SUITE_LOCK_FILE) == SUITE_FILES_DIR_FULL)
        return sm_suite_fail("%s already holds files: continue that run with --resume %s, or "
                             "choose another --out",
                             s->out, s->out);
    char *key = NULL;
    int rc = suite_seal_key_path(&key, &s->err);
    if (rc == 0) rc = suite_seal_open(&s->seal, key, true, &s->err);
    free(key);
    s->sealed = rc == 0;
    if (rc < 0)
        fprintf(stderr,
                "sm-suite: warning: %s: manifest.json is not sealed, so --resume will "
                "refuse this run\n",
                buf_str(&s->err));
    return 0;
}

static int sm_suite_run(struct sm_suite_state *s, int argc, char **argv) {
    int rc, questions = 40;
    if (suite_crun_asked(argv + 1, (size_t)argc - 1) &&
        !suite_crun_asked_help(argv + 1, (size_t)argc - 1))
        return suite_crun_main(argc, argv, suite_tools_find_endpoint);
    if (suite_opts_scan(argv + 1, (size_t)argc - 1, &s->scan, &s->err) < 0)
        return sm_suite_fail("%s", buf_str(&s->err));
    if (s->scan.help) return sm_suite_help(s);
    if (s->scan.version) return printf("sm-suite (wrk-sagemaker) %s\n", SM_VERSION) < 0;
    if ((rc = sm_suite_parse(s, argc, argv)) || (rc = sm_suite_out_dir(s)) ||
        (rc = sm_suite_check_facts(s)))
        return rc;
    s->t = (struct suite_plan_tools){s->tools.wrk, s->tools.compare, s->tools.scenario_dir,
                                     s->tools.plugin, s->tools.stream};
    if (s->o.stream && !s->tools.stream)
        return sm_suite_fail("--stream: sm-stream not found beside sm-suite or on PATH: build it, "
                             "or set SM_STREAM");
    for (int i = 0; i < s->o.nscenarios; i++)
        if (s->o.order[i] == SUITE_OPTS_QUIZ && (rc = sm_suite_questions(s, &questions))) return rc;
    if (suite_argv_addv(&s->invoked, argv, (size_t)argc) < 0 ||
        suite_plan_build(&s->o, &s->t, questions, s->out, &s->p) < 0)
        return sm_suite_fail("out of memory");
    sm_suite_target(s);
    if ((rc = sm_suite_check_resume(s))) return rc;
    if (s->o.dry_run) return sm_suite_dry_run(s);
    if (!s->o.resume && (rc = sm_suite_lock_new(s))) return rc;
    struct suite_run_job job = {&s->o,      &s->t,   &s->p,
                                &s->target, &s->m,   s->sealed ? &s->seal : NULL,
                                s->out,     argv[0], &s->invoked};
    struct suite_deploy dep = {&s->o, s->tools.endpoint, {false, false}, ""};
    rc = s->o.deploy ? suite_deploy_up(&dep, &s->err) : 0;
    if (!rc) rc = suite_deploy_check(&s->o, s->tools.endpoint, &s->err);
    if (rc) {
        fprintf(stderr, "sm-suite: %s\n", buf_str(&s->err));
        /* a side that is not there or not InService is refused as bad input */
        rc = rc == SUITE_DEPLOY_ERR_STOPPED ? 130 : rc == SUITE_DEPLOY_ERR_NOT_READY ? 2 : 1;
    } else {
        rc = suite_run(&job);
    }
    if (s->o.delete_after && suite_deploy_down(&dep) && rc == 0) rc = 1;
    return rc;
}

int main(int argc, char **argv) {
    struct sm_suite_state s;
    memset(&s, 0, sizeof s);
    suite_argv_init(&s.saved);
    suite_argv_init(&s.words);
    suite_argv_init(&s.invoked);
    suite_tools_init(&s.tools);
    suite_manifest_init(&s.m);
    buf_init(&s.err, 4096);
    s.lock = -1;
    int rc = suite_exec_init(&s.err) < 0 ? sm_suite_fail("%s", buf_str(&s.err))
                                         : sm_suite_run(&s, argc, argv);
    suite_lock_release(s.lock);
    suite_plan_free(&s.p);
    suite_opts_free(&s.o);
    suite_opts_free(&s.scan);
    suite_argv_free(&s.saved);
    suite_argv_free(&s.words);
    suite_argv_free(&s.invoked);
    suite_tools_free(&s.tools);
    suite_manifest_free(&s.m);
    suite_seal_close(&s.seal);
    free(s.out);
    buf_free(&s.err);
    return rc;
}
