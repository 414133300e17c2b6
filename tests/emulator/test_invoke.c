/* SageMaker Runtime without the HTTP layer: invoke runs on its own, answering
 * through the send function it is handed (here one that keeps the reply), as
 * the server does. Requests signed with the project's signer at the real clock:
 * /ping, a refusal, a call routed by Target-Variant, a variant that is not UTF-8,
 * a refusal of the HTTP layer, the stats document that counts them all; a
 * streamed call handed over in parts (head, a chunk a token, the end) whose
 * PayloadParts carry the container's events, its first token logged as sent
 * when the send that carried it returned (the socket's write, not its queue);
 * the OpenAI route with a bearer token, and its refusals in the OpenAI
 * envelope; stateful sessions: made on a variant, every later call in them
 * routed there (sticky), the stream route unable to make one, closed, then
 * unknown to the container. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#include "check.h"
#include "evs.h"
#include "rtcall.h"

#define AKID   "AKIDINVOKETEST"
#define SECRET "invoke-test-secret"

/* The last reply sent, and to whom; the parts of a streamed one. */
static struct {
    int n;
    void *owner;
    int status;
    char type[64], variant[64], content_type[64], sm_content_type[64];
    char new_session[128], closed_session[64];
    struct buf body;
    struct buf parts;        /* one letter a send: W whole, H head, C chunk, E end, A all */
    struct buf stream;       /* the bodies of a streamed reply's parts, joined */
    double first_token_left; /* when the send of the first part with a token returned */
    double next_entered;     /* when the send after it began */
} sent;

/* Whether a part carries a token: an event whose delta has content. */
static bool part_has_token(const struct invoke_reply *r) {
    static const char key[] = "\"content\":\"";
    const char *p = r->body, *end = r->body + r->body_len;
    while ((p = memmem(p, (size_t)(end - p), key, sizeof key - 1))) {
        p += sizeof key - 1;
        if (p < end && *p != '"') return true;
    }
    return false;
}

static void test_send(void *owner, const struct invoke_reply *r) {
    double entered = reqlog_now();
    if (sent.first_token_left > 0 && sent.next_entered == 0) sent.next_entered = entered;
    while (reqlog_now() < entered + 5e-6) { /* a write takes time (5 us, the log has 1 us) */
    }
    if (sent.first_token_left == 0 && part_has_token(r)) sent.first_token_left = reqlog_now();
    sent.n++;
    sent.owner = owner;
    sent.status = r->status;
    snprintf(sent.type, sizeof sent.type, "%s", r->error_type ? r->error_type : "");
    snprintf(sent.variant, sizeof sent.variant, "%s", r->variant ? r->variant : "");
    snprintf(sent.content_type, sizeof sent.content_type, "%s",
             r->content_type ? r->content_type : "");
    snprintf(sent.sm_content_type, sizeof sent.sm_content_type, "%s",
             r->sm_content_type ? r->sm_content_type : "");
    snprintf(sent.new_session, sizeof sent.new_session, "%s", r->new_session ? r->new_session : "");
    snprintf(sent.closed_session, sizeof sent.closed_session, "%s",
             r->closed_session ? r->closed_session : "");
    buf_reset(&sent.body);
    CHECK_INT(buf_add(&sent.body, r->body, r->body_len), 0);
    if (r->part == INVOKE_WHOLE || r->part == INVOKE_CHUNK_HEAD || r->part == INVOKE_CHUNK_ALL)
        buf_reset(&sent.stream);
    CHECK_INT(buf_add(&sent.stream, r->body, r->body_len), 0);
    CHECK_INT(buf_addc(&sent.parts, "WHCEA"[r->part]), 0);
}

/* Hands one request (head text and body) to inv, on owner; returns the call. */
static struct rtcall *run(struct invoke *inv, void *owner, const char *head, const char *body) {
    struct http_head h;
    CHECK_INT(http_parse_head(head, strlen(head), &h, NULL), 0);
    return rtcall_request(inv, owner, &h, body, strlen(body));
}

