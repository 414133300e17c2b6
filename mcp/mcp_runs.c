#include "mcp_runs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool mcp_runs_char_ok(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

int mcp_runs_check(const char *arg, const char *name, struct buf *err) {
    size_t n = strlen(name);
    if (!n) return buf_fail(err, MCP_RUNS_ERR_NAME, "%s \"%.80s\" is empty", arg, name);
    if (n > MCP_RUNS_NAME_MAX)
        return buf_fail(err, MCP_RUNS_ERR_NAME, "%s \"%.80s\" is longer than %d bytes", arg, name,
                        MCP_RUNS_NAME_MAX);
    if (name[0] == '/')
        return buf_fail(err, MCP_RUNS_ERR_NAME,
                        "%s \"%.80s\" is an absolute path: give a name inside the runs folder", arg,
                        name);
    for (const char *c = name; *c;) {
        size_t k = strcspn(c, "/");
        if (k == 0)
            return buf_fail(err, MCP_RUNS_ERR_NAME, "%s \"%.80s\" has an empty path component", arg,
                            name);
        if ((k == 1 && c[0] == '.') || (k == 2 && c[0] == '.' && c[1] == '.'))
            return buf_fail(
                err, MCP_RUNS_ERR_NAME,
                "%s \"%.80s\" has a \".\" or \"..\" component: give a name inside the runs "
                "folder",
                arg, name);
        if (c[0] == '-')
            return buf_fail(err, MCP_RUNS_ERR_NAME,
                            "%s \"%.80s\" has a component that starts with '-'", arg, name);
        for (size_t i = 0; i < k; i++)
            if (!mcp_runs_char_ok(c[i]))
                return buf_fail(
                    err, MCP_RUNS_ERR_NAME,
                    "%s \"%.80s\" may hold only A-Z a-z 0-9 . _ - and '/' between names", arg,
                    name);
        c += k;
        if (*c == '/' && !*++c)
            return buf_fail(err, MCP_RUNS_ERR_NAME, "%s \"%.80s\" ends with '/'", arg, name);
    }
    return MCP_RUNS_OK;
}

/* Opens the folder comp inside dfd without following a link, making it first
 * when create and it is missing. Returns the descriptor, or -1 with errno. */
static int mcp_runs_enter(int dfd, const char *comp, bool create) {
    int fd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
        if (mkdirat(dfd, comp, 0777) != 0 && errno != EEXIST) return -1;
        fd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    return fd;
}

static int mcp_runs_place_fail(struct buf *err, const char *dir, const char *name, int e) {
    const char *why = e == ELOOP || e == ENOTDIR ? "is a link or not a folder on the way"
                      : e == ENOENT              ? "does not exist"
                                                 : strerror(e);
    return buf_fail(err, MCP_RUNS_ERR_PLACE, "%s/%s %s", dir, name, why);
}

int mcp_runs_open(const char *dir, const char *arg, const char *name, bool create, struct buf *path,
                  struct buf *err) {
    char comp[MCP_RUNS_NAME_MAX + 1];
    int rc = mcp_runs_check(arg, name, err);
    if (rc) return rc;
    if (create && mkdir(dir, 0777) != 0 && errno != EEXIST)
        return buf_fail(err, MCP_RUNS_ERR_PLACE, "cannot make the runs folder %s: %s", dir,
                        strerror(errno));
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return buf_fail(err, MCP_RUNS_ERR_PLACE, "the runs folder %s: %s", dir, strerror(errno));
    for (const char *c = name; !rc;) {
        size_t k = strcspn(c, "/");
        memcpy(comp, c, k);
        comp[k] = '\0';
        c += k;
        if (*c == '/') { /* a folder on the way */
            c++;
            int next = mcp_runs_enter(dfd, comp, create);
            if (next < 0) rc = mcp_runs_place_fail(err, dir, name, errno);
            close(dfd);
            dfd = next;
            continue;
        }
        struct stat st;
        if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT || !create) {
                rc = mcp_runs_place_fail(err, dir, name, errno);
            } else if (mkdirat(dfd, comp, 0777) != 0) {
                rc = buf_fail(err, MCP_RUNS_ERR_PLACE, "cannot make %s/%s: %s", dir, name,
                              strerror(errno));
            }
        } else if (S_ISLNK(st.st_mode)) {
            rc = buf_fail(err, MCP_RUNS_ERR_PLACE, "%s/%s is a link", dir, name);
        } else if (!S_ISDIR(st.st_mode) && (create || !S_ISREG(st.st_mode))) {
            rc = buf_fail(err, MCP_RUNS_ERR_PLACE, "%s/%s is not a %s", dir, name,
                          create ? "folder" : "folder or a file");
        }
        break;
    }
    if (dfd >= 0) close(dfd);
    if (rc) return rc;
    buf_reset(path);
    if (buf_addf(path, "%s/%s", dir, name))
        return buf_fail(err, MCP_RUNS_ERR_NOMEM, "out of memory");
    return MCP_RUNS_OK;
}
