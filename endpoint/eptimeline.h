/* eptimeline: samples of an endpoint variant's scaling, taken during a load
 * (sm-timeline): DescribeEndpoint's CurrentInstanceCount and
 * DesiredInstanceCount of the variant, and Application Auto Scaling's
 * DescribeScalingActivities for it (newest first), each sample one JSON line:
 *
 *   {"t": UNIX_S, "endpoint": NAME, "variant": NAME, "status": "InService",
 *    "current_instances": N, "desired_instances": N,
 *    "activities": [{"id", "status", "start", "end" (null while in progress),
 *                    "description"}, ...]}
 *
 * A sample of an inference component first reads DescribeInferenceComponent
 * (its endpoint, variant, status and RuntimeConfig's copy counts), then the
 * variant's instances as above, and the component's activities
 * (inference-component/NAME); its line adds, after desired_instances,
 *
 *   "inference_component": NAME, "component_status": "InService",
 *   "current_copies": N, "desired_copies": N
 *
 * (docs/result-format.md, Timeline). The reply parsers are pure: replies are
 * outside input, bounded by the caller, every member checked for its type,
 * strings scrubbed and made one line (epdesc_clean). */
#ifndef SM_EPTIMELINE_H
#define SM_EPTIMELINE_H

#include <stddef.h>

#include "awsj.h"
#include "buf.h"
#include "epdesc.h"

#define EPTIMELINE_MAX_ACTIVITIES 20 /* kept per sample: the newest */

enum eptimeline_error {
    EPTIMELINE_OK = 0,
    EPTIMELINE_ERR_REPLY = -1, /* not the reply expected: err names the member */
    EPTIMELINE_ERR_NOMEM = -2,
    EPTIMELINE_ERR_CALL = -3,  /* a call failed: err has its line (awsj.h) */
    EPTIMELINE_ERR_INPUT = -4, /* no such variant */
};

struct eptimeline_activity {
    char id[EPDESC_NAME_MAX + 64];
    char status[32];   /* StatusCode: Pending, InProgress, Successful, ... */
    double start, end; /* Unix seconds; end 0 while it runs */
    char description[256];
};

struct eptimeline_sample {
    double t; /* Unix seconds when the sample was taken */
    char endpoint[EPDESC_NAME_MAX], variant[EPDESC_NAME_MAX];
    char status[32];
    long current, desired;           /* -1 when DescribeEndpoint left them out */
    char component[EPDESC_NAME_MAX]; /* the inference component sampled ("": a variant) */
    char component_status[32];
    long copies, desired_copies; /* its RuntimeConfig's (-1 when left out) */
    struct eptimeline_activity a[EPTIMELINE_MAX_ACTIVITIES];
    size_t n_a;
};

/* The activities of a DescribeScalingActivities reply, newest first as sent,
 * the first max of them into out (*n). */
__attribute__((warn_unused_result)) int eptimeline_activities(const char *json, size_t len,
                                                              struct eptimeline_activity *out,
                                                              size_t max, size_t *n,
                                                              struct buf *err);

/* The counts of variant (NULL: the first) of a DescribeEndpoint reply read by
 * epdesc_endpoint into s (its endpoint, variant, status and counts). */
__attribute__((warn_unused_result)) int eptimeline_counts(const struct epdesc_endpoint *d,
                                                          const char *variant,
                                                          struct eptimeline_sample *s,
                                                          struct buf *err);

/* The endpoint, variant, status and copy counts of a DescribeInferenceComponent
 * reply into s (its component, variant, endpoint, component_status, copies and
 * desired_copies): EndpointName and VariantName must be names. */
__attribute__((warn_unused_result)) int
eptimeline_component(const char *json, size_t len, struct eptimeline_sample *s, struct buf *err);

/* The sample as one JSON line (with its newline) appended to out. */
__attribute__((warn_unused_result)) int eptimeline_json(const struct eptimeline_sample *s,
                                                        struct buf *out);

/* Takes a sample at time now (signed by c): DescribeEndpoint, then
 * DescribeScalingActivities of the variant. With a component (non-NULL),
 * DescribeInferenceComponent first, which names the endpoint and variant
 * (endpoint, when not NULL, must be the component's: else EPTIMELINE_ERR_INPUT),
 * and the component's scaling activities instead of the variant's. */
__attribute__((warn_unused_result)) int eptimeline_take(struct awsj_client *c, const char *endpoint,
                                                        const char *variant, const char *component,
                                                        double now, struct eptimeline_sample *s,
                                                        struct buf *err);

#endif
