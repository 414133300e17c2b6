#include "suite_crun.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "readall.h"
#include "suite_cdrun.h"
#include "suite_deploy.h"
#include "suite_exec.h"
#include "suite_files.h"

/* Options the candidates file gives per candidate, or this run sets for each pair. */
static const char *const suite_crun_owned[] = {"--baseline",
                                               "--candidate",
                                               "--endpoint",
                                               "--baseline-variant",
                                               "--candidate-variant",
                                               "--resume",
                                               "--deploy",
                                               "--delete-after",
                                               "--baseline-model",
                                               "--candidate-model",
                                               "--price-per-hour",
                                               "--facts-baseline",
                                               "--facts-candidate",
                                               "--instance-type",
                                               "--baseline-component",
                                               "--candidate-component",
                                               NULL};

size_t suite_crun_npairs(size_t n) {
    return (n + 1) / 2;
}

bool suite_crun_asked(char *const *argv, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(argv[i], "--candidates") == 0) return true;
    return false;
}

bool suite_crun_asked_help(char *const *argv, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
            strcmp(argv[i], "--version") == 0)
            return true;
    return false;
}

/* A candidate this version runs: an existing endpoint, maybe a variant or an inference
 * component of it, or a deploy spec once named. */
static int suite_crun_runnable(const struct suite_cand *c, size_t i, struct buf *err) {
    if (c->deploy && !c->endpoint[0])
        return buf_fail(err, SUITE_CRUN_ERR_USAGE,
                        "--candidates: candidates[%zu] (%s): a deploy spec without its "
                        "endpoint's name (suite_cdrun_name)",
                        i, c->label);
    return SUITE_CRUN_OK;
}

/* --baseline-component and --candidate-component of the sides that name one. */
static int suite_crun_components(const struct suite_cand *a, const struct suite_cand *b,
                                 struct suite_argv *out) {
    if (a->component[0] &&
        (suite_argv_add(out, "--baseline-component") || suite_argv_add(out, a->component)))
        return SUITE_CRUN_ERR_NOMEM;
    if (b->component[0] &&
        (suite_argv_add(out, "--candidate-component") || suite_argv_add(out, b->component)))
        return SUITE_CRUN_ERR_NOMEM;
    return SUITE_CRUN_OK;
}

/* The sides of pair k: --baseline/--candidate, or --endpoint with two variants. */
static int suite_crun_sides(const struct suite_cand_list *l, size_t k, struct suite_argv *out,
                            struct buf *err) {
    size_t ia = 2 * k, ib = 2 * k + 1 < l->n ? 2 * k + 1 : 2 * k;
    const struct suite_cand *a = &l->c[ia], *b = &l->c[ib];
    int rc = suite_crun_runnable(a, ia, err);
    if (!rc) rc = suite_crun_runnable(b, ib, err);
    if (rc) return rc;
    const char *again = ia == ib ? ".aa" : "";
    if (!a->variant[0] && !b->variant[0])
        return suite_argv_add(out, "--baseline") ||
                       suite_argv_addf(out, "%s=%s", a->endpoint, a->label) ||
                       suite_argv_add(out, "--candidate") ||
                       suite_argv_addf(out, "%s=%s%s", b->endpoint, b->label, again)
                   ? SUITE_CRUN_ERR_NOMEM
                   : suite_crun_components(a, b, out);
    if (a->variant[0] && b->variant[0] && strcmp(a->endpoint, b->endpoint) == 0 &&
        (ia == ib || strcmp(a->variant, b->variant) != 0))
        return suite_argv_add(out, "--endpoint") || suite_argv_add(out, a->endpoint) ||
                       suite_argv_add(out, "--baseline-variant") ||
                       suite_argv_addf(out, "%s=%s", a->variant, a->label) ||
                       suite_argv_add(out, "--candidate-variant") ||
                       suite_argv_addf(out, "%s=%s%s", b->variant, b->label, again)
                   ? SUITE_CRUN_ERR_NOMEM
                   : SUITE_CRUN_OK;
    return buf_fail(err, SUITE_CRUN_ERR_USAGE,
                    "--candidates: candidates[%zu] (%s) and [%zu] (%s) are measured together: "
                    "give both as endpoints (or their inference components), or both as "
                    "variants of one endpoint (order the file so)",
                    ia, a->label, ib, b->label);
}

