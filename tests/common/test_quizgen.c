/* quizgen: every generated item's check, applied by the one scorer (quiz.h),
 * accepts the reply that follows the instruction and its own answer, and
 * refuses the reply that breaks it; items are the same for the same seed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "quiz.h"
#include "quizgen.h"

static bool scores(const struct buf *pattern, const char *reply) {
    struct quiz_re *re = NULL;
    struct buf err;
    bool found = false;
    size_t off, n;
    buf_init(&err, 256);
    if (quiz_re_compile(pattern->data, pattern->len, &re, &err)) {
        fprintf(stderr, "pattern %s: %s\n", buf_str(pattern), buf_str(&err));
        found = false;
    } else if (quiz_score(re, reply, strlen(reply), &off, &n, &found))
        found = false;
    quiz_re_free(re);
    buf_free(&err);
    return found;
}

/* Every item of 600 per family: the answer and the right reply pass, the wrong
 * reply fails, the prompt is recognised as the item's family. */
static void test_checks_both_ways(uint64_t seed) {
    struct quizgen_item it;
    struct buf right, wrong;
    quizgen_item_init(&it);
    buf_init(&right, BUF_NO_CAP);
    buf_init(&wrong, BUF_NO_CAP);
    for (unsigned f = 0; f < QUIZGEN_FAMILIES; f++)
        for (unsigned i = 0; i < 600; i++) {
            enum quizgen_family got = QUIZGEN_FAMILIES;
            CHECK_INT(quizgen_make(seed, (enum quizgen_family)f, i, &it), QUIZGEN_OK);
            buf_reset(&right);
            buf_reset(&wrong);
            CHECK(quizgen_reply(it.prompt.data, it.prompt.len, true, &got, &right));
            CHECK_INT(got, f);
            CHECK(quizgen_reply(it.prompt.data, it.prompt.len, false, &got, &wrong));
            bool a = scores(&it.pattern, buf_str(&it.answer)),
                 r = scores(&it.pattern, buf_str(&right)), w = scores(&it.pattern, buf_str(&wrong));
            if (!a || !r || w)
                fprintf(stderr, "%s: %s\n  pattern %s\n  answer [%s] right [%s] wrong [%s]\n",
                        it.id, buf_str(&it.prompt), buf_str(&it.pattern), buf_str(&it.answer),
                        buf_str(&right), buf_str(&wrong));
            CHECK(a);
            CHECK(r);
            CHECK(!w);
        }
    quizgen_item_free(&it);
    buf_free(&right);
    buf_free(&wrong);
}

/* Typical replies a model writes, scored by the format checks. */
static void test_format_checks_read_model_replies(void) {
    struct quizgen_item it;
    quizgen_item_init(&it);
    CHECK_INT(quizgen_make(7, QUIZGEN_FORMAT, 1, &it), QUIZGEN_OK); /* the JSON shape */
    CHECK(strstr(buf_str(&it.prompt), "JSON object") != NULL);
    const char *ks = strstr(buf_str(&it.prompt), "keys: \"") + 7;
    char k1[16], k2[16], reply[128];
    CHECK(sscanf(ks, "%15[a-z]\" (a string) and \"%15[a-z]", k1, k2) == 2);
    snprintf(reply, sizeof reply, "\n{\n  \"%s\": 12,\n  \"%s\": \"x\"\n}\n", k2, k1);
    CHECK(scores(&it.pattern, reply)); /* either order, any white space */
    snprintf(reply, sizeof reply, "```json\n{\"%s\": \"x\", \"%s\": 12}\n```", k1, k2);
    CHECK(!scores(&it.pattern, reply)); /* "the JSON object only" */
    snprintf(reply, sizeof reply, "{\"%s\": \"x\", \"%s\": 12, \"extra\": 1}", k1, k2);
    CHECK(!scores(&it.pattern, reply));                             /* exactly two keys */
    CHECK_INT(quizgen_make(7, QUIZGEN_FORMAT, 5, &it), QUIZGEN_OK); /* capitals */
    CHECK(scores(&it.pattern, "BRÜCKEN SIND SCHÖN."));
    CHECK(!scores(&it.pattern, "BRÜCKEN SIND SCHöN."));
    quizgen_item_free(&it);
}

static void test_same_seed_same_items(void) {
    struct quizgen_item a, b;
    quizgen_item_init(&a);
    quizgen_item_init(&b);
    int differ = 0;
    for (unsigned i = 0; i < 50; i++) {
        CHECK_INT(quizgen_make(42, QUIZGEN_EXTRACT, i, &a), QUIZGEN_OK);
        CHECK_INT(quizgen_make(42, QUIZGEN_EXTRACT, i, &b), QUIZGEN_OK);
        CHECK_STR(buf_str(&a.prompt), buf_str(&b.prompt));
        CHECK_STR(a.id, b.id);
        CHECK_INT(quizgen_make(43, QUIZGEN_EXTRACT, i, &b), QUIZGEN_OK);
        differ += strcmp(buf_str(&a.prompt), buf_str(&b.prompt)) != 0;
    }
    CHECK(differ >= 45);
    CHECK_INT(quizgen_make(42, QUIZGEN_ARITH, 2, &a), QUIZGEN_OK);
    CHECK_STR(a.id, "arith-2");
    CHECK(strstr(buf_str(&a.prompt), "(difficulty level 3 of 3)") != NULL);
    quizgen_item_free(&a);
    quizgen_item_free(&b);
}

