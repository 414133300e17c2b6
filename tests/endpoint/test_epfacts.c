/* The facts file: the project's own parses, gives each region's vLLM image
 * (the China partition's domain too) and the article's price; a bad file is
 * refused naming the member. Arg: the facts file. */
#include <string.h>

#include "check.h"
#include "epfacts.h"

int main(int argc, char **argv) {
    struct epfacts f;
    struct buf err, uri;
    buf_init(&err, 1024);
    buf_init(&uri, 1024);
    CHECK(argc == 2);
    CHECK_INT(epfacts_load(argv[1], &f, &err), 0);
    CHECK_INT(epfacts_image(&f, "us-east-2", &uri, &err), 0);
    CHECK(strncmp(buf_str(&uri), "763104351884.dkr.ecr.us-east-2.amazonaws.com/vllm:", 50) == 0);
    CHECK_INT(epfacts_image(&f, "cn-north-1", &uri, &err), 0);
    CHECK(strncmp(buf_str(&uri), "727897471807.dkr.ecr.cn-north-1.amazonaws.com.cn/vllm:", 54) ==
          0);
    CHECK_INT(epfacts_image(&f, "us-west-9", &uri, &err), EPFACTS_ERR_FORMAT);
    CHECK_STR(buf_str(&err), "no Deep Learning Containers account known for region us-west-9: "
                             "pass --image URI");
    const struct epfacts_price *p = epfacts_price(&f, "ml.g6.xlarge", "us-east-2");
    CHECK(p && p->usd == 1.1267);
    CHECK(epfacts_price(&f, "ml.g6.xlarge", "us-east-1") == NULL);
    CHECK(f.n_l4 == 3);
    CHECK_STR(f.l4[0], "ml.g6.xlarge");
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"{}", "x: not a facts file (JSON with \"format\": \"wrk-sagemaker-endpoint-facts\", "
               "\"version\": 1)"},
        {"{\"format\":\"wrk-sagemaker-endpoint-facts\",\"version\":1,\"images\":{\"repository\":"
         "\"vllm\",\"tag\":\"t\",\"tag_source\":\"s\",\"accounts_source\":\"s\",\"accounts\":{"
         "\"us-east-1\":\"12\"}}}",
         "x: images.accounts: \"us-east-1\": want a region and a 12-digit account"},
        /* a key with control characters is shown without them (found by fuzz_endpoint) */
        {"{\"format\":\"wrk-sagemaker-endpoint-facts\",\"version\":1,\"images\":{\"repository\":"
         "\"vllm\",\"tag\":\"t\",\"tag_source\":\"s\",\"accounts_source\":\"s\",\"accounts\":{"
         "\"us-\\n\\u001b[2J\":\"123456789012\"}}}",
         "x: images.accounts: \"us-??[2J\": want a region and a 12-digit account"},
        {"{\"format\":\"wrk-sagemaker-endpoint-facts\",\"version\":1,\"images\":{\"repository\":"
         "\"vllm\",\"tag\":\"t\",\"tag_source\":\"s\",\"accounts_source\":\"s\",\"accounts\":{}},"
         "\"instance_types\":{"
         "\"l4_single_gpu\":[\"ml.g6.xlarge\",\"ml.g6\\n\"]}}",
         "x: instance_types.l4_single_gpu: want at most 8 types such as ml.g6.xlarge"},
        {"{\"format\":\"wrk-sagemaker-endpoint-facts\",\"version\":1,\"images\":{\"repository\":"
         "\"vllm\",\"tag\":5}}",
         "x: images.tag: want a string of at most 127 bytes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(epfacts_parse(bad[i].text, strlen(bad[i].text), "x", &f, &err),
                  EPFACTS_ERR_FORMAT);
        CHECK_STR(buf_str(&err), bad[i].message);
    }
    buf_free(&err);
    buf_free(&uri);
    return check_exit();
}
