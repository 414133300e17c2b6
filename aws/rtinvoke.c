/* rtinvoke: one signed SageMaker Runtime InvokeEndpoint (rtinvoke.h). */
#include "rtinvoke.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "awscurl.h"
#include "awserr.h"
#include "plainhttp.h"
#include "scrub.h"
#include "smname.h"

#define RTINVOKE_CONNECT_MS 10000L
#define RTINVOKE_JSON       "application/json"

int rtinvoke_default_url(const char *region, struct buf *out) {
    return buf_addf(out, "https://runtime.sagemaker.%s.amazonaws.com%s", region,
                    strncmp(region, "cn-", 3) == 0 ? ".cn" : "")
               ? RTINVOKE_ERR_NOMEM
               : RTINVOKE_OK;
}

/* Splits base into the Host header, the request target and the full URL. */
static int rtinvoke_split(struct rtinvoke *r, const char *base, struct buf *err) {
    struct buf origin;
    buf_init(&origin, BUF_NO_CAP);
    int rc = awscurl_split(base, &origin, &r->host, &r->target);
    const char *why = rc == AWSCURL_ERR_NOT_URL  ? " is not a URL such as http://127.0.0.1:8080"
                      : rc == AWSCURL_ERR_SCHEME ? ": only http:// and https:// are supported"
                      : rc == AWSCURL_ERR_EXTRA  ? ": a query, user or fragment is not allowed"
                                                 : NULL;
    if (why)
        rc = buf_fail(err, RTINVOKE_ERR_INPUT, "'%s'%s", base, why);
    else if (rc || buf_addf(&r->target, "/endpoints/%s/invocations", r->q.endpoint) ||
             buf_addf(&r->url, "%s%s", buf_str(&origin), buf_str(&r->target)))
        rc = buf_fail(err, RTINVOKE_ERR_NOMEM, "out of memory");
    buf_free(&origin);
    return rc;
}

int rtinvoke_init(struct rtinvoke *r, const struct rtinvoke_req *q, struct buf *err) {
    *r = (struct rtinvoke){.q = *q};
    buf_init(&r->url, BUF_NO_CAP);
    buf_init(&r->host, BUF_NO_CAP);
    buf_init(&r->target, BUF_NO_CAP);
    sigv4_result_init(&r->signed_req);
    if (!r->q.service) r->q.service = "sagemaker";
    if (!r->q.content_type) r->q.content_type = RTINVOKE_JSON;
    if (!r->q.accept) r->q.accept = RTINVOKE_JSON;
    if (!q->region || !creds_name_ok(q->region))
        return buf_fail(err, RTINVOKE_ERR_INPUT, "'%s' is not a region name such as us-east-1",
                        q->region ? q->region : "");
    if (!creds_name_ok(r->q.service))
        return buf_fail(err, RTINVOKE_ERR_INPUT, "'%s' is not a service name such as sagemaker",
                        r->q.service);
    if (!q->endpoint || !smname_endpoint_ok(q->endpoint, strlen(q->endpoint)))
        return buf_fail(err, RTINVOKE_ERR_INPUT, "'%s' is not an endpoint name",
                        q->endpoint ? q->endpoint : "");
    if (q->n_extra > RTINVOKE_MAX_EXTRA)
        return buf_fail(err, RTINVOKE_ERR_INPUT, "more than %d extra headers", RTINVOKE_MAX_EXTRA);
    struct buf base;
    buf_init(&base, BUF_NO_CAP);
    int rc = q->base_url ? (buf_adds(&base, q->base_url) ? RTINVOKE_ERR_NOMEM : RTINVOKE_OK)
                         : rtinvoke_default_url(q->region, &base);
    if (rc)
        rc = buf_fail(err, RTINVOKE_ERR_NOMEM, "out of memory");
    else
        rc = rtinvoke_split(r, buf_str(&base), err);
    if (!rc && plainhttp_check(buf_str(&r->url), q->allow_plain_http, err)) rc = RTINVOKE_ERR_INPUT;
    buf_free(&base);
    return rc;
}

