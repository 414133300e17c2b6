/* safeopen: every file the programs write is created without following a
 * symbolic link on the way. A path is split into the folder the user named
 * (ROOT, when the caller knows it, else the folder part of the path) and what
 * lies below it. The named folder is opened as given, except that it may not
 * itself be a link (O_NOFOLLOW on its last component); every folder below it
 * is walked with openat(O_DIRECTORY|O_NOFOLLOW) (made when missing) and the
 * file is opened with openat(O_NOFOLLOW). A link anywhere on the way is
 * refused with one line naming the path written and the link. */
#ifndef SM_SAFEOPEN_H
#define SM_SAFEOPEN_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "buf.h"

enum safeopen_error {
    SAFEOPEN_ERR_IO = -1,   /* err says where and why */
    SAFEOPEN_ERR_LINK = -2, /* a symbolic link on the way; err names it */
    SAFEOPEN_ERR_EXISTS = -3,
    SAFEOPEN_ERR_NOMEM = -4,
};

/* How the file is opened (one of). */
enum safeopen_how {
    SAFEOPEN_NEW = 0,     /* created; an existing file is refused (SAFEOPEN_ERR_EXISTS) */
    SAFEOPEN_REPLACE = 1, /* an existing regular file is removed, then created */
    SAFEOPEN_APPEND = 2,  /* appended to, created when missing */
    SAFEOPEN_TRUNC = 3,   /* emptied, created when missing */
    SAFEOPEN_KEEP = 4,    /* opened as it is, created when missing */
};
#define SAFEOPEN_RDWR 8 /* or'ed into how: opened for reading and writing */

/* Opens dir/rel (rel: NAME or SUB/.../NAME, no "..", no leading '/') for
 * writing as how says, making the folders of rel that are missing. Returns
 * the file descriptor (>= 0) or a negative enum safeopen_error. */
__attribute__((warn_unused_result)) int safeopen_create(const char *dir, const char *rel,
                                                        mode_t mode, int how, struct buf *err);

/* safeopen_create of path split at root: path is ROOT/REL when root is not
 * NULL and path lies under it (root "." holds every relative path), else the
 * folder part of path and its last name ("." when path has no '/'). */
__attribute__((warn_unused_result)) int safeopen_path(const char *path, const char *root,
                                                      mode_t mode, int how, struct buf *err);

/* Removes path (split as safeopen_path) when it is there: a link at its name
 * is removed itself, never what it points to; a link on the folders is
 * refused. Returns 0 or a negative enum safeopen_error. */
__attribute__((warn_unused_result)) int safeopen_remove(const char *path, const char *root,
                                                        struct buf *err);

/* safeopen_path (root NULL) as a stdio stream (how: SAFEOPEN_APPEND or
 * SAFEOPEN_TRUNC): the stream, or NULL with "FLAG: " and why in err. */
__attribute__((warn_unused_result)) FILE *safeopen_stream(const char *path, int how,
                                                          const char *flag, struct buf *err);

/* Renames the file from to to (each split as safeopen_path with no root),
 * neither folder reached through a link. Returns 0 or a negative enum
 * safeopen_error. */
__attribute__((warn_unused_result)) int safeopen_rename(const char *from, const char *to,
                                                        struct buf *err);

/* A file replaced whole: written into a new temporary file beside it (created
 * exclusively, never through a link) and renamed over it at commit, in the
 * folder opened once without following a link. A link at the file's own name
 * is refused, not replaced. */
struct safeopen_tmp {
    int dfd;        /* the file's folder */
    char name[256]; /* the file's name in it */
    char tmp[256];  /* the temporary file's */
    char *path;     /* the path as the user wrote it, for messages */
};

/* Opens the temporary file of path (split as safeopen_path): its descriptor,
 * or a negative enum safeopen_error. Then exactly one of commit or drop. */
__attribute__((warn_unused_result)) int safeopen_tmp_open(struct safeopen_tmp *t, const char *path,
                                                          const char *root, mode_t mode,
                                                          struct buf *err);
/* Renames the temporary file over the file (the caller closed it first). */
__attribute__((warn_unused_result)) int safeopen_tmp_commit(struct safeopen_tmp *t,
                                                            struct buf *err);
/* Removes the temporary file. */
void safeopen_tmp_drop(struct safeopen_tmp *t);

/* Replaces path (split as safeopen_path) with text[0..len) through
 * safeopen_tmp. Returns 0 or a negative enum safeopen_error. */
__attribute__((warn_unused_result)) int safeopen_write(const char *path, const char *root,
                                                       const char *text, size_t len, mode_t mode,
                                                       struct buf *err);

#endif
