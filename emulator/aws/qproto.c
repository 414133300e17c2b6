#include "qproto.h"

#include <stdio.h>
#include <string.h>

#include "cwquery.h"
#include "splitmix.h"

static int qproto_hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int qproto_param(const char *body, size_t len, const char *name, struct buf *out) {
    size_t n = strlen(name);
    buf_reset(out);
    for (size_t i = 0; i < len;) {
        size_t end = i;
        while (end < len && body[end] != '&') end++;
        if (end - i > n && memcmp(body + i, name, n) == 0 && body[i + n] == '=') {
            for (size_t j = i + n + 1; j < end; j++) {
                char c = body[j];
                int hi, lo;
                if (c == '+') {
                    c = ' ';
                } else if (c == '%' && j + 2 < end && (hi = qproto_hex(body[j + 1])) >= 0 &&
                           (lo = qproto_hex(body[j + 2])) >= 0) {
                    c = (char)(hi * 16 + lo);
                    j += 2;
                }
                int rc = buf_addc(out, c);
                if (rc) return rc;
            }
            return 1;
        }
        i = end + 1;
    }
    return 0;
}

int qproto_elem(struct buf *b, const char *tag, const char *text) {
    int rc = buf_addf(b, "<%s>", tag);
    if (!rc) rc = cwquery_text(b, text, strlen(text));
    return rc ? rc : buf_addf(b, "</%s>", tag);
}

void qproto_request_id(uint64_t seed, char out[QPROTO_ID_LEN]) {
    uint64_t x = splitmix_next(&seed), y = splitmix_next(&seed);
    snprintf(out, QPROTO_ID_LEN, "%08x-%04x-4%03x-a%03x-%012llx", (unsigned)(x >> 32),
             (unsigned)(x >> 16) & 0xffff, (unsigned)x & 0xfff, (unsigned)(y >> 52) & 0xfff,
             (unsigned long long)(y & 0xffffffffffffULL));
}

int qproto_error(struct cplane_reply *r, int status, const char *ns, const char *code,
                 const char *msg, const char *id) {
    struct buf *b = &r->body;
    buf_reset(b);
    r->status = status;
    r->type = code;
    int rc = buf_addf(b, "<ErrorResponse xmlns=\"%s\"><Error><Type>Sender</Type>", ns);
    if (!rc) rc = qproto_elem(b, "Code", code);
    if (!rc) rc = qproto_elem(b, "Message", msg);
    if (!rc) rc = buf_adds(b, "</Error>");
    if (!rc) rc = qproto_elem(b, "RequestId", id);
    if (!rc) rc = buf_adds(b, "</ErrorResponse>");
    if (rc) {
        r->status = 500;
        r->type = "InternalFailure";
        buf_reset(b);
        return CPLANE_ERR_NOMEM;
    }
    return CPLANE_OK;
}

int qproto_start(struct cplane_reply *r, const char *op, const char *want, const char *version,
                 const char *ns, uint64_t seed, char id[QPROTO_ID_LEN]) {
    char msg[160];
    qproto_request_id(seed, id);
    buf_reset(&r->body);
    r->status = 200;
    r->type = NULL;
    if (strcmp(op, want) == 0) return 0;
    snprintf(msg, sizeof msg, "Could not find operation %.64s for version %s", op, version);
    return qproto_error(r, 400, ns, "InvalidAction", msg, id) ? CPLANE_ERR_NOMEM : 1;
}
