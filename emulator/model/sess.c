#include "sess.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "splitmix.h"
#include "smerr.h"

void sess_free(struct sess *s) {
    free(s->slots);
    s->slots = NULL;
    s->cap = s->n = 0;
}

enum sess_kind sess_request_kind(const char *body, size_t len, struct buf *why) {
    if (!memmem(body, len, "\"requestType\"", 13)) return SESS_NONE; /* the common case, cheap */
    cJSON *root = cJSON_ParseWithLength(body, len);
    const cJSON *type =
        cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "requestType") : NULL;
    enum sess_kind kind = type ? SESS_BAD : SESS_NONE;
    const cJSON *m, *members = type ? root : NULL;
    const char *extra = NULL;
    cJSON_ArrayForEach(m, members) {
        if (m->string && strcmp(m->string, "requestType") != 0 && !extra) extra = m->string;
    }
    if (type && cJSON_IsString(type) && strcmp(type->valuestring, "NEW_SESSION") == 0)
        kind = extra ? SESS_BAD : SESS_OPEN;
    else if (type && cJSON_IsString(type) && strcmp(type->valuestring, "CLOSE") == 0)
        kind = extra ? SESS_BAD : SESS_CLOSE;
    if (kind == SESS_BAD && extra)
        buf_fail(why, SESS_OK, "%.64s: Extra inputs are not permitted", extra);
    else if (kind == SESS_BAD)
        buf_fail(why, SESS_OK, "requestType: Input should be 'NEW_SESSION' or 'CLOSE'");
    buf_one_line(why); /* a member's name may hold a newline */
    cJSON_Delete(root);
    return kind;
}

static bool sess_alnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool sess_id_ok(const char *id, size_t len, bool new_ok) {
    if (new_ok && len == strlen(SESS_NEW) && memcmp(id, SESS_NEW, len) == 0) return true;
    if (!len || len > SESS_ID_MAX || !sess_alnum(id[0]) || !sess_alnum(id[len - 1])) return false;
    for (size_t i = 1; i < len; i++)
        if (!sess_alnum(id[i]) && id[i] != '-') return false;
    return true;
}

static size_t sess_hash(const char *id, size_t len) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)id[i]) * 0x100000001b3ULL;
    return (size_t)(h ^ (h >> 32));
}

/* The slot of id, or of the free slot where it would go. */
static size_t sess_slot(const struct sess *s, const char *id, size_t len) {
    size_t i = sess_hash(id, len) & (s->cap - 1);
    while (s->slots[i].id[0] &&
           !(strlen(s->slots[i].id) == len && memcmp(s->slots[i].id, id, len) == 0))
        i = (i + 1) & (s->cap - 1);
    return i;
}

/* Empties slot i, moving later entries of its run back (no tombstones). */
static void sess_remove(struct sess *s, size_t i) {
    size_t j = i;
    s->slots[i].id[0] = '\0';
    s->n--;
    for (;;) {
        j = (j + 1) & (s->cap - 1);
        if (!s->slots[j].id[0]) return;
        size_t home = sess_hash(s->slots[j].id, strlen(s->slots[j].id)) & (s->cap - 1);
        /* j's entry may fill the hole at i unless its home lies in (i, j] */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays) continue;
        s->slots[i] = s->slots[j];
        s->slots[j].id[0] = '\0';
        i = j;
    }
}

static int sess_grow(struct sess *s) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    struct sess_entry *old = s->slots;
    size_t old_cap = s->cap;
    s->slots = calloc(cap, sizeof *s->slots);
    if (!s->slots) {
        s->slots = old;
        return SESS_ERR_NOMEM;
    }
    s->cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].id[0]) continue;
        s->slots[sess_slot(s, old[i].id, strlen(old[i].id))] = old[i];
    }
    free(old);
    return SESS_OK;
}

/* Drops every expired session (counted expired). */
static void sess_sweep(struct sess *s, double now) {
    for (size_t i = 0; i < s->cap;) {
        if (s->slots[i].id[0] && now > s->slots[i].expires) {
            sess_remove(s, i); /* an entry may move into i: look at it again */
            s->c.expired++;
        } else {
            i++;
        }
    }
}

int sess_open(struct sess *s, uint64_t *rng, double now, double ttl, char id[SESS_ID_LEN + 1]) {
    if (s->n >= SESS_MAX) sess_sweep(s, now);
    if (s->n >= SESS_MAX) return SESS_ERR_FULL;
    if (2 * (s->n + 1) > s->cap && sess_grow(s)) return SESS_ERR_NOMEM;
    uint64_t a = splitmix_next(rng), b = splitmix_next(rng);
    snprintf(id, SESS_ID_LEN + 1, "%08x-%04x-4%03x-%x%03x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff, 8 + (unsigned)(b >> 62),
             (unsigned)(b >> 48) & 0xfff, (unsigned long long)(b & 0xffffffffffffULL));
    struct sess_entry *e = &s->slots[sess_slot(s, id, SESS_ID_LEN)];
    if (e->id[0]) return SESS_ERR_FULL; /* the same UUID twice: never in practice */
    memcpy(e->id, id, SESS_ID_LEN + 1);
    e->expires = now + ttl;
    s->n++;
    s->c.created++;
    return SESS_OK;
}

