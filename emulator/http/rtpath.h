/* rtpath: the request paths of SageMaker Runtime that the emulator serves, read
 * from a request target (a query string is ignored). Pure.
 *
 *   /endpoints/NAME/invocations                         InvokeEndpoint
 *   /endpoints/NAME/invocations-response-stream         InvokeEndpointWithResponseStream
 *   /endpoints/NAME/openai/v1/chat/completions          the OpenAI-compatible route
 *   /endpoints/NAME/inference-components/IC/openai/v1/chat/completions   the same, for an
 *                                                       inference component
 * NAME and IC are one path segment each (no '/'), not empty; their SageMaker
 * naming rules are checked by the caller, which words the refusal. */
#ifndef EMU_RTPATH_H
#define EMU_RTPATH_H

#include <stdbool.h>
#include <stddef.h>

enum rtpath_api {
    RTPATH_NONE = 0, /* not one of the paths above */
    RTPATH_INVOKE,
    RTPATH_STREAM,
    RTPATH_OPENAI,
};

/* A path read. Spans point into the target. */
struct rtpath {
    enum rtpath_api api;
    const char *name; /* the endpoint */
    size_t name_len;
    const char *component; /* the inference component of the OpenAI path, or NULL */
    size_t component_len;
};

/* Reads target[0..len) into p; false (p->api RTPATH_NONE) when it is none of the paths. */
bool rtpath_parse(const char *target, size_t len, struct rtpath *p);

/* The api's name in the request log and result files: "invoke", "stream",
 * "openai"; NULL for RTPATH_NONE. */
const char *rtpath_name(enum rtpath_api api);

#endif
