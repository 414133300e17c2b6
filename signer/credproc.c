#include "credproc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <openssl/crypto.h>

extern char **environ;

static long long credproc_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

#define CREDPROC_NAME_MAX 64

int credproc_name(const char *command, struct buf *out) {
    const char *p = command + strspn(command, " \t");
    size_t n = strcspn(p, " \t\r\n");
    for (const char *slash = memchr(p, '/', n); slash; slash = memchr(p, '/', n)) {
        n -= (size_t)(slash + 1 - p);
        p = slash + 1;
    }
    return buf_addf(out, "credential_process (program '%.*s')",
                    (int)(n < CREDPROC_NAME_MAX ? n : CREDPROC_NAME_MAX), p);
}

__attribute__((format(printf, 4, 5))) static int credproc_fail(struct buf *err, const char *command,
                                                               int rc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_reset(err);
    if (credproc_name(command, err) || buf_addc(err, ' ') || buf_vaddf(err, fmt, ap))
        rc = CREDPROC_ERR_NOMEM;
    va_end(ap);
    return rc;
}

/* Starts /bin/sh -c command with its standard output on out_fd. */
static int credproc_spawn(const char *command, int out_fd, pid_t *pid) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, defaults;
    char *argv[] = {"sh", "-c", (char *)command, NULL};
    sigemptyset(&none);
    sigfillset(&defaults);
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc) return rc;
    rc = posix_spawnattr_init(&at);
    if (!rc) {
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) ||
                     posix_spawn_file_actions_adddup2(&fa, out_fd, 1) ||
                     posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0) ||
                     posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                                       POSIX_SPAWN_SETSIGDEF) ||
                     posix_spawnattr_setpgroup(&at, 0) || posix_spawnattr_setsigmask(&at, &none) ||
                     posix_spawnattr_setsigdefault(&at, &defaults)
                 ? ENOMEM
                 : 0;
        if (!rc) rc = posix_spawn(pid, "/bin/sh", &fa, &at, argv, environ);
        posix_spawnattr_destroy(&at);
    }
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

/* Waits for pid; returns its wait status (0 when the host reaps children itself). */
static int credproc_wait(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return 0;
    }
    return status;
}

/* Whether out holds one whole JSON value (what a helper prints), white space aside. */
static bool credproc_complete(const struct buf *out) {
    cJSON *j = out->len ? cJSON_ParseWithLength(out->data, out->len) : NULL;
    bool whole = j != NULL;
    cJSON_Delete(j);
    return whole;
}

/* Reads what the helper prints into out until the pipe's end, or until the
 * helper exited and what it printed is whole: a child it left in the background
 * may keep the pipe open for ever. *status is its wait status once reaped, else
 * -1. Returns 0, ETIMEDOUT, BUF_ERR_* or an errno value. */
static int credproc_collect(int fd, pid_t pid, int timeout_ms, struct buf *out, int *status) {
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* readable when the helper exits */
    long long deadline = credproc_now_ms() + timeout_ms;
    char chunk[16384];
    int rc = 0;
    *status = -1;
    for (;;) {
        struct pollfd p[2] = {{fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
        long long left = deadline - credproc_now_ms();
        int n = left > 0 ? poll(p, pidfd >= 0 && *status < 0 ? 2 : 1, (int)left) : 0;
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            rc = n < 0 ? errno : ETIMEDOUT;
            break;
        }
        if (p[1].revents && waitpid(pid, status, WNOHANG) != pid) *status = -1;
        if (p[0].revents) {
            ssize_t got = read(fd, chunk, sizeof chunk);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                rc = got < 0 ? errno : 0;
                break;
            }
            if ((rc = buf_add(out, chunk, (size_t)got))) break;
        }
        if (*status >= 0 && credproc_complete(out)) break;
    }
    OPENSSL_cleanse(chunk, sizeof chunk); /* the data may hold secrets */
    if (pidfd >= 0) close(pidfd);
    return rc;
}

static int credproc_status_error(const char *command, int status, struct buf *err) {
    if (WIFSIGNALED(status))
        return credproc_fail(err, command, CREDPROC_ERR_RUN, "was killed by signal %d",
                             WTERMSIG(status));
    int code = WEXITSTATUS(status);
    const char *why = code == 127 ? " (command not found)"
                      : code == 126
                          ? " (not executable)"
                          : " (its standard error is not shown: run it by hand to see why)";
    return credproc_fail(err, command, CREDPROC_ERR_RUN, "exited with status %d%s", code, why);
}

int credproc_run(const char *command, int timeout_ms, struct buf *out, struct buf *err) {
    int fds[2];
    pid_t pid;
    if (pipe2(fds, O_CLOEXEC))
        return credproc_fail(err, command, CREDPROC_ERR_RUN, "could not start: %s",
                             strerror(errno));
    int rc = credproc_spawn(command, fds[1], &pid);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        return credproc_fail(err, command, CREDPROC_ERR_RUN, "could not start: %s", strerror(rc));
    }
    int status;
    rc = credproc_collect(fds[0], pid, timeout_ms, out, &status);
    close(fds[0]);
    if (rc) kill(-pid, SIGKILL);
    if (status < 0) status = credproc_wait(pid);
    if (rc == ETIMEDOUT)
        return credproc_fail(err, command, CREDPROC_ERR_RUN, "timed out after %d ms", timeout_ms);
    if (rc == BUF_ERR_CAP)
        return credproc_fail(err, command, CREDPROC_ERR_OUTPUT, "printed more than %zu bytes",
                             out->max);
    if (rc == BUF_ERR_NOMEM) return CREDPROC_ERR_NOMEM;
    if (rc)
        return credproc_fail(err, command, CREDPROC_ERR_OUTPUT, "could not be read: %s",
                             strerror(rc));
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        return credproc_status_error(command, status, err);
    return CREDPROC_OK;
}
