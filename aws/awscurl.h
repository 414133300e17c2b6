/* awscurl: the curl side of one signed exchange, shared by the AWS clients
 * (awsj.h, s3.h): the signed header lines (cleansed when freed: they hold a
 * signature) and one request on a reused handle, with the options every call
 * of theirs sets (HTTP/1.1, http and https only, no signals, the user agent). */
#ifndef SM_AWSCURL_H
#define SM_AWSCURL_H

#include <stddef.h>

#include <curl/curl.h>

/* One request: its URL, method, body, signed headers, limits and callbacks. */
struct awscurl_call {
    const char *url;
    const char *method; /* "GET", "POST" or "PUT" */
    const void *body;   /* POST and PUT: body_len bytes (NULL: empty) */
    size_t body_len;
    struct curl_slist *headers;
    const char *ca_bundle; /* the certificates trusted; NULL: the system's */
    long timeout_ms, connect_ms;
    curl_write_callback on_body, on_header;
    void *ud;     /* both callbacks' */
    char *errbuf; /* CURL_ERROR_SIZE bytes: curl's message of a failure */
};

/* Appends line to *list. Returns 0, or -1 out of memory (*list unchanged). */
__attribute__((warn_unused_result)) int awscurl_add(struct curl_slist **list, const char *line);
/* Frees list, its lines cleansed first. */
void awscurl_free(struct curl_slist *list);

/* Sends c on h (reset first) and waits for the whole reply; *status is its HTTP
 * status (0: none). Returns curl's result. h keeps no pointer into c after. */
CURLcode awscurl_perform(CURL *h, const struct awscurl_call *c, long *status);

#endif
