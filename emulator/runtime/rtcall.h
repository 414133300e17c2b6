/* rtcall: SageMaker Runtime's calls, over invoke's state (invoke.h): a request
 * routed by the front door (admit.h: authentication, routing to endpoints and
 * variants) to a variant's container, its session manager (sess.h), the call
 * timed by the variant's continuous batch and prefix cache, streamed replies
 * whose tokens leave at the end of the decode step that made them (rstream.h),
 * faults; and the variants' timers (the decode steps, the metrics log).
 *
 * The calls run one way: the HTTP layer (server.c) calls rtcall_request,
 * invoke_refuse and rtcall_abort; a call answers through invoke's send
 * function. All times inside are model seconds unless named *_real. */
#ifndef EMU_RTCALL_H
#define EMU_RTCALL_H

#include <stddef.h>

#include "http.h"
#include "invoke.h"

struct rtcall; /* a request a variant's container is answering */

enum rtcall_error { RTCALL_OK = 0, RTCALL_ERR_NOMEM = -1 };

/* The client of call read its output: the stream's owed steps are made and
 * handed on until its output is full again (the call may end and be freed). */
void rtcall_drained(struct rtcall *call);

/* Starts the variants' timers (steps, metrics log) once base, fleet and the
 * settings are filled. Returns 0 or RTCALL_ERR_NOMEM. */
__attribute__((warn_unused_result)) int rtcall_start(struct invoke *inv);

/* Starts the timers of one instance var of inv's fleet made after
 * rtcall_start (a launch). Returns 0 or RTCALL_ERR_NOMEM. */
__attribute__((warn_unused_result)) int rtcall_instance(struct invoke *inv,
                                                        struct fleet_variant *var);

/* Frees what rtcall_start made. Calls still pending must have been aborted. */
void rtcall_stop(struct invoke *inv);

/* Handles one complete request that came on owner (body[0..len) follows the
 * head). Returns NULL when it has been answered (send was called), else the
 * call that will answer it later through send; until then the HTTP layer reads
 * no further request on owner, and calls rtcall_abort if owner closes first. */
__attribute__((warn_unused_result)) struct rtcall *rtcall_request(struct invoke *inv, void *owner,
                                                                  const struct http_head *h,
                                                                  const char *body, size_t len);

/* The connection of call closed before its reply: counts it dropped, frees it. */
void rtcall_abort(struct rtcall *call);

#endif
