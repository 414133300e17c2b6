#include "iamsrv.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "qproto.h"
#include "splitmix.h"

#define IAMSRV_NAME_MAX 64

/* The trust policy of every role, URL-encoded as IAM sends it: SageMaker may assume it. */
static const char iamsrv_trust[] =
    "%7B%22Version%22%3A%222012-10-17%22%2C%22Statement%22%3A%5B%7B%22Effect%22%3A%22Allow%22%2C"
    "%22Principal%22%3A%7B%22Service%22%3A%22sagemaker.amazonaws.com%22%7D%2C%22Action%22%3A%22"
    "sts%3AAssumeRole%22%7D%5D%7D";

static bool iamsrv_valid_name(const struct buf *name) {
    if (name->len == 0 || name->len > IAMSRV_NAME_MAX) return false;
    for (size_t i = 0; i < name->len; i++) {
        char c = name->data[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              (c && strchr("+=,.@_-", c))))
            return false;
    }
    return true;
}

static int iamsrv_role(struct buf *b, const char *account, const char *name, const char *id) {
    char arn[160], role_id[32];
    snprintf(arn, sizeof arn, "arn:aws:iam::%s:role/%s", account, name);
    snprintf(role_id, sizeof role_id, "AROA%016llX", (unsigned long long)splitmix_hash(arn));
    int rc = buf_adds(b, "<GetRoleResponse xmlns=\"" IAMSRV_NS "\"><GetRoleResult><Role>"
                         "<Path>/</Path>");
    if (!rc) rc = qproto_elem(b, "RoleName", name);
    if (!rc) rc = qproto_elem(b, "RoleId", role_id);
    if (!rc) rc = qproto_elem(b, "Arn", arn);
    if (!rc) rc = qproto_elem(b, "CreateDate", "2024-01-01T00:00:00Z");
    if (!rc) rc = qproto_elem(b, "AssumeRolePolicyDocument", iamsrv_trust);
    if (!rc)
        rc = buf_adds(b, "<MaxSessionDuration>3600</MaxSessionDuration></Role></GetRoleResult>"
                         "<ResponseMetadata>");
    if (!rc) rc = qproto_elem(b, "RequestId", id);
    return rc ? rc : buf_adds(b, "</ResponseMetadata></GetRoleResponse>");
}

int iamsrv_call(const char *op, const char *body, size_t len, const char *account, uint64_t id_seed,
                struct cplane_reply *r) {
    char id[QPROTO_ID_LEN];
    int rc = qproto_start(r, op, "GetRole", "2010-05-08", IAMSRV_NS, id_seed, id);
    if (rc) return rc < 0 ? rc : CPLANE_OK;
    struct buf name;
    buf_init(&name, IAMSRV_NAME_MAX + 1);
    int found = qproto_param(body, len, "RoleName", &name);
    if (found == 0) {
        rc = qproto_error(r, 400, IAMSRV_NS, "ValidationError",
                          "1 validation error detected: Value null at 'roleName' failed to "
                          "satisfy constraint: Member must not be null",
                          id);
    } else if (found != BUF_ERR_NOMEM && (found < 0 || !iamsrv_valid_name(&name))) {
        rc = qproto_error(r, 400, IAMSRV_NS, "ValidationError",
                          "The specified value for roleName is invalid. It must contain only "
                          "alphanumeric characters and/or the following: +=,.@_- and be 1 to "
                          "64 characters long",
                          id);
    } else if (found == BUF_ERR_NOMEM || iamsrv_role(&r->body, account, buf_str(&name), id)) {
        rc = CPLANE_ERR_NOMEM;
    }
    buf_free(&name);
    if (rc == CPLANE_ERR_NOMEM) {
        buf_reset(&r->body);
        r->status = 500;
        r->type = "InternalFailure";
    }
    return rc;
}
