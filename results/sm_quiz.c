/* sm-quiz: plans a quality A/B (how many quiz items a difference needs) and
 * makes the quiz file (generated items in families, from a seed). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "quiz_plan.h"
#include "quizgen.h"
#include "safeopen.h"

static const char squiz_usage[] =
    "usage: sm-quiz plan --detect SHARE [--power SHARE] [--alpha SHARE] [--discordance SHARE]\n"
    "                    [--families N] [--margin SHARE]\n"
    "       sm-quiz make --items N [--seed N] [--families LIST] [--out FILE]\n"
    "\n"
    "plan: the quiz items per family a paired A/B needs to find a difference in accuracy\n"
    "  --detect SHARE       the difference to find, as 3% or 0.03 (required)\n"
    "  --power SHARE        the chance of finding it when it is there (default 80%)\n"
    "  --alpha SHARE        the two-sided level of the whole comparison (default 5%)\n"
    "  --discordance SHARE  the assumed share of items the two sides disagree on (default\n"
    "                       10%); sm-compare reports the share it saw as \"discordant\"\n"
    "  --families N         families tested at once (default 3); each is planned at\n"
    "                       alpha / N, the level Holm's correction gives the first\n"
    "  --margin SHARE       the equivalence margin to plan for too (default 2%)\n"
    "  The formula is Connor's (1987) for McNemar's test of paired proportions\n"
    "  (docs/compare.md, \"The paired analysis by family\").\n"
    "\n"
    "make: a quiz file for scenarios/quiz.lua (--quiz FILE) and sm-compare\n"
    "  --items N            items of each family (1 to 100000)\n"
    "  --seed N             the generator's seed (default 1): the same seed, the same quiz\n"
    "  --families LIST      comma-separated, of arith, extract, format (default all three)\n"
    "  --out FILE           write the quiz there instead of standard output\n"
    "\n"
    "Exit status: 0 done, 2 bad usage or input, 1 another failure.\n";

static int squiz_bad(const char *what, const char *arg, const char *why) {
    fprintf(stderr, "sm-quiz: %s%s%s: %s (see sm-quiz --help)\n", what, arg ? " " : "",
            arg ? arg : "", why);
    return 2;
}

static int squiz_share(const char *opt, const char *arg, double *out) {
    if (!quiz_plan_share(arg, out))
        return squiz_bad(opt, arg, "not a share in (0, 1), as 3% or 0.03");
    return 0;
}

static int squiz_uint(const char *opt, const char *arg, unsigned long lo, unsigned long hi,
                      unsigned long *out) {
    char *end;
    if (!arg[0] || arg[0] == '-') return squiz_bad(opt, arg, "not a whole number");
    unsigned long v = strtoul(arg, &end, 10);
    if (*end || v < lo || v > hi) {
        char why[80];
        snprintf(why, sizeof why, "must be a whole number from %lu to %lu", lo, hi);
        return squiz_bad(opt, arg, why);
    }
    *out = v;
    return 0;
}

/* Reads the options of command cmd (opts), each through set(ctx, option, value). */
static int squiz_parse(int argc, char **argv, const struct option *opts, const char *cmd,
                       int (*set)(void *ctx, int opt, const char *arg), void *ctx) {
    int c, rc = 0;
    opterr = 0;
    while (!rc && (c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        const char *name = argv[optind - 1];
        if (c == ':') return squiz_bad(name, NULL, "needs a value");
        if (c == '?') return squiz_bad("unknown option", name, cmd);
        rc = set(ctx, c, optarg);
    }
    if (!rc && optind < argc) return squiz_bad("unexpected argument", argv[optind], cmd);
    return rc;
}

struct squiz_plan_args {
    struct quiz_plan p;
    double margin;
    bool detect;
    unsigned long fams;
};

static int squiz_plan_set(void *ctx, int opt, const char *arg) {
    struct squiz_plan_args *a = ctx;
    switch (opt) {
    case 'd':
        a->detect = true;
        return squiz_share("--detect", arg, &a->p.detect);
    case 'p':
        return squiz_share("--power", arg, &a->p.power);
    case 'a':
        return squiz_share("--alpha", arg, &a->p.alpha);
    case 'r':
        return squiz_share("--discordance", arg, &a->p.discordance);
    case 'f':
        return squiz_uint("--families", arg, 1, 100, &a->fams);
    default:
        return squiz_share("--margin", arg, &a->margin);
    }
}

static int squiz_plan(int argc, char **argv) {
    static const struct option opts[] = {
        {"detect", required_argument, NULL, 'd'},
        {"power", required_argument, NULL, 'p'},
        {"alpha", required_argument, NULL, 'a'},
        {"discordance", required_argument, NULL, 'r'},
        {"families", required_argument, NULL, 'f'},
        {"margin", required_argument, NULL, 'm'},
        {NULL, 0, NULL, 0},
    };
    struct squiz_plan_args a = {.margin = QUIZ_PLAN_MARGIN, .fams = 3};
    quiz_plan_defaults(&a.p);
    int rc = squiz_parse(argc, argv, opts, "sm-quiz plan takes the options its --help lists",
                         squiz_plan_set, &a);
    if (rc) return rc;
    if (!a.detect)
        return squiz_bad("--detect", NULL, "is required (the difference to find, as 3%)");
    struct quiz_plan p = a.p;
    double margin = a.margin;
    unsigned long fams = a.fams;
    p.families = (unsigned)fams;
    struct buf err;
    buf_init(&err, 256);
    if (quiz_plan_check(&p, &err)) {
        fprintf(stderr, "sm-quiz: %s\n", buf_str(&err));
        buf_free(&err);
        return 2;
    }
    buf_free(&err);
    long n = quiz_plan_items(&p);
    long eq = quiz_plan_items_equiv(margin, 0, p.discordance, p.alpha / p.families, p.power);
    printf("Plan: find a difference of %g points in accuracy with %g%% power at a two-sided %g%%,\n"
           "Holm's correction across %u famil%s (each planned at %.3g%%), assuming the sides\n"
           "disagree on %g%% of the items (sm-compare re-estimates it as \"discordant\").\n"
           "items per family: %ld (%ld per side in all)\n"
           "power at that size: %.1f%%\n"
           "equivalence within %g points (TOST, no true difference) needs %ld items per family\n"
           "make the quiz (the larger size of the two): sm-quiz make --items %ld --seed N --out "
           "quiz.json\n",
           p.detect * 100, p.power * 100, p.alpha * 100, p.families, p.families == 1 ? "y" : "ies",
           p.alpha / p.families * 100, p.discordance * 100, n, n * (long)p.families,
           quiz_plan_power(&p, n) * 100, margin * 100, eq, n > eq ? n : eq);
    return fflush(stdout) ? 1 : 0;
}

/* "arith,format" into fams; the count into *nf. */
static int squiz_families(const char *arg, enum quizgen_family *fams, size_t *nf) {
    char list[128];
    if (strlen(arg) >= sizeof list) return squiz_bad("--families", "", "too long");
    snprintf(list, sizeof list, "%s", arg);
    *nf = 0;
    for (char *save, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        enum quizgen_family f;
        if (!quizgen_family_find(t, &f))
            return squiz_bad("--families", arg, "families are arith, extract and format");
        for (size_t i = 0; i < *nf; i++)
            if (fams[i] == f) return squiz_bad("--families", arg, "a family named twice");
        fams[(*nf)++] = f;
    }
    if (!*nf) return squiz_bad("--families", arg, "names no family");
    return 0;
}

struct squiz_make_args {
    enum quizgen_family fams[QUIZGEN_FAMILIES];
    size_t nf;
    unsigned long items, seed;
    const char *out;
};

static int squiz_make_set(void *ctx, int opt, const char *arg) {
    struct squiz_make_args *a = ctx;
    switch (opt) {
    case 'n':
        return squiz_uint("--items", arg, 1, QUIZGEN_ITEMS_MAX, &a->items);
    case 's':
        return squiz_uint("--seed", arg, 0, ~0UL, &a->seed);
    case 'f':
        return squiz_families(arg, a->fams, &a->nf);
    default:
        a->out = arg;
        return 0;
    }
}

static int squiz_make(int argc, char **argv) {
    static const struct option opts[] = {
        {"items", required_argument, NULL, 'n'},
        {"seed", required_argument, NULL, 's'},
        {"families", required_argument, NULL, 'f'},
        {"out", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    struct squiz_make_args a = {.fams = {QUIZGEN_ARITH, QUIZGEN_EXTRACT, QUIZGEN_FORMAT},
                                .nf = QUIZGEN_FAMILIES,
                                .seed = 1};
    int rc = squiz_parse(argc, argv, opts, "sm-quiz make takes the options its --help lists",
                         squiz_make_set, &a);
    if (rc) return rc;
    if (!a.items) return squiz_bad("--items", NULL, "is required (items of each family)");
    const enum quizgen_family *fams = a.fams;
    size_t nf = a.nf;
    unsigned long items = a.items, seed = a.seed;
    const char *out = a.out;
    struct buf text, err;
    buf_init(&text, BUF_NO_CAP);
    buf_init(&err, 512);
    rc = quizgen_file(seed, fams, nf, (unsigned)items, &text) ? 1 : 0;
    if (rc)
        fprintf(stderr, "sm-quiz: out of memory\n");
    else if (out && safeopen_write(out, NULL, text.data, text.len, 0644, &err) < 0) {
        fprintf(stderr, "sm-quiz: %s\n", buf_str(&err));
        rc = 1;
    } else if (!out && (fwrite(text.data, 1, text.len, stdout) != text.len || fflush(stdout))) {
        fprintf(stderr, "sm-quiz: cannot write the quiz to standard output\n");
        rc = 1;
    }
    buf_free(&text);
    buf_free(&err);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) return squiz_bad("a command", NULL, "plan or make is needed");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return fputs(squiz_usage, stdout) == EOF ? 1 : 0;
    if (strcmp(argv[1], "plan") == 0) return squiz_plan(argc - 1, argv + 1);
    if (strcmp(argv[1], "make") == 0) return squiz_make(argc - 1, argv + 1);
    return squiz_bad("unknown command", argv[1], "the commands are plan and make");
}
