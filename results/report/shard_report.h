/* shard_report: the sharded runs of a comparison (shards.h): per run the shards'
 * starts after --start-at, their requests, achieved rates and measured clock
 * offsets, the start skew and the common window's throughput; as report
 * blocks (text, Markdown) and as the JSON report's "shards" list. */
#ifndef SM_SHARD_REPORT_H
#define SM_SHARD_REPORT_H

#include <cjson/cJSON.h>

#include "cmp.h"
#include "page.h"

/* Adds a "Shards" section to r when a side has a sharded run. Returns 0, or -1
 * out of memory. */
__attribute__((warn_unused_result)) int shard_report_build(struct page *r, const struct cmp *m);
/* The "shards" list of the JSON report (the caller owns it), or NULL when no
 * side has a sharded run. */
cJSON *shard_report_json(const struct cmp *m);

#endif
