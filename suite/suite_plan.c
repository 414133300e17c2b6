#include "suite_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const suite_plan_report_files[SUITE_PLAN_NCMP + 1] = {"report.txt", "report.md",
                                                                  "report.json", "chart.svg"};

#define SUITE_PLAN_CALL_TOKENS 32 /* a call's fixed cost, as tokens (the estimate's unit) */
#define SUITE_PLAN_QUIZ_TOKENS 8  /* a quiz reply's tokens, about */
#define SUITE_PLAN_LIMIT_S     60 /* SageMaker's limit on a reply */
#define SUITE_PLAN_WRK_TIMEOUT "70s"
#define SUITE_PLAN_PROGRESS_S  "1"
/* rate.lua's -c, the most requests in flight at once: wrk needs a thread each,
 * sm-stream's connections are cheap (so the client is not what limits). */
#define SUITE_PLAN_RATE_CONNS        64
#define SUITE_PLAN_RATE_STREAM_CONNS 512

/* What a step's size depends on: the options given, else the scenarios' own
 * defaults (their lists of options), else these, for a scenario that lacks the
 * option (as doubles: a whole-number option may be larger than an int). */
struct suite_plan_sizes {
    double nlengths, length_tokens; /* decode: how many lengths, their tokens in all */
    double repeats, batches, sweep_tokens;
    double duration; /* steady mode: seconds per round; 0 in batch mode */
    int questions;
    double nrates, rate_duration; /* rate.lua's: how many rates, seconds of arrivals each */
};

/* A number setting (checked by the scenario's spec), or dflt when there is none. */
static double suite_plan_num(const struct suite_opts *o, unsigned sc, const char *name,
                             double dflt) {
    const char *v = suite_opts_setting(o, sc, name);
    return v ? strtod(v, NULL) : dflt;
}

static void suite_plan_sizes_of(const struct suite_opts *o, int questions,
                                struct suite_plan_sizes *z) {
    const char *lengths = suite_opts_setting(o, SUITE_OPTS_DECODE, "--lengths");
    z->nlengths = z->length_tokens = 0;
    for (const char *c = lengths ? lengths : "16,512"; *c;) {
        z->nlengths++;
        z->length_tokens += strtod(c, NULL) + SUITE_PLAN_CALL_TOKENS;
        c += strcspn(c, ",");
        c += *c == ',';
    }
    z->repeats = suite_plan_num(o, SUITE_OPTS_DECODE, "--repeats", 5);
    z->duration = suite_plan_num(o, SUITE_OPTS_SWEEP, "--duration", 0);
    z->batches = suite_plan_num(o, SUITE_OPTS_SWEEP, "--batches", z->duration > 0 ? 1 : 8);
    z->sweep_tokens = suite_plan_num(o, SUITE_OPTS_SWEEP, "--max-tokens", 256);
    z->questions = questions;
    const char *rates = suite_opts_setting(o, SUITE_OPTS_RATE, "--rates");
    z->nrates = 0;
    for (const char *c = rates ? rates : ""; *c;) {
        z->nrates++;
        c += strcspn(c, ",");
        c += *c == ',';
    }
    z->rate_duration = suite_plan_num(o, SUITE_OPTS_RATE, "--duration", 0);
}

/* The -d cap in seconds: every reply at SageMaker's limit, plus a minute; a
 * closed-loop step's expected work in tokens (weight), or a timed step's
 * schedule in real seconds (sched: an open-loop rate lasts its --duration of
 * model time, duration / scale real seconds, a steady sweep's rounds their
 * --duration), which is what the progress line's time left counts on. */
static void suite_plan_step_size(const struct suite_plan_sizes *z, unsigned sc, int nsides,
                                 double scale, double *cap, double *weight, double *sched) {
    double limit = SUITE_PLAN_LIMIT_S / scale;
    *weight = *sched = 0;
    if (sc == SUITE_OPTS_DECODE) {
        *cap = nsides * z->repeats * z->nlengths * limit;
        *weight = nsides * z->repeats * z->length_tokens;
    } else if (sc == SUITE_OPTS_SWEEP && z->duration > 0) {
        *cap = nsides * z->batches * (z->duration + limit);
        *sched = nsides * z->batches * z->duration;
    } else if (sc == SUITE_OPTS_SWEEP) {
        *cap = nsides * z->batches * limit;
        *weight = nsides * z->batches * (z->sweep_tokens + SUITE_PLAN_CALL_TOKENS);
    } else if (sc == SUITE_OPTS_RATE) {
        *cap = nsides * z->nrates * (z->rate_duration / scale + limit);
        *sched = nsides * z->nrates * z->rate_duration / scale;
    } else {
        *cap = nsides * z->questions * limit;
        *weight = nsides * z->questions * (SUITE_PLAN_QUIZ_TOKENS + SUITE_PLAN_CALL_TOKENS);
    }
    *cap += 60;
}

