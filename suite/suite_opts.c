#include "suite_opts.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smname.h"

#define ALL (SUITE_DECODE | SUITE_SWEEP | SUITE_QUIZ)

/* What a scenario option's value must be. */
enum kind { K_FLAG, K_TEXT, K_INT, K_NUM, K_INTS, K_CHOICE, K_OBJECT };

/* The scenarios' options sm-suite passes through (see each scenario's --help). */
static const struct scen_opt {
    const char *name; /* without the leading -- */
    enum kind kind;
    double min;          /* K_INT, K_NUM: smallest value */
    bool above;          /* K_NUM: the value must be above min */
    const char *choices; /* K_CHOICE: "a|b|c" */
    unsigned scenarios;
} scen_opts[] = {
    {"format", K_CHOICE, 0, false, "vllm-chat|vllm-completions|tgi|lmi", ALL},
    {"extra", K_OBJECT, 0, false, NULL, ALL},
    {"seed", K_INT, 0, false, NULL, ALL},
    {"min-tokens", K_INT, 0, false, NULL, ALL},
    {"custom-attributes", K_TEXT, 0, false, NULL, ALL},
    {"profile", K_TEXT, 0, false, NULL, ALL},
    {"refuse-after", K_INT, 0, false, NULL, ALL},
    {"temperature", K_NUM, 0, false, NULL, ALL},
    {"prompt", K_TEXT, 0, false, NULL, SUITE_DECODE | SUITE_SWEEP},
    {"ignore-eos", K_FLAG, 0, false, NULL, SUITE_DECODE | SUITE_SWEEP},
    {"no-ignore-eos", K_FLAG, 0, false, NULL, SUITE_DECODE | SUITE_SWEEP},
    {"lengths", K_INTS, 0, false, NULL, SUITE_DECODE},
    {"repeats", K_INT, 1, false, NULL, SUITE_DECODE},
    {"mode", K_CHOICE, 0, false, "batch|steady", SUITE_SWEEP},
    {"batches", K_INT, 1, false, NULL, SUITE_SWEEP},
    {"duration", K_NUM, 0, true, NULL, SUITE_SWEEP},
    {"max-tokens", K_INT, 1, false, NULL, SUITE_SWEEP | SUITE_QUIZ},
    {"quiz", K_TEXT, 0, false, NULL, SUITE_QUIZ},
};

/* sm-suite's own options. */
enum opt_id {
    O_REGION,
    O_URL,
    O_BASELINE,
    O_CANDIDATE,
    O_ENDPOINT,
    O_BVARIANT,
    O_CVARIANT,
    O_SCENARIOS,
    O_LEVELS,
    O_ORDER,
    O_SCALE,
    O_OUT,
    O_RESUME,
    O_SCENARIO_DIR,
    O_FACTS_B,
    O_FACTS_C,
    O_PRICE,
    O_DRY_RUN,
    O_HELP,
    O_VERSION,
};

static const struct suite_opt {
    const char *name;
    enum opt_id id;
    bool value;
} suite_opts_table[] = {
    {"region", O_REGION, true},
    {"url", O_URL, true},
    {"baseline", O_BASELINE, true},
    {"candidate", O_CANDIDATE, true},
    {"endpoint", O_ENDPOINT, true},
    {"baseline-variant", O_BVARIANT, true},
    {"candidate-variant", O_CVARIANT, true},
    {"scenarios", O_SCENARIOS, true},
    {"levels", O_LEVELS, true},
    {"order", O_ORDER, true},
    {"time-scale", O_SCALE, true},
    {"out", O_OUT, true},
    {"resume", O_RESUME, true},
    {"scenario-dir", O_SCENARIO_DIR, true},
    {"facts-baseline", O_FACTS_B, true},
    {"facts-candidate", O_FACTS_C, true},
    {"price-per-hour", O_PRICE, true},
    {"dry-run", O_DRY_RUN, false},
    {"help", O_HELP, false},
    {"version", O_VERSION, false},
};

static const char *const scenario_names[] = {"decode", "sweep", "quiz"};

/* The parse in progress. */
struct parser {
    struct suite_opts *o;
    char *err;
    size_t errlen;
    const char *endpoint;   /* --endpoint */
    const char *spec[2][2]; /* [endpoint, variant][baseline, candidate] */
    size_t cap;
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

const char *suite_scenario_name(unsigned scenario) {
    return scenario == SUITE_DECODE ? "decode" : scenario == SUITE_SWEEP ? "sweep" : "quiz";
}

static int whole(const char *s, double min, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min) return -1;
    *out = v;
    return 0;
}

