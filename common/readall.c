#include "readall.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

static long long readall_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is readable; returns 0, ETIMEDOUT after deadline_ms, or errno. */
static int readall_wait(int fd, long long deadline_ms) {
    for (;;) {
        long long left = deadline_ms - readall_now_ms();
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int n = left > 0 ? poll(&p, 1, left > 1000000 ? 1000000 : (int)left) : 0;
        if (n > 0) return 0;
        if (n == 0 && left <= 0) return ETIMEDOUT;
        if (n < 0 && errno != EINTR) return errno;
    }
}

int readall_fd_timeout(int fd, int timeout_ms, struct buf *out) {
    char chunk[16384];
    long long deadline = readall_now_ms() + timeout_ms;
    int rc = 0;
    for (;;) {
        if (timeout_ms >= 0 && (rc = readall_wait(fd, deadline))) break;
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            rc = n < 0 ? errno : 0;
            break;
        }
        rc = buf_add(out, chunk, (size_t)n);
        if (rc) break;
    }
    OPENSSL_cleanse(chunk, sizeof chunk); /* the data may hold secrets */
    return rc;
}

int readall_fd(int fd, struct buf *out) {
    return readall_fd_timeout(fd, -1, out);
}

int readall_path(const char *path, struct buf *out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    int rc = readall_fd(fd, out);
    close(fd);
    return rc;
}

int readall_regular(const char *path, struct buf *out) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno;
    struct stat st;
    int rc = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? READALL_ERR_NOT_REGULAR : 0;
    if (!rc) rc = readall_fd(fd, out);
    close(fd);
    return rc;
}

const char *readall_why(int rc, const char *large) {
    return rc == BUF_ERR_CAP               ? large
           : rc == READALL_ERR_NOT_REGULAR ? "not a regular file"
           : rc > 0                        ? strerror(rc)
                                           : "read failed";
}
