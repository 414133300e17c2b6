/* Fuzzes the emulator's control plane (cplane, cpreq, cpdesc, cptag, squota)
 * with request bodies a client sends. Input: one control byte (bits 0-3 the
 * operation, bits 4-5 how far the clock then moves, bit 6 set: a tag
 * operation instead, AddTags, ListTags or DeleteTags by bits 0-1; bit 7 set:
 * an inference component's operation by bits 0-2, once the endpoint is
 * InService and holds the component "ic"), then the body.
 *
 * A model (with tags), a config and an endpoint exist before the call, so
 * describes, updates, deletes and the tag operations reach real state. Every
 * reply is a JSON object in valid UTF-8 with status 200 or 400 (an error
 * naming its __type), and the state machine then runs to its end without a
 * crash: every endpoint ends InService, Failed, or gone, and every inference
 * component InService or gone. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cplane.h"
#include "squota.h"
#include "utf8.h"

static const char *const fuzz_ops[16] = {
    "CreateModel",      "CreateEndpointConfig",   "CreateEndpoint", "UpdateEndpoint",
    "DescribeEndpoint", "DescribeEndpointConfig", "DescribeModel",  "ListEndpoints",
    "DeleteEndpoint",   "DeleteEndpointConfig",   "DeleteModel",    "ListServiceQuotas",
    "GetServiceQuota",  "CreateEndpoint",         "ListEndpoints",  "Unknown"};
static const char *const fuzz_tag_ops[4] = {"AddTags", "ListTags", "DeleteTags", "AddTags"};
static const char *const fuzz_ic_ops[8] = {
    "CreateInferenceComponent", "DescribeInferenceComponent",
    "UpdateInferenceComponent", "UpdateInferenceComponentRuntimeConfig",
    "DeleteInferenceComponent", "ListInferenceComponents",
    "CreateInferenceComponent", "UpdateInferenceComponent"};

static bool fuzz_utf8(const char *s, size_t n) {
    uint32_t c;
    for (size_t i = 0, k; i < n; i += k)
        if (!(k = utf8_decode((const unsigned char *)s + i, n - i, &c))) return false;
    return true;
}

static void fuzz_check(const struct cplane_reply *r) {
    if ((r->status != 200 && r->status != 400) || !fuzz_utf8(r->body.data, r->body.len)) abort();
    cJSON *j = cJSON_ParseWithLength(buf_str(&r->body), r->body.len);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(j, "__type");
    if (!cJSON_IsObject(j) || (r->status == 400) != cJSON_IsString(type)) abort();
    cJSON_Delete(j);
}

static void fuzz_setup(struct cplane *cp, struct cplane_reply *r) {
    static const char *const setup[][2] = {
        {"CreateModel", "{\"ModelName\":\"m\",\"ExecutionRoleArn\":\"arn:aws:iam::123456789012:"
                        "role/r\",\"PrimaryContainer\":{\"Image\":\"i\",\"Environment\":"
                        "{\"SM_VLLM_MODEL\":\"google/gemma-4-E2B-it\"}},\"Tags\":[{\"Key\":"
                        "\"created-by\",\"Value\":\"wrk-sagemaker\"},{\"Key\":\"run\",\"Value\":"
                        "\"r-1\"}]}"},
        {"CreateEndpointConfig", "{\"EndpointConfigName\":\"c\",\"ProductionVariants\":[{"
                                 "\"VariantName\":\"v\",\"ModelName\":\"m\",\"InstancePools\":[{"
                                 "\"InstanceType\":\"ml.g6.xlarge\",\"Priority\":1},{"
                                 "\"InstanceType\":\"ml.g6.2xlarge\",\"Priority\":2}]}]}"},
        {"CreateEndpoint", "{\"EndpointName\":\"e\",\"EndpointConfigName\":\"c\"}"},
    };
    for (size_t i = 0; i < 3; i++)
        if (cplane_call(cp, setup[i][0], setup[i][1], strlen(setup[i][1]), "us-east-1",
                        (struct cplane_now){0, 0}, r) ||
            r->status != 200)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    struct cpconf c;
    struct buf err;
    buf_init(&err, 256);
    cpconf_init(&c, "us-east-1");
    if (cpconf_option(&c, "--capacity", "us-east-1/ml.g6.xlarge=0", &err) ||
        cpconf_option(&c, "--create-time", "10", &err) ||
        cpconf_option(&c, "--capacity-wait", "20", &err))
        abort();
    buf_free(&err);
    struct cplane cp;
    struct cplane_reply r;
    cplane_init(&cp, &c, "123456789012", NULL, NULL);
    buf_init(&r.body, BUF_NO_CAP);
    fuzz_setup(&cp, &r);
    const char *op = data[0] & 0x80   ? fuzz_ic_ops[data[0] & 7]
                     : data[0] & 0x40 ? fuzz_tag_ops[data[0] & 3]
                                      : fuzz_ops[data[0] & 15];
    double t = (double)((data[0] >> 4) & 3) * 15;
    if (data[0] & 0x80) { /* the endpoint InService, holding a component */
        static const char ic[] = "{\"InferenceComponentName\":\"ic\",\"EndpointName\":\"e\","
                                 "\"Specification\":{\"ModelName\":\"m\",\"ComputeResourceR"
                                 "equirements\":{\"MinMemoryRequiredInMb\":1024}},\"RuntimeCo"
                                 "nfig\":{\"CopyCount\":1}}";
        t += 1000;
        if (cplane_call(&cp, "CreateInferenceComponent", ic, strlen(ic), "us-east-1",
                        (struct cplane_now){1000, 1000}, &r) ||
            r.status != 200)
            abort();
    }
    const char *body = (const char *)data + 1;
    int rc = !(data[0] & 0xc0) && ((data[0] & 15) == 11 || (data[0] & 15) == 12)
                 ? squota_call(&cp, op, body, size - 1, "us-east-1", &r)
                 : cplane_call(&cp, op, body, size - 1, "us-east-1", (struct cplane_now){t, t}, &r);
    if (rc) abort();
    fuzz_check(&r);
    cplane_advance(&cp, (struct cplane_now){1e9, 1e9});
    for (size_t i = 0; i < cp.n_eps; i++)
        if (cp.eps[i]->state != CPRES_IN_SERVICE && cp.eps[i]->state != CPRES_FAILED) abort();
    for (size_t i = 0; i < cp.ic.n; i++)
        if (cp.ic.c[i]->state != CPIC_IN_SERVICE) abort();
    if (cplane_next(&cp) >= 0) abort();
    buf_free(&r.body);
    cplane_free(&cp);
    return 0;
}
