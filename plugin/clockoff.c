#include "clockoff.h"

void clockoff_init(struct clockoff *c) {
    *c = (struct clockoff){.rtt_us = -1};
}

void clockoff_add(struct clockoff *c, long long t0_us, long long t1_us, long long server_s) {
    if (t1_us < t0_us) t1_us = t0_us;
    long long s_us = server_s * CLOCKOFF_SECOND_US;
    long long lo = s_us - t1_us, hi = s_us + CLOCKOFF_SECOND_US - t0_us;
    if (c->n == 0 || lo > c->lo_us) c->lo_us = lo;
    if (c->n == 0 || hi < c->hi_us) c->hi_us = hi;
    if (c->rtt_us < 0 || t1_us - t0_us < c->rtt_us) c->rtt_us = t1_us - t0_us;
    if (c->lo_us > c->hi_us + CLOCKOFF_SLACK_US) {
        c->inconsistent = true;
    } else if (c->lo_us > c->hi_us) { /* crossed by a coarse clock's lag: between them */
        long long t = c->lo_us;
        c->lo_us = c->hi_us;
        c->hi_us = t;
    }
    c->n++;
}

bool clockoff_get(const struct clockoff *c, long long *offset_us, long long *uncertainty_us) {
    if (c->n == 0 || c->inconsistent) return false;
    *offset_us = c->lo_us + (c->hi_us - c->lo_us) / 2;
    *uncertainty_us = (c->hi_us - c->lo_us + 1) / 2;
    return true;
}

/* floor(a / b) for b > 0. */
static long long clockoff_floor_div(long long a, long long b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

long long clockoff_next(const struct clockoff *c, long long now_us) {
    long long width = c->hi_us - c->lo_us;
    if (c->n == 0 || c->inconsistent || width >= CLOCKOFF_SECOND_US - CLOCKOFF_SCAN_US)
        return c->n == 0 ? now_us : now_us + CLOCKOFF_SCAN_US; /* no tick seen yet */
    /* A server tick at whole second B comes at local time B - offset, somewhere
     * in [B - hi, B - lo]: the first such window not yet over. */
    long long half_rtt = c->rtt_us > 0 ? c->rtt_us / 2 : 0;
    long long b = clockoff_floor_div(now_us + half_rtt + c->lo_us, CLOCKOFF_SECOND_US) + 1;
    long long start = b * CLOCKOFF_SECOND_US - c->hi_us - half_rtt;
    if (start + width < now_us) start += CLOCKOFF_SECOND_US;
    long long step = width / CLOCKOFF_SPREAD;
    if (step < CLOCKOFF_MIN_STEP) step = CLOCKOFF_MIN_STEP;
    if (step < c->rtt_us) step = c->rtt_us;
    if (now_us <= start) return start;
    long long k = (now_us - start + step - 1) / step; /* the next slot at or after now */
    long long slot = start + k * step;
    return slot <= start + width ? slot : start + CLOCKOFF_SECOND_US;
}
