/* Stateful sessions over an injected clock: what a body asks, SessionId's
 * patterns, open/find/close with expiry, a full table, the table's deletions
 * keeping every other session findable, and the container's answers
 * (sess_handle) in the order the container gives them. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sess.h"

static void test_kinds(void) {
    static const struct {
        const char *body;
        enum sess_kind kind;
        const char *why;
    } rows[] = {
        {"{\"requestType\":\"NEW_SESSION\"}", SESS_OPEN, ""},
        {" { \"requestType\" : \"CLOSE\" } ", SESS_CLOSE, ""},
        {"{\"requestType\":\"NEW_SESSION\",\"extra-field\":1}", SESS_BAD,
         "extra-field: Extra inputs are not permitted"},
        {"{\"requestType\":\"OPEN\"}", SESS_BAD,
         "requestType: Input should be 'NEW_SESSION' or 'CLOSE'"},
        {"{\"requestType\":1}", SESS_BAD, "requestType: Input should be 'NEW_SESSION' or 'CLOSE'"},
        {"{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", SESS_NONE, ""},
        {"{\"prompt\":\"\\\"requestType\\\"\"}", SESS_NONE, ""}, /* the word, not a member */
        {"[\"requestType\"]", SESS_NONE, ""},
        {"{\"requestType\":\"NEW_SESSION\"", SESS_NONE, ""}, /* not JSON: the container's 400 */
        {"", SESS_NONE, ""},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct buf why;
        buf_init(&why, 256);
        CHECK_INT(sess_request_kind(rows[i].body, strlen(rows[i].body), &why), rows[i].kind);
        CHECK_STR(buf_str(&why), rows[i].why);
        buf_free(&why);
    }
}

