/* Fuzzes the call core (plugin/call.h): what came back for a request becoming
 * its record. Input: "STATUS[ x-amzn-ErrorType]\n" (STATUS 0: no reply), header
 * lines up to an empty line, then the body (an input without the status line
 * is a 200 body, planned "plain"):
 *   Date: HTTP-date
 *   Content-Length: N (digits only, as HTTP has it; else nothing is cut)
 *   Plan: decode N | quiz QUESTION-ID | plain, then any of eos, retried, text
 * (QUESTION-ID: one of scenarios/quiz-compare-py-40.json).
 *
 * The record keeps the fields the plan fixed, the times and the status; its
 * reply fields are those reply_parse_with reads from the body's last
 * Content-Length bytes; a reply's error stays its error; a decode's success of
 * another length is no_token_count or token_mismatch, the message naming both
 * counts and why; a quiz reply is kept stripped (Python's str.strip) and is
 * correct exactly when the question's pattern matches the whole reply, and
 * always when it is the answer itself; only a signing-time refusal with a valid
 * Date is skewed, by that Date's offset, and asks for one retry. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "call.h"
#include "plugcheck.h"
#include "skew.h"

#define FUZZ_NOW 1796033400 /* 2026-11-30T10:10:00Z */

struct fuzz_plan {
    struct plugcheck_input input;
    char *date, *length, *words; /* malloc'ed header values, or NULL */
    long expect;                 /* < 0: any length */
    const struct quizfile_question *q;
    bool decode, ignore_eos, retried, want_text;
};

/* Sets *value to a malloc'ed copy of the header line's value when its name is name. */
static void fuzz_header(const char *line, size_t n, const char *name, char **value) {
    size_t k = strlen(name);
    if (n < k + 1 || strncasecmp(line, name, k) != 0 || line[k] != ':') return;
    for (line += k + 1, n -= k + 1; n && *line == ' '; line++, n--) continue;
    free(*value);
    if (!(*value = strndup(line, n))) abort();
}

/* Reads the header lines in front of the body, up to and with an empty line. */
static void fuzz_headers(struct fuzz_plan *p) {
    struct plugcheck_input *in = &p->input;
    const char *nl;
    while (in->len && (nl = memchr(in->body, '\n', in->len))) {
        size_t n = (size_t)(nl - in->body);
        fuzz_header(in->body, n, "Date", &p->date);
        fuzz_header(in->body, n, "Content-Length", &p->length);
        fuzz_header(in->body, n, "Plan", &p->words);
        in->len -= n + 1;
        in->body = nl + 1;
        if (n == 0) return;
    }
    in->len = 0;
}

static void fuzz_plan_words(struct fuzz_plan *p) {
    char *save = NULL, *w = p->words ? strtok_r(p->words, " ", &save) : NULL, *next;
    for (; w; w = strtok_r(NULL, " ", &save)) {
        if (strcmp(w, "decode") == 0 && (next = strtok_r(NULL, " ", &save))) {
            p->decode = true;
            p->expect = strtol(next, NULL, 10);
        } else if (strcmp(w, "quiz") == 0 && (next = strtok_r(NULL, " ", &save))) {
            p->q = quizfile_find(plugcheck_quiz(), next);
        }
        p->ignore_eos |= strcmp(w, "eos") == 0;
        p->retried |= strcmp(w, "retried") == 0;
        p->want_text |= strcmp(w, "text") == 0;
    }
}

static void fuzz_plan_read(const uint8_t *data, size_t size, struct fuzz_plan *p) {
    *p = (struct fuzz_plan){.expect = -1};
    plugcheck_input_split(data, size, &p->input);
    if (p->input.body != (const char *)data) fuzz_headers(p);
    fuzz_plan_words(p);
}

static void fuzz_plan_free(struct fuzz_plan *p) {
    plugcheck_input_free(&p->input);
    free(p->date);
    free(p->length);
    free(p->words);
}

