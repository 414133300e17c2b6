#include "safeopen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A path split: the folder named and what lies below it. */
struct safeopen_split {
    const char *path; /* the whole path, for messages */
    const char *dir;  /* the folder named */
    const char *rel;  /* below it */
    bool dot;         /* dir is "." only because path has no '/': not shown */
};

/* The failure of opening the n first bytes of s's rel (a name in dfd) whose
 * open said e: a link there, or e. */
static int safeopen_fail(const struct safeopen_split *s, int dfd, const char *name, size_t n, int e,
                         struct buf *err) {
    struct stat st;
    const char *sep = s->dot ? "" : "/", *dir = s->dot ? "" : s->dir;
    if ((e == ELOOP || e == ENOTDIR || e == EEXIST || e == EISDIR) && dfd >= 0 &&
        fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return buf_fail(err, SAFEOPEN_ERR_LINK,
                        "cannot write %s: %s%s%.*s is a symbolic link, refusing to follow it "
                        "(remove it, or choose another path)",
                        s->path, dir, sep, (int)n, s->rel);
    if (e == EEXIST) return buf_fail(err, SAFEOPEN_ERR_EXISTS, "%s: %s", s->path, strerror(e));
    return buf_fail(err, SAFEOPEN_ERR_IO, "cannot write %s: %s%s%.*s: %s", s->path, dir, sep,
                    (int)n, s->rel, strerror(e));
}

/* Opens the folder that holds s's file, walking rel's folders (made when
 * missing) without following a link: its descriptor, *leaf the file's name. */
static int safeopen_walk(const struct safeopen_split *s, const char **leaf, struct buf *err) {
    int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        int e = errno;
        struct stat st;
        if (lstat(s->dir, &st) == 0 && S_ISLNK(st.st_mode))
            return buf_fail(err, SAFEOPEN_ERR_LINK,
                            "cannot write %s: %s is a symbolic link, refusing to follow it "
                            "(name the folder it points to)",
                            s->path, s->dir);
        return buf_fail(err, SAFEOPEN_ERR_IO, "cannot write %s: %s: %s", s->path, s->dir,
                        strerror(e));
    }
    const char *p = s->rel;
    for (const char *slash; (slash = strchr(p, '/')) != NULL; p = slash + 1) {
        char name[256];
        size_t len = (size_t)(slash - p);
        if (len == 0 || len >= sizeof name || (len == 2 && p[0] == '.' && p[1] == '.')) {
            close(dfd);
            return buf_fail(err, SAFEOPEN_ERR_IO, "cannot write %s: not a plain relative path",
                            s->path);
        }
        memcpy(name, p, len);
        name[len] = '\0';
        int next = mkdirat(dfd, name, 0777) != 0 && errno != EEXIST
                       ? -1
                       : openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            int rc = safeopen_fail(s, dfd, name, (size_t)(slash - s->rel), errno, err);
            close(dfd);
            return rc;
        }
        close(dfd);
        dfd = next;
    }
    if (!*p || strlen(p) > 255 || strcmp(p, "..") == 0 || strcmp(p, ".") == 0) {
        close(dfd);
        return buf_fail(err, SAFEOPEN_ERR_IO, "cannot write %s: not a file name", s->path);
    }
    *leaf = p;
    return dfd;
}

static int safeopen_split_open(const struct safeopen_split *s, mode_t mode, int how,
                               struct buf *err) {
    const char *leaf;
    int dfd = safeopen_walk(s, &leaf, err);
    if (dfd < 0) return dfd;
    static const int flags[] = {
        [SAFEOPEN_NEW] = O_CREAT | O_EXCL,
        [SAFEOPEN_REPLACE] = O_CREAT | O_EXCL,
        [SAFEOPEN_APPEND] = O_CREAT | O_APPEND,
        [SAFEOPEN_TRUNC] = O_CREAT | O_TRUNC,
        [SAFEOPEN_KEEP] = O_CREAT,
    };
    struct stat st;
    if ((how & 7) == SAFEOPEN_REPLACE && fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode))
        (void)unlinkat(dfd, leaf, 0);
    int fd = openat(dfd, leaf,
                    flags[how & 7] | (how & SAFEOPEN_RDWR ? O_RDWR : O_WRONLY) | O_NOFOLLOW |
                        O_NONBLOCK | O_CLOEXEC,
                    mode);
    if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) { /* a FIFO or a device */
        close(fd);
        fd = -1;
        errno = EINVAL;
    }
    int rc = fd >= 0 ? fd : safeopen_fail(s, dfd, leaf, strlen(s->rel), errno, err);
    if (fd >= 0) (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    close(dfd);
    return rc;
}

