/* awsj: a small SigV4-signed client for the AWS JSON protocols (1.0 and 1.1)
 * over libcurl, for the control-plane calls wrk-sagemaker makes: SageMaker,
 * CloudWatch Logs, Service Quotas and CloudWatch metrics.
 *
 * Wire format (Smithy's awsJson1_0/awsJson1_1): POST / with the JSON request,
 * Content-Type application/x-amz-json-1.x and X-Amz-Target <prefix>.<Operation>;
 * a 2xx carries the JSON reply; an error reply names its code in the
 * x-amzn-ErrorType header or the body's "__type" ("code"), with the message in
 * "message" or "Message"; a code is cut before the first ':' and after the
 * first '#'. Timestamps travel as epoch seconds (numbers).
 *
 * The services, each checked against the service-2.json "metadata" of Debian
 * 12's python3-botocore 1.29.27 (/usr/lib/python3/dist-packages/botocore/data/
 * <name>/<version>/service-2.json; no signingName means the endpointPrefix):
 *   sagemaker/2017-07-24       json 1.1, targetPrefix SageMaker, signingName
 *                              sagemaker, endpointPrefix api.sagemaker
 *   logs/2014-03-28            json 1.1, Logs_20140328, endpointPrefix logs
 *   service-quotas/2019-06-24  json 1.1, ServiceQuotasV20190624, endpointPrefix
 *                              servicequotas
 *   application-autoscaling/2016-02-06  json 1.1, AnyScaleFrontendService,
 *                              signingName and endpointPrefix application-autoscaling
 *   cloudwatch/2010-08-01      botocore 1.29.27 knows only the query protocol
 *                              (XML replies); endpointPrefix monitoring.
 * CloudWatch metrics also accept AWS JSON 1.0 (and Smithy RPC v2 CBOR) since
 * 2025, not 2023: AWS's "Amazon CloudWatch SDK optimized JSON, CBOR protocols
 * in preview" (July 2025), the CloudWatch user guide's "FAQs on CloudWatch
 * supported protocols" (cloudwatch-protocols-faq.html), the SDKs' switch late
 * in 2025 (aws-sdk-ruby cloudwatch 1.126.0, 2025-12-10). Its JSON target is
 * GraniteServiceVersion20100801.<Op> with application/x-amz-json-1.0 (aws-sdk-net's
 * CloudWatch marshallers, aws-sdk-js-v3's CloudWatch commands). The service is
 * awsQueryCompatible: clients send "x-amzn-query-mode: true" (aws-sdk-js-v3
 * #6651, aws-sdk-java-v2 #5707: awsJson1_0 and CBOR only) and an error reply may
 * carry "x-amzn-query-error: Code;Fault" with the query protocol's code, which
 * the SDKs prefer (aws-sdk-java-v2 #3442, aws-sdk-ruby #2766). So this client
 * speaks JSON to CloudWatch too, and needs no XML parser.
 *
 * Retries follow the SDKs' "standard" mode (AWS SDKs and Tools reference guide,
 * "Retry behavior"; botocore/retries/standard.py): at most 3 attempts; retried
 * are the throttling codes (botocore's list: Throttling, ThrottlingException,
 * ThrottledException, RequestThrottledException, TooManyRequestsException,
 * ProvisionedThroughputExceededException, TransactionInProgressException,
 * RequestLimitExceeded, BandwidthLimitExceeded, LimitExceededException,
 * RequestThrottled, SlowDown, PriorRequestNotComplete, EC2ThrottledException)
 * and HTTP 429, the transient codes RequestTimeout, RequestTimeoutException and
 * PriorRequestNotComplete, HTTP 500, 502, 503 and 504, and failed connections
 * (refused, reset, DNS, TLS handshake, time-out); never other 4xx. The wait
 * before retry n (1, 2, ...) is full jitter, rand[0,1) * min(20 s, base * 2^(n-1)),
 * with base 1 s after throttling and 100 ms otherwise (aws-sdk-java-v2 standard
 * mode: BASE_DELAY 100 ms, THROTTLED_BASE_DELAY 1 s, MAX_BACKOFF 20 s; botocore
 * uses 1 s for both). The SDKs' retry quota (a 500-token bucket) is left out:
 * the client makes a handful of calls. A signing-time error (skew.h) is retried
 * once more, at once, with the clock offset taken from the reply's Date header;
 * the offset stays for the client's later calls.
 *
 * Messages from the server are untrusted: bounded, control characters
 * replaced, and the process's secrets scrubbed (common/scrub.h). */
#ifndef SM_AWSJ_H
#define SM_AWSJ_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "creds.h"

#define AWSJ_CODE_MAX    128 /* bytes of an error code, with the NUL */
#define AWSJ_MESSAGE_MAX 512 /* bytes of a server message kept, before "..." */

