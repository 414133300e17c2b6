/* A call's reply becoming its record: the token check, the quiz check, the
 * socket failure, the clock-skew retry, and the fields the plan fixes. */
#include <stdlib.h>

#include "../check.h"
#include "call.h"

#define CHAT(text, completion)                                                                     \
    "{\"choices\":[{\"message\":{\"content\":\"" text "\"},\"finish_reason\":\"length\"}],"        \
    "\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":" completion "}}"

#define EXPIRED                                                                                    \
    "Signature expired: 20261130T100000Z is now earlier than 20261130T101000Z (20261130T101500Z "  \
    "- "                                                                                           \
    "5 min.)"

enum kind { DECODE, QUIZ, PLAIN };

static const struct {
    const char *name;
    enum kind kind;
    bool ignore_eos;
    int status;
    const char *error_type, *date, *length, *body;
    bool retried, want_text;
    /* the record */
    bool ok;
    const char *code, *message, *text;
    int correct;
    long prompt, completion;
    bool retry, reply_text; /* and whether the reply kept its text */
} cases[] = {
    {"decode: the asked length", DECODE, true, 200, NULL, NULL, NULL, CHAT("x", "16"), false, false,
     true, NULL, NULL, NULL, -1, 21, 16, false, false},
    {"decode: short, ignore_eos ignored", DECODE, true, 200, NULL, NULL, NULL, CHAT("x", "5"),
     false, false, false, "token_mismatch", "the container ignored ignore_eos: asked 16, got 5",
     NULL, -1, 21, 5, false, false},
    {"decode: short without ignore_eos", DECODE, false, 200, NULL, NULL, NULL, CHAT("x", "5"),
     false, false, false, "token_mismatch", "asked 16, got 5", NULL, -1, 21, 5, false, false},
    {"decode: too long", DECODE, true, 200, NULL, NULL, NULL, CHAT("x", "20"), false, false, false,
     "token_mismatch", "the container passed max_tokens: asked 16, got 20", NULL, -1, 21, 20, false,
     false},
    {"decode: no count", DECODE, true, 200, NULL, NULL, NULL, "{\"choices\":[{\"text\":\"x\"}]}",
     false, false, false, "no_token_count",
     "the reply does not say how many tokens it generated (no usage or details)", NULL, -1, -1, -1,
     false, false},
    {"decode: an error stays the error", DECODE, true, 429, "ThrottlingException:x", NULL, NULL,
     "{\"message\":\"Rate exceeded\"}", false, false, false, "ThrottlingException", "Rate exceeded",
     NULL, -1, -1, -1, false, false},
    {"quiz: right, stripped", QUIZ, false, 200, NULL, NULL, NULL, CHAT("\\n Canberra.\\t", "3"),
     false, false, true, NULL, NULL, "Canberra.", 1, 21, 3, false, true},
    {"quiz: wrong", QUIZ, false, 200, NULL, NULL, NULL, CHAT("Sydney", "2"), false, false, true,
     NULL, NULL, "Sydney", 0, 21, 2, false, true},
    {"quiz: an error has no text", QUIZ, false, 500, NULL, NULL, NULL, "", false, false, false,
     "http_500", "(empty body)", NULL, 0, -1, -1, false, false},
    {"no reply: the connection closed", PLAIN, false, 0, NULL, NULL, NULL, NULL, false, false,
     false, "socket", "the connection closed before the reply", NULL, -1, -1, -1, false, false},
    {"the text kept when asked", PLAIN, false, 200, NULL, NULL, NULL, CHAT("story", "7"), false,
     true, true, NULL, NULL, NULL, -1, 21, 7, false, true},
    {"a dropped reply in front of this one", PLAIN, false, 200, NULL, NULL, "117",
     "{\"choices\":[{\"mess" CHAT("x", "9"), false, false, true, NULL, NULL, NULL, -1, 21, 9, false,
     false},
    {"a signing time refused: retry", DECODE, true, 403, "InvalidSignatureException:x",
     "Mon, 30 Nov 2026 10:15:00 GMT", NULL, "{\"message\":\"" EXPIRED "\"}", false, false, false,
     "InvalidSignatureException", EXPIRED, NULL, -1, -1, -1, true, false},
    {"a signing time refused again: no second retry", DECODE, true, 403,
     "InvalidSignatureException:x", "Mon, 30 Nov 2026 10:15:00 GMT", NULL,
     "{\"message\":\"" EXPIRED "\"}", true, false, false, "InvalidSignatureException", EXPIRED,
     NULL, -1, -1, -1, false, false},
};