void rtinvoke_free(struct rtinvoke *r) {
    buf_free(&r->url);
    buf_free(&r->host);
    buf_free(&r->target);
    sigv4_result_free(&r->signed_req);
    sigv4_signer_free(r->signer);
    r->signer = NULL;
}

static void rtinvoke_header(struct rtinvoke *r, const char *name, size_t name_len,
                            const char *value, size_t value_len) {
    r->headers[r->n_headers++] = (struct sigv4_header){name, name_len, value, value_len};
}

/* The headers as curl will send them, in order; every one is signed. */
static void rtinvoke_headers(struct rtinvoke *r, const struct creds *cr) {
    const struct rtinvoke_req *q = &r->q;
    r->n_headers = 0;
    rtinvoke_header(r, "Host", 4, buf_str(&r->host), r->host.len);
    rtinvoke_header(r, "Content-Type", 12, q->content_type, strlen(q->content_type));
    rtinvoke_header(r, "Accept", 6, q->accept, strlen(q->accept));
    if (q->custom_attributes)
        rtinvoke_header(r, "X-Amzn-SageMaker-Custom-Attributes", 34, q->custom_attributes,
                        strlen(q->custom_attributes));
    if (q->target_variant)
        rtinvoke_header(r, "X-Amzn-SageMaker-Target-Variant", 31, q->target_variant,
                        strlen(q->target_variant));
    if (q->inference_component)
        rtinvoke_header(r, "X-Amzn-SageMaker-Inference-Component", 36, q->inference_component,
                        strlen(q->inference_component));
    for (size_t i = 0; i < q->n_extra; i++) {
        const char *colon = strchr(q->extra[i], ':');
        if (!colon) continue; /* not "Name: value": the caller's check lets none through */
        rtinvoke_header(r, q->extra[i], (size_t)(colon - q->extra[i]), colon + 1,
                        strlen(colon + 1));
    }
    rtinvoke_header(r, "X-Amz-Date", 10, r->amz_date, SIGV4_DATE_LEN);
    if (cr->session_token && *cr->session_token)
        rtinvoke_header(r, "X-Amz-Security-Token", 20, cr->session_token,
                        strlen(cr->session_token));
}

int rtinvoke_sign(struct rtinvoke *r, const struct creds *cr, time_t when, const char *amz_date,
                  struct buf *err) {
    if (amz_date) {
        if (strlen(amz_date) != SIGV4_DATE_LEN)
            return buf_fail(err, RTINVOKE_ERR_INPUT, "'%s' is not a UTC time YYYYMMDDTHHMMSSZ",
                            amz_date);
        memcpy(r->amz_date, amz_date, SIGV4_DATE_LEN + 1);
    } else if (sigv4_format_date(when, r->amz_date)) {
        return buf_fail(err, RTINVOKE_ERR_INPUT, "the clock is out of range");
    }
    if (!r->signer && !(r->signer = sigv4_signer_new()))
        return buf_fail(err, RTINVOKE_ERR_NOMEM, "out of memory");
    rtinvoke_headers(r, cr);
    struct sigv4_credentials c = {cr->access_key_id, cr->secret_access_key, cr->session_token};
    struct sigv4_request req = {"POST",       buf_str(&r->target), r->target.len, r->headers,
                                r->n_headers, r->q.body,           r->q.body_len, NULL};
    struct sigv4_params p = {r->q.region, r->q.service, r->amz_date, false, false};
    int rc = sigv4_sign(r->signer, &req, &c, &p, &r->signed_req);
    if (rc)
        return buf_fail(err, RTINVOKE_ERR_INPUT, "signing failed (%s)",
                        rc == SIGV4_ERR_INPUT ? "bad input" : "internal error");
    return RTINVOKE_OK;
}

void rtinvoke_reply_init(struct rtinvoke_reply *rep, size_t max_body) {
    *rep = (struct rtinvoke_reply){0};
    buf_init(&rep->reason, 1024);
    buf_init(&rep->error_type, 1024);
    buf_init(&rep->date, 1024);
    buf_init(&rep->body, max_body);
}

