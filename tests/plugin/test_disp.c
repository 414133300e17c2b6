/* The dispatcher (disp.h): wrk's verification call, the order of the plan, a
 * request the server refused for its signing time sent again first, a reply
 * that never came, the scenario's check changing a record or stopping the run,
 * waiting at a batch's barrier without blocking, and the end of the run. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "disp.h"
#include "run.h"

static char dir[] = "/tmp/test_disp_XXXXXX";
static int journal_number = -1; /* the file begin() added last */
static int ended, woken;

static void host_end(void *ud) {
    (void)ud;
    ended++;
}

static void host_wake(void *ud) {
    (void)ud;
    woken++;
}

static struct plan *make_plan(long per_thread, int items) {
    static const struct plan_request rq = {.host = "h",
                                           .region = "us-east-1",
                                           .service = "sagemaker",
                                           .format = "vllm-chat",
                                           .min_tokens = -1};
    static const struct plan_side side = {"ep", NULL, NULL};
    struct plan *p;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(plan_new(&rq, &side, 1, &p, &err), PLAN_OK);
    CHECK_INT(plan_add_round(p, per_thread, 0), PLAN_OK);
    for (int i = 0; i < items; i++) {
        struct plan_item it = {
            .phase = "decode", .prompt = "p", .batch = i, .max_tokens = 4, .expect_tokens = 4};
        CHECK_INT(plan_add_item(p, &it, &err), PLAN_OK);
    }
    buf_free(&err);
    return p;
}

static void begin(const struct plan *p, int threads) {
    struct rounds_round r[4];
    plan_schedule(p, r);
    struct run_config c = {.scenario = "t",
                           .n_threads = threads,
                           .rounds = r,
                           .n_rounds = plan_n_rounds(p),
                           .refuse_after = 0,
                           .host = {.end = host_end, .wake = host_wake}};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(run_begin(&c, &err), RUN_OK);
    cJSON *head = cJSON_CreateObject();
    size_t index;
    char path[64];
    snprintf(path, sizeof path, "%s/r%d.json", dir, ++journal_number);
    CHECK_INT(run_add_file(path, NULL, head, false, &index, &err), RUN_OK);
    cJSON_Delete(head);
    buf_free(&err);
    ended = woken = 0;
}

/* The journal's text so far (NUL bytes of reserved room cut). */
static char *journal(void) {
    char path[64];
    snprintf(path, sizeof path, "%s/r%d.journal.jsonl", dir, journal_number);
    FILE *f = fopen(path, "rb");
    static char text[1 << 16];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = '\0';
    return text;
}

static void end_run(bool want_partial, const char *want_reason) {
    struct run_outcome out;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(run_end(&out, &err), RUN_OK);
    CHECK(out.partial == want_partial);
    CHECK_STR(out.reason, want_reason);
    run_free();
    buf_free(&err);
}

static const char *ok_body =
    "{\"choices\":[{\"message\":{\"content\":\"x\"},\"finish_reason\":"
    "\"length\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":4}}";

static void reply_ok(struct disp *d) {
    struct call_reply in = {.status = 200, .body = ok_body, .len = strlen(ok_body)};
    disp_finish(d, &in);
}