enum awsj_error {
    AWSJ_OK = 0,
    AWSJ_ERR_NOMEM = -1,
    AWSJ_ERR_INPUT = -2,     /* bad configuration, operation name or request */
    AWSJ_ERR_CREDS = -3,     /* no usable credentials */
    AWSJ_ERR_NETWORK = -4,   /* no reply (connection, TLS, time-out), retries spent */
    AWSJ_ERR_SERVICE = -5,   /* an error reply, retries spent; awsj_last() has its code */
    AWSJ_ERR_TOO_LARGE = -6, /* a reply past the size cap */
    AWSJ_ERR_REPLY = -7,     /* a page that is not a JSON object, or a bad next token */
    AWSJ_ERR_PAGES = -8,     /* more pages than the caller's cap */
};

enum awsj_service_id {
    AWSJ_SAGEMAKER,      /* the control plane: CreateModel, DescribeEndpoint, ... */
    AWSJ_LOGS,           /* CloudWatch Logs: FilterLogEvents, ... */
    AWSJ_SERVICE_QUOTAS, /* GetServiceQuota, ListServiceQuotas, ... */
    AWSJ_CLOUDWATCH,     /* CloudWatch metrics: GetMetricData, ... */
    AWSJ_AUTOSCALING,    /* Application Auto Scaling: DescribeScalingActivities, ... */
    AWSJ_N_SERVICES
};

struct awsj_service {
    const char *name;            /* in messages; the AWS CLI's command: "logs" */
    const char *iam_prefix;      /* IAM actions: "logs" as in logs:FilterLogEvents */
    const char *signing_name;    /* SigV4 scope service */
    const char *endpoint_prefix; /* host {prefix}.{region}.amazonaws.com */
    const char *target_prefix;   /* X-Amz-Target {prefix}.{Operation} */
    const char *content_type;    /* application/x-amz-json-1.0 or -1.1 */
    bool query_mode;             /* awsQueryCompatible: sends x-amzn-query-mode: true and
                                    takes the code from x-amzn-query-error first */
};

/* The descriptor of id (static storage); NULL for an unknown id. */
const struct awsj_service *awsj_service(enum awsj_service_id id);

/* Injected clock, sleep and randomness; ud is awsj_config.ud. */
typedef time_t awsj_now_fn(void *ud);
typedef void awsj_sleep_fn(void *ud, long ms);
typedef double awsj_random_fn(void *ud); /* uniform in [0, 1) */

struct awsj_config {
    const char *region;         /* required, e.g. "us-east-1"; copied */
    const char *endpoint_url;   /* NULL: https://{prefix}.{region}.amazonaws.com for each
                                   service; else http(s)://host[:port][/path] for every
                                   service (the emulator, a test server); copied */
    bool allow_plain_http;      /* --allow-plain-http: an http:// endpoint_url whose host
                                   is not loopback is fine (else AWSJ_ERR_INPUT, plainhttp.h) */
    const char *ca_bundle;      /* certificates to trust (PEM file); NULL: $AWS_CA_BUNDLE as
                                   the AWS CLI reads it, else the system's; copied */
    struct creds_options creds; /* the credential chain's options (profile, ...); copied */
    struct creds_cache *cache;  /* NULL: the client makes its own from creds; else
                                   borrowed (it may be shared) and must outlive the client */
    int max_attempts;           /* requests per call before giving up; 0: 3 */
    long timeout_ms;            /* per request; 0: 30 s */
    size_t max_reply;           /* bytes of a reply body; 0: 16 MiB */
    awsj_now_fn *now;           /* NULL: time() */
    awsj_sleep_fn *sleep_ms;    /* NULL: nanosleep() */
    awsj_random_fn *random;     /* NULL: OpenSSL's RAND_bytes */
    void *ud;
};

/* What the last awsj_call learned, also when it failed. */
struct awsj_status {
    long http_status;               /* of the last reply; 0 when none came */
    char code[AWSJ_CODE_MAX];       /* its error code ("AccessDeniedException"); "" when none */
    char request_id[AWSJ_CODE_MAX]; /* its x-amzn-RequestId; "" when none */
    int attempts;                   /* requests sent */
};

/* One client per thread at a time: it keeps one curl handle (connections are
 * reused) and the last status. Its credential cache may be shared. Clients may
 * be made and freed on any thread: each one pairs curl_global_init and
 * curl_global_cleanup, thread-safe in Debian 12's libcurl 7.88 ("threadsafe"). */
struct awsj_client;

/* Makes a client; returns 0, or AWSJ_ERR_INPUT / _NOMEM with one line in err.
 * Free it with awsj_client_free. */
__attribute__((warn_unused_result)) int awsj_client_new(const struct awsj_config *cfg,
                                                        struct awsj_client **out, struct buf *err);
/* NULL is fine. */
void awsj_client_free(struct awsj_client *c);

