#include "suite_opts.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plainhttp.h"
#include "smname.h"
#include "suite_search.h"

#define SUITE_OPTS_DEFAULT (SUITE_OPTS_DECODE | SUITE_OPTS_SWEEP | SUITE_OPTS_QUIZ)

/* sm-suite's own options. */
enum suite_opts_id {
    SUITE_OPTS_O_REGION,
    SUITE_OPTS_O_URL,
    SUITE_OPTS_O_BASELINE,
    SUITE_OPTS_O_CANDIDATE,
    SUITE_OPTS_O_ENDPOINT,
    SUITE_OPTS_O_BVARIANT,
    SUITE_OPTS_O_CVARIANT,
    SUITE_OPTS_O_BCOMPONENT,
    SUITE_OPTS_O_CCOMPONENT,
    SUITE_OPTS_O_SCENARIOS,
    SUITE_OPTS_O_LEVELS,
    SUITE_OPTS_O_ORDER,
    SUITE_OPTS_O_SCALE,
    SUITE_OPTS_O_OUT,
    SUITE_OPTS_O_RESUME,
    SUITE_OPTS_O_SCENARIO_DIR,
    SUITE_OPTS_O_FACTS_B,
    SUITE_OPTS_O_FACTS_C,
    SUITE_OPTS_O_PRICE,
    SUITE_OPTS_O_DRY_RUN,
    SUITE_OPTS_O_HELP,
    SUITE_OPTS_O_VERSION,
    SUITE_OPTS_O_DEPLOY,
    SUITE_OPTS_O_DELETE_AFTER,
    SUITE_OPTS_O_NO_CHECK,
    SUITE_OPTS_O_BMODEL,
    SUITE_OPTS_O_CMODEL,
    SUITE_OPTS_O_ITYPE,
    SUITE_OPTS_O_ROLE,
    SUITE_OPTS_O_ENDPOINT_URL,
    SUITE_OPTS_O_STREAM,
    SUITE_OPTS_O_CACERT,
    SUITE_OPTS_O_SLO,
    SUITE_OPTS_O_MAX_ERRORS,
    SUITE_OPTS_O_MIN_ATTAIN,
    SUITE_OPTS_O_NO_CLOUDWATCH,
    SUITE_OPTS_O_PLAIN_HTTP,
    SUITE_OPTS_O_SEARCH,
    SUITE_OPTS_O_SEARCH_PROBES,
};

static const struct suite_opts_own {
    const char *name;
    enum suite_opts_id id;
    bool value;   /* takes a value */
    bool guarded; /* chooses the code that runs or where requests go */
} suite_opts_own[] = {
    {"region", SUITE_OPTS_O_REGION, true, true},
    {"url", SUITE_OPTS_O_URL, true, true},
    {"baseline", SUITE_OPTS_O_BASELINE, true, true},
    {"candidate", SUITE_OPTS_O_CANDIDATE, true, true},
    {"endpoint", SUITE_OPTS_O_ENDPOINT, true, true},
    {"baseline-variant", SUITE_OPTS_O_BVARIANT, true, true},
    {"candidate-variant", SUITE_OPTS_O_CVARIANT, true, true},
    {"baseline-component", SUITE_OPTS_O_BCOMPONENT, true, true},
    {"candidate-component", SUITE_OPTS_O_CCOMPONENT, true, true},
    {"scenarios", SUITE_OPTS_O_SCENARIOS, true, false},
    {"levels", SUITE_OPTS_O_LEVELS, true, false},
    {"order", SUITE_OPTS_O_ORDER, true, false},
    {"time-scale", SUITE_OPTS_O_SCALE, true, false},
    {"out", SUITE_OPTS_O_OUT, true, false},
    {"resume", SUITE_OPTS_O_RESUME, true, false},
    {"scenario-dir", SUITE_OPTS_O_SCENARIO_DIR, true, true},
    {"facts-baseline", SUITE_OPTS_O_FACTS_B, true, false},
    {"facts-candidate", SUITE_OPTS_O_FACTS_C, true, false},
    {"price-per-hour", SUITE_OPTS_O_PRICE, true, false},
    {"dry-run", SUITE_OPTS_O_DRY_RUN, false, false},
    {"help", SUITE_OPTS_O_HELP, false, false},
    {"version", SUITE_OPTS_O_VERSION, false, false},
    {"deploy", SUITE_OPTS_O_DEPLOY, false, false},
    {"delete-after", SUITE_OPTS_O_DELETE_AFTER, false, false},
    {"no-endpoint-check", SUITE_OPTS_O_NO_CHECK, false, false},
    {"baseline-model", SUITE_OPTS_O_BMODEL, true, false},
    {"candidate-model", SUITE_OPTS_O_CMODEL, true, false},
    {"instance-type", SUITE_OPTS_O_ITYPE, true, false},
    {"role", SUITE_OPTS_O_ROLE, true, false},
    {"endpoint-url", SUITE_OPTS_O_ENDPOINT_URL, true, true},
    {"stream", SUITE_OPTS_O_STREAM, false, true},
    {"cacert", SUITE_OPTS_O_CACERT, true, true},
    {"slo", SUITE_OPTS_O_SLO, true, false},
    {"max-error-rate", SUITE_OPTS_O_MAX_ERRORS, true, false},
    {"min-attainment", SUITE_OPTS_O_MIN_ATTAIN, true, false},
    {"no-cloudwatch", SUITE_OPTS_O_NO_CLOUDWATCH, false, false},
    {"allow-plain-http", SUITE_OPTS_O_PLAIN_HTTP, false, false},
    {"capacity-search", SUITE_OPTS_O_SEARCH, true, false},
    {"search-probes", SUITE_OPTS_O_SEARCH_PROBES, true, false},
};

