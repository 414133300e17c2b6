/* The control plane's cores without a server: its settings (cpconf), the
 * requests' checks worded as SageMaker words them (cpreq), the endpoint state
 * machine over an injected clock (cplane: placement, capacity fallback across
 * instance pools, quotas, updates, deletion) and Service Quotas (squota). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "cpconf.h"
#include "cplane.h"
#include "squota.h"

/* ---- a control plane and a clock ---- */

struct events {
    int serve, stop;
    char last[64];
};

static void on_event(void *ud, enum cplane_event_kind kind, const struct cpres_endpoint *ep) {
    struct events *e = ud;
    if (kind == CPLANE_SERVE)
        e->serve++;
    else
        e->stop++;
    snprintf(e->last, sizeof e->last, "%s", ep->name);
}

static struct cplane_now at(double t) {
    return (struct cplane_now){t, 1796000000.0 + t};
}

/* Calls op with body at t; returns the status; the reply's JSON in *out (freed by the caller). */
static int call(struct cplane *cp, const char *op, const char *body, double t, cJSON **out) {
    struct cplane_reply r;
    buf_init(&r.body, BUF_NO_CAP);
    CHECK_INT(cplane_call(cp, op, body, strlen(body), "us-east-1", at(t), &r), 0);
    cJSON *j = cJSON_Parse(buf_str(&r.body));
    CHECK(cJSON_IsObject(j)); /* every reply is a JSON object */
    if (out)
        *out = j;
    else
        cJSON_Delete(j);
    int status = r.status;
    buf_free(&r.body);
    return status;
}

/* Calls Service Quotas' op with body; as call. */
static int quota_call(const struct cplane *cp, const char *op, const char *body, cJSON **out) {
    struct cplane_reply r;
    buf_init(&r.body, BUF_NO_CAP);
    CHECK_INT(squota_call(cp, op, body, strlen(body), "us-east-2", &r), 0);
    *out = cJSON_Parse(buf_str(&r.body));
    CHECK(cJSON_IsObject(*out));
    buf_free(&r.body);
    return r.status;
}

static const char *str(const cJSON *j, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsString(v) ? v->valuestring : "(none)";
}

/* A request the control plane refuses: 400 with its __type and message (NULL: none). */
struct refusal {
    const char *op, *body, *type, *message;
};

/* Each of the n requests refused as its row says (by Service Quotas when
 * quotas, whose member is "Message"). */
static void check_refusals(struct cplane *cp, bool quotas, const struct refusal *rows, size_t n) {
    const char *member = quotas ? "Message" : "message";
    for (size_t i = 0; i < n; i++) {
        cJSON *j;
        CHECK_INT(quotas ? quota_call(cp, rows[i].op, rows[i].body, &j)
                         : call(cp, rows[i].op, rows[i].body, 0, &j),
                  400);
        CHECK_STR(str(j, "__type"), rows[i].type);
        if (rows[i].message)
            CHECK_STR(str(j, member), rows[i].message);
        else
            CHECK(!cJSON_GetObjectItem(j, member));
        cJSON_Delete(j);
    }
}

/* DescribeEndpoint of name at t: the reply's JSON (freed by the caller). */
static cJSON *describe(struct cplane *cp, const char *name, double t) {
    char body[128];
    cJSON *j;
    snprintf(body, sizeof body, "{\"EndpointName\":\"%s\"}", name);
    call(cp, "DescribeEndpoint", body, t, &j);
    return j;
}

/* The status of endpoint name at t. */
static const char *status_at(struct cplane *cp, const char *name, double t, char out[64]) {
    cJSON *j = describe(cp, name, t);
    snprintf(out, 64, "%s",
             str(j, cJSON_GetObjectItem(j, "EndpointStatus") ? "EndpointStatus" : "__type"));
    cJSON_Delete(j);
    return out;
}

/* A model of SM_VLLM_MODEL id, and a config of it on the given pools ("a,b"). */
static void model_and_config(struct cplane *cp, const char *name, const char *id,
                             const char *pools) {
    char body[2048], list[512] = "";
    snprintf(
        body, sizeof body,
        "{\"ModelName\":\"%s\",\"ExecutionRoleArn\":\"arn:aws:iam::123456789012:role/r\","
        "\"PrimaryContainer\":{\"Image\":\"img:1\",\"Environment\":{\"SM_VLLM_MODEL\":\"%s\"}}}",
        name, id);
    CHECK_INT(call(cp, "CreateModel", body, 0, NULL), 200);
    int prio = 1;
    for (const char *p = pools; *p; prio++) {
        size_t n = strcspn(p, ",");
        snprintf(list + strlen(list), sizeof list - strlen(list),
                 "%s{\"InstanceType\":\"%.*s\",\"Priority\":%d}", prio > 1 ? "," : "", (int)n, p,
                 prio);
        p += n + (p[n] == ',');
    }
    snprintf(body, sizeof body,
             "{\"EndpointConfigName\":\"%s\",\"ProductionVariants\":[{\"VariantName\":"
             "\"AllTraffic\",\"ModelName\":\"%s\",\"InstancePools\":[%s]}]}",
             name, name, list);
    CHECK_INT(call(cp, "CreateEndpointConfig", body, 0, NULL), 200);
}

