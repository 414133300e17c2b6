/* Unit tests of the readers sm-compare shares: the JSON scanner, the vLLM
 * start-up facts and quiz scoring. Argument: the reference quiz file. */
#include <math.h>
#include <string.h>

#include "../check.h"
#include "facts.h"
#include "jscan.h"
#include "quizfile.h"

/* A whole document: one value and nothing after it. */
static int scan_all(const char *text) {
    struct jscan s;
    jscan_init(&s, text, strlen(text));
    return jscan_skip(&s) == 0 && jscan_peek(&s) == 0 ? 0 : -1;
}

static void test_jscan_syntax(void) {
    static const struct {
        const char *text;
        int ok;
    } cases[] = {
        {"{}", 1},
        {"{\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\n\"]}", 1},
        {"[0]", 1},
        {"{\"a\":1,}", 0},
        {"[1 2]", 0},
        {"{\"a\" 1}", 0},
        {"\"unterminated", 0},
        {"\"bad \\q escape\"", 0},
        {"\"control \x01 char\"", 0},
        {"01", 0},
        {"-", 0},
        {"1.", 0},
        {"1e", 0},
        {"tru", 0},
        {"nul", 0},
        {"{\"a\":1} x", 0},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = scan_all(cases[i].text);
        if ((rc == 0) != cases[i].ok) fprintf(stderr, "case %zu: %s\n", i, cases[i].text);
        CHECK((rc == 0) == cases[i].ok);
    }
}

/* A string's end, escape or control character at every place of its 8-byte words
 * (the scanner reads plain runs a word at a time), among bytes just above and below the
 * special ones and UTF-8. */
