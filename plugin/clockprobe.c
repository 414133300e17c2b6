#include "clockprobe.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "clockoff.h"
#include "skew.h"

#define CLOCKPROBE_DATE_MAX 64 /* bytes of a Date header kept */
#define CLOCKPROBE_BODY_MAX                                                                        \
    ((size_t)64 * 1024)          /* a reply's body is read and dropped up to this                  \
                                  */
#define CLOCKPROBE_TIMEOUT 2000L /* milliseconds per probe */

struct clockprobe_reply {
    char date[CLOCKPROBE_DATE_MAX];
    size_t body;
};

static long long clockprobe_wall_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* Sleeps until the wall clock reads at_us. */
static void clockprobe_sleep_until(long long at_us) {
    struct timespec t = {(time_t)(at_us / 1000000), (long)(at_us % 1000000) * 1000};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &t, NULL) == EINTR) {
    }
}

static size_t clockprobe_header(char *data, size_t size, size_t n, void *ud) {
    struct clockprobe_reply *r = ud;
    size_t len = size * n;
    if (len > 5 && strncasecmp(data, "date:", 5) == 0) {
        const char *v = data + 5;
        size_t k = len - 5;
        while (k && (*v == ' ' || *v == '\t')) v++, k--;
        while (k && (v[k - 1] == '\r' || v[k - 1] == '\n' || v[k - 1] == ' ')) k--;
        if (k < sizeof r->date) {
            memcpy(r->date, v, k);
            r->date[k] = '\0';
        }
    }
    return len;
}

static size_t clockprobe_body(char *data, size_t size, size_t n, void *ud) {
    struct clockprobe_reply *r = ud;
    (void)data;
    r->body += size * n;
    return r->body > CLOCKPROBE_BODY_MAX ? 0 : size * n;
}

static CURL *clockprobe_easy(const char *url, struct clockprobe_reply *r) {
    CURL *e = curl_easy_init();
    if (!e) return NULL;
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, CLOCKPROBE_TIMEOUT);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, clockprobe_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, clockprobe_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "wrk-sagemaker/" SM_VERSION " clock probe");
    return e;
}

/* The probes; returns how the last one failed (CURLE_OK when none did). */
static CURLcode clockprobe_loop(CURL *e, struct clockprobe_reply *r, struct clockoff *c,
                                long long until_us, long max_probes, long long target_us,
                                bool *dateless) {
    CURLcode last = CURLE_OK;
    long long off, unc;
    for (long sent = 0; sent < max_probes; sent++) {
        long long at = clockoff_next(c, clockprobe_wall_us());
        if (at >= until_us) break;
        clockprobe_sleep_until(at);
        *r = (struct clockprobe_reply){{0}, 0};
        long long t0 = clockprobe_wall_us();
        CURLcode rc = curl_easy_perform(e);
        long long t1 = clockprobe_wall_us();
        time_t server;
        if (rc != CURLE_OK) {
            last = rc;
            continue;
        }
        if (!r->date[0] || skew_parse_http_date(r->date, &server) != 0) {
            *dateless = true;
            continue;
        }
        clockoff_add(c, t0, t1, (long long)server);
        if (c->inconsistent || (clockoff_get(c, &off, &unc) && unc <= target_us)) break;
    }
    return last;
}

int clockprobe_run(const char *url, long long budget_us, long max_probes, long long target_us,
                   struct rfmt_clock *out, struct buf *err) {
    struct clockprobe_reply r;
    struct clockoff c;
    bool dateless = false;
    *out = (struct rfmt_clock){0};
    clockoff_init(&c);
    CURL *e = clockprobe_easy(url, &r);
    if (!e) return buf_fail(err, CLOCKPROBE_ERR_NOMEM, "out of memory");
    CURLcode last = clockprobe_loop(e, &r, &c, clockprobe_wall_us() + budget_us, max_probes,
                                    target_us, &dateless);
    curl_easy_cleanup(e);
    if (clockoff_get(&c, &out->offset_us, &out->uncertainty_us)) {
        out->have = true;
        out->probes = c.n;
        return CLOCKPROBE_OK;
    }
    if (c.inconsistent)
        return buf_fail(err, CLOCKPROBE_ERR_NONE,
                        "the Date headers of %s disagree (its clock jumped during the probes)",
                        url);
    if (dateless)
        return buf_fail(err, CLOCKPROBE_ERR_NONE, "the replies of %s carry no Date header", url);
    return buf_fail(err, CLOCKPROBE_ERR_NONE, "no reply from %s: %s", url,
                    curl_easy_strerror(last));
}
