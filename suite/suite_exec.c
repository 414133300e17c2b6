#include "suite_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"

static volatile sig_atomic_t suite_exec_stop_asked;
static sigset_t suite_exec_stop_set;  /* SIGINT, SIGTERM, SIGHUP */
static sigset_t suite_exec_wait_mask; /* the mask while waiting: the one sm-suite started with */

static void suite_exec_on_stop(int sig) {
    (void)sig;
    suite_exec_stop_asked = 1;
}

int suite_exec_init(struct buf *err) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = suite_exec_on_stop;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&suite_exec_stop_set);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        sigaddset(&suite_exec_stop_set, sigs[i]);
        if (sigaction(sigs[i], &sa, NULL) != 0)
            return buf_fail(err, SUITE_EXEC_ERR_SYSTEM, "signals: %s", strerror(errno));
    }
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
        sigprocmask(SIG_BLOCK, &suite_exec_stop_set, &suite_exec_wait_mask) != 0)
        return buf_fail(err, SUITE_EXEC_ERR_SYSTEM, "signals: %s", strerror(errno));
    sigdelset(&suite_exec_wait_mask, SIGINT);
    sigdelset(&suite_exec_wait_mask, SIGTERM);
    sigdelset(&suite_exec_wait_mask, SIGHUP);
    return SUITE_EXEC_OK;
}

bool suite_exec_stopping(void) {
    sigset_t pending;
    if (sigpending(&pending) == 0 &&
        (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
         sigismember(&pending, SIGHUP))) {
        sigprocmask(SIG_UNBLOCK, &suite_exec_stop_set, NULL);
        sigprocmask(SIG_BLOCK, &suite_exec_stop_set, NULL);
    }
    return suite_exec_stop_asked != 0;
}

static double suite_exec_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void suite_exec_write_all(int fd, const char *p, size_t n) {
    while (fd >= 0 && n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

/* The child's side: never returns. It ends with sm-suite: the kernel sends it
 * SIGTERM when sm-suite dies, however (even by SIGKILL), so a wrk run never goes
 * on sending on its own; and when sm-suite died before that was asked for (its
 * parent is then another process), it ends at once. */
static void suite_exec_child(char *const argv[], int out, int err, pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(127);
    int null = open("/dev/null", O_RDONLY);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &suite_exec_wait_mask, NULL);
    setpgid(0, 0);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
    execvp(argv[0], argv);
    dprintf(2, "sm-suite: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* One stream of the child: its copy, and the line being read. */
struct suite_exec_stream {
    int fd;
    int copy;
    bool is_stderr;
    struct buf line;
};

/* Reads what is there; false at the end of the stream. */
static bool suite_exec_drain(struct suite_exec_stream *s, const struct suite_exec_io *io) {
    char chunk[8192];
    ssize_t n = read(s->fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (n <= 0) {
        if (s->line.len && io->on_line) io->on_line(io->ctx, buf_str(&s->line), s->is_stderr);
        return false;
    }
    suite_exec_write_all(s->copy, chunk, (size_t)n);
    for (ssize_t i = 0; i < n; i++) {
        if (chunk[i] != '\n') {
            if (buf_addc(&s->line, chunk[i]) != BUF_OK) buf_reset(&s->line);
            continue;
        }
        if (io->on_line) io->on_line(io->ctx, buf_str(&s->line), s->is_stderr);
        buf_reset(&s->line);
    }
    return true;
}

/* Waits on both streams until they close, passing stops on to pid. */
static void suite_exec_pump(pid_t pid, struct suite_exec_stream *s,
                            const struct suite_exec_io *io) {
    struct pollfd fds[2] = {{s[0].fd, POLLIN, 0}, {s[1].fd, POLLIN, 0}};
    double tick = suite_exec_now(), sent = -1;
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        struct timespec wait = {0, 250L * 1000 * 1000};
        int r = ppoll(fds, 2, &wait, &suite_exec_wait_mask);
        if (r < 0 && errno != EINTR) return; /* cannot wait: the caller reaps the child */
        double now = suite_exec_now();
        if (suite_exec_stop_asked && !io->shielded && (sent < 0 || now - sent >= 1)) {
            kill(pid, SIGINT);
            sent = now;
        }
        for (int k = 0; r > 0 && k < 2; k++)
            if (fds[k].fd >= 0 && fds[k].revents && !suite_exec_drain(&s[k], io)) fds[k].fd = -1;
        if (now - tick >= 1) {
            tick = now;
            if (io->on_tick) io->on_tick(io->ctx);
        }
    }
}

int suite_exec_run(char *const argv[], const struct suite_exec_io *io, int *status,
                   struct buf *err) {
    int out[2] = {-1, -1}, errp[2] = {-1, -1}, rc = SUITE_EXEC_ERR_SYSTEM;
    struct suite_exec_stream s[2] = {{.copy = io->out_fd}, {.copy = io->err_fd, .is_stderr = true}};
    buf_init(&s[0].line, 1 << 20);
    buf_init(&s[1].line, 1 << 20);
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) goto done;
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) goto done;
    if (pid == 0) suite_exec_child(argv, out[1], errp[1], parent);
    setpgid(pid, pid);
    close(out[1]);
    close(errp[1]);
    out[1] = errp[1] = -1;
    s[0].fd = out[0];
    s[1].fd = errp[0];
    suite_exec_pump(pid, s, io);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) continue;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    rc = SUITE_EXEC_OK;
done:
    if (rc < 0) buf_fail(err, rc, "cannot start %s: %s", argv[0], strerror(errno));
    for (int k = 0; k < 2; k++) {
        if (out[k] >= 0) close(out[k]);
        if (errp[k] >= 0) close(errp[k]);
    }
    buf_free(&s[0].line);
    buf_free(&s[1].line);
    return rc;
}
