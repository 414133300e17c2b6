/* ireply: what SageMaker Runtime's front door says and counts for invoke.h:
 * request ids, whole replies, request-log lines, the counts (the tallies, the
 * request log and CloudWatch's metrics), SageMaker's errors, the statistics
 * document, /ping, and a request lost unanswered. Each reply goes out through
 * inv->send. */
#ifndef EMU_IREPLY_H
#define EMU_IREPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "invoke.h"

#define IREPLY_ID_LEN 40

/* What the container's answer to a call took, for CloudWatch's latencies. */
struct ireply_timing {
    double total;    /* model seconds from its arrival to its end */
    double overhead; /* of which the fixed overhead */
    bool failed;     /* it ended in a model error (a stream's exception) */
};

/* A new x-amzn-RequestId (a UUID from inv's seeded generator). */
void ireply_request_id(struct invoke *inv, char out[IREPLY_ID_LEN]);

/* A whole reply (Content-Length), application/json. */
struct invoke_reply ireply_whole(int status, const char *type, const char *variant, const char *id,
                                 const char *body, size_t len, enum invoke_mode mode);

/* A request-log line for a request of origin o answered status (0: closed first). */
struct reqlog_entry ireply_entry(const struct invoke_origin *o, const char *id, int status);

/* Counts the end of request e (its reply, or e->status 0: its connection closed
 * first) for the totals, ep and var (either may be NULL), CloudWatch (timing:
 * the container's, or NULL when it did not answer), and logs it. */
void ireply_count(struct invoke *inv, struct fleet_endpoint *ep, struct fleet_variant *var,
                  struct reqlog_entry *e, const struct ireply_timing *timing);

/* Starts inv->cur, the origin of the request about to be handled (received now;
 * h: its head, for the key id, or NULL). */
void ireply_origin(struct invoke *inv, const struct http_head *h);

/* Sends a SageMaker error: {"message": ...} with x-amzn-ErrorType (type may be
 * NULL), or on the OpenAI route the OpenAI envelope (code: its code, NULL: from
 * type). log: the request's log line so far (NULL: a new one). */
void ireply_error_logged(struct invoke *inv, void *owner, struct fleet_endpoint *ep,
                         struct fleet_variant *var, int status, const char *type, const char *code,
                         const char *message, struct reqlog_entry *log);
/* The same without a code or a log line so far. */
void ireply_error(struct invoke *inv, void *owner, struct fleet_endpoint *ep,
                  struct fleet_variant *var, int status, const char *type, const char *message);

/* Answers GET /emulator/stats. */
void ireply_stats(struct invoke *inv, void *owner);

/* Answers /ping (200, empty), counted and logged. */
void ireply_ping(struct invoke *inv, void *owner);

/* Loses a request of var (its log line e so far): the front end counts it, the
 * container never sees it, and the connection closes with nothing sent. */
void ireply_lose(struct invoke *inv, void *owner, struct fleet_variant *var,
                 struct reqlog_entry *e);

#endif
