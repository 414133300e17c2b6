/* tscale: time-scaled records in real units (tscale.h). */
#include "tscale.h"

bool tscale_exact(const struct rfile_rec *r, double k) {
    return k == 1 || r->server_us != RFILE_NONE;
}

double tscale_since_start(const struct rfile_rec *r, double k, int64_t t) {
    double d = (double)(t - r->t_start_us); /* microseconds as measured */
    if (k == 1 || r->server_us == RFILE_NONE) return d * k / 1e6;
    int64_t head = r->t_headers_us != RFILE_NONE ? r->t_headers_us : r->t_end_us;
    double to_head = (double)(head - r->t_start_us), server = (double)r->server_us;
    double client = to_head - server / k; /* real microseconds the client took */
    if (client < 0) client = 0;
    double real_head = server + client;
    if (t >= head) return (real_head + (double)(t - head) * k) / 1e6;
    return to_head > 0 ? real_head * d / to_head / 1e6 : 0; /* before the head: in proportion */
}