static int number(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* A comma-separated list of whole numbers >= 1, at most max of them. */
static int whole_list(const char *s, int *out, int max, int *n) {
    *n = 0;
    for (const char *p = s;; p++) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (errno || end == p || v < 1 || v > 100000 || *n == max || (*end && *end != ','))
            return -1;
        out[(*n)++] = (int)v;
        if (!*end) return 0;
        p = end;
    }
}

static bool one_of(const char *s, const char *choices) {
    size_t n = strlen(s);
    for (const char *c = choices; *c;) {
        size_t k = strcspn(c, "|");
        if (k == n && strncmp(c, s, n) == 0) return true;
        c += k + (c[k] == '|');
    }
    return false;
}

/* Checks a scenario option's value; the message names the option as given. */
static int check_value(struct parser *p, const struct scen_opt *s, const char *given,
                       const char *v) {
    long l;
    double d;
    int list[64], n;
    switch (s->kind) {
    case K_FLAG:
        return 0;
    case K_TEXT:
        return *v ? 0 : fail(p, "--%s wants a value", given);
    case K_INT:
        return whole(v, s->min, &l) == 0
                   ? 0
                   : fail(p, "--%s wants a whole number >= %g, got '%s'", given, s->min, v);
    case K_NUM:
        if (number(v, &d) == 0 && (s->above ? d > s->min : d >= s->min)) return 0;
        return fail(p, "--%s wants a number %s %g, got '%s'", given, s->above ? ">" : ">=", s->min,
                    v);
    case K_INTS:
        return whole_list(v, list, 64, &n) == 0
                   ? 0
                   : fail(p, "--%s wants whole numbers >= 1 separated by commas, got '%s'", given,
                          v);
    case K_CHOICE:
        return one_of(v, s->choices) ? 0
                                     : fail(p, "--%s must be %s, got '%s'", given, s->choices, v);
    case K_OBJECT: {
        cJSON *j = cJSON_Parse(v);
        bool ok = cJSON_IsObject(j);
        cJSON_Delete(j);
        return ok ? 0 : fail(p, "--%s must be a JSON object, got '%s'", given, v);
    }
    }
    return 0;
}

static int add_pass(struct parser *p, unsigned scenarios, const char *name, const char *value) {
    struct suite_opts *o = p->o;
    if (o->npass == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        struct suite_pass *v = realloc(o->pass, cap * sizeof *v);
        if (!v) return fail(p, "out of memory");
        o->pass = v;
        p->cap = cap;
    }
    o->pass[o->npass++] = (struct suite_pass){scenarios, name, value};
    return 0;
}

static const struct scen_opt *scen_lookup(const char *name) {
    for (size_t i = 0; i < sizeof scen_opts / sizeof scen_opts[0]; i++)
        if (strcmp(scen_opts[i].name, name) == 0) return &scen_opts[i];
    return NULL;
}

/* Resolves NAME or SCENARIO-NAME to a table entry; *scope is the scenario's
 * bit for SCENARIO-NAME, else 0. */
static const struct scen_opt *scen_find(const char *name, unsigned *scope) {
    *scope = 0;
    const struct scen_opt *s = scen_lookup(name);
    for (unsigned k = 0; !s && k < 3; k++) {
        size_t n = strlen(scenario_names[k]);
        if (strncmp(name, scenario_names[k], n) == 0 && name[n] == '-') {
            *scope = 1u << k;
            s = scen_lookup(name + n + 1);
        }
    }
    return s && (!*scope || (s->scenarios & *scope)) ? s : NULL;
}

/* "--NAME" as the scenarios spell it. */
static const char *scen_word(const struct scen_opt *s) {
    static char words[sizeof scen_opts / sizeof scen_opts[0]][32];
    char *w = words[s - scen_opts];
    if (!w[0]) snprintf(w, sizeof words[0], "--%s", s->name);
    return w;
}