/* Calls op (e.g. "FilterLogEvents") of svc with request (JSON text; NULL: "{}")
 * and puts the 2xx reply's body in reply (emptied first; it may be empty). On
 * error returns an awsj_error with one line in err such as
 *   logs FilterLogEvents: AccessDeniedException: User: arn:aws:iam::1:user/u is
 *   not authorized to perform: logs:FilterLogEvents (HTTP 400)
 * (", 3 attempts" joins "HTTP 400" when there were more); reply is then empty. */
__attribute__((warn_unused_result)) int awsj_call(struct awsj_client *c, enum awsj_service_id svc,
                                                  const char *op, const char *request,
                                                  struct buf *reply, struct buf *err);

/* The status of the client's last call; valid until the next call. */
const struct awsj_status *awsj_last(const struct awsj_client *c);
/* Seconds added to the clock when signing, learned from a signing-time error. */
long long awsj_clock_offset(const struct awsj_client *c);

/* Receives one page (a JSON object's text); returns 0 for more, > 0 to stop
 * (awsj_paginate then returns 0), < 0 to fail (returned as is; the callback
 * writes err). */
typedef int awsj_page_fn(void *ud, const char *page, size_t len, struct buf *err);

/* Calls op again and again, setting the request's token_key ("nextToken",
 * "NextToken") to the one the last reply gave, until a reply has none; each
 * reply goes to fn. More than max_pages pages is AWSJ_ERR_PAGES, and so is a
 * reply repeating the token it was asked with. */
__attribute__((warn_unused_result)) int
awsj_paginate(struct awsj_client *c, enum awsj_service_id svc, const char *op, const char *request,
              const char *token_key, int max_pages, awsj_page_fn *fn, void *ud, struct buf *err);

/* ---- the pure parts, for tests ---- */

/* The default endpoint: "https://{prefix}.{region}.amazonaws.com/" (".com.cn" for
 * cn-* regions). Returns 0, AWSJ_ERR_INPUT for a bad region, or _NOMEM. */
__attribute__((warn_unused_result)) int awsj_endpoint(const struct awsj_service *s,
                                                      const char *region, struct buf *url);
/* "{target_prefix}.{op}"; op must be an operation name: a capital letter, then
 * up to 63 letters and digits. Returns 0, AWSJ_ERR_INPUT or _NOMEM. */
__attribute__((warn_unused_result)) int awsj_target(const struct awsj_service *s, const char *op,
                                                    struct buf *target);

enum awsj_retry {
    AWSJ_RETRY_NO = 0,
    AWSJ_RETRY_TRANSIENT, /* 5xx, transient codes, failed connections */
    AWSJ_RETRY_THROTTLE,  /* throttling codes, 429 */
};
/* How a failed attempt may be retried: status 0 with no_reply for a failed
 * connection; code as the reply named it (NULL or "" for none). */
enum awsj_retry awsj_retry_kind(long status, const char *code, bool no_reply);
/* The wait before retry n >= 1: r * min(20 s, base * 2^(n-1)) in ms, base 1 s
 * for AWSJ_RETRY_THROTTLE and 100 ms otherwise; r in [0, 1). */
long awsj_backoff_ms(enum awsj_retry kind, int n, double r);

/* An error reply's code and message, scrubbed, one line, cut to size. */
struct awsj_reply_error {
    char code[AWSJ_CODE_MAX];
    char message[AWSJ_MESSAGE_MAX + 4]; /* cut ones end in "..." */
};

/* Reads an error reply: the code from query_error ("Code;Fault", NULL when
 * absent or not wanted) up to ';', else error_type (x-amzn-ErrorType, NULL
 * when absent), else the body's "__type" or "code"; then cut before ':' and
 * after '#'. The message from the body's "message" or "Message". A body that
 * is not a JSON object leaves them empty. Never fails: out of memory leaves
 * the message empty. */
void awsj_parse_error(const char *query_error, const char *error_type, const char *body, size_t len,
                      struct awsj_reply_error *out);

/* Writes "{svc} {op}: {code or 'error'}[: {message}] (HTTP {status}[, N attempts])"
 * into err (emptied first). Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int
awsj_error_line(struct buf *err, const struct awsj_service *s, const char *op,
                const struct awsj_reply_error *e, long status, int attempts);

/* The next-page token under key in a reply: 0 with token set (emptied first;
 * left empty when the key is absent, null or ""), AWSJ_ERR_REPLY when the reply
 * is not a JSON object or the token not a string, or AWSJ_ERR_NOMEM. */
__attribute__((warn_unused_result)) int awsj_next_token(const char *reply, size_t len,
                                                        const char *key, struct buf *token);

/* The request with key set to token (replaced if present): JSON text in out
 * (emptied first). request NULL means "{}". Returns 0, AWSJ_ERR_INPUT when the
 * request is not a JSON object, or AWSJ_ERR_NOMEM. */
__attribute__((warn_unused_result)) int awsj_with_token(const char *request, const char *key,
                                                        const char *token, struct buf *out);

#endif
