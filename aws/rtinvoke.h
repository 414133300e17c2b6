/* rtinvoke: the one SigV4-signed SageMaker Runtime InvokeEndpoint
 * (POST /endpoints/NAME/invocations) over libcurl, which sm-invoke, sm-endpoint's
 * verify and query and sm-mcp's tools send: to
 * https://runtime.sagemaker.REGION.amazonaws.com (.com.cn in cn-* regions), or to
 * a base URL (sm-emulator, a proxy). Every header curl sends that matters is
 * signed exactly as sent; the curl side is awscurl.h's (which refuses plain
 * http to a host that is not loopback again). The reply is bounded; an error
 * reply becomes one scrubbed line.
 *
 * A request is made (rtinvoke_init), signed (rtinvoke_sign, again for a retry
 * at another time) and sent (rtinvoke_send); rtinvoke_call does the three with
 * a credentials cache. */
#ifndef SM_RTINVOKE_H
#define SM_RTINVOKE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "creds.h"
#include "sigv4.h"

enum rtinvoke_error {
    RTINVOKE_OK = 0,
    RTINVOKE_ERR_INPUT = -1,   /* a bad URL, endpoint, region or service name, or clock */
    RTINVOKE_ERR_CREDS = -2,   /* no credentials */
    RTINVOKE_ERR_NETWORK = -3, /* no reply (connection, TLS, ...) */
    RTINVOKE_ERR_SERVICE = -4, /* a non-2xx reply: err has "STATUS Code: message" */
    RTINVOKE_ERR_NOMEM = -5,
    RTINVOKE_ERR_TIMEOUT = -6,   /* no complete reply within the time-out */
    RTINVOKE_ERR_TOO_LARGE = -7, /* the reply is larger than the reply's body.max */
};

/* Extra headers a request may carry (--header), and all of them. */
#define RTINVOKE_MAX_EXTRA   32
#define RTINVOKE_MAX_HEADERS (RTINVOKE_MAX_EXTRA + 10)
/* The time-out when none is given: SageMaker allows the model 60 s. */
#define RTINVOKE_TIMEOUT_MS 70000L

/* What to send. The strings are borrowed until rtinvoke_free; header values hold
 * no control character but tab (the caller checks what it takes from outside). */
struct rtinvoke_req {
    const char *region;   /* required: a region name such as us-east-1 */
    const char *base_url; /* scheme://host[:port][/prefix]; NULL: the region's runtime host */
    const char *endpoint; /* the endpoint's name (smname.h) */
    const char *service;  /* the SigV4 signing name; NULL: sagemaker */
    const char *content_type, *accept; /* NULL: application/json */
    const char *custom_attributes;     /* X-Amzn-SageMaker-Custom-Attributes, NULL: none */
    const char *target_variant;        /* X-Amzn-SageMaker-Target-Variant, NULL: none */
    const char *inference_component;   /* X-Amzn-SageMaker-Inference-Component, NULL: none */
    const char *const *extra; /* n_extra more headers "Name: value" (at most RTINVOKE_MAX_EXTRA)*/
    size_t n_extra;
    const char *body;
    size_t body_len;
    bool allow_plain_http; /* http:// to a host that is not loopback is fine (plainhttp.h) */
};

/* A request made and signed. Read-only for the caller: url, host, target and
 * headers (as sent, Authorization not included) and signed (the canonical
 * request, string to sign, Authorization) are what a dry run shows. */
struct rtinvoke {
    struct rtinvoke_req q;
    struct buf url, host, target; /* the full URL, the Host header, the request target */
    struct sigv4_header headers[RTINVOKE_MAX_HEADERS];
    size_t n_headers;
    char amz_date[SIGV4_DATE_LEN + 1];
    struct sigv4_signer *signer;
    struct sigv4_result signed_req;
};

