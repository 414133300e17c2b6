#include "mcp_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MCP_PROC_LINE_MAX ((size_t)64 << 10)

static void mcp_proc_child(char *const argv[], int out, int err) {
    int null = open("/dev/null", O_RDONLY);
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

int mcp_proc_run(char *const argv[], const struct mcp_proc_io *io, int *status, bool *cancelled,
                 struct buf *err) {
    int out[2] = {-1, -1}, errp[2] = {-1, -1};
    struct buf lines[2];
    *cancelled = false;
    *status = -1;
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
    buf_init(&lines[0], MCP_PROC_LINE_MAX);
    buf_init(&lines[1], MCP_PROC_LINE_MAX);
    struct pollfd fds[2] = {{out[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        int r = poll(fds, 2, 200);
        if (r < 0 && errno != EINTR) break;
        if (!*cancelled && io->cancelled && io->cancelled(io->ud)) {
            *cancelled = true;
            kill(pid, SIGINT);
        }
        for (int k = 0; r > 0 && k < 2; k++)
            if (fds[k].fd >= 0 && fds[k].revents && !mcp_proc_read(fds[k].fd, &lines[k], k, io)) {
                close(fds[k].fd);
                fds[k].fd = -1;
            }
    }
    for (int k = 0; k < 2; k++)
        if (fds[k].fd >= 0) close(fds[k].fd);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) continue;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    buf_free(&lines[0]);
    buf_free(&lines[1]);
    return MCP_PROC_OK;
}