int suite_crun_pair_argv(const struct suite_cand_list *l, size_t k, const char *self,
                         const char *dir, bool resume, char *const *rest, size_t nrest,
                         struct suite_argv *out, struct buf *err) {
    suite_argv_free(out);
    suite_argv_init(out);
    for (size_t i = 0; i < nrest; i++)
        for (const char *const *o = suite_crun_owned; *o; o++) {
            size_t n = strlen(*o);
            if (strncmp(rest[i], *o, n) == 0 && (rest[i][n] == '\0' || rest[i][n] == '='))
                return buf_fail(err, SUITE_CRUN_ERR_USAGE,
                                "%s: with --candidates the candidates file names the sides, "
                                "their prices and instances: give it there",
                                *o);
        }
    if (suite_argv_add(out, self) || suite_argv_add(out, resume ? "--resume" : "--out") ||
        suite_argv_addf(out, "%s/pair-%zu", dir, k + 1))
        return SUITE_CRUN_ERR_NOMEM;
    int rc = suite_crun_sides(l, k, out, err);
    if (!rc && suite_argv_addv(out, rest, nrest)) rc = SUITE_CRUN_ERR_NOMEM;
    return rc;
}

static double suite_crun_num(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int suite_crun_figures(const char *text, size_t len, int side, struct suite_cand_figures *f) {
    const char *role = side == 0 ? "baseline" : "candidate";
    *f = (struct suite_cand_figures){NAN, NAN, NAN, NAN, 0, 0, 0, NULL};
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return SUITE_CRUN_ERR_USAGE;
    }
    const cJSON *open = cJSON_GetObjectItemCaseSensitive(root, "open_loop");
    const cJSON *sides = cJSON_GetObjectItemCaseSensitive(open, "sides");
    const cJSON *cap =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(sides, role), "capacity");
    if (cJSON_IsObject(cap)) {
        f->capacity_rps = suite_crun_num(cap, "requests_per_second");
        f->last_held_rps = suite_crun_num(cap, "last_held");
        f->first_failed_rps = suite_crun_num(cap, "first_failed");
        f->tokens_per_request = suite_crun_num(cap, "tokens_per_request");
    }
    const cJSON *q =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "quality"), role);
    double correct = suite_crun_num(q, "correct"), total = suite_crun_num(q, "questions");
    if (isfinite(correct) && isfinite(total) && total > 0 && correct >= 0 && correct <= total)
        f->quiz_correct = (long)correct, f->quiz_total = (long)total;
    cJSON_Delete(root);
    return SUITE_CRUN_OK;
}

/* --- the run ------------------------------------------------------------------ */

struct suite_crun {
    const char *file, *out;
    char outbuf[64];
    char self[PATH_MAX];
    struct suite_argv rest; /* every other word, for each pair */
    struct suite_cand_list l;
    struct suite_cand_figures f[SUITE_CAND_MAX];
    const char *slo;
    struct buf err;
    struct suite_cdrun d; /* the deploy specs' endpoints */
};

static int suite_crun_fail(const char *msg) {
    fprintf(stderr, "sm-suite: %s\n", msg);
    return 2;
}

static int suite_crun_args(struct suite_crun *r, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        bool cand = strcmp(argv[i], "--candidates") == 0, out = strcmp(argv[i], "--out") == 0;
        if ((cand || out) && i + 1 == argc)
            return buf_fail(&r->err, SUITE_CRUN_ERR_USAGE, "%s: want a value", argv[i]);
        if (cand || out) {
            *(cand ? &r->file : &r->out) = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--slo") == 0 && i + 1 < argc && !r->slo) r->slo = argv[i + 1];
        if (suite_argv_add(&r->rest, argv[i])) return SUITE_CRUN_ERR_NOMEM;
    }
    if (!r->out) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(r->outbuf, sizeof r->outbuf, "runs/candidates-%Y%m%dT%H%M%SZ", &tm);
        r->out = r->outbuf;
    }
    ssize_t n = readlink("/proc/self/exe", r->self, sizeof r->self - 1);
    if (n <= 0)
        snprintf(r->self, sizeof r->self, "%s", argv[0]);
    else
        r->self[n] = '\0';
    return SUITE_CRUN_OK;
}

static int suite_crun_load(struct suite_crun *r) {
    struct buf text;
    buf_init(&text, SUITE_CAND_FILE_MAX);
    int rd = readall_regular(r->file, &text), rc;
    if (rd)
        rc = buf_fail(&r->err, SUITE_CRUN_ERR_USAGE, "--candidates %s: %s", r->file,
                      rd == BUF_ERR_CAP ? "larger than 1 MiB"
                      : rd > 0          ? strerror(rd)
                                        : "out of memory");
    else
        rc = suite_cand_parse(buf_str(&text), text.len, r->file, &r->l, &r->err)
                 ? SUITE_CRUN_ERR_USAGE
                 : SUITE_CRUN_OK;
    buf_free(&text);
    return rc;
}

