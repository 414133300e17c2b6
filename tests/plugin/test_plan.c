/* The plan (plan.h): items made ready once, requests shared by side and body,
 * the schedule of the rounds, and what a wrong plan is told. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../check.h"
#include "plan.h"

static const struct plan_request chat = {.host = "h",
                                         .region = "us-east-1",
                                         .service = "sagemaker",
                                         .format = "vllm-chat",
                                         .min_tokens = -1,
                                         .custom_attributes = "a=b"};
static const struct plan_side sides[] = {{"bf16", NULL, NULL}, {"ep", "qat", "comp"}};

static struct plan_item item(size_t side, const char *prompt, long max_tokens) {
    return (struct plan_item){.side = side,
                              .phase = "decode",
                              .prompt = prompt,
                              .max_tokens = max_tokens,
                              .expect_tokens = -1};
}

/* The request of e signed with fixed credentials at a fixed time. */
static const char *signed_request(const struct plan_entry *e, struct sigv4_signer *s) {
    struct sigv4_credentials c = {"AKIDTEST", "secret", NULL};
    const char *raw;
    size_t len;
    CHECK_INT(sreq_build(plan_entry_request(e, false), s, &c, 1, 1796035639, &raw, &len), SREQ_OK);
    return raw;
}

static void test_requests_shared_by_side_and_body(void) {
    struct plan *p;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(plan_new(&chat, sides, 2, &p, &err), PLAN_OK);
    CHECK_INT(plan_add_round(p, -1, 0), PLAN_OK);
    const struct plan_item items[] = {item(0, "a", 16), item(1, "a", 16), item(0, "a", 16),
                                      item(0, "a", 512), item(1, "b", 16)};
    for (size_t i = 0; i < 5; i++) CHECK_INT(plan_add_item(p, &items[i], &err), PLAN_OK);
    CHECK_INT(plan_n_requests(p), 4); /* items 0 and 2 share theirs */
    const struct plan_entry *e0 = plan_entry(p, 0, 0), *e2 = plan_entry(p, 0, 2);
    CHECK(plan_entry_request(e0, false) == plan_entry_request(e2, false));
    CHECK_INT(plan_request_number(p, e2), 0);
    CHECK_INT(plan_entry_number(p, plan_entry(p, 0, 4)), 4);
    CHECK(plan_entry(p, 0, 5) == NULL && plan_entry(p, 1, 0) == NULL &&
          plan_entry(p, 0, -1) == NULL);
    CHECK_INT(call_file(plan_entry_call(plan_entry(p, 0, 1))), 1);
    struct sigv4_signer *s = sigv4_signer_new();
    const char *raw = signed_request(plan_entry(p, 0, 1), s);
    CHECK(strncmp(raw, "POST /endpoints/ep/invocations HTTP/1.1\r\nHost: h\r\n", 48) == 0);
    CHECK(strstr(raw, "\r\nX-Amzn-SageMaker-Target-Variant: qat\r\n") != NULL);
    CHECK(strstr(raw, "\r\nX-Amzn-SageMaker-Custom-Attributes: a=b\r\n") != NULL);
    CHECK(strstr(raw, "\r\nX-Amzn-SageMaker-Inference-Component: comp\r\n") != NULL);
    const char *body = strstr(raw, "\r\n\r\n");
    CHECK_STR(body ? body + 4 : NULL,
              "{\"messages\":[{\"role\":\"user\",\"content\":\"a\"}],\"max_tokens\":16}");
    raw = signed_request(plan_entry(p, 0, 0), s);
    CHECK(strncmp(raw, "POST /endpoints/bf16/invocations ", 33) == 0 &&
          !strstr(raw, "Target-Variant"));
    sigv4_signer_free(s);
    plan_free(p);
    buf_free(&err);
}

/* wrk on the OpenAI-compatible route: its path (the component in it, not in a
 * header), a JSON reply asked for, and a body that says "stream": false. */