static int create_endpoint(struct cplane *cp, const char *name, const char *cfg, double t,
                           cJSON **out) {
    char body[256];
    snprintf(body, sizeof body, "{\"EndpointName\":\"%s\",\"EndpointConfigName\":\"%s\"}", name,
             cfg);
    return call(cp, "CreateEndpoint", body, t, out);
}

static void conf_set(struct cpconf *c, const char *flag, const char *value) {
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(cpconf_option(c, flag, value, &err), 0);
    buf_free(&err);
}

/* A control plane of account 123456789012 serving region, with the settings
 * ("--flag=value", NULL-ended; NULL: none); ev counts its events (NULL: none). */
static void plane(struct cpconf *c, struct cplane *cp, const char *region, struct events *ev,
                  const char *const *settings) {
    cpconf_init(c, region);
    for (size_t i = 0; settings && settings[i]; i++) {
        char flag[32];
        size_t n = strcspn(settings[i], "=");
        snprintf(flag, sizeof flag, "%.*s", (int)n, settings[i]);
        conf_set(c, flag, settings[i] + n + 1);
    }
    cplane_init(cp, c, "123456789012", ev ? on_event : NULL, ev);
}

/* ---- cpconf ---- */

static void test_conf(void) {
    struct cpconf c;
    struct buf err;
    buf_init(&err, 1024);
    cpconf_init(&c, "us-east-2");
    CHECK_INT(c.n_regions, 1);
    CHECK(c.create_s == 594 && c.capacity_wait_s == 1800 && c.delete_s == 10);
    CHECK_STR(cpconf_profile(&c, "google/gemma-4-E2B-it"), "bf16-l4");
    CHECK_STR(cpconf_profile(&c, "google/gemma-4-E2B-it-qat-w4a16-ct"), "qat-l4");
    CHECK(cpconf_profile(&c, "google/gemma-4-31B-it") == NULL);
    CHECK_INT(cpconf_capacity(&c, "us-east-2", "ml.g6.xlarge"), CPCONF_UNLIMITED);
    CHECK_INT(cpconf_quota(&c, "us-east-2", "ml.g6.xlarge"), 2);
    conf_set(&c, "--capacity", "us-east-1/ml.g6.xlarge=0"); /* names a region: it is served */
    CHECK(cpconf_serves(&c, "us-east-1", 9) && c.n_regions == 2);
    conf_set(&c, "--capacity", "*/ml.g6e.xlarge=3");
    conf_set(&c, "--quota", "us-east-1/*=5");
    conf_set(&c, "--quota", "us-east-1/ml.g6.4xlarge=1"); /* later rules win */
    conf_set(&c, "--model", "x/y=instant");
    conf_set(&c, "--model", "x/y=qat-l4");
    conf_set(&c, "--create-time", "60");
    CHECK_INT(cpconf_capacity(&c, "us-east-1", "ml.g6.xlarge"), 0);
    CHECK_INT(cpconf_capacity(&c, "us-east-2", "ml.g6e.xlarge"), 3);
    CHECK_INT(cpconf_quota(&c, "us-east-1", "ml.g6.2xlarge"), 5);
    CHECK_INT(cpconf_quota(&c, "us-east-1", "ml.g6.4xlarge"), 1);
    CHECK_STR(cpconf_profile(&c, "x/y"), "qat-l4");
    CHECK(c.create_s == 60);
    static const struct {
        const char *flag, *value, *message;
    } bad[] = {
        {"--capacity", "us-east-1=3",
         "--capacity 'us-east-1': want REGION/TYPE, e.g. us-east-1/ml.g6.xlarge ('*' for any)"},
        {"--capacity", "us-east-1/g6=1",
         "--capacity 'us-east-1/g6': 'g6' is not an instance type such as ml.g6.xlarge"},
        {"--quota", "US/ml.g6.xlarge=1", "--quota: 'US' is not a region name such as us-east-2"},
        {"--quota", "us-east-1/ml.g6.xlarge=unlimited",
         "--quota 'us-east-1/ml.g6.xlarge=unlimited': 'unlimited' is not a whole number of "
         "instances"},
        {"--capacity", "us-east-1/ml.g6.xlarge=-1",
         "--capacity 'us-east-1/ml.g6.xlarge=-1': '-1' is not a whole number of instances or "
         "unlimited"},
        {"--create-time", "soon",
         "--create-time: 'soon' is not a number of model seconds from 0 to 10000000"},
        {"--model", "nomap", "--model 'nomap': want MODEL_ID=PROFILE"},
        {"--model", "a b=bf16-l4", "--model: a model id has no spaces or control characters"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(cpconf_option(&c, bad[i].flag, bad[i].value, &err), CPCONF_ERR_INVALID);
        CHECK_STR(buf_str(&err), bad[i].message);
    }
    cJSON *root = cJSON_Parse(
        "{\"profiles\":{},\"models\":{\"org/m\":\"instant\"},\"control_plane\":{\"regions\":"
        "[\"eu-west-1\"],\"create_s\":5,\"capacity_wait_s\":7,\"default_quota\":9,\"capacity\":"
        "{\"eu-west-1/ml.g5.xlarge\":0},\"quotas\":{\"eu-west-1/ml.g5.xlarge\":1}}}");
    CHECK_INT(cpconf_apply_json(&c, root, "p.json", &err), 0);
    CHECK(cpconf_serves(&c, "eu-west-1", 9) && c.create_s == 5 && c.capacity_wait_s == 7);
    CHECK_INT(cpconf_quota(&c, "eu-west-1", "ml.g5.xlarge"), 1);
    CHECK_INT(cpconf_quota(&c, "us-east-2", "ml.g5.xlarge"), 9);
    CHECK_INT(cpconf_capacity(&c, "eu-west-1", "ml.g5.xlarge"), 0);
    CHECK_STR(cpconf_profile(&c, "org/m"), "instant");
    cJSON_Delete(root);
    root = cJSON_Parse("{\"control_plane\":{\"capacity\":{\"eu-west-1/ml.g5.xlarge\":1.5}}}");
    CHECK_INT(cpconf_apply_json(&c, root, "p.json", &err), CPCONF_ERR_INVALID);
    CHECK_STR(buf_str(&err), "p.json: control_plane.capacity: \"eu-west-1/ml.g5.xlarge\": want a "
                             "whole number of instances");
    cJSON_Delete(root);
    buf_free(&err);
}

/* ---- cpreq: SageMaker's validation wording ---- */

static void test_validation(void) {
    struct cpconf c;
    struct cplane cp;
    plane(&c, &cp, "us-east-1", NULL, NULL);
    static const struct refusal rows[] = {
        {"CreateModel", "{\"ModelName\":\"a_b\"}", "ValidationException",
         "1 validation error detected: Value 'a_b' at 'modelName' failed to satisfy constraint: "
         "Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}"},
        {"CreateModel", "{\"ModelName\":\"m\"}", "ValidationException",
         "1 validation error detected: Value null at 'executionRoleArn' failed to satisfy "
         "constraint: Member must not be null"},
        {"CreateModel", "{\"ModelName\":\"m\",\"ExecutionRoleArn\":\"role\"}",
         "ValidationException",
         "1 validation error detected: Value 'role' at 'executionRoleArn' failed to satisfy "
         "constraint: Member must satisfy regular expression pattern: "
         "^arn:aws[a-z\\-]*:iam::\\d{12}:role/?[a-zA-Z_0-9+=,.@\\-_/]+$"},
        {"CreateModel",
         "{\"ModelName\":\"m\",\"ExecutionRoleArn\":\"arn:aws:iam::123456789012:role/r\"}",
         "ValidationException",
         "1 validation error detected: Value null at 'primaryContainer' failed to satisfy "
         "constraint: Member must not be null"},
        {"CreateModel",
         "{\"ModelName\":\"m\",\"ExecutionRoleArn\":\"arn:aws:iam::123456789012:role/r\","
         "\"PrimaryContainer\":{\"Image\":\"i\",\"Environment\":{\"1X\":\"v\"}}}",
         "ValidationException",
         "1 validation error detected: Value '1X' at 'primaryContainer.environment' failed to "
         "satisfy constraint: Map keys must satisfy constraint: [Member must have length less "
         "than or equal to 1024, Member must satisfy regular expression pattern: "
         "[a-zA-Z_][a-zA-Z0-9_]*]"},
        {"CreateModel", "{\"ModelName\":5}", "SerializationException",
         "ModelName: expected a string"},
        {"CreateEndpointConfig", "{\"EndpointConfigName\":\"c\",\"ProductionVariants\":[]}",
         "ValidationException",
         "1 validation error detected: Value '[...]' at 'productionVariants' failed to satisfy "
         "constraint: Member must have length greater than or equal to 1"},
        {"CreateEndpointConfig",
         "{\"EndpointConfigName\":\"c\",\"ProductionVariants\":[{\"VariantName\":\"v\","
         "\"ModelName\":\"m\",\"InstancePools\":[{\"InstanceType\":\"ml.g6.xlarge\","
         "\"Priority\":6}]}]}",
         "ValidationException",
         "1 validation error detected: Value '6' at "
         "'productionVariants.1.member.instancePools.1.member.priority' failed to satisfy "
         "constraint: Member must have value less than or equal to 5"},
        {"CreateEndpointConfig",
         "{\"EndpointConfigName\":\"c\",\"ProductionVariants\":[{\"VariantName\":\"v\","
         "\"ModelName\":\"m\",\"InstanceType\":\"ml.g6.xlarge\",\"InstancePools\":[]}]}",
         "ValidationException",
         "Production variant v gives both InstanceType and InstancePools; give one of them"},
        {"CreateEndpointConfig",
         "{\"EndpointConfigName\":\"c\",\"ProductionVariants\":[{\"VariantName\":\"v\","
         "\"ModelName\":\"m\",\"InstancePools\":[{\"InstanceType\":\"ml.g6.xlarge\","
         "\"Priority\":1}],\"VariantInstanceProvisionTimeoutInSeconds\":60}]}",
         "ValidationException",
         "1 validation error detected: Value '60' at "
         "'productionVariants.1.member.variantInstanceProvisionTimeoutInSeconds' failed to "
         "satisfy constraint: Member must have value greater than or equal to 300"},
        {"CreateEndpointConfig",
         "{\"EndpointConfigName\":\"c\",\"ProductionVariants\":[{\"VariantName\":\"v\","
         "\"ModelName\":\"m\",\"InstanceType\":\"ml.g6.xlarge\"}]}",
         "ValidationException",
         "Could not find model \"arn:aws:sagemaker:us-east-1:123456789012:model/m\"."},
        {"ListEndpoints", "{\"MaxResults\":101}", "ValidationException",
         "1 validation error detected: Value '101' at 'maxResults' failed to satisfy "
         "constraint: Member must have value less than or equal to 100"},
        {"ListEndpoints", "{\"NextToken\":\"zz\"}", "ValidationException",
         "Invalid pagination token"},
        {"DescribeEndpoint", "{\"EndpointName\":\"Nope\"}", "ValidationException",
         "Could not find endpoint \"arn:aws:sagemaker:us-east-1:123456789012:endpoint/nope\"."},
        {"DescribeEndpoint", "[1]", "SerializationException",
         "the request body is not a JSON object"},
        {"StopEverything", "{}", "UnknownOperationException", NULL},
    };
    check_refusals(&cp, false, rows, sizeof rows / sizeof rows[0]);
    cplane_free(&cp);
}

/* ---- the state machine ---- */

static void test_create_and_capacity_fallback(void) {
    struct cpconf c;
    struct cplane cp;
    struct events ev = {0};
    char st[64];
    cJSON *j;
    plane(&c, &cp, "us-east-1", &ev,
          (const char *const[]){"--create-time=100", "--capacity-wait=1000",
                                "--capacity=us-east-1/ml.g6.xlarge=0", NULL});
    model_and_config(&cp, "plain", "google/gemma-4-E2B-it", "ml.g6.2xlarge");
    model_and_config(&cp, "pools", "google/gemma-4-E2B-it", "ml.g6.xlarge,ml.g6.2xlarge");
    model_and_config(&cp, "none", "google/gemma-4-E2B-it", "ml.g6.xlarge");
    CHECK_INT(create_endpoint(&cp, "a", "plain", 0, &j), 200);
    CHECK_STR(str(j, "EndpointArn"), "arn:aws:sagemaker:us-east-1:123456789012:endpoint/a");
    cJSON_Delete(j);
    CHECK_STR(status_at(&cp, "a", 99, st), "Creating");
    CHECK_INT(ev.serve, 0);
    CHECK(fabs(cplane_next(&cp) - 100) < 1e-9); /* the host arms its timer for this */
    CHECK_STR(status_at(&cp, "a", 100, st), "InService");
    CHECK_INT(ev.serve, 1);
    CHECK_STR(ev.last, "a");
    /* pools: no capacity on the first, InsufficientInstanceCapacity after the wait, the next */
    CHECK_INT(create_endpoint(&cp, "b", "pools", 200, NULL), 200);
    CHECK_STR(status_at(&cp, "b", 1199, st), "Creating");
    CHECK_STR(status_at(&cp, "b", 1299, st), "Creating");
    CHECK_STR(status_at(&cp, "b", 1300, st), "InService");
    j = describe(&cp, "b", 1300);
    const cJSON *pools = cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(j, "ProductionVariants"), 0), "InstancePools");
    CHECK_STR(str(cJSON_GetArrayItem(pools, 1), "InstanceType"), "ml.g6.2xlarge");
    CHECK_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(pools, 0), "CurrentInstanceCount")->valueint,
              0);
    CHECK_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(pools, 1), "CurrentInstanceCount")->valueint,
              1);
    cJSON_Delete(j);
    /* one pool without capacity: Failed with SageMaker's reason, after the wait */
    CHECK_INT(create_endpoint(&cp, "c", "none", 2000, NULL), 200);
    CHECK_STR(status_at(&cp, "c", 2999, st), "Creating");
    j = describe(&cp, "c", 3000);
    CHECK_STR(str(j, "EndpointStatus"), "Failed");
    CHECK_STR(str(j, "FailureReason"), "Unable to provision requested ML compute capacity due to "
                                       "InsufficientInstanceCapacity error.");
    CHECK(!cJSON_GetObjectItem(j, "ProductionVariants"));
    cJSON_Delete(j);
    CHECK_INT(ev.serve, 2);
    cplane_free(&cp);
}