static void suite_crun_line(void *ctx, const char *line, bool is_stderr) {
    (void)ctx;
    fprintf(is_stderr ? stderr : stdout, "%s\n", line);
}

/* Runs pair k; *status is the child's exit status. */
static int suite_crun_pair(struct suite_crun *r, size_t k, int *status) {
    struct suite_argv cmd;
    char manifest[PATH_MAX + 32];
    snprintf(manifest, sizeof manifest, "%s/pair-%zu/manifest.json", r->out, k + 1);
    bool resume = access(manifest, F_OK) == 0;
    suite_argv_init(&cmd);
    int rc = suite_crun_pair_argv(&r->l, k, r->self, r->out, resume, r->rest.v, r->rest.n, &cmd,
                                  &r->err);
    size_t ia = 2 * k, ib = 2 * k + 1 < r->l.n ? 2 * k + 1 : 2 * k;
    if (!rc)
        fprintf(stderr, "sm-suite: candidates: pair %zu of %zu: %s and %s%s%s\n", k + 1,
                suite_crun_npairs(r->l.n), r->l.c[ia].label, r->l.c[ib].label,
                ia == ib ? ".aa (itself again)" : "", resume ? " (resumed)" : "");
    struct suite_exec_io io = {-1, -1, suite_crun_line, NULL, r, false};
    if (!rc && suite_exec_run(cmd.v, &io, status, &r->err) < 0) rc = SUITE_CRUN_ERR_USAGE;
    suite_argv_free(&cmd);
    return rc;
}

/* OUT/LABEL: a link to the candidate's folder in its pair's run. */
static void suite_crun_link(const struct suite_crun *r, size_t i) {
    char target[PATH_MAX], link[PATH_MAX + 80];
    snprintf(target, sizeof target, "pair-%zu/%s", i / 2 + 1, r->l.c[i].label);
    snprintf(link, sizeof link, "%s/%s", r->out, r->l.c[i].label);
    if (symlink(target, link) < 0 && errno != EEXIST)
        fprintf(stderr, "sm-suite: warning: cannot link %s: %s\n", link, strerror(errno));
}

static void suite_crun_collect(struct suite_crun *r) {
    for (size_t i = 0; i < r->l.n; i++) {
        char path[PATH_MAX + 32];
        struct buf text;
        snprintf(path, sizeof path, "%s/pair-%zu/report.json", r->out, i / 2 + 1);
        buf_init(&text, 64u << 20);
        if (readall_regular(path, &text) != 0 ||
            suite_crun_figures(buf_str(&text), text.len, (int)(i % 2), &r->f[i]) != 0) {
            r->f[i] = (struct suite_cand_figures){NAN, NAN, NAN, NAN, 0, 0, 0, NULL};
            fprintf(stderr, "sm-suite: warning: %s: no report to read %s's figures from\n", path,
                    r->l.c[i].label);
        }
        buf_free(&text);
        r->f[i].price_per_hour = r->l.c[i].price_per_hour;
        r->f[i].price_source = r->l.c[i].price_per_hour <= 0 ? NULL
                               : r->l.c[i].component[0]
                                   ? "the candidates file (the inference component's share)"
                                   : "the candidates file";
        suite_crun_link(r, i);
    }
}

