/* The request bodies of a deployment (exact JSON), the swap's copy of a model,
 * the chat body, and the aws CLI commands get_deployment_config shows. */
#include <string.h>

#include "check.h"
#include "epreq.h"

static void test_model_and_config(void) {
    struct buf out, err;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, 1024);
    struct epreq_deploy d = {.name = "gemma-4-e2b",
                             .model_id = "google/gemma-4-E2B-it",
                             .image = "763104351884.dkr.ecr.us-east-2.amazonaws.com/vllm:t",
                             .role = "arn:aws:iam::123456789012:role/r",
                             .env = {"SM_VLLM_MAX_MODEL_LEN=4096", "HF_TOKEN=x"},
                             .n_env = 2,
                             .types = {"ml.g6.xlarge"},
                             .n_types = 1};
    CHECK_INT(epreq_create_model(&d, &out, &err), 0);
    CHECK_STR(buf_str(&out),
              "{\"ModelName\":\"gemma-4-e2b\",\"ExecutionRoleArn\":\"arn:aws:iam::123456789012:"
              "role/r\",\"PrimaryContainer\":{\"Image\":\"763104351884.dkr.ecr.us-east-2."
              "amazonaws.com/vllm:t\",\"Environment\":{\"SM_VLLM_MODEL\":\"google/gemma-4-E2B-it\","
              "\"SM_VLLM_SERVED_MODEL_NAME\":\"google/gemma-4-E2B-it\",\"SM_VLLM_MAX_MODEL_LEN\":"
              "\"4096\",\"HF_TOKEN\":\"x\"}}}");
    CHECK_INT(epreq_create_config(&d, &out, &err), 0);
    CHECK_STR(buf_str(&out),
              "{\"EndpointConfigName\":\"gemma-4-e2b\",\"ProductionVariants\":[{\"VariantName\":"
              "\"AllTraffic\",\"ModelName\":\"gemma-4-e2b\",\"InitialInstanceCount\":1,"
              "\"InstanceType\":\"ml.g6.xlarge\",\"ContainerStartupHealthCheckTimeoutInSeconds\":"
              "1800,\"ModelDataDownloadTimeoutInSeconds\":1800}]}");
    struct epreq_deploy p = d;
    p.types[1] = "ml.g6.2xlarge";
    p.n_types = 2;
    p.provision_timeout_s = 600;
    CHECK_INT(epreq_create_config(&p, &out, &err), 0);
    CHECK(strstr(buf_str(&out),
                 "\"InstancePools\":[{\"InstanceType\":\"ml.g6.xlarge\",\"Priority\":1},{"
                 "\"InstanceType\":\"ml.g6.2xlarge\",\"Priority\":2}],"
                 "\"VariantInstanceProvisionTimeoutInSeconds\":600") != NULL);
    CHECK(!strstr(buf_str(&out), "\"InstanceType\":\"ml.g6.xlarge\",\"Contain"));
    p.n_types = 0;
    CHECK_INT(epreq_create_config(&p, &out, &err), EPREQ_ERR_INPUT);
    d.env[0] = "=x";
    CHECK_INT(epreq_create_model(&d, &out, &err), EPREQ_ERR_INPUT);
    CHECK_STR(buf_str(&err), "--env '=x': want KEY=VALUE");
    buf_free(&out);
    buf_free(&err);
}

static void test_model_like_and_chat(void) {
    struct buf out, err;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, 1024);
    const char *desc = "{\"ModelName\":\"a\",\"ExecutionRoleArn\":\"arn:aws:iam::1:role/r\","
                       "\"PrimaryContainer\":{\"Image\":\"img\",\"Environment\":{\"SM_VLLM_MODEL\":"
                       "\"old\",\"SM_VLLM_SERVED_MODEL_NAME\":\"old\",\"K\":\"v\"}}}";
    CHECK_INT(epreq_model_like(desc, strlen(desc), "b", "new", &out, &err), 0);
    CHECK_STR(buf_str(&out), "{\"ModelName\":\"b\",\"ExecutionRoleArn\":\"arn:aws:iam::1:role/r\","
                             "\"PrimaryContainer\":{\"Image\":\"img\",\"Environment\":{\"K\":\"v\","
                             "\"SM_VLLM_MODEL\":\"new\",\"SM_VLLM_SERVED_MODEL_NAME\":\"new\"}}}");
    CHECK_INT(epreq_model_like("{}", 2, "b", "new", &out, &err), EPREQ_ERR_INPUT);
    CHECK_INT(epreq_chat("hi", "be brief", 16, 0, &out), 0);
    CHECK_STR(buf_str(&out),
              "{\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},{\"role\":"
              "\"user\",\"content\":\"hi\"}],\"max_tokens\":16,\"temperature\":0}");
    CHECK_INT(epreq_logs("e", 1000, 50, &out), 0);
    CHECK_STR(buf_str(&out), "{\"logGroupName\":\"/aws/sagemaker/Endpoints/e\",\"startTime\":1000,"
                             "\"limit\":50}");
    buf_free(&out);
    buf_free(&err);
}

static void test_aws_cli(void) {
    struct buf out, err;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, 1024);
    struct epreq_deploy d = {.name = "e",
                             .model_id = "m",
                             .image = "i",
                             .role = "arn:aws:iam::1:role/it's",
                             .types = {"ml.g6.xlarge"},
                             .n_types = 1};
    CHECK_INT(epreq_aws_cli(&d, "us-east-2", &out, &err), 0);
    const char *s = buf_str(&out);
    const char *pre = "aws sagemaker create-model --region us-east-2 --model-name e "
                      "--execution-role-arn 'arn:aws:iam::1:role/it'\\''s' --primary-container "
                      "'{\"Image\":\"i\",";
    CHECK(strncmp(s, pre, strlen(pre)) == 0);
    CHECK(strstr(s, "\naws sagemaker create-endpoint-config --region us-east-2 "
                    "--endpoint-config-name e --production-variants '[{\"VariantName\"") != NULL);
    CHECK(strstr(s, "\naws sagemaker wait endpoint-in-service --region us-east-2 --endpoint-name "
                    "e\n") != NULL);
    buf_free(&out);
    buf_free(&err);
}

int main(void) {
    test_model_and_config();
    test_model_like_and_chat();
    test_aws_cli();
    return check_exit();
}