static void test_openai_route_unstreamed_for_wrk(void) {
    struct plan_request rq = chat;
    rq.route = PLAN_ROUTE_OPENAI_WHOLE;
    struct plan *p;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(plan_new(&rq, sides, 2, &p, &err), PLAN_OK);
    CHECK_INT(plan_add_round(p, -1, 0), PLAN_OK);
    const struct plan_item items[] = {item(0, "a", 16), item(1, "a", 16)};
    for (size_t i = 0; i < 2; i++) CHECK_INT(plan_add_item(p, &items[i], &err), PLAN_OK);
    struct sigv4_signer *s = sigv4_signer_new();
    const char *raw = signed_request(plan_entry(p, 0, 0), s);
    CHECK(strncmp(raw, "POST /endpoints/bf16/openai/v1/chat/completions HTTP/1.1\r\n", 58) == 0);
    CHECK(strstr(raw, "\r\nAccept: application/json\r\n") != NULL);
    const char *body = strstr(raw, "\r\n\r\n");
    CHECK_STR(body ? body + 4 : NULL, "{\"messages\":[{\"role\":\"user\",\"content\":\"a\"}],"
                                      "\"max_tokens\":16,\"stream\":false}");
    raw = signed_request(plan_entry(p, 0, 1), s);
    CHECK(strncmp(raw, "POST /endpoints/ep/inference-components/comp/openai/v1/chat/completions ",
                  72) == 0);
    CHECK(!strstr(raw, "Inference-Component:"));
    sigv4_signer_free(s);
    plan_free(p);
    rq.format = "tgi";
    CHECK_INT(plan_new(&rq, sides, 2, &p, &err), PLAN_ERR_INPUT);
    CHECK_STR(buf_str(&err), "the OpenAI route takes chat bodies only (--format vllm-chat)");
    plan_free(p);
    buf_free(&err);
}

static void test_schedule(void) {
    struct plan *p;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(plan_new(&chat, sides, 1, &p, &err), PLAN_OK);
    const struct plan_item one = item(0, "x", 8);
    CHECK_INT(plan_add_round(p, -1, 0), PLAN_OK); /* a queue of 3 */
    for (int i = 0; i < 3; i++) CHECK_INT(plan_add_item(p, &one, &err), PLAN_OK);
    CHECK_INT(plan_add_round(p, 1, 0), PLAN_OK); /* a batch of 2 */
    for (int i = 0; i < 2; i++) CHECK_INT(plan_add_item(p, &one, &err), PLAN_OK);
    CHECK_INT(plan_add_round(p, -1, 2.5), PLAN_OK); /* steady: one template */
    CHECK_INT(plan_add_item(p, &one, &err), PLAN_OK);
    CHECK_INT(plan_add_item(p, &one, &err), PLAN_ERR_INPUT);
    CHECK_STR(buf_str(&err), "a steady round has one item, its template");
    struct rounds_round r[3];
    CHECK_INT(plan_n_rounds(p), 3);
    plan_schedule(p, r);
    CHECK(r[0].items == 3 && r[0].per_thread == -1 && r[0].duration_us == 0);
    CHECK(r[1].items == 2 && r[1].per_thread == 1 && r[1].duration_us == 0);
    CHECK(r[2].items == -1 && r[2].per_thread == -1 && r[2].duration_us == 2500000);
    CHECK(plan_entry(p, 2, 0) == plan_entry(p, 2, 12345)); /* every index: the template */
    CHECK_INT(plan_entry_number(p, plan_entry(p, 2, 7)), 5);
    CHECK_INT(plan_entry_number(p, plan_entry(p, 1, 1)), 4);
    plan_free(p);
    buf_free(&err);
}

/* A plan of the first side with one timed round of n arrivals at (a replay's),
 * item i the prompt "x" or bodies[i] with types[i] (types may be NULL). */
