/* sm-compare: compares the saved results of two endpoints (or two runs of one). */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmp.h"
#include "datadir.h"
#include "diag.h"
#include "inputs.h"
#include "out_csv.h"
#include "out_json.h"
#include "out_markdown.h"
#include "out_svg.h"
#include "out_text.h"
#include "quizfile.h"
#include "report.h"
#include "side.h"

#define SM_QUIZ_REL "scenarios/quiz-compare-py-40.json"

static const char usage[] =
    "Usage: sm-compare [OPTIONS] BASELINE CANDIDATE\n"
    "       sm-compare [OPTIONS] BASELINE... -- CANDIDATE...    (options before the --)\n"
    "       sm-compare [OPTIONS] --baseline PATH... --candidate PATH...\n"
    "\n"
    "Compares the saved results of two endpoints (e.g. a bf16 checkpoint and its QAT\n"
    "build) the way the reference method does, and says how sure each figure is.\n"
    "Ratios are candidate / baseline.\n"
    "\n"
    "Each side is a run directory or one or more files:\n"
    "  *.json           result files of the decode, sweep and quiz scenarios\n"
    "                   (docs/result-format.md), or compare.py measure-*.json files\n"
    "  *.journal.jsonl  the journal of a run that never wrote its result file (killed):\n"
    "                   every completed record is recovered and the run marked partial;\n"
    "                   in a directory a journal is read only when its result file is missing\n"
    "  *.log            a vLLM start-up log: weights GiB, load seconds, KV cache tokens,\n"
    "                   maximum concurrency, quantization, vLLM version (last match wins)\n"
    "A directory contributes every such file in it (other JSON files are skipped with a\n"
    "warning). Several runs on one side (A-B-A re-measures, several client machines) are\n"
    "pooled, and the agreement of their own figures is reported.\n"
    "\n"
    "Options:\n"
    "  -b, --baseline PATH      add PATH (directory or file) to the baseline side; repeatable\n"
    "  -c, --candidate PATH     add PATH to the candidate side; repeatable\n"
    "      --facts-baseline LOG   vLLM start-up log of the baseline's container\n"
    "      --facts-candidate LOG  the same for the candidate (overrides facts found elsewhere)\n"
    "      --price-per-hour USD   instance price: adds the cost per million output tokens\n"
    "                           at each concurrency level\n"
    "  -f, --format FORMAT      text (default), markdown, json or csv\n"
    "  -o, --output FILE        write the report to FILE instead of standard output\n"
    "      --svg FILE           also write a chart of both sides with the ratios (SVG)\n"
    "      --quiz FILE          the quiz (questions, answers, patterns) to score compare.py\n"
    "                           replies with (default: the reference quiz, in\n"
    "                           PREFIX/share/wrk-sagemaker/scenarios/ when installed, else\n"
    "                           in the source tree; --version names it)\n"
    "      --seed N             seed of the bootstrap (default 1); the same seed gives the\n"
    "                           same intervals\n"
    "      --resamples N        bootstrap resamples per interval (default 2000, 100..1000000)\n"
    "  -h, --help               this text\n"
    "  -V, --version            the version and the default quiz file\n"
    "\n"
    "What it computes:\n"
    "  decode_tokens_per_second  (L - S) / (median wall L - median wall S) for the shortest\n"
    "        S and longest L length; per_call_fixed_cost_seconds = median wall S - S / rate;\n"
    "        with three or more lengths also a least-squares line of wall on tokens.\n"
    "  load_cN_tokens_per_second  per batch: completion tokens of the batch's successful\n"
    "        requests / (latest end - earliest start of its requests); median over batches\n"
    "        (batches with fewer than N requests are left out). Steady mode: tokens of the\n"
    "        run / (last end - first start). Latency p50/p90/p99 of successful requests\n"
    "        (linear interpolation between ranks).\n"
    "  weights_gib, kv_cache_tokens, load_seconds  from the vLLM logs (or compare.py's\n"
    "        load_facts).\n"
    "  quality_correct  correct replies per side and per kind; identical answers (byte for\n"
    "        byte); the disagreements (question, expected, each reply, which is right);\n"
    "        McNemar's exact test on the questions only one side got right.\n"
    "  95% intervals: percentile bootstrap (resampling the walls of each length, or the\n"
    "        batches of a level) for each side and for the ratio; none from a side with\n"
    "        fewer than two samples or only compare.py's medians.\n"
    "Time-scaled files (time_scale K != 1) are reported in real units: rates divided by K,\n"
    "times multiplied by K. Failed requests are counted per error code and shown; a figure\n"
    "that cannot be given is n/a with the reason.\n"
    "\n"
    "Output (text and markdown): the reference table (weights_gib, kv_cache_tokens,\n"
    "load_seconds, decode_tokens_per_second, load_cN_tokens_per_second, quality_correct,\n"
    "identical answers), the intervals, decode details, latency, cost, requests, agreement\n"
    "of runs, quiz by kind, disagreements, container facts, warnings and a verdict. JSON\n"
    "keeps the reference's keys (a, b, columns, rows as [baseline, candidate, ratio],\n"
    "identical_answers, disagreements, quality_by_kind) and adds the rest. CSV is one row\n"
    "per measurement.\n"
    "\n"
    "Exit status: 0 on success; 2 on bad input or usage (one line on standard error naming\n"
    "the file and the problem: malformed JSON, unknown format version, a file of the wrong\n"
    "kind, sides measured with different lengths, levels or quiz); 1 when the output\n"
    "cannot be written. A mismatch that still allows the comparison is a warning in the\n"
    "report.\n";

