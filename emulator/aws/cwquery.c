#include "cwquery.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cwdoc.h"
#include "utf8.h"

#define CWQUERY_NS     "http://monitoring.amazonaws.com/doc/2010-08-01/"
#define CWQUERY_MEMBER "MetricDataQueries.member."
#define CWQUERY_DIM    "MetricStat.Metric.Dimensions.member."

void cwquery_form_free(struct cwquery_form *f) {
    for (size_t i = 0; i < f->n; i++) {
        curl_free(f->p[i].key);
        curl_free(f->p[i].value);
    }
    free(f->p);
}

/* s[0..n) form-decoded ('+' is a space, %XX a byte) by libcurl; NULL out of memory. */
static char *cwquery_decode(const char *s, size_t n) {
    char *plus = malloc(n + 1);
    if (!plus) return NULL;
    for (size_t i = 0; i < n; i++) plus[i] = s[i] == '+' ? ' ' : s[i];
    plus[n] = '\0';
    int out = 0;
    char *d = n <= INT32_MAX ? curl_easy_unescape(NULL, plus, (int)n, &out) : NULL;
    free(plus);
    return d; /* a %00 cuts it short: no value read here holds one */
}

int cwquery_form(const char *body, size_t len, struct cwquery_form *f) {
    size_t cap = 0;
    for (const char *p = body, *end = body + len; p < end;) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(stop - p));
        if (stop > p) {
            if (f->n == cap) {
                cap = cap ? 2 * cap : 64;
                struct cwquery_pair *np = realloc(f->p, cap * sizeof *np);
                if (!np) return -1;
                f->p = np;
            }
            const char *kend = eq ? eq : stop;
            struct cwquery_pair pair = {cwquery_decode(p, (size_t)(kend - p)),
                                        eq ? cwquery_decode(eq + 1, (size_t)(stop - eq - 1))
                                           : cwquery_decode("", 0)};
            f->p[f->n++] = pair;
            if (!pair.key || !pair.value) return -1;
        }
        p = stop + 1;
    }
    return 0;
}

const char *cwquery_get(const struct cwquery_form *f, const char *key) {
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->p[i].key, key) == 0) return f->p[i].value;
    return NULL;
}

long cwquery_index(const char *key, const char *prefix, const char **rest) {
    size_t n = strlen(prefix);
    if (strncmp(key, prefix, n) != 0 || key[n] < '1' || key[n] > '9') return -1;
    char *end;
    long i = strtol(key + n, &end, 10);
    if (*end != '.' || i < 1 || i > 1000000) return -1;
    *rest = end + 1;
    return i - 1;
}

/* Sets the dimension whose Name is at pair i (its Value from the form). */
static void cwquery_dim(struct cwmetric_q *q, const struct cwquery_form *f, const char *key,
                        const char *name) {
    char vkey[512];
    size_t n = strlen(key);
    if (n < 4 || n >= sizeof vkey) return;
    snprintf(vkey, sizeof vkey, "%.*sValue", (int)(n - 4), key);
    const char *value = cwquery_get(f, vkey);
    cwmetric_dimension(q, name, value ? value : "");
}

static void cwquery_period(struct cwmetric_q *q, const char *v) {
    char *end = NULL;
    long p = strtol(v, &end, 10);
    q->period = *v && !*end && p > 0 && p <= 10000000 ? p : 7; /* 7: a period the check refuses */
}

