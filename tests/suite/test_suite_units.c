/* Unit tests of sm-suite's pure parts: shell quoting, the options and their
 * routing to the scenarios, the plan's commands, and the progress line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "suite_opts.h"
#include "suite_plan.h"
#include "suite_progress.h"

static void test_quote(void) {
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
        CHECK_INT(suite_quote(&b, cases[i].in), BUF_OK);
        CHECK_STR(buf_str(&b), cases[i].want);
        buf_free(&b);
    }
}

/* Parses a command line given as one string of words separated by '|'. */
static int parse(const char *line, struct suite_opts *o, char *err, size_t len, char **copy) {
    char *words[64];
    size_t n = 0;
    *copy = strdup(line);
    for (char *w = strtok(*copy, "|"); w && n < 64; w = strtok(NULL, "|")) words[n++] = w;
    return suite_opts_parse(words, n, NULL, o, err, len);
}

static void test_usage_errors(void) {
    static const struct {
        const char *words, *err;
    } cases[] = {
        {"--baseline|a|--candidate|b", "no region: pass --region REGION (or set AWS_REGION)"},
        {"--region|r|--baseline|a", "no candidate: pass --candidate NAME"},
        {"--region|r", "no endpoints: pass --baseline NAME --candidate NAME (or --endpoint NAME "
                       "--baseline-variant A --candidate-variant B)"},
        {"--region|r|--baseline|a|--candidate|a", "the baseline and the candidate share the "
                                                  "label 'a': name them with NAME=LABEL"},
        {"--region|r|--baseline|a_b|--candidate|b",
         "--baseline: 'a_b' is not a SageMaker endpoint name (letters, digits and inner '-', at "
         "most 63)"},
        {"--region|r|--baseline|a=..|--candidate|b",
         "--baseline: the label '..' may hold only letters, digits, '.', '_' and '-', not start "
         "with '.', and not be the name of a file of the run directory"},
        {"--region|r|--baseline|a=report.md|--candidate|b",
         "--baseline: the label 'report.md' may hold only letters, digits, '.', '_' and '-', not "
         "start with '.', and not be the name of a file of the run directory"},
        {"--region|r|--baseline-variant|A|--candidate-variant|B",
         "--baseline-variant and --candidate-variant need --endpoint NAME"},
        {"--region|r|--baseline|a|--candidate|b|--endpoint|e",
         "give two endpoints (--baseline, --candidate) or two variants of one (--endpoint, "
         "--baseline-variant, --candidate-variant), not both"},
        {"--region|r|--baseline|a|--candidate|b|--repeats|0",
         "--repeats wants a whole number >= 1, got '0'"},
        {"--region|r|--baseline|a|--candidate|b|--levels|1,x", "--levels wants at most 16 whole "
                                                               "numbers >= 1 separated by commas, "
                                                               "got '1,x'"},
        {"--region|r|--baseline|a|--candidate|b|--levels|4,4", "--levels names 4 twice"},
        {"--region|r|--baseline|a|--candidate|b|--order|ba", "--order must be ab or aba, got 'ba'"},
        {"--region|r|--baseline|a|--candidate|b|--time-scale|0",
         "--time-scale wants a number > 0, got '0'"},
        {"--region|r|--baseline|a|--candidate|b|--format|raw",
         "--format must be vllm-chat|vllm-completions|tgi|lmi, got 'raw'"},
        {"--region|r|--baseline|a|--candidate|b|--extra|[1]",
         "--extra must be a JSON object, got '[1]'"},
        {"--region|r|--baseline|a|--candidate|b|--mode|steady",
         "--duration goes with --mode steady, and --mode steady needs --duration"},
        {"--region|r|--baseline|a|--candidate|b|--lengths|16", "--lengths needs two or more "
                                                               "lengths, got '16'"},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|quiz|--repeats|3",
         "--repeats is an option of decode, which this suite does not run (--scenarios)"},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|quiz|--prompt|x",
         "--prompt is an option of decode and sweep, which this suite does not run (--scenarios)"},
        {"--region|r|--baseline|a|--candidate|b|--scenarios|decode,decode",
         "--scenarios wants decode, sweep and quiz, each at most once, separated by commas; got "
         "'decode,decode'"},
        {"--region|r|--baseline|a|--candidate|b|--quiz-repeats|3",
         "unknown option --quiz-repeats (see sm-suite --help)"},
        {"--region|r|--baseline|a|--candidate|b|--label|x",
         "unknown option --label (see sm-suite --help)"},
        {"--region|r|--baseline|a|--candidate|b|extra", "unexpected word 'extra' (options start "
                                                        "with --; see sm-suite --help)"},
        {"--region|r|--baseline", "--baseline wants a value"},
        {"--region|r|--baseline|a|--candidate|b|--dry-run=1", "--dry-run takes no value"},
        {"--region|R|--baseline|a|--candidate|b", "--region wants a region such as us-east-2, "
                                                  "got 'R'"},
        {"--region|r|--baseline|a|--candidate|b|--url|ftp://x",
         "--url wants an http:// or https:// URL, got 'ftp://x'"},
        {"--region|r|--baseline|a|--candidate|b|--out|x|--resume|y",
         "--out and --resume do not go together"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct suite_opts o;
        char err[512] = "", *copy;
        int rc = parse(cases[i].words, &o, err, sizeof err, &copy);
        CHECK_INT(rc, -1);
        CHECK_STR(err, cases[i].err);
        suite_opts_free(&o);
        free(copy);
    }
}