/* The reference quiz's prompts and anything else are no generated item. */
static void test_other_prompts_not_recognised(void) {
    static const char *const other[] = {
        "What is 54 * 28? Reply with the number only.",
        "Compute 12 * 12. Reply with the number only.",
        "Write about rivers in exactly many words",
        "List exactly 1000 ideas about x as a bulleted list",
        "",
    };
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        enum quizgen_family f;
        buf_reset(&out);
        CHECK(!quizgen_reply(other[i], strlen(other[i]), true, &f, &out));
    }
    buf_free(&out);
}

/* Hostile replies of nearly 64 KiB (what the scorer reads) are scored within
 * PCRE2's limits by every check: the search ends with an answer, never with
 * QUIZ_ERR_MATCH, so a reply costs a bounded number of steps. */
static void test_checks_bounded_on_hostile_replies(void) {
    static const char *const units[] = {"A", "- x\n", "word ", "a ", "{\"", "\"", " ", "A.", "ab"};
    static const char *const tails[] = {"a", "", "!", "- ", "\n"};
    struct quizgen_item it;
    struct buf reply;
    quizgen_item_init(&it);
    buf_init(&reply, BUF_NO_CAP);
    for (unsigned i = 0; i < 12; i++) { /* two of each kind of format check, and the others */
        enum quizgen_family f = i < 6 ? QUIZGEN_FORMAT : i < 9 ? QUIZGEN_ARITH : QUIZGEN_EXTRACT;
        CHECK_INT(quizgen_make(3, f, i < 6 ? i : i - 6, &it), QUIZGEN_OK);
        struct quiz_re *re = NULL;
        struct buf err;
        buf_init(&err, 256);
        CHECK_INT(quiz_re_compile(it.pattern.data, it.pattern.len, &re, &err), QUIZ_OK);
        for (size_t u = 0; re && u < sizeof units / sizeof *units; u++)
            for (size_t t = 0; t < sizeof tails / sizeof *tails; t++) {
                buf_reset(&reply);
                while (reply.len + 8 < QUIZ_SCORED_MAX) CHECK_INT(buf_adds(&reply, units[u]), 0);
                CHECK_INT(buf_adds(&reply, tails[t]), 0);
                bool found;
                size_t off, n;
                int rc = quiz_score(re, reply.data, reply.len, &off, &n, &found);
                if (rc != QUIZ_OK)
                    fprintf(stderr, "%s: pattern %s, reply of '%s' and '%s': %d\n", it.id,
                            buf_str(&it.pattern), units[u], tails[t], rc);
                CHECK_INT(rc, QUIZ_OK);
            }
        quiz_re_free(re);
        buf_free(&err);
    }
    quizgen_item_free(&it);
    buf_free(&reply);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 9000 items of a family are 9000 different prompts. */
static void test_prompts_distinct(void) {
    enum { N = 9000 };
    static char *p[N];
    struct quizgen_item it;
    quizgen_item_init(&it);
    for (unsigned f = 0; f < QUIZGEN_FAMILIES; f++) {
        for (unsigned i = 0; i < N; i++) {
            CHECK_INT(quizgen_make(5, (enum quizgen_family)f, i, &it), QUIZGEN_OK);
            p[i] = strdup(buf_str(&it.prompt));
        }
        qsort(p, N, sizeof *p, cmp_str);
        int same = 0;
        for (unsigned i = 1; i < N; i++) same += strcmp(p[i - 1], p[i]) == 0;
        CHECK_INT(same, 0);
        for (unsigned i = 0; i < N; i++) free(p[i]);
    }
    quizgen_item_free(&it);
}

static void test_family_names(void) {
    enum quizgen_family f;
    CHECK(quizgen_family_find("format", &f) && f == QUIZGEN_FORMAT);
    CHECK(!quizgen_family_find("Format", &f));
    CHECK_STR(quizgen_family_name(QUIZGEN_EXTRACT), "extract");
}

int main(void) {
    test_checks_both_ways(1);
    test_checks_both_ways(20261202);
    test_format_checks_read_model_replies();
    test_same_seed_same_items();
    test_other_prompts_not_recognised();
    test_family_names();
    test_prompts_distinct();
    test_checks_bounded_on_hostile_replies();
    return check_exit();
}
