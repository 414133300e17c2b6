#include "duewait.h"

enum duewait_step duewait_step(long long due_us, long long now_us, bool is_signed,
                               long long *wait_us) {
    long long left = due_us - now_us;
    *wait_us = 0;
    if (!is_signed) {
        if (left <= DUEWAIT_SIGN_AHEAD_US) return DUEWAIT_SIGN;
        *wait_us = left - DUEWAIT_SIGN_AHEAD_US;
        return DUEWAIT_SLEEP;
    }
    if (left <= 0) return DUEWAIT_SEND;
    if (left <= DUEWAIT_WAKE_AHEAD_US) return DUEWAIT_POLL;
    *wait_us = left - DUEWAIT_WAKE_AHEAD_US;
    return DUEWAIT_SLEEP;
}
