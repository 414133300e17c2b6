/* duewait: what an open-loop arrival's timer does when it fires, and when it
 * fires next. The request is signed shortly before its time (the signing's
 * CPU off the send path, the signature fresh); then the timer is set to wake
 * the loop DUEWAIT_WAKE_AHEAD_US before the time, and from there the loop turns
 * without sleeping (still reading every socket) until the time comes: a thread
 * that sleeps until the very time leaves late by its wake-up (tens of
 * microseconds on a virtual machine whose CPU idles, milliseconds on a host
 * whose CPU is given to another process meanwhile), which the lead absorbs.
 * Pure: the clock is the caller's. */
#ifndef SM_DUEWAIT_H
#define SM_DUEWAIT_H

#include <stdbool.h>

/* How long before an arrival's time its request is signed: ample for the
 * signing on a busy host, far inside the signature's validity. */
#define DUEWAIT_SIGN_AHEAD_US 100000LL

/* How long before an arrival's time the loop stops sleeping. At 1,000 sends a
 * second it keeps the thread's CPU busy for at most this share of each
 * millisecond between sends (30%). */
#define DUEWAIT_WAKE_AHEAD_US 300LL

enum duewait_step {
    DUEWAIT_SLEEP, /* set the timer *wait_us ahead, nothing else now */
    DUEWAIT_SIGN,  /* sign the request now, then ask again */
    DUEWAIT_POLL,  /* signed, its time is near: fire again on the loop's next turn */
    DUEWAIT_SEND,  /* its time has come: hand it to libcurl */
};

/* The step for an arrival due at due_us, at now_us (one clock), signed or not;
 * *wait_us is the timer's wait for SLEEP, else 0. */
enum duewait_step duewait_step(long long due_us, long long now_us, bool is_signed,
                               long long *wait_us);

#endif
