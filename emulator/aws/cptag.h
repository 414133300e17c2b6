/* cptag: the tags of the control plane's resources, as SageMaker keeps them:
 * the Tags list of CreateModel, CreateEndpointConfig and CreateEndpoint, and
 * AddTags, ListTags and DeleteTags on a resource's ARN (README, "Control
 * plane"). Reads a request's Tags and TagKeys and checks them with the
 * service's limits (botocore's sagemaker/2017-07-24: at most 50 tags a
 * request and a resource, keys of 1 to 128 bytes not beginning with "aws:",
 * values of at most 256 bytes, of letters, digits, spaces and _.:/=+-@),
 * writes ListTags' page, and splits an ARN into its region, account, resource
 * type and name. Pure; a list owns its strings. */
#ifndef EMU_CPTAG_H
#define EMU_CPTAG_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"

#define CPTAG_MAX       50  /* tags of a request, and of a resource */
#define CPTAG_KEY_MAX   128 /* bytes of a key */
#define CPTAG_VALUE_MAX 256 /* bytes of a value */
#define CPTAG_PAGE_MIN  50  /* ListTags' least MaxResults, and its default */
#define CPTAG_ARN_MAX   256 /* bytes of a ResourceArn */
#define CPTAG_PART_MAX  64  /* bytes of an ARN's region, account, type or name, with the NUL */

enum cptag_error {
    CPTAG_OK = 0,
    CPTAG_ERR_VALIDATION = -1,    /* ValidationException: err holds the message */
    CPTAG_ERR_SERIALIZATION = -2, /* SerializationException: a member of the wrong type */
    CPTAG_ERR_NOMEM = -3,
};

/* A resource's tags in the order they were added (strings malloc'ed). */
struct cptag_list {
    size_t n;
    char *key[CPTAG_MAX];
    char *value[CPTAG_MAX];
};

/* Frees the strings and empties l. */
void cptag_free(struct cptag_list *l);

/* Reads req's "Tags" ([{"Key", "Value"}], absent: none) into l (emptied
 * first; a key given twice keeps its last value). Returns 0, or a
 * CPTAG_ERR_* with the service's message in err. */
__attribute__((warn_unused_result)) int cptag_read(const cJSON *req, struct cptag_list *l,
                                                   struct buf *err);

/* Moves src's tags into dst (a key dst holds takes src's value), emptying
 * src: 0, or CPTAG_ERR_VALIDATION when dst would hold more than CPTAG_MAX
 * (dst unchanged), or CPTAG_ERR_NOMEM. */
__attribute__((warn_unused_result)) int cptag_merge(struct cptag_list *dst, struct cptag_list *src,
                                                    struct buf *err);

/* Removes the keys of req's "TagKeys" (1 to 50 keys, required) from l; a
 * key l lacks is no error. Returns 0 or a CPTAG_ERR_* (l unchanged). */
__attribute__((warn_unused_result)) int cptag_delete(const cJSON *req, struct cptag_list *l,
                                                     struct buf *err);

/* ListTags' page: *start from NextToken (0 without), *max from MaxResults
 * (at least CPTAG_PAGE_MIN, which is also the default). Returns 0 or a
 * CPTAG_ERR_*. */
__attribute__((warn_unused_result)) int cptag_page(const cJSON *req, long *start, long *max,
                                                   struct buf *err);

/* Appends the members "Tags" (l's tags from start, at most max) and, when more
 * follow, "NextToken". Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cptag_json(struct buf *out, const struct cptag_list *l,
                                                   long start, long max);

/* The parts of an ARN "arn:aws:sagemaker:REGION:ACCOUNT:TYPE/NAME". */
struct cptag_arn {
    char region[CPTAG_PART_MAX];
    char account[CPTAG_PART_MAX];
    char type[CPTAG_PART_MAX]; /* "model", "endpoint-config", "endpoint", ... */
    char name[CPTAG_PART_MAX];
};

/* Reads req's "ResourceArn" (required) into a. Returns 0, or
 * CPTAG_ERR_VALIDATION when it is missing or not a SageMaker ARN of that
 * form, or CPTAG_ERR_SERIALIZATION. */
__attribute__((warn_unused_result)) int cptag_resource(const cJSON *req, struct cptag_arn *a,
                                                       struct buf *err);

#endif
