/* cwaquery: CloudWatch alarms (cwalarm.h) over the query protocol the aws CLI
 * 2.9 speaks: a form post Action=PutMetricAlarm (AlarmName, MetricName,
 * Namespace, Statistic, Dimensions.member.N.Name/Value, Period,
 * EvaluationPeriods, DatapointsToAlarm, Threshold, ComparisonOperator,
 * TreatMissingData, ActionsEnabled, AlarmActions.member.N, OKActions.member.N,
 * InsufficientDataActions.member.N, AlarmDescription), DescribeAlarms
 * (AlarmNames.member.N, AlarmNamePrefix, AlarmTypes.member.N, StateValue,
 * ActionPrefix, MaxRecords, NextToken) and DeleteAlarms (AlarmNames.member.N),
 * answered in XML as botocore's monitoring model reads it
 * (<DescribeAlarmsResponse><DescribeAlarmsResult><MetricAlarms><member>...,
 * timestamps ISO 8601) or an <ErrorResponse> (cwquery.h). Pure. */
#ifndef EMU_CWAQUERY_H
#define EMU_CWAQUERY_H

#include <stddef.h>

#include "cplane.h"
#include "cwalarm.h"

/* Reads PutMetricAlarm's form body[0..len) into s (cwalarm_spec_init first).
 * Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int cwaquery_read(const char *body, size_t len,
                                                      struct cwalarm_spec *s);

/* Answers Action op (cwalarm_op) with the form body[0..len) in region at now
 * (wall clock) into r. Returns 0 or CPLANE_ERR_NOMEM (r then holds a 500). */
__attribute__((warn_unused_result)) int cwaquery_call(struct cwalarm *al, const char *op,
                                                      const char *body, size_t len,
                                                      const char *region, double now,
                                                      struct cplane_reply *r);

#endif