static struct call_spec fuzz_spec(const struct fuzz_plan *p) {
    return (struct call_spec){
        .file = 3,
        .fixed =
            {
                .thread = 99, /* not read: the sender's, from the reply */
                .endpoint = "gemma",
                .variant = p->q ? "AllTraffic" : NULL,
                .phase = p->q        ? "quiz"
                         : p->decode ? "decode"
                                     : "sweep",
                .batch = 4,
                .question = p->q ? p->q->id : NULL,
                .kind = p->q ? p->q->kind : NULL,
                .max_tokens = p->decode ? p->expect : 64,
                .answer = p->q ? p->q->answer : NULL,
                .status = 999, /* not read: the reply's */
                .error_code = "not read",
            },
        .expect_tokens = p->decode ? p->expect : -1,
        .ignore_eos = p->ignore_eos,
        .pattern = p->q ? p->q->re : NULL,
    };
}

static struct call_reply fuzz_reply(const struct fuzz_plan *p) {
    return (struct call_reply){
        .thread = 7,
        .status = p->input.status,
        .error_type = p->input.error_type,
        .date = p->date,
        .content_length = p->length,
        .body = p->input.body,
        .len = p->input.len,
        .retried = p->retried,
        .want_text = p->want_text,
        .t_start_us = 100,
        .t_end_us = 250,
        .wall_start_us = 1796035639023045LL,
        .now = FUZZ_NOW,
    };
}

/* What the reply alone says: the body's last Content-Length bytes parsed, or
 * the socket failure of no reply. */
static void fuzz_expected_reply(const struct fuzz_plan *p, struct reply *r) {
    const char *body = p->input.body;
    size_t len = p->input.len;
    char *end = NULL;
    /* HTTP's Content-Length is digits only: no sign, no space */
    bool digits = p->length && *p->length >= '0' && *p->length <= '9';
    unsigned long long n = digits ? strtoull(p->length, &end, 10) : 0;
    reply_init(r);
    if (p->input.status == 0) {
        if (!(r->error_code = strdup("socket")) || !(r->error_message = strdup("no reply")))
            abort();
        return;
    }
    if (end && end != p->length && !*end && n < len) body += len - n, len = (size_t)n;
    if (reply_parse_with(p->input.status, p->input.error_type, body, len, REPLY_TEXT, r)) abort();
}

static void fuzz_check_fixed(const struct rec_record *rec, const struct rec_record *f) {
    if (rec->thread != 7 || !plugcheck_same(rec->endpoint, f->endpoint) ||
        !plugcheck_same(rec->variant, f->variant) || !plugcheck_same(rec->phase, f->phase) ||
        rec->batch != f->batch || !plugcheck_same(rec->question, f->question) ||
        !plugcheck_same(rec->kind, f->kind) || rec->max_tokens != f->max_tokens ||
        !plugcheck_same(rec->answer, f->answer) || rec->t_start_us != 100 || rec->t_end_us != 250 ||
        rec->wall_start_us != 1796035639023045LL)
        abort();
}

/* A decode's success: its length checked against the plan. */
static void fuzz_check_tokens(const struct fuzz_plan *p, const struct call_result *out) {
    const struct rec_record *rec = &out->rec;
    long got = rec->completion_tokens;
    char tail[64];
    snprintf(tail, sizeof tail, "asked %ld, got %ld", p->expect, got);
    size_t n = strlen(tail), m = rec->error_message ? strlen(rec->error_message) : 0;
    bool short_eos = got < p->expect && p->ignore_eos, long_reply = got > p->expect;
    if (got < 0) {
        if (!plugcheck_same(rec->error_code, "no_token_count")) abort();
    } else if (got == p->expect) {
        if (!rec->ok) abort();
    } else if (!plugcheck_same(rec->error_code, "token_mismatch") || !rec->error_message || m < n ||
               strcmp(rec->error_message + m - n, tail) != 0 ||
               short_eos != (strstr(rec->error_message, "ignored ignore_eos") != NULL) ||
               long_reply != (strstr(rec->error_message, "passed max_tokens") != NULL)) {
        abort();
    }
}

