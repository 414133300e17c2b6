/* cwquery: CloudWatch's query protocol, as the aws CLI 2.9 (botocore's
 * "query" model of monitoring) speaks it: POST / with a form body
 * (application/x-www-form-urlencoded) such as
 *   Action=GetMetricData&Version=2010-08-01&MetricDataQueries.member.1.Id=inv&
 *   MetricDataQueries.member.1.MetricStat.Metric.Namespace=AWS%2FSageMaker&...&
 *   MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.1.Name=EndpointName&...&
 *   StartTime=2026-09-25T18%3A00%3A00Z&EndTime=...
 * read into cwmetric's request, and an XML reply:
 *   <GetMetricDataResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/">
 *   <GetMetricDataResult><MetricDataResults><member><Id/><Label/><Timestamps>
 *   <member>ISO 8601</member>...</Timestamps><Values><member>...</Values>
 *   <StatusCode/></member>...</MetricDataResults><Messages/>[<NextToken/>]
 *   </GetMetricDataResult><ResponseMetadata><RequestId/></ResponseMetadata>
 *   </GetMetricDataResponse>
 * or an error, <ErrorResponse><Error><Type>Sender</Type><Code/><Message/>
 * </Error><RequestId/></ErrorResponse>. Text is escaped for XML (&, <, >,
 * quotes; control characters and bytes that are not UTF-8 become U+FFFD).
 * Pure. */
#ifndef EMU_CWQUERY_H
#define EMU_CWQUERY_H

#include <stddef.h>

#include "buf.h"
#include "cplane.h"
#include "cwmetric.h"

/* One decoded key=value of a form. */
struct cwquery_pair {
    char *key, *value; /* owned */
};

/* A form body decoded, its pairs in order. */
struct cwquery_form {
    struct cwquery_pair *p;
    size_t n;
};

/* Decodes the form body[0..len) into f (empty first; free it with
 * cwquery_form_free even on failure). Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int cwquery_form(const char *body, size_t len,
                                                     struct cwquery_form *f);
void cwquery_form_free(struct cwquery_form *f);
/* The value of key, or NULL. */
const char *cwquery_get(const struct cwquery_form *f, const char *key);
/* A list's member: "N.REST" after prefix; its index (from 0) and rest, or -1. */
long cwquery_index(const char *key, const char *prefix, const char **rest);

/* Appends <tag>text</tag>, text escaped. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cwquery_elem(struct buf *out, const char *tag,
                                                     const char *text);
/* Empties r and writes the query protocol's error code with msg (status 400);
 * id: the RequestId. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cwquery_error(struct cplane_reply *r, const char *code,
                                                      const char *msg, const char *id);

/* Reads the form body[0..len) into req (emptied first): the members of
 * GetMetricData; others are left alone. Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int cwquery_read(const char *body, size_t len,
                                                     struct cwmetric_req *req);

/* Appends s[0..n) escaped for XML text. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int cwquery_text(struct buf *out, const char *s, size_t n);

/* Answers Action op with the form body[0..len) for region at now (wall clock)
 * into r (r->body emptied first; XML). Returns 0 or CPLANE_ERR_NOMEM (r then
 * holds a 500). */
__attribute__((warn_unused_result)) int cwquery_call(const struct cwmetric *m, const char *op,
                                                     const char *body, size_t len,
                                                     const char *region, double now,
                                                     struct cplane_reply *r);

#endif