/* A request for target signed with AKID at the clock's now, with a Target-Variant if given. */
static void signed_head_to(struct buf *head, const char *target, const char *variant,
                           const char *body) {
    char date[SIGV4_DATE_LEN + 1];
    CHECK_INT(sigv4_format_date(time(NULL), date), 0);
    struct sigv4_header hs[] = {
        {"Host", 4, "localhost", 9},
        {"Content-Type", 12, "application/json", 16},
        {"X-Amz-Date", 10, date, SIGV4_DATE_LEN},
        {"X-Amzn-SageMaker-Target-Variant", 31, variant, variant ? strlen(variant) : 0},
    };
    size_t n = variant ? 4 : 3;
    struct sigv4_request req = {"POST", target, strlen(target), hs, n, body, strlen(body), NULL};
    struct sigv4_credentials creds = {AKID, SECRET, NULL};
    struct sigv4_params p = {"us-east-1", "sagemaker", date, false, false};
    struct sigv4_signer *signer = sigv4_signer_new();
    struct sigv4_result r;
    sigv4_result_init(&r);
    CHECK_INT(sigv4_sign(signer, &req, &creds, &p, &r), 0);
    buf_reset(head);
    CHECK_INT(buf_addf(head, "POST %s HTTP/1.1\r\n", target), 0);
    for (size_t i = 0; i < n; i++)
        CHECK_INT(buf_addf(head, "%s: %.*s\r\n", hs[i].name, (int)hs[i].value_len, hs[i].value), 0);
    CHECK_INT(buf_addf(head, "Authorization: %s\r\nContent-Length: %zu\r\n\r\n",
                       buf_str(&r.authorization), strlen(body)),
              0);
    sigv4_result_free(&r);
    sigv4_signer_free(signer);
}

static void signed_head(struct buf *head, const char *variant, const char *body) {
    signed_head_to(head, "/endpoints/ep/invocations", variant, body);
}

/* The event stream of the last streamed reply: its PayloadParts' payloads joined. */
static int payloads(struct buf *out, size_t *messages) {
    struct evs_decoder d;
    struct evs_message m;
    const uint8_t *p = (const uint8_t *)buf_str(&sent.stream);
    size_t n = sent.stream.len;
    int rc;
    *messages = 0;
    evs_decoder_init(&d, 0);
    while ((rc = evs_decoder_next(&d, &p, &n, &m, NULL)) == 1) {
        CHECK_INT(buf_add(out, m.payload, m.payload_len), 0);
        ++*messages;
    }
    if (rc == 0) rc = evs_decoder_finish(&d, NULL);
    evs_decoder_free(&d);
    return rc;
}

/* The request log's last line. */
static cJSON *last_logged(struct invoke *inv) {
    char line[4096] = "", last[4096] = "";
    rewind(inv->reqlog.f);
    while (fgets(line, sizeof line, inv->reqlog.f)) memcpy(last, line, sizeof last);
    cJSON *j = cJSON_Parse(last);
    CHECK(j != NULL);
    return j;
}

