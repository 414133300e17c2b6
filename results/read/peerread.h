/* peerread: the files of one side of a peer's view (sm-compare --view) read into
 * a peerview_side: our result files and journals, folders of them, and the peers'
 * own files (vllmimport.h, aiperfimport.h). It sits above the importers, which sit
 * above peerview.h's side, so no include runs back. */
#ifndef SM_PEERREAD_H
#define SM_PEERREAD_H

#include <stddef.h>

#include "buf.h"
#include "peerview.h"

/* Reads the result files of paths (a file, or a folder's *.json files) into s;
 * a `vllm bench serve` detailed result is imported (vllmimport.h), an AIPerf
 * run too (aiperfimport.h). Returns 0, or a negative code with one line in err
 * naming the path. */
__attribute__((warn_unused_result)) int peerread_paths(struct peerview_side *s, char *const *paths,
                                                       size_t n, struct buf *err);

#endif
