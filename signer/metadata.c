#include "metadata.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>

#include <curl/curl.h>
#include <openssl/crypto.h>

#define METADATA_MAX_REPLY  65536
#define METADATA_CONNECT_MS 1000
#define METADATA_TOKEN_TTL  "21600"
#define METADATA_CREDS_PATH "/latest/meta-data/iam/security-credentials/"

/* One HTTP exchange. */
struct metadata_call {
    const char *method; /* "GET" or "PUT" */
    const char *url;
    const char *header; /* one request header line, or NULL */
    int timeout_ms;
    long status; /* out: the reply's status */
};

static pthread_once_t metadata_curl_once = PTHREAD_ONCE_INIT;

/* A failure here makes curl_easy_init fail later. */
static void metadata_curl_init(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t metadata_write(char *p, size_t size, size_t n, void *ud) {
    return buf_add(ud, p, size * n) ? 0 : size * n;
}

static void metadata_slist_free(struct curl_slist *l) {
    for (struct curl_slist *i = l; i; i = i->next) OPENSSL_cleanse(i->data, strlen(i->data));
    curl_slist_free_all(l);
}

static void metadata_setopts(CURL *h, struct metadata_call *c, struct curl_slist *hdrs,
                             struct buf *body, char *errbuf) {
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(
        h, CURLOPT_CONNECTTIMEOUT_MS,
        (long)(c->timeout_ms < METADATA_CONNECT_MS ? c->timeout_ms : METADATA_CONNECT_MS));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, metadata_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    if (strcmp(c->method, "PUT") == 0) {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, "");
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, 0L);
    }
}

/* Runs one exchange; the reply body goes to body (reset first, at most its cap). */
static int metadata_http(struct metadata_call *c, struct buf *body, struct buf *err) {
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *hdrs = NULL;
    int rc = METADATA_ERR_NOMEM;
    pthread_once(&metadata_curl_once, metadata_curl_init);
    CURL *h = curl_easy_init();
    if (!h || (c->header && !(hdrs = curl_slist_append(NULL, c->header)))) goto done;
    buf_reset(body);
    metadata_setopts(h, c, hdrs, body, errbuf);
    if (curl_easy_setopt(h, CURLOPT_URL, c->url) != CURLE_OK) {
        rc = buf_fail(err, METADATA_ERR_INPUT, "%s: not a usable URL", c->url);
        goto done;
    }
    CURLcode res = curl_easy_perform(h);
    if (res == CURLE_WRITE_ERROR)
        rc =
            buf_fail(err, METADATA_ERR_REPLY, "%s: reply larger than %zu bytes", c->url, body->max);
    else if (res != CURLE_OK)
        rc = buf_fail(err, METADATA_ERR_UNREACHABLE, "%s: %s", c->url,
                      *errbuf ? errbuf : curl_easy_strerror(res));
    else
        rc = curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &c->status) == CURLE_OK
                 ? METADATA_OK
                 : METADATA_ERR_REPLY;
done:
    metadata_slist_free(hdrs);
    curl_easy_cleanup(h);
    return rc;
}

