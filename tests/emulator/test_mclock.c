/* mclock_due: a timer that fires before its due time is called again on the
 * loop's next turn (not spun out in its callback), the events that became ready
 * meanwhile run in between, and the call that goes on is never early. */
#include <event2/event.h>

#include "check.h"
#include "mclock.h"

static struct {
    struct event *timer, *io;
    double due, went_on_at, io_last_at;
    int early_calls, io_runs;
    bool io_pending;
} t;

/* A request read while the timer waits. */
static void test_io_cb(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what, (void)arg;
    t.io_runs++;
    t.io_pending = false;
    t.io_last_at = mclock_real();
}

static void test_timer_cb(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what, (void)arg;
    if (t.due == 0) t.due = mclock_real() + 0.01; /* from the first call: it is early */
    if (!mclock_due(t.timer, t.due)) {
        t.early_calls++;
        CHECK(!t.io_pending); /* what the last early call made ready ran since */
        event_active(t.io, EV_READ, 0);
        t.io_pending = true;
        return;
    }
    t.went_on_at = mclock_real();
}

int main(void) {
    struct event_base *base = event_base_new();
    t.timer = evtimer_new(base, test_timer_cb, NULL);
    t.io = event_new(base, -1, 0, test_io_cb, NULL);
    CHECK(base && t.timer && t.io);
    static const struct timeval now = {0, 0};
    CHECK_INT(evtimer_add(t.timer, &now), 0);
    CHECK_INT(event_base_dispatch(base), 1); /* no events left: the timer went on */
    CHECK(t.went_on_at >= t.due);
    CHECK(t.early_calls >= 1 && t.io_runs == t.early_calls && !t.io_pending);
    CHECK(t.io_last_at < t.went_on_at);
    event_free(t.io);
    event_free(t.timer);
    event_base_free(base);
    return check_exit();
}
