#include "suite_run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "readall.h"
#include "suite_cw.h"
#include "suite_exec.h"
#include "safeopen.h"
#include "suite_files.h"
#include "suite_progress.h"
#include "suite_probe.h"
#include "suite_rate.h"
#include "suite_search.h"

#define SUITE_RUN_PROGRESS_EVERY_S 10 /* between progress lines when stderr is not a terminal */
#define SUITE_RUN_REASON_MAX       1200

enum suite_run_outcome {
    SUITE_RUN_DONE,
    SUITE_RUN_PARTIAL,
    SUITE_RUN_FAILED,
    SUITE_RUN_INTERRUPTED,
    SUITE_RUN_USAGE,
};
static const char *const suite_run_states[] = {"done", "partial", "failed", "interrupted",
                                               "failed"};

/* The state of one session. */
struct suite_run_state {
    const struct suite_run_job *job;
    struct suite_manifest *m;
    bool tty;       /* stderr is a terminal: one progress line, redrawn */
    bool line_open; /* the progress line is on the terminal */
    bool *complete; /* per step: its result files were complete before this session */
    char *commands; /* DIR/commands.sh */
    double t0;      /* when this session's steps began (monotonic seconds) */
    double done_w;  /* the work of the closed-loop steps done (suite_plan_step.weight) */
    double done_s;  /* the seconds they took */
    double timed_sched_s, timed_took_s; /* the timed steps done: their schedules, their seconds */
    double step_t0;                     /* when the running step began; 0 between steps */
    size_t cur;                         /* the step running */
    long sent, total;                   /* its scenario's last progress line (total -1: unknown) */
    double shown_at;               /* not a terminal: when its last progress line was printed */
    bool shown_done;               /* not a terminal: a line with a completed request was printed */
    struct buf err;                /* the message of the last failed call */
    struct suite_search search[2]; /* --capacity-search: each side's */
};

