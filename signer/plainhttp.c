#include "plainhttp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The longest host looked at; a longer one is no loopback. */
#define PLAINHTTP_HOST_MAX 256

bool plainhttp_loopback(const char *host) {
    char h[PLAINHTTP_HOST_MAX];
    size_t n = strlen(host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
        host++;
        n -= 2;
    }
    if (n == 0 || n >= sizeof h) return false;
    memcpy(h, host, n);
    h[n] = '\0';
    if (strcasecmp(h, "localhost") == 0 || strcasecmp(h, "localhost.") == 0) return true;
    struct in_addr a4;
    if (inet_pton(AF_INET, h, &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
    struct in6_addr a6;
    if (inet_pton(AF_INET6, h, &a6) == 1) {
        if (IN6_IS_ADDR_LOOPBACK(&a6)) return true;
        return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
    }
    return false;
}

int plainhttp_check(const char *url, bool allow, struct buf *err) {
    if (allow || strncasecmp(url, "http://", 7) != 0) return PLAINHTTP_OK;
    const char *auth = url + 7;
    size_t n = strcspn(auth, "/?#");
    const char *at = memchr(auth, '@', n); /* user info: not the host */
    while (at) {
        n -= (size_t)(at + 1 - auth);
        auth = at + 1;
        at = memchr(auth, '@', n);
    }
    size_t host_n = n;
    if (n > 0 && auth[0] == '[') {
        const char *close = memchr(auth, ']', n);
        host_n = close ? (size_t)(close - auth) + 1 : n;
    } else {
        const char *colon = memchr(auth, ':', n);
        if (colon) host_n = (size_t)(colon - auth);
    }
    char host[PLAINHTTP_HOST_MAX];
    if (host_n > 0 && host_n < sizeof host) {
        memcpy(host, auth, host_n);
        host[host_n] = '\0';
        if (plainhttp_loopback(host)) return PLAINHTTP_OK;
    }
    return buf_fail(err, PLAINHTTP_ERR_REFUSED,
                    "refusing to sign requests for http://%.*s: plain http shows the signature "
                    "and session token to the network on the way to a host that is not "
                    "loopback (use https://, or --allow-plain-http to send them anyway)",
                    (int)(n < 200 ? n : 200), auth);
}
