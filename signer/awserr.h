/* awserr: the code and message of an AWS JSON-protocol error reply, as
 * SageMaker Runtime sends them. Pure: no I/O. */
#ifndef SM_AWSERR_H
#define SM_AWSERR_H

#include <stddef.h>

struct awserr {
    char code[128];     /* e.g. "ModelError"; "" when the reply names none */
    char message[1024]; /* one line (control characters become spaces); "" when none */
};

/* Fills out: the code from error_type (the x-amzn-ErrorType header, NULL when
 * absent) up to its first ':', else from the body's "__type" (after a '#') or
 * "code"; the message from the body's "message" or "Message". A body that is
 * not JSON leaves them empty. Longer values are cut, ending in "...". */
void awserr_parse(const char *error_type, const char *body, size_t body_len, struct awserr *out);

#endif