static void test_streams(struct invoke *inv, struct buf *head) {
    int owner = 9;
    struct buf events;
    size_t messages;
    buf_init(&events, BUF_NO_CAP);
    const char *body = "{\"messages\":[{\"role\":\"user\",\"content\":\"Write.\"}],"
                       "\"max_tokens\":3,\"ignore_eos\":true,\"stream\":true}";
    signed_head_to(head, "/endpoints/ep/invocations-response-stream", "A", body);
    buf_reset(&sent.parts);
    sent.first_token_left = sent.next_entered = 0;
    CHECK(run(inv, &owner, buf_str(head), body) == NULL); /* instant: every step at once */
    CHECK_STR(buf_str(&sent.parts), "HCCE");              /* the head, then a chunk a token */
    cJSON *line = last_logged(inv);
    double first = cJSON_GetNumberValue(cJSON_GetObjectItem(line, "first_token"));
    CHECK(sent.first_token_left > 0 && sent.next_entered > 0);
    CHECK(first >= sent.first_token_left - 1e-6 && first <= sent.next_entered + 1e-6);
    cJSON_Delete(line);
    CHECK_STR(sent.content_type, "application/vnd.amazon.eventstream");
    CHECK_STR(sent.sm_content_type, "text/event-stream");
    CHECK_INT(payloads(&events, &messages), 0);
    CHECK_INT(messages, 5); /* role, three tokens, [DONE] */
    CHECK(strstr(buf_str(&events), "\"finish_reason\":\"length\"") != NULL);
    CHECK(strstr(buf_str(&events), "data: [DONE]\n\n") != NULL);

    /* the same body without "stream": the container's JSON as one PayloadPart */
    body = "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 6 * 7?\"}]}";
    signed_head_to(head, "/endpoints/ep/invocations-response-stream", "A", body);
    buf_reset(&sent.parts);
    buf_reset(&events);
    CHECK(run(inv, &owner, buf_str(head), body) == NULL);
    CHECK_STR(buf_str(&sent.parts), "A");
    CHECK_STR(sent.sm_content_type, "application/json");
    CHECK_INT(payloads(&events, &messages), 0);
    CHECK(messages == 1 && strstr(buf_str(&events), "\"content\":\"42\"") != NULL);

    /* the OpenAI route: a bearer token given, SSE as it is; refusals in the envelope */
    body = "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 6 * 7?\"}],\"stream\":true}";
    static const char openai[] = "POST /endpoints/ep/openai/v1/chat/completions HTTP/1.1\r\n"
                                 "Content-Type: application/json\r\nAuthorization: Bearer %s\r\n"
                                 "\r\n";
    buf_reset(head);
    CHECK_INT(buf_addf(head, openai, "tok-1"), 0);
    buf_reset(&sent.parts);
    CHECK(run(inv, &owner, buf_str(head), body) == NULL);
    CHECK_STR(buf_str(&sent.parts), "HE"); /* one token: the head, then the last step */
    CHECK_STR(sent.content_type, "text/event-stream");
    CHECK(strncmp(buf_str(&sent.stream), "data: {\"id\":\"chatcmpl-", 22) == 0 &&
          strstr(buf_str(&sent.stream), "\"content\":\"42\"") != NULL);
    buf_reset(head);
    CHECK_INT(buf_addf(head, openai, "tok-2"), 0);
    CHECK(run(inv, &owner, buf_str(head), body) == NULL);
    CHECK_INT(sent.status, 401);
    CHECK_STR(buf_str(&sent.body), "{\"error\":{\"message\":\"The bearer token included in the "
                                   "request is invalid.\",\"type\":\"invalid_request_error\","
                                   "\"param\":null,\"code\":\"invalid_api_key\"}}");
    CHECK(run(inv, &owner,
              "POST /endpoints/ep/openai/v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n",
              body) == NULL);
    CHECK_INT(sent.status, 401);
    CHECK(strstr(buf_str(&sent.body), "\"code\":\"missing_authentication_token\"") != NULL);
    buf_free(&events);
}

/* head with the header X-Amzn-SageMaker-Session-Id: id added (not signed, as SageMaker allows). */
static void with_session(struct buf *head, const char *id) {
    char *auth = strstr(buf_str(head), "Authorization: ");
    struct buf rest;
    buf_init(&rest, BUF_NO_CAP);
    CHECK_INT(buf_adds(&rest, auth), 0);
    buf_truncate(head, (size_t)(auth - buf_str(head)));
    CHECK_INT(buf_addf(head, "X-Amzn-SageMaker-Session-Id: %s\r\n%s", id, buf_str(&rest)), 0);
    buf_free(&rest);
}