static void suite_crun_table(const struct suite_crun *r) {
    printf("\n%-20s %-15s %22s %11s %9s %13s %7s\n", "candidate", "instance",
           "capacity req/s [held, failed]", "tokens/s", "USD/h", "USD/M tokens", "quiz");
    for (size_t i = 0; i < r->l.n; i++) {
        const struct suite_cand *c = &r->l.c[i];
        const struct suite_cand_figures *f = &r->f[i];
        char bracket[64], quiz[24];
        double usd = suite_cand_usd_per_million(f->price_per_hour, c->instance_count,
                                                f->capacity_rps * f->tokens_per_request);
        /* no rate held: the capacity is below the first failed; none failed: at least the
           last held (and the cost the other way) */
        bool below = !isfinite(f->last_held_rps) && isfinite(f->first_failed_rps);
        bool above = isfinite(f->last_held_rps) && !isfinite(f->first_failed_rps);
        snprintf(bracket, sizeof bracket, "%s%.2f [%.2f, %.2f]",
                 below   ? "< "
                 : above ? ">= "
                         : "",
                 f->capacity_rps, f->last_held_rps, f->first_failed_rps);
        char cost[32], tokens[32];
        snprintf(cost, sizeof cost, "%s%.4f", below ? "> " : above ? "<= " : "", usd);
        snprintf(tokens, sizeof tokens, "%s%.1f",
                 below   ? "< "
                 : above ? ">= "
                         : "",
                 f->capacity_rps * f->tokens_per_request);
        if (f->quiz_total)
            snprintf(quiz, sizeof quiz, "%ld/%ld", f->quiz_correct, f->quiz_total);
        else
            snprintf(quiz, sizeof quiz, "-");
        printf("%-20s %-15s %29s %11s %9.4f %13s %7s\n", c->label,
               c->instance_type[0] ? c->instance_type : "-", bracket, tokens,
               f->price_per_hour * c->instance_count, cost, quiz);
    }
    int best = suite_cand_cheapest(&r->l, r->f), rival = suite_cand_rival(&r->l, r->f, best);
    if (best >= 0)
        printf("cheapest at capacity%s%s: %s", r->slo ? " at " : "", r->slo ? r->slo : "",
               r->l.c[best].label);
    /* on the same line: a reader of the first words must not take it for a choice */
    if (best >= 0 && rival >= 0)
        printf(", not decided by the brackets: %s's cost range overlaps %s's (the capacities "
               "inside the brackets choose, and a loaded client moves them: more probes, a "
               "quieter client host or a lower --time-scale narrow them)",
               r->l.c[rival].label, r->l.c[best].label);
    if (best >= 0) printf("\n");
    if (best < 0)
        printf("cheapest at capacity: none (no candidate has both a capacity and a price)\n");
}

static int suite_crun_summary(struct suite_crun *r) {
    struct buf json;
    char path[PATH_MAX + 32];
    buf_init(&json, 1u << 20);
    int rc = suite_cand_summary(&r->l, r->f, r->slo, &json);
    snprintf(path, sizeof path, "%s/candidates.json", r->out);
    /* never through a link planted at its name */
    int fd = rc ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, json.data, json.len) != (ssize_t)json.len) rc = -1;
    if (fd >= 0 && close(fd) != 0) rc = -1;
    if (rc) fprintf(stderr, "sm-suite: cannot write %s: %s\n", path, strerror(errno));
    buf_free(&json);
    return rc;
}

static bool suite_crun_dry(const struct suite_crun *r) {
    for (size_t i = 0; i < r->rest.n; i++)
        if (strcmp(r->rest.v[i], "--dry-run") == 0) return true;
    return false;
}

/* Pair k's endpoints are there: the deploys of its step of the plan. */
static int suite_crun_up(struct suite_crun *r, size_t k, int *upw) {
    if (!r->d.ndeploy || r->d.dry || r->d.wave[k] == *upw) return 0;
    *upw = r->d.wave[k];
    int rc = suite_cdrun_up(&r->d, *upw, &r->err);
    if (rc == SUITE_CDRUN_ERR_STOPPED) return 130;
    return rc ? 1 : 0;
}

/* Stopped: what is left, and how to go on. */
static int suite_crun_stopped(const struct suite_crun *r) {
    suite_cdrun_left(&r->d);
    fprintf(stderr,
            "sm-suite: candidates: stopped; run the same command again (--out %s) to go on\n",
            r->out);
    return 130;
}

static int suite_crun_pairs(struct suite_crun *r) {
    int worst = 0, upw = -1;
    for (size_t k = 0; k < suite_crun_npairs(r->l.n); k++) {
        int status = 0;
        if (r->d.ndeploy && !r->d.dry && r->d.wave[k] < 0) {
            fprintf(stderr, "sm-suite: candidates: pair %zu: done (%s)\n", k + 1, r->d.path);
            continue;
        }
        int up = suite_exec_stopping() ? 130 : suite_crun_up(r, k, &upw);
        if (up == 130) return suite_crun_stopped(r);
        if (up) return 1; /* the wave's deploys were deleted */
        if (suite_exec_stopping() || suite_crun_pair(r, k, &status)) {
            if (!suite_exec_stopping()) return suite_crun_fail(buf_str(&r->err));
            status = 130;
        }
        if (status == 130 || suite_exec_stopping()) return suite_crun_stopped(r);
        if (!r->d.dry && r->d.ndeploy) {
            /* the pair ended: its endpoints go, and with status 2 (the child said why)
               those of the pairs of its step too */
            for (size_t j = k; j < suite_crun_npairs(r->l.n); j++)
                if (j == k || (status == 2 && r->d.wave[j] == r->d.wave[k]))
                    worst |= suite_cdrun_down(&r->d, j, j == k && status == 0);
        }
        if (status == 2) return 2;
        if (status != 0) worst = 1;
    }
    return worst;
}