static void test_order_retry_and_lost_reply(void) {
    struct plan *p = make_plan(-1, 3);
    begin(p, 1);
    struct disp *d;
    struct disp_config c = {.plan = p, .thread = 0, .verification = true, .block = true};
    CHECK_INT(disp_new(&c, &d), 0);
    const struct plan_entry *e;
    CHECK_INT(disp_next(d, true, &e), DISP_VERIFY);
    CHECK(e == NULL && !disp_busy(d));
    CHECK_INT(disp_next(d, true, &e), DISP_SEND); /* only the first call is wrk's check */
    CHECK(e == plan_entry(p, 0, 0));
    disp_sent(d, run_now_us(), run_wall_us());
    CHECK(disp_busy(d));
    /* The server refuses the signing time and says its own: the same entry again. */
    char date[64];
    time_t later = time(NULL) + 900;
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", gmtime(&later));
    const char *expired = "{\"message\":\"Signature expired: 20261130T100000Z is now earlier "
                          "than 20261130T101000Z (20261130T101500Z - 5 min.)\"}";
    struct call_reply refused = {.status = 403,
                                 .error_type = "InvalidSignatureException:x",
                                 .date = date,
                                 .body = expired,
                                 .len = strlen(expired)};
    disp_finish(d, &refused);
    CHECK(llabs((long long)(run_signing_time() - later)) <= 2);
    CHECK_INT(disp_next(d, false, &e), DISP_SEND);
    CHECK(e == plan_entry(p, 0, 0));
    disp_sent(d, run_now_us(), run_wall_us());
    reply_ok(d);
    run_set_skew(0);
    /* The next entry; its reply never comes: asked again, it is a socket failure. */
    CHECK_INT(disp_next(d, false, &e), DISP_SEND);
    CHECK(e == plan_entry(p, 0, 1));
    disp_sent(d, run_now_us(), run_wall_us());
    CHECK_INT(disp_next(d, false, &e), DISP_SEND);
    CHECK(e == plan_entry(p, 0, 2));
    disp_sent(d, run_now_us(), run_wall_us());
    reply_ok(d);
    CHECK_INT(ended, 0);
    CHECK_INT(disp_next(d, false, &e), DISP_END);
    CHECK_INT(ended, 1); /* the host is told once that the work is over */
    const struct rec_counts *n = run_counts(0);
    CHECK(n->sent == 4 && n->ok == 2 && n->failed == 2);
    const char *j = journal();
    CHECK(strstr(j, "\"batch\":0,") && strstr(j, "\"code\":\"InvalidSignatureException\""));
    CHECK(strstr(j, "\"batch\":1,\"question\":null,\"kind\":null,\"max_tokens\":4,"
                    "\"prompt_tokens\":null,\"completion_tokens\":null,\"finish_reason\":null,"
                    "\"status\":0,\"ok\":false,\"error\":{\"code\":\"socket\""));
    end_run(false, "");
    disp_free(d);
    plan_free(p);
}

/* The check sees the entry's number and may change the record; a failing check
 * stops the run with its message. */
static int check_calls;
static int check(void *ud, size_t number, const struct call_result *r, struct rec_record *rec,
                 struct buf *err) {
    (void)ud;
    check_calls++;
    CHECK(r->rec.ok);
    if (number == 1) return buf_fail(err, -1, "check.lua:3: attempt to index nil\nstack");
    rec->error_code = "mine";
    rec->error_message = "checked";
    rec->ok = false;
    return 0;
}

static void test_check(void) {
    struct plan *p = make_plan(-1, 3);
    begin(p, 1);
    struct disp *d;
    struct disp_config c = {
        .plan = p, .thread = 0, .block = true, .check = check, .want_text = true};
    CHECK_INT(disp_new(&c, &d), 0);
    const struct plan_entry *e;
    for (int i = 0; i < 2; i++) {
        CHECK_INT(disp_next(d, true, &e), DISP_SEND); /* no verification asked for */
        disp_sent(d, run_now_us(), run_wall_us());
        reply_ok(d);
    }
    CHECK_INT(check_calls, 2);
    CHECK(strstr(journal(), "\"error\":{\"code\":\"mine\",\"message\":\"checked\"}"));
    CHECK_INT(run_counts(0)->sent, 1); /* the second's check failed: not recorded */
    CHECK_INT(ended, 1);
    CHECK_INT(disp_next(d, false, &e), DISP_END);
    end_run(true, "scenario error: check.lua:3: attempt to index nil");
    disp_free(d);
    plan_free(p);
}

/* Two senders of one batch each, without blocking: the one that is done first
 * waits at the barrier until the other's reply came. */
