#include "mcp_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MCP_PROC_LINE_MAX ((size_t)64 << 10)

static volatile sig_atomic_t mcp_proc_running; /* mcp_proc_run is under way */
static volatile sig_atomic_t mcp_proc_signal;  /* the signal that came meanwhile; 0: none */

static void mcp_proc_on_signal(int sig) {
    if (!mcp_proc_running) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    mcp_proc_signal = sig;
}

void mcp_proc_catch_signals(void) {
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    struct sigaction sa = {.sa_handler = mcp_proc_on_signal};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
}

/* Ends sm-mcp by the signal that stopped a run, now that its tree is gone. */
static void mcp_proc_pass_signal(void) {
    int sig = mcp_proc_signal;
    mcp_proc_running = 0;
    if (!sig) return;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void mcp_proc_child(char *const argv[], int out, int err) {
    int null = open("/dev/null", O_RDONLY);
    setpgid(0, 0); /* its own group: a stop reaches all that stayed in it at once */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    signal(SIGPIPE, SIG_DFL);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
    execvp(argv[0], argv);
    dprintf(2, "sm-mcp: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Reads what fd has; hands whole lines to io. false at its end. */
static bool mcp_proc_read(int fd, struct buf *line, bool is_stderr, const struct mcp_proc_io *io) {
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (n <= 0) {
        if (line->len && io->on_line) io->on_line(io->ud, buf_str(line), is_stderr);
        buf_reset(line);
        return false;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (chunk[i] != '\n') {
            if (buf_addc(line, chunk[i])) buf_reset(line); /* an endless line is dropped */
            continue;
        }
        if (io->on_line) io->on_line(io->ud, buf_str(line), is_stderr);
        buf_reset(line);
    }
    return true;
}

size_t mcp_proc_descendants(const pid_t (*procs)[2], size_t n, pid_t root, pid_t *out, size_t max) {
    size_t found = 0;
    /* Passes over the table until one adds nobody: a child of root or of one
     * found joins (each pid once). */
    for (bool added = true; added;) {
        added = false;
        for (size_t i = 0; i < n && found < max; i++) {
            bool parent = procs[i][1] == root, known = procs[i][0] == root;
            for (size_t k = 0; k < found; k++) {
                parent |= procs[i][1] == out[k];
                known |= procs[i][0] == out[k];
            }
            if (parent && !known) {
                out[found++] = procs[i][0];
                added = true;
            }
        }
    }
    return found;
}

/* The live processes as {pid, ppid} pairs from /proc (the caller frees *procs). */
static size_t mcp_proc_table(pid_t (**procs)[2]) {
    size_t n = 0, cap = 0;
    *procs = NULL;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        char path[64], text[512];
        snprintf(path, sizeof path, "/proc/%.20s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t len = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
        if (fd >= 0) close(fd);
        if (len <= 0) continue;
        text[len] = '\0';
        /* "PID (COMM) STATE PPID ...": COMM may hold anything, the last ')' ends it */
        const char *paren = strrchr(text, ')');
        char *end;
        if (!paren || paren[1] != ' ' || !paren[2] || paren[3] != ' ') continue;
        long ppid = strtol(paren + 4, &end, 10);
        long pid = strtol(e->d_name, NULL, 10);
        if (end == paren + 4 || ppid < 0 || pid <= 0) continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 512;
            pid_t(*grown)[2] = realloc(*procs, ncap * sizeof **procs);
            if (!grown) break;
            *procs = grown;
            cap = ncap;
        }
        (*procs)[n][0] = (pid_t)pid;
        (*procs)[n][1] = (pid_t)ppid;
        n++;
    }
    if (d) closedir(d);
    return n;
}

/* Sends sig to the program's group and to every descendant of sm-mcp; returns
 * how many descendants there were. */
static size_t mcp_proc_signal_all(pid_t group, int sig) {
    pid_t(*procs)[2];
    size_t n = mcp_proc_table(&procs);
    pid_t *found = n ? malloc(n * sizeof *found) : NULL;
    size_t k = found ? mcp_proc_descendants((const pid_t(*)[2])procs, n, getpid(), found, n) : 0;
    if (sig) {
        if (group > 0) kill(-group, sig);
        for (size_t i = 0; i < k; i++) kill(found[i], sig);
    }
    free(found);
    free(procs);
    return k;
}

static double mcp_proc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The state of a run's processes. */
struct mcp_proc_tree {
    pid_t pid;
    bool reaped; /* the program was waited for: st holds its status */
    int st;
    bool stopping;   /* SIGTERM was sent */
    bool killed;     /* SIGKILL was sent */
    double deadline; /* when a stopping tree gets SIGKILL */
};

/* Reaps whatever has ended (the program, and what was reparented to sm-mcp). */
static void mcp_proc_reap(struct mcp_proc_tree *t) {
    int st;
    pid_t w;
    while ((w = waitpid(-1, &st, WNOHANG)) > 0)
        if (w == t->pid) {
            t->reaped = true;
            t->st = st;
        }
}

static void mcp_proc_stop(struct mcp_proc_tree *t) {
    if (t->stopping) return;
    t->stopping = true;
    t->deadline = mcp_proc_now() + MCP_PROC_GRACE_S;
    mcp_proc_signal_all(t->pid, SIGTERM);
}

/* SIGKILL once a stopping tree's grace is over. */
static void mcp_proc_escalate(struct mcp_proc_tree *t) {
    if (!t->stopping || t->killed || mcp_proc_now() < t->deadline) return;
    t->killed = true;
    mcp_proc_signal_all(t->pid, SIGKILL);
}

int mcp_proc_run(char *const argv[], const struct mcp_proc_io *io, int *status, bool *stopped,
                 struct buf *err) {
    int out[2] = {-1, -1}, errp[2] = {-1, -1};
    struct buf lines[2];
    *stopped = false;
    *status = -1;
    /* What the program starts and leaves (wrk when sm-suite dies) comes back
     * to sm-mcp, to be stopped and waited for. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (pipe2(out, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
        for (int k = 0; k < 2; k++)
            if (out[k] >= 0) close(out[k]);
        return buf_fail(err, MCP_PROC_ERR_SYSTEM, "cannot run %s: %s", argv[0], strerror(errno));
    }
    pid_t pid = fork();
    if (pid == 0) mcp_proc_child(argv, out[1], errp[1]);
    close(out[1]);
    close(errp[1]);
    if (pid < 0) {
        close(out[0]);
        close(errp[0]);
        return buf_fail(err, MCP_PROC_ERR_SYSTEM, "cannot run %s: %s", argv[0], strerror(errno));
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    mcp_proc_running = 1;
    struct mcp_proc_tree t = {.pid = pid};
    buf_init(&lines[0], MCP_PROC_LINE_MAX);
    buf_init(&lines[1], MCP_PROC_LINE_MAX);
    struct pollfd fds[2] = {{out[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
    /* Until the outputs close and every process has ended. */
    for (;;) {
        bool open = fds[0].fd >= 0 || fds[1].fd >= 0;
        int r = open ? poll(fds, 2, 100) : 0;
        if (r < 0 && errno != EINTR) break;
        for (int k = 0; r > 0 && k < 2; k++)
            if (fds[k].fd >= 0 && fds[k].revents && !mcp_proc_read(fds[k].fd, &lines[k], k, io)) {
                close(fds[k].fd);
                fds[k].fd = -1;
            }
        mcp_proc_reap(&t);
        if (!t.stopping && (mcp_proc_signal || (io->stop && io->stop(io->ud)))) {
            *stopped = true;
            mcp_proc_stop(&t);
        }
        if (t.reaped) mcp_proc_stop(&t); /* what the program left behind */
        mcp_proc_escalate(&t);
        if (!open) {
            if (t.reaped && !mcp_proc_signal_all(0, 0)) break;
            struct timespec ts = {0, 10L * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    for (int k = 0; k < 2; k++)
        if (fds[k].fd >= 0) close(fds[k].fd);
    if (!t.reaped) {
        mcp_proc_signal_all(pid, SIGKILL);
        while (waitpid(pid, &t.st, 0) < 0 && errno == EINTR) continue;
    }
    *status = WIFEXITED(t.st) ? WEXITSTATUS(t.st) : 128 + WTERMSIG(t.st);
    buf_free(&lines[0]);
    buf_free(&lines[1]);
    mcp_proc_pass_signal();
    return MCP_PROC_OK;
}
