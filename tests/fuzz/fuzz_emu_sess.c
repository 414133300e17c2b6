/* Fuzzes what the emulator reads of a stateful session: the header's id
 * (SessionId's patterns) and the body's requestType, through the container's
 * session manager (sess_handle) over a table holding a few sessions. Input:
 * one control byte (bit 0 sessions on, bit 1 InvokeEndpoint's pattern, bits 2-3
 * which of the table's ids to name instead of the input's, 0: the input's),
 * then the header's id up to the first newline, then the body.
 *
 * An id the pattern lets through is letters, digits and inner hyphens, at most
 * 256 bytes (or NEW_SESSION); the answer is 0, 200, 400 or 424, with a one-line
 * message unless 0; a session made is held and named in the header with its
 * expiry, a session closed is gone, and the counts add up. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sess.h"

static int fuzz_alnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void fuzz_check_id(const char *id, size_t n, bool new_ok) {
    if (!sess_id_ok(id, n, new_ok)) return;
    if (new_ok && n == 11 && memcmp(id, SESS_NEW, 11) == 0) return;
    if (n == 0 || n > SESS_ID_MAX || !fuzz_alnum(id[0]) || !fuzz_alnum(id[n - 1])) abort();
    for (size_t i = 0; i < n; i++)
        if (!fuzz_alnum(id[i]) && id[i] != '-') abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const char *in = (const char *)data + 1;
    const char *nl = memchr(in, '\n', size - 1);
    size_t id_len = nl ? (size_t)(nl - in) : size - 1;
    const char *body = nl ? nl + 1 : in + id_len;
    size_t body_len = size - 1 - id_len - (nl ? 1 : 0);
    bool on = data[0] & 1, new_ok = data[0] & 2;
    fuzz_check_id(in, id_len, new_ok);

    struct sess s = {0};
    struct sess_reply r;
    uint64_t rng = 3;
    char ids[3][SESS_ID_LEN + 1];
    for (int i = 0; i < 3; i++)
        if (sess_open(&s, &rng, 1000, i == 2 ? 5 : 600, ids[i])) abort();
    unsigned pick = (data[0] >> 2) & 3;
    const char *id = pick ? ids[pick - 1] : in;
    size_t n = pick ? SESS_ID_LEN : id_len;
    sess_reply_init(&r);
    if (sess_handle(&s, on ? 600 : 0, nl || pick ? id : NULL, n, body, body_len, 1010, &rng, &r))
        abort();
    if (r.status != 0 && r.status != 200 && r.status != 400 && r.status != 424) abort();
    if (r.status && (!r.text.len || memchr(r.text.data, '\n', r.text.len))) abort();
    if (!r.status && r.text.len) abort();
    if (*r.new_session && (r.status != 200 || !sess_holds(&s, r.session, strlen(r.session)) ||
                           strlen(r.new_session) != SESS_ID_LEN + 10 + SESS_EXPIRES_AT))
        abort();
    if (r.closed && (r.status != 200 || sess_holds(&s, r.session, strlen(r.session)))) abort();
    if (s.n + s.c.closed + s.c.expired != s.c.created) abort();
    sess_reply_free(&r);
    sess_free(&s);
    return 0;
}
