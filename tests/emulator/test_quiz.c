/* The quiz through the container path: every question of the reference quiz
 * answered right by default; bf16-l4 and qat-l4 each score 37/40 and disagree
 * on exactly the article's five questions. Args: QUIZ_JSON ARTICLE_JSON. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ans.h"
#include "check.h"
#include "cont.h"
#include "readall.h"

static cJSON *load(const char *path) {
    struct buf text;
    buf_init(&text, BUF_NO_CAP);
    cJSON *j = readall_path(path, &text) ? NULL : cJSON_Parse(buf_str(&text));
    buf_free(&text);
    if (!j) fprintf(stderr, "cannot read %s\n", path);
    return j;
}

/* The reply text of profile p to a quiz prompt sent as the reference does. */
static void reply_to(const struct model_profile *p, const char *prompt, struct buf *out) {
    cJSON *body = cJSON_CreateObject(), *msgs = cJSON_AddArrayToObject(body, "messages");
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", "user");
    cJSON_AddStringToObject(m, "content", prompt);
    cJSON_AddItemToArray(msgs, m);
    cJSON_AddNumberToObject(body, "max_tokens", 64);
    cJSON_AddNumberToObject(body, "temperature", 0);
    char *text = cJSON_PrintUnformatted(body);
    struct cont_request r;
    struct cont_answer a;
    struct buf err;
    int status = 0;
    cont_request_init(&r);
    cont_answer_init(&a);
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(cont_parse(p, "application/json", text, strlen(text), &r, &status, &err), CONT_OK);
    CHECK_INT(cont_answer(p, &r, &a), CONT_OK);
    buf_reset(out);
    CHECK_INT(buf_adds(out, buf_str(&a.text)), 0);
    CHECK(!a.hit_length);
    cont_request_free(&r);
    cont_answer_free(&a);
    buf_free(&err);
    cJSON_free(text);
    cJSON_Delete(body);
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    cJSON *quiz = load(argv[1]), *article = load(argv[2]);
    if (!quiz || !article) return 2;
    const cJSON *questions = cJSON_GetObjectItem(quiz, "questions"), *q;
    const cJSON *dis =
        cJSON_GetObjectItem(cJSON_GetObjectItem(article, "results"), "disagreements");
    struct model_profile bf16, qat, plain;
    CHECK_INT(model_builtin("bf16-l4", &bf16), 0);
    CHECK_INT(model_builtin("qat-l4", &qat), 0);
    CHECK_INT(model_builtin("instant", &plain), 0);
    struct buf rb, rq, rp;
    buf_init(&rb, BUF_NO_CAP);
    buf_init(&rq, BUF_NO_CAP);
    buf_init(&rp, BUF_NO_CAP);
    int right_bf16 = 0, right_qat = 0, identical = 0, n = 0, disagreements = 0;
    cJSON_ArrayForEach(q, questions) {
        const char *id = cJSON_GetObjectItem(q, "id")->valuestring;
        const char *prompt = cJSON_GetObjectItem(q, "prompt")->valuestring;
        const char *answer = cJSON_GetObjectItem(q, "answer")->valuestring;
        struct ans_question parsed;
        CHECK(ans_parse(prompt, strlen(prompt), &parsed));
        reply_to(&plain, prompt, &rp);
        reply_to(&bf16, prompt, &rb);
        reply_to(&qat, prompt, &rq);
        CHECK_STR(buf_str(&rp), answer);
        right_bf16 += strcmp(buf_str(&rb), answer) == 0;
        right_qat += strcmp(buf_str(&rq), answer) == 0;
        n++;
        if (strcmp(buf_str(&rb), buf_str(&rq)) == 0) {
            identical++;
            continue;
        }
        const cJSON *d;
        bool listed = false;
        cJSON_ArrayForEach(d, dis) {
            if (strcmp(cJSON_GetObjectItem(d, "id")->valuestring, id) != 0) continue;
            listed = true;
            CHECK_STR(buf_str(&rb), cJSON_GetObjectItem(d, "bf16")->valuestring);
            CHECK_STR(buf_str(&rq), cJSON_GetObjectItem(d, "qat")->valuestring);
        }
        CHECK(listed);
        disagreements++;
    }
    CHECK_INT(n, 40);
    CHECK_INT(right_bf16, 37);
    CHECK_INT(right_qat, 37);
    CHECK_INT(identical, 35);
    CHECK_INT(disagreements, cJSON_GetArraySize(dis));
    struct ans_question none;
    CHECK(!ans_parse("Tell me a story.", 16, &none));
    CHECK(!ans_parse("What is 5 / 3? Reply.", 21, &none));
    model_free(&bf16);
    model_free(&qat);
    model_free(&plain);
    buf_free(&rb);
    buf_free(&rq);
    buf_free(&rp);
    cJSON_Delete(quiz);
    cJSON_Delete(article);
    return check_exit();
}