static const char *const suite_opts_names[SUITE_OPTS_NSCENARIOS] = {"decode", "sweep", "quiz",
                                                                    "rate"};

/* The scenarios' options sm-suite sets itself for every scenario. */
static const char *const suite_opts_reserved_words[] = {
    "--endpoint", "--variant",      "--inference-component", "--label",
    "--region",   "--out",          "--time-scale",          "--progress",
    "--help",     "--options-json",
};

/* The parse in progress. */
struct suite_opts_parser {
    struct suite_opts *o;
    struct buf *err;
    bool scan;                /* suite_opts_scan: the suite's own options only */
    const char *endpoint;     /* --endpoint */
    const char *spec[2][2];   /* [endpoint, variant][baseline, candidate] */
    const char *component[2]; /* --baseline-component, --candidate-component */
};

const char *suite_opts_scenario_name(unsigned scenario) {
    return suite_opts_names[__builtin_ctz(scenario) % SUITE_OPTS_NSCENARIOS];
}

static int suite_opts_number(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* A comma-separated list of whole numbers >= 1, at most max of them. */
static int suite_opts_whole_list(const char *s, int *out, int max, int *n) {
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

/* Splits NAME[=LABEL] into a side. */
static int suite_opts_side_spec(struct suite_opts_parser *p, const char *spec, const char *what,
                                bool variant, struct suite_opts_side *s) {
    const char *eq = strchr(spec, '=');
    size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
    char *dst = variant ? s->variant : s->name;
    if (n == 0 || n >= SUITE_OPTS_NAME_MAX)
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "%s: '%s' is not a name of 1 to 63 characters", what, spec);
    memcpy(dst, spec, n);
    dst[n] = '\0';
    if (eq) {
        if (strlen(eq + 1) >= SUITE_OPTS_NAME_MAX)
            return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                            "%s: the label '%s' is longer than 63 characters", what, eq + 1);
        strcpy(s->label, eq + 1);
        s->labelled = true;
    }
    return SUITE_OPTS_OK;
}

/* A label names a folder of the run directory beside sm-suite's own files. */
static bool suite_opts_label_ok(const char *s) {
    static const char *const reserved[] = {
        "output",     "interrupted", "manifest.json", "manifest.json.seal", "commands.sh",
        "report.txt", "report.md",   "report.json",   "chart.svg"};
    if (!smname_label_ok(s, strlen(s))) return false;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(s, reserved[i]) == 0) return false;
    return true;
}

static int suite_opts_set_scenarios(struct suite_opts_parser *p, const char *v) {
    struct suite_opts *o = p->o;
    unsigned seen = 0;
    o->nscenarios = 0;
    for (const char *c = v;;) {
        size_t k = strcspn(c, ",");
        unsigned bit = 0;
        for (unsigned i = 0; i < SUITE_OPTS_NSCENARIOS; i++)
            if (strlen(suite_opts_names[i]) == k && strncmp(c, suite_opts_names[i], k) == 0)
                bit = 1u << i;
        if (!bit || (seen & bit))
            return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                            "--scenarios wants decode, sweep, quiz and rate, each at most once, "
                            "separated by commas; got '%s'",
                            v);
        seen |= bit;
        o->order[o->nscenarios++] = bit;
        if (!c[k]) return SUITE_OPTS_OK;
        c += k + 1;
    }
}

static int suite_opts_set_levels(struct suite_opts_parser *p, const char *v) {
    struct suite_opts *o = p->o;
    if (suite_opts_whole_list(v, o->levels, SUITE_OPTS_MAX_LEVELS, &o->nlevels) < 0)
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "--levels wants at most %d whole numbers >= 1 separated by commas, got "
                        "'%s'",
                        SUITE_OPTS_MAX_LEVELS, v);
    for (int i = 0; i < o->nlevels; i++)
        for (int j = 0; j < i; j++)
            if (o->levels[i] == o->levels[j])
                return buf_fail(p->err, SUITE_OPTS_ERR_USAGE, "--levels names %d twice",
                                o->levels[i]);
    return SUITE_OPTS_OK;
}