/* Appends an option and its value as two words. */
static int suite_plan_opt2(struct suite_argv *c, const char *name, const char *value) {
    return suite_argv_add(c, name) < 0 || suite_argv_add(c, value) < 0 ? SUITE_PLAN_ERR_NOMEM
                                                                       : SUITE_PLAN_OK;
}

/* --endpoint (and --variant, --inference-component) for each side; a step of one side
 * names its label. */
static int suite_plan_add_sides(struct suite_argv *c, const struct suite_opts *o, int first,
                                int nsides) {
    const struct suite_opts_side *s = o->side;
    const char *opt = o->variants ? "--variant" : "--endpoint";
    if (o->variants && suite_plan_opt2(c, "--endpoint", s[0].name) < 0) return SUITE_PLAN_ERR_NOMEM;
    bool components = false;
    for (int k = first; k < first + nsides; k++) {
        const char *id = o->variants ? s[k].variant : s[k].name;
        /* a component's side may be labelled by the component: say so to the scenario */
        bool labelled = nsides == 2 && (s[k].labelled || s[k].component[0]);
        components |= s[k].component[0] != '\0';
        if (suite_argv_add(c, opt) < 0 ||
            (labelled ? suite_argv_addf(c, "%s=%s", id, s[k].label) : suite_argv_add(c, id)) < 0)
            return SUITE_PLAN_ERR_NOMEM;
    }
    /* once per side, "-" for a side without one (lua/sm/target.lua) */
    for (int k = first; components && k < first + nsides; k++)
        if (suite_plan_opt2(c, "--inference-component", s[k].component[0] ? s[k].component : "-") <
            0)
            return SUITE_PLAN_ERR_NOMEM;
    return nsides == 1 ? suite_plan_opt2(c, "--label", s[first].label) : SUITE_PLAN_OK;
}

/* The scenario options given for scenario sc, in the order given. */
static int suite_plan_add_passed(struct suite_argv *c, const struct suite_opts *o, unsigned sc) {
    for (size_t i = 0; i < o->npass; i++) {
        const struct suite_opts_pass *p = &o->pass[i];
        int rc;
        if (!(p->scenarios & sc)) continue;
        if (p->negated)
            rc = suite_argv_addf(c, "--no-%s", p->name + 2);
        else
            rc = p->value ? suite_plan_opt2(c, p->name, p->value) : suite_argv_add(c, p->name);
        if (rc < 0) return SUITE_PLAN_ERR_NOMEM;
    }
    return SUITE_PLAN_OK;
}

static int suite_plan_step_command(struct suite_plan_step *st, const struct suite_opts *o,
                                   const struct suite_plan_tools *t, const struct suite_plan *p,
                                   const char *out, double cap) {
    struct suite_argv *c = &st->cmd;
    const char *sc = suite_opts_scenario_name(st->scenario);
    bool stream = o->stream && st->scenario != SUITE_OPTS_QUIZ;
    int rc = suite_argv_add(c, stream ? t->stream : t->wrk);
    rc |= suite_argv_addf(c, "-t%d", stream ? 1 : st->level);
    if (stream && o->cacert) rc |= suite_plan_opt2(c, "--cacert", o->cacert);
    rc |= suite_argv_addf(c, "-c%d", st->level);
    rc |= suite_argv_addf(c, "-d%.0fm", ceil(cap / 60));
    rc |= suite_plan_opt2(c, "--timeout", SUITE_PLAN_WRK_TIMEOUT);
    rc |= suite_argv_add(c, "-s");
    rc |= suite_argv_addf(c, "%s/%s.lua", t->scenario_dir, sc);
    rc |= suite_argv_add(c, p->url);
    rc |= suite_argv_add(c, "--");
    if (rc || suite_plan_add_sides(c, o, st->side, st->nsides) < 0) return SUITE_PLAN_ERR_NOMEM;
    rc |= suite_plan_opt2(c, "--region", o->region);
    if (o->allow_plain_http) rc |= suite_argv_add(c, "--allow-plain-http");
    if (o->time_scale != 1)
        rc |= suite_argv_add(c, "--time-scale") | suite_argv_addf(c, "%g", o->time_scale);
    rc |= suite_argv_add(c, "--out") | suite_argv_addf(c, "%s/{label}/%s.json", out, st->id);
    rc |= suite_plan_opt2(c, "--progress", SUITE_PLAN_PROGRESS_S);
    if (!rc && st->probe) {
        char rate[32];
        suite_plan_rate_text(st->probe == 1   ? o->search_lo
                             : st->probe == 2 ? o->search_hi
                                              : NAN,
                             rate, sizeof rate);
        rc |= suite_argv_add(c, "--rates");
        st->rate_word = c->n;
        rc |= suite_argv_add(c, rate);
    }
    return rc ? SUITE_PLAN_ERR_NOMEM : suite_plan_add_passed(c, o, st->scenario);
}

