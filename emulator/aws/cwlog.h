/* cwlog: CloudWatch Logs of the emulated containers (Logs_20140328.FilterLogEvents,
 * signing name logs, AWS JSON 1.1).
 *
 * Every line a container writes (vlog.h: the vLLM start-up lines, the access
 * lines, the throughput lines) is also an event here, whether or not
 * --log-file writes it to a file: log group /aws/sagemaker/Endpoints/NAME,
 * stream "VARIANT/i-emulator", timestamp the line's wall clock in ms. A group
 * keeps CWLOG_GROUP_BYTES of messages: past that the oldest events go, but not
 * the start-up lines (the facts). Groups outlive their endpoint, as
 * CloudWatch's do; only the runtime region's endpoints have containers.
 *
 * FilterLogEvents: logGroupName (or logGroupIdentifier, a name or ARN),
 * startTime and endTime (ms, both ends in), logStreamNames or
 * logStreamNamePrefix, limit (1 to 10,000; default 10,000), nextToken, and a
 * filterPattern of terms (a word, or a "quoted phrase"; all must be in the
 * message, "?term"s any of them, "-term"s none, case-sensitive); JSON and
 * space-delimited patterns ({...}, [...]) are refused with
 * InvalidParameterException. Events come oldest first, every stream
 * interleaved. An unknown group: ResourceNotFoundException "The specified log
 * group does not exist.". Pure: the caller gives the time. */
#ifndef EMU_CWLOG_H
#define EMU_CWLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "cplane.h"

#define CWLOG_GROUP_BYTES (8u << 20) /* messages kept per log group */
#define CWLOG_NAME_MAX    64

struct cwlog_event {
    long long t_ms;
    unsigned long seq; /* its place in the group, from 1: the event id and the page token */
    unsigned stream;   /* index into the group's streams */
    bool pinned;       /* a start-up line: never dropped */
    char *msg;         /* owned */
    size_t len;
};

struct cwlog_group {
    char endpoint[CWLOG_NAME_MAX];
    char (*streams)[2 * CWLOG_NAME_MAX]; /* owned */
    size_t n_streams;
    struct cwlog_event *ev; /* owned, oldest first */
    size_t n, cap;
    size_t bytes; /* of the messages kept */
    unsigned long next_seq;
};

struct cwlog {
    char region[64]; /* the runtime region: the only one with log groups */
    struct cwlog_group *groups;
    size_t n;
    size_t max_bytes; /* per group; 0: CWLOG_GROUP_BYTES */
};

enum cwlog_error { CWLOG_OK = 0, CWLOG_ERR_NOMEM = -1 };

/* Starts an empty store for region. */
void cwlog_init(struct cwlog *l, const char *region);
void cwlog_free(struct cwlog *l);

/* Adds one event of endpoint's stream at t (wall clock, Unix seconds);
 * pinned: a start-up line. Returns 0 or CWLOG_ERR_NOMEM (the event is lost). */
__attribute__((warn_unused_result)) int cwlog_add(struct cwlog *l, const char *endpoint,
                                                  const char *stream, double t, const char *msg,
                                                  size_t len, bool pinned);

/* Answers Logs_20140328.<op> with body[0..len) for region into r (the reply
 * struct of cplane; r->body emptied first). Returns 0 or CPLANE_ERR_NOMEM (r
 * then holds a 500). */
__attribute__((warn_unused_result)) int cwlog_call(const struct cwlog *l, const char *op,
                                                   const char *body, size_t len, const char *region,
                                                   struct cplane_reply *r);

/* Whether msg[0..len) matches a term pattern (see above); false for a pattern
 * it cannot read (*bad set then). */
bool cwlog_match(const char *pattern, const char *msg, size_t len, bool *bad);

#endif
