#include "suite_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "readall.h"
#include "suite_exec.h"
#include "suite_files.h"
#include "suite_manifest.h"
#include "suite_progress.h"

#define PROGRESS_EVERY_S 10 /* between progress lines when stderr is not a terminal */

enum outcome { ST_DONE, ST_PARTIAL, ST_FAILED, ST_INTERRUPTED, ST_USAGE };
static const char *const state_names[] = {"done", "partial", "failed", "interrupted", "failed"};

/* The state of one session. */
struct run {
    const struct suite_job *job;
    struct suite_manifest m;
    bool tty;         /* stderr is a terminal: one progress line, redrawn */
    bool line_open;   /* the progress line is on the terminal */
    bool *complete;   /* per step: its result files were complete before this session */
    char *commands;   /* DIR/commands.sh */
    double t0;        /* when this session's steps began (monotonic seconds) */
    double total_w;   /* the work of the steps this session runs */
    double done_w;    /* of which done */
    double done_s;    /* the seconds the done steps took */
    double step_t0;   /* when the running step began; 0 between steps */
    size_t cur;       /* the step running */
    long sent, total; /* its scenario's last progress line (total -1: unknown) */
    double shown_at;  /* not a terminal: when its last progress line was printed */
    bool shown_done;  /* not a terminal: a line with a completed request was printed */
};

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The wall clock as ISO 8601 ("2026-11-30T10:28:46Z") or compact ("20261130T102846Z"). */
static void wall(char *out, size_t len, bool compact) {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void status_clear(struct run *r) {
    if (r->line_open) fputs("\r\033[K", stderr);
    r->line_open = false;
}

__attribute__((format(printf, 2, 3))) static void say(struct run *r, const char *fmt, ...) {
    va_list ap;
    status_clear(r);
    fputs("sm-suite: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* "0:42 elapsed, about 1:10 left" for the work done so far. */
static void clock_text(const struct run *r, double step_frac, char *out, size_t len) {
    double now = mono(), left, step_w = r->step_t0 > 0 ? r->job->p->steps[r->cur].weight : 0;
    struct suite_eta e = {r->done_s, r->done_w, r->step_t0 > 0 ? now - r->step_t0 : 0,
                          step_w,    step_frac, r->total_w - r->done_w - step_w};
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
static void status_show(struct run *r) {
    const struct suite_plan *p = r->job->p;
    double frac = r->total > 0 ? (double)r->sent / (double)r->total : 0;
    char clock[96], count[64] = "";
    clock_text(r, frac > 1 ? 1 : frac, clock, sizeof clock);
    if (r->sent >= 0 && r->total > 0)
        snprintf(count, sizeof count, ": %ld/%ld requests", r->sent, r->total);
    else if (r->sent >= 0)
        snprintf(count, sizeof count, ": %ld requests", r->sent);
    status_clear(r);
    fprintf(stderr, "sm-suite: [%zu/%zu] %s%s, %s%s", r->cur + 1, p->n, p->steps[r->cur].title,
            count, clock, r->tty ? "" : "\n");
    r->line_open = r->tty;
}

static void on_line(void *ctx, const char *line, bool is_stderr) {
    struct run *r = ctx;
    const struct suite_step *s = &r->job->p->steps[r->cur];
    long done, total, failed;
    if (!is_stderr) return;
    if (suite_progress_parse(line, suite_scenario_name(s->scenario), &done, &total, &failed)) {
        r->sent = done;
        r->total = total;
        /* Elsewhere than on a terminal: the first line with a reply in, then every 10 s. */
        double now = mono();
        if (r->tty || (done > 0 && !r->shown_done) || now - r->shown_at >= PROGRESS_EVERY_S) {
            status_show(r);
            r->shown_at = now;
            r->shown_done |= done > 0;
        }
        return;
    }
    status_clear(r);
    fprintf(stderr, "  %s\n", line);
}

static void on_tick(void *ctx) {
    struct run *r = ctx;
    if (r->tty) status_show(r);
}

static char *path_in(const char *dir, const char *name) {
    char *p;
    return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

bool suite_step_complete(const struct suite_plan *p, size_t i, int *present, char *reason,
                         size_t len) {
    const struct suite_step *s = &p->steps[i];
    int complete = 0;
    *present = 0;
    for (int k = 0; k < s->nsides; k++) {
        char *path = suite_plan_result(p, s, k);
        struct suite_result res;
        int rc = path ? suite_result_read(path, &res) : -1;
        if (rc <= 0) ++*present;
        if (rc == 0 && !res.partial) complete++;
        if (rc == 0 && res.partial && reason && res.reason[0])
            snprintf(reason, len, "%s", res.reason);
        if (rc < 0 && reason) snprintf(reason, len, "%s: %s", path ? path : "?", res.reason);
        free(path);
    }
    return complete == s->nsides;
}

/* Moves what an unfinished step left into DIR/interrupted/STAMP/. */
static int move_aside(struct run *r, size_t i, const char *stamp) {
    const struct suite_plan *p = r->job->p;
    const struct suite_step *s = &p->steps[i];
    const char *dir = r->job->dir;
    char rel[64], *to = NULL, *out = NULL, *files[2][2] = {{NULL}};
    int rc = -1;
    snprintf(rel, sizeof rel, "interrupted/%s", stamp);
    out = path_in(dir, suite_manifest_output(&r->m, i));
    for (int k = 0; k < s->nsides; k++) {
        files[k][0] = suite_plan_result(p, s, k);
        if (files[k][0] && asprintf(&files[k][1], "%.*s.journal.jsonl",
                                    (int)strlen(files[k][0]) - 5, files[k][0]) < 0)
            files[k][1] = NULL;
    }
    bool any = out && access(out, F_OK) == 0;
    for (int k = 0; k < s->nsides; k++)
        for (int f = 0; f < 2; f++) any |= files[k][f] && access(files[k][f], F_OK) == 0;
    if (!any) {
        rc = 0;
        goto done;
    }
    for (int k = 0; k < s->nsides; k++) {
        free(to);
        if (asprintf(&to, "%s/%s/%s", dir, rel, r->job->o->side[k].label) < 0) to = NULL;
        for (int f = 0; f < 2; f++)
            if (!to || !files[k][f] || suite_move_into(files[k][f], to) < 0) goto done;
    }
    free(to);
    if (asprintf(&to, "%s/%s/output", dir, rel) < 0) to = NULL;
    if (!to || suite_move_into(out, to) < 0 || suite_manifest_step_moved(&r->m, i, rel) < 0)
        goto done;
    say(r, "step %s was not complete: its files are now in %s/%s", s->id, dir, rel);
    rc = 0;
done:
    free(to);
    free(out);
    for (int k = 0; k < 2; k++) {
        free(files[k][0]);
        free(files[k][1]);
    }
    return rc;
}

/* Which steps are complete already; the others' leftovers are moved aside. */
static int sort_steps(struct run *r) {
    const struct suite_plan *p = r->job->p;
    char stamp[32];
    wall(stamp, sizeof stamp, true);
    r->complete = calloc(p->n ? p->n : 1, sizeof *r->complete);
    if (!r->complete) return -1;
    for (size_t i = 0; i < p->n; i++) {
        int present;
        r->complete[i] = suite_step_complete(p, i, &present, NULL, 0);
        if (r->complete[i]) continue;
        r->total_w += p->steps[i].weight;
        if (move_aside(r, i, stamp) < 0) {
            say(r, "cannot move the unfinished files of step %s aside: %s", p->steps[i].id,
                strerror(errno));
            return -1;
        }
    }
    return 0;
}

static int copy_facts(struct run *r) {
    const struct suite_job *j = r->job;
    for (int k = 0; k < 2; k++) {
        const char *from = j->o->facts[k];
        if (!from) continue;
        char *to = path_in(j->p->side_dir[k], SUITE_FACTS_FILE);
        int rc = to ? suite_copy(from, to) : -1;
        if (rc < 0 && j->o->resume && to && access(to, F_OK) == 0) {
            say(r, "note: cannot read %s (%s): keeping the copy made earlier, %s", from,
                strerror(errno), to);
            rc = 0;
        } else if (rc < 0) {
            say(r, "cannot copy %s to %s: %s", from, to ? to : "?", strerror(errno));
        }
        free(to);
        if (rc < 0) return -1;
    }
    return 0;
}

static int make_dirs(struct run *r) {
    const struct suite_job *j = r->job;
    char *out = path_in(j->dir, "output");
    int rc = out && suite_mkdirs(j->dir) == 0 && suite_mkdirs(j->p->side_dir[0]) == 0 &&
                     suite_mkdirs(j->p->side_dir[1]) == 0 && suite_mkdirs(out) == 0
                 ? 0
                 : -1;
    if (rc < 0) say(r, "cannot create the run directory %s: %s", j->dir, strerror(errno));
    free(out);
    return rc;
}

/* DIR/commands.sh: a header the first time, a note on every resume. */
static int start_commands(struct run *r) {
    char now[32], cwd[4096];
    struct buf b;
    wall(now, sizeof now, false);
    r->commands = path_in(r->job->dir, "commands.sh");
    if (!r->commands || !getcwd(cwd, sizeof cwd)) return -1;
    bool fresh = access(r->commands, F_OK) != 0;
    buf_init(&b, BUF_NO_CAP);
    int rc = fresh ? buf_addf(&b,
                              "#!/bin/sh\n# The commands sm-suite ran for this run, in order "
                              "(started %s).\n# Paths are relative to the folder it ran in:\ncd ",
                              now)
                   : buf_addf(&b, "\n# resumed %s\n", now);
    if (rc == BUF_OK && fresh) rc = suite_quote(&b, cwd);
    if (rc == BUF_OK && fresh) rc = buf_adds(&b, " || exit 1\n");
    rc = rc == BUF_OK ? suite_append(r->commands, buf_str(&b)) : -1;
    if (rc == 0 && fresh) chmod(r->commands, 0755);
    buf_free(&b);
    return rc;
}

static void note_command(struct run *r, const char *title, const char *line) {
    char *text;
    if (asprintf(&text, "\n# %s\n%s\n", title, line) < 0) return;
    if (suite_append(r->commands, text) < 0)
        say(r, "warning: cannot write %s: %s", r->commands, strerror(errno));
    free(text);
}

static void save(struct run *r) {
    if (suite_manifest_save(&r->m) < 0)
        say(r, "warning: cannot write %s: %s", r->m.path, strerror(errno));
}

static enum outcome classify(const struct run *r, size_t i, int status, char *reason, size_t len) {
    int present;
    reason[0] = '\0';
    bool complete = suite_step_complete(r->job->p, i, &present, reason, len);
    if (complete && status == 0) return ST_DONE;
    if (suite_exec_stopping()) {
        snprintf(reason, len, "interrupted");
        return ST_INTERRUPTED;
    }
    if (status == 2) {
        snprintf(reason, len,
                 "wrk exited with status 2: the scenario stopped before sending "
                 "anything (its message is above)");
        return ST_USAGE;
    }
    if (status == 4 && present == r->job->p->steps[i].nsides) return ST_PARTIAL;
    if (status == 127)
        snprintf(reason, len, "wrk could not be started");
    else if (!reason[0] || status != 3) {
        char *text; /* the reason is part of the new one: built aside, then copied */
        if (asprintf(&text, "wrk exited with status %d%s%s", status, reason[0] ? ": " : "",
                     reason) >= 0) {
            snprintf(reason, len, "%s", text);
            free(text);
        }
    }
    return ST_FAILED;
}

static void step_end_line(struct run *r, size_t i, enum outcome st, const char *reason,
                          double took) {
    const struct suite_plan *p = r->job->p;
    char t[32], clock[96];
    suite_progress_clock(took, t, sizeof t);
    clock_text(r, 0, clock, sizeof clock);
    if (st == ST_DONE)
        say(r, "[%zu/%zu] %s: done in %s; %s", i + 1, p->n, p->steps[i].title, t, clock);
    else if (st == ST_PARTIAL)
        say(r, "[%zu/%zu] %s: partial (%s); going on", i + 1, p->n, p->steps[i].title, reason);
    else if (st == ST_INTERRUPTED)
        say(r, "[%zu/%zu] %s: interrupted; wrk wrote its partial result files", i + 1, p->n,
            p->steps[i].title);
    else
        say(r, "[%zu/%zu] %s: failed: %s (wrk's output: %s/%s)", i + 1, p->n, p->steps[i].title,
            reason, r->job->dir, suite_manifest_output(&r->m, i));
}

/* Opens the step's output file with the command at its head; -1 when it cannot. */
static int open_output(struct run *r, size_t i, const char *line) {
    char *path = path_in(r->job->dir, suite_manifest_output(&r->m, i));
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    if (fd < 0)
        say(r, "cannot write %s: %s", path ? path : "?", strerror(errno));
    else if (dprintf(fd, "$ %s\n\n", line) < 0)
        say(r, "warning: cannot write %s", path);
    free(path);
    return fd;
}

/* Prints and records step i's command and opens its output file: the fd, or -1. */
static int begin_step(struct run *r, size_t i) {
    const struct suite_job *j = r->job;
    char now[32], title[96];
    struct buf line;
    int fd = -1;
    buf_init(&line, BUF_NO_CAP);
    if (suite_plan_command_line(j->t, &j->p->steps[i].cmd, true, &line) != BUF_OK) goto done;
    snprintf(title, sizeof title, "[%zu/%zu] %s", i + 1, j->p->n, j->p->steps[i].title);
    say(r, "%s", title);
    fprintf(stderr, "%s\n", buf_str(&line));
    note_command(r, title, buf_str(&line));
    fd = open_output(r, i, buf_str(&line));
    wall(now, sizeof now, false);
    if (fd >= 0 && suite_manifest_step_start(&r->m, j->p, i, buf_str(&line), now) < 0) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0) save(r);
done:
    buf_free(&line);
    return fd;
}

static enum outcome run_step(struct run *r, size_t i) {
    const struct suite_step *s = &r->job->p->steps[i];
    char now[32], reason[1200] = "cannot start wrk";
    int fd = begin_step(r, i), status = -1;
    if (fd < 0) return ST_FAILED;
    double t = mono();
    r->cur = i;
    r->sent = r->total = -1;
    r->step_t0 = r->shown_at = t;
    r->shown_done = false;
    struct suite_exec_io io = {fd, fd, on_line, on_tick, r};
    if (suite_exec_run(s->cmd.v, &io, &status) < 0) say(r, "cannot start wrk: %s", strerror(errno));
    close(fd);
    enum outcome st = status < 0 ? ST_FAILED : classify(r, i, status, reason, sizeof reason);
    wall(now, sizeof now, false);
    if (suite_manifest_step_end(&r->m, i, state_names[st], status, st == ST_DONE ? NULL : reason,
                                now) < 0)
        say(r, "warning: out of memory for the manifest");
    save(r);
    r->done_w += s->weight;
    r->done_s += mono() - t;
    r->step_t0 = 0;
    step_end_line(r, i, st, reason, mono() - t);
    return st;
}

/* The errors of every result file of the run, from their counts. */
static void summary(struct run *r) {
    const struct suite_plan *p = r->job->p;
    long sent = 0, ok = 0, failed = 0;
    struct buf lines;
    buf_init(&lines, BUF_NO_CAP);
    for (size_t i = 0; i < p->n; i++)
        for (int k = 0; k < p->steps[i].nsides; k++) {
            char *path = suite_plan_result(p, &p->steps[i], k);
            struct suite_result res;
            if (!path || suite_result_read(path, &res) != 0) {
                free(path);
                continue;
            }
            free(path);
            sent += res.sent;
            ok += res.ok;
            failed += res.failed;
            int head = (int)strcspn(res.reason, ":");
            if ((res.failed || res.partial) &&
                buf_addf(&lines, "  %-18s %-16s %ld of %ld failed%s%s%s%.*s\n", p->steps[i].id,
                         r->job->o->side[k].label, res.failed, res.sent, res.errors[0] ? ": " : "",
                         res.errors, res.partial ? "; partial: " : "", res.partial ? head : 0,
                         res.reason) != BUF_OK)
                say(r, "warning: out of memory");
        }
    say(r, "requests: %ld sent, %ld ok, %ld failed%s", sent, ok, failed,
        lines.len ? ":" : (failed ? "" : "; no errors"));
    fputs(buf_str(&lines), stderr);
    buf_free(&lines);
}

static void on_compare_line(void *ctx, const char *line, bool is_stderr) {
    struct run *r = ctx;
    status_clear(r);
    fprintf(is_stderr ? stderr : stdout, "%s\n", line);
}

static int print_file(const char *path) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = readall_path(path, &b) == 0 && fwrite(buf_str(&b), 1, b.len, stdout) == b.len ? 0 : -1;
    fflush(stdout);
    buf_free(&b);
    return rc;
}

/* sm-compare: the table (printed), the chart, Markdown and JSON. */
static int compare(struct run *r) {
    const struct suite_job *j = r->job;
    int status = 0;
    static const char *const titles[SUITE_NCMP] = {"the comparison: the table and the chart",
                                                   "the comparison: Markdown",
                                                   "the comparison: JSON"};
    say(r, "comparing with sm-compare");
    for (int k = 0; k < SUITE_NCMP && status == 0; k++) {
        struct buf line;
        buf_init(&line, BUF_NO_CAP);
        if (suite_plan_command_line(j->t, &j->p->compare[k], false, &line) == BUF_OK) {
            fprintf(stderr, "%s\n", buf_str(&line));
            note_command(r, titles[k], buf_str(&line));
        }
        buf_free(&line);
        struct suite_exec_io io = {-1, -1, on_compare_line, NULL, r};
        if (suite_exec_run(j->p->compare[k].v, &io, &status) < 0) status = 1;
    }
    if (suite_manifest_reports(&r->m, j->p, j->t, status) < 0) say(r, "warning: out of memory");
    save(r);
    if (status != 0) {
        say(r, "sm-compare failed (status %d); the results are in %s", status, j->dir);
        return 1;
    }
    char *text = path_in(j->dir, suite_report_files[SUITE_CMP_TEXT]);
    fputc('\n', stdout);
    if (!text || print_file(text) < 0) say(r, "cannot read %s", text ? text : "the report");
    free(text);
    say(r, "the report: %s/%s (Markdown), %s/%s (chart), %s/%s (text), %s/%s (JSON)", j->dir,
        suite_report_files[SUITE_CMP_MARKDOWN], j->dir, suite_report_files[SUITE_NCMP], j->dir,
        suite_report_files[SUITE_CMP_TEXT], j->dir, suite_report_files[SUITE_CMP_JSON]);
    return 0;
}

/* How to go on after a run that stopped early. */
static void hints(struct run *r) {
    const struct suite_job *j = r->job;
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    say(r, "everything measured so far is kept in %s", j->dir);
    int rc = suite_quote(&b, j->self);
    if (rc == BUF_OK) rc = buf_adds(&b, " --resume ");
    if (rc == BUF_OK) rc = suite_quote(&b, j->dir);
    if (rc == BUF_OK) {
        say(r, "to resume (steps whose result files are complete are skipped):");
        fprintf(stderr, "%s\n", buf_str(&b));
        if (j->o->url)
            say(r, "(add --url URL if the endpoint now listens at another URL than %s)", j->o->url);
    }
    buf_reset(&b);
    rc = suite_quote(&b, j->t->compare);
    if (rc == BUF_OK && j->o->price > 0) rc = buf_addf(&b, " --price-per-hour %g", j->o->price);
    for (int k = 0; rc == BUF_OK && k < 2; k++) {
        rc = buf_addc(&b, ' ');
        if (rc == BUF_OK) rc = suite_quote(&b, j->p->side_dir[k]);
    }
    if (rc == BUF_OK) {
        say(r, "to compare what is there:");
        fprintf(stderr, "%s\n", buf_str(&b));
    }
    buf_free(&b);
}

static void intro(struct run *r, size_t skipped) {
    const struct suite_job *j = r->job;
    const char *lb = j->o->side[0].label, *lc = j->o->side[1].label;
    say(r,
        "run directory %s: manifest.json, commands.sh, output/, and the result files in %s/ "
        "and %s/",
        j->dir, lb, lc);
    say(r,
        "%zu step%s, %zu complete already; each wrk run measures %s and %s, their requests "
        "alternating%s",
        j->p->n, j->p->n == 1 ? "" : "s", skipped, lb, lc,
        j->o->aba ? "; then every step again for the baseline alone (--order aba)" : "");
    if (j->o->time_scale != 1)
        say(r,
            "time-scaled: the server runs %g times faster than real time (--time-scale %g); "
            "sm-compare reports every time and rate in real units",
            j->o->time_scale, j->o->time_scale);
}

/* Runs the steps; returns the outcome that ended them (ST_DONE or ST_PARTIAL
 * when all ran). */
static enum outcome run_steps(struct run *r) {
    enum outcome worst = ST_DONE;
    r->t0 = mono();
    for (size_t i = 0; i < r->job->p->n; i++) {
        if (r->complete[i]) continue;
        if (suite_exec_stopping()) return ST_INTERRUPTED;
        enum outcome st = run_step(r, i);
        if (st != ST_DONE && st != ST_PARTIAL) return st;
        if (st == ST_PARTIAL) worst = ST_PARTIAL;
    }
    return worst;
}

static int finish(struct run *r, enum outcome st) {
    static const char *const session[] = {"done", "partial", "failed", "interrupted", "failed"};
    char now[32];
    int status = st == ST_DONE ? 0 : st == ST_INTERRUPTED ? 130 : st == ST_USAGE ? 2 : 1;
    summary(r);
    if (st == ST_DONE || st == ST_PARTIAL) {
        if (compare(r) != 0) status = 1;
        if (st == ST_PARTIAL) hints(r);
    } else {
        hints(r);
    }
    wall(now, sizeof now, false);
    if (suite_manifest_end(&r->m, session[st], now) < 0) say(r, "warning: out of memory");
    save(r);
    return status;
}

int suite_run(const struct suite_job *job) {
    struct run r = {.job = job, .tty = isatty(2) == 1};
    char now[32];
    int status = 1;
    wall(now, sizeof now, false);
    if (make_dirs(&r) < 0 || copy_facts(&r) < 0) goto done;
    if (suite_manifest_begin(&r.m, job->dir, job->o, job->p, job->command, now) < 0) {
        say(&r, "cannot start the manifest of %s", job->dir);
        goto done;
    }
    if (start_commands(&r) < 0) {
        say(&r, "cannot write %s/commands.sh: %s", job->dir, strerror(errno));
        goto done;
    }
    if (sort_steps(&r) < 0) goto done;
    save(&r);
    size_t skipped = 0;
    for (size_t i = 0; i < job->p->n; i++) skipped += r.complete[i];
    intro(&r, skipped);
    status = finish(&r, run_steps(&r));
done:
    status_clear(&r);
    suite_manifest_free(&r.m);
    free(r.complete);
    free(r.commands);
    return status;
}
