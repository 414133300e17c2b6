/* The admission control core: connections served and refused, the listener's
 * pause past the overflow, the body budget, and one log line per episode of
 * accept() failures. */
#include "check.h"
#include "gate.h"

static void test_connections(void) {
    struct gate g;
    gate_init(&g, 2, 1000);
    CHECK_INT(gate_open(&g), GATE_SERVE);
    CHECK_INT(gate_open(&g), GATE_SERVE);
    CHECK_INT(gate_open(&g), GATE_REFUSE); /* the third of max 2 */
    CHECK_INT(g.open, 3);
    CHECK_INT(g.n.accepted, 3);
    CHECK_INT(g.n.over_connections, 1);
    gate_close(&g, GATE_SERVE);           /* a served one leaves: the next is served, though */
    CHECK_INT(gate_open(&g), GATE_SERVE); /* the refused one is still open */
    CHECK_INT(g.open, 3);
    gate_close(&g, GATE_REFUSE);
    CHECK_INT(gate_open(&g), GATE_REFUSE);
    gate_close(&g, GATE_REFUSE);
    CHECK_INT(g.open, 2);
    CHECK_INT(g.overflow, 0);
    /* refusing costs a connection each: past GATE_OVERFLOW_MAX of them, stop accepting */
    for (int i = 0; i < GATE_OVERFLOW_MAX; i++) {
        CHECK(gate_listening(&g));
        CHECK_INT(gate_open(&g), GATE_REFUSE);
    }
    CHECK(!gate_listening(&g));
    gate_close(&g, GATE_REFUSE);
    CHECK(gate_listening(&g));
}

static void test_bodies(void) {
    struct gate g;
    gate_init(&g, 10, 100);
    CHECK(gate_reserve(&g, 60));
    CHECK(!gate_reserve(&g, 41)); /* 101 > 100: nothing reserved */
    CHECK_INT(g.body_buffered, 60);
    CHECK(gate_reserve(&g, 40));
    CHECK(!gate_reserve(&g, 1));
    CHECK_INT(g.n.over_body_buffer, 2);
    gate_release(&g, 60);
    gate_release(&g, 40);
    CHECK_INT(g.body_buffered, 0);
    gate_release(&g, 5); /* more than reserved: stays at 0 */
    CHECK_INT(g.body_buffered, 0);
    CHECK(gate_reserve(&g, 100));
}

static void test_episodes(void) {
    struct gate g;
    gate_init(&g, 1, 1);
    CHECK(gate_accept_failed(&g, 100.0));  /* the first failure: log it */
    CHECK(!gate_accept_failed(&g, 100.5)); /* retries of the same episode */
    CHECK(!gate_accept_failed(&g, 109.9));
    CHECK(!gate_accept_failed(&g, 119.0)); /* 9.1 s after the last one: still the same */
    CHECK(gate_accept_failed(&g, 119.0 + GATE_EPISODE_GAP_S)); /* a quiet gap: a new one */
    CHECK_INT(g.n.accept_failures, 2);
}

static void test_json(void) {
    struct gate g;
    struct buf out;
    gate_init(&g, 1, 10);
    (void)!gate_open(&g);
    (void)!gate_open(&g);
    (void)!gate_reserve(&g, 11);
    (void)!gate_accept_failed(&g, 1);
    g.n.head_timeouts = 4;
    g.n.body_timeouts = 5;
    g.full_outputs = 1;
    buf_init(&out, BUF_NO_CAP);
    CHECK_INT(gate_json(&out, &g), 0);
    CHECK_STR(buf_str(&out), "\"open_connections\":2,\"full_outputs\":1,\"limits\":{"
                             "\"head_timeouts\":4,"
                             "\"body_timeouts\":5,\"over_connections\":1,\"over_body_buffer\":1,"
                             "\"accept_failures\":1}");
    buf_free(&out);
}

int main(void) {
    test_connections();
    test_bodies();
    test_episodes();
    test_json();
    return check_exit();
}