static bool metadata_container_host_ok(const char *host) {
    static const char *const agents[] = {"localhost", "[::1]", "169.254.170.2", "169.254.170.23",
                                         "[fd00:ec2::23]"};
    struct in_addr a;
    if (inet_pton(AF_INET, host, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127) return true;
    for (size_t i = 0; i < sizeof agents / sizeof *agents; i++)
        if (strcmp(host, agents[i]) == 0) return true;
    return false;
}

static int metadata_check_full_url(const char *full, struct buf *err) {
    char *scheme = NULL, *host = NULL;
    CURLU *u = curl_url();
    int rc = METADATA_ERR_NOMEM;
    if (!u) return rc;
    if (curl_url_set(u, CURLUPART_URL, full, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
        rc = buf_fail(err, METADATA_ERR_INPUT,
                      "AWS_CONTAINER_CREDENTIALS_FULL_URI '%s' is not a URL", full);
    else if (strcmp(scheme, "https") != 0 && strcmp(scheme, "http") != 0)
        rc = buf_fail(err, METADATA_ERR_INPUT,
                      "AWS_CONTAINER_CREDENTIALS_FULL_URI '%s' is not http or https", full);
    else if (strcmp(scheme, "http") == 0 && !metadata_container_host_ok(host))
        rc = buf_fail(err, METADATA_ERR_INPUT,
                      "AWS_CONTAINER_CREDENTIALS_FULL_URI '%s': plain http is only allowed "
                      "to a loopback address or the ECS/EKS agent",
                      full);
    else
        rc = METADATA_OK;
    curl_free(scheme);
    curl_free(host);
    curl_url_cleanup(u);
    return rc;
}

int metadata_container_url(const char *relative, const char *full, struct buf *url,
                           struct buf *err) {
    int rc;
    buf_reset(url);
    if (relative && *relative) {
        if (relative[0] != '/')
            return buf_fail(err, METADATA_ERR_INPUT,
                            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI '%s' does not start "
                            "with '/'",
                            relative);
        rc = buf_addf(url, METADATA_CONTAINER_BASE "%s", relative) ? METADATA_ERR_NOMEM : 0;
    } else if (full && *full) {
        rc = metadata_check_full_url(full, err);
        if (!rc && buf_adds(url, full)) rc = METADATA_ERR_NOMEM;
    } else {
        return buf_fail(err, METADATA_ERR_INPUT,
                        "neither AWS_CONTAINER_CREDENTIALS_RELATIVE_URI nor _FULL_URI is set");
    }
    return rc;
}

static bool metadata_header_safe(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return false;
    return true;
}

/* Runs a GET or PUT that must answer 200; the body goes to reply. */
static int metadata_expect_200(struct metadata_call *c, struct buf *reply, struct buf *err) {
    int rc = metadata_http(c, reply, err);
    if (!rc && c->status != 200)
        rc = buf_fail(err, METADATA_ERR_REPLY, "%s: HTTP %ld", c->url, c->status);
    return rc;
}

int metadata_container_fetch(const char *url, const char *token, int timeout_ms, struct buf *json,
                             struct buf *err) {
    struct buf hdr;
    buf_init(&hdr, BUF_NO_CAP);
    struct metadata_call c = {"GET", url, NULL, timeout_ms, 0};
    int rc = METADATA_OK;
    if (token && (!*token || !metadata_header_safe(token)))
        rc = buf_fail(err, METADATA_ERR_INPUT,
                      "the container authorization token is empty or has control characters");
    else if (token && buf_addf(&hdr, "Authorization: %s", token))
        rc = METADATA_ERR_NOMEM;
    c.header = token ? buf_str(&hdr) : NULL;
    if (!rc) rc = metadata_expect_200(&c, json, err);
    buf_free_secret(&hdr);
    return rc;
}

/* The IMDSv2 session token into token_header ("X-aws-ec2-metadata-token: ..."),
 * or an empty token_header for IMDSv1. */
static int metadata_imds_token(struct buf *url, size_t base_len, bool v1_disabled, int timeout_ms,
                               struct buf *token_header, struct buf *err) {
    struct buf reply;
    buf_init(&reply, METADATA_MAX_REPLY);
    buf_truncate(url, base_len);
    int rc = buf_adds(url, "/latest/api/token") ? METADATA_ERR_NOMEM : METADATA_OK;
    struct metadata_call c = {"PUT", buf_str(url),
                              "X-aws-ec2-metadata-token-ttl-seconds: " METADATA_TOKEN_TTL,
                              timeout_ms, 0};
    if (!rc) rc = metadata_http(&c, &reply, err);
    if (rc) goto done;
    if (c.status == 200 && reply.len && metadata_header_safe(buf_str(&reply)))
        rc = buf_addf(token_header, "X-aws-ec2-metadata-token: %s", buf_str(&reply))
                 ? METADATA_ERR_NOMEM
                 : METADATA_OK;
    else if (c.status == 200)
        rc = buf_fail(err, METADATA_ERR_REPLY, "%s: unusable token", c.url);
    else if (v1_disabled || (c.status != 403 && c.status != 404 && c.status != 405))
        rc = buf_fail(err, METADATA_ERR_REPLY, "%s: HTTP %ld%s", c.url, c.status,
                      v1_disabled ? " (IMDSv1 fallback disabled)" : "");
done:
    buf_free_secret(&reply);
    return rc;
}

static bool metadata_role_ok(const char *s, size_t n) {
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || strchr("+=,.@_-", s[i])))
            return false;
    return true;
}

/* The name of the instance's IAM role (the first line of the listing) into role. */
static int metadata_imds_role(struct metadata_call *c, struct buf *role, struct buf *err) {
    int rc = metadata_http(c, role, err);
    if (!rc && c->status == 404)
        return buf_fail(err, METADATA_ERR_NO_ROLE, "%s: no IAM role attached (HTTP 404)", c->url);
    if (!rc && c->status != 200)
        return buf_fail(err, METADATA_ERR_REPLY, "%s: HTTP %ld", c->url, c->status);
    if (rc) return rc;
    size_t n = strcspn(buf_str(role), "\r\n");
    buf_truncate(role, n);
    if (!metadata_role_ok(buf_str(role), n))
        return buf_fail(err, n ? METADATA_ERR_REPLY : METADATA_ERR_NO_ROLE, "%s: %s", c->url,
                        n ? "unexpected role name" : "no IAM role attached");
    return METADATA_OK;
}

int metadata_imds_fetch(const char *base, bool v1_disabled, int timeout_ms, struct buf *json,
                        struct buf *err) {
    struct buf url, token_header, role;
    buf_init(&url, BUF_NO_CAP);
    buf_init(&token_header, BUF_NO_CAP);
    buf_init(&role, METADATA_MAX_REPLY);
    size_t base_len = strlen(base);
    while (base_len && base[base_len - 1] == '/') base_len--;
    int rc = buf_add(&url, base, base_len) ? METADATA_ERR_NOMEM : METADATA_OK;
    if (!rc) rc = metadata_imds_token(&url, base_len, v1_disabled, timeout_ms, &token_header, err);
    buf_truncate(&url, base_len);
    if (!rc && buf_adds(&url, METADATA_CREDS_PATH)) rc = METADATA_ERR_NOMEM;
    struct metadata_call c = {"GET", buf_str(&url),
                              token_header.len ? buf_str(&token_header) : NULL, timeout_ms, 0};
    if (!rc) rc = metadata_imds_role(&c, &role, err);
    if (!rc && buf_adds(&url, buf_str(&role))) rc = METADATA_ERR_NOMEM;
    c.url = buf_str(&url);
    if (!rc) rc = metadata_expect_200(&c, json, err);
    buf_free(&url);
    buf_free_secret(&token_header);
    buf_free(&role);
    return rc;
}
