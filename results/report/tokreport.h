/* tokreport: the server's use of tokens on each side, in every output: the
 * prefix cache's hit ratio and the tokens per streamed chunk (from the
 * records, rtally.h), and speculative decoding's acceptance rate and mean
 * acceptance length (from the side's vLLM logs, specdec.h). A figure no side
 * has is left out; one side without it shows n/a. */
#ifndef SM_TOKREPORT_H
#define SM_TOKREPORT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "cmp.h"
#include "page.h"

#define TOKREPORT_FIGS 4

/* One figure of both sides. */
struct tokreport_fig {
    const char *name;   /* "prefix_cache_hit_ratio", "tokens_per_chunk", ... */
    const char *n_what; /* what n counts: "requests" or "log lines" */
    const char *means;  /* one line: how it is computed */
    double v[2];        /* baseline, candidate; NAN: none */
    size_t n[2];        /* the requests or log lines behind each */
};

/* The figures either side has, into out; returns how many (0 to TOKREPORT_FIGS). */
size_t tokreport_figs(const struct cmp *m, struct tokreport_fig out[TOKREPORT_FIGS]);
/* Adds the section to r (nothing when no side has a figure). Returns 0, or -1
 * out of memory. */
__attribute__((warn_unused_result)) int tokreport_build(struct page *r, const struct cmp *m);
/* The figures as a JSON object (owned by the caller): each name to
 * {"baseline": {"value", "n", ...}, "candidate": ...}; NULL when no side has
 * a figure or out of memory. */
cJSON *tokreport_json(const struct cmp *m);

#endif
