#include "cwlogs.h"

#include <string.h>

#include "jsonw.h"
#include "smname.h"

#define CWLOGS_GROUP_PREFIX "/aws/sagemaker/Endpoints/"
#define CWLOGS_MAX_PAGES    100000 /* a runaway nextToken ends here */

int cwlogs_request(const struct cwlogs_query *q, struct buf *out, struct buf *err) {
    buf_reset(out);
    size_t n = q->endpoint ? strlen(q->endpoint) : 0;
    if (!smname_endpoint_ok(q->endpoint ? q->endpoint : "", n))
        return buf_fail(err, AWSJ_ERR_INPUT, "'%s' is not an endpoint name",
                        q->endpoint ? q->endpoint : "");
    if (q->start_ms < 0 || q->end_ms < 0 || (q->end_ms && q->end_ms < q->start_ms))
        return buf_fail(err, AWSJ_ERR_INPUT, "the log window %lld to %lld ms is not a window",
                        q->start_ms, q->end_ms);
    if (q->limit < 0 || q->limit > CWLOGS_PAGE_MAX)
        return buf_fail(err, AWSJ_ERR_INPUT, "%d events a page is not 1 to %d", q->limit,
                        CWLOGS_PAGE_MAX);
    int rc = buf_adds(out, "{\"logGroupName\":\"" CWLOGS_GROUP_PREFIX);
    if (!rc) rc = buf_add(out, q->endpoint, n);
    if (!rc) rc = buf_addf(out, "\",\"startTime\":%lld", q->start_ms);
    if (!rc && q->end_ms) rc = buf_addf(out, ",\"endTime\":%lld", q->end_ms);
    if (!rc && q->stream_prefix) rc = buf_adds(out, ",\"logStreamNamePrefix\":");
    if (!rc && q->stream_prefix) rc = jsonw_cstr(out, q->stream_prefix);
    if (!rc && q->pattern) rc = buf_adds(out, ",\"filterPattern\":");
    if (!rc && q->pattern) rc = jsonw_cstr(out, q->pattern);
    if (!rc) rc = buf_addf(out, ",\"limit\":%d}", q->limit ? q->limit : CWLOGS_PAGE_MAX);
    return rc ? buf_fail(err, AWSJ_ERR_NOMEM, "out of memory") : AWSJ_OK;
}

/* The state of one fetch across its pages. */
struct cwlogs_pages {
    cwdoc_event_fn *fn;
    void *ud;
    size_t max, n;
    bool full; /* max events were handed on and another came */
    int fn_rc; /* the callback's failure, returned as it is */
};

static int cwlogs_event(void *ud, const struct cwdoc_event *e) {
    struct cwlogs_pages *p = ud;
    if (p->max && p->n == p->max) {
        p->full = true;
        return 1; /* stops the reader: not an error */
    }
    p->n++;
    return (p->fn_rc = p->fn(p->ud, e));
}

static int cwlogs_page(void *ud, const char *page, size_t len, struct buf *err) {
    struct cwlogs_pages *p = ud;
    struct buf why;
    buf_init(&why, 1024);
    int rc = cwdoc_events(page, len, cwlogs_event, p, &why);
    if (rc < 0 && !p->fn_rc)
        rc = buf_fail(err, rc == CWDOC_ERR_NOMEM ? AWSJ_ERR_NOMEM : AWSJ_ERR_REPLY,
                      "logs FilterLogEvents: the reply is not FilterLogEvents': %s", buf_str(&why));
    buf_free(&why);
    return p->full ? 1 : rc;
}

int cwlogs_fetch(struct awsj_client *c, const struct cwlogs_query *q, size_t max_events,
                 cwdoc_event_fn *fn, void *ud, bool *cut, struct buf *err) {
    struct buf req;
    struct cwlogs_pages p = {fn, ud, max_events, 0, false, 0};
    buf_init(&req, BUF_NO_CAP);
    int rc = cwlogs_request(q, &req, err);
    if (!rc)
        rc = awsj_paginate(c, AWSJ_LOGS, "FilterLogEvents", buf_str(&req), "nextToken",
                           CWLOGS_MAX_PAGES, cwlogs_page, &p, err);
    if (cut) *cut = p.full;
    buf_free(&req);
    return rc;
}

/* The document being written: events, comma-separated. */
struct cwlogs_doc {
    struct buf *doc;
    size_t n;
};

static int cwlogs_doc_event(void *ud, const struct cwdoc_event *e) {
    struct cwlogs_doc *d = ud;
    if ((d->n && buf_addc(d->doc, ',')) || cwdoc_event_json(d->doc, e)) return AWSJ_ERR_NOMEM;
    d->n++;
    return 0;
}

int cwlogs_fetch_doc(struct awsj_client *c, const struct cwlogs_query *q, size_t max_events,
                     struct buf *doc, size_t *n, bool *cut, struct buf *err) {
    struct cwlogs_doc d = {doc, 0};
    buf_reset(doc);
    int rc = buf_adds(doc, "{\"events\":[") ? AWSJ_ERR_NOMEM : AWSJ_OK;
    if (!rc) rc = cwlogs_fetch(c, q, max_events, cwlogs_doc_event, &d, cut, err);
    if (!rc && buf_adds(doc, "],\"searchedLogStreams\":[]}\n")) rc = AWSJ_ERR_NOMEM;
    if (rc == AWSJ_ERR_NOMEM && !err->len) (void)buf_fail(err, rc, "out of memory");
    if (rc) buf_reset(doc);
    *n = rc ? 0 : d.n;
    return rc;
}
