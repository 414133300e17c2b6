/* Replies read: DescribeEndpoint with the placed instance pool, a config's
 * pools in priority order, pages of endpoints, quotas and log events, the
 * chat reply; members of the wrong type named; outside text scrubbed of the
 * process's secrets and made one line. */
#include <string.h>

#include "check.h"
#include "epdesc.h"
#include "scrub.h"

static int collect(void *ud, double t, const char *msg) {
    struct buf *b = ud;
    return buf_addf(b, "%.0f|%s;", t, msg);
}

int main(void) {
    struct buf err;
    buf_init(&err, 1024);
    const char *d1 =
        "{\"EndpointName\":\"e\",\"EndpointConfigName\":\"c\",\"EndpointStatus\":\"InService\","
        "\"CreationTime\":1796000000.5,\"ProductionVariants\":[{\"VariantName\":\"AllTraffic\","
        "\"DeployedImages\":[{\"SpecifiedImage\":\"img:1\"}],\"CurrentWeight\":1,"
        "\"CurrentInstanceCount\":1,\"InstancePools\":[{\"InstanceType\":\"ml.g6.xlarge\","
        "\"CurrentInstanceCount\":0},{\"InstanceType\":\"ml.g6.2xlarge\",\"CurrentInstanceCount\":"
        "1}]}]}";
    struct epdesc_endpoint d;
    CHECK_INT(epdesc_endpoint(d1, strlen(d1), &d, &err), 0);
    CHECK_STR(d.status, "InService");
    CHECK_INT(d.n_v, 1);
    CHECK_STR(d.v[0].placed, "ml.g6.2xlarge");
    CHECK_STR(d.v[0].image, "img:1");
    CHECK(d.created == 1796000000.5);
    CHECK_INT(d.v[0].desired_count, -1);
    /* a secret echoed by the server and a newline never reach a line we print */
    CHECK_INT(scrub_add("SECRETSECRETSECRETSECRET0123"), 0);
    const char *d2 = "{\"EndpointName\":\"e\",\"EndpointStatus\":\"Failed\",\"FailureReason\":"
                     "\"bad\\nkey SECRETSECRETSECRETSECRET0123\"}";
    CHECK_INT(epdesc_endpoint(d2, strlen(d2), &d, &err), 0);
    CHECK_STR(d.failure, "bad key <redacted>");
    const char *d3 = "{\"EndpointName\":\"e\",\"EndpointStatus\":5}";
    CHECK_INT(epdesc_endpoint(d3, strlen(d3), &d, &err), EPDESC_ERR_REPLY);
    CHECK_STR(buf_str(&err), "EndpointStatus is not a string");
    CHECK_INT(epdesc_endpoint("[]", 2, &d, &err), EPDESC_ERR_REPLY);
    CHECK_STR(buf_str(&err), "the reply is not a JSON object");

    const char *c1 = "{\"EndpointConfigName\":\"c\",\"ProductionVariants\":[{\"VariantName\":\"v\","
                     "\"ModelName\":\"m\",\"InitialInstanceCount\":2,\"InstancePools\":[{"
                     "\"InstanceType\":\"ml.b\",\"Priority\":2},{\"InstanceType\":\"ml.a\","
                     "\"Priority\":1}]}]}";
    struct epdesc_config c;
    CHECK_INT(epdesc_config(c1, strlen(c1), &c, &err), 0);
    CHECK(c.v[0].pools && c.v[0].n_types == 2 && c.v[0].count == 2);
    CHECK_STR(c.v[0].types[0], "ml.a");
    CHECK_STR(c.v[0].types[1], "ml.b");

    struct epdesc_summary list[2];
    size_t n = 0;
    const char *l1 = "{\"Endpoints\":[{\"EndpointName\":\"a\",\"EndpointStatus\":\"Creating\"},"
                     "{\"EndpointName\":\"b\",\"EndpointStatus\":\"InService\"}]}";
    CHECK_INT(epdesc_list(l1, strlen(l1), list, 2, &n, &err), 0);
    CHECK_INT(n, 2);
    CHECK_INT(epdesc_list(l1, strlen(l1), list, 2, &n, &err), EPDESC_ERR_REPLY); /* full */
    CHECK_STR(buf_str(&err), "more than 2 endpoints");

    struct epdesc_quota q[4];
    n = 0;
    const char *q1 = "{\"Quotas\":[{\"QuotaName\":\"ml.g6.xlarge for endpoint usage\","
                     "\"QuotaCode\":\"L-1\",\"Value\":2.0}]}";
    CHECK_INT(epdesc_quotas(q1, strlen(q1), q, 4, &n, &err), 0);
    CHECK(n == 1 && q[0].value == 2);
    const char *q2 = "{\"Quotas\":[{\"QuotaName\":\"a\"},{\"QuotaName\":\"b\"}]}";
    n = 0;
    CHECK_INT(epdesc_quotas(q2, strlen(q2), q, 1, &n, &err), 0); /* past max: skipped */
    CHECK(n == 1 && strcmp(q[0].name, "a") == 0);

    /* a list holding what it should not, in one line naming it */
    static const struct {
        int kind; /* 0 endpoint, 1 config, 2 list, 3 quotas, 4 logs */
        const char *json, *want;
    } bad[] = {
        {0, "{\"EndpointName\":\"e\",\"EndpointStatus\":\"s\",\"ProductionVariants\":[1]}",
         "ProductionVariants holds a non-object"},
        {0,
         "{\"EndpointName\":\"e\",\"EndpointStatus\":\"s\",\"ProductionVariants\":[{"
         "\"VariantName\":\"v\",\"InstancePools\":[[]]}]}",
         "InstancePools holds a non-object"},
        {0,
         "{\"EndpointName\":\"e\",\"EndpointStatus\":\"s\",\"ProductionVariants\":[{"
         "\"VariantName\":\"v\"},{\"VariantName\":\"v\"},{\"VariantName\":\"v\"},{"
         "\"VariantName\":\"v\"},{\"VariantName\":\"v\"},{\"VariantName\":\"v\"},{"
         "\"VariantName\":\"v\"},{\"VariantName\":\"v\"},{\"VariantName\":\"v\"},{"
         "\"VariantName\":\"v\"},{\"VariantName\":\"v\"}]}",
         "more than 10 production variants"},
        {1, "{\"EndpointConfigName\":\"c\",\"ProductionVariants\":[\"v\"]}",
         "ProductionVariants holds a non-object"},
        {2, "{\"Endpoints\":[null]}", "Endpoints holds a non-object"},
        {3, "{\"Quotas\":{}}", "Quotas is not a list"},
        {3, "{\"Quotas\":[2]}", "Quotas holds a non-object"},
        {4, "{\"events\":[true]}", "events[0] is not an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *j = bad[i].json;
        size_t len = strlen(j);
        n = 0;
        int rc = bad[i].kind == 0   ? epdesc_endpoint(j, len, &d, &err)
                 : bad[i].kind == 1 ? epdesc_config(j, len, &c, &err)
                 : bad[i].kind == 2 ? epdesc_list(j, len, list, 2, &n, &err)
                 : bad[i].kind == 3 ? epdesc_quotas(j, len, q, 4, &n, &err)
                                    : epdesc_logs(j, len, collect, NULL, &err);
        CHECK_INT(rc, EPDESC_ERR_REPLY);
        CHECK_STR(buf_str(&err), bad[i].want);
    }

    struct buf lines;
    buf_init(&lines, BUF_NO_CAP);
    const char *g1 = "{\"events\":[{\"timestamp\":1000,\"message\":\"one\"},{\"timestamp\":2000,"
                     "\"message\":\"two\\r\\n\"}],\"nextToken\":\"x\"}";
    CHECK_INT(epdesc_logs(g1, strlen(g1), collect, &lines, &err), 0);
    CHECK_STR(buf_str(&lines), "1|one;2|two  ;");
    buf_free(&lines);

    struct buf text;
    struct epdesc_chat chat;
    buf_init(&text, BUF_NO_CAP);
    const char *r1 = "{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"1512\"},"
                     "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":12,"
                     "\"completion_tokens\":1}}";
    CHECK_INT(epdesc_chat(r1, strlen(r1), 100, &text, &chat, &err), 0);
    CHECK_STR(buf_str(&text), "1512");
    CHECK(chat.completion_tokens == 1 && chat.prompt_tokens == 12);
    CHECK_STR(chat.finish, "stop");
    CHECK_INT(epdesc_chat("{\"choices\":[]}", 14, 100, &text, &chat, &err), EPDESC_ERR_REPLY);
    CHECK_STR(buf_str(&err), "no choices[0] in the reply");
    const char *r2 = "{\"choices\":[{\"message\":{\"content\":\"h\\u00e9llo\"}}],\"usage\":"
                     "{\"completion_tokens\":1.5}}";
    CHECK_INT(epdesc_chat(r2, strlen(r2), 2, &text, &chat, &err), EPDESC_ERR_REPLY);
    CHECK_STR(buf_str(&err), "completion_tokens is not a count");
    buf_free(&text);
    buf_free(&err);
    return check_exit();
}