static double suite_run_mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The wall clock as ISO 8601 ("2026-11-30T10:28:46Z") or compact ("20261130T102846Z"). */
static void suite_run_wall(char *out, size_t len, bool compact) {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void suite_run_clear(struct suite_run_state *r) {
    if (r->line_open) fputs("\r\033[K", stderr);
    r->line_open = false;
}

__attribute__((format(printf, 2, 3))) static void suite_run_say(struct suite_run_state *r,
                                                                const char *fmt, ...) {
    va_list ap;
    suite_run_clear(r);
    fputs("sm-suite: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The steps after the running one that this session will run, from the plan:
 * their closed-loop work and their schedules' seconds. A probe complete from
 * an earlier session is only judged again, and one whose side's search has
 * ended is skipped: neither counts. */
static void suite_run_rest(const struct suite_run_state *r, double *w, double *sched) {
    const struct suite_plan *p = r->job->p;
    *w = *sched = 0;
    for (size_t i = r->cur + 1; i < p->n; i++) {
        const struct suite_plan_step *s = &p->steps[i];
        if (r->complete[i] || (s->probe && r->search[s->side].end != SUITE_SEARCH_RUNNING))
            continue;
        *w += s->weight;
        *sched += s->sched_s;
    }
}

/* "0:42 elapsed, about 1:10 left" for the work done so far and the plan's rest. */
static void suite_run_clock(const struct suite_run_state *r, double step_frac, char *out,
                            size_t len) {
    const struct suite_plan_step *s = &r->job->p->steps[r->cur];
    bool running = r->step_t0 > 0;
    double now = suite_run_mono(), left;
    struct suite_progress_work e = {.done_s = r->done_s,
                                    .done_w = r->done_w,
                                    .step_s = running ? now - r->step_t0 : 0,
                                    .step_w = running ? s->weight : 0,
                                    .step_frac = step_frac,
                                    .step_sched_s = running ? s->sched_s : 0,
                                    .timed_sched_s = r->timed_sched_s,
                                    .timed_took_s = r->timed_took_s};
    suite_run_rest(r, &e.rest_w, &e.rest_sched_s);
    char el[32], l[32];
    suite_progress_clock(now - r->t0, el, sizeof el);
    if (suite_progress_eta(&e, &left)) {
        suite_progress_clock(left, l, sizeof l);
        snprintf(out, len, "%s elapsed, about %s left", el, l);
    } else {
        snprintf(out, len, "%s elapsed", el);
    }
}

/* The progress line: on a terminal redrawn in place, else one line. */
static void suite_run_show(struct suite_run_state *r) {
    const struct suite_plan *p = r->job->p;
    double frac = r->total > 0 ? (double)r->sent / (double)r->total : 0;
    char clock[96], count[64] = "";
    suite_run_clock(r, frac > 1 ? 1 : frac, clock, sizeof clock);
    if (r->sent >= 0 && r->total > 0)
        snprintf(count, sizeof count, ": %ld/%ld requests", r->sent, r->total);
    else if (r->sent >= 0)
        snprintf(count, sizeof count, ": %ld requests", r->sent);
    suite_run_clear(r);
    fprintf(stderr, "sm-suite: [%zu/%zu] %s%s, %s%s", r->cur + 1, p->n, p->steps[r->cur].title,
            count, clock, r->tty ? "" : "\n");
    r->line_open = r->tty;
}

static void suite_run_on_line(void *ctx, const char *line, bool is_stderr) {
    struct suite_run_state *r = ctx;
    const struct suite_plan_step *s = &r->job->p->steps[r->cur];
    long done, total, failed;
    if (!is_stderr) return;
    if (suite_progress_parse(line, suite_opts_scenario_name(s->scenario), &done, &total, &failed)) {
        r->sent = done;
        r->total = total;
        /* Elsewhere than on a terminal: the first line with a reply in, then every 10 s. */
        double now = suite_run_mono();
        if (r->tty || (done > 0 && !r->shown_done) ||
            now - r->shown_at >= SUITE_RUN_PROGRESS_EVERY_S) {
            suite_run_show(r);
            r->shown_at = now;
            r->shown_done |= done > 0;
        }
        return;
    }
    suite_run_clear(r);
    fprintf(stderr, "  %s\n", line);
}

static void suite_run_on_tick(void *ctx) {
    struct suite_run_state *r = ctx;
    if (r->tty) suite_run_show(r);
}

static char *suite_run_path(const char *dir, const char *name) {
    char *p;
    return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

bool suite_run_step_complete(const struct suite_plan *p, size_t i, int *present,
                             struct buf *reason) {
    const struct suite_plan_step *s = &p->steps[i];
    int complete = 0;
    *present = 0;
    for (int k = s->side; k < s->side + s->nsides; k++) {
        char *path = suite_plan_result(p, s, k);
        struct suite_files_result res;
        struct buf why;
        buf_init(&why, 1024);
        int rc = path ? suite_files_result_read(path, &res, &why) : SUITE_FILES_ERR_NOMEM;
        if (rc != SUITE_FILES_ABSENT) ++*present;
        if (rc == SUITE_FILES_OK && !res.partial) complete++;
        if (rc == SUITE_FILES_OK && res.partial && res.reason[0])
            buf_fail(reason, 0, "%s", res.reason);
        if (rc < 0) buf_fail(reason, rc, "%s", buf_str(&why));
        buf_free(&why);
        free(path);
    }
    return complete == s->nsides;
}

/* The files step i may have left: [side][result, journal]; NULL when out of memory. */
static void suite_run_step_files(const struct suite_plan *p, size_t i, char *files[2][2]) {
    const struct suite_plan_step *s = &p->steps[i];
    for (int k = s->side; k < s->side + s->nsides; k++) {
        files[k][0] = suite_plan_result(p, s, k);
        if (files[k][0] && asprintf(&files[k][1], "%.*s.journal.jsonl",
                                    (int)strlen(files[k][0]) - 5, files[k][0]) < 0)
            files[k][1] = NULL;
    }
}

/* Moves the files of step i (files, out) into DIR/rel. */
static int suite_run_move(struct suite_run_state *r, size_t i, char *files[2][2], const char *out,
                          const char *rel) {
    const char *dir = r->job->dir;
    char *to = NULL;
    int rc = 0;
    for (int k = r->job->p->steps[i].side;
         rc == 0 && k < r->job->p->steps[i].side + r->job->p->steps[i].nsides; k++) {
        if (asprintf(&to, "%s/%s/%s", dir, rel, r->job->o->side[k].label) < 0) to = NULL;
        for (int f = 0; rc == 0 && f < 2; f++)
            rc = to && files[k][f] ? suite_files_move_into(files[k][f], to, &r->err) : -1;
        free(to);
        to = NULL;
    }
    if (rc == 0 && asprintf(&to, "%s/%s/output", dir, rel) < 0) to = NULL;
    if (rc == 0) rc = to ? suite_files_move_into(out, to, &r->err) : -1;
    if (rc == 0 && suite_manifest_step_moved(r->m, i, rel) < 0) rc = -1;
    free(to);
    return rc;
}

/* Moves what an unfinished step left into DIR/interrupted/STAMP/. */
static int suite_run_move_aside(struct suite_run_state *r, size_t i, const char *stamp) {
    const struct suite_plan_step *s = &r->job->p->steps[i];
    char rel[64], *files[2][2] = {{NULL}};
    snprintf(rel, sizeof rel, "interrupted/%s", stamp);
    char *out = suite_run_path(r->job->dir, suite_manifest_output(r->m, i));
    suite_run_step_files(r->job->p, i, files);
    bool any = out && access(out, F_OK) == 0;
    for (int k = s->side; k < s->side + s->nsides; k++)
        for (int f = 0; f < 2; f++) any |= files[k][f] && access(files[k][f], F_OK) == 0;
    int rc = any ? suite_run_move(r, i, files, out, rel) : 0;
    if (any && rc == 0)
        suite_run_say(r, "step %s was not complete: its files are now in %s/%s", s->id, r->job->dir,
                      rel);
    free(out);
    for (int k = 0; k < 2; k++) {
        free(files[k][0]);
        free(files[k][1]);
    }
    return rc;
}

/* Which steps are complete already; the others' leftovers are moved aside. */
static int suite_run_sort_steps(struct suite_run_state *r) {
    const struct suite_plan *p = r->job->p;
    char stamp[32];
    suite_run_wall(stamp, sizeof stamp, true);
    r->complete = calloc(p->n ? p->n : 1, sizeof *r->complete);
    if (!r->complete) return -1;
    for (size_t i = 0; i < p->n; i++) {
        int present;
        r->complete[i] = suite_run_step_complete(p, i, &present, NULL);
        if (r->complete[i]) continue;
        buf_reset(&r->err);
        if (suite_run_move_aside(r, i, stamp) < 0) {
            suite_run_say(r, "cannot move the unfinished files of step %s aside: %s",
                          p->steps[i].id, r->err.len ? buf_str(&r->err) : "out of memory");
            return -1;
        }
    }
    return 0;
}

static int suite_run_copy_facts(struct suite_run_state *r) {
    const struct suite_run_job *j = r->job;
    for (int k = 0; k < 2; k++) {
        const char *from = j->o->facts[k];
        if (!from) continue;
        char *to = suite_run_path(j->p->side_dir[k], SUITE_PLAN_FACTS_FILE);
        int rc = to ? suite_files_copy(from, to, &r->err) : -1;
        if (rc < 0 && j->o->resume && to && access(to, F_OK) == 0) {
            suite_run_say(r, "note: %s: keeping the copy made earlier, %s", buf_str(&r->err), to);
            rc = 0;
        } else if (rc < 0) {
            suite_run_say(r, "%s", to ? buf_str(&r->err) : "out of memory");
        }
        free(to);
        if (rc < 0) return -1;
    }
    return 0;
}

static int suite_run_make_dirs(struct suite_run_state *r) {
    const struct suite_run_job *j = r->job;
    char *out = suite_run_path(j->dir, "output");
    int rc = out && suite_files_mkdirs(j->dir, &r->err) == 0 &&
                     suite_files_mkdirs(j->p->side_dir[0], &r->err) == 0 &&
                     suite_files_mkdirs(j->p->side_dir[1], &r->err) == 0 &&
                     suite_files_mkdirs(out, &r->err) == 0
                 ? 0
                 : -1;
    if (rc < 0) suite_run_say(r, "the run directory %s: %s", j->dir, buf_str(&r->err));
    free(out);
    return rc;
}

/* DIR/commands.sh: a header the first time, a note on every resume. */
static int suite_run_start_commands(struct suite_run_state *r) {
    char now[32], cwd[4096];
    struct buf b;
    suite_run_wall(now, sizeof now, false);
    r->commands = suite_run_path(r->job->dir, "commands.sh");
    if (!r->commands || !getcwd(cwd, sizeof cwd)) return -1;
    bool fresh = access(r->commands, F_OK) != 0;
    buf_init(&b, BUF_NO_CAP);
    int rc = fresh ? buf_addf(&b,
                              "#!/bin/sh\n# The commands sm-suite ran for this run, in order "
                              "(started %s).\n# Paths are relative to the folder it ran in:\ncd ",
                              now)
                   : buf_addf(&b, "\n# resumed %s\n", now);
    if (rc == BUF_OK && fresh) rc = suite_argv_quote(&b, cwd);
    if (rc == BUF_OK && fresh) rc = buf_adds(&b, " || exit 1\n");
    rc = rc == BUF_OK ? suite_files_append(r->commands, buf_str(&b), &r->err) : -1;
    if (rc == 0 && fresh) chmod(r->commands, 0755);
    buf_free(&b);
    return rc;
}

static void suite_run_note_command(struct suite_run_state *r, const char *title, const char *line) {
    char *text;
    if (asprintf(&text, "\n# %s\n%s\n", title, line) < 0) return;
    if (suite_files_append(r->commands, text, &r->err) < 0)
        suite_run_say(r, "warning: %s", buf_str(&r->err));
    free(text);
}

static void suite_run_save(struct suite_run_state *r) {
    if (suite_manifest_save(r->m, &r->err) < 0) suite_run_say(r, "warning: %s", buf_str(&r->err));
}

/* Why a step that did not end complete ended: the outcome, its reason in reason. */
static enum suite_run_outcome suite_run_classify(const struct suite_run_state *r, size_t i,
                                                 int status, struct buf *reason) {
    int present;
    buf_reset(reason);
    bool complete = suite_run_step_complete(r->job->p, i, &present, reason);
    if (complete && status == 0) return SUITE_RUN_DONE;
    if (suite_exec_stopping()) {
        buf_fail(reason, 0, "interrupted");
        return SUITE_RUN_INTERRUPTED;
    }
    if (status == 2) {
        buf_fail(reason, 0,
                 "wrk exited with status 2: the scenario stopped before sending anything (its "
                 "message is above)");
        return SUITE_RUN_USAGE;
    }
    if (status == 4 && present == r->job->p->steps[i].nsides) return SUITE_RUN_PARTIAL;
    if (status == 127) {
        buf_fail(reason, 0, "wrk could not be started");
    } else if (!reason->len || status != 3) {
        char *text = buf_take(reason); /* the reason is part of the new one */
        buf_fail(reason, 0, "wrk exited with status %d%s%s", status, text && *text ? ": " : "",
                 text ? text : "");
        free(text);
    }
    return SUITE_RUN_FAILED;
}

static void suite_run_step_end_line(struct suite_run_state *r, size_t i, enum suite_run_outcome st,
                                    const char *reason, double took) {
    const struct suite_plan *p = r->job->p;
    char t[32], clock[96];
    suite_progress_clock(took, t, sizeof t);
    suite_run_clock(r, 0, clock, sizeof clock);
    if (st == SUITE_RUN_DONE)
        suite_run_say(r, "[%zu/%zu] %s: done in %s; %s", i + 1, p->n, p->steps[i].title, t, clock);
    else if (st == SUITE_RUN_PARTIAL)
        suite_run_say(r, "[%zu/%zu] %s: partial (%s); going on", i + 1, p->n, p->steps[i].title,
                      reason);
    else if (st == SUITE_RUN_INTERRUPTED)
        suite_run_say(r, "[%zu/%zu] %s: interrupted; wrk wrote its partial result files", i + 1,
                      p->n, p->steps[i].title);
    else
        suite_run_say(r, "[%zu/%zu] %s: failed: %s (wrk's output: %s/%s)", i + 1, p->n,
                      p->steps[i].title, reason, r->job->dir, suite_manifest_output(r->m, i));
}

/* Opens the step's output file with the command at its head; -1 when it cannot. */
static int suite_run_open_output(struct suite_run_state *r, size_t i, const char *line) {
    char *path = suite_run_path(r->job->dir, suite_manifest_output(r->m, i));
    struct buf err;
    buf_init(&err, 1024);
    int fd = path ? safeopen_path(path, NULL, 0644, SAFEOPEN_TRUNC, &err) : -1;
    if (fd < 0) suite_run_say(r, "%s", path ? buf_str(&err) : "out of memory");
    buf_free(&err);
    if (fd < 0) {
    } else if (dprintf(fd, "$ %s\n\n", line) < 0)
        suite_run_say(r, "warning: cannot write %s", path);
    free(path);
    return fd;
}

/* Prints and records step i's command and opens its output file: the fd, or -1. */
static int suite_run_begin_step(struct suite_run_state *r, size_t i) {
    const struct suite_run_job *j = r->job;
    char now[32], title[96];
    struct buf line;
    int fd = -1;
    buf_init(&line, BUF_NO_CAP);
    if (suite_plan_command_line(j->t, &j->p->steps[i].cmd, true, &line) == BUF_OK) {
        snprintf(title, sizeof title, "[%zu/%zu] %s", i + 1, j->p->n, j->p->steps[i].title);
        suite_run_say(r, "%s", title);
        fprintf(stderr, "%s\n", buf_str(&line));
        suite_run_note_command(r, title, buf_str(&line));
        fd = suite_run_open_output(r, i, buf_str(&line));
        suite_run_wall(now, sizeof now, false);
    }
    if (fd >= 0 && suite_manifest_step_start(r->m, j->p, i, buf_str(&line), now) < 0) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0) suite_run_save(r);
    buf_free(&line);
    return fd;
}

static enum suite_run_outcome suite_run_step(struct suite_run_state *r, size_t i) {
    const struct suite_plan_step *s = &r->job->p->steps[i];
    char now[32];
    struct buf reason;
    int fd = suite_run_begin_step(r, i), status = -1;
    if (fd < 0) return SUITE_RUN_FAILED;
    double t = suite_run_mono();
    r->cur = i;
    r->sent = r->total = -1;
    r->step_t0 = r->shown_at = t;
    r->shown_done = false;
    buf_init(&reason, SUITE_RUN_REASON_MAX);
    struct suite_exec_io io = {fd, fd, suite_run_on_line, suite_run_on_tick, r, false};
    if (suite_exec_run(s->cmd.v, &io, &status, &reason) < 0) {
        suite_run_say(r, "%s", buf_str(&reason));
        status = -1;
    }
    close(fd);
    enum suite_run_outcome st =
        status < 0 ? SUITE_RUN_FAILED : suite_run_classify(r, i, status, &reason);
    suite_run_wall(now, sizeof now, false);
    if (suite_manifest_step_end(r->m, i, suite_run_states[st], status,
                                st == SUITE_RUN_DONE ? NULL : buf_str(&reason), now) < 0)
        suite_run_say(r, "warning: out of memory for the manifest");
    suite_run_save(r);
    if (s->sched_s <= 0) { /* a timed step's seconds say nothing of the closed-loop pace */
        r->done_w += s->weight;
        r->done_s += suite_run_mono() - t;
    } else {
        r->timed_sched_s += s->sched_s;
        r->timed_took_s += suite_run_mono() - t;
    }
    r->step_t0 = 0;
    suite_run_step_end_line(r, i, st, buf_str(&reason), suite_run_mono() - t);
    buf_free(&reason);
    return st;
}

/* The errors of every result file of the run, from their counts. */
static void suite_run_summary(struct suite_run_state *r) {
    const struct suite_plan *p = r->job->p;
    long sum[3] = {0, 0, 0}; /* sent, ok, failed */
    struct buf lines;
    buf_init(&lines, BUF_NO_CAP);
    for (size_t i = 0; i < p->n; i++)
        for (int k = p->steps[i].side; k < p->steps[i].side + p->steps[i].nsides; k++) {
            char *path = suite_plan_result(p, &p->steps[i], k);
            if (!path || suite_files_result_sum(path, p->steps[i].id, r->job->o->side[k].label, sum,
                                                &lines) != SUITE_FILES_OK)
                suite_run_say(r, "warning: out of memory");
            free(path);
        }
    suite_run_say(r, "requests: %ld sent, %ld ok, %ld failed%s", sum[0], sum[1], sum[2],
                  lines.len ? ":" : (sum[2] ? "" : "; no errors"));
    fputs(buf_str(&lines), stderr);
    buf_free(&lines);
}

static void suite_run_on_compare_line(void *ctx, const char *line, bool is_stderr) {
    struct suite_run_state *r = ctx;
    suite_run_clear(r);
    fprintf(is_stderr ? stderr : stdout, "%s\n", line);
}

static int suite_run_print_file(const char *path) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = readall_path(path, &b) == 0 && fwrite(buf_str(&b), 1, b.len, stdout) == b.len ? 0 : -1;
    fflush(stdout);
    buf_free(&b);
    return rc;
}

/* Runs sm-compare's commands, each printed and noted first; its exit status. */
static int suite_run_compare_commands(struct suite_run_state *r) {
    static const char *const titles[SUITE_PLAN_NCMP] = {"the comparison: the table and the chart",
                                                        "the comparison: Markdown",
                                                        "the comparison: JSON"};
    const struct suite_run_job *j = r->job;
    int status = 0;
    for (int k = 0; k < SUITE_PLAN_NCMP && status == 0; k++) {
        struct buf line;
        buf_init(&line, BUF_NO_CAP);
        if (suite_plan_command_line(j->t, &j->p->compare[k], false, &line) == BUF_OK) {
            fprintf(stderr, "%s\n", buf_str(&line));
            suite_run_note_command(r, titles[k], buf_str(&line));
        }
        buf_free(&line);
        struct suite_exec_io io = {-1, -1, suite_run_on_compare_line, NULL, r, false};
        if (suite_exec_run(j->p->compare[k].v, &io, &status, &r->err) < 0) {
            suite_run_say(r, "%s", buf_str(&r->err));
            status = 1;
        }
    }
    return status;
}

/* sm-compare: the table (printed), the chart, Markdown and JSON. */
static int suite_run_compare(struct suite_run_state *r) {
    const struct suite_run_job *j = r->job;
    const char *const *f = suite_plan_report_files;
    suite_run_say(r, "comparing with sm-compare");
    int status = suite_run_compare_commands(r);
    if (suite_manifest_reports(r->m, j->p, j->t, status) < 0)
        suite_run_say(r, "warning: out of memory");
    suite_run_save(r);
    if (status != 0) {
        suite_run_say(r, "sm-compare failed (status %d); the results are in %s", status, j->dir);
        return 1;
    }
    char *text = suite_run_path(j->dir, f[SUITE_PLAN_CMP_TEXT]);
    fputc('\n', stdout);
    if (!text || suite_run_print_file(text) < 0)
        suite_run_say(r, "cannot read %s", text ? text : "the report");
    free(text);
    suite_run_say(r, "the report: %s/%s (Markdown), %s/%s (chart), %s/%s (text), %s/%s (JSON)",
                  j->dir, f[SUITE_PLAN_CMP_MARKDOWN], j->dir, f[SUITE_PLAN_NCMP], j->dir,
                  f[SUITE_PLAN_CMP_TEXT], j->dir, f[SUITE_PLAN_CMP_JSON]);
    return 0;
}

/* How to go on after a run that stopped early. */
static void suite_run_hints(struct suite_run_state *r) {
    const struct suite_run_job *j = r->job;
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    suite_run_say(r, "everything measured so far is kept in %s", j->dir);
    if (suite_opts_resume_command(j->o, j->self, j->dir, &b) == BUF_OK) {
        suite_run_say(r, "to resume (steps whose result files are complete are skipped):");
        fprintf(stderr, "%s\n", buf_str(&b));
    }
    buf_reset(&b);
    int rc = suite_argv_quote(&b, j->t->compare);
    if (rc == BUF_OK && j->o->price > 0) rc = buf_addf(&b, " --price-per-hour %g", j->o->price);
    for (int k = 0; rc == BUF_OK && k < 2; k++) {
        rc = buf_addc(&b, ' ');
        if (rc == BUF_OK) rc = suite_argv_quote(&b, j->p->side_dir[k]);
    }
    if (rc == BUF_OK) {
        suite_run_say(r, "to compare what is there:");
        fprintf(stderr, "%s\n", buf_str(&b));
    }
    buf_free(&b);
}

static void suite_run_intro(struct suite_run_state *r, size_t skipped) {
    const struct suite_run_job *j = r->job;
    const char *lb = j->o->side[0].label, *lc = j->o->side[1].label;
    suite_run_say(r,
                  "run directory %s: manifest.json, commands.sh, output/, and the result files "
                  "in %s/ and %s/",
                  j->dir, lb, lc);
    suite_run_say(r,
                  "%zu step%s, %zu complete already; each wrk run measures %s and %s, their "
                  "requests alternating%s",
                  j->p->n, j->p->n == 1 ? "" : "s", skipped, lb, lc,
                  j->o->aba         ? "; then every step again for the baseline alone (--order aba)"
                  : j->o->searching ? ", but a capacity search's probes measure one side each"
                                    : "");
    if (j->o->searching)
        suite_run_say(r,
                      "capacity search of %g:%g requests/s: each side on its own, one rate a "
                      "probe (LO, then HI, then halving the bracket to %g%%), at most %d probes "
                      "a side; sm-compare judges each probe",
                      j->o->search_lo, j->o->search_hi, 100 * SUITE_SEARCH_TOLERANCE,
                      j->o->search_probes);
    if (j->o->time_scale != 1)
        suite_run_say(r,
                      "time-scaled: the server runs %g times faster than real time (--time-scale "
                      "%g); sm-compare reports every time and rate in real units",
                      j->o->time_scale, j->o->time_scale);
}

/* After decode step i: warns, once per side and scenario, when a later step
 * asks for replies that would pass SageMaker's 60 s at the side's measured rate. */
static void suite_run_warn_limit(struct suite_run_state *r, size_t i) {
    const struct suite_run_job *j = r->job;
    const struct suite_plan *p = j->p;
    for (int k = p->steps[i].side; k < p->steps[i].side + p->steps[i].nsides; k++) {
        struct suite_rate rate;
        char *path = suite_plan_result(p, &p->steps[i], k);
        int rc = path ? suite_rate_read(path, &rate, &r->err) : -1;
        free(path);
        unsigned warned = 0;
        for (size_t s = i + 1; rc == 0 && s < p->n; s++) {
            unsigned scen = p->steps[s].scenario;
            const char *v =
                scen == SUITE_OPTS_DECODE ? NULL : suite_opts_setting(j->o, scen, "--max-tokens");
            char *end = NULL;
            long tokens = v ? strtol(v, &end, 10) : 0; /* checked as a whole number already */
            if (v && (end == v || *end)) tokens = 0;
            if (!v || tokens < 1 || (warned & scen) || r->complete[s]) continue;
            double secs = suite_rate_seconds(&rate, tokens);
            if (secs <= SUITE_RATE_LIMIT_S) continue;
            warned |= scen;
            const char *name = suite_opts_scenario_name(scen);
            suite_run_say(r,
                          "warning: at %s's measured %.1f tokens/s and %.2f s a call, a %s reply "
                          "of %ld tokens takes about %.0f s, past SageMaker's %.0f s: it will fail "
                          "as 424 ModelError; --%s-max-tokens %ld fits",
                          j->o->side[k].label, rate.rate, rate.fixed, name, tokens, secs,
                          SUITE_RATE_LIMIT_S, name, suite_rate_fits(&rate, SUITE_RATE_LIMIT_S));
        }
    }
}

/* Runs sm-compare on probe step i's result file: whether the SLOs held at rate.
 * Returns 0, or -1 with what went wrong said. */
static int suite_run_judge(struct suite_run_state *r, size_t i, double rate, bool *held) {
    const struct suite_run_job *j = r->job;
    const struct suite_plan_step *s = &j->p->steps[i];
    struct suite_argv cmd;
    struct buf line;
    char title[128], *file = suite_plan_result(j->p, s, s->side);
    suite_argv_init(&cmd);
    buf_init(&line, BUF_NO_CAP);
    snprintf(title, sizeof title, "%s: its verdict", s->title);
    int rc = file && suite_probe_command(j->o, j->t->compare, file, &cmd) == 0 &&
                     suite_plan_command_line(j->t, &cmd, false, &line) == BUF_OK
                 ? 0
                 : -1;
    if (rc < 0) suite_run_say(r, "out of memory");
    if (rc == 0) suite_run_note_command(r, title, buf_str(&line));
    buf_reset(&r->err);
    if (rc == 0 && suite_probe_run(cmd.v, rate, held, &r->err) < 0) {
        suite_run_say(r, "%s: %s: %s", title, file, buf_str(&r->err));
        rc = -1;
    }
    free(file);
    suite_argv_free(&cmd);
    buf_free(&line);
    return rc;
}

/* A probe complete from an earlier session, of another rate than the search
 * asks now (its options changed): moved aside, to be run again. */
static int suite_run_probe_stale(struct suite_run_state *r, size_t i, double rate) {
    struct suite_plan_step *s = &r->job->p->steps[i];
    char *file = suite_plan_result(r->job->p, s, s->side), stamp[32];
    struct buf text;
    double was = NAN;
    buf_init(&text, SUITE_FILES_RESULT_MAX);
    bool same = file && readall_path(file, &text) == 0 &&
                suite_probe_rate(buf_str(&text), text.len, &was, &r->err) == 0 &&
                suite_probe_same_rate(was, rate);
    free(file);
    buf_free(&text);
    if (same) return 0;
    r->complete[i] = false;
    suite_run_wall(stamp, sizeof stamp, true);
    return suite_run_move_aside(r, i, stamp);
}

/* Probe step i: its rate from its side's search, then the step (unless an
 * earlier session measured it), then its verdict. *ran: the step ran. */
static enum suite_run_outcome suite_run_probe(struct suite_run_state *r, size_t i, bool *ran) {
    struct suite_plan_step *s = &r->job->p->steps[i];
    struct suite_search *search = &r->search[s->side];
    const char *label = r->job->o->side[s->side].label;
    char now[32], text[160], why[512];
    double rate;
    bool held = false;
    *ran = false;
    if (!suite_search_next(search, &rate)) {
        suite_search_text(search, text, sizeof text);
        snprintf(why, sizeof why, "not needed: the search of %s ended, its capacity %s", label,
                 text);
        suite_run_wall(now, sizeof now, false);
        if (suite_manifest_step_end(r->m, i, "skipped", -1, why, now) < 0)
            suite_run_say(r, "warning: out of memory for the manifest");
        return SUITE_RUN_DONE;
    }
    if (suite_plan_set_rate(s, rate) < 0) return SUITE_RUN_FAILED;
    if (r->complete[i] && suite_run_probe_stale(r, i, rate) < 0) {
        suite_run_say(r, "cannot move step %s of %s aside: %s", s->id, label, buf_str(&r->err));
        return SUITE_RUN_FAILED;
    }
    enum suite_run_outcome st = SUITE_RUN_DONE;
    if (!r->complete[i]) {
        if (suite_exec_stopping()) return SUITE_RUN_INTERRUPTED;
        *ran = true;
        st = suite_run_step(r, i);
        if (st != SUITE_RUN_DONE && st != SUITE_RUN_PARTIAL) return st;
    }
    if (suite_run_judge(r, i, rate, &held) < 0) return SUITE_RUN_FAILED;
    suite_search_record(search, rate, held);
    suite_search_text(search, text, sizeof text);
    suite_run_say(r, "%s at %g requests/s: the SLOs %s%s; its capacity: %s", label, rate,
                  held ? "held" : "failed", *ran ? "" : " (measured before)", text);
    if (suite_manifest_step_probe(r->m, i, rate, held) < 0)
        suite_run_say(r, "warning: out of memory for the manifest");
    suite_run_save(r);
    return st;
}

/* Runs the steps; returns the outcome that ended them (SUITE_RUN_DONE or
 * SUITE_RUN_PARTIAL when all ran). */
static enum suite_run_outcome suite_run_steps(struct suite_run_state *r) {
    enum suite_run_outcome worst = SUITE_RUN_DONE;
    r->t0 = suite_run_mono();
    for (size_t i = 0; i < r->job->p->n; i++) {
        if (r->job->p->steps[i].probe) {
            bool ran;
            enum suite_run_outcome st = suite_run_probe(r, i, &ran);
            if (st != SUITE_RUN_DONE && st != SUITE_RUN_PARTIAL) return st;
            if (st == SUITE_RUN_PARTIAL) worst = SUITE_RUN_PARTIAL;
            continue;
        }
        if (r->complete[i]) continue;
        if (suite_exec_stopping()) return SUITE_RUN_INTERRUPTED;
        enum suite_run_outcome st = suite_run_step(r, i);
        if (st != SUITE_RUN_DONE && st != SUITE_RUN_PARTIAL) return st;
        if (r->job->p->steps[i].scenario == SUITE_OPTS_DECODE) suite_run_warn_limit(r, i);
        if (st == SUITE_RUN_PARTIAL) worst = SUITE_RUN_PARTIAL;
    }
    return worst;
}

static void suite_run_on_cw_line(void *ud, const char *line) {
    suite_run_say(ud, "%s", line);
}

/* Each side's CloudWatch logs and metrics of each step (suite_cw.h), unless --no-cloudwatch. */
static void suite_run_cloudwatch(struct suite_run_state *r) {
    if (r->job->o->no_cloudwatch) return;
    struct suite_cw_job cw = {r->job->o, r->job->p, -1, suite_run_on_cw_line, r};
    suite_run_say(r, "fetching each side's log and metrics from CloudWatch (--no-cloudwatch: not)");
    (void)suite_cw_fetch(&cw);
}

static int suite_run_finish(struct suite_run_state *r, enum suite_run_outcome st) {
    char now[32];
    int status = st == SUITE_RUN_DONE          ? 0
                 : st == SUITE_RUN_INTERRUPTED ? 130
                 : st == SUITE_RUN_USAGE       ? 2
                                               : 1;
    suite_run_summary(r);
    if (st == SUITE_RUN_DONE || st == SUITE_RUN_PARTIAL) {
        suite_run_cloudwatch(r);
        if (suite_run_compare(r) != 0) status = 1;
        if (st == SUITE_RUN_PARTIAL) suite_run_hints(r);
    } else {
        suite_run_hints(r);
    }
    suite_run_wall(now, sizeof now, false);
    if (suite_manifest_end(r->m, suite_run_states[st], now) < 0)
        suite_run_say(r, "warning: out of memory");
    suite_run_save(r);
    return status;
}

/* The run directory, the manifest, commands.sh and the steps sorted. */
static int suite_run_prepare(struct suite_run_state *r) {
    const struct suite_run_job *job = r->job;
    char now[32];
    suite_run_wall(now, sizeof now, false);
    if (suite_run_make_dirs(r) < 0 || suite_run_copy_facts(r) < 0) return -1;
    struct suite_manifest_run mr = {job->o, job->p, job->target, job->command, now};
    if (suite_manifest_begin(r->m, job->dir, job->seal, &mr) < 0) {
        suite_run_say(r, "cannot start the manifest of %s: out of memory", job->dir);
        return -1;
    }
    if (suite_run_start_commands(r) < 0) {
        suite_run_say(r, "cannot write %s/commands.sh: %s", job->dir,
                      r->err.len ? buf_str(&r->err) : strerror(errno));
        return -1;
    }
    if (suite_run_sort_steps(r) < 0) return -1;
    for (int k = 0; job->o->searching && k < 2; k++)
        if (suite_search_init(&r->search[k], job->o->search_lo, job->o->search_hi,
                              job->o->search_probes, SUITE_SEARCH_TOLERANCE, &r->err) < 0) {
            suite_run_say(r, "%s", buf_str(&r->err));
            return -1;
        }
    suite_run_save(r);
    return 0;
}

int suite_run(const struct suite_run_job *job) {
    struct suite_run_state r = {.job = job, .m = job->m, .tty = isatty(2) == 1};
    int status = 1;
    buf_init(&r.err, 4096);
    if (suite_run_prepare(&r) == 0) {
        size_t skipped = 0;
        for (size_t i = 0; i < job->p->n; i++) skipped += r.complete[i];
        suite_run_intro(&r, skipped);
        status = suite_run_finish(&r, suite_run_steps(&r));
    }
    suite_run_clear(&r);
    free(r.complete);
    free(r.commands);
    buf_free(&r.err);
    return status;
}