static void cwquery_member(struct cwmetric_q *q, const struct cwquery_form *f, const char *key,
                           const char *rest, const char *v) {
    const char *dim;
    if (strcmp(rest, "Id") == 0)
        snprintf(q->id, sizeof q->id, "%s", v);
    else if (strcmp(rest, "Label") == 0)
        snprintf(q->label, sizeof q->label, "%s", v);
    else if (strcmp(rest, "ReturnData") == 0)
        q->hidden = strcmp(v, "false") == 0;
    else if (strcmp(rest, "Expression") == 0)
        q->expression = true;
    else if (strcmp(rest, "Period") == 0 || strcmp(rest, "MetricStat.Period") == 0)
        cwquery_period(q, v);
    else if (strcmp(rest, "MetricStat.Stat") == 0)
        snprintf(q->stat, sizeof q->stat, "%s", v);
    else if (strcmp(rest, "MetricStat.Metric.Namespace") == 0)
        snprintf(q->ns, sizeof q->ns, "%s", v);
    else if (strcmp(rest, "MetricStat.Metric.MetricName") == 0)
        snprintf(q->name, sizeof q->name, "%s", v);
    else if (strncmp(rest, CWQUERY_DIM, strlen(CWQUERY_DIM)) == 0 && (dim = strrchr(rest, '.')) &&
             strcmp(dim, ".Name") == 0)
        cwquery_dim(q, f, key, v);
}

static void cwquery_top(struct cwmetric_req *req, const char *key, const char *v) {
    double t;
    char *end = NULL;
    if (strcmp(key, "StartTime") == 0 || strcmp(key, "EndTime") == 0) {
        if (cwdoc_time(v, strlen(v), &t)) t = -1;
        *(strcmp(key, "StartTime") == 0 ? &req->start : &req->end) = t;
    } else if (strcmp(key, "ScanBy") == 0) {
        req->ascending = strcmp(v, "TimestampAscending") == 0;
    } else if (strcmp(key, "MaxDatapoints") == 0) {
        long n = strtol(v, &end, 10);
        req->max_points = *v && !*end && n >= 1 && n <= 1000000000 ? n : -1;
    } else if (strcmp(key, "NextToken") == 0) {
        long n = strtol(v, &end, 10);
        req->from = *v && !*end && n >= 0 ? n : -1;
    }
}

int cwquery_read(const char *body, size_t len, struct cwmetric_req *req) {
    struct cwquery_form f = {0};
    cwmetric_req_init(req);
    if (cwquery_form(body, len, &f)) {
        cwquery_form_free(&f);
        return -1;
    }
    for (size_t i = 0; i < f.n; i++) {
        const char *rest;
        long k = cwquery_index(f.p[i].key, CWQUERY_MEMBER, &rest);
        if (k < 0) {
            cwquery_top(req, f.p[i].key, f.p[i].value);
        } else if (k >= CWMETRIC_QUERIES) {
            req->too_many = true;
        } else {
            if ((size_t)k >= req->n) req->n = (size_t)k + 1;
            cwquery_member(&req->q[k], &f, f.p[i].key, rest, f.p[i].value);
        }
    }
    cwquery_form_free(&f);
    return 0;
}

/* ---- XML ---- */

int cwquery_text(struct buf *out, const char *s, size_t n) {
    int rc = 0;
    for (size_t i = 0; !rc && i < n;) {
        uint32_t c;
        size_t k = utf8_decode((const unsigned char *)s + i, n - i, &c);
        if (!k || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0xFFFE || c == 0xFFFF) {
            rc = buf_adds(out, "\xEF\xBF\xBD");
            i += k ? k : 1;
            continue;
        }
        const char *ent = c == '&'    ? "&amp;"
                          : c == '<'  ? "&lt;"
                          : c == '>'  ? "&gt;"
                          : c == '"'  ? "&quot;"
                          : c == '\'' ? "&apos;"
                                      : NULL;
        rc = ent ? buf_adds(out, ent) : buf_add(out, s + i, k);
        i += k;
    }
    return rc;
}

int cwquery_elem(struct buf *out, const char *tag, const char *text) {
    int rc = buf_addf(out, "<%s>", tag);
    if (!rc) rc = cwquery_text(out, text, strlen(text));
    return rc ? rc : buf_addf(out, "</%s>", tag);
}

