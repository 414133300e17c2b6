/* The emulator's ECR (ecrsrv.h) without a server: DescribeImages' replies and
 * refusals, row by row (a request body, the status and __type it gets, the
 * registryId of the image listed). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../check.h"
#include "ecrsrv.h"

#define ACCOUNT "123456789012"

struct row {
    const char *body;
    int status;
    const char *type;     /* NULL: a success */
    const char *registry; /* of the image listed */
};

static const struct row rows[] = {
    {"{\"repositoryName\":\"vllm\"}", 200, NULL, ACCOUNT},
    {"{\"repositoryName\":\"vllm\",\"registryId\":\"763104351884\"}", 200, NULL, "763104351884"},
    {"{\"repositoryName\":\"vllm\",\"registryId\":\"763104351884\",\"imageIds\":[{\"imageTag\":"
     "\"" ECRSRV_TAG "\"}]}",
     200, NULL, "763104351884"},
    /* registryId: 12 digits, ECR's pattern [0-9]{12}, or a refusal */
    {"{\"repositoryName\":\"vllm\",\"registryId\":\"abc\"}", 400, "InvalidParameterException",
     NULL},
    {"{\"repositoryName\":\"vllm\",\"registryId\":\"\"}", 400, "InvalidParameterException", NULL},
    {"{\"repositoryName\":\"vllm\",\"registryId\":\"76310435188\"}", 400,
     "InvalidParameterException", NULL},
    {"{\"repositoryName\":\"vllm\",\"registryId\":\"7631043518840\"}", 400,
     "InvalidParameterException", NULL},
    {"{\"repositoryName\":\"vllm\",\"registryId\":\"7631\xcf\xcb"
     "351884\"}",
     400, "InvalidParameterException", NULL},
    {"{\"repositoryName\":\"vllm\",\"registryId\":763104351884}", 400, "InvalidParameterException",
     NULL},
    {"{\"registryId\":\"763104351884\"}", 400, "InvalidParameterException", NULL},
    {"{\"repositoryName\":\"pytorch\"}", 400, "RepositoryNotFoundException", NULL},
    {"{\"repositoryName\":\"vllm\",\"imageIds\":[{\"imageTag\":\"latest\"}]}", 400,
     "ImageNotFoundException", NULL},
    {"[]", 400, "SerializationException", NULL},
};

static void test_rows(void) {
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct cplane_reply r = {0};
        buf_init(&r.body, BUF_NO_CAP);
        CHECK_INT(ecrsrv_call("DescribeImages", rows[i].body, strlen(rows[i].body), ACCOUNT, &r),
                  0);
        cJSON *d = cJSON_Parse(buf_str(&r.body));
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(d, "__type");
        const cJSON *img =
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "imageDetails"), 0);
        const cJSON *reg = cJSON_GetObjectItemCaseSensitive(img, "registryId");
        if (r.status != rows[i].status) fprintf(stderr, "row %zu: %s\n", i, buf_str(&r.body));
        CHECK_INT(r.status, rows[i].status);
        CHECK_STR(r.type ? r.type : "-", rows[i].type ? rows[i].type : "-");
        CHECK_STR(cJSON_IsString(type) ? type->valuestring : "-",
                  rows[i].type ? rows[i].type : "-");
        CHECK_STR(cJSON_IsString(reg) ? reg->valuestring : "-",
                  rows[i].registry ? rows[i].registry : "-");
        cJSON_Delete(d);
        buf_free(&r.body);
    }
}

int main(void) {
    test_rows();
    return check_exit();
}
