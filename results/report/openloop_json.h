/* openloop_json: the open-loop part of the JSON report, "open_loop" (openloop_cmp.h; its shape
 * is documented in docs/compare.md, JSON, and sm-suite reads it): the
 * settings, the SLOs, per side the figures and SLO verdicts of every asked
 * rate and the capacity, and the capacity's ratio. */
#ifndef SM_OPENLOOP_JSON_H
#define SM_OPENLOOP_JSON_H

#include <cjson/cJSON.h>

#include "cmp.h"

/* The "open_loop" object of m (the caller owns it), or NULL when m has no
 * open-loop run (or out of memory). */
cJSON *openloop_json_build(const struct cmp *m);

#endif