static struct plan *timed_plan(const long long *at, long n, const char *const *bodies,
                               const char *const *types, struct buf *err) {
    struct plan *p;
    CHECK_INT(plan_new(&chat, sides, 1, &p, err), PLAN_OK);
    CHECK_INT(plan_add_timed_round(p, at, n, err), PLAN_OK);
    for (long i = 0; i < n; i++) {
        struct plan_item it = item(0, "x", 8);
        it.body = bodies[i];
        it.content_type = types ? types[i] : NULL;
        CHECK_INT(plan_add_item(p, &it, err), PLAN_OK);
    }
    return p;
}

/* A replay's round (trace.h): its arrivals the given times, item i at arrival
 * i, a captured body sent byte for byte whatever the plan's format. */
static void test_timed_round(void) {
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    const long long at[] = {0, 250, 250, 1000001};
    const char *bodies[] = {"{\"inputs\":\"as captured\"}", NULL, "1,2,3", NULL};
    struct plan *p = timed_plan(at, 4, bodies, NULL, &err);
    struct rounds_round r[1];
    CHECK_INT(plan_n_rounds(p), 1);
    plan_schedule(p, r);
    CHECK_INT(r[0].items, 4);
    for (int i = 0; r[0].at_us && i < 4; i++) CHECK_INT(r[0].at_us[i], at[i]);
    struct sigv4_signer *s = sigv4_signer_new();
    const char *raw = signed_request(plan_entry(p, 0, 0), s), *body = strstr(raw, "\r\n\r\n");
    CHECK_STR(body ? body + 4 : NULL, "{\"inputs\":\"as captured\"}");
    raw = signed_request(plan_entry(p, 0, 1), s);
    body = strstr(raw, "\r\n\r\n");
    CHECK_STR(body ? body + 4 : NULL,
              "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":8}");
    raw = signed_request(plan_entry(p, 0, 2), s);
    body = strstr(raw, "\r\n\r\n");
    CHECK_STR(body ? body + 4 : NULL, "1,2,3");
    sigv4_signer_free(s);
    const long long back[] = {5, 4};
    CHECK_INT(plan_add_timed_round(p, back, 2, &err), PLAN_ERR_INPUT);
    CHECK_STR(buf_str(&err), "a replay's arrival times must not go back");
    plan_free(p);
    buf_free(&err);
}

/* The value of header name in the raw request, or "" when it has none. */
static const char *header_of(const char *raw, const char *name, char *out, size_t size) {
    out[0] = 0;
    for (const char *l = strstr(raw, "\r\n"); l && strncmp(l, "\r\n\r\n", 4) != 0;
         l = strstr(l + 2, "\r\n")) {
        size_t n = strlen(name);
        if (strncasecmp(l + 2, name, n) == 0 && l[2 + n] == ':') {
            const char *v = l + 3 + n + (l[3 + n] == ' '), *end = strstr(v, "\r\n");
            size_t k = (size_t)(end - v) < size - 1 ? (size_t)(end - v) : size - 1;
            memcpy(out, v, k);
            out[k] = 0;
        }
    }
    return out;
}

/* A replayed capture's body goes with its observedContentType (trace.h) as
 * the Content-Type; the same body with another type is another request; a
 * prompt's body stays application/json whatever the item says. */
static void test_captured_content_type(void) {
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    const long long at[] = {0, 1, 2, 3};
    const char *bodies[] = {"1,2,3", "1,2,3", "1,2,3", NULL};
    const char *types[] = {"text/csv", NULL, "text/csv", "text/csv"};
    struct plan *p = timed_plan(at, 4, bodies, types, &err);
    CHECK_INT(plan_n_requests(p), 3);
    struct sigv4_signer *s = sigv4_signer_new();
    char v[512];
    const char *want[] = {"text/csv", "application/json", "text/csv", "application/json"};
    for (int i = 0; i < 4; i++)
        CHECK_STR(header_of(signed_request(plan_entry(p, 0, i), s), "Content-Type", v, sizeof v),
                  want[i]);
    CHECK(strstr(header_of(signed_request(plan_entry(p, 0, 0), s), "Authorization", v, sizeof v),
                 "content-type") != NULL);
    sigv4_signer_free(s);
    plan_free(p);
    buf_free(&err);
}