static void test_capacity_is_taken_and_timeout(void) {
    struct cpconf c;
    struct cplane cp;
    char st[64];
    cJSON *j;
    plane(&c, &cp, "us-east-1", NULL,
          (const char *const[]){"--create-time=10", "--capacity-wait=1800",
                                "--capacity=us-east-1/ml.g6.xlarge=1",
                                "--capacity=us-east-1/ml.g6.2xlarge=0", NULL});
    model_and_config(&cp, "one", "google/gemma-4-E2B-it", "ml.g6.xlarge");
    CHECK_INT(create_endpoint(&cp, "a", "one", 0, NULL), 200);
    CHECK_INT(create_endpoint(&cp, "b", "one", 0, NULL), 200); /* the one instance is a's */
    CHECK_STR(status_at(&cp, "a", 10, st), "InService");
    CHECK_STR(status_at(&cp, "b", 1799, st), "Creating");
    CHECK_STR(status_at(&cp, "b", 1800, st), "Failed");
    /* VariantInstanceProvisionTimeoutInSeconds ends the tries before the wait does */
    CHECK_INT(call(&cp, "CreateEndpointConfig",
                   "{\"EndpointConfigName\":\"t\",\"ProductionVariants\":[{\"VariantName\":\"v\","
                   "\"ModelName\":\"one\",\"InstancePools\":[{\"InstanceType\":\"ml.g6.2xlarge\","
                   "\"Priority\":1},{\"InstanceType\":\"ml.g6.xlarge\",\"Priority\":2}],"
                   "\"VariantInstanceProvisionTimeoutInSeconds\":600}]}",
                   2000, NULL),
              200);
    CHECK_INT(call(&cp, "DeleteEndpoint", "{\"EndpointName\":\"a\"}", 2000, NULL), 200);
    CHECK_INT(create_endpoint(&cp, "t", "t", 2000, NULL), 200);
    CHECK_STR(status_at(&cp, "t", 2599, st), "Creating");
    j = describe(&cp, "t", 2600);
    CHECK_STR(str(j, "EndpointStatus"), "Failed");
    cJSON_Delete(j);
    cplane_free(&cp);
}

