/* ecrsrv: Amazon ECR's DescribeImages over AWS JSON 1.1 (X-Amz-Target
 * AmazonEC2ContainerRegistry_V20150921.DescribeImages, signing name ecr), for the
 * image a SageMaker vLLM endpoint runs: repository ECRSRV_REPOSITORY, tag
 * ECRSRV_TAG (tools/endpoint-facts.json's "images"; the control plane's test
 * checks the two agree), in whatever registry the request names (the AWS Deep
 * Learning Containers' account of the region; none: the emulator's account).
 * The reply, as ECR's:
 *   {"imageDetails": [{"registryId", "repositoryName", "imageDigest": "sha256:...",
 *     "imageTags": [...], "imageSizeInBytes", "imagePushedAt" (epoch seconds),
 *     "imageManifestMediaType", "artifactMediaType"}]}
 * every image without imageIds, else the ones named (imageTag or imageDigest). The
 * digest, size and push date are the emulator's own, stable from run to run.
 * Errors as ECR writes them ({"__type", "message"}, 400): RepositoryNotFoundException,
 * ImageNotFoundException (an imageId that is not there), InvalidParameterException
 * (no repositoryName, or a registryId that is not 12 digits, ECR's pattern).
 * Pure. */
#ifndef EMU_ECRSRV_H
#define EMU_ECRSRV_H

#include <stddef.h>

#include "cplane.h"

#define ECRSRV_REPOSITORY "vllm"
#define ECRSRV_TAG        "0.14.0-gpu-py312-cu129-ubuntu22.04-sagemaker"

/* Answers AmazonEC2ContainerRegistry_V20150921.<op> with the JSON body[0..len) for
 * account into r (r->body emptied first). Returns 0 or CPLANE_ERR_NOMEM (r: a 500). */
__attribute__((warn_unused_result)) int ecrsrv_call(const char *op, const char *body, size_t len,
                                                    const char *account, struct cplane_reply *r);

#endif