static void test_sessions(struct invoke *inv, struct buf *head) {
    int owner = 11;
    char id[64];
    const char *open = "{\"requestType\":\"NEW_SESSION\"}", *close = "{\"requestType\":\"CLOSE\"}";
    const char *body = "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 6 * 7?\"}]}";
    inv->fleet->eps[0].variants[0].profile.weight = 1e9; /* A unless a session says B */
    signed_head(head, "B", open);
    with_session(head, "NEW_SESSION");
    CHECK(run(inv, &owner, buf_str(head), open) == NULL);
    CHECK_INT(sent.status, 200);
    CHECK_STR(sent.variant, "B");
    CHECK_STR(sent.content_type, "text/plain; charset=utf-8");
    CHECK(strlen(sent.new_session) == 36 + 30 && strstr(sent.new_session, "; Expires=20"));
    snprintf(id, sizeof id, "%.36s", sent.new_session);
    for (int i = 0; i < 10; i++) {
        signed_head(head, NULL, body);
        with_session(head, id);
        CHECK(run(inv, &owner, buf_str(head), body) == NULL);
        CHECK_INT(sent.status, 200);
        CHECK_STR(sent.variant, "B");
        CHECK_STR(sent.new_session, "");
    }
    signed_head(head, NULL, body); /* without the session: A */
    CHECK(run(inv, &owner, buf_str(head), body) == NULL);
    CHECK_STR(sent.variant, "A");
    /* the stream route cannot make a session; it can use one */
    signed_head_to(head, "/endpoints/ep/invocations-response-stream", NULL, open);
    with_session(head, "NEW_SESSION");
    CHECK(run(inv, &owner, buf_str(head), open) == NULL);
    CHECK_INT(sent.status, 400);
    CHECK_STR(sent.type, "ValidationError");
    CHECK_STR(buf_str(&sent.body),
              "{\"message\":\"1 validation error detected: Value 'NEW_SESSION' at 'sessionId' "
              "failed to satisfy constraint: Member must satisfy regular expression pattern: "
              "^[a-zA-Z0-9](-*[a-zA-Z0-9])*$\"}");
    signed_head_to(head, "/endpoints/ep/invocations-response-stream", NULL, body);
    with_session(head, id);
    CHECK(run(inv, &owner, buf_str(head), body) == NULL);
    CHECK_INT(sent.status, 200);
    CHECK_STR(sent.variant, "B");
    /* closed: the header names it; then the container knows it no more (a ModelError) */
    signed_head(head, NULL, close);
    with_session(head, id);
    CHECK(run(inv, &owner, buf_str(head), close) == NULL);
    CHECK_INT(sent.status, 200);
    CHECK_STR(sent.closed_session, id);
    CHECK_STR(sent.variant, "B");
    signed_head(head, NULL, body);
    with_session(head, id);
    CHECK(run(inv, &owner, buf_str(head), body) == NULL);
    CHECK_INT(sent.status, 424);
    CHECK_STR(sent.type, "ModelError");
    CHECK(strstr(buf_str(&sent.body), "Bad request: session not found: ") != NULL);
    CHECK_INT(inv->fleet->eps[0].variants[FLEET_INSTANCES_MAX].sessions.c.created, 1); /* B */
    CHECK_INT(inv->fleet->eps[0].variants[FLEET_INSTANCES_MAX].sessions.c.closed, 1);
    inv->fleet->eps[0].variants[0].profile.weight = 1;
}

static void setup(struct invoke *inv, struct fleet *f, struct gate *g, struct event_base *base) {
    struct buf err;
    buf_init(&err, 1024);
    struct fleet_spec a = {"ep", "A", "instant"}, b = {"ep", "B", "instant"};
    CHECK_INT(fleet_add(f, &a, NULL, &err), 0);
    CHECK_INT(fleet_add(f, &b, NULL, &err), 0);
    CHECK_INT(fleet_seed(f, 1), 0);
    gate_init(g, 4, 1 << 20);
    *inv = (struct invoke){.base = base, .fleet = f, .gate = g, .send = test_send, .rng = 1};
    snprintf(inv->region, sizeof inv->region, "us-east-1");
    snprintf(inv->account, sizeof inv->account, "123456789012");
    inv->time_scale = 1;
    inv->max_duration = 60;
    CHECK_INT(auth_init(&inv->auth, "us-east-1"), 0);
    CHECK_INT(auth_add_key(&inv->auth, AKID, SECRET, NULL, 0), 0);
    CHECK_INT(auth_add_bearer(&inv->auth, "tok-1", &err), 0);
    CHECK((inv->reqlog.f = tmpfile()) != NULL);
    buf_init(&inv->reqlog.line, BUF_NO_CAP);
    CHECK_INT(rtcall_start(inv), 0);
    buf_free(&err);
}

