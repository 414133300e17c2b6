#include "quizfile.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "quiz.h"
#include "rfile.h"

static char *dup_field(const cJSON *o, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

static int read_question(const cJSON *o, struct quizfile_question *q, const char *path, size_t i,
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
    struct buf why;
    buf_init(&why, 256);
    int rc = quiz_re_compile(pattern, strlen(pattern), &q->re, &why);
    free(pattern);
    if (rc == QUIZ_ERR_NOMEM)
        diag_error(d, "out of memory");
    else if (rc)
        diag_error(d, "%s: question %s: bad pattern at %s", path, q->id, buf_str(&why));
    buf_free(&why);
    return rc ? -1 : 0;
}

int quizfile_read(const char *path, struct quizfile **out, struct diag *d) {
    struct rmap m = {0};
    cJSON *doc = NULL;
    struct quizfile *qz = calloc(1, sizeof *qz);
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
        struct quizfile_question *q = &qz->q[qz->n++];
        if (read_question(o, q, path, qz->n - 1, d) < 0) goto fail;
    }
    cJSON_Delete(doc);
    rfile_unmap(&m);
    *out = qz;
    return 0;
fail:
    cJSON_Delete(doc);
    rfile_unmap(&m);
    quizfile_free(qz);
    return -1;
}

void quizfile_free(struct quizfile *qz) {
    if (!qz) return;
    for (size_t i = 0; i < qz->n; i++) {
        free(qz->q[i].id);
        free(qz->q[i].kind);
        free(qz->q[i].answer);
        quiz_re_free(qz->q[i].re);
    }
    free(qz->q);
    free(qz->path);
    free(qz);
}

const struct quizfile_question *quizfile_find(const struct quizfile *qz, const char *id) {
    for (size_t i = 0; qz && i < qz->n; i++)
        if (strcmp(qz->q[i].id, id) == 0) return &qz->q[i];
    return NULL;
}

int quizfile_score(const struct quizfile_question *q, const char *reply) {
    bool found = false;
    return quiz_re_search(q->re, reply, strlen(reply), &found) == QUIZ_OK && found;
}