static void test_quota(void) {
    struct cpconf c;
    struct cplane cp;
    cJSON *j;
    plane(&c, &cp, "us-east-1", NULL,
          (const char *const[]){"--quota=us-east-1/ml.g6.xlarge=1",
                                "--quota=us-east-1/ml.g6.2xlarge=1",
                                "--capacity=us-east-1/ml.g6.xlarge=0", "--create-time=10",
                                "--capacity-wait=100", NULL});
    model_and_config(&cp, "pools", "google/gemma-4-E2B-it", "ml.g6.xlarge,ml.g6.2xlarge");
    model_and_config(&cp, "big", "google/gemma-4-E2B-it", "ml.g6.2xlarge");
    CHECK_INT(create_endpoint(&cp, "a", "pools", 0, NULL), 200);
    /* while a is being placed it holds the quota of both its types */
    CHECK_INT(cplane_usage(&cp, "us-east-1", "ml.g6.xlarge"), 1);
    CHECK_INT(cplane_usage(&cp, "us-east-1", "ml.g6.2xlarge"), 1);
    CHECK_INT(create_endpoint(&cp, "b", "big", 1, &j), 400);
    CHECK_STR(str(j, "__type"), "ResourceLimitExceeded");
    CHECK_STR(str(j, "message"),
              "The account-level service limit 'ml.g6.2xlarge for endpoint usage' is 1 Instances, "
              "with current utilization of 1 Instances and a request delta of 1 Instances. Please "
              "use AWS Service Quotas to request an increase for this quota.");
    cJSON_Delete(j);
    char st[64];
    CHECK_STR(status_at(&cp, "a", 110, st), "InService"); /* placed on ml.g6.2xlarge */
    CHECK_INT(cplane_usage(&cp, "us-east-1", "ml.g6.xlarge"), 0);
    CHECK_INT(cplane_usage(&cp, "us-east-1", "ml.g6.2xlarge"), 1);
    cplane_free(&cp);
}