/* How to send: all zero is the defaults. */
struct rtinvoke_net {
    long timeout_ms;        /* 0: RTINVOKE_TIMEOUT_MS */
    const char *ca_bundle;  /* HTTPS: the CA certificates trusted; NULL: the system's */
    bool insecure;          /* HTTPS: the server's certificate is not verified */
    const char *user_agent; /* NULL: wrk-sagemaker/VERSION */
};

/* A reply: the status line's reason, the headers a caller reads, the body (at
 * most body.max bytes) and the wall time. on_line, when set, sees each header
 * line (without its line end) as it comes. */
struct rtinvoke_reply {
    long status; /* 0: none */
    struct buf reason, error_type, date, body;
    double seconds;
    void (*on_line)(void *ud, const char *line, size_t len);
    void *ud;
};

/* Makes r from q (copied; its strings borrowed): the URL, Host and request
 * target. Returns 0, or RTINVOKE_ERR_INPUT with one line naming what was wrong
 * (the base URL is quoted; the caller adds its flag), or RTINVOKE_ERR_NOMEM. Free
 * r with rtinvoke_free, also on error. */
__attribute__((warn_unused_result)) int
rtinvoke_init(struct rtinvoke *r, const struct rtinvoke_req *q, struct buf *err);
void rtinvoke_free(struct rtinvoke *r);

/* The default base URL of region, https://runtime.sagemaker.REGION.amazonaws.com
 * (.com.cn in a cn-* region), into out. Returns 0 or RTINVOKE_ERR_NOMEM. */
__attribute__((warn_unused_result)) int rtinvoke_default_url(const char *region, struct buf *out);

/* Signs r with cr (borrowed until the next rtinvoke_sign or rtinvoke_free: the
 * session token is a header) at time when, or at amz_date (YYYYMMDDTHHMMSSZ)
 * when not NULL. Returns 0 or an RTINVOKE_ERR_* with one line in err. */
__attribute__((warn_unused_result)) int rtinvoke_sign(struct rtinvoke *r, const struct creds *cr,
                                                      time_t when, const char *amz_date,
                                                      struct buf *err);

void rtinvoke_reply_init(struct rtinvoke_reply *rep, size_t max_body);
void rtinvoke_reply_free(struct rtinvoke_reply *rep);

/* Reads one header line of a reply into rep (its line end may be there; what
 * rtinvoke_send's curl callback does): a status line starts a new reply (its
 * reason kept, the last one's headers forgotten); x-amzn-ErrorType and Date are
 * kept trimmed. Control characters in what is kept become '?'; a value longer
 * than its buffer's cap is not kept. */
void rtinvoke_reply_line(struct rtinvoke_reply *rep, const char *line, size_t len);

/* Sends the signed r and waits for the whole reply into rep (emptied first).
 * Returns 0 with a reply of any status, or RTINVOKE_ERR_TIMEOUT,
 * RTINVOKE_ERR_TOO_LARGE, RTINVOKE_ERR_NETWORK or RTINVOKE_ERR_NOMEM with one line
 * "URL: why" in err. */
__attribute__((warn_unused_result)) int rtinvoke_send(const struct rtinvoke *r,
                                                      const struct rtinvoke_net *n,
                                                      struct rtinvoke_reply *rep, struct buf *err);

/* The error a reply that is not 2xx says, "STATUS Code: message" (Code from
 * x-amzn-ErrorType or the body, else the reason, else HTTPError), scrubbed, as
 * RTINVOKE_ERR_SERVICE in err; 0 for a 2xx. */
__attribute__((warn_unused_result)) int rtinvoke_failure(const struct rtinvoke_reply *rep,
                                                         struct buf *err);

/* Makes, signs with cache's credentials at the clock's time, and sends q; a
 * reply that is not 2xx is rtinvoke_failure's error (rep's body emptied). */
__attribute__((warn_unused_result)) int rtinvoke_call(const struct rtinvoke_req *q,
                                                      struct creds_cache *cache,
                                                      const struct rtinvoke_net *n,
                                                      struct rtinvoke_reply *rep, struct buf *err);

#endif
