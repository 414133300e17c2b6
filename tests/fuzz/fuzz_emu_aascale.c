/* Fuzzes the emulator's Application Auto Scaling (aascale.h) with the JSON
 * bodies a client sends. Input: one control byte (its low 3 bits pick the
 * operation), then the body. Each input runs against a service holding one
 * registered target (endpoint/e/variant/AllTraffic of a command-line endpoint)
 * and one target tracking policy.
 *
 * Every reply has status 200 or 400 (r->type NULL just when 200) and is a JSON
 * object in valid UTF-8; an error names its __type and message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "aascale.h"
#include "emucheck.h"

static const char *const fuzz_ops[8] = {"RegisterScalableTarget",    "DescribeScalableTargets",
                                        "DeregisterScalableTarget",  "PutScalingPolicy",
                                        "DescribeScalingPolicies",   "DeleteScalingPolicy",
                                        "DescribeScalingActivities", "TagResource"};

#define FUZZ_KEY                                                                                   \
    "\"ServiceNamespace\":\"sagemaker\",\"ResourceId\":\"endpoint/e/variant/AllTraffic\","         \
    "\"ScalableDimension\":\"sagemaker:variant:DesiredInstanceCount\""

static void fuzz_check(const struct cplane_reply *r) {
    if ((r->status != 200 && r->status != 400) || (r->status == 200) != !r->type ||
        !emucheck_utf8(r->body.data, r->body.len))
        abort();
    cJSON *j = cJSON_ParseWithLength(buf_str(&r->body), r->body.len);
    if (!cJSON_IsObject(j)) abort();
    if (r->status == 400 && (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "__type")) ||
                             !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "message"))))
        abort();
    cJSON_Delete(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    struct cpconf conf;
    struct cplane cp;
    struct aascale s;
    struct cplane_reply r = {0};
    buf_init(&r.body, BUF_NO_CAP);
    cpconf_init(&conf, "us-east-1");
    cplane_init(&cp, &conf, "123456789012", NULL, NULL);
    aascale_init(&s, "123456789012", 1);
    struct cplane_static_variant v = {"AllTraffic", "emulated-model", "instant", 1, 2, NULL};
    const char *reg = "{" FUZZ_KEY ",\"MinCapacity\":1,\"MaxCapacity\":4}";
    const char *pol = "{" FUZZ_KEY ",\"PolicyName\":\"p\",\"PolicyType\":\"TargetTrackingScaling\","
                      "\"TargetTrackingScalingPolicyConfiguration\":{\"TargetValue\":70,"
                      "\"PredefinedMetricSpecification\":{\"PredefinedMetricType\":"
                      "\"SageMakerVariantInvocationsPerInstance\"}}}";
    if (cplane_add_static(&cp, "us-east-1", "e", &v, 1, (struct cplane_now){0, 1e9}) ||
        aascale_call(&s, &cp, fuzz_ops[0], reg, strlen(reg), "us-east-1", 1e9, &r) ||
        r.status != 200 ||
        aascale_call(&s, &cp, fuzz_ops[3], pol, strlen(pol), "us-east-1", 1e9, &r) ||
        r.status != 200)
        abort();
    if (aascale_call(&s, &cp, fuzz_ops[data[0] & 7], (const char *)data + 1, size - 1, "us-east-1",
                     1e9 + 1, &r) == 0)
        fuzz_check(&r);
    buf_free(&r.body);
    aascale_free(&s);
    cplane_free(&cp);
    return 0;
}
