/* stssrv: AWS STS's GetCallerIdentity over the query protocol (signing name sts),
 * as the aws CLI 2.9 sends it: POST / with the form body
 * Action=GetCallerIdentity&Version=2011-06-15, and STS's XML reply:
 *   <GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
 *   <GetCallerIdentityResult><Arn/><UserId/><Account/></GetCallerIdentityResult>
 *   <ResponseMetadata><RequestId/></ResponseMetadata></GetCallerIdentityResponse>
 * The caller is the emulator's one user, arn:aws:iam::ACCOUNT:user/sm-emulator (any
 * key the emulator accepts signs as it). Another Action is STS's InvalidAction
 * (400). Pure. */
#ifndef EMU_STSSRV_H
#define EMU_STSSRV_H

#include <stddef.h>
#include <stdint.h>

#include "cplane.h"

#define STSSRV_NS "https://sts.amazonaws.com/doc/2011-06-15/"

/* Answers Action op (body[0..len) the form) for account into r (r->body emptied
 * first), its RequestId from id_seed. Returns 0 or CPLANE_ERR_NOMEM (r: a 500). */
__attribute__((warn_unused_result)) int stssrv_call(const char *op, const char *body, size_t len,
                                                    const char *account, uint64_t id_seed,
                                                    struct cplane_reply *r);

#endif
