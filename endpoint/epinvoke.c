#include "epinvoke.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <openssl/crypto.h>

#include "awserr.h"
#include "plainhttp.h"
#include "scrub.h"
#include "sigv4.h"
#include "smname.h"

#define EPINVOKE_MAX_HEADERS 8

/* The reply being received. */
struct epinvoke_got {
    struct buf *body;
    char error_type[256];
    bool too_large;
};

static size_t epinvoke_on_body(char *p, size_t size, size_t n, void *ud) {
    struct epinvoke_got *g = ud;
    if (buf_add(g->body, p, size * n)) {
        g->too_large = true;
        return 0;
    }
    return size * n;
}

static size_t epinvoke_on_header(char *p, size_t size, size_t n, void *ud) {
    struct epinvoke_got *g = ud;
    size_t len = size * n;
    static const char name[] = "x-amzn-ErrorType:";
    if (len > sizeof name - 1 && strncasecmp(p, name, sizeof name - 1) == 0) {
        const char *v = p + sizeof name - 1;
        size_t k = len - (sizeof name - 1);
        while (k && (*v == ' ' || *v == '\t')) v++, k--;
        while (k && (v[k - 1] == '\r' || v[k - 1] == '\n' || v[k - 1] == ' ')) k--;
        snprintf(g->error_type, sizeof g->error_type, "%.*s", (int)k, v);
    }
    return len;
}

/* Splits the base URL into the URL to send to, the Host header and the path. */
static int epinvoke_url(const struct epinvoke *c, const char *endpoint, struct buf *url,
                        struct buf *host, struct buf *path, struct buf *err) {
    char *scheme = NULL, *h = NULL, *port = NULL, *p = NULL;
    struct buf base;
    buf_init(&base, 4096);
    int rc = c->endpoint_url ? buf_adds(&base, c->endpoint_url)
                             : buf_addf(&base, "https://runtime.sagemaker.%s.amazonaws.com%s",
                                        c->region, strncmp(c->region, "cn-", 3) ? "" : ".cn");
    CURLU *u = curl_url();
    if (rc || !u || curl_url_set(u, CURLUPART_URL, buf_str(&base), 0) ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) || curl_url_get(u, CURLUPART_HOST, &h, 0) ||
        curl_url_get(u, CURLUPART_PATH, &p, 0) || !scheme || !h || !p)
        rc = buf_fail(err, EPINVOKE_ERR_INPUT, "%s is not a URL such as http://127.0.0.1:8080",
                      buf_str(&base));
    else if (plainhttp_check(buf_str(&base), c->allow_plain_http, err))
        rc = EPINVOKE_ERR_INPUT;
    if (!rc && scheme && h && p) {
        (void)curl_url_get(u, CURLUPART_PORT, &port, 0); /* none: the scheme's */
        bool dflt = !port || strcmp(port, strcmp(scheme, "https") == 0 ? "443" : "80") == 0;
        size_t plen = strlen(p);
        while (plen && p[plen - 1] == '/') plen--;
        rc = buf_addf(host, "%s%s%s", h, dflt ? "" : ":", dflt ? "" : port) ||
                     buf_addf(path, "%.*s/endpoints/%s/invocations", (int)plen, p, endpoint) ||
                     buf_addf(url, "%s://%s%s", scheme, buf_str(host), buf_str(path))
                 ? buf_fail(err, EPINVOKE_ERR_NOMEM, "out of memory")
                 : EPINVOKE_OK;
    }
    curl_free(scheme);
    curl_free(h);
    curl_free(port);
    curl_free(p);
    curl_url_cleanup(u);
    buf_free(&base);
    return rc;
}

