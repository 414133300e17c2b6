/* Unit tests of rfile (reading a result file or a journal) and field (the
 * type and range rules): the values of the records read, and the one-line
 * error of each kind of bad file (a FIFO and a directory refused at once, a
 * file that starts with a NUL byte, a journal of NUL bytes only), and that every
 * field of common/rfield.h's table is read or said to be unread. */
#include <sys/stat.h>

#include "../check.h"
#include "field.h"
#include "rfield.h"
#include "rfile.h"
#include "rtest.h"

static void test_document(void) {
    const char *path = rtest_write(
        "doc.json",
        "{\"records\": [{\"seq\": 7, \"phase\": \"quiz\", \"batch\": 2, \"max_tokens\": 64, "
        "\"completion_tokens\": 3, \"status\": 200, \"ok\": true, \"error\": null, "
        "\"question\": \"add-1\", \"kind\": \"add\", \"text\": \"547\", \"answer\": \"547\", "
        "\"correct\": true, \"t_start_us\": 10, \"t_end_us\": 250, \"wall_start_us\": "
        "1764496800000010, \"unknown\": [1, {\"x\": 2}]}, {\"phase\": \"quiz\", \"ok\": false, "
        "\"status\": 429, \"error\": {\"code\": \"ThrottlingException\", \"message\": \"Rate "
        "exceeded\"}, \"t_start_us\": 300, \"t_end_us\": 301}], \"format\": \"x\", \"version\": "
        "1}");
    struct rfile *rf;
    struct buf err;
    buf_init(&err, 1024);
    CHECK(rfile_read(path, &rf, &err) == RFILE_OK);
    if (!rf) return;
    CHECK(!rf->journal && rf->has_records && rf->nrecs == 2);
    const struct rfile_rec *a = &rf->recs[0], *b = &rf->recs[1];
    CHECK(a->seq == 7 && a->batch == 2 && a->max_tokens == 64 && a->completion_tokens == 3);
    CHECK(a->ok && a->correct == 1 && a->t_start_us == 10 && a->t_end_us == 250);
    CHECK(a->wall_start_us == 1764496800000010LL);
    CHECK_STR(rfile_str(rf, a->phase), "quiz");
    CHECK_STR(rfile_str(rf, a->question), "add-1");
    CHECK_STR(rfile_text(rf, a->text), "547");
    CHECK(!b->ok && b->status == 429 && b->wall_start_us == RFILE_NONE && b->batch == RFILE_NONE);
    CHECK_STR(rfile_str(rf, b->error), "ThrottlingException");
    CHECK_STR(rfile_errmsg(rf, b->error), "Rate exceeded");
    CHECK(cJSON_GetObjectItemCaseSensitive(rf->head, "version") != NULL);
    rfile_free(rf);
    buf_free(&err);
}

static void test_journal(void) {
    char text[512];
    int n = snprintf(text, sizeof text,
                     "{\"format\": \"wrk-sagemaker-result\"}\n"
                     "{\"phase\": \"decode\", \"ok\": true, \"t_start_us\": 1, \"t_end_us\": 2}\n"
                     "{\"phase\": \"decode\", \"ok\": tr");
    memset(text + n, 0, 100); /* the room a killed run had reserved */
    const char *path = rtest_write_n("run.journal.jsonl", text, (size_t)n + 100);
    struct rfile *rf;
    struct buf err;
    buf_init(&err, 1024);
    CHECK(rfile_read(path, &rf, &err) == RFILE_OK);
    if (rf) CHECK(rf->journal && rf->cut_tail && rf->nrecs == 1);
    rfile_free(rf);
    memset(text, 0, 64);
    path = rtest_write_n("empty.journal.jsonl", text, 64);
    CHECK(rfile_read(path, &rf, &err) == RFILE_ERR_INPUT);
    CHECK(strstr(buf_str(&err), "empty journal (the run was killed before it wrote its header)"));
    buf_free(&err);
}

