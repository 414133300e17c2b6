/* The recorder: journals, result files with every documented field, counts. */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "record.h"

static char dir[] = "/tmp/test_record_XXXXXX";

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = calloc(1, 1 << 20);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static char *path_in(const char *name) {
    static char paths[8][256];
    static int k;
    char *p = paths[k++ % 8];
    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

/* A new recorder with one file, the result file name.json in dir (label "x"). */
static struct rec_recorder *recorder_in(const char *name, size_t *file) {
    char json[64], journal[64];
    struct rec_recorder *r = NULL;
    struct buf err;
    snprintf(json, sizeof json, "%s.json", name);
    snprintf(journal, sizeof journal, "%s.journal.jsonl", name);
    buf_init(&err, BUF_NO_CAP);
    cJSON *header = cJSON_Parse("{\"label\":\"x\"}");
    CHECK_INT(rec_new(&r), REC_OK);
    CHECK_INT(rec_add_file(r, path_in(json), path_in(journal), NULL, header, false, file, &err),
              REC_OK);
    cJSON_Delete(header);
    buf_free(&err);
    return r;
}

/* The fields docs/result-format.md lists for a record; text, answer and correct are optional. */
static const char *const record_fields[] = {
    "seq",
    "thread",
    "endpoint",
    "variant",
    "phase",
    "batch",
    "question",
    "kind",
    "max_tokens",
    "prompt_tokens",
    "completion_tokens",
    "finish_reason",
    "status",
    "ok",
    "error",
    "t_start_us",
    "t_end_us",
    "wall_start_us",
};

static void check_record_fields(const cJSON *rec) {
    size_t want = sizeof record_fields / sizeof record_fields[0];
    for (size_t i = 0; i < want; i++) CHECK(cJSON_HasObjectItem(rec, record_fields[i]));
    size_t extra = cJSON_HasObjectItem(rec, "text") + cJSON_HasObjectItem(rec, "answer") +
                   cJSON_HasObjectItem(rec, "correct");
    CHECK_INT(cJSON_GetArraySize(rec), want + extra);
}

static const struct rec_record ok_rec = {
    .thread = 1,
    .endpoint = "gemma",
    .variant = NULL,
    .phase = "decode",
    .batch = 2,
    .max_tokens = 512,
    .prompt_tokens = 17,
    .completion_tokens = 512,
    .finish_reason = "length",
    .status = 200,
    .ok = true,
    .t_start_us = 1000,
    .t_end_us = 9001000,
    .wall_start_us = 1796035639023045LL,
    .correct = -1,
};

static void test_run(void) {
    struct rec_recorder *r;
    struct buf err;
    size_t a, b;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(rec_new(&r), REC_OK);
    cJSON *header = cJSON_Parse("{\"format\":\"wrk-sagemaker-result\",\"version\":1,"
                                "\"label\":\"bf16\",\"settings\":{\"lengths\":[16,512]}}");
    CHECK_INT(rec_add_file(r, path_in("out/sub/a.json"), path_in("out/sub/a.journal.jsonl"), NULL,
                           header, false, &a, &err),
              REC_OK);
    CHECK_INT(rec_add_file(r, path_in("b.json"), path_in("b.journal.jsonl"), NULL, header, false,
                           &b, &err),
              REC_OK);
    CHECK_INT(a, 0);
    CHECK_INT(b, 1);

    struct rec_record quiz = ok_rec;
    quiz.variant = "AllTraffic";
    quiz.question = "cap-Brazil";
    quiz.kind = "cap";
    quiz.prompt_tokens = quiz.completion_tokens = -1;
    quiz.finish_reason = NULL;
    quiz.text = "Bras\xc3\xadlia \"q\"\n\x01\xff";
    quiz.answer = "Brasília";
    quiz.correct = 1;
    struct rec_record throttled = ok_rec;
    throttled.ok = false;
    throttled.status = 429;
    throttled.error_code = "ThrottlingException";
    throttled.error_message = "Rate exceeded";
    throttled.prompt_tokens = throttled.completion_tokens = -1;
    struct rec_record model = throttled;
    model.status = 424;
    model.error_code = "ModelError";
    model.error_message = "container answered 400: bad";
    model.original_status = 400;

    CHECK_INT(rec_write(r, a, &ok_rec, &err), REC_OK);
    CHECK_INT(rec_write(r, b, &quiz, &err), REC_OK);
    CHECK_INT(rec_write(r, a, &throttled, &err), REC_OK);
    CHECK_INT(rec_write(r, a, &model, &err), REC_OK);
    CHECK_INT(rec_write(r, a, &throttled, &err), REC_OK);
    CHECK_INT(rec_write(r, 7, &ok_rec, &err), REC_ERR_INPUT);

    const struct rec_counts *c = rec_counts(r, a);
    CHECK_INT(c->sent, 4);
    CHECK_INT(c->ok, 1);
    CHECK_INT(c->failed, 3);
    CHECK_INT(c->n_errors, 2);
    CHECK_STR(c->errors[0].code, "ThrottlingException");
    CHECK_INT(c->errors[0].count, 2);
    CHECK_STR(c->first_error, "429 ThrottlingException: Rate exceeded");

    /* The journal holds everything before the end: header, then records. */
    char *journal = slurp(path_in("out/sub/a.journal.jsonl"));
    CHECK(journal && strncmp(journal, "{\"format\":\"wrk-sagemaker-result\"", 32) == 0);
    CHECK(journal && strstr(journal, "\n{\"seq\":0,\"thread\":1,\"endpoint\":\"gemma\","));
    CHECK(journal && strstr(journal, "\"wall_start_us\":1796035639023045}\n"));
    free(journal);

    CHECK_INT(rec_finish(r, "2026-11-30T10:28:46.123456Z", true, "interrupted", NULL, &err),
              REC_OK);
    char *text = slurp(path_in("out/sub/a.json"));
    cJSON *res = text ? cJSON_Parse(text) : NULL;
    CHECK(res != NULL);
    CHECK_STR(cJSON_GetObjectItem(res, "label")->valuestring, "bf16");
    CHECK_INT(
        cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "settings"), "lengths")),
        2);
    CHECK_STR(cJSON_GetObjectItem(res, "ended_at")->valuestring, "2026-11-30T10:28:46.123456Z");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "partial")));
    CHECK_STR(cJSON_GetObjectItem(res, "partial_reason")->valuestring, "interrupted");
    const cJSON *counts = cJSON_GetObjectItem(res, "counts");
    CHECK_INT(cJSON_GetObjectItem(counts, "sent")->valueint, 4);
    CHECK_INT(cJSON_GetObjectItem(counts, "failed")->valueint, 3);
    CHECK_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(counts, "errors"), "ModelError")->valueint,
              1);
    const cJSON *records = cJSON_GetObjectItem(res, "records"), *rec;
    CHECK_INT(cJSON_GetArraySize(records), 4);
    int seqs[] = {0, 2, 3, 4}, k = 0;
    cJSON_ArrayForEach(rec, records) {
        check_record_fields(rec);
        CHECK_INT(cJSON_GetObjectItem(rec, "seq")->valueint, seqs[k++]);
    }
    rec = cJSON_GetArrayItem(records, 0);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(rec, "variant")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(rec, "error")));
    CHECK(cJSON_GetObjectItem(rec, "wall_start_us")->valuedouble == 1796035639023045.0);
    CHECK(strstr(text, "\"wall_start_us\":1796035639023045}")); /* an integer, not 1.79e+15 */
    rec = cJSON_GetArrayItem(records, 2);
    const cJSON *e = cJSON_GetObjectItem(rec, "error");
    CHECK_STR(cJSON_GetObjectItem(e, "code")->valuestring, "ModelError");
    CHECK_INT(cJSON_GetObjectItem(e, "original_status")->valueint, 400);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(rec, "completion_tokens")));
    cJSON_Delete(res);
    free(text);

    text = slurp(path_in("b.json"));
    res = text ? cJSON_Parse(text) : NULL;
    rec = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "records"), 0);
    check_record_fields(rec);
    CHECK_INT(cJSON_GetObjectItem(rec, "seq")->valueint, 1);
    CHECK_STR(cJSON_GetObjectItem(rec, "text")->valuestring,
              "Bras\xc3\xadlia \"q\"\n\x01\xef\xbf\xbd"); /* the bad byte became U+FFFD */
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(rec, "correct")));
    CHECK_STR(cJSON_GetObjectItem(rec, "question")->valuestring, "cap-Brazil");
    cJSON_Delete(res);
    free(text);

    /* No temporary file is left beside the result. */
    DIR *d = opendir(path_in("."));
    CHECK(d != NULL);
    for (const struct dirent *e; d && (e = readdir(d));) CHECK(strstr(e->d_name, ".tmp") == NULL);
    if (d) closedir(d);

    cJSON_Delete(header);
    rec_free(r);
    buf_free(&err);
}

