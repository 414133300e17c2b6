/* cpres: the control plane's resources (cpres.h). */
#include "cpres.h"

#include <ctype.h>

#include "jsonw.h"

const char *cpres_state_name(enum cpres_state s) {
    static const char *const names[] = {"Creating", "Updating", "InService", "Deleting", "Failed"};
    return names[s];
}

int cpres_arn(struct buf *out, const char *account, const char *region, const char *kind,
              const char *name) {
    int rc = buf_addf(out, "arn:aws:sagemaker:%s:%s:%s/", region, account, kind);
    for (const char *p = name; !rc && *p; p++) rc = buf_addc(out, (char)tolower((unsigned char)*p));
    return rc;
}

int cpres_arn_json(struct buf *out, const char *account, const char *region, const char *kind,
                   const char *name) {
    struct buf arn;
    buf_init(&arn, 1024);
    int rc = cpres_arn(&arn, account, region, kind, name);
    if (!rc) rc = jsonw_str(out, buf_str(&arn), arn.len);
    buf_free(&arn);
    return rc;
}
