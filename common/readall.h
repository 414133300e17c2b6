/* readall: a whole file or stream into a buf. */
#ifndef SM_READALL_H
#define SM_READALL_H

#include "buf.h"

/* Appends everything readable from fd until end of file. Returns 0, an errno
 * value (positive) on a read error, or BUF_ERR_* (negative) when out of memory
 * or past the buffer's cap. */
__attribute__((warn_unused_result)) int readall_fd(int fd, struct buf *out);

/* Like readall_fd, but gives up with ETIMEDOUT once timeout_ms have passed
 * (-1: never); what was read so far stays in out. */
__attribute__((warn_unused_result)) int readall_fd_timeout(int fd, int timeout_ms, struct buf *out);

/* Appends the contents of the file at path. Returns as readall_fd; ENOENT when
 * the file does not exist. */
__attribute__((warn_unused_result)) int readall_path(const char *path, struct buf *out);

enum readall_error {
    READALL_ERR_NOT_REGULAR = -10, /* readall_regular: a FIFO, device, folder or socket */
};

/* Like readall_path, for a file that must be a regular file and not a symbolic
 * link: opened with O_NONBLOCK|O_NOFOLLOW (a FIFO planted there cannot block
 * the open or the read), then checked with fstat. Returns as readall_path,
 * ELOOP for a link, or READALL_ERR_NOT_REGULAR. */
__attribute__((warn_unused_result)) int readall_regular(const char *path, struct buf *out);

/* Why a readall_* call failed with rc, for a message: large (what a file past
 * the cap is, "larger than 64 MiB"), "not a regular file", strerror(rc), or
 * "read failed". */
const char *readall_why(int rc, const char *large);

#endif
