/* awscurl: the curl side of one signed exchange, shared by the AWS clients
 * (awsj.h, s3.h): the signed header lines (cleansed when freed: they hold a
 * signature) and one request on a reused handle, with the options every call
 * of theirs sets (HTTP/1.1, http and https only, no signals, the user agent);
 * rtinvoke.h's SageMaker Runtime call uses it too.
 * It signs nothing for plain http to a host that is not loopback unless the
 * call allows it (plainhttp.h): the clients refuse such an endpoint URL when
 * they are made, with their message; awscurl_perform refuses it again, so that
 * no signed request goes out in clear by another way. */
#ifndef SM_AWSCURL_H
#define SM_AWSCURL_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

#include "buf.h"

/* One request: its URL, method, body, signed headers, limits and callbacks. */
struct awscurl_call {
    const char *url;
    const char *method; /* "GET", "POST" or "PUT" */
    const void *body;   /* POST and PUT: body_len bytes (NULL: empty) */
    size_t body_len;
    struct curl_slist *headers;
    const char *ca_bundle;  /* the certificates trusted; NULL: the system's */
    bool insecure;          /* HTTPS: the server's certificate is not verified (--insecure) */
    const char *user_agent; /* NULL: wrk-sagemaker/VERSION */
    long timeout_ms, connect_ms;
    curl_write_callback on_body, on_header;
    void *ud;              /* both callbacks' */
    char *errbuf;          /* CURL_ERROR_SIZE bytes: curl's message of a failure */
    bool allow_plain_http; /* --allow-plain-http: http:// to any host (plainhttp.h) */
};

/* What awscurl_split finds wrong with a base URL. */
enum awscurl_error {
    AWSCURL_OK = 0,
    AWSCURL_ERR_NOT_URL = -1, /* not a URL with a scheme and a host */
    AWSCURL_ERR_SCHEME = -2,  /* neither http:// nor https:// */
    AWSCURL_ERR_EXTRA = -3,   /* a query, a user or a fragment */
    AWSCURL_ERR_NOMEM = -4,
};

/* Splits base (scheme://host[:port][/prefix]) for a signed request: appends
 * "scheme://HOST" to origin, the Host header to host (its port only when not the
 * scheme's default) and the path without its trailing '/' to prefix ("" for
 * none). Returns 0 or an AWSCURL_ERR_* (the callers word the message). */
__attribute__((warn_unused_result)) int awscurl_split(const char *base, struct buf *origin,
                                                      struct buf *host, struct buf *prefix);

/* Appends line to *list. Returns 0, or -1 out of memory (*list unchanged). */
__attribute__((warn_unused_result)) int awscurl_add(struct curl_slist **list, const char *line);
/* Frees list, its lines cleansed first. */
void awscurl_free(struct curl_slist *list);

/* Sends c on h (reset first) and waits for the whole reply; *status is its HTTP
 * status (0: none). Returns curl's result. h keeps no pointer into c after. A URL
 * plainhttp_check refuses is not sent: CURLE_UNSUPPORTED_PROTOCOL, *status 0, the
 * reason in errbuf. */
CURLcode awscurl_perform(CURL *h, const struct awscurl_call *c, long *status);

#endif
