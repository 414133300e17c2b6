#include "suite_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const suite_report_files[SUITE_NCMP + 1] = {"report.txt", "report.md", "report.json",
                                                        "chart.svg"};

#define CALL_TOKENS  32   /* a call's fixed cost, as tokens (the estimate's unit) */
#define QUIZ_TOKENS  8    /* a quiz reply's tokens, about */
#define TOKENS_PER_S 50.0 /* a decode rate, to weigh steady rounds */
#define LIMIT_S      60   /* SageMaker's limit on a reply */
#define WRK_TIMEOUT  "70s"
#define PROGRESS_S   "1"

/* What a step's size depends on, from the options and the scenarios' defaults
 * (as doubles: a whole-number option may be larger than an int). */
struct sizes {
    int lengths[64], nlengths;
    double repeats, batches, sweep_tokens;
    double duration; /* steady mode: seconds per round; 0 in batch mode */
    int questions;
};

/* A number option's value (suite_opts checked it), or dflt when not given. */
static double num_of(const struct suite_opts *o, unsigned sc, const char *name, double dflt) {
    const char *v = suite_opts_value(o, sc, name);
    return v ? strtod(v, NULL) : dflt;
}

static void sizes_of(const struct suite_opts *o, int questions, struct sizes *z) {
    const char *lengths = suite_opts_value(o, SUITE_DECODE, "--lengths");
    z->nlengths = 0;
    for (const char *c = lengths ? lengths : "16,512"; *c && z->nlengths < 64;) {
        z->lengths[z->nlengths++] = (int)strtol(c, NULL, 10);
        c += strcspn(c, ",");
        c += *c == ',';
    }
    z->repeats = num_of(o, SUITE_DECODE, "--repeats", 5);
    z->duration = num_of(o, SUITE_SWEEP, "--duration", 0);
    z->batches = num_of(o, SUITE_SWEEP, "--batches", z->duration > 0 ? 1 : 2);
    z->sweep_tokens = num_of(o, SUITE_SWEEP, "--max-tokens", 256);
    z->questions = questions;
}

/* The -d cap in seconds: every reply at SageMaker's limit, plus a minute;
 * and the expected work in tokens. */
static void step_size(const struct sizes *z, unsigned sc, int nsides, double scale, double *cap,
                      double *weight) {
    double limit = LIMIT_S / scale;
    if (sc == SUITE_DECODE) {
        double tokens = 0;
        for (int i = 0; i < z->nlengths; i++) tokens += z->lengths[i] + CALL_TOKENS;
        *cap = nsides * z->repeats * z->nlengths * limit;
        *weight = nsides * z->repeats * tokens;
    } else if (sc == SUITE_SWEEP) {
        *cap = nsides * z->batches * (z->duration + limit);
        *weight =
            nsides * z->batches *
            (z->duration > 0 ? z->duration * TOKENS_PER_S * scale : z->sweep_tokens + CALL_TOKENS);
    } else {
        *cap = nsides * z->questions * limit;
        *weight = nsides * z->questions * (QUIZ_TOKENS + CALL_TOKENS);
    }
    *cap += 60;
}

/* Appends an option and its value as two words. */
static int opt2(struct suite_argv *c, const char *name, const char *value) {
    return suite_argv_add(c, name) < 0 || suite_argv_add(c, value) < 0 ? -1 : 0;
}

/* --endpoint (and --variant) for each side; the A-B-A pass names its one side's label. */
static int add_sides(struct suite_argv *c, const struct suite_opts *o, int nsides) {
    const struct suite_side *s = o->side;
    const char *opt = o->variants ? "--variant" : "--endpoint";
    if (o->variants && opt2(c, "--endpoint", s[0].name) < 0) return -1;
    for (int k = 0; k < nsides; k++) {
        const char *id = o->variants ? s[k].variant : s[k].name;
        bool labelled = nsides == 2 && s[k].labelled;
        if (suite_argv_add(c, opt) < 0 ||
            (labelled ? suite_argv_addf(c, "%s=%s", id, s[k].label) : suite_argv_add(c, id)) < 0)
            return -1;
    }
    return nsides == 1 ? opt2(c, "--label", s[0].label) : 0;
}

static int add_passed(struct suite_argv *c, const struct suite_opts *o, unsigned sc) {
    for (size_t i = 0; i < o->npass; i++) {
        const struct suite_pass *p = &o->pass[i];
        if (!(p->scenarios & sc)) continue;
        if ((p->value ? opt2(c, p->name, p->value) : suite_argv_add(c, p->name)) < 0) return -1;
    }
    return 0;
}

static int step_command(struct suite_step *st, const struct suite_opts *o,
                        const struct suite_tools *t, const struct suite_plan *p, const char *out,
                        int level, double cap) {
    struct suite_argv *c = &st->cmd;
    const char *sc = suite_scenario_name(st->scenario);
    int rc = suite_argv_add(c, t->wrk);
    rc |= suite_argv_addf(c, "-t%d", level);
    rc |= suite_argv_addf(c, "-c%d", level);
    rc |= suite_argv_addf(c, "-d%.0fm", ceil(cap / 60));
    rc |= suite_argv_add(c, "--timeout");
    rc |= suite_argv_add(c, WRK_TIMEOUT);
    rc |= suite_argv_add(c, "-s");
    rc |= suite_argv_addf(c, "%s/%s.lua", t->scenario_dir, sc);
    rc |= suite_argv_add(c, p->url);
    rc |= suite_argv_add(c, "--");
    if (rc || add_sides(c, o, st->nsides) < 0) return -1;
    rc |= opt2(c, "--region", o->region);
    if (o->time_scale != 1)
        rc |= suite_argv_add(c, "--time-scale") | suite_argv_addf(c, "%g", o->time_scale);
    rc |= suite_argv_add(c, "--out") | suite_argv_addf(c, "%s/{label}/%s.json", out, st->id);
    rc |= opt2(c, "--progress", PROGRESS_S);
    return rc ? -1 : add_passed(c, o, st->scenario);
}