/* rfile_read(path) fails with code and the message ends with tail. */
static void test_fails(const char *path, int code, const char *tail) {
    struct rfile *rf = (struct rfile *)1;
    struct buf err;
    buf_init(&err, 1024);
    CHECK(rfile_read(path, &rf, &err) == code && rf == NULL);
    const char *msg = buf_str(&err);
    size_t n = strlen(msg), t = strlen(tail);
    if (!(n >= t && strcmp(msg + n - t, tail) == 0 && strncmp(msg, path, strlen(path)) == 0))
        fprintf(stderr, "got [%s], want [%s: ...%s]\n", msg, path, tail);
    CHECK(n >= t && strcmp(msg + n - t, tail) == 0 && strncmp(msg, path, strlen(path)) == 0);
    buf_free(&err);
}

static void test_bad_files(void) {
    const char *fifo = rtest_path("fifo.json");
    CHECK(mkfifo(fifo, 0600) == 0);
    test_fails(fifo, RFILE_ERR_READ, ": cannot read: a FIFO (named pipe), not a regular file");
    const char *dir = rtest_path("dir.json");
    CHECK(mkdir(dir, 0700) == 0);
    test_fails(dir, RFILE_ERR_READ, ": cannot read: a directory, not a file");
    test_fails(rtest_path("nowhere.json"), RFILE_ERR_READ,
               ": cannot read: No such file or directory");
    test_fails(rtest_write_n("nul.json", "\0{}", 3), RFILE_ERR_INPUT,
               ": starts with a NUL byte: not a JSON text file");
    test_fails(rtest_write("empty.json", "  \n"), RFILE_ERR_INPUT, ": empty file");
    test_fails(rtest_write("array.json", "[1]"), RFILE_ERR_INPUT,
               ": not a JSON object at the top level");
    test_fails(rtest_write("trailing.json", "{} x"), RFILE_ERR_INPUT,
               ":1:4: malformed JSON: data after the end of the document");
    test_fails(rtest_write("noend.json", "{\"records\": [{\"phase\": \"x\", \"ok\": true, "
                                         "\"t_start_us\": 5}]}"),
               RFILE_ERR_INPUT, ": record 1: t_end_us is missing");
    test_fails(rtest_write("back.json", "{\"records\": [{\"phase\": \"x\", \"ok\": true, "
                                        "\"t_start_us\": 5, \"t_end_us\": 4}]}"),
               RFILE_ERR_INPUT, ": record 1: t_end_us is before t_start_us");
    test_fails(rtest_write("type.json", "{\"records\": [{\"phase\": \"x\", \"ok\": 1}]}"),
               RFILE_ERR_INPUT, ":1:35: record 1, field ok: expected true or false");
}

static void test_fields(void) {
    static const struct field_rule rules[] = {
        {"time_scale", FIELD_NUM, 0.001, 1e6},
        {"label", FIELD_STR, 0, 0},
        {"repeats", FIELD_INT | FIELD_NULL, 1, 100},
    };
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"{\"time_scale\": 10, \"label\": \"a\", \"repeats\": null}", ""},
        {"{}", ""},
        {"{\"time_scale\": \"fast\"}", "f.json: time_scale: \"fast\" is not a number"},
        {"{\"time_scale\": 1e-300}", "f.json: time_scale: 1e-300 is out of range (0.001 to 1e+06)"},
        {"{\"label\": 5}", "f.json: label: 5 is not a string"},
        {"{\"repeats\": 2.5}", "f.json: repeats: 2.5 is not a whole number or null"},
        {"{\"repeats\": 0}", "f.json: repeats: 0 is out of range (1 to 100)"},
        {"{\"label\": [\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]}",
         "f.json: label: [\""
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... is not a "
         "string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *o = cJSON_Parse(cases[i].json);
        struct buf err;
        buf_init(&err, 1024);
        int rc = field_check(o, rules, 3, "f.json", "", &err);
        CHECK(rc == (cases[i].want[0] ? FIELD_ERR_INPUT : FIELD_OK));
        CHECK_STR(buf_str(&err), cases[i].want);
        buf_free(&err);
        cJSON_Delete(o);
    }
}

/* A thinking model's record: t_first_output_us, reasoning_tokens and itl_unit read;
 * absent, the first output is the first token; inconsistent, the record is refused
 * naming the field. */
