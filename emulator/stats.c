#include "stats.h"

#include <stdbool.h>

void stats_reply(struct stats_counts *c, int status) {
    size_t i = 0;
    while (i < c->n_statuses && c->replies[i].status != status) i++;
    if (i == STATS_STATUS_MAX) i = STATS_STATUS_MAX - 1; /* more statuses than any server sends */
    if (i == c->n_statuses) c->replies[c->n_statuses++].status = status;
    c->replies[i].n++;
}

unsigned long stats_replies(const struct stats_counts *c, int status) {
    for (size_t i = 0; i < c->n_statuses; i++)
        if (c->replies[i].status == status) return c->replies[i].n;
    return 0;
}

int stats_json_open(struct buf *out, const struct stats_counts *c, bool with_faults) {
    int rc = buf_addf(out, "{\"requests\":%lu,\"replies\":{", c->requests);
    for (size_t i = 0; !rc && i < c->n_statuses; i++)
        rc = buf_addf(out, "%s\"%d\":%lu", i ? "," : "", c->replies[i].status, c->replies[i].n);
    if (!rc)
        rc = buf_addf(out,
                      "},\"prompt_tokens\":%lu,\"completion_tokens\":%lu,\"dropped\":%lu,"
                      "\"in_flight\":%lu",
                      c->prompt_tokens, c->completion_tokens, c->dropped, c->in_flight);
    if (!rc && with_faults) {
        rc = buf_adds(out, ",\"faults\":{");
        for (int k = 0; !rc && k < FAULT_KINDS; k++)
            rc = buf_addf(out, "%s\"%s\":%lu", k ? "," : "", fault_name(k), c->faults[k]);
        if (!rc) rc = buf_addc(out, '}');
    }
    return rc;
}
