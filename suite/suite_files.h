/* suite_files: the run directory: folders, copies, moving an unfinished step
 * aside, and what a result file says about itself (docs/result-format.md). */
#ifndef SM_SUITE_FILES_H
#define SM_SUITE_FILES_H

#include <stdbool.h>
#include <stddef.h>

#define SUITE_WUR __attribute__((warn_unused_result))

/* What a result file says about its run. */
struct suite_result {
    bool partial;
    char reason[1024]; /* partial_reason; or why the file is not a result file */
    long sent, ok, failed;
    char errors[512]; /* "2 ThrottlingException, 1 ModelError" ("" when none) */
};

/* Reads the result file at path: 0, 1 when it does not exist, -1 when it is
 * not a result file (why in r->reason). */
SUITE_WUR int suite_result_read(const char *path, struct suite_result *r);

/* Creates path and its parents (mkdir -p). Returns 0 or -1 (errno). */
SUITE_WUR int suite_mkdirs(const char *path);
/* 0 when path does not exist, 1 an empty folder, 2 a folder with files, -1 anything else. */
int suite_dir_state(const char *path);
/* Copies the file from to the file to (replaced). Returns 0 or -1 (errno). */
SUITE_WUR int suite_copy(const char *from, const char *to);
/* Moves the file at path, when it exists, into the folder dir (created);
 * returns 0, or -1 (errno). */
SUITE_WUR int suite_move_into(const char *path, const char *dir);
/* Writes text to path through a temporary file and rename. Returns 0 or -1 (errno). */
SUITE_WUR int suite_write_atomic(const char *path, const char *text, size_t len);
/* Appends text to path (created). Returns 0 or -1 (errno). */
SUITE_WUR int suite_append(const char *path, const char *text);

#endif
