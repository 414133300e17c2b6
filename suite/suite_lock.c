#include "suite_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safeopen.h"

/* The pid the holder wrote, or 0. */
static long suite_lock_holder(int fd) {
    char text[32];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0) return 0;
    text[n] = '\0';
    char *end;
    long pid = strtol(text, &end, 10);
    return end != text && *end == '\n' && pid > 0 ? pid : 0;
}

int suite_lock_take(const char *dir, int *fd, struct buf *err) {
    char *path;
    struct stat st;
    *fd = -1;
    if (asprintf(&path, "%s/%s", dir, SUITE_LOCK_FILE) < 0)
        return buf_fail(err, SUITE_LOCK_ERR_IO, "out of memory");
    /* Not through a link another user planted, and never truncated before it is ours. */
    struct buf why;
    buf_init(&why, 1024);
    int f = safeopen_path(path, NULL, 0644, SAFEOPEN_KEEP | SAFEOPEN_RDWR, &why);
    int rc = SUITE_LOCK_OK;
    if (f < 0 || fstat(f, &st) != 0 || !S_ISREG(st.st_mode))
        rc = buf_fail(err, SUITE_LOCK_ERR_IO, "cannot lock the run directory %s: %s", dir,
                      f < 0 ? buf_str(&why) : "not a regular file");
    else if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        long pid = e == EWOULDBLOCK ? suite_lock_holder(f) : 0;
        if (e != EWOULDBLOCK)
            rc = buf_fail(err, SUITE_LOCK_ERR_IO, "cannot lock the run directory %s: %s", dir,
                          strerror(e));
        else if (pid)
            rc = buf_fail(err, SUITE_LOCK_ERR_BUSY,
                          "the run directory %s is in use by another sm-suite (pid %ld)", dir, pid);
        else
            rc = buf_fail(err, SUITE_LOCK_ERR_BUSY,
                          "the run directory %s is in use by another sm-suite", dir);
    } else {
        char text[32];
        int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
        if (ftruncate(f, 0) != 0 || pwrite(f, text, (size_t)n, 0) != n)
            rc = buf_fail(err, SUITE_LOCK_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    free(path);
    buf_free(&why);
    if (rc < 0 && f >= 0) close(f);
    if (rc == SUITE_LOCK_OK) *fd = f;
    return rc;
}

void suite_lock_release(int fd) {
    if (fd >= 0) close(fd);
}