void rtinvoke_reply_free(struct rtinvoke_reply *rep) {
    buf_free(&rep->reason);
    buf_free(&rep->error_type);
    buf_free(&rep->date);
    buf_free(&rep->body);
}

/* The reply being received. */
struct rtinvoke_got {
    struct rtinvoke_reply *rep;
    bool too_large;
};

static size_t rtinvoke_on_body(char *p, size_t size, size_t n, void *ud) {
    struct rtinvoke_got *g = ud;
    if (buf_add(&g->rep->body, p, size * n)) {
        g->too_large = true;
        return 0;
    }
    return size * n;
}

/* Puts v[0..n) in b (emptied first; nothing when too long for its cap), each
 * control character as '?': text from the server reaches terminals and logs. */
static void rtinvoke_keep(struct buf *b, const char *v, size_t n) {
    buf_reset(b);
    if (buf_add(b, v, n)) {
        buf_reset(b);
        return;
    }
    for (size_t i = 0; i < b->len; i++)
        if ((unsigned char)b->data[i] < 0x20 || b->data[i] == 0x7f) b->data[i] = '?';
}

/* Stores value (trimmed) in b when the header line's name is name. */
static void rtinvoke_capture(struct buf *b, const char *line, size_t len, const char *name) {
    size_t n = strlen(name);
    if (len <= n || line[n] != ':' || strncasecmp(line, name, n) != 0) return;
    const char *v = line + n + 1, *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t')) end--;
    rtinvoke_keep(b, v, (size_t)(end - v));
}

void rtinvoke_reply_line(struct rtinvoke_reply *rep, const char *line, size_t len) {
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
    if (rep->on_line && len) rep->on_line(rep->ud, line, len);
    if (len > 5 && strncmp(line, "HTTP/", 5) == 0) { /* a new reply: forget the last one's */
        const char *sp = memchr(line, ' ', len);
        const char *reason = sp ? memchr(sp + 1, ' ', len - (size_t)(sp + 1 - line)) : NULL;
        buf_reset(&rep->error_type);
        buf_reset(&rep->date);
        if (reason)
            rtinvoke_keep(&rep->reason, reason + 1, len - (size_t)(reason + 1 - line));
        else
            buf_reset(&rep->reason);
    }
    rtinvoke_capture(&rep->error_type, line, len, "x-amzn-ErrorType");
    rtinvoke_capture(&rep->date, line, len, "Date");
}

static size_t rtinvoke_on_header(char *p, size_t size, size_t n, void *ud) {
    rtinvoke_reply_line(((struct rtinvoke_got *)ud)->rep, p, size * n);
    return size * n;
}

/* The curl header lines: each header as sent, an empty value as "Name;" (curl
 * drops "Name:"), Authorization, and "Expect:" to stop 100-continue. The caller
 * frees *list with awscurl_free, also on error. */
static int rtinvoke_list(const struct rtinvoke *r, struct curl_slist **list) {
    struct buf line;
    int rc = 0;
    buf_init(&line, BUF_NO_CAP);
    for (size_t i = 0; !rc && i <= r->n_headers + 1; i++) {
        buf_reset(&line);
        if (i < r->n_headers) {
            const struct sigv4_header *h = &r->headers[i];
            size_t skip = 0;
            while (skip < h->value_len && (h->value[skip] == ' ' || h->value[skip] == '\t')) skip++;
            rc = skip < h->value_len ? buf_addf(&line, "%.*s: %.*s", (int)h->name_len, h->name,
                                                (int)(h->value_len - skip), h->value + skip)
                                     : buf_addf(&line, "%.*s;", (int)h->name_len, h->name);
        } else {
            rc = i == r->n_headers
                     ? buf_addf(&line, "Authorization: %s", buf_str(&r->signed_req.authorization))
                     : buf_adds(&line, "Expect:");
        }
        if (!rc) rc = awscurl_add(list, buf_str(&line));
    }
    buf_free_secret(&line);
    return rc ? RTINVOKE_ERR_NOMEM : RTINVOKE_OK;
}