bool sess_holds(const struct sess *s, const char *id, size_t len) {
    return s->n && len == SESS_ID_LEN && s->slots[sess_slot(s, id, len)].id[0];
}

enum sess_state sess_find(struct sess *s, const char *id, size_t len, double now) {
    if (!sess_holds(s, id, len)) return SESS_UNKNOWN;
    size_t i = sess_slot(s, id, len);
    if (now <= s->slots[i].expires) return SESS_LIVE;
    sess_remove(s, i);
    s->c.expired++;
    return SESS_EXPIRED;
}

int sess_close(struct sess *s, const char *id, size_t len) {
    if (!sess_holds(s, id, len)) return SESS_ERR_UNKNOWN;
    sess_remove(s, sess_slot(s, id, len));
    s->c.closed++;
    return SESS_OK;
}

void sess_expires_text(double t, char out[SESS_EXPIRES_AT + 1]) {
    time_t secs = (time_t)t;
    struct tm tm;
    gmtime_r(&secs, &tm);
    strftime(out, SESS_EXPIRES_AT + 1, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void sess_reply_init(struct sess_reply *r) {
    memset(r, 0, sizeof *r);
    buf_init(&r->text, BUF_NO_CAP);
}

void sess_reply_free(struct sess_reply *r) {
    buf_free(&r->text);
}

/* Sets r's status and text; returns 0 or SESS_ERR_NOMEM. */
__attribute__((format(printf, 3, 4))) static int sess_say(struct sess_reply *r, int status,
                                                          const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_reset(&r->text);
    int rc = buf_vaddf(&r->text, fmt, ap);
    va_end(ap);
    r->status = status;
    return rc ? SESS_ERR_NOMEM : SESS_OK;
}

/* NEW_SESSION: opens one (the reply names it) or says why not. */
static int sess_handle_open(struct sess *s, double ttl, double now, uint64_t *rng,
                            struct sess_reply *r) {
    char id[SESS_ID_LEN + 1], expires[SESS_EXPIRES_AT + 1];
    int rc = sess_open(s, rng, now, ttl, id);
    if (rc == SESS_ERR_NOMEM) return rc;
    if (rc) return sess_say(r, 424, "Failed to create session: %d sessions are open", SESS_MAX);
    sess_expires_text(now + ttl, expires);
    snprintf(r->session, sizeof r->session, "%s", id);
    snprintf(r->new_session, sizeof r->new_session, "%s; Expires=%s", id, expires);
    return sess_say(r, 200, "Session %s created", id);
}

/* CLOSE: closes the session the header names, or says why not. */
static int sess_handle_close(struct sess *s, const char *id, size_t id_len, struct sess_reply *r) {
    if (!id) return sess_say(r, 424, "Failed to close session: invalid session_id: None");
    if (sess_close(s, id, id_len))
        return sess_say(r, 424, "Failed to close session: session not found: %.*s",
                        (int)(id_len > SESS_ID_MAX ? SESS_ID_MAX : id_len), id);
    r->closed = true;
    return sess_say(r, 200, "Session %s closed", r->session);
}

int sess_json(struct buf *out, const struct sess *s) {
    return buf_addf(out, "{\"open\":%zu,\"created\":%lu,\"closed\":%lu,\"expired\":%lu}", s->n,
                    s->c.created, s->c.closed, s->c.expired);
}

int sess_handle(struct sess *s, double ttl, const char *id, size_t id_len, const char *body,
                size_t len, double now, uint64_t *rng, struct sess_reply *r) {
    struct buf why;
    buf_init(&why, 256);
    enum sess_kind kind = sess_request_kind(body, len, &why);
    bool named = id && id_len && !(id_len == strlen(SESS_NEW) && memcmp(id, SESS_NEW, id_len) == 0);
    int rc = SESS_OK;
    r->status = 0;
    if (named) snprintf(r->session, sizeof r->session, "%.*s", (int)id_len, id);
    if (ttl <= 0 && (id || kind != SESS_NONE))
        rc = sess_say(r, 400,
                      "Invalid payload. stateful sessions not enabled, "
                      "X-Amzn-SageMaker-Session-Id header not supported");
    else if (kind == SESS_BAD)
        rc = sess_say(r, 400, "%s", buf_str(&why));
    else if (named && sess_find(s, id, id_len, now) == SESS_UNKNOWN)
        rc = sess_say(r, 400, "Bad request: session not found: %s", r->session);
    else if (kind == SESS_OPEN)
        rc = sess_handle_open(s, ttl, now, rng, r);
    else if (kind == SESS_CLOSE)
        rc = sess_handle_close(s, id, id_len, r);
    buf_free(&why);
    return rc;
}
