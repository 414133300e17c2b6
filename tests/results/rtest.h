/* rtest: what sm-compare's unit tests share: files written into a private
 * temporary directory, result files built from a few records, and a side read
 * from such files. */
#ifndef SM_RTEST_H
#define SM_RTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "side.h"

/* The path of name in the test's temporary directory (made on first use). */
static inline const char *rtest_path(const char *name) {
    static char dir[64];
    static char paths[8][512];
    static int next;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/sm-rtest.XXXXXX");
        if (!mkdtemp(dir)) abort();
    }
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

/* Writes n bytes to name in the temporary directory; returns its path. */
static inline const char *rtest_write_n(const char *name, const char *text, size_t n) {
    const char *path = rtest_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, n, f) != n || fclose(f) != 0) abort();
    return path;
}

static inline const char *rtest_write(const char *name, const char *text) {
    return rtest_write_n(name, text, strlen(text));
}

/* A result file's head (format 1, wrk-sagemaker 0.1.0) with the given scenario,
 * label, time_scale and settings (a JSON object's text), then the records
 * (JSON objects separated by commas). */
static inline const char *rtest_result(const char *name, const char *scenario, const char *label,
                                       const char *scale, const char *settings,
                                       const char *records) {
    static char text[1 << 16];
    snprintf(text, sizeof text,
             "{\"format\": \"wrk-sagemaker-result\", \"version\": 1, \"tool\": \"wrk-sagemaker "
             "0.1.0\", \"scenario\": \"%s\", \"run_id\": \"run-%s\", \"label\": \"%s\", "
             "\"endpoint\": {\"name\": \"ep\"}, \"time_scale\": %s, \"partial\": false, "
             "\"settings\": %s, \"records\": [%s]}",
             scenario, name, label, scale, settings, records);
    return rtest_write(name, text);
}

/* One record's text: phase, batch, max_tokens, start and end (microseconds), ok. */
static inline const char *rtest_rec(const char *phase, int batch, int tokens, long start, long end,
                                    int ok) {
    static char recs[64][512];
    static int next;
    char *r = recs[next++ % 64];
    snprintf(r, sizeof recs[0],
             "{\"seq\": 0, \"phase\": \"%s\", \"batch\": %d, \"max_tokens\": %d, "
             "\"completion_tokens\": %s, \"status\": %d, \"ok\": %s, \"error\": %s, "
             "\"t_start_us\": %ld, \"t_end_us\": %ld, \"wall_start_us\": %ld}",
             phase, batch, tokens, "null", ok ? 200 : 503, ok ? "true" : "false",
             ok ? "null" : "{\"code\": \"ServiceUnavailable\", \"message\": \"busy\"}", start, end,
             1764496800000000L + start);
    if (ok) { /* completion_tokens as asked */
        char *p = strstr(r, "\"completion_tokens\": null");
        char tail[512];
        snprintf(tail, sizeof tail, "%s", p + strlen("\"completion_tokens\": null"));
        snprintf(p, sizeof recs[0] - (size_t)(p - r), "\"completion_tokens\": %d%s", tokens, tail);
    }
    return r;
}

/* Reads the files of one side into s (role "baseline" or "candidate"); returns the code. */
static inline int rtest_side(struct side *s, const char *role, char **paths, size_t n,
                             struct warnings *w, struct buf *err) {
    struct inputs in;
    int rc = inputs_read(paths, n, NULL, NULL, NULL, &in, w, err);
    if (rc == 0) return side_build(s, role, &in, w, err);
    inputs_free(&in);
    memset(s, 0, sizeof *s);
    return rc;
}

#endif