static int suite_opts_positive(struct suite_opts_parser *p, const char *name, const char *v,
                               double *out) {
    if (suite_opts_number(v, out) < 0 || !(*out > 0))
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE, "--%s wants a number > 0, got '%s'", name, v);
    return SUITE_OPTS_OK;
}

/* --search-probes: a whole number from 2 to SUITE_SEARCH_MAX_PROBES. */
static int suite_opts_probes(struct suite_opts_parser *p, const char *v) {
    double n;
    if (suite_opts_number(v, &n) < 0 || n != floor(n) || n < 2 || n > SUITE_SEARCH_MAX_PROBES)
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "--search-probes wants a whole number from 2 to %d, got '%s'",
                        SUITE_SEARCH_MAX_PROBES, v);
    p->o->search_probes = (int)n;
    return SUITE_OPTS_OK;
}

/* The target: --region and --url. */
static int suite_opts_set_target(struct suite_opts_parser *p, enum suite_opts_id id,
                                 const char *v) {
    if (id == SUITE_OPTS_O_REGION) {
        if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(v))
            return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                            "--region wants a region such as us-east-2, got '%s'", v);
        p->o->region = v;
        return SUITE_OPTS_OK;
    }
    if (strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0)
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "--url wants an http:// or https:// URL, got '%s'", v);
    p->o->url = v;
    return SUITE_OPTS_OK;
}

/* The options that only keep their value: the sides, the paths, the flags. */
static void suite_opts_keep(struct suite_opts_parser *p, enum suite_opts_id id, const char *v) {
    struct suite_opts *o = p->o;
    if (id == SUITE_OPTS_O_BASELINE || id == SUITE_OPTS_O_CANDIDATE)
        p->spec[0][id == SUITE_OPTS_O_CANDIDATE] = v;
    else if (id == SUITE_OPTS_O_BVARIANT || id == SUITE_OPTS_O_CVARIANT)
        p->spec[1][id == SUITE_OPTS_O_CVARIANT] = v;
    else if (id == SUITE_OPTS_O_BCOMPONENT || id == SUITE_OPTS_O_CCOMPONENT)
        p->component[id == SUITE_OPTS_O_CCOMPONENT] = v;
    else if (id == SUITE_OPTS_O_ENDPOINT)
        p->endpoint = v;
    else if (id == SUITE_OPTS_O_OUT)
        o->out = v;
    else if (id == SUITE_OPTS_O_RESUME)
        o->resume = v;
    else if (id == SUITE_OPTS_O_SCENARIO_DIR)
        o->scenario_dir = v;
    else if (id == SUITE_OPTS_O_FACTS_B || id == SUITE_OPTS_O_FACTS_C)
        o->facts[id == SUITE_OPTS_O_FACTS_C] = v;
    else if (id == SUITE_OPTS_O_DRY_RUN)
        o->dry_run = true;
    else if (id == SUITE_OPTS_O_HELP)
        o->help = true;
    else if (id == SUITE_OPTS_O_VERSION)
        o->version = true;
    else if (id == SUITE_OPTS_O_DEPLOY)
        o->deploy = true;
    else if (id == SUITE_OPTS_O_DELETE_AFTER)
        o->delete_after = true;
    else if (id == SUITE_OPTS_O_NO_CHECK)
        o->no_endpoint_check = true;
    else if (id == SUITE_OPTS_O_BMODEL || id == SUITE_OPTS_O_CMODEL)
        o->model[id == SUITE_OPTS_O_CMODEL] = v;
    else if (id == SUITE_OPTS_O_ITYPE)
        o->instance_type = v;
    else if (id == SUITE_OPTS_O_ROLE)
        o->role = v;
    else if (id == SUITE_OPTS_O_ENDPOINT_URL)
        o->endpoint_url = v;
    else if (id == SUITE_OPTS_O_STREAM)
        o->stream = true;
    else if (id == SUITE_OPTS_O_CACERT)
        o->cacert = v;
    else if (id == SUITE_OPTS_O_MAX_ERRORS)
        o->max_error_rate = v;
    else if (id == SUITE_OPTS_O_MIN_ATTAIN)
        o->min_attainment = v;
    else if (id == SUITE_OPTS_O_NO_CLOUDWATCH)
        o->no_cloudwatch = true;
    else if (id == SUITE_OPTS_O_PLAIN_HTTP)
        o->allow_plain_http = true;
}