/* Signs the request and makes curl's header list (free it with curl_slist_free_all). */
static int epinvoke_sign(const struct epinvoke *c, const struct buf *host, const struct buf *path,
                         const char *variant, const char *body, size_t len, const struct creds *cr,
                         struct curl_slist **list, struct buf *err) {
    char date[SIGV4_DATE_LEN + 1];
    struct sigv4_header hs[EPINVOKE_MAX_HEADERS];
    size_t n = 0;
    if (sigv4_format_date(time(NULL), date))
        return buf_fail(err, EPINVOKE_ERR_INPUT, "the clock is out of range");
    hs[n++] = (struct sigv4_header){"Host", 4, buf_str(host), host->len};
    hs[n++] = (struct sigv4_header){"Content-Type", 12, "application/json", 16};
    hs[n++] = (struct sigv4_header){"Accept", 6, "application/json", 16};
    if (variant)
        hs[n++] =
            (struct sigv4_header){"X-Amzn-SageMaker-Target-Variant", 31, variant, strlen(variant)};
    hs[n++] = (struct sigv4_header){"X-Amz-Date", 10, date, SIGV4_DATE_LEN};
    if (cr->session_token && *cr->session_token)
        hs[n++] = (struct sigv4_header){"X-Amz-Security-Token", 20, cr->session_token,
                                        strlen(cr->session_token)};
    struct sigv4_signer *s = sigv4_signer_new();
    struct sigv4_result r;
    sigv4_result_init(&r);
    struct sigv4_credentials sc = {cr->access_key_id, cr->secret_access_key, cr->session_token};
    struct sigv4_request req = {"POST", buf_str(path), path->len, hs, n, body, len, NULL};
    struct sigv4_params p = {c->region, "sagemaker", date, false, false};
    int rc = !s || sigv4_sign(s, &req, &sc, &p, &r) ? EPINVOKE_ERR_INPUT : EPINVOKE_OK;
    struct buf line;
    buf_init(&line, BUF_NO_CAP);
    for (size_t i = 0; !rc && i <= n; i++) {
        buf_reset(&line);
        rc = i < n ? buf_addf(&line, "%.*s: %.*s", (int)hs[i].name_len, hs[i].name,
                              (int)hs[i].value_len, hs[i].value)
                   : buf_addf(&line, "Authorization: %s", buf_str(&r.authorization));
        struct curl_slist *next = rc ? NULL : curl_slist_append(*list, buf_str(&line));
        if (next) *list = next;
        rc = next ? EPINVOKE_OK : EPINVOKE_ERR_NOMEM;
    }
    struct curl_slist *next = rc ? NULL : curl_slist_append(*list, "Expect:");
    if (next)
        *list = next;
    else if (!rc)
        rc = EPINVOKE_ERR_NOMEM;
    buf_free_secret(&line);
    sigv4_result_free(&r);
    sigv4_signer_free(s);
    return rc ? buf_fail(err, rc, rc == EPINVOKE_ERR_NOMEM ? "out of memory" : "signing failed")
              : 0;
}

static void epinvoke_slist_free(struct curl_slist *list) {
    for (struct curl_slist *i = list; i; i = i->next) OPENSSL_cleanse(i->data, strlen(i->data));
    curl_slist_free_all(list);
}

/* Performs the request; on a reply, status in *status. */
static int epinvoke_send(const struct epinvoke *c, const struct buf *url, struct curl_slist *list,
                         const char *body, size_t len, struct epinvoke_got *g, long *status,
                         double *seconds, struct buf *err) {
    char errbuf[CURL_ERROR_SIZE] = "";
    CURL *h = curl_easy_init();
    long timeout = c->timeout_ms ? c->timeout_ms : 70000;
    if (!h) return buf_fail(err, EPINVOKE_ERR_NOMEM, "out of memory");
    curl_easy_setopt(h, CURLOPT_URL, buf_str(url));
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "wrk-sagemaker/" SM_VERSION);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, epinvoke_on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, g);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, epinvoke_on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, g);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode res = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    curl_easy_getinfo(h, CURLINFO_TOTAL_TIME, seconds);
    curl_easy_cleanup(h);
    if (g->too_large)
        return buf_fail(err, EPINVOKE_ERR_NETWORK, "the reply is larger than %zu bytes",
                        g->body->max);
    if (res != CURLE_OK)
        return buf_fail(err, EPINVOKE_ERR_NETWORK, "no reply from %s: %s", buf_str(url),
                        *errbuf ? errbuf : curl_easy_strerror(res));
    return EPINVOKE_OK;
}

int epinvoke_call(const struct epinvoke *c, const char *endpoint, const char *variant,
                  const char *body, size_t len, struct buf *reply, double *seconds,
                  struct buf *err) {
    struct buf url, host, path, cerr;
    struct creds cr = {0};
    struct curl_slist *list = NULL;
    struct epinvoke_got g = {.body = reply};
    long status = 0;
    *seconds = 0;
    buf_reset(reply);
    if (!smname_endpoint_ok(endpoint, strlen(endpoint)))
        return buf_fail(err, EPINVOKE_ERR_INPUT, "'%s' is not an endpoint name", endpoint);
    buf_init(&url, BUF_NO_CAP);
    buf_init(&host, BUF_NO_CAP);
    buf_init(&path, BUF_NO_CAP);
    buf_init(&cerr, 1024);
    int rc = epinvoke_url(c, endpoint, &url, &host, &path, err);
    if (!rc && creds_cache_get(c->cache, time(NULL), &cr, &cerr))
        rc = buf_fail(err, EPINVOKE_ERR_CREDS, "%s", buf_str(&cerr));
    if (!rc) rc = epinvoke_sign(c, &host, &path, variant, body, len, &cr, &list, err);
    if (!rc) rc = epinvoke_send(c, &url, list, body, len, &g, &status, seconds, err);
    if (!rc && (status < 200 || status > 299)) {
        struct awserr e;
        awserr_parse(g.error_type[0] ? g.error_type : NULL, buf_str(reply), reply->len, &e);
        rc = buf_fail(err, EPINVOKE_ERR_SERVICE, "%ld %s%s%s", status, e.code[0] ? e.code : "error",
                      e.message[0] ? ": " : "", e.message);
        if (err && err->data) scrub_in_place(err->data);
        buf_reset(reply);
    }
    epinvoke_slist_free(list);
    creds_clear(&cr);
    buf_free(&url);
    buf_free(&host);
    buf_free(&path);
    buf_free(&cerr);
    return rc;
}
