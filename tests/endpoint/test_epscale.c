/* epscale: the Application Auto Scaling requests of sm-endpoint autoscale and
 * sm-mcp's autoscale tools (issue 33), exact, and the checks of a set's values. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "epscale.h"

#define KEY                                                                                        \
    "{\"ServiceNamespace\":\"sagemaker\",\"ResourceId\":\"endpoint/e/variant/AllTraffic\","        \
    "\"ScalableDimension\":\"sagemaker:variant:DesiredInstanceCount\""

#define POLICY                                                                                     \
    KEY ",\"PolicyName\":\"wrk-sagemaker-target-tracking\",\"PolicyType\":"                        \
        "\"TargetTrackingScaling\",\"TargetTrackingScalingPolicyConfiguration\":{"

static void test_requests(void) {
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    static const struct {
        struct epscale_set_req r;
        const char *policy;
    } rows[] = {
        {{"e", NULL, 1, 4, EPSCALE_INVOCATIONS, 70, 300, -1, true},
         POLICY "\"TargetValue\":70,\"PredefinedMetricSpecification\":{\"PredefinedMetricType\":"
                "\"SageMakerVariantInvocationsPerInstance\"},\"ScaleInCooldown\":300,"
                "\"DisableScaleIn\":true}}"},
        {{"e", NULL, 1, 4, EPSCALE_CONCURRENCY, 2.5, -1, 60, false},
         POLICY "\"TargetValue\":2.5,\"PredefinedMetricSpecification\":{\"PredefinedMetricType\":"
                "\"SageMakerVariantConcurrentRequestsPerModelHighResolution\"},"
                "\"ScaleOutCooldown\":60,\"DisableScaleIn\":false}}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        CHECK_INT(epscale_req_register(&rows[i].r, "AllTraffic", &out), 0);
        CHECK_STR(buf_str(&out), KEY ",\"MinCapacity\":1,\"MaxCapacity\":4}");
        CHECK_INT(epscale_req_policy(&rows[i].r, "AllTraffic", &out), 0);
        CHECK_STR(buf_str(&out), rows[i].policy);
    }
    CHECK_INT(epscale_req_key("e", "AllTraffic", NULL, &out), 0);
    CHECK_STR(buf_str(&out), KEY "}");
    CHECK_INT(epscale_req_key("e", "AllTraffic", "p1", &out), 0);
    CHECK_STR(buf_str(&out), KEY ",\"PolicyName\":\"p1\"}");
    char long_name[80];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    CHECK_INT(epscale_req_key(long_name, "AllTraffic", NULL, &out), EPOPS_ERR_INPUT);
    /* the preview's lines: the two calls, the variant AllTraffic when none is named */
    buf_reset(&out);
    CHECK_INT(epscale_set_calls(&rows[0].r, NULL, &out), 0);
    CHECK(strncmp(buf_str(&out), "application-autoscaling RegisterScalableTarget " KEY,
                  strlen("application-autoscaling RegisterScalableTarget " KEY)) == 0);
    CHECK(strstr(buf_str(&out), "\napplication-autoscaling PutScalingPolicy " KEY) != NULL);
    buf_free(&out);
}

static void test_checks(void) {
    static const struct {
        const char *name, *variant;
        long min, max;
        double target;
        long in_cool;
        const char *err; /* NULL: fine */
    } rows[] = {
        {"e", NULL, 1, 1, 1, -1, NULL},
        {"e", "AllTraffic", 1, 1000, 1e6, 86400, NULL},
        {"e_1", NULL, 1, 2, 5, -1,
         "'e_1' is not an endpoint name (letters, digits and inner '-', at most 63)"},
        {"e", "a b", 1, 2, 5, -1,
         "'a b' is not a variant name (letters, digits and inner '-', at most 63)"},
        {"e", NULL, 0, 2, 5, -1, "min and max are instances from 1 to 1000"},
        {"e", NULL, 1, 1001, 5, -1, "min and max are instances from 1 to 1000"},
        {"e", NULL, 3, 2, 5, -1, "min 3 is above max 2"},
        {"e", NULL, 1, 2, 0, -1, "the target value 0 is not above 0 and at most 1e6"},
        {"e", NULL, 1, 2, NAN, -1, "the target value nan is not above 0 and at most 1e6"},
        {"e", NULL, 1, 2, 5, 86401, "a cooldown is at most 86400 seconds"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct buf err;
        buf_init(&err, 1024);
        struct epscale_set_req r = {.name = rows[i].name,
                                    .variant = rows[i].variant,
                                    .min = rows[i].min,
                                    .max = rows[i].max,
                                    .target = rows[i].target,
                                    .scale_in_cooldown_s = rows[i].in_cool,
                                    .scale_out_cooldown_s = -1};
        CHECK_INT(epscale_check(&r, &err), rows[i].err ? EPOPS_ERR_INPUT : 0);
        CHECK_STR(buf_str(&err), rows[i].err ? rows[i].err : "");
        buf_free(&err);
    }
}

int main(void) {
    test_requests();
    test_checks();
    return check_exit();
}