static struct call *make(enum kind kind, bool ignore_eos, const struct quiz_re *re) {
    struct call_spec s = {
        .file = 3,
        .fixed =
            {
                .thread = 99, /* not read: the sender's, from the reply */
                .endpoint = "gemma",
                .variant = kind == QUIZ ? "AllTraffic" : NULL,
                .phase = kind == DECODE ? "decode" : "quiz",
                .batch = 4,
                .question = kind == QUIZ ? "cap-Australia" : NULL,
                .kind = kind == QUIZ ? "cap" : NULL,
                .max_tokens = 16,
                .answer = kind == QUIZ ? "Canberra" : NULL,
                .status = 999, /* the reply's fields are not taken from here */
                .ok = true,
                .error_code = "not read",
            },
        .expect_tokens = kind == DECODE ? 16 : -1,
        .ignore_eos = ignore_eos,
        .pattern = kind == QUIZ ? re : NULL,
    };
    struct call *c = NULL;
    CHECK_INT(call_new(&s, &c), CALL_OK);
    return c;
}

static void check_opt(const char *got, const char *want) {
    if (want)
        CHECK_STR(got, want);
    else
        CHECK(got == NULL);
}

static void test_cases(void) {
    struct buf err;
    struct quiz_re *re = NULL;
    buf_init(&err, 256);
    CHECK_INT(quiz_re_compile("\\bCanberra\\b", 12, &re, &err), QUIZ_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct call *c = make(cases[i].kind, cases[i].ignore_eos, re);
        const char *b = cases[i].body;
        struct call_reply in = {
            .thread = 7,
            .status = cases[i].status,
            .error_type = cases[i].error_type,
            .date = cases[i].date,
            .content_length = cases[i].length,
            .body = b,
            .len = b ? strlen(b) : 0,
            .retried = cases[i].retried,
            .want_text = cases[i].want_text,
            .t_start_us = 100,
            .t_end_us = 250,
            .wall_start_us = 1796035639023045LL,
            .now = 1796033400, /* 2026-11-30T10:10:00Z: the server is 5 minutes ahead */
        };
        struct call_result out;
        call_result_init(&out);
        CHECK_INT(call_finish(c, &in, &out), CALL_OK);
        const struct rec_record *r = &out.rec;
        CHECK_INT(r->ok, cases[i].ok);
        check_opt(r->error_code, cases[i].code);
        check_opt(r->error_message, cases[i].message);
        check_opt(r->text, cases[i].text);
        CHECK_INT(r->correct, cases[i].correct);
        check_opt(r->answer, cases[i].kind == QUIZ ? "Canberra" : NULL);
        CHECK_INT(r->prompt_tokens, cases[i].prompt);
        CHECK_INT(r->completion_tokens, cases[i].completion);
        CHECK_INT(r->status, cases[i].status);
        CHECK_INT(out.retry, cases[i].retry);
        CHECK(out.skewed == (cases[i].status == 403));
        if (out.skewed) CHECK_INT(out.skew_offset, 300);
        CHECK((out.reply.text != NULL) == cases[i].reply_text);
        /* The fields the plan fixed, and the times. */
        CHECK_INT(call_file(c), 3);
        CHECK_INT(r->thread, 7);
        CHECK_STR(r->endpoint, "gemma");
        check_opt(r->variant, cases[i].kind == QUIZ ? "AllTraffic" : NULL);
        CHECK_STR(r->phase, cases[i].kind == DECODE ? "decode" : "quiz");
        CHECK_INT(r->batch, 4);
        check_opt(r->question, cases[i].kind == QUIZ ? "cap-Australia" : NULL);
        CHECK_INT(r->max_tokens, 16);
        CHECK_INT(r->t_start_us, 100);
        CHECK_INT(r->t_end_us, 250);
        CHECK_INT(r->wall_start_us, 1796035639023045LL);
        if (check_failed) fprintf(stderr, "after case: %s\n", cases[i].name);
        call_result_clear(&out);
        call_free(c);
    }
    quiz_re_free(re);
    buf_free(&err);
}

