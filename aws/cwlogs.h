/* cwlogs: an endpoint's container log from CloudWatch Logs.
 *
 * SageMaker sends each container's standard output and error to the log group
 * /aws/sagemaker/Endpoints/NAME, one stream per instance named
 * "VARIANT/INSTANCE-ID". FilterLogEvents (service logs, AWS JSON 1.1, through
 * awsj.h) reads a time window of it, every stream interleaved by time, a page
 * at a time (nextToken; at most 10,000 events a page); its filterPattern picks
 * events by their text (terms, quoted phrases; "?" before each for any of them).
 * Needs the IAM action logs:FilterLogEvents on the log group. The events are
 * read with cwdoc.h, and cwlogs_fetch_doc writes what `aws logs
 * filter-log-events` prints for the same query. */
#ifndef SM_CWLOGS_H
#define SM_CWLOGS_H

#include <stdbool.h>
#include <stddef.h>

#include "awsj.h"
#include "buf.h"
#include "cwdoc.h"

#define CWLOGS_PAGE_MAX 10000 /* FilterLogEvents' limit, at most */

/* The events of the vLLM start-up facts sm-compare reads (facts.h's patterns). */
#define CWLOGS_FACTS_PATTERN                                                                       \
    "?\"Model loading took\" ?\"GPU KV cache size\" ?\"Maximum concurrency for\" "                 \
    "?\"quantization=\" ?\"vLLM API server version\""

struct cwlogs_query {
    const char *endpoint;       /* the log group is /aws/sagemaker/Endpoints/ENDPOINT */
    const char *stream_prefix;  /* logStreamNamePrefix ("bf16/"), or NULL for every stream */
    long long start_ms, end_ms; /* the window, epoch ms, both ends in; end_ms 0: no end */
    const char *pattern;        /* filterPattern, or NULL for every event */
    int limit;                  /* events a page, 1 to CWLOGS_PAGE_MAX; 0: the most */
};

/* The FilterLogEvents request of q into out (emptied first). Pure. Returns 0,
 * AWSJ_ERR_INPUT (not an endpoint name, a bad window or limit: err says which)
 * or AWSJ_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cwlogs_request(const struct cwlogs_query *q,
                                                       struct buf *out, struct buf *err);

/* Reads the events of q, page after page, into fn (in the service's order:
 * by time), at most max_events (0: no cap); *cut (may be NULL) says whether
 * more were left. Returns 0 or an awsj_error with one line in err (a reply
 * that is not FilterLogEvents' is AWSJ_ERR_REPLY; awsj_last(c)->code has the
 * service's code: ResourceNotFoundException when the log group does not
 * exist, AccessDeniedException without logs:FilterLogEvents). */
__attribute__((warn_unused_result)) int cwlogs_fetch(struct awsj_client *c,
                                                     const struct cwlogs_query *q,
                                                     size_t max_events, cwdoc_event_fn *fn,
                                                     void *ud, bool *cut, struct buf *err);

/* cwlogs_fetch into one document as the aws CLI prints it: {"events": [...],
 * "searchedLogStreams": []} in doc (emptied first); *n: the events in it. */
__attribute__((warn_unused_result)) int cwlogs_fetch_doc(struct awsj_client *c,
                                                         const struct cwlogs_query *q,
                                                         size_t max_events, struct buf *doc,
                                                         size_t *n, bool *cut, struct buf *err);

#endif
