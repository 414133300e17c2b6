/* conntime: how long sm-stream's requests spent opening their connection,
 * from the records' connect_us and tls_us (docs/result-format.md; wrk's records
 * have neither). A record with connect_us > 0 opened a connection; 0 reused a
 * kept one. Both times come before the record's t_start_us, so TTFT and the
 * latencies leave them out (docs/compare.md, Connection time): this is where
 * they are reported, per side: how many requests opened a connection, and the
 * median connect and TLS time of those. Real microseconds: a time scale does
 * not apply (the network is not the emulator's model). */
#ifndef SM_CONNTIME_H
#define SM_CONNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "rfile.h"

/* One input's timed requests. */
struct conntime {
    size_t timed;     /* records with connect_us */
    size_t opened;    /* of which opened a connection (connect_us > 0) */
    int64_t *connect; /* owned: the opened ones' connect_us, `opened` of them */
    int64_t *tls;     /* owned: their tls_us */
    size_t cap;
};

/* A side's figures over its inputs. */
struct conntime_summary {
    size_t timed, opened;
    double opened_share; /* opened / timed; NAN when none was timed */
    double connect_ms;   /* the median connect of those that opened one; NAN: none */
    double tls_ms;       /* the median TLS handshake of those; NAN: none */
};

/* Counts r (nothing when it has no connect_us). Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int conntime_add(struct conntime *t, const struct rfile_rec *r);
void conntime_free(struct conntime *t);

/* The figures of parts[0..n) pooled. Returns 0, or -1 out of memory. */
__attribute__((warn_unused_result)) int conntime_summarize(const struct conntime *const *parts,
                                                           size_t n, struct conntime_summary *out);

#endif
