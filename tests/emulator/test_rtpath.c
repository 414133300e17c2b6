/* The request paths of SageMaker Runtime, as rows: each target read as its
 * api, endpoint and inference component, or as none of them. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "rtpath.h"

static const struct {
    const char *target;
    enum rtpath_api api;
    const char *name, *component;
} rows[] = {
    {"/endpoints/ep/invocations", RTPATH_INVOKE, "ep", NULL},
    {"/endpoints/ep/invocations?x=1", RTPATH_INVOKE, "ep", NULL},
    {"/endpoints/bad_name/invocations", RTPATH_INVOKE, "bad_name", NULL}, /* checked later */
    {"/endpoints/ep/invocations-response-stream", RTPATH_STREAM, "ep", NULL},
    {"/endpoints/ep/openai/v1/chat/completions", RTPATH_OPENAI, "ep", NULL},
    {"/endpoints/ep/inference-components/ic-1/openai/v1/chat/completions", RTPATH_OPENAI, "ep",
     "ic-1"},
    {"/endpoints/ep/openai/v1/chat/completions?stream=1", RTPATH_OPENAI, "ep", NULL},
    {"/endpoints//invocations", RTPATH_NONE, NULL, NULL},
    {"/endpoints/a/b/invocations", RTPATH_NONE, NULL, NULL},
    {"/endpoints/ep/openai/v1/completions", RTPATH_NONE, NULL, NULL},
    {"/endpoints/ep/openai/v1/models", RTPATH_NONE, NULL, NULL},
    {"/endpoints/ep/inference-components//openai/v1/chat/completions", RTPATH_NONE, NULL, NULL},
    {"/endpoints/ep/inference-components/a/b/openai/v1/chat/completions", RTPATH_NONE, NULL, NULL},
    {"/endpoints/ep/components/ic/openai/v1/chat/completions", RTPATH_NONE, NULL, NULL},
    {"/endpoints/openai/v1/chat/completions", RTPATH_NONE, NULL, NULL},
    {"/endpoints/ep/invocations-response-streams", RTPATH_NONE, NULL, NULL},
    {"/ping", RTPATH_NONE, NULL, NULL},
    {"/endpoints/", RTPATH_NONE, NULL, NULL},
};

int main(void) {
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct rtpath p;
        bool ok = rtpath_parse(rows[i].target, strlen(rows[i].target), &p);
        if (ok != (rows[i].api != RTPATH_NONE)) fprintf(stderr, "row %zu: %s\n", i, rows[i].target);
        CHECK_INT(ok, rows[i].api != RTPATH_NONE);
        CHECK_INT(p.api, rows[i].api);
        if (rows[i].name)
            CHECK(p.name_len == strlen(rows[i].name) &&
                  memcmp(p.name, rows[i].name, p.name_len) == 0);
        if (rows[i].component)
            CHECK(p.component_len == strlen(rows[i].component) &&
                  memcmp(p.component, rows[i].component, p.component_len) == 0);
        else
            CHECK(p.component == NULL);
    }
    CHECK_STR(rtpath_name(RTPATH_STREAM), "stream");
    CHECK_STR(rtpath_name(RTPATH_OPENAI), "openai");
    CHECK(rtpath_name(RTPATH_NONE) == NULL);
    return check_exit();
}