static int suite_opts_set(struct suite_opts_parser *p, enum suite_opts_id id, const char *v) {
    struct suite_opts *o = p->o;
    switch (id) {
    case SUITE_OPTS_O_REGION:
    case SUITE_OPTS_O_URL:
        return suite_opts_set_target(p, id, v);
    case SUITE_OPTS_O_SCENARIOS:
        return suite_opts_set_scenarios(p, v);
    case SUITE_OPTS_O_LEVELS:
        return suite_opts_set_levels(p, v);
    case SUITE_OPTS_O_ORDER:
        if (strcmp(v, "ab") != 0 && strcmp(v, "aba") != 0)
            return buf_fail(p->err, SUITE_OPTS_ERR_USAGE, "--order must be ab or aba, got '%s'", v);
        o->aba = strcmp(v, "aba") == 0;
        return SUITE_OPTS_OK;
    case SUITE_OPTS_O_SCALE:
        return suite_opts_positive(p, "time-scale", v, &o->time_scale);
    case SUITE_OPTS_O_PRICE:
        return suite_opts_positive(p, "price-per-hour", v, &o->price);
    case SUITE_OPTS_O_SLO:
        if (o->nslo == SUITE_OPTS_MAX_SLOS)
            return buf_fail(p->err, SUITE_OPTS_ERR_USAGE, "at most %d --slo", SUITE_OPTS_MAX_SLOS);
        o->slo[o->nslo++] = v;
        return SUITE_OPTS_OK;
    case SUITE_OPTS_O_SEARCH:
        return suite_search_parse_range(v, &o->search_lo, &o->search_hi, p->err) < 0
                   ? SUITE_OPTS_ERR_USAGE
                   : SUITE_OPTS_OK;
    case SUITE_OPTS_O_SEARCH_PROBES:
        return suite_opts_probes(p, v);
    default:
        suite_opts_keep(p, id, v);
        return SUITE_OPTS_OK;
    }
}

/* Whether the manifest keeps this option for a resume. */
static bool suite_opts_kept(enum suite_opts_id id) {
    return id != SUITE_OPTS_O_OUT && id != SUITE_OPTS_O_RESUME && id != SUITE_OPTS_O_DRY_RUN &&
           id != SUITE_OPTS_O_HELP && id != SUITE_OPTS_O_VERSION && id != SUITE_OPTS_O_DEPLOY &&
           id != SUITE_OPTS_O_DELETE_AFTER && id != SUITE_OPTS_O_BMODEL &&
           id != SUITE_OPTS_O_CMODEL && id != SUITE_OPTS_O_ITYPE && id != SUITE_OPTS_O_ROLE;
}

static const struct suite_opts_own *suite_opts_own_find(const char *name, size_t len) {
    for (size_t k = 0; k < sizeof suite_opts_own / sizeof suite_opts_own[0]; k++)
        if (strlen(suite_opts_own[k].name) == len &&
            strncmp(suite_opts_own[k].name, name, len) == 0)
            return &suite_opts_own[k];
    return NULL;
}

bool suite_opts_reserved(const char *word) {
    for (size_t k = 0; k < sizeof suite_opts_reserved_words / sizeof suite_opts_reserved_words[0];
         k++)
        if (strcmp(word, suite_opts_reserved_words[k]) == 0) return true;
    return false;
}

/* The option named word in scenario k's list; *negated when word is --no-NAME
 * of a flag NAME. */
static const struct suite_spec_opt *suite_opts_spec_opt(const struct suite_opts *o, int k,
                                                        const char *word, bool *negated) {
    const struct suite_spec_opt *s = suite_spec_find(o->spec[k], word);
    *negated = false;
    if (s || strncmp(word, "--no-", 5) != 0) return s;
    char flag[SUITE_SPEC_NAME_MAX + 8];
    snprintf(flag, sizeof flag, "--%s", word + 5);
    s = suite_spec_find(o->spec[k], flag);
    *negated = s && s->type == SUITE_SPEC_BOOL;
    return *negated ? s : NULL;
}

void suite_opts_list(unsigned bits, char *out, size_t len) {
    int n = __builtin_popcount(bits), i = 0;
    size_t k = 0;
    out[0] = '\0';
    for (unsigned s = 0; s < SUITE_OPTS_NSCENARIOS && k < len; s++) {
        if (!(bits & (1u << s))) continue;
        const char *sep = i == 0 ? "" : i == n - 1 ? " and " : ", ";
        k += (size_t)snprintf(out + k, len - k, "%s%s", sep, suite_opts_names[s]);
        i++;
    }
}