/* Splits NAME[=LABEL] into a side. */
static int side_spec(struct parser *p, const char *spec, const char *what, bool variant,
                     struct suite_side *s) {
    const char *eq = strchr(spec, '=');
    size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
    char *dst = variant ? s->variant : s->name;
    if (n == 0 || n >= SUITE_NAME_MAX)
        return fail(p, "%s: '%s' is not a name of 1 to 63 characters", what, spec);
    memcpy(dst, spec, n);
    dst[n] = '\0';
    if (eq) {
        if (strlen(eq + 1) >= SUITE_NAME_MAX)
            return fail(p, "%s: the label '%s' is longer than 63 characters", what, eq + 1);
        strcpy(s->label, eq + 1);
        s->labelled = true;
    }
    return 0;
}

/* A label names a folder of the run directory beside sm-suite's own files. */
static bool label_ok(const char *s) {
    static const char *const reserved[] = {"output",      "interrupted", "manifest.json",
                                           "commands.sh", "report.txt",  "report.md",
                                           "report.json", "chart.svg"};
    if (!smname_label_ok(s, strlen(s))) return false;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(s, reserved[i]) == 0) return false;
    return true;
}

static int set_scenarios(struct parser *p, const char *v) {
    struct suite_opts *o = p->o;
    unsigned seen = 0;
    o->nscenarios = 0;
    for (const char *c = v;;) {
        size_t k = strcspn(c, ",");
        unsigned bit = 0;
        for (unsigned i = 0; i < 3; i++)
            if (strlen(scenario_names[i]) == k && strncmp(c, scenario_names[i], k) == 0)
                bit = 1u << i;
        if (!bit || (seen & bit))
            return fail(p,
                        "--scenarios wants decode, sweep and quiz, each at most once, "
                        "separated by commas; got '%s'",
                        v);
        seen |= bit;
        o->order[o->nscenarios++] = bit;
        if (!c[k]) return 0;
        c += k + 1;
    }
}

static int set_levels(struct parser *p, const char *v) {
    struct suite_opts *o = p->o;
    if (whole_list(v, o->levels, SUITE_MAX_LEVELS, &o->nlevels) < 0)
        return fail(p, "--levels wants at most %d whole numbers >= 1 separated by commas, got '%s'",
                    SUITE_MAX_LEVELS, v);
    for (int i = 0; i < o->nlevels; i++)
        for (int j = 0; j < i; j++)
            if (o->levels[i] == o->levels[j])
                return fail(p, "--levels names %d twice", o->levels[i]);
    return 0;
}

static int positive(struct parser *p, const char *name, const char *v, double *out) {
    if (number(v, out) < 0 || !(*out > 0))
        return fail(p, "--%s wants a number > 0, got '%s'", name, v);
    return 0;
}

static int suite_option(struct parser *p, enum opt_id id, const char *v) {
    struct suite_opts *o = p->o;
    switch (id) {
    case O_REGION:
        if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(v))
            return fail(p, "--region wants a region such as us-east-2, got '%s'", v);
        o->region = v;
        return 0;
    case O_URL:
        if (strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0)
            return fail(p, "--url wants an http:// or https:// URL, got '%s'", v);
        o->url = v;
        return 0;
    case O_BASELINE:
    case O_CANDIDATE:
        p->spec[0][id == O_CANDIDATE] = v;
        return 0;
    case O_BVARIANT:
    case O_CVARIANT:
        p->spec[1][id == O_CVARIANT] = v;
        return 0;
    case O_ENDPOINT:
        p->endpoint = v;
        return 0;
    case O_SCENARIOS:
        return set_scenarios(p, v);
    case O_LEVELS:
        return set_levels(p, v);
    case O_ORDER:
        if (strcmp(v, "ab") != 0 && strcmp(v, "aba") != 0)
            return fail(p, "--order must be ab or aba, got '%s'", v);
        o->aba = strcmp(v, "aba") == 0;
        return 0;
    case O_SCALE:
        return positive(p, "time-scale", v, &o->time_scale);
    case O_PRICE:
        return positive(p, "price-per-hour", v, &o->price);
    case O_OUT:
        o->out = v;
        return 0;
    case O_RESUME:
        o->resume = v;
        return 0;
    case O_SCENARIO_DIR:
        o->scenario_dir = v;
        return 0;
    case O_FACTS_B:
    case O_FACTS_C:
        o->facts[id == O_FACTS_C] = v;
        return 0;
    case O_DRY_RUN:
        o->dry_run = true;
        return 0;
    case O_HELP:
        o->help = true;
        return 0;
    case O_VERSION:
        o->version = true;
        return 0;
    }
    return 0;
}