static void test_delete_update_and_health(void) {
    struct cpconf c;
    struct cplane cp;
    struct events ev = {0};
    char st[64];
    cJSON *j;
    plane(&c, &cp, "us-east-1", &ev,
          (const char *const[]){"--create-time=10", "--delete-time=5", NULL});
    model_and_config(&cp, "bf16", "google/gemma-4-E2B-it", "ml.g6.xlarge");
    model_and_config(&cp, "qat", "google/gemma-4-E2B-it-qat-w4a16-ct", "ml.g6.xlarge");
    model_and_config(&cp, "who", "org/unknown-model", "ml.g6.xlarge");
    CHECK_INT(create_endpoint(&cp, "E", "bf16", 0, NULL), 200);
    CHECK_INT(create_endpoint(&cp, "e", "bf16", 0, &j), 400); /* names differ by case only */
    cJSON_Delete(j);
    CHECK_INT(create_endpoint(&cp, "E", "bf16", 0, &j), 400);
    CHECK_STR(str(j, "message"), "Cannot create already existing endpoint "
                                 "\"arn:aws:sagemaker:us-east-1:123456789012:endpoint/e\".");
    cJSON_Delete(j);
    CHECK_INT(call(&cp, "DeleteEndpoint", "{\"EndpointName\":\"E\"}", 5, &j), 400);
    CHECK_STR(str(j, "message"), "Cannot update in-progress endpoint "
                                 "\"arn:aws:sagemaker:us-east-1:123456789012:endpoint/e\".");
    cJSON_Delete(j);
    CHECK_STR(status_at(&cp, "E", 10, st), "InService");
    cplane_scaled(&cp, "us-east-1", "E", "AllTraffic", 1, 2, at(12).wall); /* launching one */
    CHECK_STR(status_at(&cp, "E", 15, st), "Updating");
    /* the one-variable swap: a config of another SM_VLLM_MODEL */
    CHECK_INT(call(&cp, "UpdateEndpoint", "{\"EndpointName\":\"E\",\"EndpointConfigName\":\"qat\"}",
                   20, NULL),
              200);
    j = describe(&cp, "E", 25);
    CHECK_STR(str(j, "EndpointStatus"), "Updating");
    CHECK_STR(str(j, "EndpointConfigName"), "bf16"); /* the old config serves meanwhile */
    cJSON_Delete(j);
    j = describe(&cp, "E", 30);
    CHECK_STR(str(j, "EndpointStatus"), "InService"); /* the new deployment's own counts */
    CHECK_STR(str(j, "EndpointConfigName"), "qat");
    const cJSON *pv = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "ProductionVariants"), 0);
    CHECK_INT(cJSON_GetObjectItem(pv, "DesiredInstanceCount")->valueint, 1);
    cJSON_Delete(j);
    CHECK_INT(ev.serve, 2);
    const struct cpres_endpoint *ep = cplane_endpoint(&cp, "us-east-1", "E");
    CHECK_STR(ep->live.p[0].profile, "qat-l4");
    CHECK_STR(ep->live.p[0].model_id, "google/gemma-4-E2B-it-qat-w4a16-ct");
    /* a model no profile serves fails its health check */
    CHECK_INT(create_endpoint(&cp, "w", "who", 40, NULL), 200);
    j = describe(&cp, "w", 50);
    CHECK_STR(str(j, "EndpointStatus"), "Failed");
    CHECK_STR(str(j, "FailureReason"),
              "The primary container for production variant AllTraffic did not pass the ping "
              "health check. Please check CloudWatch logs for this endpoint.");
    cJSON_Delete(j);
    /* delete: Deleting, then gone; the host stops serving at once */
    CHECK_INT(call(&cp, "DeleteEndpoint", "{\"EndpointName\":\"E\"}", 60, NULL), 200);
    CHECK_INT(ev.stop, 1);
    CHECK_STR(status_at(&cp, "E", 64, st), "Deleting");
    CHECK_STR(status_at(&cp, "E", 65, st), "ValidationException");
    CHECK_INT(call(&cp, "DeleteEndpoint", "{\"EndpointName\":\"w\"}", 70, NULL), 200); /* Failed */
    CHECK_INT(ev.stop, 1); /* it served nothing */
    CHECK_INT(call(&cp, "DeleteEndpointConfig", "{\"EndpointConfigName\":\"qat\"}", 70, NULL), 200);
    CHECK_INT(call(&cp, "DeleteModel", "{\"ModelName\":\"qat\"}", 70, NULL), 200);
    CHECK_INT(call(&cp, "DescribeModel", "{\"ModelName\":\"qat\"}", 70, &j), 400);
    CHECK_STR(str(j, "message"),
              "Could not find model \"arn:aws:sagemaker:us-east-1:123456789012:model/qat\".");
    cJSON_Delete(j);
    cplane_free(&cp);
}