/* The command line. */
struct args {
    char **paths[2]; /* baseline, candidate */
    size_t npaths[2];
    const char *facts[2];
    const char *format, *output, *svg, *quiz;
    bool have_price;
    double price;
    unsigned long long seed;
    long resamples;
};

static int usage_error(const char *msg, const char *arg) {
    fprintf(stderr, "sm-compare: %s%s%s (see sm-compare --help)\n", msg, arg ? ": " : "",
            arg ? arg : "");
    return -1;
}

static int add_path(struct args *a, int side, char *path) {
    char **p = realloc(a->paths[side], (a->npaths[side] + 1) * sizeof *p);
    if (!p) return usage_error("out of memory", NULL);
    a->paths[side] = p;
    p[a->npaths[side]++] = path;
    return 0;
}

static int number(const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

enum { OPT_FACTS_B = 256, OPT_FACTS_C, OPT_PRICE, OPT_SVG, OPT_QUIZ, OPT_SEED, OPT_RESAMPLES };

static int option(struct args *a, int c, char *arg) {
    double v;
    switch (c) {
    case 'b':
        return add_path(a, 0, arg);
    case 'c':
        return add_path(a, 1, arg);
    case OPT_FACTS_B:
        a->facts[0] = arg;
        return 0;
    case OPT_FACTS_C:
        a->facts[1] = arg;
        return 0;
    case OPT_PRICE:
        if (number(arg, 0, 1e9, &a->price) < 0 || !(a->price > 0))
            return usage_error("--price-per-hour needs a positive number of USD", arg);
        a->have_price = true;
        return 0;
    case 'f':
        if (strcmp(arg, "text") != 0 && strcmp(arg, "markdown") != 0 && strcmp(arg, "json") != 0 &&
            strcmp(arg, "csv") != 0)
            return usage_error("--format must be text, markdown, json or csv", arg);
        a->format = arg;
        return 0;
    case 'o':
        a->output = arg;
        return 0;
    case OPT_SVG:
        a->svg = arg;
        return 0;
    case OPT_QUIZ:
        a->quiz = arg;
        return 0;
    case OPT_SEED:
        if (number(arg, 0, 9007199254740991.0, &v) < 0 || v != (double)(unsigned long long)v)
            return usage_error("--seed needs a whole number", arg);
        a->seed = (unsigned long long)v;
        return 0;
    case OPT_RESAMPLES:
        if (number(arg, 100, 1000000, &v) < 0 || v != (double)(long)v)
            return usage_error("--resamples needs a whole number from 100 to 1000000", arg);
        a->resamples = (long)v;
        return 0;
    default:
        return usage_error("unknown option", NULL);
    }
}

/* Returns 0, 1 after --help or --version, or -1 on a usage error. */
static int parse(int argc, char **argv, struct args *a) {
    static const struct option opts[] = {
        {"baseline", required_argument, NULL, 'b'},
        {"candidate", required_argument, NULL, 'c'},
        {"facts-baseline", required_argument, NULL, OPT_FACTS_B},
        {"facts-candidate", required_argument, NULL, OPT_FACTS_C},
        {"price-per-hour", required_argument, NULL, OPT_PRICE},
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"svg", required_argument, NULL, OPT_SVG},
        {"quiz", required_argument, NULL, OPT_QUIZ},
        {"seed", required_argument, NULL, OPT_SEED},
        {"resamples", required_argument, NULL, OPT_RESAMPLES},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int split = argc, c;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            split = i;
            break;
        }
    bool flagged = false;
    opterr = 0;
    while ((c = getopt_long(split, argv, ":b:c:f:o:hV", opts, NULL)) != -1) {
        if (c == 'h') return fputs(usage, stdout) == EOF ? -1 : 1;
        if (c == 'V') {
            char *quiz = datadir_path(SM_SOURCE_DIR, SM_QUIZ_REL);
            int n = printf("sm-compare %s\ndefault quiz: %s\n", SM_VERSION, quiz ? quiz : "?");
            free(quiz);
            return n < 0 ? -1 : 1;
        }
        if (c == ':') return usage_error("option needs a value", argv[optind - 1]);
        if (c == '?') return usage_error("unknown option", argv[optind - 1]);
        flagged |= c == 'b' || c == 'c';
        if (option(a, c, optarg) < 0) return -1;
    }
    int npos = split - optind;
    if (flagged && (npos || split < argc))
        return usage_error("give the sides either with --baseline/--candidate or as arguments",
                           NULL);
    if (split < argc) {
        for (int i = optind; i < split; i++)
            if (add_path(a, 0, argv[i]) < 0) return -1;
        for (int i = split + 1; i < argc; i++)
            if (add_path(a, 1, argv[i]) < 0) return -1;
    } else if (!flagged) {
        if (npos != 2)
            return usage_error("give a BASELINE and a CANDIDATE (or use -- between the sides)",
                               NULL);
        if (add_path(a, 0, argv[optind]) < 0 || add_path(a, 1, argv[optind + 1]) < 0) return -1;
    }
    if (!a->npaths[0] || !a->npaths[1])
        return usage_error(a->npaths[0] ? "no candidate given" : "no baseline given", NULL);
    return 0;
}