static struct suite_step *new_step(struct suite_plan *p, size_t *cap) {
    if (p->n == *cap) {
        size_t n = *cap ? *cap * 2 : 8;
        struct suite_step *v = realloc(p->steps, n * sizeof *v);
        if (!v) return NULL;
        p->steps = v;
        *cap = n;
    }
    struct suite_step *s = &p->steps[p->n++];
    memset(s, 0, sizeof *s);
    suite_argv_init(&s->cmd);
    return s;
}

/* The steps of one pass: every scenario (and level) for nsides sides. */
static int add_pass(struct suite_plan *p, size_t *cap, const struct suite_opts *o,
                    const struct suite_tools *t, const struct sizes *z, const char *out,
                    int nsides) {
    for (int i = 0; i < o->nscenarios; i++) {
        unsigned sc = o->order[i];
        int nlevels = sc == SUITE_SWEEP ? o->nlevels : 1;
        for (int l = 0; l < nlevels; l++) {
            struct suite_step *s = new_step(p, cap);
            if (!s) return -1;
            int level = sc == SUITE_SWEEP ? o->levels[l] : 1;
            const char *name = suite_scenario_name(sc);
            const char *again = nsides == 1 ? "rerun-" : "";
            s->scenario = sc;
            s->nsides = nsides;
            s->level = level;
            if (sc == SUITE_SWEEP) {
                snprintf(s->id, sizeof s->id, "%ssweep-c%d", again, level);
                snprintf(s->title, sizeof s->title, "sweep c%d%s", level,
                         nsides == 1 ? ", baseline again" : "");
            } else {
                snprintf(s->id, sizeof s->id, "%s%s", again, name);
                snprintf(s->title, sizeof s->title, "%s%s", name,
                         nsides == 1 ? ", baseline again" : "");
            }
            double cap_s;
            step_size(z, sc, nsides, o->time_scale, &cap_s, &s->weight);
            if (step_command(s, o, t, p, out, level, cap_s) < 0) return -1;
        }
    }
    return 0;
}

static int compare_commands(struct suite_plan *p, const struct suite_opts *o,
                            const struct suite_tools *t, const char *out) {
    static const char *const formats[SUITE_NCMP] = {NULL, "markdown", "json"};
    for (int k = 0; k < SUITE_NCMP; k++) {
        struct suite_argv *c = &p->compare[k];
        int rc = suite_argv_add(c, t->compare);
        if (o->price > 0)
            rc |= suite_argv_add(c, "--price-per-hour") | suite_argv_addf(c, "%g", o->price);
        if (formats[k])
            rc |= opt2(c, "--format", formats[k]);
        else
            rc |= suite_argv_add(c, "--svg") |
                  suite_argv_addf(c, "%s/%s", out, suite_report_files[SUITE_NCMP]);
        rc |=
            suite_argv_add(c, "--output") | suite_argv_addf(c, "%s/%s", out, suite_report_files[k]);
        rc |= suite_argv_add(c, p->side_dir[0]);
        rc |= suite_argv_add(c, p->side_dir[1]);
        if (rc) return -1;
    }
    return 0;
}

int suite_plan_build(const struct suite_opts *o, const struct suite_tools *t, int questions,
                     const char *out, struct suite_plan *p) {
    memset(p, 0, sizeof *p);
    for (int k = 0; k < SUITE_NCMP; k++) suite_argv_init(&p->compare[k]);
    struct sizes z;
    sizes_of(o, questions, &z);
    size_t cap = 0;
    int rc = o->url ? asprintf(&p->url, "%s", o->url)
                    : asprintf(&p->url, "https://runtime.sagemaker.%s.amazonaws.com", o->region);
    if (rc < 0) p->url = NULL;
    for (int k = 0; k < 2 && rc >= 0; k++)
        if ((rc = asprintf(&p->side_dir[k], "%s/%s", out, o->side[k].label)) < 0)
            p->side_dir[k] = NULL;
    if (rc < 0 || add_pass(p, &cap, o, t, &z, out, 2) < 0 ||
        (o->aba && add_pass(p, &cap, o, t, &z, out, 1) < 0) || compare_commands(p, o, t, out) < 0) {
        suite_plan_free(p);
        return -1;
    }
    return 0;
}

void suite_plan_free(struct suite_plan *p) {
    for (size_t i = 0; i < p->n; i++) suite_argv_free(&p->steps[i].cmd);
    for (int k = 0; k < SUITE_NCMP; k++) suite_argv_free(&p->compare[k]);
    free(p->steps);
    free(p->url);
    free(p->side_dir[0]);
    free(p->side_dir[1]);
    memset(p, 0, sizeof *p);
}

char *suite_plan_result(const struct suite_plan *p, const struct suite_step *s, int k) {
    char *path;
    return asprintf(&path, "%s/%s.json", p->side_dir[k], s->id) < 0 ? NULL : path;
}

int suite_plan_command_line(const struct suite_tools *t, const struct suite_argv *cmd, bool is_wrk,
                            struct buf *out) {
    int rc = BUF_OK;
    if (is_wrk && t->plugin_dir) {
        rc = buf_adds(out, "SM_PLUGIN_PATH=");
        if (rc == BUF_OK) rc = suite_quote(out, t->plugin_dir);
        if (rc == BUF_OK) rc = buf_addc(out, ' ');
    }
    return rc == BUF_OK ? suite_quote_argv(out, cmd) : rc;
}