/* Each record is in the journal, exactly, as soon as rec_write returns. */
static void test_exact_lines(void) {
    /* Byte for byte: every kind of field, escapes, bad UTF-8, extreme numbers. */
    const struct {
        struct rec_record rec;
        const char *line;
    } exact[] = {
        {ok_rec,
         "{\"seq\":0,\"thread\":1,\"endpoint\":\"gemma\",\"variant\":null,\"phase\":\"decode\","
         "\"batch\":2,\"question\":null,\"kind\":null,\"max_tokens\":512,\"prompt_tokens\":17,"
         "\"completion_tokens\":512,\"finish_reason\":\"length\",\"status\":200,\"ok\":true,"
         "\"error\":null,\"t_start_us\":1000,\"t_end_us\":9001000,\"wall_start_us\":"
         "1796035639023045}\n"},
        {{.endpoint = "e\"p\\",
          .variant = "AllTraffic",
          .phase = "quiz",
          .question = "cap-Brazil",
          .kind = "cap",
          .max_tokens = -1,
          .prompt_tokens = -1,
          .completion_tokens = -1,
          .status = 200,
          .ok = true,
          .text =
              "Bras\xc3\xadlia \"q\"\n\x01\xff\x7f\xe2\x82\xac\xf0\x9f\x98\x80 \xed\xa0\x80 end/\\",
          .answer = "Bras\xc3\xadlia",
          .correct = 1},
         "{\"seq\":1,\"thread\":0,\"endpoint\":\"e\\\"p\\\\\",\"variant\":\"AllTraffic\",\"phase\":"
         "\"quiz\",\"batch\":0,\"question\":\"cap-Brazil\",\"kind\":\"cap\",\"max_tokens\":-1,"
         "\"prompt_tokens\":null,\"completion_tokens\":null,\"finish_reason\":null,\"status\":200,"
         "\"ok\":true,\"error\":null,\"t_start_us\":0,\"t_end_us\":0,\"wall_start_us\":0,\"text\":"
         "\"Bras\xc3\xadlia \\\"q\\\"\\u000a\\u0001\xef\xbf\xbd\x7f\xe2\x82\xac\xf0\x9f\x98\x80 "
         "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd end/\\\\\",\"answer\":\"Bras\xc3\xadlia\","
         "\"correct\":true}\n"},
        {{.thread = 15,
          .batch = -7,
          .max_tokens = 256,
          .prompt_tokens = 0,
          .completion_tokens = 0,
          .status = 424,
          .error_code = "ModelError",
          .error_message = "container answered 400: bad\ttab",
          .original_status = 400,
          .t_start_us = -5,
          .t_end_us = 9223372036854775807LL,
          .wall_start_us = -9223372036854775807LL - 1,
          .has_server_us = true,
          .server_us = 100000000000LL,
          .correct = 0},
         "{\"seq\":2,\"thread\":15,\"endpoint\":\"\",\"variant\":null,\"phase\":\"\",\"batch\":-7,"
         "\"question\":null,\"kind\":null,\"max_tokens\":256,\"prompt_tokens\":0,"
         "\"completion_tokens\":0,\"finish_reason\":null,\"status\":424,\"ok\":false,\"error\":{"
         "\"code\":\"ModelError\",\"message\":\"container answered 400: bad\\u0009tab\","
         "\"original_status\":400},\"t_start_us\":-5,\"t_end_us\":9223372036854775807,"
         "\"wall_start_us\":-9223372036854775808,\"server_us\":100000000000,\"correct\":false}\n"},
        {{.thread = 2,
          .endpoint = "x",
          .phase = "sweep",
          .max_tokens = 1,
          .prompt_tokens = -1,
          .completion_tokens = -1,
          .error_code = "socket",
          .correct = -1,
          .text = ""},
         "{\"seq\":3,\"thread\":2,\"endpoint\":\"x\",\"variant\":null,\"phase\":\"sweep\","
         "\"batch\":0,\"question\":null,\"kind\":null,\"max_tokens\":1,\"prompt_tokens\":null,"
         "\"completion_tokens\":null,\"finish_reason\":null,\"status\":0,\"ok\":false,\"error\":{"
         "\"code\":\"socket\",\"message\":\"\"},\"t_start_us\":0,\"t_end_us\":0,\"wall_start_us\":"
         "0,"
         "\"text\":\"\"}\n"},
    };

    /* Then each with its fixed fields written once by rec_fixed_json: the same
     * lines, though the record's own fixed fields now say something else. */
    for (int fixed = 0; fixed < 2; fixed++) {
        struct rec_recorder *r;
        struct buf err, want;
        size_t a;
        const char *name = fixed ? "f.journal.jsonl" : "d.journal.jsonl";
        buf_init(&err, BUF_NO_CAP);
        buf_init(&want, BUF_NO_CAP);
        CHECK_INT(rec_new(&r), REC_OK);
        cJSON *header = cJSON_Parse("{\"label\":\"x\"}");
        CHECK_INT(rec_add_file(r, path_in("d.json"), path_in(name), NULL, header, false, &a, &err),
                  REC_OK);
        CHECK_INT(buf_adds(&want, "{\"label\":\"x\"}\n"), BUF_OK);
        for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
            struct rec_record rec = exact[i].rec;
            char *json = fixed ? rec_fixed_json(&rec) : NULL;
            if (fixed) {
                CHECK(json != NULL);
                rec.endpoint = "other", rec.variant = "v", rec.phase = "p";
                rec.batch = 9, rec.question = "q", rec.kind = "k", rec.max_tokens = 99;
                rec.fixed_json = json;
            }
            CHECK_INT(rec_write(r, a, &rec, &err), REC_OK);
            free(json);
            CHECK_INT(buf_adds(&want, exact[i].line), BUF_OK);
            char *journal = slurp(path_in(name));
            CHECK_STR(journal, buf_str(&want));
            free(journal);
        }
        cJSON_Delete(header);
        rec_free(r);
        buf_free(&err);
        buf_free(&want);
    }
}

