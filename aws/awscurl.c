/* awscurl: one signed exchange on curl (awscurl.h). */
#include "awscurl.h"

#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "plainhttp.h"

int awscurl_split(const char *base, struct buf *origin, struct buf *host, struct buf *prefix) {
    char *scheme = NULL, *name = NULL, *port = NULL, *path = NULL, *query = NULL, *user = NULL;
    int rc = AWSCURL_OK;
    CURLU *u = curl_url();
    if (!u) return AWSCURL_ERR_NOMEM;
    if (curl_url_set(u, CURLUPART_URL, base, 0) || curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
        curl_url_get(u, CURLUPART_HOST, &name, 0) || curl_url_get(u, CURLUPART_PATH, &path, 0))
        rc = AWSCURL_ERR_NOT_URL;
    else if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)
        rc = AWSCURL_ERR_SCHEME;
    else if (curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK ||
             curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK || strchr(base, '#'))
        rc = AWSCURL_ERR_EXTRA;
    if (!rc) {
        (void)curl_url_get(u, CURLUPART_PORT, &port, 0); /* none: the scheme's */
        bool dflt = !port || strcmp(port, strcmp(scheme, "https") == 0 ? "443" : "80") == 0;
        size_t plen = strlen(path);
        while (plen && path[plen - 1] == '/') plen--;
        size_t at = host->len;
        if (buf_addf(host, "%s%s%s", name, dflt ? "" : ":", dflt ? "" : port) ||
            buf_addf(origin, "%s://%s", scheme, buf_str(host) + at) || buf_add(prefix, path, plen))
            rc = AWSCURL_ERR_NOMEM;
    }
    curl_free(scheme);
    curl_free(name);
    curl_free(port);
    curl_free(path);
    curl_free(query);
    curl_free(user);
    curl_url_cleanup(u);
    return rc;
}

int awscurl_add(struct curl_slist **list, const char *line) {
    struct curl_slist *next = curl_slist_append(*list, line);
    if (!next) return -1;
    *list = next;
    return 0;
}

void awscurl_free(struct curl_slist *list) {
    for (struct curl_slist *i = list; i; i = i->next) OPENSSL_cleanse(i->data, strlen(i->data));
    curl_slist_free_all(list);
}

CURLcode awscurl_perform(CURL *h, const struct awscurl_call *c, long *status) {
    *status = 0;
    if (plainhttp_check(c->url, c->allow_plain_http, NULL) != PLAINHTTP_OK) {
        snprintf(c->errbuf, CURL_ERROR_SIZE,
                 "refused: plain http to a host that is not loopback (--allow-plain-http)");
        return CURLE_UNSUPPORTED_PROTOCOL;
    }
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, c->url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    if (strcmp(c->method, "POST") == 0) curl_easy_setopt(h, CURLOPT_POST, 1L);
    if (strcmp(c->method, "PUT") == 0) curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
    if (strcmp(c->method, "GET") != 0) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, c->body ? (const char *)c->body : "");
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->body_len);
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->headers);
    curl_easy_setopt(h, CURLOPT_USERAGENT,
                     c->user_agent ? c->user_agent : "wrk-sagemaker/" SM_VERSION);
    if (c->ca_bundle) curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_bundle);
    if (c->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_ms);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, c->on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, c->ud);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, c->on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, c->ud);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
    CURLcode res = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    return res;
}