#define REASON_REC(more)                                                                           \
    "{\"records\": [{\"phase\": \"d\", \"ok\": true, \"t_start_us\": 10, \"t_end_us\": 100, "      \
    "\"completion_tokens\": 5, \"t_first_token_us\": 20, \"chunks\": 2, "                          \
    "\"chunk_gaps_us\": [30]" more "}]}"

static void test_reasoning(void) {
    struct rfile *rf = NULL;
    struct buf err;
    buf_init(&err, 1024);
    const char *ok = rtest_write(
        "think.json",
        REASON_REC(
            ", \"t_first_output_us\": 50, \"reasoning_tokens\": 3, \"itl_unit\": \"token\""));
    CHECK(rfile_read(ok, &rf, &err) == RFILE_OK);
    CHECK(rf && rf->nrecs == 1 && rf->recs[0].t_first_output_us == 50 &&
          rf->recs[0].reasoning_tokens == 3 && rf->recs[0].itl_unit == RFILE_ITL_TOKEN);
    rfile_free(rf);
    const char *plain = rtest_write("plain.json", REASON_REC(""));
    CHECK(rfile_read(plain, &rf, &err) == RFILE_OK);
    CHECK(rf && rf->recs[0].t_first_output_us == 20 && rf->recs[0].reasoning_tokens == 0 &&
          rf->recs[0].itl_unit == 0);
    rfile_free(rf);
    buf_free(&err);
    test_fails(rtest_write("early.json", REASON_REC(", \"t_first_output_us\": 15")),
               RFILE_ERR_INPUT, ": record 1: t_first_output_us is before t_first_token_us");
    test_fails(rtest_write("late.json", REASON_REC(", \"t_first_output_us\": 101")),
               RFILE_ERR_INPUT, ": record 1: t_first_output_us is after t_end_us");
    test_fails(rtest_write("many.json", REASON_REC(", \"reasoning_tokens\": 6")), RFILE_ERR_INPUT,
               ": record 1: reasoning_tokens is more than completion_tokens");
    test_fails(rtest_write("unit.json", REASON_REC(", \"itl_unit\": \"byte\"")), RFILE_ERR_INPUT,
               "itl_unit is not \"token\" or \"chunk\"");
    test_fails(rtest_write("whole.json", "{\"records\": [{\"phase\": \"d\", \"ok\": true, "
                                         "\"t_start_us\": 1, \"t_end_us\": 9, "
                                         "\"t_first_output_us\": 5}]}"),
               RFILE_ERR_INPUT, ": record 1: t_first_output_us without t_first_token_us");
}

/* A record's prompt_tokens and cached_tokens read (absent: RFILE_NONE); cached
 * tokens past the prompt's are refused naming the field. */
static void test_cached_tokens(void) {
    struct rfile *rf = NULL;
    struct buf err;
    buf_init(&err, 1024);
    const char *ok = rtest_write("cached.json", REASON_REC(", \"prompt_tokens\": 64, "
                                                           "\"cached_tokens\": 48"));
    CHECK(rfile_read(ok, &rf, &err) == RFILE_OK);
    CHECK(rf && rf->nrecs == 1 && rf->recs[0].prompt_tokens == 64 &&
          rf->recs[0].cached_tokens == 48);
    rfile_free(rf);
    const char *plain = rtest_write("uncached.json", REASON_REC(""));
    CHECK(rfile_read(plain, &rf, &err) == RFILE_OK);
    CHECK(rf && rf->recs[0].prompt_tokens == RFILE_NONE && rf->recs[0].cached_tokens == RFILE_NONE);
    rfile_free(rf);
    buf_free(&err);
    test_fails(rtest_write("overcached.json",
                           REASON_REC(", \"prompt_tokens\": 16, \"cached_tokens\": 32")),
               RFILE_ERR_INPUT, ": record 1: cached_tokens is more than prompt_tokens");
}

/* Every field of the table (common/rfield.h) is either read, and then a value of
 * the wrong type is refused naming it (so its name reaches the reader's code, not
 * the skip of an unknown member), or said here to be one sm-compare does not read
 * (NULL), and then any value is skipped. */
