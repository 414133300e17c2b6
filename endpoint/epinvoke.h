/* epinvoke: one SigV4-signed SageMaker Runtime InvokeEndpoint
 * (POST /endpoints/NAME/invocations) over libcurl, for sm-endpoint's verify
 * and query: to https://runtime.sagemaker.REGION.amazonaws.com, or to the
 * --endpoint-url that serves both planes (sm-emulator). Credentials come from
 * the caller's cache (the one its control-plane client shares). The reply is
 * bounded; an error reply becomes one scrubbed line. */
#ifndef SM_EPINVOKE_H
#define SM_EPINVOKE_H

#include <stddef.h>

#include "buf.h"
#include "creds.h"

enum epinvoke_error {
    EPINVOKE_OK = 0,
    EPINVOKE_ERR_INPUT = -1,   /* a bad URL, name or region */
    EPINVOKE_ERR_CREDS = -2,   /* no credentials */
    EPINVOKE_ERR_NETWORK = -3, /* no reply */
    EPINVOKE_ERR_SERVICE = -4, /* a non-2xx reply: err has "STATUS Code: message" */
    EPINVOKE_ERR_NOMEM = -5,
};

struct epinvoke {
    const char *region;
    const char *endpoint_url;  /* NULL: https://runtime.sagemaker.REGION.amazonaws.com */
    struct creds_cache *cache; /* borrowed */
    long timeout_ms;           /* 0: 70 s (SageMaker allows the model 60) */
    bool allow_plain_http;     /* an http:// endpoint_url whose host is not loopback is fine
                                  (else EPINVOKE_ERR_INPUT, plainhttp.h) */
};

/* Sends body[0..len) to endpoint (variant: X-Amzn-SageMaker-Target-Variant, or
 * NULL) and puts the 2xx reply in reply (emptied first; at most reply->max
 * bytes), its wall time in *seconds. Returns 0 or an EPINVOKE_ERR_* with one
 * line in err. */
__attribute__((warn_unused_result)) int
epinvoke_call(const struct epinvoke *c, const char *endpoint, const char *variant, const char *body,
              size_t len, struct buf *reply, double *seconds, struct buf *err);

#endif
