/* Creating DIR/SUB/NAME never follows a symbolic link on the way: a link planted
 * at DIR/LABEL (sm-results fetch's finding), at the file, or as DIR itself is
 * refused with one line naming it; nothing is written where it points. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "safeopen.h"

static char root[] = "/tmp/safeopen-XXXXXX";

static const char *at(int slot, const char *name) {
    static char paths[3][512];
    snprintf(paths[slot], sizeof paths[slot], "%s/%s", root, name);
    return paths[slot];
}

static int create(const char *dir, const char *rel, int replace, struct buf *err) {
    buf_reset(err);
    int fd = safeopen_create(dir, rel, 0600, replace, err);
    if (fd >= 0) {
        CHECK(write(fd, "x", 1) == 1);
        close(fd);
        return 0;
    }
    return fd;
}

static int create_path(const char *path, const char *root, struct buf *err) {
    buf_reset(err);
    int fd = safeopen_path(path, root, 0600, SAFEOPEN_NEW, err);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    return fd;
}

int main(void) {
    CHECK(mkdtemp(root) != NULL);
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(mkdir(at(0, "out"), 0700), 0);
    CHECK_INT(mkdir(at(0, "elsewhere"), 0700), 0);
    /* a plain file, folders made on the way */
    CHECK_INT(create(at(0, "out"), "a/b/file.json", 0, &err), 0);
    CHECK_INT(access(at(0, "out/a/b/file.json"), F_OK), 0);
    /* there already: refused, or replaced when asked */
    CHECK_INT(create(at(0, "out"), "a/b/file.json", 0, &err), SAFEOPEN_ERR_EXISTS);
    CHECK_INT(create(at(0, "out"), "a/b/file.json", 1, &err), 0);
    /* a link at DIR/LABEL */
    CHECK_INT(symlink(at(1, "elsewhere"), at(0, "out/label")), 0);
    CHECK_INT(create(at(0, "out"), "label/decode.json", 0, &err), SAFEOPEN_ERR_LINK);
    char want[1200];
    snprintf(want, sizeof want,
             "cannot write %s/label/decode.json: %s is a symbolic link, refusing to follow it "
             "(remove it, or choose another path)",
             at(1, "out"), at(2, "out/label"));
    CHECK_STR(buf_str(&err), want);
    CHECK_INT(access(at(0, "elsewhere/decode.json"), F_OK), -1);
    /* a link as the file, even with replace */
    CHECK_INT(symlink(at(1, "elsewhere/victim"), at(0, "out/a/b/link.json")), 0);
    CHECK_INT(create(at(0, "out"), "a/b/link.json", 1, &err), SAFEOPEN_ERR_LINK);
    CHECK_INT(access(at(0, "elsewhere/victim"), F_OK), -1);
    /* the folder named is itself a link */
    CHECK_INT(symlink(at(1, "elsewhere"), at(0, "outlink")), 0);
    CHECK_INT(create(at(0, "outlink"), "x.json", 0, &err), SAFEOPEN_ERR_LINK);
    CHECK(strstr(buf_str(&err), "outlink is a symbolic link") != NULL);
    /* a path split at its folder, or at the root given */
    CHECK_INT(create_path(at(0, "out/label/x.json"), NULL, &err), SAFEOPEN_ERR_LINK);
    CHECK_INT(create_path(at(0, "out/a/b/link.json"), at(1, "out"), &err), SAFEOPEN_ERR_LINK);
    CHECK_INT(create_path(at(0, "out/a/c/new.json"), at(1, "out"), &err), 0);
    CHECK_INT(create_path(at(0, "out/a/d/new.json"), NULL, &err), SAFEOPEN_ERR_IO);
    /* replaced whole: a link at the name refused, a file replaced, no temporary left */
    buf_reset(&err);
    CHECK_INT(safeopen_write(at(0, "out/a/b/link.json"), NULL, "y", 1, 0600, &err),
              SAFEOPEN_ERR_LINK);
    CHECK(strstr(buf_str(&err), "link.json is a symbolic link") != NULL);
    CHECK_INT(access(at(0, "elsewhere/victim"), F_OK), -1);
    CHECK_INT(safeopen_write(at(0, "out/a/b/file.json"), NULL, "yz", 2, 0600, &err), 0);
    struct stat st;
    CHECK_INT(stat(at(0, "out/a/b/file.json"), &st), 0);
    CHECK_INT(st.st_size, 2);
    CHECK_INT(safeopen_write(at(0, "out/label/r.md"), at(1, "out"), "y", 1, 0600, &err),
              SAFEOPEN_ERR_LINK);
    char ls[600];
    snprintf(ls, sizeof ls, "test \"$(ls -A '%s')\" = \"file.json\nlink.json\"", at(0, "out/a/b"));
    CHECK_INT(system(ls), 0);
    /* appended to, not through a link */
    CHECK_INT(safeopen_path(at(0, "out/a/b/link.json"), NULL, 0600, SAFEOPEN_APPEND, &err),
              SAFEOPEN_ERR_LINK);
    /* not a plain relative path */
    CHECK_INT(create(at(0, "out"), "../x/y.json", 0, &err), SAFEOPEN_ERR_IO);
    buf_free(&err);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    return check_exit();
}