void suite_plan_rate_text(double rate, char *out, size_t cap) {
    if (isfinite(rate))
        snprintf(out, cap, "%.10g", rate);
    else
        snprintf(out, cap, "RATE");
}

int suite_plan_set_rate(struct suite_plan_step *s, double rate) {
    char text[32], *w;
    suite_plan_rate_text(rate, text, sizeof text);
    if (!s->probe || s->rate_word >= s->cmd.n || !(w = strdup(text))) return SUITE_PLAN_ERR_NOMEM;
    free(s->cmd.v[s->rate_word]);
    s->cmd.v[s->rate_word] = w;
    return SUITE_PLAN_OK;
}

bool suite_plan_measures(const struct suite_plan_step *s, int k) {
    return k >= s->side && k < s->side + s->nsides;
}

static struct suite_plan_step *suite_plan_new_step(struct suite_plan *p, size_t *cap) {
    if (p->n == *cap) {
        size_t n = *cap ? *cap * 2 : 8;
        struct suite_plan_step *v = realloc(p->steps, n * sizeof *v);
        if (!v) return NULL;
        p->steps = v;
        *cap = n;
    }
    struct suite_plan_step *s = &p->steps[p->n++];
    memset(s, 0, sizeof *s);
    suite_argv_init(&s->cmd);
    return s;
}

/* The id and title of a step ("rerun-sweep-c4", "sweep c4, baseline again"). */
static void suite_plan_name_step(struct suite_plan_step *s) {
    const char *name = suite_opts_scenario_name(s->scenario);
    const char *again = s->nsides == 1 ? "rerun-" : "";
    const char *alone = s->nsides == 1 ? ", baseline again" : "";
    if (s->scenario == SUITE_OPTS_SWEEP) {
        snprintf(s->id, sizeof s->id, "%ssweep-c%d", again, s->level);
        snprintf(s->title, sizeof s->title, "sweep c%d%s", s->level, alone);
    } else {
        snprintf(s->id, sizeof s->id, "%s%s", again, name);
        snprintf(s->title, sizeof s->title, "%s%s", name, alone);
    }
}

/* A capacity search's probes: probe K of each side in turn, then K + 1. */
static int suite_plan_add_probes(struct suite_plan *p, size_t *cap, const struct suite_opts *o,
                                 const struct suite_plan_tools *t, const struct suite_plan_sizes *z,
                                 const char *out) {
    struct suite_plan_sizes one = *z;
    one.nrates = 1;
    for (int k = 1; k <= o->search_probes; k++)
        for (int side = 0; side < 2; side++) {
            struct suite_plan_step *s = suite_plan_new_step(p, cap);
            if (!s) return SUITE_PLAN_ERR_NOMEM;
            s->scenario = SUITE_OPTS_RATE;
            s->nsides = 1;
            s->side = side;
            s->probe = k;
            s->level = o->stream ? SUITE_PLAN_RATE_STREAM_CONNS : SUITE_PLAN_RATE_CONNS;
            snprintf(s->id, sizeof s->id, "rate-search-%d", k);
            snprintf(s->title, sizeof s->title, "capacity search %.24s, probe %d",
                     o->side[side].label, k);
            double cap_s;
            suite_plan_step_size(&one, SUITE_OPTS_RATE, 1, o->time_scale, &cap_s, &s->weight,
                                 &s->sched_s);
            if (suite_plan_step_command(s, o, t, p, out, cap_s) < 0) return SUITE_PLAN_ERR_NOMEM;
        }
    return SUITE_PLAN_OK;
}

/* The steps of one pass: every scenario (and level) for nsides sides. */
static int suite_plan_add_pass(struct suite_plan *p, size_t *cap, const struct suite_opts *o,
                               const struct suite_plan_tools *t, const struct suite_plan_sizes *z,
                               const char *out, int nsides) {
    for (int i = 0; i < o->nscenarios; i++) {
        unsigned sc = o->order[i];
        if (sc == SUITE_OPTS_RATE && o->searching) {
            if (nsides == 2 && suite_plan_add_probes(p, cap, o, t, z, out) < 0)
                return SUITE_PLAN_ERR_NOMEM;
            continue;
        }
        int nlevels = sc == SUITE_OPTS_SWEEP ? o->nlevels : 1;
        for (int l = 0; l < nlevels; l++) {
            struct suite_plan_step *s = suite_plan_new_step(p, cap);
            if (!s) return SUITE_PLAN_ERR_NOMEM;
            s->scenario = sc;
            s->nsides = nsides;
            s->level = sc == SUITE_OPTS_SWEEP ? o->levels[l]
                       : sc == SUITE_OPTS_RATE
                           ? (o->stream ? SUITE_PLAN_RATE_STREAM_CONNS : SUITE_PLAN_RATE_CONNS)
                           : 1;
            suite_plan_name_step(s);
            double cap_s;
            suite_plan_step_size(z, sc, nsides, o->time_scale, &cap_s, &s->weight, &s->sched_s);
            if (suite_plan_step_command(s, o, t, p, out, cap_s) < 0) return SUITE_PLAN_ERR_NOMEM;
        }
    }
    return SUITE_PLAN_OK;
}