/* The scenarios of scope that take word (the same way: a flag or a value). */
static int suite_opts_takers(struct suite_opts_parser *p, unsigned scope, const char *given,
                             const char *word, struct suite_opts_pass *pass, bool *flag) {
    const struct suite_spec_opt *first = NULL;
    for (int k = 0; k < SUITE_OPTS_NSCENARIOS; k++) {
        bool negated;
        const struct suite_spec_opt *s =
            (scope & (1u << k)) ? suite_opts_spec_opt(p->o, k, word, &negated) : NULL;
        if (!s) continue;
        if (first && (first->type == SUITE_SPEC_BOOL) != (s->type == SUITE_SPEC_BOOL))
            return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                            "--%s is a flag of one scenario and takes a value in another: "
                            "prefix it with the scenario's name (e.g. --%s-%s)",
                            given, suite_opts_names[k], given);
        first = first ? first : s;
        pass->scenarios |= 1u << k;
        pass->name = s->name;
        pass->negated = negated;
        *flag = s->type == SUITE_SPEC_BOOL;
    }
    return SUITE_OPTS_OK;
}

/* Finds the scenarios given (NAME or SCENARIO-NAME, without "--") goes to;
 * *flag: it takes no value. */
static int suite_opts_resolve(struct suite_opts_parser *p, const char *given,
                              struct suite_opts_pass *pass, bool *flag) {
    unsigned run = 0;
    char word[SUITE_SPEC_NAME_MAX + 8], list[64];
    for (int k = 0; k < SUITE_OPTS_NSCENARIOS; k++) run |= p->o->spec[k] ? 1u << k : 0;
    snprintf(word, sizeof word, "--%s", given);
    for (int k = -1; k < SUITE_OPTS_NSCENARIOS && !pass->scenarios; k++) {
        size_t n = k < 0 ? 0 : strlen(suite_opts_names[k]);
        if (k >= 0 && (strncmp(given, suite_opts_names[k], n) != 0 || given[n] != '-')) continue;
        if (k >= 0 && !p->o->spec[k])
            return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                            "--%s: %s is not among the scenarios this suite runs (--scenarios)",
                            given, suite_opts_names[k]);
        if (k >= 0) snprintf(word, sizeof word, "--%s", given + n + 1);
        if (suite_opts_reserved(word))
            return buf_fail(
                p->err, SUITE_OPTS_ERR_USAGE,
                "--%s: sm-suite sets %s itself for every scenario (see sm-suite --help)", given,
                word);
        int rc = suite_opts_takers(p, k < 0 ? run : 1u << k, given, word, pass, flag);
        if (rc < 0) return rc;
    }
    if (pass->scenarios) return SUITE_OPTS_OK;
    if ((run & SUITE_OPTS_DEFAULT) == SUITE_OPTS_DEFAULT)
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE, "unknown option --%s (see sm-suite --help)",
                        given);
    suite_opts_list(run, list, sizeof list);
    return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                    "unknown option --%s: %s, which this suite runs, %s not take it (see "
                    "sm-suite --help)",
                    given, list, run & (run - 1) ? "do" : "does");
}

static int suite_opts_add_pass(struct suite_opts_parser *p, const struct suite_opts_pass *pass) {
    struct suite_opts *o = p->o;
    if (o->npass == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 16;
        struct suite_opts_pass *v = realloc(o->pass, cap * sizeof *v);
        if (!v) return buf_fail(p->err, SUITE_OPTS_ERR_NOMEM, "out of memory");
        o->pass = v;
        o->cap = cap;
    }
    o->pass[o->npass++] = *pass;
    return SUITE_OPTS_OK;
}

/* Checks v against the spec of every scenario that takes the option. */
static int suite_opts_check_value(struct suite_opts_parser *p, const struct suite_opts_pass *pass,
                                  const char *given, const char *v) {
    for (int k = 0; k < SUITE_OPTS_NSCENARIOS; k++) {
        const struct suite_spec_opt *s = suite_spec_find(p->o->spec[k], pass->name);
        if ((pass->scenarios & (1u << k)) && s && suite_spec_check(s, given, v, p->err) < 0)
            return SUITE_OPTS_ERR_USAGE;
    }
    return SUITE_OPTS_OK;
}

/* A scenario option and its value; when scanning, only steps over them. */
static int suite_opts_scenario_word(struct suite_opts_parser *p, const char *given,
                                    const char *inline_v, char *const *words, size_t n, size_t *i) {
    if (p->scan) {
        if (!inline_v && *i + 1 < n && strncmp(words[*i + 1], "--", 2) != 0) ++*i;
        return SUITE_OPTS_OK;
    }
    struct suite_opts_pass pass = {0};
    bool flag = false;
    int rc = suite_opts_resolve(p, given, &pass, &flag);
    if (rc < 0) return rc;
    if (flag) {
        if (inline_v) return buf_fail(p->err, SUITE_OPTS_ERR_USAGE, "--%s takes no value", given);
    } else {
        pass.value = inline_v ? inline_v : *i + 1 < n ? words[++*i] : NULL;
        if (!pass.value) return buf_fail(p->err, SUITE_OPTS_ERR_USAGE, "--%s wants a value", given);
        if ((rc = suite_opts_check_value(p, &pass, given, pass.value)) < 0) return rc;
    }
    return suite_opts_add_pass(p, &pass);
}

