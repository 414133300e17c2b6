/* plainhttp: the one rule on signing for a plain http:// URL. A signed request
 * carries the signature and, with temporary credentials, the session token in
 * its headers: over http:// to another machine anyone on the path reads them
 * (and may replay the request for minutes). So a request is signed for an
 * http:// URL only when its host is loopback (127.0.0.0/8, ::1, localhost: the
 * emulator on this machine) or the user said --allow-plain-http. https:// is
 * always fine; other schemes are the caller's to refuse. Every program and
 * engine that signs asks plainhttp_check before its first request. */
#ifndef SM_PLAINHTTP_H
#define SM_PLAINHTTP_H

#include <stdbool.h>

#include "buf.h"

enum plainhttp_error {
    PLAINHTTP_OK = 0,
    PLAINHTTP_ERR_REFUSED = -1, /* plain http to a host that is not loopback */
};

/* Whether host (a URL's host: a name, an IPv4 address, or an IPv6 address with
 * or without its brackets) is this machine's loopback. */
bool plainhttp_loopback(const char *host);

/* Whether requests signed for url may go there: 0, or PLAINHTTP_ERR_REFUSED with
 * one line in err naming the URL and why (allow: --allow-plain-http was given). */
__attribute__((warn_unused_result)) int plainhttp_check(const char *url, bool allow,
                                                        struct buf *err);

#endif