static void test_list_and_static(void) {
    struct cpconf c;
    struct cplane cp;
    cJSON *j;
    plane(&c, &cp, "us-east-1", NULL,
          (const char *const[]){"--quota=us-east-1/*=9", "--create-time=0", NULL});
    struct cplane_static_variant v = {"AllTraffic", "google/gemma-4-E2B-it", "bf16-l4", 1, 1, NULL};
    CHECK_INT(cplane_add_static(&cp, "us-east-1", "gemma-4-e2b", &v, 1, at(0)), 0);
    model_and_config(&cp, "m", "google/gemma-4-E2B-it", "ml.g6.xlarge");
    CHECK_INT(create_endpoint(&cp, "zeta", "m", 1, NULL), 200);
    CHECK_INT(create_endpoint(&cp, "alpha", "m", 2, NULL), 200);
    CHECK_INT(call(&cp, "ListEndpoints",
                   "{\"SortBy\":\"Name\",\"SortOrder\":\"Ascending\","
                   "\"MaxResults\":2}",
                   3, &j),
              200);
    const cJSON *eps = cJSON_GetObjectItem(j, "Endpoints");
    CHECK_INT(cJSON_GetArraySize(eps), 2);
    CHECK_STR(str(cJSON_GetArrayItem(eps, 0), "EndpointName"), "alpha");
    CHECK_STR(str(cJSON_GetArrayItem(eps, 1), "EndpointName"), "gemma-4-e2b");
    CHECK_STR(str(j, "NextToken"), "t2");
    cJSON_Delete(j);
    CHECK_INT(call(&cp, "ListEndpoints",
                   "{\"SortBy\":\"Name\",\"SortOrder\":\"Ascending\","
                   "\"MaxResults\":2,\"NextToken\":\"t2\"}",
                   3, &j),
              200);
    CHECK_STR(str(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "Endpoints"), 0), "EndpointName"),
              "zeta");
    CHECK(!cJSON_GetObjectItem(j, "NextToken"));
    cJSON_Delete(j);
    CHECK_INT(call(&cp, "ListEndpoints", "{\"NameContains\":\"GEMMA\"}", 3, &j),
              200); /* any case */
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "Endpoints")), 1);
    cJSON_Delete(j);
    CHECK_INT(call(&cp, "DeleteEndpoint", "{\"EndpointName\":\"gemma-4-e2b\"}", 3, &j), 400);
    CHECK_STR(str(j, "message"), "Endpoint gemma-4-e2b was given on sm-emulator's command line "
                                 "(--endpoint): it cannot be deleted");
    cJSON_Delete(j);
    CHECK_INT(call(&cp, "DescribeModel", "{\"ModelName\":\"gemma-4-e2b\"}", 3, &j), 200);
    CHECK_STR(str(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "PrimaryContainer"), "Environment"),
                  "SM_VLLM_MODEL"),
              "google/gemma-4-E2B-it");
    cJSON_Delete(j);
    CHECK_INT(cplane_usage(&cp, "us-east-1", "ml.g6.xlarge"), 3);
    cplane_free(&cp);
}