int main(void) {
    struct event_base *base = event_base_new();
    struct fleet f = {0};
    struct gate g;
    struct invoke inv;
    struct buf head;
    int owner = 7; /* the connection, opaque to invoke */
    buf_init(&sent.body, BUF_NO_CAP);
    buf_init(&sent.parts, BUF_NO_CAP);
    buf_init(&sent.stream, BUF_NO_CAP);
    buf_init(&head, BUF_NO_CAP);
    setup(&inv, &f, &g, base);

    CHECK(run(&inv, &owner, "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n", "") == NULL);
    CHECK(sent.n == 1 && sent.owner == &owner && sent.status == 200 && sent.body.len == 0);

    CHECK(run(&inv, &owner, "POST /endpoints/ep/invocations HTTP/1.1\r\nHost: x\r\n\r\n", "{}") ==
          NULL);
    CHECK_INT(sent.status, 403);
    CHECK_STR(sent.type, "MissingAuthenticationTokenException");
    CHECK_STR(buf_str(&sent.body), "{\"message\":\"Missing Authentication Token\"}");

    const char *body = "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 6 * 7?\"}]}";
    signed_head(&head, "B", body);
    CHECK(run(&inv, &owner, buf_str(&head), body) == NULL); /* instant: answered at once */
    CHECK_INT(sent.status, 200);
    CHECK_STR(sent.variant, "B");
    cJSON *j = cJSON_Parse(buf_str(&sent.body));
    const cJSON *msg =
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "choices"), 0), "message");
    CHECK(msg && strcmp(cJSON_GetObjectItem(msg, "content")->valuestring, "42") == 0);
    cJSON_Delete(j);

    signed_head(&head, "\xff", body);
    CHECK(run(&inv, &owner, buf_str(&head), body) == NULL);
    CHECK_INT(sent.status, 400);
    CHECK_STR(sent.type, "ValidationError");
    CHECK_STR(buf_str(&sent.body), "{\"message\":\"Variant \xef\xbf\xbd not found for Endpoint ep "
                                   "of account 123456789012.\"}");

    invoke_refuse(&inv, &owner, INVOKE_TIMEOUT);
    CHECK_INT(sent.status, 408);
    CHECK_STR(buf_str(&sent.body), "{\"message\":\"Request Timeout\"}");

    (void)!gate_open(&g);
    g.n.head_timeouts = 1;
    CHECK(run(&inv, &owner, "GET /emulator/stats HTTP/1.1\r\n\r\n", "") == NULL);
    j = cJSON_Parse(buf_str(&sent.body));
    const cJSON *totals = cJSON_GetObjectItem(j, "totals");
    const cJSON *replies = cJSON_GetObjectItem(totals, "replies");
    CHECK_INT(cJSON_GetObjectItem(totals, "requests")->valueint, 5);
    CHECK_INT(cJSON_GetArraySize(replies), 4);
    CHECK_INT(cJSON_GetObjectItem(replies, "200")->valueint, 2);
    CHECK_INT(cJSON_GetObjectItem(replies, "408")->valueint, 1);
    const cJSON *b = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "endpoints"), "ep"),
                            "variants"),
        "B");
    CHECK_INT(cJSON_GetObjectItem(b, "completion_tokens")->valueint, 1);
    CHECK_INT(cJSON_GetObjectItem(j, "connections")->valueint, 1);
    CHECK_INT(cJSON_GetObjectItem(j, "open_connections")->valueint, 1);
    CHECK_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "limits"), "head_timeouts")->valueint, 1);
    cJSON_Delete(j);

    test_streams(&inv, &head);
    test_sessions(&inv, &head);

    rtcall_stop(&inv);
    reqlog_close(&inv.reqlog);
    auth_free(&inv.auth);
    fleet_free(&f);
    event_base_free(base);
    buf_free(&head);
    buf_free(&sent.body);
    buf_free(&sent.parts);
    buf_free(&sent.stream);
    return check_exit();
}
