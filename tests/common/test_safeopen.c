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
    char want[700];
    snprintf(want, sizeof want,
             "%s is a symbolic link: refusing to follow it (remove it, or choose another folder)",
             at(2, "out/label"));
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
    /* not a plain relative path */
    CHECK_INT(create(at(0, "out"), "../x/y.json", 0, &err), SAFEOPEN_ERR_IO);
    buf_free(&err);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    return check_exit();
}
