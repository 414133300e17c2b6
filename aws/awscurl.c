/* awscurl: one signed exchange on curl (awscurl.h). */
#include "awscurl.h"

#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "plainhttp.h"

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
