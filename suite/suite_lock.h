/* suite_lock: one sm-suite at a time in a run directory. The lock is an flock
 * on a file in the directory, held through an open descriptor: the kernel
 * releases it when the holder and the children that inherited the descriptor
 * (wrk) are gone, however they end (even by SIGKILL), so a lock is never left
 * behind. */
#ifndef SM_SUITE_LOCK_H
#define SM_SUITE_LOCK_H

#include "buf.h"

#define SUITE_LOCK_FILE ".sm-suite.lock" /* a label cannot start with '.' */

enum suite_lock_error {
    SUITE_LOCK_OK = 0,
    SUITE_LOCK_ERR_BUSY = -1, /* another process holds it */
    SUITE_LOCK_ERR_IO = -2,
};

/* Locks the run directory dir (which must exist) and writes this process's pid
 * into the lock file. *fd is the lock: keep it open while the directory is in
 * use; it is inherited by the programs started (so that the lock lasts while
 * one of them still runs). Returns 0, SUITE_LOCK_ERR_BUSY with "the run
 * directory DIR is in use by another sm-suite (pid N)" in err, or
 * SUITE_LOCK_ERR_IO with a message in err. */
__attribute__((warn_unused_result)) int suite_lock_take(const char *dir, int *fd, struct buf *err);
/* Releases the lock (fd < 0: nothing). */
void suite_lock_release(int fd);

#endif