/* Whether the manifest keeps this option for a resume. */
static bool kept(enum opt_id id) {
    return id != O_OUT && id != O_RESUME && id != O_DRY_RUN && id != O_HELP && id != O_VERSION;
}

static int scenario_option(struct parser *p, const char *name, const char *inline_v,
                           char *const *words, size_t n, size_t *i) {
    unsigned scope;
    const struct scen_opt *s = scen_find(name, &scope);
    if (!s) return fail(p, "unknown option --%s (see sm-suite --help)", name);
    const char *v = NULL;
    if (s->kind == K_FLAG) {
        if (inline_v) return fail(p, "--%s takes no value", name);
    } else {
        v = inline_v ? inline_v : *i + 1 < n ? words[++*i] : NULL;
        if (!v) return fail(p, "--%s wants a value", name);
        if (check_value(p, s, name, v) < 0) return -1;
    }
    return add_pass(p, scope ? scope : s->scenarios, scen_word(s), v);
}

/* One word (and its value): a suite option or a scenario option. */
static int parse_word(struct parser *p, char *const *words, size_t n, size_t *i) {
    const char *w = words[*i];
    if (strcmp(w, "-h") == 0) w = "--help";
    if (strncmp(w, "--", 2) != 0 || !w[2])
        return fail(p, "unexpected word '%s' (options start with --; see sm-suite --help)", w);
    char name[64];
    const char *eq = strchr(w, '=');
    size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
    if (len >= sizeof name) return fail(p, "unknown option %.*s (see sm-suite --help)", 70, w);
    memcpy(name, w + 2, len);
    name[len] = '\0';
    const char *inline_v = eq ? eq + 1 : NULL;
    for (size_t k = 0; k < sizeof suite_opts_table / sizeof suite_opts_table[0]; k++) {
        const struct suite_opt *s = &suite_opts_table[k];
        if (strcmp(s->name, name) != 0) continue;
        if (!s->value && inline_v) return fail(p, "--%s takes no value", name);
        const char *v = inline_v;
        size_t first = *i;
        if (s->value && !v) {
            if (*i + 1 >= n) return fail(p, "--%s wants a value", name);
            v = words[++*i];
        }
        if (kept(s->id) && suite_argv_addv(&p->o->saved, words + first, *i - first + 1) < 0)
            return fail(p, "out of memory");
        return suite_option(p, s->id, v);
    }
    size_t first = *i;
    if (scenario_option(p, name, inline_v, words, n, i) < 0) return -1;
    if (suite_argv_addv(&p->o->saved, words + first, *i - first + 1) < 0)
        return fail(p, "out of memory");
    return 0;
}

static int make_side(struct parser *p, int k, bool variants) {
    static const char *const what[2][2] = {{"--baseline", "--candidate"},
                                           {"--baseline-variant", "--candidate-variant"}};
    struct suite_side *s = &p->o->side[k];
    if (variants) strcpy(s->name, p->endpoint);
    if (side_spec(p, p->spec[variants][k], what[variants][k], variants, s) < 0) return -1;
    const char *id = variants ? s->variant : s->name;
    if (!smname_endpoint_ok(id, strlen(id)))
        return fail(p,
                    "%s: '%s' is not a SageMaker %s name (letters, digits and inner '-', "
                    "at most 63)",
                    what[variants][k], id, variants ? "variant" : "endpoint");
    if (!s->labelled) strcpy(s->label, id);
    if (!label_ok(s->label))
        return fail(p,
                    "%s: the label '%s' may hold only letters, digits, '.', '_' and '-', "
                    "not start with '.', and not be the name of a file of the run directory",
                    what[variants][k], s->label);
    return 0;
}