/* The words of one option (words[first..last]) into the list the manifest keeps. */
static int suite_opts_save(struct suite_opts_parser *p, char *const *words, size_t first,
                           size_t last) {
    if (p->scan || suite_argv_addv(&p->o->saved, words + first, last - first + 1) == 0)
        return SUITE_OPTS_OK;
    return buf_fail(p->err, SUITE_OPTS_ERR_NOMEM, "out of memory");
}

/* One word (and its value): a suite option or a scenario option. */
static int suite_opts_word(struct suite_opts_parser *p, char *const *words, size_t n, size_t *i) {
    const char *w = words[*i];
    size_t first = *i;
    if (strcmp(w, "-h") == 0) w = "--help";
    if (strncmp(w, "--", 2) != 0 || !w[2])
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "unexpected word '%s' (options start with --; see sm-suite --help)", w);
    char name[SUITE_SPEC_NAME_MAX];
    const char *eq = strchr(w, '=');
    size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
    if (len >= sizeof name)
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE, "unknown option %.*s (see sm-suite --help)",
                        70, w);
    memcpy(name, w + 2, len);
    name[len] = '\0';
    const char *v = eq ? eq + 1 : NULL;
    const struct suite_opts_own *s = suite_opts_own_find(name, len);
    int rc;
    if (!s) {
        rc = suite_opts_scenario_word(p, name, v, words, n, i);
        return rc < 0 ? rc : suite_opts_save(p, words, first, *i);
    }
    if (!s->value && v) return buf_fail(p->err, SUITE_OPTS_ERR_USAGE, "--%s takes no value", name);
    if (s->value && !v) {
        if (*i + 1 >= n) return buf_fail(p->err, SUITE_OPTS_ERR_USAGE, "--%s wants a value", name);
        v = words[++*i];
    }
    if (suite_opts_kept(s->id) && (rc = suite_opts_save(p, words, first, *i)) < 0) return rc;
    return suite_opts_set(p, s->id, v);
}

static int suite_opts_make_side(struct suite_opts_parser *p, int k, bool variants) {
    static const char *const what[2][2] = {{"--baseline", "--candidate"},
                                           {"--baseline-variant", "--candidate-variant"}};
    struct suite_opts_side *s = &p->o->side[k];
    if (variants) strcpy(s->name, p->endpoint);
    int rc = suite_opts_side_spec(p, p->spec[variants][k], what[variants][k], variants, s);
    if (rc < 0) return rc;
    const char *id = variants ? s->variant : s->name;
    if (!smname_endpoint_ok(id, strlen(id)))
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "%s: '%s' is not a SageMaker %s name (letters, digits and inner '-', "
                        "at most 63)",
                        what[variants][k], id, variants ? "variant" : "endpoint");
    const char *comp = p->component[k];
    if (comp && (strlen(comp) >= SUITE_OPTS_NAME_MAX || !smname_endpoint_ok(comp, strlen(comp))))
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "--%s-component: '%s' is not a SageMaker inference component name "
                        "(letters, digits and inner '-', at most 63)",
                        k ? "candidate" : "baseline", comp);
    if (comp) strcpy(s->component, comp);
    if (comp && !s->labelled) id = comp; /* the component names its side */
    if (!s->labelled) strcpy(s->label, id);
    if (!suite_opts_label_ok(s->label))
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "%s: the label '%s' may hold only letters, digits, '.', '_' and '-', "
                        "not start with '.', and not be the name of a file of the run directory",
                        what[variants][k], s->label);
    return SUITE_OPTS_OK;
}

/* Which way the sides are given: two endpoints, or two variants of one. */
static int suite_opts_side_kind(struct suite_opts_parser *p, bool *by_variant) {
    bool by_endpoint = p->spec[0][0] || p->spec[0][1];
    *by_variant = p->endpoint || p->spec[1][0] || p->spec[1][1];
    if (by_endpoint && *by_variant)
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "give two endpoints (--baseline, --candidate) or two variants of one "
                        "(--endpoint, --baseline-variant, --candidate-variant), not both");
    if (!by_endpoint && !*by_variant)
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "no endpoints: pass --baseline NAME --candidate NAME (or --endpoint NAME "
                        "--baseline-variant A --candidate-variant B)");
    if (*by_variant && !p->endpoint)
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "--baseline-variant and --candidate-variant need --endpoint NAME");
    if (*by_variant && !smname_endpoint_ok(p->endpoint, strlen(p->endpoint)))
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "--endpoint: '%s' is not a SageMaker endpoint name (letters, digits and "
                        "inner '-', at most 63)",
                        p->endpoint);
    return SUITE_OPTS_OK;
}

