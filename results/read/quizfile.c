#include "quizfile.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "quiz.h"
#include "rfile.h"

static char *quizfile_field(const cJSON *o, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

static int quizfile_question(const cJSON *o, struct quizfile_question *q, const char *path,
                             size_t i, struct buf *err) {
    char *pattern = quizfile_field(o, "pattern");
    q->id = quizfile_field(o, "id");
    q->kind = quizfile_field(o, "kind");
    q->answer = quizfile_field(o, "answer");
    if (!q->id || !q->answer || !pattern) {
        free(pattern);
        return buf_fail(err, QUIZFILE_ERR_INPUT,
                        "%s: question %zu needs the strings id, answer and pattern", path, i + 1);
    }
    struct buf why;
    buf_init(&why, 256);
    int rc = quiz_re_compile(pattern, strlen(pattern), &q->re, &why);
    free(pattern);
    if (rc == QUIZ_ERR_NOMEM)
        rc = buf_fail(err, QUIZFILE_ERR_NOMEM, "out of memory");
    else if (rc)
        rc = buf_fail(err, QUIZFILE_ERR_INPUT, "%s: question %s: bad pattern at %s", path, q->id,
                      buf_str(&why));
    buf_free(&why);
    return rc;
}

int quizfile_read(const char *path, struct quizfile **out, struct buf *err) {
    struct rfile_map m = {0};
    cJSON *doc = NULL;
    int rc = QUIZFILE_ERR_NOMEM;
    struct quizfile *qz = calloc(1, sizeof *qz);
    *out = NULL;
    if (!qz || !(qz->path = strdup(path))) {
        rc = buf_fail(err, QUIZFILE_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (rfile_map_open(path, &m, err) < 0) {
        rc = QUIZFILE_ERR_READ;
        goto done;
    }
    doc = cJSON_ParseWithLength(m.data ? m.data : "", m.len);
    const cJSON *qs = cJSON_GetObjectItemCaseSensitive(doc, "questions");
    if (!cJSON_IsArray(qs)) {
        rc =
            buf_fail(err, QUIZFILE_ERR_INPUT, "%s: not a quiz file (no \"questions\" array)", path);
        goto done;
    }
    size_t n = (size_t)cJSON_GetArraySize(qs);
    if (!(qz->q = calloc(n ? n : 1, sizeof *qz->q))) {
        rc = buf_fail(err, QUIZFILE_ERR_NOMEM, "out of memory");
        goto done;
    }
    const cJSON *o;
    rc = QUIZFILE_OK;
    cJSON_ArrayForEach(o, qs) {
        struct quizfile_question *q = &qz->q[qz->n++];
        if ((rc = quizfile_question(o, q, path, qz->n - 1, err)) < 0) break;
    }
done:
    cJSON_Delete(doc);
    rfile_map_close(&m);
    if (rc < 0) {
        quizfile_free(qz);
        return rc;
    }
    *out = qz;
    return QUIZFILE_OK;
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
