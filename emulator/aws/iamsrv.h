/* iamsrv: AWS IAM's GetRole over the query protocol (signing name iam, scope
 * us-east-1: IAM is global), as the aws CLI 2.9 sends it: POST / with the form body
 * Action=GetRole&Version=2010-05-08&RoleName=NAME, and IAM's XML reply:
 *   <GetRoleResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">
 *   <GetRoleResult><Role><Path>/</Path><RoleName/><RoleId/><Arn/><CreateDate/>
 *   <AssumeRolePolicyDocument>(URL-encoded JSON)</AssumeRolePolicyDocument>
 *   <MaxSessionDuration>3600</MaxSessionDuration></Role></GetRoleResult>
 *   <ResponseMetadata><RequestId/></ResponseMetadata></GetRoleResponse>
 * The emulator's account has every role a SageMaker model may name: any valid
 * name (1 to 64 of letters, digits and +=,.@_-) is a role arn:aws:iam::ACCOUNT:
 * role/NAME that SageMaker (sagemaker.amazonaws.com) may assume, its RoleId
 * ("AROA" and 16 hex digits) and CreateDate stable from run to run. An invalid or
 * missing name is IAM's ValidationError, another Action InvalidAction (400). Pure. */
#ifndef EMU_IAMSRV_H
#define EMU_IAMSRV_H

#include <stddef.h>
#include <stdint.h>

#include "cplane.h"

#define IAMSRV_NS     "https://iam.amazonaws.com/doc/2010-05-08/"
#define IAMSRV_REGION "us-east-1" /* the region of IAM's signatures */

/* Answers Action op with the form body[0..len) for account into r (r->body emptied
 * first), its RequestId from id_seed. Returns 0 or CPLANE_ERR_NOMEM (r: a 500). */
__attribute__((warn_unused_result)) int iamsrv_call(const char *op, const char *body, size_t len,
                                                    const char *account, uint64_t id_seed,
                                                    struct cplane_reply *r);

#endif
