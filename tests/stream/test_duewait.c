/* duewait: an arrival's timer wakes the loop ahead of the arrival's time and
 * the loop turns without sleeping until it comes (never sleeping until the time
 * itself, which made the send late by the thread's wake-up); the request is
 * signed shortly before, and handed over only once its time has come. */
#include "../check.h"
#include "duewait.h"

int main(void) {
    long long wait = -1;
    /* Unsigned and far off: sleep until it is time to sign. */
    CHECK_INT(duewait_step(1000000, 0, false, &wait), DUEWAIT_SLEEP);
    CHECK_INT(wait, 1000000 - DUEWAIT_SIGN_AHEAD_US);
    /* Unsigned and near, or already due: sign first. */
    CHECK_INT(duewait_step(1000, 0, false, &wait), DUEWAIT_SIGN);
    CHECK_INT(wait, 0);
    CHECK_INT(duewait_step(0, 5, false, &wait), DUEWAIT_SIGN);
    /* Signed, a millisecond off: the timer fires the lead before the time, not at it. */
    CHECK_INT(duewait_step(1000, 0, true, &wait), DUEWAIT_SLEEP);
    CHECK_INT(wait, 1000 - DUEWAIT_WAKE_AHEAD_US);
    /* Inside the lead: the loop's next turn, not a sleep. */
    CHECK_INT(duewait_step(1000, 1000 - DUEWAIT_WAKE_AHEAD_US, true, &wait), DUEWAIT_POLL);
    CHECK_INT(wait, 0);
    CHECK_INT(duewait_step(1000, 999, true, &wait), DUEWAIT_POLL);
    /* Never early: it leaves at its time or after. */
    CHECK_INT(duewait_step(1000, 1000, true, &wait), DUEWAIT_SEND);
    CHECK_INT(duewait_step(1000, 4000, true, &wait), DUEWAIT_SEND);
    CHECK_INT(wait, 0);
    return check_exit();
}
