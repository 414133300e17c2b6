/* smname: SageMaker's naming rules and the project's own, in one place for every
 * program: endpoint and variant names, the labels that name result files and
 * folders, and the region of a SageMaker Runtime host. Pure C. */
#ifndef SM_SMNAME_H
#define SM_SMNAME_H

#include <stdbool.h>
#include <stddef.h>

#define SMNAME_MAX       63 /* an endpoint or variant name, at most */
#define SMNAME_LABEL_MAX 64

/* SageMaker's rule for endpoint, variant, model and config names:
 * ^[a-zA-Z0-9](-*[a-zA-Z0-9])*, 1 to 63 characters. */
bool smname_endpoint_ok(const char *s, size_t n);

/* A label names a result file or a run folder: 1 to 64 letters, digits, '-', '_'
 * and '.', not starting with '.' (so never ".", ".." or a hidden file). */
bool smname_label_ok(const char *s, size_t n);

/* The region of a SageMaker Runtime host, runtime.sagemaker.REGION.amazonaws.com
 * (also runtime-fips.sagemaker... and ...amazonaws.com.cn), any case: copied
 * lower-case into out (size at least 64) and true; false for any other host. */
bool smname_region_of_host(const char *host, size_t n, char out[64]);

#endif