int safeopen_create(const char *dir, const char *rel, mode_t mode, int how, struct buf *err) {
    struct buf path;
    buf_init(&path, BUF_NO_CAP);
    if (buf_addf(&path, "%s/%s", dir, rel) != BUF_OK) {
        buf_free(&path);
        return buf_fail(err, SAFEOPEN_ERR_NOMEM, "out of memory");
    }
    struct safeopen_split s = {.path = buf_str(&path), .dir = dir, .rel = rel};
    int rc = safeopen_split_open(&s, mode, how, err);
    buf_free(&path);
    return rc;
}

/* Splits path (see safeopen_path) into s; *copy holds the folder when made. */
static int safeopen_split(const char *path, const char *root, struct safeopen_split *s, char **copy,
                          struct buf *err) {
    size_t n = root ? strlen(root) : 0;
    while (n > 1 && root[n - 1] == '/') n--;
    *s = (struct safeopen_split){.path = path};
    *copy = NULL;
    if (root && strcmp(root, ".") == 0 && path[0] != '/') { /* below the working folder */
        while (path[0] == '.' && path[1] == '/') path += 2;
        *copy = strdup(".");
        s->rel = path;
        s->dot = true;
    } else if (root && n && strncmp(path, root, n) == 0 && path[n] == '/' && path[n + 1]) {
        *copy = strndup(path, n);
        s->rel = path + n + 1;
    } else {
        const char *slash = strrchr(path, '/');
        s->dot = !slash;
        *copy = !slash ? strdup(".") : strndup(path, slash == path ? 1 : (size_t)(slash - path));
        s->rel = slash ? slash + 1 : path;
    }
    s->dir = *copy;
    return *copy ? 0 : buf_fail(err, SAFEOPEN_ERR_NOMEM, "out of memory");
}

int safeopen_path(const char *path, const char *root, mode_t mode, int how, struct buf *err) {
    struct safeopen_split s;
    char *dir;
    int rc = safeopen_split(path, root, &s, &dir, err);
    if (!rc) rc = safeopen_split_open(&s, mode, how, err);
    free(dir);
    return rc;
}