/* Scaling's counts: DescribeEndpoint and ListEndpoints say Updating while the desired
 * count exceeds the current one, InService with the new count once it is reached. */
static void test_scaled_counts_and_updating(void) {
    struct cpconf c;
    struct cplane cp;
    char st[64];
    plane(&c, &cp, "us-east-1", NULL, (const char *const[]){"--create-time=0", NULL});
    struct cplane_static_variant v = {"AllTraffic", "google/gemma-4-E2B-it", "bf16-l4", 1, 1, NULL};
    CHECK_INT(cplane_add_static(&cp, "us-east-1", "e", &v, 1, at(0)), 0);
    cplane_scaled(&cp, "us-east-1", "e", "AllTraffic", 1, 3, at(5).wall);
    CHECK_STR(status_at(&cp, "e", 6, st), "Updating");
    cJSON *j = describe(&cp, "e", 6);
    const cJSON *pv = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "ProductionVariants"), 0);
    CHECK_INT(cJSON_GetObjectItem(pv, "CurrentInstanceCount")->valueint, 1);
    CHECK_INT(cJSON_GetObjectItem(pv, "DesiredInstanceCount")->valueint, 3);
    cJSON_Delete(j);
    CHECK_INT(call(&cp, "ListEndpoints", "{\"StatusEquals\":\"Updating\"}", 6, &j), 200);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "Endpoints")), 1);
    cJSON_Delete(j);
    cplane_scaled(&cp, "us-east-1", "e", "AllTraffic", 3, 3, at(7).wall);
    CHECK_STR(status_at(&cp, "e", 8, st), "InService");
    j = describe(&cp, "e", 8);
    pv = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "ProductionVariants"), 0);
    CHECK_INT(cJSON_GetObjectItem(pv, "CurrentInstanceCount")->valueint, 3);
    CHECK_INT(cJSON_GetObjectItem(pv, "DesiredInstanceCount")->valueint, 3);
    cJSON_Delete(j);
    cplane_scaled(&cp, "us-east-1", "nope", "AllTraffic", 2, 2, at(9).wall); /* nothing */
    cplane_free(&cp);
}

