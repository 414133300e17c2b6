/* skew: clock-skew correction after a SigV4 signing-time error. A server that
 * says the signature expired or is not yet current sends its own time in the
 * Date header; the retry is signed with the local clock plus the offset.
 * Pure: the caller passes the local time in. No curl, usable by every client. */
#ifndef SM_SKEW_H
#define SM_SKEW_H

#include <stdbool.h>
#include <time.h>

/* Whether a reply (status, error code and message as awserr_parse gives them;
 * NULL for none) says the request's signing time was outside the server's
 * window: a 400 or 403 with the code RequestTimeTooSkewed, RequestExpired or
 * RequestInTheFuture, or a message containing "Signature expired" or
 * "Signature not yet current" (SageMaker's InvalidSignatureException). */
bool skew_is_time_error(int status, const char *code, const char *message);

/* Parses an HTTP-date (RFC 7231 7.1.1.1): IMF-fixdate "Sun, 06 Nov 1994
 * 08:49:37 GMT", or the obsolete RFC 850 and asctime forms. Returns 0 or -1. */
__attribute__((warn_unused_result)) int skew_parse_http_date(const char *s, time_t *out);

/* The offset in seconds (server time minus local_now) that the retry must add to
 * the local clock: returns 0 and sets *offset when the reply is a time error
 * with a valid Date header (date, NULL when absent), else -1. */
__attribute__((warn_unused_result)) int skew_offset(int status, const char *code,
                                                    const char *message, const char *date,
                                                    time_t local_now, long long *offset);

#endif