int safeopen_remove(const char *path, const char *root, struct buf *err) {
    struct safeopen_split s;
    char *dir = NULL;
    const char *leaf = ""; /* set by safeopen_walk */
    int rc = safeopen_split(path, root, &s, &dir, err);
    int dfd = rc ? rc : safeopen_walk(&s, &leaf, err);
    if (dfd >= 0) {
        rc = unlinkat(dfd, leaf, 0) == 0 || errno == ENOENT
                 ? 0
                 : buf_fail(err, SAFEOPEN_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
        close(dfd);
    }
    free(dir);
    return dfd < 0 ? dfd : rc;
}

FILE *safeopen_stream(const char *path, int how, const char *flag, struct buf *err) {
    struct buf why;
    buf_init(&why, 1024);
    int fd = safeopen_path(path, NULL, 0666, how, &why);
    FILE *f = fd >= 0 ? fdopen(fd, how == SAFEOPEN_APPEND ? "a" : "w") : NULL;
    if (!f && fd >= 0) {
        (void)buf_fail(&why, SAFEOPEN_ERR_IO, "%s: %s", path, strerror(errno));
        close(fd);
    }
    if (!f) (void)buf_fail(err, SAFEOPEN_ERR_IO, "%s: %s", flag, buf_str(&why));
    buf_free(&why);
    return f;
}

int safeopen_rename(const char *from, const char *to, struct buf *err) {
    struct safeopen_split s[2];
    char *dir[2] = {NULL, NULL};
    const char *leaf[2];
    int dfd[2] = {-1, -1}, rc = 0;
    const char *paths[2] = {from, to};
    for (int i = 0; i < 2 && rc == 0; i++) {
        rc = safeopen_split(paths[i], NULL, &s[i], &dir[i], err);
        if (rc == 0 && (dfd[i] = safeopen_walk(&s[i], &leaf[i], err)) < 0) rc = dfd[i];
    }
    if (rc == 0 && renameat(dfd[0], leaf[0], dfd[1], leaf[1]) != 0)
        rc = buf_fail(err, SAFEOPEN_ERR_IO, "cannot move %s to %s: %s", from, to, strerror(errno));
    for (int i = 0; i < 2; i++) {
        if (dfd[i] >= 0) close(dfd[i]);
        free(dir[i]);
    }
    return rc;
}

int safeopen_tmp_open(struct safeopen_tmp *t, const char *path, const char *root, mode_t mode,
                      struct buf *err) {
    static unsigned counter;
    struct safeopen_split s;
    char *dir = NULL;
    const char *leaf = ""; /* set by safeopen_walk */
    *t = (struct safeopen_tmp){.dfd = -1};
    int rc = safeopen_split(path, root, &s, &dir, err);
    int dfd = rc ? rc : safeopen_walk(&s, &leaf, err);
    if (dfd < 0) {
        free(dir);
        return dfd;
    }
    struct stat st;
    int fd = -1;
    if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
        fd = safeopen_fail(&s, dfd, leaf, strlen(s.rel), S_ISLNK(st.st_mode) ? ELOOP : EINVAL, err);
    } else if (!(t->path = strdup(path))) {
        fd = buf_fail(err, SAFEOPEN_ERR_NOMEM, "out of memory");
    } else {
        snprintf(t->name, sizeof t->name, "%s", leaf);
        for (int tries = 0; fd < 0 && tries < 100; tries++) {
            int w = snprintf(t->tmp, sizeof t->tmp, ".%.200s.%ld.%u.tmp", leaf, (long)getpid(),
                             counter++);
            if (w < 0 || (size_t)w >= sizeof t->tmp) break;
            fd = openat(dfd, t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
            if (fd < 0 && errno != EEXIST) break;
        }
        if (fd < 0) {
            fd = buf_fail(err, SAFEOPEN_ERR_IO, "cannot write %s: %s", path, strerror(errno));
            free(t->path);
            t->path = NULL;
        }
    }
    free(dir);
    if (fd < 0)
        close(dfd);
    else
        t->dfd = dfd;
    return fd;
}

int safeopen_tmp_commit(struct safeopen_tmp *t, struct buf *err) {
    int rc = 0;
    if (renameat(t->dfd, t->tmp, t->dfd, t->name) != 0) {
        rc = buf_fail(err, SAFEOPEN_ERR_IO, "cannot write %s: %s", t->path, strerror(errno));
        (void)unlinkat(t->dfd, t->tmp, 0);
    }
    close(t->dfd);
    free(t->path);
    *t = (struct safeopen_tmp){.dfd = -1};
    return rc;
}

void safeopen_tmp_drop(struct safeopen_tmp *t) {
    if (t->dfd < 0) return;
    (void)unlinkat(t->dfd, t->tmp, 0);
    close(t->dfd);
    free(t->path);
    *t = (struct safeopen_tmp){.dfd = -1};
}

int safeopen_write(const char *path, const char *root, const char *text, size_t len, mode_t mode,
                   struct buf *err) {
    struct safeopen_tmp t;
    int fd = safeopen_tmp_open(&t, path, root, mode, err);
    if (fd < 0) return fd;
    bool ok = true;
    while (ok && len > 0) {
        ssize_t w = write(fd, text, len);
        ok = w > 0 || (w < 0 && errno == EINTR);
        if (w > 0) text += w, len -= (size_t)w;
    }
    int e = errno;
    if (close(fd) != 0 && ok) ok = false, e = errno;
    if (!ok) {
        safeopen_tmp_drop(&t);
        return buf_fail(err, SAFEOPEN_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    return safeopen_tmp_commit(&t, err);
}
