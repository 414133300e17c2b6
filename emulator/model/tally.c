#include "tally.h"

void tally_reply(struct tally *t, int status) {
    size_t i = 0;
    while (i < t->n_statuses && t->replies[i].status != status) i++;
    if (i == TALLY_STATUS_MAX) i = TALLY_STATUS_MAX - 1; /* more statuses than any server sends */
    if (i == t->n_statuses) t->replies[t->n_statuses++].status = status;
    t->replies[i].n++;
}

unsigned long tally_replies(const struct tally *t, int status) {
    for (size_t i = 0; i < t->n_statuses; i++)
        if (t->replies[i].status == status) return t->replies[i].n;
    return 0;
}

int tally_json_open(struct buf *out, const struct tally *t, bool with_faults) {
    int rc = buf_addf(out, "{\"requests\":%lu,\"replies\":{", t->requests);
    for (size_t i = 0; !rc && i < t->n_statuses; i++)
        rc = buf_addf(out, "%s\"%d\":%lu", i ? "," : "", t->replies[i].status, t->replies[i].n);
    if (!rc)
        rc = buf_addf(out,
                      "},\"prompt_tokens\":%lu,\"completion_tokens\":%lu,\"dropped\":%lu,"
                      "\"in_flight\":%lu",
                      t->prompt_tokens, t->completion_tokens, t->dropped, t->in_flight);
    if (!rc && with_faults) {
        rc = buf_adds(out, ",\"faults\":{");
        for (int k = 0; !rc && k < FAULT_KINDS; k++)
            rc = buf_addf(out, "%s\"%s\":%lu", k ? "," : "", fault_name(k), t->faults[k]);
        if (!rc) rc = buf_addc(out, '}');
    }
    return rc;
}

void tally_add(struct tally *t, const struct tally *more) {
    t->requests += more->requests;
    for (size_t i = 0; i < more->n_statuses; i++) {
        int status = more->replies[i].status;
        unsigned long before = tally_replies(t, status);
        tally_reply(t, status); /* makes its slot */
        for (size_t j = 0; j < t->n_statuses; j++)
            if (t->replies[j].status == status) t->replies[j].n = before + more->replies[i].n;
    }
    t->prompt_tokens += more->prompt_tokens;
    t->completion_tokens += more->completion_tokens;
    for (int k = 0; k < FAULT_KINDS; k++) t->faults[k] += more->faults[k];
    t->dropped += more->dropped;
    t->in_flight += more->in_flight;
}
