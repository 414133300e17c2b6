/* Quiz scoring: patterns behave as Python's re.search on the stripped reply
 * (the expected values were taken from CPython 3), and the shipped quiz's
 * answers each match their own pattern. */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "../check.h"
#include "quiz.h"

static const struct {
    const char *pattern, *text;
    bool found;
} searches[] = {
    {"(?i)\\bBras[ií]lia\\b", "Brasília", true},
    {"(?i)\\bBras[ií]lia\\b", "BRASÍLIA", true},
    {"(?i)\\bBras[ií]lia\\b", "Brasilia.", true},
    {"(?i)\\bBras[ií]lia\\b", "Brasílians", false},
    {"\\b1512\\b", "The answer is 1512.", true},
    {"\\b1512\\b", "15120", false},
    {"\\b1512\\b", "x1512", false},
    {"\\b1512\\b", "1512", true},
    {"(?<![\\d-])547\\b", "547", true},
    {"(?<![\\d-])547\\b", "-547", false},
    {"(?<![\\d-])547\\b", "1547", false},
    {"(?<![\\d-])547\\b", "= 547", true},
    {"(?<![\\d-])-275\\b", "-275", true},
    {"(?<![\\d-])-275\\b", "--275", false},
    {"(?<![\\d-])-275\\b", "5-275", false},
    {"(?<![\\d-])-275\\b", "The result is -275", true},
    {"(?<![\\d-])942\\b", "٩942", false}, /* \d is Unicode: an Arabic-Indic nine */
    {"\\b585\\b", "é585", false},         /* \b is Unicode: é is a word character */
    {"\\b585\\b", "_585", false},
    {"(?i)\\bBern\\b", "bern", true},
    {"(?i)\\bBern\\b", "Berne", false},
    {"(?i)\\bAnkara\\b", "**Ankara**", true},
    {"\\bOttawa\\b", "Ottawa\n", true},
    {"^Canberra$", "Canberra\n", true},
    {"(?i)ǅ", "ǆ", true},
    {"\\d+", "١٢٣", true},
    {"\\w+$", "café", true},
    {"\\bé", "été", true},
    {"(?i)\\bCanberra\\b", "canberraX", false},
    {"Canberra", "Can\xff berra Canberra", true}, /* invalid UTF-8 is no error */
    {"x.y", "x\xffy", false},
};

static void test_searches(void) {
    for (size_t i = 0; i < sizeof searches / sizeof searches[0]; i++) {
        struct quiz_re *re = NULL;
        struct buf err;
        bool found = !searches[i].found;
        buf_init(&err, BUF_NO_CAP);
        const char *p = searches[i].pattern, *t = searches[i].text;
        CHECK_INT(quiz_re_compile(p, strlen(p), &re, &err), QUIZ_OK);
        CHECK_INT(quiz_re_search(re, t, strlen(t), &found), QUIZ_OK);
        if (found != searches[i].found) fprintf(stderr, "pattern %s on [%s]\n", p, t);
        CHECK(found == searches[i].found);
        quiz_re_free(re);
        buf_free(&err);
    }
}

static void test_bad_pattern(void) {
    struct quiz_re *re = NULL;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(quiz_re_compile("(?<!a+)b", 8, &re, &err), QUIZ_ERR_PATTERN);
    CHECK(re == NULL);
    CHECK(strncmp(buf_str(&err), "offset ", 7) == 0);
    buf_free(&err);
}

/* Python's str.strip(): Unicode white space goes, a zero-width space stays. */
static const struct {
    const char *in, *out;
} strips[] = {
    {"  x  ", "x"},
    {"\xe3\x80\x80x\xc2\xa0", "x"},     /* U+3000 and U+00A0 */
    {"\xe2\x80\x8bx", "\xe2\x80\x8bx"}, /* U+200B is not white space */
    {"x\x1c", "x"},                     /* a file separator is */
    {"\xc2\x85x\xe2\x80\xa9", "x"},     /* U+0085 and U+2029 */
    {"\n\t Canberra \r\n", "Canberra"},
    {"", ""},
    {"   ", ""},
    {"\xff x \xff", "\xff x \xff"}, /* invalid bytes are never white space */
    {"\xc2 x", "\xc2 x"},           /* nor is a cut sequence */
};

static void test_strip(void) {
    for (size_t i = 0; i < sizeof strips / sizeof strips[0]; i++) {
        size_t off, n;
        quiz_strip(strips[i].in, strlen(strips[i].in), &off, &n);
        char got[64];
        snprintf(got, sizeof got, "%.*s", (int)n, strips[i].in + off);
        CHECK_STR(got, strips[i].out);
    }
}

