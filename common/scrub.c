#include "scrub.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#define SCRUB_FORMS 32 /* raw and URL-encoded forms of the secrets of a run */

static struct {
    pthread_mutex_t lock;
    char *forms[SCRUB_FORMS];
    size_t n;
} scrub = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* s URL-encoded as a query or form encodes it (unreserved characters kept);
 * malloc'ed, or NULL when out of memory or when it equals s. */
static char *scrub_encoded(const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s), k = 0;
    char *out = malloc(3 * n + 1);
    if (!out) return NULL;
    bool changed = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            out[k++] = (char)c;
            continue;
        }
        out[k++] = '%';
        out[k++] = hex[c >> 4];
        out[k++] = hex[c & 15];
        changed = true;
    }
    out[k] = '\0';
    if (changed) return out;
    free(out);
    return NULL;
}

/* Adds a copy of form unless it is known; with the lock held. */
static int scrub_keep(const char *form) {
    for (size_t i = 0; i < scrub.n; i++)
        if (strcmp(scrub.forms[i], form) == 0) return 0;
    if (scrub.n == SCRUB_FORMS) { /* the oldest goes: a long run's expired credentials */
        OPENSSL_cleanse(scrub.forms[0], strlen(scrub.forms[0]));
        free(scrub.forms[0]);
        memmove(scrub.forms, scrub.forms + 1, --scrub.n * sizeof scrub.forms[0]);
    }
    if (!(scrub.forms[scrub.n] = strdup(form))) return BUF_ERR_NOMEM;
    scrub.n++;
    return 0;
}

int scrub_add(const char *secret) {
    if (!secret || strlen(secret) < SCRUB_MIN) return 0;
    char *encoded = scrub_encoded(secret);
    pthread_mutex_lock(&scrub.lock);
    int rc = scrub_keep(secret);
    if (!rc && encoded) rc = scrub_keep(encoded);
    pthread_mutex_unlock(&scrub.lock);
    if (encoded) OPENSSL_cleanse(encoded, strlen(encoded));
    free(encoded);
    return rc;
}

void scrub_forget(void) {
    pthread_mutex_lock(&scrub.lock);
    for (size_t i = 0; i < scrub.n; i++) {
        OPENSSL_cleanse(scrub.forms[i], strlen(scrub.forms[i]));
        free(scrub.forms[i]);
    }
    scrub.n = 0;
    pthread_mutex_unlock(&scrub.lock);
}

#define SCRUB_SIGV4   "AWS4-HMAC-SHA256"
#define SCRUB_TOKEN68 "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/"

/* The length of an echoed SigV4 Authorization value at text (n bytes left): from
 * its algorithm to the end of its signature's hex digits (or of the line), or 0. */
static size_t scrub_authorization(const char *text, size_t n) {
    size_t k = sizeof SCRUB_SIGV4 - 1, end = k;
    if (n < k || memcmp(text, SCRUB_SIGV4, k) != 0) return 0;
    while (end < n && text[end] != '\r' && text[end] != '\n' && text[end] != '"') end++;
    const char *sig = memmem(text, end, "Signature=", 10);
    if (!sig) return end;
    size_t at = (size_t)(sig - text) + 10;
    while (at < end && strchr("0123456789abcdef", text[at]) && text[at]) at++;
    return at;
}

#define SCRUB_BEARER "Bearer "

/* The length of an echoed bearer Authorization value at text (n bytes left): the
 * scheme and a token of at least SCRUB_MIN token68 characters (RFC 6750), or of
 * any length when it runs to the end (an echo cut to fit), or 0. */
static size_t scrub_bearer(const char *text, size_t n) {
    size_t k = sizeof SCRUB_BEARER - 1, end = k;
    if (n < k || memcmp(text, SCRUB_BEARER, k) != 0) return 0;
    while (end < n && text[end] && strchr(SCRUB_TOKEN68, text[end])) end++;
    while (end < n && text[end] == '=') end++;
    return end - k >= SCRUB_MIN || (end == n && end > k) ? end : 0; /* or cut short */
}

/* The length of the echo of a known secret (or of a request's Authorization
 * value) at text (n bytes left), or 0; with the lock held. */
static size_t scrub_echo(const char *text, size_t n) {
    size_t best = scrub_authorization(text, n);
    if (!best) best = scrub_bearer(text, n);
    for (size_t k = 0; k < scrub.n; k++) {
        const char *s = scrub.forms[k];
        size_t len = strlen(s), need = len < SCRUB_PREFIX ? len : SCRUB_PREFIX;
        if (need > n || text[0] != s[0] || memcmp(text, s, need) != 0) continue;
        while (need < len && need < n && text[need] == s[need]) need++;
        if (need > best) best = need;
    }
    return best;
}

int scrub_append(struct buf *out, const char *text, size_t n) {
    pthread_mutex_lock(&scrub.lock);
    size_t i = 0, run = 0; /* text[i - run, i) waits to be copied */
    int rc = 0;
    while (i < n && !rc) {
        size_t hit = scrub_echo(text + i, n - i);
        if (!hit) {
            i++, run++;
            continue;
        }
        rc = buf_add(out, text + i - run, run);
        if (!rc) rc = buf_adds(out, SCRUB_REDACTED);
        i += hit;
        run = 0;
    }
    pthread_mutex_unlock(&scrub.lock);
    return rc ? rc : buf_add(out, text + i - run, run);
}

void scrub_in_place(char *s) {
    pthread_mutex_lock(&scrub.lock);
    size_t n = strlen(s), w = 0;
    for (size_t i = 0; i < n;) {
        size_t hit = scrub_echo(s + i, n - i);
        if (hit < sizeof SCRUB_REDACTED - 1) hit = 0; /* never longer than the echo */
        if (!hit) {
            s[w++] = s[i++];
            continue;
        }
        memcpy(s + w, SCRUB_REDACTED, sizeof SCRUB_REDACTED - 1);
        w += sizeof SCRUB_REDACTED - 1;
        i += hit;
    }
    s[w] = '\0';
    pthread_mutex_unlock(&scrub.lock);
}