static int suite_opts_make_sides(struct suite_opts_parser *p) {
    struct suite_opts *o = p->o;
    bool by_variant;
    int rc = suite_opts_side_kind(p, &by_variant);
    if (rc < 0) return rc;
    o->variants = by_variant;
    for (int k = 0; k < 2; k++)
        if (!p->spec[by_variant][k])
            return buf_fail(
                p->err, SUITE_OPTS_ERR_USAGE, "no %s: pass %s", k ? "candidate" : "baseline",
                by_variant ? (k ? "--candidate-variant VARIANT" : "--baseline-variant VARIANT")
                           : (k ? "--candidate NAME" : "--baseline NAME"));
    if ((rc = suite_opts_make_side(p, 0, by_variant)) < 0 ||
        (rc = suite_opts_make_side(p, 1, by_variant)) < 0)
        return rc;
    if (strcmp(o->side[0].label, o->side[1].label) == 0)
        return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                        "the baseline and the candidate share the label '%s': name them with "
                        "NAME=LABEL",
                        o->side[0].label);
    return SUITE_OPTS_OK;
}

/* The scenarios run must be those whose options were read (a value that starts
 * with -- can make the two reads of the words differ). */
static int suite_opts_check_run(struct suite_opts_parser *p) {
    unsigned run = 0, known = 0;
    for (int i = 0; i < p->o->nscenarios; i++) run |= p->o->order[i];
    for (int k = 0; k < SUITE_OPTS_NSCENARIOS; k++) known |= p->o->spec[k] ? 1u << k : 0;
    if (run == known) return SUITE_OPTS_OK;
    return buf_fail(p->err, SUITE_OPTS_ERR_USAGE,
                    "the scenarios to run are unclear: write a value that starts with -- as "
                    "--NAME=VALUE");
}

/* --capacity-search and its company: the rate step searched, at least one SLO. */
static int suite_opts_check_search(struct suite_opts *o, struct buf *err) {
    bool rate = false;
    for (int i = 0; i < o->nscenarios; i++) rate |= o->order[i] == SUITE_OPTS_RATE;
    if (!o->searching) {
        return o->search_probes ? buf_fail(err, SUITE_OPTS_ERR_USAGE,
                                           "--search-probes goes with --capacity-search LO:HI")
                                : SUITE_OPTS_OK;
    }
    if (!o->search_probes) o->search_probes = SUITE_SEARCH_DEFAULT_PROBES;
    if (!rate)
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "--capacity-search searches the rate step: add rate to --scenarios");
    if (!o->nslo)
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "--capacity-search needs at least one --slo METRIC:pQ:SECONDS to hold");
    if (suite_opts_value(o, SUITE_OPTS_RATE, "--rates"))
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "--capacity-search chooses the rates itself: drop --rates");
    if (o->aba)
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "--capacity-search and --order aba do not go together: each side is "
                        "searched on its own already");
    return SUITE_OPTS_OK;
}

/* --url and --endpoint-url: no signing for plain http to another machine unless
 * --allow-plain-http (plainhttp.h), refused here once rather than by every step. */
static int suite_opts_check_plain(const struct suite_opts *o, struct buf *err) {
    const char *const urls[2][2] = {{"--url", o->url}, {"--endpoint-url", o->endpoint_url}};
    for (size_t i = 0; i < 2; i++) {
        if (!urls[i][1] || !plainhttp_check(urls[i][1], o->allow_plain_http, err)) continue;
        char why[1024];
        snprintf(why, sizeof why, "%s", buf_str(err));
        return buf_fail(err, SUITE_OPTS_ERR_USAGE, "%s: %s", urls[i][0], why);
    }
    return SUITE_OPTS_OK;
}

/* --deploy and its company. */
static int suite_opts_check_deploy(const struct suite_opts *o, struct buf *err) {
    if (o->endpoint_url && strncmp(o->endpoint_url, "http://", 7) != 0 &&
        strncmp(o->endpoint_url, "https://", 8) != 0)
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "--endpoint-url wants an http:// or https:// URL, got '%s'",
                        o->endpoint_url);
    if (!o->deploy) {
        const char *stray = o->delete_after    ? "--delete-after"
                            : o->model[0]      ? "--baseline-model"
                            : o->model[1]      ? "--candidate-model"
                            : o->instance_type ? "--instance-type"
                            : o->role          ? "--role"
                                               : NULL;
        return stray ? buf_fail(err, SUITE_OPTS_ERR_USAGE, "%s goes with --deploy", stray)
                     : SUITE_OPTS_OK;
    }
    if (o->resume)
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "--deploy and --resume do not go together: a resume measures the "
                        "endpoints that are there");
    if (!o->model[0] || !o->model[1])
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "--deploy needs --baseline-model and --candidate-model (their "
                        "SM_VLLM_MODEL, e.g. google/gemma-4-E2B-it)");
    if (!o->role)
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "--deploy needs --role ARN, the execution role of the endpoints");
    return SUITE_OPTS_OK;
}