/* ---- Service Quotas ---- */

static void test_service_quotas(void) {
    struct cpconf c;
    struct cplane cp;
    cJSON *j;
    plane(&c, &cp, "us-east-2", NULL,
          (const char *const[]){"--quota=us-east-2/ml.g6.xlarge=1",
                                "--quota=us-east-2/ml.x9.huge=7", NULL});
    char code[12];
    squota_code("ml.g6.xlarge", code);
    CHECK(strlen(code) == 10 && strncmp(code, "L-", 2) == 0);
    int seen = 0, pages = 0;
    char token[32] = "";
    do { /* every quota once, over pages */
        char body[128];
        snprintf(body, sizeof body, "{\"ServiceCode\":\"sagemaker\",\"MaxResults\":5%s%s%s}",
                 token[0] ? ",\"NextToken\":\"" : "", token, token[0] ? "\"" : "");
        CHECK_INT(quota_call(&cp, "ListServiceQuotas", body, &j), 200);
        const cJSON *q;
        cJSON_ArrayForEach(q, cJSON_GetObjectItem(j, "Quotas")) {
            seen++;
            if (strcmp(str(q, "QuotaName"), "ml.g6.xlarge for endpoint usage") == 0) {
                CHECK(cJSON_GetObjectItem(q, "Value")->valuedouble == 1);
                CHECK_STR(str(q, "QuotaCode"), code);
                char arn[96];
                snprintf(arn, sizeof arn,
                         "arn:aws:servicequotas:us-east-2:123456789012:sagemaker/%s", code);
                CHECK_STR(str(q, "QuotaArn"), arn);
            }
            if (strcmp(str(q, "QuotaName"), "ml.x9.huge for endpoint usage") == 0)
                CHECK(cJSON_GetObjectItem(q, "Value")->valuedouble == 7);
        }
        snprintf(token, sizeof token, "%s", str(j, "NextToken"));
        if (strcmp(token, "(none)") == 0) token[0] = '\0';
        cJSON_Delete(j);
        pages++;
    } while (token[0] && pages < 10);
    CHECK_INT(seen, 21); /* the 20 built-in types and ml.x9.huge */
    CHECK_INT(pages, 5);
    char body[96];
    snprintf(body, sizeof body, "{\"ServiceCode\":\"sagemaker\",\"QuotaCode\":\"%s\"}", code);
    CHECK_INT(quota_call(&cp, "GetServiceQuota", body, &j), 200);
    CHECK_STR(str(cJSON_GetObjectItem(j, "Quota"), "QuotaName"), "ml.g6.xlarge for endpoint usage");
    cJSON_Delete(j);
    static const struct refusal refused[] = {
        {"GetServiceQuota", "{\"ServiceCode\":\"sagemaker\",\"QuotaCode\":\"L-00000000\"}",
         "NoSuchResourceException",
         "The request failed because the specified quota does not exist: L-00000000"},
        {"ListServiceQuotas", "{\"ServiceCode\":\"ec2\"}", "NoSuchResourceException",
         "The request failed because the specified service does not exist (sm-emulator knows "
         "service code sagemaker only): ec2"},
        {"ListServiceQuotas", "{}", "ValidationException",
         "1 validation error detected: Value null at 'serviceCode' failed to satisfy constraint: "
         "Member must not be null"},
        {"ListServiceQuotas", "{\"ServiceCode\":1}", "SerializationException",
         "ServiceCode: expected a string"},
        {"GetServiceQuota", "{\"ServiceCode\":\"sagemaker\"}", "ValidationException",
         "1 validation error detected: Value null at 'quotaCode' failed to satisfy constraint: "
         "Member must not be null"},
        {"GetServiceQuota", "{\"ServiceCode\":\"sagemaker\",\"QuotaCode\":[]}",
         "SerializationException", "QuotaCode: expected a string"},
    };
    check_refusals(&cp, true, refused, sizeof refused / sizeof refused[0]); /* "Message" */
    cplane_free(&cp);
}

int main(void) {
    test_conf();
    test_scaled_counts_and_updating();
    test_validation();
    test_create_and_capacity_fallback();
    test_capacity_is_taken_and_timeout();
    test_quota();
    test_delete_update_and_health();
    test_list_and_static();
    test_service_quotas();
    return check_exit();
}
