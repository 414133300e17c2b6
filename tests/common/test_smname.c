/* The naming rules every program shares (common/smname.h), as rows. */
#include <string.h>

#include "../check.h"
#include "smname.h"

static const struct {
    const char *name;
    bool endpoint, label;
} names[] = {
    {"gemma-4-e2b", true, true},
    {"a", true, true},
    {"A0", true, true},
    {"a--b", true, true}, /* SageMaker's (-*[a-zA-Z0-9])* allows runs of hyphens */
    {"-a", false, true},
    {"a-", false, true},
    {"a_b", false, true},
    {"a.b", false, true},
    {"", false, false},
    {".", false, false},
    {"..", false, false},
    {".hidden", false, false},
    {"a/b", false, false},
    {"a b", false, false},
    {"caf\xc3\xa9", false, false},
    {"a\nb", false, false},
};

static const struct {
    const char *host, *region; /* NULL: not a SageMaker Runtime host */
} hosts[] = {
    {"runtime.sagemaker.us-east-2.amazonaws.com", "us-east-2"},
    {"RUNTIME.SageMaker.EU-West-1.amazonaws.COM", "eu-west-1"},
    {"runtime-fips.sagemaker.us-gov-west-1.amazonaws.com", "us-gov-west-1"},
    {"runtime.sagemaker.cn-north-1.amazonaws.com.cn", "cn-north-1"},
    {"runtime-fips.sagemaker.cn-north-1.amazonaws.com.cn", NULL},
    {"runtime.sagemaker..amazonaws.com", NULL},
    {"runtime.sagemaker.us-east-1.amazonaws.com.evil", NULL},
    {"api.sagemaker.us-east-1.amazonaws.com", NULL},
    {"runtime.sagemaker.us_east.amazonaws.com", NULL},
    {"127.0.0.1", NULL},
    {"", NULL},
};

int main(void) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i].name);
        if (smname_endpoint_ok(names[i].name, n) != names[i].endpoint)
            CHECK_STR(names[i].endpoint ? "refused as an endpoint" : "taken as an endpoint",
                      names[i].name);
        if (smname_label_ok(names[i].name, n) != names[i].label)
            CHECK_STR(names[i].label ? "refused as a label" : "taken as a label", names[i].name);
    }
    char long_name[80];
    memset(long_name, 'a', sizeof long_name);
    CHECK(smname_endpoint_ok(long_name, 63) && !smname_endpoint_ok(long_name, 64));
    CHECK(smname_label_ok(long_name, 64) && !smname_label_ok(long_name, 65));
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
        char region[64] = "";
        bool ok = smname_region_of_host(hosts[i].host, strlen(hosts[i].host), region);
        CHECK_STR(ok ? region : "(none)", hosts[i].region ? hosts[i].region : "(none)");
    }
    return check_exit();
}