/* A call keeps copies: the strings it was made from may go. */
static void test_copies(void) {
    char endpoint[] = "gemma", phase[] = "sweep";
    struct call_spec s = {.fixed = {.endpoint = endpoint, .phase = phase}, .expect_tokens = -1};
    struct call *c = NULL;
    CHECK_INT(call_new(&s, &c), CALL_OK);
    strcpy(endpoint, "XXXXX");
    strcpy(phase, "YYYYY");
    struct call_reply in = {.status = 200, .body = CHAT("x", "1"), .len = strlen(CHAT("x", "1"))};
    struct call_result out;
    call_result_init(&out);
    CHECK_INT(call_finish(c, &in, &out), CALL_OK);
    CHECK_STR(out.rec.endpoint, "gemma");
    CHECK_STR(out.rec.phase, "sweep");
    CHECK(out.rec.ok && out.rec.variant == NULL && out.rec.answer == NULL);
    CHECK_INT(out.rec.correct, -1);
    call_result_clear(&out);
    call_free(c);
}

/* The emulator's service time (its header's value) becomes the record's server_us;
 * a value that is not one, or none, leaves it out. */
static void test_service_us(void) {
    struct call_spec s = {.fixed = {.endpoint = "e", .phase = "sweep"}, .expect_tokens = -1};
    struct call *c = NULL;
    CHECK_INT(call_new(&s, &c), CALL_OK);
    const char *values[] = {"52000", NULL, "-1", "52000x"};
    for (size_t i = 0; i < 4; i++) {
        struct call_reply in = {.status = 200,
                                .body = CHAT("x", "1"),
                                .len = strlen(CHAT("x", "1")),
                                .service_us = values[i]};
        struct call_result out;
        call_result_init(&out);
        CHECK_INT(call_finish(c, &in, &out), CALL_OK);
        CHECK(out.rec.ok && out.rec.has_server_us == (i == 0));
        if (i == 0) CHECK(out.rec.server_us == 52000);
        call_result_clear(&out);
    }
    call_free(c);
}

/* A quiz reply of 1 MiB is scored on its first QUIZ_SCORED_MAX bytes, as
 * sm-stream keeps them: an answer past them does not count. */
static void check_huge_reply(size_t at, int correct) {
    const size_t n = (size_t)1 << 20;
    const char *head = "{\"choices\":[{\"message\":{\"content\":\"";
    const char *tail = "\"},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":21,"
                       "\"completion_tokens\":3}}";
    size_t lh = strlen(head), lt = strlen(tail);
    char *body = malloc(lh + n + lt + 1);
    /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes in a buffer */
    memcpy(body, head, lh);
    for (size_t i = 0; i < n; i++) body[lh + i] = i % 2 ? ' ' : 'w';
    /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes in a buffer */
    memcpy(body + lh + at, " Canberra ", 10);
    memcpy(body + lh + n, tail, lt + 1);
    struct buf err;
    struct quiz_re *re = NULL;
    buf_init(&err, 256);
    CHECK_INT(quiz_re_compile("\\bCanberra\\b", 12, &re, &err), QUIZ_OK);
    struct call *c = make(QUIZ, false, re);
    struct call_reply in = {.status = 200, .body = body, .len = strlen(body)};
    struct call_result out;
    call_result_init(&out);
    CHECK_INT(call_finish(c, &in, &out), CALL_OK);
    CHECK(out.rec.ok);
    CHECK_INT(out.rec.correct, correct);
    CHECK(strlen(out.rec.text) <= CALL_TEXT_MAX);
    call_result_clear(&out);
    call_free(c);
    quiz_re_free(re);
    buf_free(&err);
    free(body);
}

static void test_quiz_scores_a_bounded_prefix(void) {
    check_huge_reply(100, 1);
    check_huge_reply(QUIZ_SCORED_MAX - 100, 1);
    check_huge_reply(QUIZ_SCORED_MAX + 100, 0);
    check_huge_reply(((size_t)1 << 20) - 100, 0);
}

int main(void) {
    test_quiz_scores_a_bounded_prefix();
    test_service_us();
    test_cases();
    test_copies();
    return check_exit();
}