/* A reply (1 MiB of words) with the answer at offset at: scored only on its
 * first QUIZ_SCORED_MAX bytes, whatever its size. */
static void check_score_at(size_t at, bool want_found) {
    const size_t len = (size_t)1 << 20;
    char *reply = malloc(len);
    for (size_t i = 0; i < len; i++) reply[i] = i % 2 ? ' ' : 'w';
    /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes in a buffer */
    memcpy(reply + at, " Canberra ", 10);
    struct quiz_re *re = NULL;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(quiz_re_compile("(?i)\\bCanberra\\b", 16, &re, &err), QUIZ_OK);
    size_t off = 99, n = 99;
    bool found = !want_found;
    CHECK_INT(quiz_score(re, reply, len, &off, &n, &found), QUIZ_OK);
    CHECK(found == want_found);
    CHECK_INT(off, 0);
    CHECK(n <= QUIZ_SCORED_MAX); /* the work: no byte past the cap is looked at */
    quiz_re_free(re);
    buf_free(&err);
    free(reply);
}

static void test_score_bounded(void) {
    check_score_at(1000, true);
    check_score_at(QUIZ_SCORED_MAX - 20, true);
    check_score_at(QUIZ_SCORED_MAX - 5, false); /* cut through the answer */
    check_score_at(QUIZ_SCORED_MAX + 1000, false);
    check_score_at(((size_t)1 << 20) - 100, false);
}

/* The scored prefix is cut before a UTF-8 character, never inside one. */
static void test_cut(void) {
    const size_t len = QUIZ_SCORED_MAX + 8;
    char *s = malloc(len);
    memset(s, 'a', len);
    CHECK_INT(quiz_cut(s, 10), 10);
    CHECK_INT(quiz_cut(s, QUIZ_SCORED_MAX), QUIZ_SCORED_MAX);
    CHECK_INT(quiz_cut(s, len), QUIZ_SCORED_MAX);
    /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes in a buffer */
    memcpy(s + QUIZ_SCORED_MAX - 1, "\xc3\xa9", 2); /* é across the cap */
    CHECK_INT(quiz_cut(s, len), QUIZ_SCORED_MAX - 1);
    /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes in a buffer */
    memcpy(s + QUIZ_SCORED_MAX - 2, "\xe2\x80\x83", 3); /* U+2003 across it */
    CHECK_INT(quiz_cut(s, len), QUIZ_SCORED_MAX - 2);
    free(s);
}

/* A pattern that backtracks without end stops at the match limit: an error,
 * not a run that never ends. */
static void test_match_limit(void) {
    const char *p = "^(\\w+\\s?)*$";
    char text[64];
    memset(text, 'a', 40);
    strcpy(text + 40, "!");
    struct quiz_re *re = NULL;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(quiz_re_compile(p, strlen(p), &re, &err), QUIZ_OK);
    bool found = true;
    size_t off, n;
    CHECK_INT(quiz_score(re, text, strlen(text), &off, &n, &found), QUIZ_ERR_MATCH);
    CHECK(!found);
    quiz_re_free(re);
    buf_free(&err);
}

static void test_quiz_file(const char *path) {
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return;
    char *text = malloc(1 << 20);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *quiz = cJSON_Parse(text);
    const cJSON *q;
    int count = 0;
    cJSON_ArrayForEach(q, cJSON_GetObjectItem(quiz, "questions")) {
        const char *pattern = cJSON_GetObjectItem(q, "pattern")->valuestring;
        const char *answer = cJSON_GetObjectItem(q, "answer")->valuestring;
        struct quiz_re *re = NULL;
        struct buf err;
        bool found = false;
        buf_init(&err, BUF_NO_CAP);
        CHECK_INT(quiz_re_compile(pattern, strlen(pattern), &re, &err), QUIZ_OK);
        CHECK_INT(quiz_re_search(re, answer, strlen(answer), &found), QUIZ_OK);
        if (!found) fprintf(stderr, "answer [%s] misses its pattern %s\n", answer, pattern);
        CHECK(found);
        quiz_re_free(re);
        buf_free(&err);
        count++;
    }
    CHECK_INT(count, 40);
    cJSON_Delete(quiz);
    free(text);
}

int main(int argc, char **argv) {
    test_searches();
    test_bad_pattern();
    test_strip();
    test_cut();
    test_score_bounded();
    test_match_limit();
    CHECK(argc > 1);
    if (argc > 1) test_quiz_file(argv[1]);
    return check_exit();
}