static void test_every_table_field_read_or_unread(void) {
    static const struct {
        const char *name, *bad; /* bad: a value of the wrong type; NULL: not read */
    } fields[] = {
        {RFIELD_SEQ, "\"x\""},
        {RFIELD_THREAD, NULL},
        {RFIELD_ENDPOINT, NULL},
        {RFIELD_VARIANT, NULL},
        {RFIELD_PHASE, "1"},
        {RFIELD_BATCH, "\"x\""},
        {RFIELD_QUESTION, "1"},
        {RFIELD_KIND, "1"},
        {RFIELD_MAX_TOKENS, "\"x\""},
        {RFIELD_PROMPT_TOKENS, "\"x\""},
        {RFIELD_COMPLETION_TOKENS, "\"x\""},
        {RFIELD_REASONING_TOKENS, "\"x\""},
        {RFIELD_CACHED_TOKENS, "\"x\""},
        {RFIELD_FINISH_REASON, NULL},
        {RFIELD_STATUS, "\"x\""},
        {RFIELD_OK, "\"x\""},
        {RFIELD_ERROR, "1"},
        {RFIELD_T_START_US, "\"x\""},
        {RFIELD_T_END_US, "\"x\""},
        {RFIELD_WALL_START_US, "\"x\""},
        {RFIELD_SERVER_US, "\"x\""},
        {RFIELD_T_INTENDED_US, "\"x\""},
        {RFIELD_CONNECT_US, "\"x\""},
        {RFIELD_TLS_US, "\"x\""},
        {RFIELD_TEXT, "1"},
        {RFIELD_ANSWER, "1"},
        {RFIELD_CORRECT, "\"x\""},
        {RFIELD_TURN, NULL},
        {RFIELD_SESSION, NULL},
        {RFIELD_T_HEADERS_US, "\"x\""},
        {RFIELD_T_FIRST_TOKEN_US, "\"x\""},
        {RFIELD_T_FIRST_OUTPUT_US, "\"x\""},
        {RFIELD_CHUNKS, "\"x\""},
        {RFIELD_CHUNKS_RECEIVED, NULL},
        {RFIELD_CHUNK_GAPS_US, "\"x\""},
        {RFIELD_ITL_UNIT, "1"},
        {RFIELD_CHUNK_TOKENS, "\"x\""},
    };
    size_t n, nf = sizeof fields / sizeof fields[0];
    const struct rfield_row *table = rfield_all(&n);
    CHECK(n == nf);
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < nf && strcmp(fields[j].name, table[i].name) != 0) j++;
        if (j == nf) fprintf(stderr, "%s: not in this test: is it read?\n", table[i].name);
        CHECK(j < nf);
        if (j == nf) continue;
        char text[512], want[128];
        snprintf(text, sizeof text,
                 "{\"records\": [{\"%s\": %s, \"phase\": \"p\", \"ok\": true, "
                 "\"t_start_us\": 1, \"t_end_us\": 2}]}",
                 fields[j].name, fields[j].bad ? fields[j].bad : "{\"any\": [1]}");
        snprintf(want, sizeof want, "record 1, field %s: ", fields[j].name);
        struct rfile *rf = NULL;
        struct buf err;
        buf_init(&err, 1024);
        int rc = rfile_read(rtest_write("field.json", text), &rf, &err);
        bool as_said = fields[j].bad ? rc == RFILE_ERR_INPUT && strstr(buf_str(&err), want)
                                     : rc == RFILE_OK && rf && rf->nrecs == 1;
        if (!as_said)
            fprintf(stderr, "%s: %s (%s)\n", fields[j].name,
                    fields[j].bad ? "a bad value not refused as this field's" : "not skipped",
                    buf_str(&err));
        CHECK(as_said);
        rfile_free(rf);
        buf_free(&err);
    }
}

int main(void) {
    test_every_table_field_read_or_unread();
    test_cached_tokens();
    test_reasoning();
    test_document();
    test_journal();
    test_bad_files();
    test_fields();
    return check_exit();
}
