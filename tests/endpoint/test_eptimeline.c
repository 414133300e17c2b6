/* eptimeline: a DescribeScalingActivities reply read into activities (newest
 * first, cut to the room, strings one line and scrubbed, a member of the wrong
 * type named); a DescribeEndpoint reply's variant counts picked by name; a
 * sample written as one JSON line; a DescribeInferenceComponent reply's endpoint,
 * variant and copy counts, written as the component's members of the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eptimeline.h"

static const char activities[] =
    "{\"ScalingActivities\":[{\"ActivityId\":\"a2\",\"ServiceNamespace\":\"sagemaker\","
    "\"ResourceId\":\"endpoint/ep/variant/AllTraffic\",\"Description\":\"Setting desired "
    "instance count to 3.\\nnow\",\"Cause\":\"monitor alarm\",\"StartTime\":1700000100.5,"
    "\"StatusCode\":\"InProgress\"},{\"ActivityId\":\"a1\",\"Description\":\"Setting desired "
    "instance count to 2.\",\"StartTime\":1700000000,\"EndTime\":1700000050.25,"
    "\"StatusCode\":\"Successful\"}]}";

static void test_activities(void) {
    struct eptimeline_activity a[3];
    size_t n;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(eptimeline_activities(activities, strlen(activities), a, 3, &n, &err), EPTIMELINE_OK);
    CHECK_INT((long)n, 2);
    CHECK_STR(a[0].id, "a2");
    CHECK_STR(a[0].status, "InProgress");
    CHECK_STR(a[0].description, "Setting desired instance count to 3. now");
    CHECK(a[0].start == 1700000100.5 && a[0].end == 0);
    CHECK(a[1].start == 1700000000 && a[1].end == 1700000050.25);
    CHECK_INT(eptimeline_activities(activities, strlen(activities), a, 1, &n, &err), EPTIMELINE_OK);
    CHECK_INT((long)n, 1); /* the newest only */
    CHECK_STR(a[0].id, "a2");
    static const struct {
        const char *reply, *why;
    } bad[] = {
        {"[]", "the reply is not a JSON object"},
        {"{\"ScalingActivities\":{}}", "ScalingActivities is not a list"},
        {"{\"ScalingActivities\":[1]}", "ScalingActivities holds a non-object"},
        {"{\"ScalingActivities\":[{\"ActivityId\":\"x\",\"StartTime\":\"soon\"}]}",
         "ScalingActivities: StartTime is not a time"},
        {"{\"ScalingActivities\":[{\"ActivityId\":7,\"StartTime\":1}]}",
         "ScalingActivities: ActivityId is not a string"},
        {"{\"ScalingActivities\":[{\"StartTime\":1}]}",
         "ScalingActivities: an activity without ActivityId or StartTime"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf_reset(&err);
        CHECK_INT(eptimeline_activities(bad[i].reply, strlen(bad[i].reply), a, 3, &n, &err),
                  EPTIMELINE_ERR_REPLY);
        CHECK_STR(buf_str(&err), bad[i].why);
        CHECK_INT((long)n, 0);
    }
    buf_reset(&err);
    CHECK_INT(eptimeline_activities("{}", 2, a, 3, &n, &err), EPTIMELINE_OK);
    CHECK_INT((long)n, 0);
    buf_free(&err);
}

static void test_counts_and_line(void) {
    static const char reply[] =
        "{\"EndpointName\":\"ep\",\"EndpointArn\":\"arn:aws:sagemaker:us-east-1:1:endpoint/ep\","
        "\"EndpointConfigName\":\"c\",\"EndpointStatus\":\"Updating\",\"ProductionVariants\":["
        "{\"VariantName\":\"a\",\"CurrentInstanceCount\":1,\"DesiredInstanceCount\":1},"
        "{\"VariantName\":\"b\",\"CurrentInstanceCount\":2,\"DesiredInstanceCount\":4}]}";
    struct epdesc_endpoint d;
    struct eptimeline_sample *s = calloc(1, sizeof *s);
    struct buf err, line;
    buf_init(&err, BUF_NO_CAP);
    buf_init(&line, BUF_NO_CAP);
    CHECK_INT(epdesc_endpoint(reply, strlen(reply), &d, &err), EPDESC_OK);
    CHECK_INT(eptimeline_counts(&d, "b", s, &err), EPTIMELINE_OK);
    CHECK(s->current == 2 && s->desired == 4);
    CHECK_STR(s->variant, "b");
    CHECK_INT(eptimeline_counts(&d, NULL, s, &err), EPTIMELINE_OK);
    CHECK(s->current == 1 && s->desired == 1);
    CHECK_INT(eptimeline_counts(&d, "zz", s, &err), EPTIMELINE_ERR_INPUT);
    CHECK_STR(buf_str(&err), "endpoint ep has no variant zz");
    CHECK_INT(eptimeline_counts(&d, "b", s, &err), EPTIMELINE_OK);
    s->t = 1700000200.125;
    CHECK_INT(eptimeline_activities(activities, strlen(activities), s->a, EPTIMELINE_MAX_ACTIVITIES,
                                    &s->n_a, &err),
              EPTIMELINE_OK);
    CHECK_INT(eptimeline_json(s, &line), EPTIMELINE_OK);
    CHECK_STR(buf_str(&line),
              "{\"t\":1700000200.125,\"endpoint\":\"ep\",\"variant\":\"b\",\"status\":"
              "\"Updating\",\"current_instances\":2,\"desired_instances\":4,\"activities\":["
              "{\"id\":\"a2\",\"status\":\"InProgress\",\"start\":1700000100.500,\"end\":null,"
              "\"description\":\"Setting desired instance count to 3. now\"},"
              "{\"id\":\"a1\",\"status\":\"Successful\",\"start\":1700000000.000,"
              "\"end\":1700000050.250,\"description\":\"Setting desired instance count to 2.\"}]}"
              "\n");
    free(s);
    buf_free(&err);
    buf_free(&line);
}

