/* awsapi: the AWS APIs sm-emulator serves on its one port besides SageMaker
 * Runtime, chosen by the request's X-Amz-Target header (the AWS JSON
 * protocols: POST / with X-Amz-Target: <TargetPrefix>.<Operation>), each
 * verified with SigV4 for its own signing name and a region the control plane
 * serves (the credential scope's). Today: the SageMaker control plane
 * (cplane.h, hosting in cphost.h), Service Quotas (squota.h), CloudWatch (cwlog.h,
 * cwmetric.h, cwquery.h), and what a deploy script asks first: STS's
 * GetCallerIdentity (stssrv.h), Application Auto Scaling (aascale.h), IAM's GetRole (iamsrv.h,
 * signed in us-east-1, IAM's region whatever the control plane's) and ECR's DescribeImages
 * (ecrsrv.h).
 *
 * Adding a service is one entry in the table of awsapi.c and a handler file:
 *   {"Logs_20140328", "logs", "application/x-amz-json-1.1", logs_call}
 *   {"GraniteServiceVersion20100801", "monitoring", "application/x-amz-json-1.0", cw_call}
 * A handler answers (op, body, region) with a cplane_reply (status, error
 * type, JSON body). The query protocol (CloudWatch's "Action=GetMetricData&..."
 * form posts, no X-Amz-Target) goes to the entry whose target_prefix is NULL
 * and whose signing name is the scope's service, with op the Action.
 *
 * A request signed for S3 (its credential scope's service) goes to s3srv.h,
 * before anything else.
 *
 * Requests for an endpoint the control plane created (/endpoints/NAME/...) go
 * to its own runtime (cphost); everything else to SageMaker Runtime as before. */
#ifndef EMU_AWSAPI_H
#define EMU_AWSAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aascale.h"
#include "cpconf.h"
#include "cphost.h"
#include "cplane.h"
#include "cwalarm.h"
#include "http.h"
#include "rtcall.h"
#include "model.h"
#include "options.h"
#include "s3srv.h"
#include "scaler.h"

struct awsapi {
    struct invoke *main; /* SageMaker Runtime: its keys (verification), send, settings */
    struct cpconf conf;
    struct cplane cp;
    struct cphost host;
    uint64_t rng;              /* request ids */
    struct s3srv s3;           /* S3 (s3srv.h): requests signed for s3, path-style */
    struct aascale scale;      /* Application Auto Scaling (aascale.h) */
    struct scaler scaler;      /* its decisions while the emulator serves (scaler.h) */
    struct cwalarm alarms;     /* CloudWatch alarms (cwalarm.h): they invoke step policies */
    struct event *alarm_timer; /* the next alarm evaluation */
};

enum awsapi_error { AWSAPI_OK = 0, AWSAPI_ERR_INVALID = -1, AWSAPI_ERR_NOMEM = -2 };

/* Sets up the control plane from the options (--control-region, --capacity,
 * ..., the profile file's "control_plane" and "models") and registers the
 * command line's endpoints as InService. main must have its send function (the
 * server is initialized) and its fleet. Returns 0, or AWSAPI_ERR_INVALID (a
 * bad option: err says which) or AWSAPI_ERR_NOMEM. Free with awsapi_free,
 * also after a failure. */
__attribute__((warn_unused_result)) int awsapi_init(struct awsapi *a, struct invoke *main,
                                                    const struct options *o,
                                                    const struct model_library *lib,
                                                    struct buf *err);
/* Frees everything (after the server closed its connections). */
void awsapi_free(struct awsapi *a);

/* The server's route function (server_route_fn; ud: the awsapi). */
bool awsapi_route(void *ud, void *owner, const struct http_head *h, const char *body, size_t len,
                  struct rtcall **call);

#endif
