#include "stssrv.h"

#include <stdio.h>
#include <string.h>

#include "qproto.h"
#include "splitmix.h"

int stssrv_call(const char *op, const char *body, size_t len, const char *account, uint64_t id_seed,
                struct cplane_reply *r) {
    char id[QPROTO_ID_LEN], arn[96], user[32];
    (void)body;
    (void)len;
    int rc = qproto_start(r, op, "GetCallerIdentity", "2011-06-15", STSSRV_NS, id_seed, id);
    if (rc) return rc < 0 ? rc : CPLANE_OK;
    snprintf(arn, sizeof arn, "arn:aws:iam::%s:user/sm-emulator", account);
    uint64_t h = splitmix_hash(arn);
    snprintf(user, sizeof user, "AIDA%016llX", (unsigned long long)h); /* an IAM user's id */
    struct buf *b = &r->body;
    rc =
        buf_adds(b, "<GetCallerIdentityResponse xmlns=\"" STSSRV_NS "\"><GetCallerIdentityResult>");
    if (!rc) rc = qproto_elem(b, "Arn", arn);
    if (!rc) rc = qproto_elem(b, "UserId", user);
    if (!rc) rc = qproto_elem(b, "Account", account);
    if (!rc) rc = buf_adds(b, "</GetCallerIdentityResult><ResponseMetadata>");
    if (!rc) rc = qproto_elem(b, "RequestId", id);
    if (!rc) rc = buf_adds(b, "</ResponseMetadata></GetCallerIdentityResponse>");
    if (!rc) return CPLANE_OK;
    buf_reset(b);
    r->status = 500;
    r->type = "InternalFailure";
    return CPLANE_ERR_NOMEM;
}
