/* Fuzzes the timeline sampler's readers of DescribeScalingActivities and
 * DescribeInferenceComponent replies (endpoint/eptimeline.h). Input: the
 * reply's bytes, read as both.
 *
 * Whatever comes in: no crash; a read either fails with one line or gives at
 * most the room's activities, each with an id and a start time, its strings
 * one line within their fields; the sample they make is written as one line
 * of valid JSON ending in a newline. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "eptimeline.h"

static void fuzz_line(const char *s, size_t size) {
    size_t n = strnlen(s, size);
    if (n == size) abort(); /* not terminated within its field */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct eptimeline_sample *s = calloc(1, sizeof *s);
    struct buf err, line;
    buf_init(&err, 4096);
    buf_init(&line, BUF_NO_CAP);
    if (!s) abort();
    s->current = s->desired = -1;
    int rc = eptimeline_activities((const char *)data, size, s->a, 3, &s->n_a, &err);
    if (rc) {
        if (rc != EPTIMELINE_ERR_REPLY || s->n_a || !err.len || memchr(err.data, '\n', err.len))
            abort();
    } else {
        if (s->n_a > 3) abort();
        for (size_t i = 0; i < s->n_a; i++) {
            fuzz_line(s->a[i].id, sizeof s->a[i].id);
            fuzz_line(s->a[i].status, sizeof s->a[i].status);
            fuzz_line(s->a[i].description, sizeof s->a[i].description);
            if (!s->a[i].id[0] || !(s->a[i].start > 0)) abort();
        }
        if (eptimeline_json(s, &line) || !line.len || line.data[line.len - 1] != '\n' ||
            memchr(line.data, '\n', line.len - 1))
            abort();
        cJSON *j = cJSON_ParseWithLength(line.data, line.len);
        if (!cJSON_IsObject(j)) abort();
        cJSON_Delete(j);
    }
    buf_reset(&err);
    rc = eptimeline_component((const char *)data, size, s, &err);
    if (rc) {
        if (rc != EPTIMELINE_ERR_REPLY || !err.len || memchr(err.data, '\n', err.len)) abort();
    } else {
        fuzz_line(s->component, sizeof s->component);
        fuzz_line(s->component_status, sizeof s->component_status);
        if (!s->component[0] || !s->endpoint[0] || !s->variant[0]) abort();
        if (s->copies < -1 || s->desired_copies < -1) abort();
    }
    free(s);
    buf_free(&err);
    buf_free(&line);
    return 0;
}
