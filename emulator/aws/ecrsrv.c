#include "ecrsrv.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jsonw.h"
#include "splitmix.h"

#define ECRSRV_PUSHED_AT 1767225600 /* 2026-01-01T00:00:00Z */
#define ECRSRV_SIZE      11811160064LL

/* The image's digest: "sha256:" and 64 hex digits, from its tag. */
static void ecrsrv_digest(char out[72]) {
    uint64_t s = splitmix_hash(ECRSRV_REPOSITORY ":" ECRSRV_TAG);
    int n = snprintf(out, 72, "sha256:");
    for (int i = 0; i < 4; i++)
        n += snprintf(out + n, (size_t)(72 - n), "%016llx", (unsigned long long)splitmix_next(&s));
}

__attribute__((format(printf, 3, 4))) static int
ecrsrv_fail(struct cplane_reply *r, const char *type, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cplane_error(r, 400, type, msg) ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

static int ecrsrv_detail(struct buf *b, const char *registry, const char *digest) {
    int rc = buf_adds(b, "{\"registryId\":");
    if (!rc) rc = jsonw_cstr(b, registry);
    if (!rc) rc = buf_adds(b, ",\"repositoryName\":\"" ECRSRV_REPOSITORY "\",\"imageDigest\":");
    if (!rc) rc = jsonw_cstr(b, digest);
    if (!rc)
        rc = buf_addf(b,
                      ",\"imageTags\":[\"" ECRSRV_TAG "\"],\"imageSizeInBytes\":%lld,"
                      "\"imagePushedAt\":%d,\"imageManifestMediaType\":"
                      "\"application/vnd.docker.distribution.manifest.v2+json\","
                      "\"artifactMediaType\":\"application/vnd.docker.container.image.v1+json\"}",
                      ECRSRV_SIZE, ECRSRV_PUSHED_AT);
    return rc;
}

/* Whether s is an account id as ECR's registryId pattern [0-9]{12} has it. */
static bool ecrsrv_registry_ok(const char *s) {
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9') n++;
    return n == 12 && !s[n];
}

/* The images the request names, or its error, into r. */
static int ecrsrv_images(const cJSON *req, const char *account, struct cplane_reply *r) {
    char digest[72];
    ecrsrv_digest(digest);
    const cJSON *repo = cJSON_GetObjectItemCaseSensitive(req, "repositoryName");
    const cJSON *reg = cJSON_GetObjectItemCaseSensitive(req, "registryId");
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(req, "imageIds");
    const char *registry = cJSON_IsString(reg) ? reg->valuestring : account;
    if (!cJSON_IsString(repo))
        return ecrsrv_fail(r, "InvalidParameterException",
                           "1 validation error detected: Value null at 'repositoryName' failed "
                           "to satisfy constraint: Member must not be null");
    if (reg && (!cJSON_IsString(reg) || !ecrsrv_registry_ok(reg->valuestring)))
        return ecrsrv_fail(r, "InvalidParameterException",
                           "Invalid parameter at 'registryId' failed to satisfy constraint: "
                           "'must satisfy regular expression '[0-9]{12}''");
    if (strcmp(repo->valuestring, ECRSRV_REPOSITORY) != 0)
        return ecrsrv_fail(r, "RepositoryNotFoundException",
                           "The repository with name '%.100s' does not exist in the registry "
                           "with id '%s'",
                           repo->valuestring, registry);
    const cJSON *id;
    const cJSON *list = cJSON_IsArray(ids) ? ids : NULL;
    cJSON_ArrayForEach(id, list) {
        const cJSON *tag = cJSON_GetObjectItemCaseSensitive(id, "imageTag");
        const cJSON *dg = cJSON_GetObjectItemCaseSensitive(id, "imageDigest");
        bool ok = (cJSON_IsString(tag) || cJSON_IsString(dg)) &&
                  (!cJSON_IsString(tag) || strcmp(tag->valuestring, ECRSRV_TAG) == 0) &&
                  (!cJSON_IsString(dg) || strcmp(dg->valuestring, digest) == 0);
        if (!ok)
            return ecrsrv_fail(r, "ImageNotFoundException",
                               "The image with imageId {imageDigest:'%.80s', imageTag:'%.128s'} "
                               "does not exist within the repository with name '" ECRSRV_REPOSITORY
                               "' in the registry with id '%s'",
                               cJSON_IsString(dg) ? dg->valuestring : "null",
                               cJSON_IsString(tag) ? tag->valuestring : "null", registry);
    }
    struct buf *b = &r->body;
    int rc = buf_adds(b, "{\"imageDetails\":[");
    if (!rc) rc = ecrsrv_detail(b, registry, digest);
    if (!rc) rc = buf_adds(b, "]}");
    return rc ? CPLANE_ERR_NOMEM : CPLANE_OK;
}

int ecrsrv_call(const char *op, const char *body, size_t len, const char *account,
                struct cplane_reply *r) {
    buf_reset(&r->body);
    r->status = 200;
    r->type = NULL;
    int rc;
    if (strcmp(op, "DescribeImages") != 0) {
        rc = ecrsrv_fail(r, "UnknownOperationException",
                         "sm-emulator serves no ECR operation %.64s (DescribeImages only)", op);
    } else {
        cJSON *req = cJSON_ParseWithLength(body, len);
        rc = cJSON_IsObject(req) ? ecrsrv_images(req, account, r)
                                 : ecrsrv_fail(r, "SerializationException",
                                               "the request body is not a JSON object");
        cJSON_Delete(req);
    }
    if (rc) {
        buf_reset(&r->body);
        r->status = 500;
        r->type = "InternalFailure";
    }
    return rc;
}