static int suite_plan_compare_commands(struct suite_plan *p, const struct suite_opts *o,
                                       const struct suite_plan_tools *t, const char *out) {
    static const char *const formats[SUITE_PLAN_NCMP] = {NULL, "markdown", "json"};
    for (int k = 0; k < SUITE_PLAN_NCMP; k++) {
        struct suite_argv *c = &p->compare[k];
        int rc = suite_argv_add(c, t->compare);
        if (o->price > 0)
            rc |= suite_argv_add(c, "--price-per-hour") | suite_argv_addf(c, "%g", o->price);
        if (formats[k])
            rc |= suite_plan_opt2(c, "--format", formats[k]);
        else
            rc |= suite_argv_add(c, "--svg") |
                  suite_argv_addf(c, "%s/%s", out, suite_plan_report_files[SUITE_PLAN_NCMP]);
        for (int i = 0; i < o->nslo; i++) rc |= suite_plan_opt2(c, "--slo", o->slo[i]);
        if (o->max_error_rate) rc |= suite_plan_opt2(c, "--max-error-rate", o->max_error_rate);
        if (o->min_attainment) rc |= suite_plan_opt2(c, "--min-attainment", o->min_attainment);
        rc |= suite_argv_add(c, "--output") |
              suite_argv_addf(c, "%s/%s", out, suite_plan_report_files[k]);
        rc |= suite_argv_add(c, p->side_dir[0]);
        rc |= suite_argv_add(c, p->side_dir[1]);
        if (rc) return SUITE_PLAN_ERR_NOMEM;
    }
    return SUITE_PLAN_OK;
}

int suite_plan_build(const struct suite_opts *o, const struct suite_plan_tools *t, int questions,
                     const char *out, struct suite_plan *p) {
    memset(p, 0, sizeof *p);
    for (int k = 0; k < SUITE_PLAN_NCMP; k++) suite_argv_init(&p->compare[k]);
    struct suite_plan_sizes z;
    suite_plan_sizes_of(o, questions, &z);
    size_t cap = 0;
    int rc = o->url ? asprintf(&p->url, "%s", o->url)
                    : asprintf(&p->url, "https://runtime.sagemaker.%s.amazonaws.com", o->region);
    if (rc < 0) p->url = NULL;
    for (int k = 0; k < 2 && rc >= 0; k++)
        if ((rc = asprintf(&p->side_dir[k], "%s/%s", out, o->side[k].label)) < 0)
            p->side_dir[k] = NULL;
    if (rc < 0 || suite_plan_add_pass(p, &cap, o, t, &z, out, 2) < 0 ||
        (o->aba && suite_plan_add_pass(p, &cap, o, t, &z, out, 1) < 0) ||
        suite_plan_compare_commands(p, o, t, out) < 0)
        return SUITE_PLAN_ERR_NOMEM;
    return SUITE_PLAN_OK;
}

void suite_plan_free(struct suite_plan *p) {
    for (size_t i = 0; i < p->n; i++) suite_argv_free(&p->steps[i].cmd);
    for (int k = 0; k < SUITE_PLAN_NCMP; k++) suite_argv_free(&p->compare[k]);
    free(p->steps);
    free(p->url);
    free(p->side_dir[0]);
    free(p->side_dir[1]);
    memset(p, 0, sizeof *p);
}

char *suite_plan_result(const struct suite_plan *p, const struct suite_plan_step *s, int k) {
    char *path;
    return k < 0 || k > 1 || asprintf(&path, "%s/%s.json", p->side_dir[k], s->id) < 0 ? NULL : path;
}

int suite_plan_command_line(const struct suite_plan_tools *t, const struct suite_argv *cmd,
                            bool is_wrk, struct buf *out) {
    int rc = BUF_OK;
    if (is_wrk && t->plugin_dir) {
        rc = buf_adds(out, "SM_PLUGIN_PATH=");
        if (rc == BUF_OK) rc = suite_argv_quote(out, t->plugin_dir);
        if (rc == BUF_OK) rc = buf_addc(out, ' ');
    }
    return rc == BUF_OK ? suite_argv_quote_all(out, cmd) : rc;
}