/* A plan's commands, one per line, with the words of every step and compare. */
static char *plan_text(const char *words, const char *out) {
    struct suite_opts o;
    struct suite_plan p;
    char err[512], *copy;
    struct suite_tools t = {"wrk", "sm-compare", "/s", NULL};
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    if (parse(words, &o, err, sizeof err, &copy) < 0) {
        fprintf(stderr, "%s\n", err);
        CHECK(!"the options parse");
    } else if (suite_plan_build(&o, &t, 40, out, &p) == 0) {
        for (size_t i = 0; i < p.n; i++) {
            CHECK(suite_plan_command_line(&t, &p.steps[i].cmd, true, &b) == BUF_OK);
            CHECK(buf_addf(&b, "  # %s %s\n", p.steps[i].id, p.steps[i].title) == BUF_OK);
        }
        for (int k = 0; k < SUITE_NCMP; k++) {
            CHECK(suite_plan_command_line(&t, &p.compare[k], false, &b) == BUF_OK);
            CHECK(buf_addc(&b, '\n') == BUF_OK);
        }
        suite_plan_free(&p);
    }
    suite_opts_free(&o);
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
         "wrk -t1 -c1 -d5m --timeout 70s -s /s/sweep.lua "
         "https://runtime.sagemaker.us-east-2.amazonaws.com -- --endpoint a --endpoint b=qat "
         "--region us-east-2 --out 'r/{label}/sweep-c1.json' --progress 1 --max-tokens 128 "
         "--temperature 0.5  # sweep-c1 sweep c1\n"
         "wrk -t4 -c4 -d5m --timeout 70s -s /s/sweep.lua "
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
        /* a count beyond an int still gives a cap of every reply at the limit */
        {"--region|r|--baseline|a|--candidate|b|--scenarios|decode|--repeats|3000000000",
         "wrk -t1 -c1 -d12000000001m --timeout 70s -s /s/decode.lua "
         "https://runtime.sagemaker.r.amazonaws.com -- --endpoint a --endpoint b --region r "
         "--out 'r/{label}/decode.json' --progress 1 --repeats 3000000000  # decode decode\n"
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

static void test_saved_options(void) {
    struct suite_opts o;
    char err[256], *copy;
    CHECK_INT(parse("--region|r|--out|x|--baseline=a|--candidate|b|--dry-run|--repeats|2", &o, err,
                    sizeof err, &copy),
              0);
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    CHECK(suite_quote_argv(&b, &o.saved) == BUF_OK);
    CHECK_STR(buf_str(&b), "--region r --baseline=a --candidate b --repeats 2");
    CHECK_STR(suite_opts_value(&o, SUITE_DECODE, "--repeats"), "2");
    CHECK(suite_opts_value(&o, SUITE_SWEEP, "--repeats") == NULL);
    buf_free(&b);
    suite_opts_free(&o);
    free(copy);
}

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
        struct suite_eta e;
        bool ok;
        double left;
    } etas[] = {
        {{0, 0, 0, 100, 0, 300}, false, 0},     /* nothing done, nothing known */
        {{0, 0, 0.5, 100, 0.5, 300}, false, 0}, /* too soon in the first step */
        {{0, 0, 10, 100, 0.25, 300}, true, 30 + 120},
        {{20, 100, 0, 0, 0, 300}, true, 60},    /* between steps: the pace so far */
        {{20, 100, 5, 100, 0, 0}, true, 15},    /* the running step at that pace */
        {{20, 100, 30, 100, 0, 100}, true, 20}, /* a step slower than expected */
        {{20, 100, 10, 100, 0.5, 100}, true, 10 + 20},
        {{20, 100, 0, 0, 0, 0}, true, 0},
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

int main(void) {
    test_quote();
    test_usage_errors();
    test_plan();
    test_saved_options();
    test_progress();
    return check_exit();
}
