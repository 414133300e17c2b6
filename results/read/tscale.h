/* tscale: a record's times in real units when its file ran time-scaled
 * (docs/compare.md, Time-scaled runs). A file of time_scale K was measured
 * against a server K times faster: multiplying its times by K also multiplies
 * the client's own share (loopback, parsing, signing), a bias. A record with
 * server_us (the emulator's model microseconds to its reply's head) has its
 * share split: the head's real time is server_us + (head - start - server_us /
 * K), the client's share kept as measured, and what follows the head (a
 * stream's tokens: the server's steps, the client's reading alike for each)
 * is multiplied by K. The head is t_headers_us for a streamed record, else
 * t_end_us. Without server_us (a real endpoint, an older file), or at K = 1,
 * every time is multiplied by K. Pure. */
#ifndef SM_TSCALE_H
#define SM_TSCALE_H

#include <stdbool.h>
#include <stdint.h>

#include "rfile.h"

/* Whether r's times convert without the bias at time scale k: k is 1 or r has server_us. */
bool tscale_exact(const struct rfile_rec *r, double k);

/* Real seconds from r's start to t, a time of r as measured (t_start_us to
 * t_end_us), at time scale k (> 0). A server_us longer than the whole head
 * (bad input) leaves the client no share. */
double tscale_since_start(const struct rfile_rec *r, double k, int64_t t);

#endif