static int cwquery_result(struct buf *b, const struct cwmetric_result *r) {
    int rc = buf_adds(b, "<member>");
    if (!rc) rc = cwquery_elem(b, "Id", r->q->id);
    if (!rc) rc = cwquery_elem(b, "Label", *r->q->label ? r->q->label : r->q->name);
    if (!rc) rc = buf_adds(b, "<Timestamps>");
    for (size_t i = 0; !rc && i < r->n; i++) {
        char when[CWDOC_TIME_LEN];
        cwdoc_time_format(r->t[i], false, when);
        rc = cwquery_elem(b, "member", when);
    }
    if (!rc) rc = buf_adds(b, "</Timestamps><Values>");
    for (size_t i = 0; !rc && i < r->n; i++) rc = buf_addf(b, "<member>%.17g</member>", r->v[i]);
    if (!rc) rc = buf_adds(b, "</Values>");
    if (!rc) rc = cwquery_elem(b, "StatusCode", r->partial ? "PartialData" : "Complete");
    return rc ? rc : buf_adds(b, "<Messages/></member>");
}

static int cwquery_page(struct buf *b, const struct cwmetric_page *p, const char *id) {
    int rc = buf_adds(b, "<GetMetricDataResponse xmlns=\"" CWQUERY_NS
                         "\"><GetMetricDataResult><MetricDataResults>");
    for (size_t i = 0; !rc && i < p->n; i++) rc = cwquery_result(b, &p->r[i]);
    if (!rc) rc = buf_adds(b, "</MetricDataResults><Messages/>");
    if (!rc && p->next >= 0) rc = buf_addf(b, "<NextToken>%ld</NextToken>", p->next);
    if (!rc) rc = buf_adds(b, "</GetMetricDataResult><ResponseMetadata>");
    if (!rc) rc = cwquery_elem(b, "RequestId", id);
    return rc ? rc : buf_adds(b, "</ResponseMetadata></GetMetricDataResponse>");
}

int cwquery_error(struct cplane_reply *r, const char *code, const char *msg, const char *id) {
    struct buf *b = &r->body;
    buf_reset(b);
    r->status = 400;
    r->type = code;
    int rc = buf_adds(b, "<ErrorResponse xmlns=\"" CWQUERY_NS "\"><Error><Type>Sender</Type>");
    if (!rc) rc = cwquery_elem(b, "Code", code);
    if (!rc) rc = cwquery_elem(b, "Message", msg);
    if (!rc) rc = buf_adds(b, "</Error>");
    if (!rc) rc = cwquery_elem(b, "RequestId", id);
    return rc ? rc : buf_adds(b, "</ErrorResponse>");
}

int cwquery_call(const struct cwmetric *m, const char *op, const char *body, size_t len,
                 const char *region, double now, struct cplane_reply *r) {
    struct cwmetric_req *req = NULL;
    struct cwmetric_refusal why;
    struct cwmetric_page page = {0};
    char id[40], msg[200];
    snprintf(id, sizeof id, "%08lx-0000-4000-8000-%012llx", (unsigned long)len,
             (unsigned long long)(now * 1e6) & 0xffffffffffffULL);
    r->status = 200;
    r->type = NULL;
    buf_reset(&r->body);
    int rc;
    if (strcmp(op, "GetMetricData") != 0) {
        snprintf(msg, sizeof msg, "The action %.64s is not valid for this web service.", op);
        rc = cwquery_error(r, "InvalidAction", msg, id);
    } else {
        req = malloc(sizeof *req);
        rc = !req || cwquery_read(body, len, req)
                 ? -1
                 : cwmetric_answer(m, req, region, now, &page, &why);
        if (rc == 1)
            rc = cwquery_error(r, why.code, why.message, id);
        else if (rc == 0)
            rc = cwquery_page(&r->body, &page, id);
    }
    cwmetric_page_free(&page);
    free(req);
    if (rc == 0) return CPLANE_OK;
    (void)!cwquery_error(r, "InternalFailure", "out of memory", id);
    r->status = 500;
    return CPLANE_ERR_NOMEM;
}
