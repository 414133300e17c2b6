/* rkey: where sm-results puts a result file in S3 and where it comes back.
 *
 * A result file or journal goes to PREFIX/RUN_ID/LABEL/NAME, with its own run
 * id and label (its head's), NAME its file name, and for a shard of a sharded
 * run ".shard-K-of-N" before ".json" (".journal.jsonl"): every shard of a run
 * writes the same file name on its own host, and each keeps its own key. A
 * fetch writes the key PREFIX/RUN_ID/REST to DIR/REST, so DIR/LABEL holds a
 * side's shard files, ready for sm-compare DIR/LABEL_A DIR/LABEL_B. A key
 * from a listing is untrusted: a REST that is not LABEL/NAME (two parts of
 * letters, digits, '-', '_' and '.', neither starting with '.') is refused,
 * so no fetched file lands outside DIR.
 *
 * Pure C over common/ (jscan, rfmt); no I/O. */
#ifndef SM_RKEY_H
#define SM_RKEY_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define RKEY_NAME_MAX 200 /* bytes of a file name */

enum rkey_error { RKEY_OK = 0, RKEY_ERR_NOMEM = -1, RKEY_ERR_INPUT = -2 };

/* What a key needs from a result file's head. */
struct rkey_head {
    char run_id[65], label[65];
    long shard, count; /* count 0: not sharded */
};

/* Reads the head of a result file (a JSON document: its top-level members but
 * "records") or a journal (its first line): the format's, a run id and a
 * label, each a label-rule name. Returns 0, or RKEY_ERR_INPUT with one line in
 * err naming path. */
__attribute__((warn_unused_result)) int rkey_head_of(const char *path, const char *data, size_t len,
                                                     struct rkey_head *out, struct buf *err);

/* The key of the file called name (its file name) with head h under prefix
 * ("" or a prefix without a trailing '/'), appended to key. Returns 0, or
 * RKEY_ERR_INPUT when name ends in neither .json nor .journal.jsonl. */
__attribute__((warn_unused_result)) int rkey_key(const char *prefix, const struct rkey_head *h,
                                                 const char *name, struct buf *key,
                                                 struct buf *err);

/* The local path of key (which starts with run_prefix, "PREFIX/RUN_ID/") under
 * dir, appended to path, and its folder (DIR/LABEL) to folder. Returns 0, or
 * RKEY_ERR_INPUT when the rest of the key is not LABEL/NAME. */
__attribute__((warn_unused_result)) int rkey_local(const char *run_prefix, const char *key,
                                                   const char *dir, struct buf *path,
                                                   struct buf *folder, struct buf *err);

#endif