/* The quiz to score compare.py files with: --quiz, else the default when present. */
static int load_quiz(const struct args *a, struct quizfile **qz, struct diag *d) {
    struct stat st;
    *qz = NULL;
    if (a->quiz) return quizfile_read(a->quiz, qz, d);
    char *quiz = datadir_path(SM_SOURCE_DIR, SM_QUIZ_REL);
    int rc = quiz && stat(quiz, &st) == 0 ? quizfile_read(quiz, qz, d) : 0;
    free(quiz);
    return rc;
}

static int render(const struct args *a, const struct cmp *m, const struct diag *d,
                  struct buf *out) {
    if (strcmp(a->format, "json") == 0) return out_json(m, d, out);
    if (strcmp(a->format, "csv") == 0) return out_csv(m, out);
    struct report r;
    if (report_build(m, d, &r) < 0) return BUF_ERR_NOMEM;
    int rc = strcmp(a->format, "markdown") == 0 ? out_markdown(&r, out) : out_text(&r, out);
    report_free(&r);
    return rc;
}

static int write_file(const char *path, const struct buf *b) {
    FILE *f = path ? fopen(path, "wb") : stdout;
    if (!f) {
        fprintf(stderr, "sm-compare: %s: cannot write: %s\n", path, strerror(errno));
        return -1;
    }
    size_t n = fwrite(buf_str(b), 1, b->len, f);
    int rc = n == b->len && fflush(f) == 0 ? 0 : -1;
    if (path && fclose(f) != 0) rc = -1;
    if (rc < 0)
        fprintf(stderr, "sm-compare: %s: cannot write: %s\n", path ? path : "standard output",
                strerror(errno));
    return rc;
}