static void test_component_copies_in_the_line(void) {
    static const char reply[] =
        "{\"InferenceComponentName\":\"ic-1\",\"EndpointName\":\"ep\",\"VariantName\":"
        "\"AllTraffic\",\"InferenceComponentStatus\":\"InService\",\"Specification\":{},"
        "\"RuntimeConfig\":{\"DesiredCopyCount\":1,\"CurrentCopyCount\":0}}";
    struct eptimeline_sample *s = calloc(1, sizeof *s);
    struct buf err, line;
    buf_init(&err, BUF_NO_CAP);
    buf_init(&line, BUF_NO_CAP);
    CHECK_INT(eptimeline_component(reply, strlen(reply), s, &err), EPTIMELINE_OK);
    CHECK_STR(s->component, "ic-1");
    CHECK_STR(s->endpoint, "ep");
    CHECK_STR(s->variant, "AllTraffic");
    CHECK_STR(s->component_status, "InService");
    CHECK(s->copies == 0 && s->desired_copies == 1);
    s->t = 1700000000;
    s->current = s->desired = 1;
    snprintf(s->status, sizeof s->status, "InService");
    CHECK_INT(eptimeline_json(s, &line), EPTIMELINE_OK);
    /* the component's members after the variant's counts, before the activities */
    static const char tail[] = ",\"desired_instances\":1,\"inference_component\":\"ic-1\","
                               "\"component_status\":\"InService\",\"current_copies\":0,"
                               "\"desired_copies\":1,\"activities\":[]}\n";
    static const char head[] = "{\"t\":1700000000.000,\"endpoint\":\"ep\",";
    CHECK(line.len > sizeof tail && strncmp(buf_str(&line), head, sizeof head - 1) == 0 &&
          strcmp(buf_str(&line) + line.len - (sizeof tail - 1), tail) == 0);
    static const struct {
        const char *reply, *why;
    } bad[] = {
        {"[]", "DescribeInferenceComponent: the reply is not a JSON object"},
        {"{\"EndpointName\":\"ep\",\"VariantName\":\"v\"}",
         "DescribeInferenceComponent: InferenceComponentName is not a name"},
        {"{\"InferenceComponentName\":\"c\",\"EndpointName\":\"e p\",\"VariantName\":\"v\"}",
         "DescribeInferenceComponent: EndpointName is not a name"},
        {"{\"InferenceComponentName\":\"c\",\"EndpointName\":\"e\",\"VariantName\":\"v\","
         "\"RuntimeConfig\":{\"CurrentCopyCount\":-1}}",
         "DescribeInferenceComponent: RuntimeConfig.CurrentCopyCount is not a count"},
        {"{\"InferenceComponentName\":\"c\",\"EndpointName\":\"e\",\"VariantName\":\"v\","
         "\"RuntimeConfig\":[]}",
         "DescribeInferenceComponent: RuntimeConfig is not an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf_reset(&err);
        CHECK_INT(eptimeline_component(bad[i].reply, strlen(bad[i].reply), s, &err),
                  EPTIMELINE_ERR_REPLY);
        CHECK_STR(buf_str(&err), bad[i].why);
    }
    free(s);
    buf_free(&err);
    buf_free(&line);
}

int main(void) {
    test_activities();
    test_counts_and_line();
    test_component_copies_in_the_line();
    return check_exit();
}