/* A shared plan (a replay's, used by every sender at once) gives each item
 * requests of its own, even for the same body, so that no two senders sign one
 * sreq; an item's plain request is still its own request when the bodies agree. */
static void test_shared_plan_requests_per_item(void) {
    struct plan_request rq = chat;
    rq.shared = true;
    struct plan *p;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(plan_new(&rq, sides, 1, &p, &err), PLAN_OK);
    CHECK(plan_shared(p));
    CHECK_INT(plan_add_round(p, -1, 0), PLAN_OK);
    for (int i = 0; i < 3; i++) {
        struct plan_item it = item(0, "the same prompt", 8);
        CHECK_INT(plan_add_item(p, &it, &err), PLAN_OK);
    }
    CHECK_INT(plan_n_requests(p), 3);
    for (long i = 0; i < 3; i++) {
        const struct plan_entry *e = plan_entry(p, 0, i);
        CHECK_INT(plan_request_number(p, e), i);
        CHECK(plan_entry_request(e, true) == plan_entry_request(e, false));
    }
    plan_free(p);
    buf_free(&err);
}

/* What plan_new and plan_add_item tell a wrong plan. */
static void test_refusals(void) {
    struct plan_request bad[] = {chat, chat, chat, chat};
    bad[0].format = "xml";
    bad[1].format = "raw";
    bad[2].extra = "[1]";
    bad[3].region = NULL;
    const char *want[] = {
        "unknown body format 'xml'", "a raw body goes with the raw format, and only there",
        "the extra fields are not a JSON object", "a request needs a host, a region and a service"};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    for (size_t i = 0; i < 4; i++) {
        struct plan *p = (struct plan *)1;
        CHECK_INT(plan_new(&bad[i], sides, 1, &p, &err), PLAN_ERR_INPUT);
        CHECK(p == NULL);
        CHECK_STR(buf_str(&err), want[i]);
    }
    struct plan_request tgi = chat;
    tgi.format = "tgi";
    struct plan *p;
    CHECK_INT(plan_new(&tgi, sides, 2, &p, &err), PLAN_OK);
    struct plan_item it = item(0, "x", 8);
    CHECK_INT(plan_add_item(p, &it, &err), PLAN_ERR_INPUT);
    CHECK_STR(buf_str(&err), "an item before any round");
    CHECK_INT(plan_add_round(p, -1, 0), PLAN_OK);
    it.ignore_eos = true;
    CHECK_INT(plan_add_item(p, &it, &err), PLAN_ERR_INPUT);
    CHECK_STR(buf_str(&err), "the tgi format has no ignore_eos (leave it out, or pass the "
                             "container's own field with --extra)");
    it = item(2, "x", 8);
    CHECK_INT(plan_add_item(p, &it, &err), PLAN_ERR_INPUT);
    CHECK_STR(buf_str(&err), "an item of side 3 of 2");
    it = item(0, "x", 8);
    it.question = "cap-1";
    it.pattern = "(unclosed";
    CHECK_INT(plan_add_item(p, &it, &err), PLAN_ERR_INPUT);
    CHECK(strncmp(buf_str(&err), "question cap-1: bad pattern: ", 29) == 0);
    it.pattern = "\\bCanberra\\b";
    CHECK_INT(plan_add_item(p, &it, &err), PLAN_OK);
    plan_free(p);
    buf_free(&err);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "content-type") == 0) {
        test_captured_content_type();
        return check_exit();
    }
    test_requests_shared_by_side_and_body();
    test_openai_route_unstreamed_for_wrk();
    test_schedule();
    test_timed_round();
    test_shared_plan_requests_per_item();
    test_refusals();
    return check_exit();
}