static void suite_opts_start(struct suite_opts *o) {
    memset(o, 0, sizeof *o);
    suite_argv_init(&o->saved);
    o->time_scale = 1;
}

/* Every word, then the defaults of --scenarios and --levels. */
static int suite_opts_words(struct suite_opts_parser *p, char *const *words, size_t n) {
    int rc = SUITE_OPTS_OK;
    for (size_t i = 0; i < n && rc == SUITE_OPTS_OK; i++) rc = suite_opts_word(p, words, n, &i);
    if (rc == SUITE_OPTS_OK && !p->o->nscenarios)
        rc = suite_opts_set_scenarios(p, "decode,sweep,quiz");
    if (rc == SUITE_OPTS_OK && !p->o->nlevels) rc = suite_opts_set_levels(p, "1,4,16");
    return rc;
}

int suite_opts_scan(char *const *words, size_t n, struct suite_opts *o, struct buf *err) {
    suite_opts_start(o);
    struct suite_opts_parser p = {.o = o, .err = err, .scan = true};
    return suite_opts_words(&p, words, n);
}

int suite_opts_parse(char *const *words, size_t n, const char *env_region,
                     const struct suite_spec *const spec[SUITE_OPTS_NSCENARIOS],
                     struct suite_opts *o, struct buf *err) {
    suite_opts_start(o);
    memcpy(o->spec, spec, sizeof o->spec);
    struct suite_opts_parser p = {.o = o, .err = err};
    int rc = suite_opts_words(&p, words, n);
    if (rc < 0 || o->help || o->version) return rc;
    if (o->out && o->resume)
        return buf_fail(err, SUITE_OPTS_ERR_USAGE, "--out and --resume do not go together");
    if ((rc = suite_opts_check_deploy(o, err)) < 0 || (rc = suite_opts_check_plain(o, err)) < 0)
        return rc;
    o->searching = o->search_hi > 0;
    if ((rc = suite_opts_check_search(o, err)) < 0) return rc;
    if ((rc = suite_opts_make_sides(&p)) < 0 || (rc = suite_opts_check_run(&p)) < 0) return rc;
    if (o->deploy && o->variants)
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "--deploy deploys two endpoints: name them with --baseline and "
                        "--candidate, not --endpoint and its variants");
    if (o->deploy && (o->side[0].component[0] || o->side[1].component[0]))
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "--deploy creates endpoints without inference components: drop "
                        "--%s-component, or deploy the component first",
                        o->side[0].component[0] ? "baseline" : "candidate");
    if (!o->region) o->region = env_region && *env_region ? env_region : NULL;
    if (!o->region)
        return buf_fail(err, SUITE_OPTS_ERR_USAGE,
                        "no region: pass --region REGION (or set AWS_REGION)");
    return SUITE_OPTS_OK;
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

const char *suite_opts_setting(const struct suite_opts *o, unsigned scenario, const char *name) {
    const char *v = suite_opts_value(o, scenario, name);
    for (int k = 0; !v && k < SUITE_OPTS_NSCENARIOS; k++) {
        const struct suite_spec_opt *s =
            scenario == 1u << k ? suite_spec_find(o->spec[k], name) : NULL;
        v = s ? s->dflt : NULL;
    }
    return v;
}

int suite_opts_guarded(const struct suite_argv *words, bool keep, struct suite_argv *out) {
    for (size_t i = 0; i < words->n; i++) {
        const char *w = words->v[i];
        const char *eq = strchr(w, '=');
        size_t len = strncmp(w, "--", 2) == 0 ? (eq ? (size_t)(eq - w) : strlen(w)) - 2 : 0;
        const struct suite_opts_own *s = len ? suite_opts_own_find(w + 2, len) : NULL;
        size_t last = s && s->value && !eq && i + 1 < words->n ? i + 1 : i;
        if ((s && s->guarded) == keep &&
            suite_argv_addv(out, words->v + i, last - i + 1) != SUITE_ARGV_OK)
            return SUITE_OPTS_ERR_NOMEM;
        i = last;
    }
    return SUITE_OPTS_OK;
}

int suite_opts_resume_command(const struct suite_opts *o, const char *self, const char *dir,
                              struct buf *b) {
    struct suite_argv guarded;
    suite_argv_init(&guarded);
    int rc =
        suite_opts_guarded(&o->saved, true, &guarded) == SUITE_OPTS_OK ? BUF_OK : BUF_ERR_NOMEM;
    if (rc == BUF_OK) rc = suite_argv_quote(b, self);
    if (rc == BUF_OK) rc = buf_adds(b, " --resume ");
    if (rc == BUF_OK) rc = suite_argv_quote(b, dir);
    if (rc == BUF_OK && guarded.n) rc = buf_addc(b, ' ');
    if (rc == BUF_OK) rc = suite_argv_quote_all(b, &guarded);
    suite_argv_free(&guarded);
    return rc;
}
