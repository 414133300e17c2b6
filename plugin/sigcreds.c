#include "sigcreds.h"

#include <string.h>

#include "run.h"

void sigcreds_clear(struct sigcreds *s) {
    creds_clear(&s->creds);
    s->at = 0;
}

static bool sigcreds_same(const struct creds *a, const struct creds *b) {
    return a->access_key_id && strcmp(a->access_key_id, b->access_key_id) == 0 &&
           strcmp(a->secret_access_key, b->secret_access_key) == 0 &&
           !a->session_token == !b->session_token &&
           (!a->session_token || strcmp(a->session_token, b->session_token) == 0);
}

/* Refreshes the credentials once a second. */
static int sigcreds_refresh(struct sigcreds *s, time_t now, struct buf *err) {
    if (s->creds.access_key_id && s->at == now) return 0;
    struct creds fresh = {0};
    if (run_creds(now, &fresh, err)) return -1;
    bool same = sigcreds_same(&s->creds, &fresh);
    creds_clear(&s->creds);
    s->creds = fresh;
    s->at = now;
    if (!same) s->gen++;
    return 0;
}

int sigcreds_sign(struct sigcreds *s, struct sreq *r, const char **raw, size_t *len,
                  struct buf *err) {
    time_t now = run_signing_time();
    if (sigcreds_refresh(s, now, err)) {
        if (!err->len) (void)!buf_adds(err, "no credentials");
        return -1;
    }
    struct sigv4_credentials c = {s->creds.access_key_id, s->creds.secret_access_key,
                                  s->creds.session_token};
    int rc = sreq_build(r, run_signer(), &c, s->gen, now, raw, len);
    if (rc)
        return buf_fail(err, -1, "%s", rc == SREQ_ERR_NOMEM ? "out of memory" : "signing failed");
    return 0;
}
