#include "mclock.h"

#include <time.h>

#include <event2/event.h>

double mclock_real(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double mclock_wall(double real) {
    static bool anchored;
    static double offset;
    if (!anchored) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        offset = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 - mclock_real();
        anchored = true;
    }
    return real + offset;
}

void mclock_arm(struct event *ev, double due_real) {
    double delay = due_real - MCLOCK_WAKE_LEAD - mclock_real();
    struct timeval tv = {0, 0};
    if (delay > 0) {
        tv.tv_sec = (time_t)delay;
        tv.tv_usec = (suseconds_t)((delay - (double)tv.tv_sec) * 1e6);
    }
    evtimer_add(ev, &tv);
}

bool mclock_later(struct event *ev) {
    static const struct timeval next_turn = {0, 0};
    return evtimer_add(ev, &next_turn) == 0;
}

bool mclock_due(struct event *ev, double due_real) {
    if (mclock_real() >= due_real) return true;
    return !mclock_later(ev); /* a timer that cannot wait fires now */
}
