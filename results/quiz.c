#include "quiz.h"

#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <cjson/cJSON.h>
#include <pcre2.h>

#include "rfile.h"

static char *dup_field(const cJSON *o, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

static int read_question(const cJSON *o, struct quiz_question *q, const char *path, size_t i,
                         struct diag *d) {
    char *pattern = dup_field(o, "pattern");
    q->id = dup_field(o, "id");
    q->kind = dup_field(o, "kind");
    q->answer = dup_field(o, "answer");
    if (!q->id || !q->answer || !pattern) {
        free(pattern);
        return diag_error(d, "%s: question %zu needs the strings id, answer and pattern", path,
                          i + 1);
    }
    int err;
    PCRE2_SIZE off;
    q->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                          PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &err, &off, NULL);
    free(pattern);
    if (!q->re) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(err, msg, sizeof msg);
        return diag_error(d, "%s: question %s: bad pattern at offset %zu: %s", path, q->id,
                          (size_t)off, (char *)msg);
    }
    return 0;
}

int quiz_read(const char *path, struct quiz **out, struct diag *d) {
    struct rmap m = {0};
    cJSON *doc = NULL;
    struct quiz *qz = calloc(1, sizeof *qz);
    if (!qz || !(qz->path = strdup(path))) {
        diag_error(d, "out of memory");
        goto fail;
    }
    if (rfile_map(path, &m, d) < 0) goto fail;
    doc = cJSON_ParseWithLength(m.data ? m.data : "", m.len);
    const cJSON *qs = cJSON_GetObjectItemCaseSensitive(doc, "questions");
    if (!cJSON_IsArray(qs)) {
        diag_error(d, "%s: not a quiz file (no \"questions\" array)", path);
        goto fail;
    }
    size_t n = (size_t)cJSON_GetArraySize(qs);
    if (!(qz->q = calloc(n ? n : 1, sizeof *qz->q))) {
        diag_error(d, "out of memory");
        goto fail;
    }
    const cJSON *o;
    cJSON_ArrayForEach(o, qs) {
        struct quiz_question *q = &qz->q[qz->n++];
        if (read_question(o, q, path, qz->n - 1, d) < 0) goto fail;
    }
    cJSON_Delete(doc);
    rfile_unmap(&m);
    *out = qz;
    return 0;
fail:
    cJSON_Delete(doc);
    rfile_unmap(&m);
    quiz_free(qz);
    return -1;
}

void quiz_free(struct quiz *qz) {
    if (!qz) return;
    for (size_t i = 0; i < qz->n; i++) {
        free(qz->q[i].id);
        free(qz->q[i].kind);
        free(qz->q[i].answer);
        pcre2_code_free(qz->q[i].re);
    }
    free(qz->q);
    free(qz->path);
    free(qz);
}

const struct quiz_question *quiz_find(const struct quiz *qz, const char *id) {
    for (size_t i = 0; qz && i < qz->n; i++)
        if (strcmp(qz->q[i].id, id) == 0) return &qz->q[i];
    return NULL;
}

int quiz_score(const struct quiz_question *q, const char *reply) {
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(q->re, NULL);
    if (!md) return 0;
    int rc = pcre2_match(q->re, (PCRE2_SPTR)reply, strlen(reply), 0, 0, md, NULL);
    pcre2_match_data_free(md);
    return rc > 0;
}