static void test_ids(void) {
    static const struct {
        const char *id;
        bool invoke, stream;
    } rows[] = {
        {"NEW_SESSION", true, false},
        {"a", true, true},
        {"a-b--c9", true, true},
        {"-a", false, false},
        {"a-", false, false},
        {"a_b", false, false},
        {"", false, false},
        {"new_session", false, false},
        {"NEW_SESSIONS", false, false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        size_t n = strlen(rows[i].id);
        CHECK_INT(sess_id_ok(rows[i].id, n, true), rows[i].invoke);
        CHECK_INT(sess_id_ok(rows[i].id, n, false), rows[i].stream);
    }
    char id[SESS_ID_MAX + 2];
    memset(id, 'a', sizeof id);
    CHECK(sess_id_ok(id, SESS_ID_MAX, false));
    CHECK(!sess_id_ok(id, SESS_ID_MAX + 1, false));
}

static void test_table(void) {
    struct sess s = {0};
    uint64_t rng = 42;
    char id[SESS_ID_LEN + 1], first[SESS_ID_LEN + 1], expires[SESS_EXPIRES_AT + 1];
    CHECK_INT(sess_open(&s, &rng, 1000, 60, first), 0);
    CHECK_INT(strlen(first), SESS_ID_LEN);
    CHECK(sess_id_ok(first, SESS_ID_LEN, false) && first[14] == '4'); /* a UUID, version 4 */
    CHECK(sess_holds(&s, first, SESS_ID_LEN));
    CHECK_INT(sess_find(&s, first, SESS_ID_LEN, 1060), SESS_LIVE); /* to the second it expires */
    CHECK_INT(sess_find(&s, first, SESS_ID_LEN, 1060.5), SESS_EXPIRED);
    CHECK_INT(sess_find(&s, first, SESS_ID_LEN, 1060.5), SESS_UNKNOWN); /* closed by then */
    CHECK(!sess_holds(&s, first, SESS_ID_LEN));
    CHECK_INT(sess_close(&s, first, SESS_ID_LEN), SESS_ERR_UNKNOWN);
    CHECK_INT(s.c.expired, 1);

    /* 3,000 open, every other closed: the rest all found (deletions move no one out of reach) */
    static char ids[3000][SESS_ID_LEN + 1];
    for (int i = 0; i < 3000; i++) CHECK_INT(sess_open(&s, &rng, 2000, 10000, ids[i]), 0);
    for (int i = 0; i < 3000; i += 2) CHECK_INT(sess_close(&s, ids[i], SESS_ID_LEN), 0);
    int live = 0;
    for (int i = 0; i < 3000; i++) live += sess_find(&s, ids[i], SESS_ID_LEN, 2001) == SESS_LIVE;
    CHECK_INT(live, 1500);
    CHECK_INT(s.n, 1500);
    CHECK_INT(s.c.closed, 1500);
    CHECK(!sess_holds(&s, "x", 1));

    /* full: SESS_MAX open refuse one more until some expire */
    for (size_t i = s.n; i < SESS_MAX; i++)
        CHECK_INT(sess_open(&s, &rng, 2500, i < SESS_MAX / 2 ? 100 : 1000, id), 0);
    CHECK_INT(sess_open(&s, &rng, 2550, 60, id), SESS_ERR_FULL);
    CHECK_INT(sess_open(&s, &rng, 2700, 60, id), 0); /* those of ttl 100 expired: room */
    CHECK_INT(s.n, SESS_MAX / 2 + 1501);
    CHECK_INT(s.c.expired, 1 + SESS_MAX / 2 - 1500);
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    CHECK_INT(sess_json(&out, &s), 0);
    char want[128];
    snprintf(want, sizeof want, "{\"open\":%d,\"created\":%d,\"closed\":1500,\"expired\":%d}",
             SESS_MAX / 2 + 1501, SESS_MAX + 1502, 1 + SESS_MAX / 2 - 1500);
    CHECK_STR(buf_str(&out), want);
    buf_free(&out);
    sess_free(&s);
    CHECK_INT(s.n, 0);
    sess_expires_text(1790361612.9, expires);
    CHECK_STR(expires, "2026-09-25T18:40:12Z");
}

/* One request through the container's session manager. */
static int handle(struct sess *s, double ttl, const char *id, const char *body, double now,
                  struct sess_reply *r) {
    uint64_t rng = 7;
    sess_reply_free(r);
    sess_reply_init(r);
    CHECK_INT(sess_handle(s, ttl, id, id ? strlen(id) : 0, body, strlen(body), now, &rng, r), 0);
    return r->status;
}

static void test_handle(void) {
    struct sess s = {0};
    struct sess_reply r;
    const char *open = "{\"requestType\":\"NEW_SESSION\"}", *close = "{\"requestType\":\"CLOSE\"}",
               *chat = "{\"messages\":[]}";
    char id[SESS_ID_LEN + 1], msg[128];
    sess_reply_init(&r);
    /* sessions off: a header or a session request is the container's 400 */
    CHECK_INT(handle(&s, 0, "NEW_SESSION", open, 100, &r), 400);
    CHECK_STR(buf_str(&r.text), "Invalid payload. stateful sessions not enabled, "
                                "X-Amzn-SageMaker-Session-Id header not supported");
    CHECK_INT(handle(&s, 0, NULL, open, 100, &r), 400);
    CHECK_INT(handle(&s, 0, NULL, chat, 100, &r), 0);
    /* open: the id and its expiry in the header */
    CHECK_INT(handle(&s, 60, "NEW_SESSION", open, 1790361600, &r), 200);
    snprintf(id, sizeof id, "%.36s", r.session);
    snprintf(msg, sizeof msg, "%s; Expires=2026-09-25T18:41:00Z", id);
    CHECK_STR(r.new_session, msg);
    snprintf(msg, sizeof msg, "Session %s created", id);
    CHECK_STR(buf_str(&r.text), msg);
    CHECK(!r.closed);
    /* a request in it goes on to the model, naming it */
    CHECK_INT(handle(&s, 60, id, chat, 1790361610, &r), 0);
    CHECK_STR(r.session, id);
    CHECK_STR(r.new_session, "");
    /* NEW_SESSION with a model request: no session made (the body does not ask) */
    CHECK_INT(handle(&s, 60, "NEW_SESSION", chat, 1790361610, &r), 0);
    CHECK_STR(r.session, "");
    CHECK_INT(s.n, 1);
    /* malformed, unknown */
    CHECK_INT(handle(&s, 60, id, "{\"requestType\":\"CLOSE\",\"x\":0}", 1790361610, &r), 400);
    CHECK_STR(buf_str(&r.text), "x: Extra inputs are not permitted");
    CHECK_INT(handle(&s, 60, "nope-1", chat, 1790361610, &r), 400);
    CHECK_STR(buf_str(&r.text), "Bad request: session not found: nope-1");
    CHECK_INT(handle(&s, 60, "nope-1", close, 1790361610, &r), 400);
    /* close: no id, NEW_SESSION, then the session itself */
    CHECK_INT(handle(&s, 60, NULL, close, 1790361610, &r), 424);
    CHECK_STR(buf_str(&r.text), "Failed to close session: invalid session_id: None");
    CHECK_INT(handle(&s, 60, "NEW_SESSION", close, 1790361610, &r), 424);
    CHECK_STR(buf_str(&r.text), "Failed to close session: session not found: NEW_SESSION");
    CHECK_INT(handle(&s, 60, id, close, 1790361610, &r), 200);
    CHECK(r.closed);
    CHECK_STR(r.session, id);
    CHECK_INT(handle(&s, 60, id, chat, 1790361611, &r), 400); /* closed: not found */
    /* expired: closed when named, the request served without it; then not found */
    CHECK_INT(handle(&s, 60, "NEW_SESSION", open, 1790361700, &r), 200);
    snprintf(id, sizeof id, "%.36s", r.session);
    CHECK_INT(handle(&s, 60, id, chat, 1790361761, &r), 0);
    CHECK_INT(s.c.expired, 1);
    CHECK_INT(s.n, 0);
    CHECK_INT(handle(&s, 60, id, close, 1790361762, &r), 400);
    sess_reply_free(&r);
    sess_free(&s);
}

int main(void) {
    test_kinds();
    test_ids();
    test_table();
    test_handle();
    return check_exit();
}