/* Every inference component of the file is InService on its endpoint before the first
 * pair measures anything (each pair's run checks its own again), where its run would
 * check: not with --no-endpoint-check, nor with --url and no --endpoint-url. */
static int suite_crun_components_ready(struct suite_crun *r) {
    bool any = false;
    for (size_t i = 0; i < r->l.n; i++) any |= r->l.c[i].component[0] != '\0';
    if (!any) return SUITE_CRUN_OK;
    struct suite_opts o;
    int rc = suite_opts_scan(r->rest.v, r->rest.n, &o, &r->err) ? SUITE_CRUN_ERR_USAGE : 0;
    const char *region = o.region;
    if (!region || !*region) region = getenv("AWS_REGION");
    if (!region || !*region) region = getenv("AWS_DEFAULT_REGION");
    o.region = region;
    bool check = !rc && region && *region && !o.no_endpoint_check && !o.dry_run &&
                 (!o.url || o.endpoint_url);
    for (size_t i = 0; check && !rc && i < r->l.n; i++) {
        const struct suite_cand *c = &r->l.c[i];
        if (!c->component[0]) continue;
        snprintf(o.side[0].name, sizeof o.side[0].name, "%s", c->endpoint);
        snprintf(o.side[0].component, sizeof o.side[0].component, "%s", c->component);
        int ck = suite_deploy_check_component(&o, 0, &r->err);
        if (ck == SUITE_DEPLOY_ERR_NOMEM) rc = SUITE_CRUN_ERR_NOMEM;
        if (ck && !rc) {
            char why[1024];
            snprintf(why, sizeof why, "%s", buf_str(&r->err));
            rc = buf_fail(&r->err, SUITE_CRUN_ERR_USAGE, "--candidates: candidates[%zu] (%s): %s",
                          i, c->label, why);
        }
    }
    suite_opts_free(&o);
    return rc;
}

static int suite_crun_go(struct suite_crun *r, int argc, char **argv) {
    int rc = suite_crun_args(r, argc, argv);
    if (!rc) rc = suite_crun_load(r);
    r->d.l = &r->l;
    r->d.out = r->out;
    if (!rc && suite_cdrun_args(&r->d, &r->rest, &r->err)) rc = SUITE_CRUN_ERR_USAGE;
    if (!rc && suite_cdrun_name(&r->d, &r->err)) rc = SUITE_CRUN_ERR_USAGE;
    struct suite_argv probe;
    suite_argv_init(&probe);
    /* every pair's command is checked before the first runs */
    for (size_t k = 0; !rc && k < suite_crun_npairs(r->l.n); k++)
        rc = suite_crun_pair_argv(&r->l, k, r->self, r->out, false, r->rest.v, r->rest.n, &probe,
                                  &r->err);
    suite_argv_free(&probe);
    if (!rc) rc = suite_crun_components_ready(r);
    if (rc == SUITE_CRUN_ERR_NOMEM) return suite_crun_fail("out of memory");
    if (rc) return suite_crun_fail(buf_str(&r->err));
    if ((rc = suite_cdrun_plan(&r->d, &r->err))) {
        if (rc == SUITE_CDRUN_ERR_STOPPED) return 130;
        suite_crun_fail(buf_str(&r->err));
        return rc == SUITE_CDRUN_ERR_FAILED ? 1 : 2; /* an AWS call failed, or refused */
    }
    if (!suite_crun_dry(r) && suite_files_mkdirs(r->out, &r->err) < 0)
        return suite_crun_fail(buf_str(&r->err));
    int worst = suite_crun_pairs(r);
    if (worst == 2 || worst == 130) return worst;
    if (suite_crun_dry(r)) return 0;
    suite_crun_collect(r);
    if (suite_crun_summary(r)) return 1;
    suite_crun_table(r);
    printf("candidates.json: %s/candidates.json\n", r->out);
    return worst;
}

int suite_crun_main(int argc, char **argv, char *(*find_endpoint)(void)) {
    struct suite_crun *r = calloc(1, sizeof *r);
    if (!r) return suite_crun_fail("out of memory");
    r->d.find_endpoint = find_endpoint;
    suite_argv_init(&r->rest);
    buf_init(&r->err, 4096);
    int rc = suite_crun_go(r, argc, argv);
    suite_cdrun_free(&r->d);
    suite_argv_free(&r->rest);
    buf_free(&r->err);
    free(r);
    return rc;
}
