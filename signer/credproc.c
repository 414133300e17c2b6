#include "credproc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "readall.h"

extern char **environ;

__attribute__((format(printf, 4, 5))) static int credproc_fail(struct buf *err, const char *command,
                                                               int rc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_reset(err);
    if (buf_addf(err, "credential_process '%s' ", command) || buf_vaddf(err, fmt, ap))
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
    rc = readall_fd_timeout(fds[0], timeout_ms, out);
    close(fds[0]);
    if (rc) kill(-pid, SIGKILL);
    int status = credproc_wait(pid);
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
