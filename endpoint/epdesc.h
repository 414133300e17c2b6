/* epdesc: reads the replies of the calls sm-endpoint makes: DescribeEndpoint,
 * DescribeEndpointConfig, a ListEndpoints page, a ListServiceQuotas page, a
 * FilterLogEvents page, and the AWS vLLM container's chat reply. Replies are
 * outside input: bounded by the caller, every member checked for its type, and
 * every string kept is scrubbed of the process's secrets (common/scrub.h),
 * made one line (control characters become spaces) and cut to its field. A
 * member of the wrong type is an error naming it; a missing optional one is
 * left empty. Pure: no I/O. */
#ifndef SM_EPDESC_H
#define SM_EPDESC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"

#define EPDESC_NAME_MAX     64
#define EPDESC_TYPE_MAX     48
#define EPDESC_MAX_VARIANTS 10
#define EPDESC_MAX_POOLS    5

enum epdesc_error {
    EPDESC_OK = 0,
    EPDESC_ERR_REPLY = -1, /* not the reply expected: err names the member */
    EPDESC_ERR_NOMEM = -2,
};

/* A production variant as DescribeEndpoint summarizes it. */
struct epdesc_variant {
    char name[EPDESC_NAME_MAX];
    long current_count, desired_count; /* -1 when absent */
    double weight;                     /* CurrentWeight, -1 when absent */
    char placed[EPDESC_TYPE_MAX]; /* the instance pool holding its instances ("" without pools) */
    char image[256];              /* DeployedImages[0].SpecifiedImage, or "" */
};

struct epdesc_endpoint {
    char name[EPDESC_NAME_MAX];
    char config[EPDESC_NAME_MAX];
    char status[32];
    char failure[1024];       /* FailureReason, or "" */
    double created, modified; /* Unix seconds, 0 when absent */
    struct epdesc_variant v[EPDESC_MAX_VARIANTS];
    size_t n_v;
};

/* A production variant of an endpoint config. */
struct epdesc_cvariant {
    char name[EPDESC_NAME_MAX], model[EPDESC_NAME_MAX];
    long count;
    bool pools; /* InstancePools (types in priority order), else InstanceType */
    char types[EPDESC_MAX_POOLS][EPDESC_TYPE_MAX];
    size_t n_types;
};

struct epdesc_config {
    char name[EPDESC_NAME_MAX];
    struct epdesc_cvariant v[EPDESC_MAX_VARIANTS];
    size_t n_v;
};

struct epdesc_summary {
    char name[EPDESC_NAME_MAX];
    char status[32];
    double created;
};

struct epdesc_quota {
    char name[128];
    char code[32];
    double value;
};

/* Each returns 0, or EPDESC_ERR_* with one line in err. */
__attribute__((warn_unused_result)) int
epdesc_endpoint(const char *json, size_t len, struct epdesc_endpoint *out, struct buf *err);
__attribute__((warn_unused_result)) int epdesc_config(const char *json, size_t len,
                                                      struct epdesc_config *out, struct buf *err);
/* Appends the page's endpoints to list (of max, *n so far); more than max is an error. */
__attribute__((warn_unused_result)) int epdesc_list(const char *json, size_t len,
                                                    struct epdesc_summary *list, size_t max,
                                                    size_t *n, struct buf *err);
/* Appends the page's quotas to list (of max, *n so far); past max they are skipped. */
__attribute__((warn_unused_result)) int epdesc_quotas(const char *json, size_t len,
                                                      struct epdesc_quota *list, size_t max,
                                                      size_t *n, struct buf *err);

/* Receives one log event: its time (Unix seconds) and message (one line). */
typedef int epdesc_event_fn(void *ud, double t, const char *message);
/* Hands the page's events to fn in order; a non-zero return of fn stops and is returned. */
__attribute__((warn_unused_result)) int epdesc_logs(const char *json, size_t len,
                                                    epdesc_event_fn *fn, void *ud, struct buf *err);

/* The chat reply's choices[0].message.content (or choices[0].text) into text
 * (emptied first; at most max bytes kept), model, finish reason and usage. */
struct epdesc_chat {
    char model[256];
    char finish[32];
    long prompt_tokens, completion_tokens; /* -1 when absent */
};
__attribute__((warn_unused_result)) int epdesc_chat(const char *json, size_t len, size_t max,
                                                    struct buf *text, struct epdesc_chat *out,
                                                    struct buf *err);

/* Copies n bytes of outside text into dst (size bytes): scrubbed, one line,
 * cut before a UTF-8 character with "..." when longer. */
void epdesc_clean(char *dst, size_t size, const char *src, size_t n);

/* An endpoint's state as JSON (endpoint, region, status, config, failure_reason,
 * elapsed_s, variants with their instances and placed type), for a tool's
 * result; NULL when out of memory. */
cJSON *epdesc_endpoint_json(const struct epdesc_endpoint *d, const char *region, double elapsed_s);

#endif
