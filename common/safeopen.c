#include "safeopen.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The failure of opening path (at) whose open said e. */
static int safeopen_fail(int dfd, const char *name, const char *dir, const char *rel, size_t n,
                         int e, struct buf *err) {
    struct stat st;
    if ((e == ELOOP || e == ENOTDIR || e == EEXIST) && dfd >= 0 &&
        fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return buf_fail(err, SAFEOPEN_ERR_LINK,
                        "%s/%.*s is a symbolic link: refusing to follow it (remove it, or "
                        "choose another folder)",
                        dir, (int)n, rel);
    if (e == EEXIST)
        return buf_fail(err, SAFEOPEN_ERR_EXISTS, "%s/%.*s: %s", dir, (int)n, rel, strerror(e));
    return buf_fail(err, SAFEOPEN_ERR_IO, "%s/%.*s: %s", dir, (int)n, rel, strerror(e));
}

int safeopen_create(const char *dir, const char *rel, mode_t mode, int replace, struct buf *err) {
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        int e = errno;
        struct stat st;
        if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
            return buf_fail(err, SAFEOPEN_ERR_LINK,
                            "%s is a symbolic link: refusing to follow it (name the folder "
                            "it points to)",
                            dir);
        return buf_fail(err, SAFEOPEN_ERR_IO, "%s: %s", dir, strerror(e));
    }
    const char *p = rel;
    for (const char *slash; (slash = strchr(p, '/')) != NULL; p = slash + 1) {
        char name[256];
        size_t len = (size_t)(slash - p);
        if (len == 0 || len >= sizeof name || (len == 2 && p[0] == '.' && p[1] == '.')) {
            close(dfd);
            return buf_fail(err, SAFEOPEN_ERR_IO, "%s/%s: not a plain relative path", dir, rel);
        }
        memcpy(name, p, len);
        name[len] = '\0';
        if (mkdirat(dfd, name, 0777) != 0 && errno != EEXIST) {
            int rc = safeopen_fail(dfd, name, dir, rel, (size_t)(slash - rel), errno, err);
            close(dfd);
            return rc;
        }
        int next = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            int rc = safeopen_fail(dfd, name, dir, rel, (size_t)(slash - rel), errno, err);
            close(dfd);
            return rc;
        }
        close(dfd);
        dfd = next;
    }
    struct stat st;
    if (replace && fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
        (void)unlinkat(dfd, p, 0);
    int fd = openat(dfd, p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    int rc = fd >= 0 ? fd : safeopen_fail(dfd, p, dir, rel, strlen(rel), errno, err);
    close(dfd);
    return rc;
}