static void test_wait_without_blocking(void) {
    struct plan *p = make_plan(1, 2);
    CHECK_INT(plan_add_round((struct plan *)p, 1, 0), PLAN_OK);
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    for (int i = 0; i < 2; i++) {
        struct plan_item it = {
            .phase = "sweep", .prompt = "q", .max_tokens = 4, .expect_tokens = -1};
        CHECK_INT(plan_add_item(p, &it, &err), PLAN_OK);
    }
    buf_free(&err);
    begin(p, 2);
    struct disp *d[2];
    for (int t = 0; t < 2; t++) {
        struct disp_config c = {.plan = p, .thread = t};
        CHECK_INT(disp_new(&c, &d[t]), 0);
    }
    const struct plan_entry *e;
    CHECK_INT(disp_next(d[0], false, &e), DISP_WAIT); /* the start: until every sender is up */
    for (int t = 1; t >= 0; t--) {
        CHECK_INT(disp_next(d[t], false, &e), DISP_SEND);
        disp_sent(d[t], run_now_us(), run_wall_us());
    }
    reply_ok(d[0]);
    unsigned long gen = run_generation();
    CHECK_INT(disp_next(d[0], false, &e), DISP_WAIT);
    CHECK(run_generation() == gen);
    reply_ok(d[1]);
    int before = woken;
    CHECK_INT(disp_next(d[1], false, &e), DISP_SEND); /* the second batch starts */
    CHECK(run_generation() != gen && woken > before);
    CHECK(e == plan_entry(p, 1, 0) || e == plan_entry(p, 1, 1));
    disp_sent(d[1], run_now_us(), run_wall_us());
    CHECK_INT(disp_next(d[0], false, &e), DISP_SEND);
    disp_sent(d[0], run_now_us(), run_wall_us());
    reply_ok(d[0]);
    reply_ok(d[1]);
    CHECK_INT(disp_next(d[0], false, &e), DISP_WAIT);
    CHECK_INT(disp_next(d[1], false, &e), DISP_END);
    CHECK_INT(run_counts(0)->ok, 4);
    end_run(false, "");
    for (int t = 0; t < 2; t++) disp_free(d[t]);
    plan_free(p);
}

/* A 100 Continue before the reply: the entry stays on the wire, the filler goes
 * out behind it, the entry's reply is its record and the filler's is dropped. */
static void test_interim_reply(void) {
    struct plan *p = make_plan(-1, 2);
    begin(p, 1);
    struct disp *d;
    struct disp_config c = {.plan = p, .thread = 0, .block = true};
    CHECK_INT(disp_new(&c, &d), 0);
    const struct plan_entry *e;
    CHECK_INT(disp_next(d, false, &e), DISP_SEND);
    CHECK(e == plan_entry(p, 0, 0));
    disp_sent(d, run_now_us(), run_wall_us());
    disp_interim(d);
    CHECK_INT(disp_next(d, false, &e), DISP_FILLER); /* not a lost reply */
    CHECK(disp_busy(d));
    reply_ok(d); /* the entry's own reply */
    CHECK_INT(run_counts(0)->ok, 1);
    CHECK(disp_busy(d)); /* the filler's is due */
    CHECK_INT(disp_next(d, false, &e), DISP_SEND);
    CHECK(e == plan_entry(p, 0, 1));
    disp_sent(d, run_now_us(), run_wall_us());
    struct call_reply pong = {.status = 200, .body = "pong", .len = 4};
    disp_finish(d, &pong); /* the filler's: dropped */
    CHECK_INT(run_counts(0)->sent, 1);
    reply_ok(d);
    CHECK(!disp_busy(d));
    const struct rec_counts *n = run_counts(0);
    CHECK(n->sent == 2 && n->ok == 2 && n->failed == 0);
    CHECK_INT(disp_next(d, false, &e), DISP_END);
    end_run(false, "");
    disp_free(d);
    plan_free(p);
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    setenv("AWS_ACCESS_KEY_ID", "AKIDTEST", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
    setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
    setenv("AWS_CONFIG_FILE", "/nonexistent", 1);
    setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent", 1);
    test_order_retry_and_lost_reply();
    test_check();
    test_wait_without_blocking();
    test_interim_reply();
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? check_exit() : 1;
}