static int make_sides(struct parser *p) {
    struct suite_opts *o = p->o;
    bool by_endpoint = p->spec[0][0] || p->spec[0][1];
    bool by_variant = p->endpoint || p->spec[1][0] || p->spec[1][1];
    if (by_endpoint && by_variant)
        return fail(p, "give two endpoints (--baseline, --candidate) or two variants of one "
                       "(--endpoint, --baseline-variant, --candidate-variant), not both");
    if (!by_endpoint && !by_variant)
        return fail(p, "no endpoints: pass --baseline NAME --candidate NAME (or --endpoint NAME "
                       "--baseline-variant A --candidate-variant B)");
    o->variants = by_variant;
    if (by_variant && !p->endpoint)
        return fail(p, "--baseline-variant and --candidate-variant need --endpoint NAME");
    if (by_variant && p->endpoint && !smname_endpoint_ok(p->endpoint, strlen(p->endpoint)))
        return fail(p,
                    "--endpoint: '%s' is not a SageMaker endpoint name (letters, digits and "
                    "inner '-', at most 63)",
                    p->endpoint);
    for (int k = 0; k < 2; k++)
        if (!p->spec[by_variant][k])
            return fail(p, "no %s: pass %s", k ? "candidate" : "baseline",
                        by_variant
                            ? (k ? "--candidate-variant VARIANT" : "--baseline-variant VARIANT")
                            : (k ? "--candidate NAME" : "--baseline NAME"));
    if (make_side(p, 0, by_variant) < 0 || make_side(p, 1, by_variant) < 0) return -1;
    if (strcmp(o->side[0].label, o->side[1].label) == 0)
        return fail(p,
                    "the baseline and the candidate share the label '%s': name them with "
                    "NAME=LABEL",
                    o->side[0].label);
    return 0;
}

/* "decode", "decode and sweep", "decode, sweep and quiz". */
static void scenario_list(unsigned bits, char *out, size_t len) {
    const char *names[3] = {"", "", ""};
    int n = 0;
    for (unsigned k = 0; k < 3; k++)
        if (bits & (1u << k)) names[n++] = scenario_names[k];
    snprintf(out, len, "%s%s%s%s%s", names[0],
             n == 3   ? ", "
             : n == 2 ? " and "
                      : "",
             n > 1 ? names[1] : "", n == 3 ? " and " : "", n == 3 ? names[2] : "");
}

/* Every passed option must reach a scenario the suite runs. */
static int check_scope(struct parser *p) {
    struct suite_opts *o = p->o;
    unsigned run = 0;
    for (int i = 0; i < o->nscenarios; i++) run |= o->order[i];
    for (size_t i = 0; i < o->npass; i++) {
        if (o->pass[i].scenarios & run) continue;
        char list[64];
        scenario_list(o->pass[i].scenarios, list, sizeof list);
        return fail(p, "%s is an option of %s, which this suite does not run (--scenarios)",
                    o->pass[i].name, list);
    }
    return 0;
}

static int check_settings(struct parser *p) {
    struct suite_opts *o = p->o;
    const char *lengths = suite_opts_value(o, SUITE_DECODE, "--lengths");
    if (lengths && !strchr(lengths, ','))
        return fail(p, "--lengths needs two or more lengths, got '%s'", lengths);
    const char *mode = suite_opts_value(o, SUITE_SWEEP, "--mode");
    bool steady = mode && strcmp(mode, "steady") == 0;
    if (steady != (suite_opts_value(o, SUITE_SWEEP, "--duration") != NULL))
        return fail(p, "--duration goes with --mode steady, and --mode steady needs --duration");
    return 0;
}

int suite_opts_parse(char *const *words, size_t n, const char *env_region, struct suite_opts *o,
                     char *err, size_t errlen) {
    memset(o, 0, sizeof *o);
    suite_argv_init(&o->saved);
    o->time_scale = 1;
    struct parser p = {.o = o, .err = err, .errlen = errlen};
    for (size_t i = 0; i < n; i++)
        if (parse_word(&p, words, n, &i) < 0) return -1;
    if (o->help || o->version) return 0;
    if (!o->nscenarios) set_scenarios(&p, "decode,sweep,quiz");
    if (!o->nlevels) set_levels(&p, "1,4,16");
    if (o->out && o->resume) return fail(&p, "--out and --resume do not go together");
    if (make_sides(&p) < 0 || check_scope(&p) < 0 || check_settings(&p) < 0) return -1;
    if (!o->region) o->region = env_region && *env_region ? env_region : NULL;
    if (!o->region) return fail(&p, "no region: pass --region REGION (or set AWS_REGION)");
    return 0;
}

void suite_opts_free(struct suite_opts *o) {
    free(o->pass);
    suite_argv_free(&o->saved);
    memset(o, 0, sizeof *o);
}

const char *suite_opts_value(const struct suite_opts *o, unsigned scenario, const char *name) {
    const char *v = NULL;
    for (size_t i = 0; i < o->npass; i++)
        if ((o->pass[i].scenarios & scenario) && strcmp(o->pass[i].name, name) == 0)
            v = o->pass[i].value;
    return v;
}
