/* Fuzzes the parsers of what sm-endpoint reads from outside: the replies of
 * DescribeEndpoint, DescribeEndpointConfig, ListEndpoints, ListServiceQuotas,
 * FilterLogEvents and the container's chat reply (epdesc), and the facts file
 * (epfacts). Input: one control byte (which parser), then the bytes.
 *
 * Whatever comes in: no crash, and every string kept is one line (no control
 * character) within its field. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "epdesc.h"
#include "epfacts.h"

static void fuzz_line(const char *s, size_t size) {
    size_t n = strnlen(s, size);
    if (n == size) abort(); /* not terminated within its field */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20) abort();
}

static int fuzz_event(void *ud, double t, const char *msg) {
    (void)ud;
    (void)t;
    fuzz_line(msg, 4096);
    return 0;
}

static void fuzz_endpoint(const char *p, size_t n, struct buf *err) {
    struct epdesc_endpoint d;
    if (epdesc_endpoint(p, n, &d, err)) return;
    fuzz_line(d.name, sizeof d.name);
    fuzz_line(d.failure, sizeof d.failure);
    if (d.n_v > EPDESC_MAX_VARIANTS) abort();
    for (size_t i = 0; i < d.n_v; i++) fuzz_line(d.v[i].placed, sizeof d.v[i].placed);
}

static void fuzz_config(const char *p, size_t n, struct buf *err) {
    struct epdesc_config c;
    if (epdesc_config(p, n, &c, err)) return;
    for (size_t i = 0; i < c.n_v; i++) {
        if (c.v[i].n_types > EPDESC_MAX_POOLS) abort();
        for (size_t k = 0; k < c.v[i].n_types; k++) fuzz_line(c.v[i].types[k], EPDESC_TYPE_MAX);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    struct buf err, text;
    buf_init(&err, 4096);
    buf_init(&text, BUF_NO_CAP);
    struct epdesc_summary list[4];
    struct epdesc_quota q[4];
    struct epdesc_chat chat;
    struct epfacts *f = malloc(sizeof *f);
    size_t k = 0;
    switch (data[0] % 7) {
    case 0:
        fuzz_endpoint(p, n, &err);
        break;
    case 1:
        fuzz_config(p, n, &err);
        break;
    case 2:
        if (!epdesc_list(p, n, list, 4, &k, &err) && k > 4) abort();
        break;
    case 3:
        if (!epdesc_quotas(p, n, q, 4, &k, &err) && k > 4) abort();
        break;
    case 4:
        (void)!epdesc_logs(p, n, fuzz_event, NULL, &err);
        break;
    case 5:
        if (!epdesc_chat(p, n, 64, &text, &chat, &err) && text.len > 64 + 1024) abort();
        break;
    default:
        if (f && !epfacts_parse(p, n, "fuzz", f, &err)) fuzz_line(f->tag, sizeof f->tag);
    }
    if (err.len && memchr(err.data, '\n', err.len)) abort();
    free(f);
    buf_free(&err);
    buf_free(&text);
    return 0;
}