int rtinvoke_send(const struct rtinvoke *r, const struct rtinvoke_net *n,
                  struct rtinvoke_reply *rep, struct buf *err) {
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *list = NULL;
    struct rtinvoke_got g = {.rep = rep};
    long timeout = n->timeout_ms > 0 ? n->timeout_ms : RTINVOKE_TIMEOUT_MS;
    rep->status = 0;
    rep->seconds = 0;
    buf_reset(&rep->reason);
    buf_reset(&rep->error_type);
    buf_reset(&rep->date);
    buf_reset(&rep->body);
    CURL *h = curl_easy_init();
    if (!h || rtinvoke_list(r, &list)) {
        curl_easy_cleanup(h);
        awscurl_free(list);
        return buf_fail(err, RTINVOKE_ERR_NOMEM, "out of memory");
    }
    struct awscurl_call c = {.url = buf_str(&r->url),
                             .method = "POST",
                             .body = r->q.body,
                             .body_len = r->q.body_len,
                             .headers = list,
                             .ca_bundle = n->ca_bundle,
                             .insecure = n->insecure,
                             .user_agent = n->user_agent,
                             .timeout_ms = timeout,
                             .connect_ms =
                                 timeout < RTINVOKE_CONNECT_MS ? timeout : RTINVOKE_CONNECT_MS,
                             .on_body = rtinvoke_on_body,
                             .on_header = rtinvoke_on_header,
                             .ud = &g,
                             .errbuf = errbuf,
                             .allow_plain_http = r->q.allow_plain_http};
    CURLcode res = awscurl_perform(h, &c, &rep->status);
    curl_easy_getinfo(h, CURLINFO_TOTAL_TIME, &rep->seconds);
    curl_easy_cleanup(h);
    awscurl_free(list);
    if (g.too_large)
        return buf_fail(err, RTINVOKE_ERR_TOO_LARGE, "%s: reply larger than %zu bytes",
                        buf_str(&r->url), rep->body.max);
    if (res == CURLE_OPERATION_TIMEDOUT)
        return buf_fail(err, RTINVOKE_ERR_TIMEOUT, "%s: no complete reply within %.3f s",
                        buf_str(&r->url), timeout / 1000.0);
    if (res != CURLE_OK)
        return buf_fail(err, RTINVOKE_ERR_NETWORK, "%s: %s", buf_str(&r->url),
                        *errbuf ? errbuf : curl_easy_strerror(res));
    return RTINVOKE_OK;
}

int rtinvoke_failure(const struct rtinvoke_reply *rep, struct buf *err) {
    if (rep->status >= 200 && rep->status <= 299) return RTINVOKE_OK;
    struct awserr e;
    awserr_parse(rep->error_type.len ? buf_str(&rep->error_type) : NULL, buf_str(&rep->body),
                 rep->body.len, &e);
    const char *code = e.code[0] ? e.code : rep->reason.len ? buf_str(&rep->reason) : "HTTPError";
    int rc = buf_fail(err, RTINVOKE_ERR_SERVICE, "%ld %s%s%s", rep->status, code,
                      e.message[0] ? ": " : "", e.message);
    if (err && err->data) { /* a redaction shortens the line: its length follows */
        scrub_in_place(err->data);
        err->len = strlen(err->data);
    }
    return rc;
}

int rtinvoke_call(const struct rtinvoke_req *q, struct creds_cache *cache,
                  const struct rtinvoke_net *n, struct rtinvoke_reply *rep, struct buf *err) {
    struct rtinvoke r;
    struct creds cr = {0};
    struct buf cerr;
    buf_init(&cerr, 1024);
    int rc = rtinvoke_init(&r, q, err);
    if (!rc && creds_cache_get(cache, time(NULL), &cr, &cerr))
        rc = buf_fail(err, RTINVOKE_ERR_CREDS, "%s", buf_str(&cerr));
    if (!rc) rc = rtinvoke_sign(&r, &cr, time(NULL), NULL, err);
    if (!rc) rc = rtinvoke_send(&r, n, rep, err);
    if (!rc && (rc = rtinvoke_failure(rep, err)) != 0) buf_reset(&rep->body);
    rtinvoke_free(&r);
    creds_clear(&cr);
    buf_free(&cerr);
    return rc;
}
