/* suite_files: the run directory: folders, copies, moving an unfinished step
 * aside, and what a result file says about itself (docs/result-format.md).
 *
 * A run directory may be one that others can write (a shared folder): files
 * are created without following a symbolic link planted at their name, and a
 * file that is read is bounded in size. */
#ifndef SM_SUITE_FILES_H
#define SM_SUITE_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

enum suite_files_error {
    SUITE_FILES_OK = 0,
    SUITE_FILES_ABSENT = 1,      /* suite_files_result_read: no such file (not an error) */
    SUITE_FILES_ERR_IO = -1,     /* a system call failed: the message has its reason */
    SUITE_FILES_ERR_FORMAT = -2, /* a file is not what it should be */
    SUITE_FILES_ERR_NOMEM = -3,
};

/* The states of a folder, from suite_files_dir_state. */
enum suite_files_dir {
    SUITE_FILES_DIR_NONE = 0,  /* no such path */
    SUITE_FILES_DIR_EMPTY = 1, /* a folder with nothing else in it */
    SUITE_FILES_DIR_FULL = 2,  /* a folder with files */
    SUITE_FILES_DIR_OTHER = -1 /* not a folder, or it cannot be read */
};

#define SUITE_FILES_RESULT_MAX ((size_t)1 << 28) /* the largest result file read */

/* What a result file says about its run. */
struct suite_files_result {
    bool partial;
    char reason[1024]; /* partial_reason ("" when none) */
    long sent, ok, failed;
    char errors[512];      /* "2 ThrottlingException, 1 ModelError" ("" when none) */
    double started, ended; /* started_at and ended_at, Unix seconds; 0 when not given */
};

/* Reads the result file at path into r. Returns 0, SUITE_FILES_ABSENT when it
 * does not exist, or SUITE_FILES_ERR_FORMAT (it is not a result file) or
 * SUITE_FILES_ERR_IO with "PATH: why" in err. */
__attribute__((warn_unused_result)) int
suite_files_result_read(const char *path, struct suite_files_result *r, struct buf *err);

/* Adds the counts of the result file at path to sum (sent, ok, failed) and,
 * when it failed or is partial, its line "  STEP LABEL F of S failed: ..." to
 * lines; a file that cannot be read adds nothing. Returns 0 or
 * SUITE_FILES_ERR_NOMEM. */
__attribute__((warn_unused_result)) int suite_files_result_sum(const char *path, const char *step,
                                                               const char *label, long sum[3],
                                                               struct buf *lines);

/* Creates path and its parents (mkdir -p). Returns 0 or SUITE_FILES_ERR_IO
 * with a message in err. */
__attribute__((warn_unused_result)) int suite_files_mkdirs(const char *path, struct buf *err);
/* The state of the folder at path (enum suite_files_dir); a file named ignore
 * (or NULL) in it does not count. */
int suite_files_dir_state(const char *path, const char *ignore);
/* Copies the file from to the file to (replaced atomically). Returns 0 or a
 * SUITE_FILES_ERR_* with a message in err. */
__attribute__((warn_unused_result)) int suite_files_copy(const char *from, const char *to,
                                                         struct buf *err);
/* Moves the file at path, when it exists, into the folder dir (created).
 * Returns 0 or SUITE_FILES_ERR_IO with a message in err. */
__attribute__((warn_unused_result)) int suite_files_move_into(const char *path, const char *dir,
                                                              struct buf *err);
/* Writes text[0..len) to path through a new temporary file beside it and a
 * rename. Returns 0 or SUITE_FILES_ERR_IO with a message in err. */
__attribute__((warn_unused_result)) int suite_files_write_atomic(const char *path, const char *text,
                                                                 size_t len, struct buf *err);
/* Appends text to path (created; not through a symbolic link). Returns 0 or
 * SUITE_FILES_ERR_IO with a message in err. */
__attribute__((warn_unused_result)) int suite_files_append(const char *path, const char *text,
                                                           struct buf *err);

#endif