/* Strings that grow most when escaped (six bytes a byte, or U+FFFD's three),
 * long, in every string field: the line holds them all, and rec_fixed_json too. */
static void test_longest_escapes(void) {
    enum { N = 3000 };
    static char ctl[N + 1], bad[N + 1];
    memset(ctl, '\x01', N);
    memset(bad, '\xff', N);
    struct rec_record rec = {.endpoint = ctl,
                             .variant = bad,
                             .phase = ctl,
                             .question = bad,
                             .kind = ctl,
                             .finish_reason = bad,
                             .status = 500,
                             .error_code = ctl,
                             .error_message = bad,
                             .original_status = 500,
                             .text = ctl,
                             .answer = bad,
                             .batch = LONG_MIN,
                             .t_start_us = LLONG_MIN,
                             .correct = 0};
    struct buf err;
    size_t a;
    struct rec_recorder *r = recorder_in("l", &a);
    buf_init(&err, BUF_NO_CAP);
    char *fixed = rec_fixed_json(&rec);
    CHECK(fixed != NULL && strlen(fixed) > (size_t)3 * 6 * N);
    CHECK_INT(rec_write(r, a, &rec, &err), REC_OK);
    rec.fixed_json = fixed;
    CHECK_INT(rec_write(r, a, &rec, &err), REC_OK);
    char *journal = slurp(path_in("l.journal.jsonl"));
    char *first = journal ? strchr(journal, '\n') + 1 : NULL;
    char *second = first ? strchr(first, '\n') + 1 : NULL;
    CHECK(second != NULL && (size_t)(second - first) == strlen(second));
    cJSON *line = second ? cJSON_Parse(second) : NULL;
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(line, "text");
    CHECK(cJSON_IsString(text) && strcmp(text->valuestring, ctl) == 0);
    cJSON_Delete(line);
    free(journal);
    free(fixed);
    rec_free(r);
    buf_free(&err);
}