/* A quiz reply: kept stripped, scored as the whole reply scores. */
static void fuzz_check_quiz(const struct fuzz_plan *p, const struct reply *want,
                            const struct rec_record *rec) {
    size_t off, n;
    if (want->error_code) {
        if (rec->correct != 0 || rec->text) abort();
        return;
    }
    quiz_strip(want->text, strlen(want->text), &off, &n);
    if (!rec->text || strlen(rec->text) != n || memcmp(rec->text, want->text + off, n) != 0 ||
        rec->correct != quizfile_score(p->q, want->text))
        abort();
    if (strcmp(rec->text, p->q->answer) == 0 && rec->correct != 1) abort();
}

static void fuzz_check_skew(const struct fuzz_plan *p, const struct reply *want,
                            const struct call_result *out) {
    time_t server;
    bool skewed = want->error_code &&
                  skew_is_time_error(p->input.status, want->error_code, want->error_message) &&
                  p->date && skew_parse_http_date(p->date, &server) == 0;
    /* a 400 (or 424 of one) naming continuous_usage_stats: sent again without it */
    int st = p->input.status;
    bool usage =
        !p->retried && want->error_message &&
        strstr(want->error_message, "continuous_usage_stats") &&
        (st == 400 || (st == 424 && (want->original_status == 400 || want->original_status == 0)));
    if (out->skewed != skewed || out->plain_usage != usage ||
        out->retry != ((skewed || usage) && !p->retried) ||
        (skewed && out->skew_offset != (long long)server - FUZZ_NOW))
        abort();
}

static void fuzz_check(const struct fuzz_plan *p, const struct call_spec *spec,
                       const struct call_result *out) {
    const struct rec_record *rec = &out->rec;
    struct reply want;
    fuzz_expected_reply(p, &want);
    fuzz_check_fixed(rec, &spec->fixed);
    if (rec->status != p->input.status || rec->ok != (rec->error_code == NULL) ||
        rec->prompt_tokens != want.prompt_tokens ||
        rec->completion_tokens != want.completion_tokens ||
        !plugcheck_same(rec->finish_reason, want.finish_reason) ||
        rec->original_status != want.original_status)
        abort();
    if (rec->error_code) {
        plugcheck_one_line(rec->error_code, REPLY_MESSAGE_MAX);
        plugcheck_one_line(rec->error_message, REPLY_MESSAGE_MAX);
    }
    if (want.error_code &&
        (!plugcheck_same(rec->error_code, want.error_code) ||
         (p->input.status && !plugcheck_same(rec->error_message, want.error_message))))
        abort();
    if (!want.error_code && p->decode && p->expect >= 0) fuzz_check_tokens(p, out);
    if (!want.error_code && !(p->decode && p->expect >= 0) && !rec->ok) abort();
    if (p->q) {
        fuzz_check_quiz(p, &want, rec);
    } else if (rec->correct != -1 || rec->text ||
               (out->reply.text != NULL) != (p->want_text && !want.error_code)) {
        abort();
    }
    fuzz_check_skew(p, &want, out);
    reply_clear(&want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct fuzz_plan p;
    struct call *c = NULL;
    struct call_result out;
    fuzz_plan_read(data, size, &p);
    struct call_spec spec = fuzz_spec(&p);
    struct call_reply in = fuzz_reply(&p);
    if (call_new(&spec, &c) != CALL_OK) abort();
    call_result_init(&out);
    if (call_finish(c, &in, &out) != CALL_OK || call_file(c) != 3) abort();
    fuzz_check(&p, &spec, &out);
    call_result_clear(&out);
    call_free(c);
    fuzz_plan_free(&p);
    return 0;
}