static void test_jscan_string_words(void) {
    static const char filler[] = "!#[]\x7f\xc3\xa9 ~";
    static const struct {
        const char *special;
        int rc;
        size_t decoded; /* bytes of the decoded string before the filler after */
    } kinds[] = {{"\"", 0, 0}, {"\\n", 0, 1}, {"\x1f", -1, 0}, {"\x01", -1, 0}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (size_t at = 0; at < 24; at++) {
            char text[64] = "\"";
            for (size_t i = 0; i < at; i++) text[1 + i] = filler[i % (sizeof filler - 1)];
            snprintf(text + 1 + at, sizeof text - 1 - at, "%s%s\"", kinds[k].special,
                     kinds[k].special[0] == '"' ? "" : "abcdefghijkl");
            struct jscan s;
            struct jscan_str str;
            jscan_init(&s, text, strlen(text));
            int rc = jscan_string(&s, &str);
            if (rc != kinds[k].rc) fprintf(stderr, "kind %zu at %zu: %d\n", k, at, rc);
            CHECK_INT(rc, kinds[k].rc);
            if (rc < 0) {
                CHECK(s.err_at == text + 1 + at);
                continue;
            }
            struct buf out;
            buf_init(&out, BUF_NO_CAP);
            CHECK(jscan_str_decode(&str, &out) == BUF_OK);
            CHECK_INT(out.len, at + kinds[k].decoded + (k == 0 ? 0 : 12));
            CHECK(str.escaped == (k == 1));
            CHECK(memcmp(out.data, text + 1, at) == 0);
            buf_free(&out);
        }
}

static void test_jscan_values(void) {
    const char *text = "{\"n\": 1764496800000123, \"s\": \"Bras\\u00edlia \\ud83d\\ude00\\t\", "
                       "\"f\": 2.5e1, \"b\": true}";
    struct jscan s;
    struct jscan_str key, str;
    struct buf out;
    int64_t n = 0;
    double f = 0;
    bool b = false;
    size_t count = 0;
    buf_init(&out, BUF_NO_CAP);
    jscan_init(&s, text, strlen(text));
    CHECK(jscan_object(&s) == 0);
    CHECK(jscan_member(&s, &count, &key) == 1 && jscan_str_is(&key, "n"));
    CHECK(jscan_int(&s, &n) == 0);
    CHECK_INT(n, 1764496800000123LL);
    CHECK(jscan_member(&s, &count, &key) == 1 && jscan_str_is(&key, "s"));
    CHECK(jscan_string(&s, &str) == 0 && str.escaped);
    CHECK(jscan_str_decode(&str, &out) == BUF_OK);
    CHECK_STR(buf_str(&out), "Bras\xc3\xadlia \xf0\x9f\x98\x80\t");
    CHECK(jscan_member(&s, &count, &key) == 1 && jscan_number(&s, &f) == 0);
    CHECK(f == 25.0);
    CHECK(jscan_member(&s, &count, &key) == 1 && jscan_bool(&s, &b) == 0 && b);
    CHECK(jscan_member(&s, &count, &key) == 0);
    size_t line, col;
    jscan_init(&s, "{\n  \"a\": x}", 11);
    CHECK(jscan_skip(&s) < 0);
    jscan_where(&s, &line, &col);
    CHECK_INT(line, 2);
    CHECK_INT(col, 8);
    buf_free(&out);
}

static void test_facts(void) {
    static const struct {
        const char *log;
        double weights, load, kv, maxc;
        const char *quant, *version;
    } cases[] = {
        {"(EngineCore_DP0 pid=81) INFO 09-25 18:40:12 [gpu_model_runner.py:2345] Model loading "
         "took 9.75 GiB memory and 82.751806 seconds\n"
         "INFO 09-25 18:41:02 [kv_cache_utils.py:1087] GPU KV cache size: 723,484 tokens\n"
         "INFO Maximum concurrency for 8,192 tokens per request: 88.32x\n",
         9.75, 82.751806, 723484, 88.32, NULL, NULL},
        {"Model loading took 9.75 GB and 82.75 seconds\n", 9.75, 82.75, -1, -1, NULL, NULL},
        {"old: Model loading took 1.5 GiB memory and 10 seconds\n"
         "new: Model loading took 8.01 GiB memory and 66.190265 seconds\n"
         "config: quantization=compressed-tensors, x\nvLLM API server version 0.30.0\n",
         8.01, 66.190265, -1, -1, "compressed-tensors", "0.30.0"},
        {"GPU KV cache size: 1,180,383 tokens, Maximum concurrency for 8,192 tokens per "
         "request: 144.09x\nquantization=None\n",
         -1, -1, 1180383, 144.09, "None", NULL},
        {"nothing here\n", -1, -1, -1, -1, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct facts f = {0};
        struct buf err;
        buf_init(&err, 256);
        CHECK(facts_scan(cases[i].log, strlen(cases[i].log), &f, &err) == 0);
        const struct {
            const struct facts_fact *f;
            double want;
        } nums[] = {{&f.weights_gib, cases[i].weights},
                    {&f.load_seconds, cases[i].load},
                    {&f.kv_cache_tokens, cases[i].kv},
                    {&f.max_concurrency, cases[i].maxc}};
        for (size_t k = 0; k < 4; k++) {
            CHECK(nums[k].f->have == (nums[k].want >= 0));
            if (nums[k].want >= 0) CHECK(fabs(nums[k].f->value - nums[k].want) < 1e-9);
        }
        CHECK(f.quantization.have == (cases[i].quant != NULL));
        if (cases[i].quant) CHECK_STR(f.quantization.text, cases[i].quant);
        CHECK(f.vllm_version.have == (cases[i].version != NULL));
        if (cases[i].version) CHECK_STR(f.vllm_version.text, cases[i].version);
        buf_free(&err);
    }
}

static void test_quiz(const char *path) {
    struct quizfile *qz = NULL;
    struct buf err;
    buf_init(&err, 1024);
    CHECK(quizfile_read(path, &qz, &err) == 0);
    if (!qz) return;
    CHECK_INT(qz->n, 40);
    static const struct {
        const char *id, *reply;
        int correct;
    } cases[] = {
        {"cap-Brazil", "Bras\xc3\xadlia", 1},
        {"cap-Brazil", "brasilia.", 1},
        {"cap-Brazil", "Brasiliano", 0},
        {"add-0", "547", 1},
        {"add-0", "-547", 0},
        {"add-0", "1547", 0},
        {"add-9", "-275", 1},
        {"mul-0", "The answer is 1512.", 1},
        {"mul-0", "15120", 0},
        {"cap-Canada", "OTTAWA", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct quizfile_question *q = quizfile_find(qz, cases[i].id);
        CHECK(q != NULL);
        if (q) CHECK_INT(quizfile_score(q, cases[i].reply), cases[i].correct);
    }
    quizfile_free(qz);
    buf_free(&err);
}

int main(int argc, char **argv) {
    test_jscan_syntax();
    test_jscan_string_words();
    test_jscan_values();
    test_facts();
    if (argc > 1) test_quiz(argv[1]);
    return check_exit();
}