static void test_complete_run(void) {
    struct buf err;
    size_t a;
    struct rec_recorder *r = recorder_in("c", &a);
    buf_init(&err, BUF_NO_CAP);
    cJSON *more = cJSON_Parse("{\"start_late_us\": 412}"); /* what the end adds, as given */
    CHECK_INT(rec_finish(r, "2026-01-01T00:00:00.000000Z", false, NULL, more, &err), REC_OK);
    cJSON_Delete(more);
    char *text = slurp(path_in("c.json"));
    cJSON *res = text ? cJSON_Parse(text) : NULL;
    CHECK_INT(cJSON_GetObjectItem(res, "start_late_us")->valueint, 412);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(res, "partial")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(res, "partial_reason")));
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(res, "records")), 0);
    cJSON_Delete(res);
    free(text);
    rec_free(r);
    buf_free(&err);
}

static void test_unwritable(void) {
    struct rec_recorder *r;
    struct buf err;
    size_t a;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(rec_new(&r), REC_OK);
    cJSON *header = cJSON_Parse("{}");
    char *file = path_in("plain");
    FILE *f = fopen(file, "w");
    if (f) fclose(f);
    CHECK_INT(rec_add_file(r, path_in("plain/x.json"), path_in("plain/x.journal.jsonl"), NULL,
                           header, false, &a, &err),
              REC_ERR_IO);
    CHECK(strstr(buf_str(&err), "plain") != NULL);
    cJSON_Delete(header);
    rec_free(r);
    buf_free(&err);
}

