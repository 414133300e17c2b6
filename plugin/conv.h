/* conv: one multi-turn conversation of a sender, as a pure state machine.
 *
 * A conversation is T turns whose bodies carry the history: turn k sends the
 * user prompts of turns 1..k and, between them, the assistant replies the
 * server actually returned (so a prefix cache can reuse them). With a sticky
 * session (SageMaker's stateful sessions) it starts with a NEW_SESSION call,
 * whose reply names the session in X-Amzn-SageMaker-New-Session-Id, sends
 * every turn with X-Amzn-SageMaker-Session-Id: ID, and ends with a CLOSE call.
 * Turn k + 1 is due think_us[k - 1] after turn k's reply; the first step is
 * due when the conversation starts (its arrival, in an open loop).
 *
 *   steps: [OPEN] TURN 1 .. TURN T [CLOSE] DONE
 *
 * A failed NEW_SESSION ends the conversation (no turn is sent); a failed turn
 * ends its turns (the next would carry a history the server never gave), and
 * the session is closed all the same.
 *
 * Pure C over cJSON; the clock comes in. Not thread-safe: a conv belongs to
 * one sender. */
#ifndef SM_CONV_H
#define SM_CONV_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define CONV_ID_MAX      256 /* SessionId's length limit (the SageMaker API's) */
#define CONV_NEW_SESSION "NEW_SESSION"
#define CONV_HEADER      "X-Amzn-SageMaker-Session-Id"
#define CONV_NEW_HEADER  "X-Amzn-SageMaker-New-Session-Id"
#define CONV_TEXT_MAX    ((size_t)256 * 1024) /* bytes of one reply the history keeps at most */

enum conv_error {
    CONV_OK = 0,
    CONV_ERR_NOMEM = -1,
    CONV_ERR_INPUT = -2, /* a header that names no valid session id */
};

/* What a conversation sends (the plan owns it). */
struct conv_spec {
    char **prompts;      /* the user prompt of each turn, n_turns of them */
    size_t n_turns;      /* >= 1 */
    long long *think_us; /* the pause after turn k's reply (k = 1..n_turns - 1), n_turns - 1 */
    bool session;        /* a sticky session: NEW_SESSION first, CLOSE last */
};

enum conv_kind { CONV_OPEN, CONV_TURN, CONV_CLOSE, CONV_DONE };

struct conv {
    const struct conv_spec *spec; /* NULL: no conversation under way */
    enum conv_kind kind;
    size_t turn;              /* the turn under way, 1-based (0 before the first) */
    cJSON *history;           /* the messages of the turns behind */
    char id[CONV_ID_MAX + 1]; /* the session's id, "" before it is made */
    long long due_us;         /* when the current step is due */
};

/* Whether text (n bytes) is a session id SageMaker takes: at most 256
 * characters of ^[a-zA-Z0-9](-*[a-zA-Z0-9])*$. */
bool conv_id_valid(const char *text, size_t n);

/* The session id of X-Amzn-SageMaker-New-Session-Id's value ("ID; Expires=..."
 * or "ID"), into out; CONV_ERR_INPUT when it names no valid id (out is then ""). */
__attribute__((warn_unused_result)) int conv_parse_new_session(const char *value, size_t n,
                                                               char out[CONV_ID_MAX + 1]);

/* Starts c (zeroed or cleared) over spec, its first step due at due_us. */
void conv_start(struct conv *c, const struct conv_spec *spec, long long due_us);
/* Frees what c holds; it is then no conversation. */
void conv_clear(struct conv *c);
/* Whether a conversation is under way (a step is still to send). */
bool conv_active(const struct conv *c);

/* The messages of the current turn: the history and the turn's user prompt
 * (a new array, the caller's); NULL when out of memory or not a turn. */
cJSON *conv_messages(const struct conv *c);

/* The NEW_SESSION call came back: ok with the reply's header value (NULL:
 * none). Returns CONV_OK, CONV_ERR_INPUT (no valid id: the conversation is
 * over) or CONV_ERR_NOMEM. The first turn keeps the conversation's due time
 * (its arrival): it leaves at once, and the session's making counts in its
 * latency from its intended start, as a user waiting for the first reply sees it. */
__attribute__((warn_unused_result)) int conv_opened(struct conv *c, bool ok, const char *value,
                                                    size_t n);
/* The current turn came back at now_us: when ok, its reply text (NULL: none)
 * joins the history (cut to CONV_TEXT_MAX bytes) and the next turn is due
 * after its think time; else the turns end. Then CLOSE (with a session) or DONE. */
__attribute__((warn_unused_result)) int conv_replied(struct conv *c, bool ok, const char *text,
                                                     long long now_us);
/* The CLOSE call came back: the conversation is over. */
void conv_closed(struct conv *c);

#endif