/* Reading one side (the two sides are read at the same time). */
struct side_job {
    const struct args *a;
    const struct quizfile *qz;
    int k; /* 0 baseline, 1 candidate */
    struct inputs in;
    struct side side;
    struct diag d;
};

static void *read_side(void *arg) {
    static const char *const roles[] = {"baseline", "candidate"};
    struct side_job *j = arg;
    if (inputs_read(j->a->paths[j->k], j->a->npaths[j->k], j->a->facts[j->k], j->qz, &j->in,
                    &j->d) < 0 ||
        side_build(&j->side, roles[j->k], &j->in, &j->d) < 0)
        return NULL; /* the error is in j->d */
    return NULL;
}

/* Reads both sides, the baseline on a second thread; errors and warnings are
 * merged in the order baseline, candidate. */
static void read_sides(struct side_job *jobs, struct diag *d) {
    pthread_t t;
    bool threaded = pthread_create(&t, NULL, read_side, &jobs[0]) == 0;
    if (!threaded) read_side(&jobs[0]);
    read_side(&jobs[1]);
    if (threaded) pthread_join(t, NULL);
    diag_merge(d, &jobs[0].d);
    diag_merge(d, &jobs[1].d);
}

/* Reads both sides and compares them; returns the exit status. */
static int run(const struct args *a, struct diag *d) {
    struct quizfile *qz = NULL;
    struct side_job jobs[2] = {{.a = a, .k = 0}, {.a = a, .k = 1}};
    struct cmp m = {0};
    struct buf out, svg;
    int status = 2;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&svg, BUF_NO_CAP);
    diag_init(&jobs[0].d);
    diag_init(&jobs[1].d);
    if (load_quiz(a, &qz, d) < 0) goto done;
    jobs[0].qz = jobs[1].qz = qz;
    read_sides(jobs, d);
    if (d->error[0]) goto done;
    struct cmp_opts o = {a->seed, a->resamples, a->have_price, a->price};
    if (cmp_build(&m, &jobs[0].side, &jobs[1].side, &o, d) < 0 || d->error[0]) goto done;
    status = 1;
    if (render(a, &m, d, &out) != BUF_OK || (a->svg && out_svg(&m, &svg) != BUF_OK)) {
        diag_error(d, "out of memory");
        goto done;
    }
    if (strcmp(a->format, "csv") == 0)
        for (size_t i = 0; i < d->nwarnings; i++)
            fprintf(stderr, "sm-compare: warning: %s\n", d->warnings[i]);
    if (write_file(a->output, &out) < 0 || (a->svg && write_file(a->svg, &svg) < 0)) goto done;
    status = 0;
done:
    if (d->error[0]) fprintf(stderr, "sm-compare: %s\n", d->error);
    cmp_free(&m);
    for (int k = 0; k < 2; k++) {
        side_free(&jobs[k].side);
        inputs_free(&jobs[k].in);
        diag_free(&jobs[k].d);
    }
    quizfile_free(qz);
    buf_free(&out);
    buf_free(&svg);
    return status;
}

int main(int argc, char **argv) {
    struct args a = {.format = "text", .seed = 1, .resamples = 2000};
    struct diag d;
    int rc = parse(argc, argv, &a);
    if (rc != 0) {
        free(a.paths[0]);
        free(a.paths[1]);
        return rc < 0 ? 2 : 0;
    }
    diag_init(&d);
    int status = run(&a, &d);
    diag_free(&d);
    free(a.paths[0]);
    free(a.paths[1]);
    return status;
}