/* A link planted as the result's folder (--out DIR/{label}/x.json, DIR/LABEL a
 * link): the journal is refused, nothing is written or removed where it points,
 * with or without --force. */
static void test_linked_folder(void) {
    struct rec_recorder *r;
    struct buf err;
    size_t a;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(mkdir(path_in("elsewhere"), 0700), 0);
    FILE *f = fopen(path_in("elsewhere/x.json"), "w");
    if (f) fclose(f);
    CHECK_INT(symlink(path_in("elsewhere"), path_in("label")), 0);
    cJSON *header = cJSON_Parse("{}");
    for (int force = 0; force < 2; force++) {
        CHECK_INT(rec_new(&r), REC_OK);
        CHECK_INT(rec_add_file(r, path_in("label/x.json"), path_in("label/x.journal.jsonl"), NULL,
                               header, force, &a, &err),
                  force ? REC_ERR_LINK : REC_ERR_EXISTS);
        CHECK(!force || strstr(buf_str(&err), "/label is a symbolic link, refusing") != NULL);
        CHECK_INT(access(path_in("elsewhere/x.json"), F_OK), 0);
        rec_free(r);
    }
    CHECK_INT(unlink(path_in("elsewhere/x.json")), 0);
    CHECK_INT(rec_new(&r), REC_OK);
    CHECK_INT(rec_add_file(r, path_in("label/x.json"), path_in("label/x.journal.jsonl"), NULL,
                           header, false, &a, &err),
              REC_ERR_LINK);
    CHECK_INT(access(path_in("elsewhere/x.journal.jsonl"), F_OK), -1);
    rec_free(r);
    /* deeper, --out DIR/{label}/sub/x.json: refused below the root given, not made there */
    CHECK_INT(rec_new(&r), REC_OK);
    char root[256];
    snprintf(root, sizeof root, "%s", path_in("."));
    root[strlen(root) - 2] = '\0';
    CHECK_INT(rec_add_file(r, path_in("label/sub/x.json"), path_in("label/sub/x.journal.jsonl"),
                           root, header, false, &a, &err),
              REC_ERR_LINK);
    CHECK(strstr(buf_str(&err), "/label is a symbolic link, refusing") != NULL);
    CHECK_INT(access(path_in("elsewhere/sub"), F_OK), -1);
    rec_free(r);
    /* and written below it when nothing is a link */
    CHECK_INT(rec_new(&r), REC_OK);
    CHECK_INT(rec_add_file(r, path_in("real/sub/x.json"), path_in("real/sub/x.journal.jsonl"), root,
                           header, false, &a, &err),
              REC_OK);
    CHECK_INT(rec_finish(r, "2026-01-01T00:00:00Z", false, NULL, NULL, &err), REC_OK);
    CHECK_INT(access(path_in("real/sub/x.json"), F_OK), 0);
    rec_free(r);
    cJSON_Delete(header);
    buf_free(&err);
}

static void test_helpers(void) {
    char iso[32];
    rec_iso8601(1796035639023045LL, iso);
    CHECK_STR(iso, "2026-11-30T10:47:19.023045Z");
    rec_iso8601(5, iso);
    CHECK_STR(iso, "1970-01-01T00:00:00.000005Z");
    const char *paths[][2] = {{"results/decode-bf16.json", "results/decode-bf16.journal.jsonl"},
                              {"out.txt", "out.txt.journal.jsonl"},
                              {".json", ".json.journal.jsonl"}};
    for (size_t i = 0; i < 3; i++) {
        struct buf b;
        buf_init(&b, BUF_NO_CAP);
        CHECK_INT(rec_journal_path(paths[i][0], &b), BUF_OK);
        CHECK_STR(buf_str(&b), paths[i][1]);
        buf_free(&b);
    }
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    test_run();
    test_exact_lines();
    test_longest_escapes();
    test_complete_run();
    test_unwritable();
    test_linked_folder();
    test_helpers();
    int rc = check_exit();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (rc == 0 && system(cmd) != 0) rc = 1;
    return rc;
}
