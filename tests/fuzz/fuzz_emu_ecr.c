/* Fuzzes the emulator's ECR (ecrsrv.h) with the JSON bodies a client sends to
 * DescribeImages. Input: one control byte (bit 0: another operation instead),
 * then the body.
 *
 * Every reply has status 200 or 400 (r->type NULL just when 200) and is a JSON
 * object in valid UTF-8: an error names its __type and message; a success lists
 * one image of repository ECRSRV_REPOSITORY, tagged ECRSRV_TAG, in a registry of
 * 12 digits, with a sha256 digest. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ecrsrv.h"
#include "emucheck.h"

static const char *fuzz_str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void fuzz_image(const cJSON *list) {
    const cJSON *img = cJSON_GetArrayItem(list, 0);
    const cJSON *tags = cJSON_GetObjectItemCaseSensitive(img, "imageTags");
    const char *repo = fuzz_str(img, "repositoryName"), *reg = fuzz_str(img, "registryId");
    const char *digest = fuzz_str(img, "imageDigest");
    const cJSON *tag = cJSON_GetArrayItem(tags, 0);
    if (cJSON_GetArraySize(list) != 1 || !repo || strcmp(repo, ECRSRV_REPOSITORY) != 0 || !reg ||
        strlen(reg) != 12 || strspn(reg, "0123456789") != 12 || !digest ||
        strncmp(digest, "sha256:", 7) != 0 || strlen(digest) != 7 + 64 || !cJSON_IsString(tag) ||
        strcmp(tag->valuestring, ECRSRV_TAG) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    struct cplane_reply r = {0};
    buf_init(&r.body, BUF_NO_CAP);
    const char *op = data[0] & 1 ? "ListImages" : "DescribeImages";
    if (ecrsrv_call(op, (const char *)data + 1, size - 1, "123456789012", &r) == 0) {
        if ((r.status != 200 && r.status != 400) || (r.status == 200) != !r.type ||
            !emucheck_utf8(r.body.data, r.body.len))
            abort();
        cJSON *j = cJSON_ParseWithLength(buf_str(&r.body), r.body.len);
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "imageDetails");
        if (!cJSON_IsObject(j)) abort();
        if (r.status == 400 && (!fuzz_str(j, "__type") || !fuzz_str(j, "message"))) abort();
        if (r.status == 200) fuzz_image(list);
        cJSON_Delete(j);
    }
    buf_free(&r.body);
    return 0;
}
