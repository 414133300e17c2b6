#include "suite_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"

static volatile sig_atomic_t stop_asked;
static sigset_t stop_set;  /* SIGINT, SIGTERM, SIGHUP */
static sigset_t wait_mask; /* the mask while waiting: the one sm-suite started with */

static void on_stop(int sig) {
    (void)sig;
    stop_asked = 1;
}

int suite_exec_init(void) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&stop_set);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        sigaddset(&stop_set, sigs[i]);
        if (sigaction(sigs[i], &sa, NULL) != 0) return -1;
    }
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) return -1;
    if (sigprocmask(SIG_BLOCK, &stop_set, &wait_mask) != 0) return -1;
    sigdelset(&wait_mask, SIGINT);
    sigdelset(&wait_mask, SIGTERM);
    sigdelset(&wait_mask, SIGHUP);
    return 0;
}

bool suite_exec_stopping(void) {
    sigset_t pending;
    if (sigpending(&pending) == 0 &&
        (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
         sigismember(&pending, SIGHUP))) {
        sigprocmask(SIG_UNBLOCK, &stop_set, NULL);
        sigprocmask(SIG_BLOCK, &stop_set, NULL);
    }
    return stop_asked != 0;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_all(int fd, const char *p, size_t n) {
    while (fd >= 0 && n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

/* The child's side: never returns. */
static void child(char *const argv[], int out, int err) {
    int null = open("/dev/null", O_RDONLY);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &wait_mask, NULL);
    setpgid(0, 0);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
    execvp(argv[0], argv);
    dprintf(2, "sm-suite: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* One stream of the child: its copy, and the line being read. */
struct stream {
    int fd;
    int copy;
    bool is_stderr;
    struct buf line;
};

/* Reads what is there; false at the end of the stream. */
static bool drain(struct stream *s, const struct suite_exec_io *io) {
    char chunk[8192];
    ssize_t n = read(s->fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (n <= 0) {
        if (s->line.len && io->on_line) io->on_line(io->ctx, buf_str(&s->line), s->is_stderr);
        return false;
    }
    write_all(s->copy, chunk, (size_t)n);
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
static void pump(pid_t pid, struct stream *s, const struct suite_exec_io *io) {
    struct pollfd fds[2] = {{s[0].fd, POLLIN, 0}, {s[1].fd, POLLIN, 0}};
    double tick = now_s(), sent = -1;
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        struct timespec wait = {0, 250L * 1000 * 1000};
        int r = ppoll(fds, 2, &wait, &wait_mask);
        if (r < 0 && errno != EINTR) return; /* cannot wait: the caller reaps the child */
        double now = now_s();
        if (stop_asked && (sent < 0 || now - sent >= 1)) {
            kill(pid, SIGINT);
            sent = now;
        }
        for (int k = 0; r > 0 && k < 2; k++)
            if (fds[k].fd >= 0 && fds[k].revents && !drain(&s[k], io)) fds[k].fd = -1;
        if (now - tick >= 1) {
            tick = now;
            if (io->on_tick) io->on_tick(io->ctx);
        }
    }
}

int suite_exec_run(char *const argv[], const struct suite_exec_io *io, int *status) {
    int out[2] = {-1, -1}, err[2] = {-1, -1}, rc = -1;
    struct stream s[2] = {{.copy = io->out_fd}, {.copy = io->err_fd, .is_stderr = true}};
    buf_init(&s[0].line, 1 << 20);
    buf_init(&s[1].line, 1 << 20);
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) goto done;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) goto done;
    if (pid == 0) child(argv, out[1], err[1]);
    setpgid(pid, pid);
    close(out[1]);
    close(err[1]);
    out[1] = err[1] = -1;
    s[0].fd = out[0];
    s[1].fd = err[0];
    pump(pid, s, io);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) continue;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    rc = 0;
done:
    for (int k = 0; k < 2; k++) {
        if (out[k] >= 0) close(out[k]);
        if (err[k] >= 0) close(err[k]);
    }
    buf_free(&s[0].line);
    buf_free(&s[1].line);
    return rc;
}
