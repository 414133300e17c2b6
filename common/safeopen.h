/* safeopen: creating a file under a folder without following a symbolic link on
 * the way. The folder the user named is opened as given, except that it may
 * not itself be a link (O_NOFOLLOW on its last component); every folder below
 * it is walked with openat(O_DIRECTORY|O_NOFOLLOW) (made when missing) and the
 * file is created with openat(O_CREAT|O_EXCL|O_NOFOLLOW). A link anywhere on
 * the way is refused with one line naming the path and the link. */
#ifndef SM_SAFEOPEN_H
#define SM_SAFEOPEN_H

#include <sys/types.h>

#include "buf.h"

enum safeopen_error {
    SAFEOPEN_ERR_IO = -1,   /* err says where and why */
    SAFEOPEN_ERR_LINK = -2, /* a symbolic link on the way; err names it */
    SAFEOPEN_ERR_EXISTS = -3,
};

/* Creates dir/rel (rel: NAME or SUB/.../NAME, no "..", no leading '/') for
 * writing, making the folders of rel that are missing; replace: an existing
 * regular file there is removed first. Returns the file descriptor (>= 0) or a
 * negative enum safeopen_error. */
__attribute__((warn_unused_result)) int safeopen_create(const char *dir, const char *rel,
                                                        mode_t mode, int replace, struct buf *err);

#endif
