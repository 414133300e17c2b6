#include "evs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

/* Headers up to this many are checked for duplicates pair by pair; past it
 * through a hash table (a section of 128 KiB may hold 43,690 headers). */
#define EVS_DUP_PAIRWISE 16

static uint32_t evs_get32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void evs_put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t evs_crc(uint32_t start, const uint8_t *p, size_t n) {
    return libdeflate_crc32(start, p, n);
}

const char *evs_strerror(int code) {
    switch (code) {
    case EVS_OK:
        return "no error";
    case EVS_ERR_NOMEM:
        return "out of memory";
    case EVS_ERR_PRELUDE_CRC:
        return "prelude CRC mismatch";
    case EVS_ERR_MESSAGE_CRC:
        return "message CRC mismatch";
    case EVS_ERR_HEADERS_LENGTH:
        return "headers length over the maximum";
    case EVS_ERR_PAYLOAD_LENGTH:
        return "payload length over the maximum";
    case EVS_ERR_LENGTH:
        return "total length too small for its parts";
    case EVS_ERR_HEADER:
        return "malformed header";
    case EVS_ERR_DUP_HEADER:
        return "duplicate header";
    case EVS_ERR_TRUNCATED:
        return "the stream ended inside a message";
    default:
        return "unknown event stream error";
    }
}

/* Python's strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. */
static bool evs_utf8_valid(const uint8_t *p, size_t n) {
    const uint8_t *end = p + n;
    while (p < end) {
        uint64_t eight;
        if (end - p >= 8 && (memcpy(&eight, p, 8), !(eight & 0x8080808080808080u))) {
            p += 8; /* eight ASCII bytes */
            continue;
        }
        uint8_t c = *p;
        if (c < 0x80) {
            p++;
            continue;
        }
        size_t k;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF)
            k = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            k = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            k = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else
            return false;
        if ((size_t)(end - p) <= k || p[1] < lo || p[1] > hi) return false;
        for (size_t i = 2; i <= k; i++)
            if ((p[i] & 0xC0) != 0x80) return false;
        p += k + 1;
    }
    return true;
}

/* Bytes of the value of each fixed-size type; -1 for the variable ones. */
static int evs_fixed_size(unsigned type) {
    static const int8_t size[] = {0, 0, 1, 2, 4, 8, -1, -1, 8, 16};
    return size[type];
}

static int64_t evs_get_signed(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    if (n < 8 && (v >> (8 * n - 1)) & 1) v |= ~(uint64_t)0 << (8 * n); /* sign-extend */
    return (int64_t)v;
}

/* Reads one header at *p (before end) into h, advancing *p. Returns 0, or
 * EVS_ERR_HEADER with *why set. Checks UTF-8 only when check is true. */
static int evs_read_header(const uint8_t **pp, const uint8_t *end, struct evs_header *h, bool check,
                           const char **why) {
    const uint8_t *p = *pp;
    size_t nl = *p++;
    if ((size_t)(end - p) < nl + 1) {
        *why = "header name or type cut short";
        return EVS_ERR_HEADER;
    }
    h->name = (const char *)p;
    h->name_len = nl;
    if (check && !evs_utf8_valid(p, nl)) {
        *why = "header name is not UTF-8";
        return EVS_ERR_HEADER;
    }
    p += nl;
    unsigned type = *p++;
    if (type > EVS_UUID) {
        *why = "unknown header type";
        return EVS_ERR_HEADER;
    }
    h->type = (enum evs_type)type;
    h->num = 0;
    h->data = NULL;
    h->len = 0;
    int size = evs_fixed_size(type);
    if (size < 0) {
        if (end - p < 2) {
            *why = "header value length cut short";
            return EVS_ERR_HEADER;
        }
        size = p[0] << 8 | p[1];
        p += 2;
    }
    if (end - p < size) {
        *why = "header value cut short";
        return EVS_ERR_HEADER;
    }
    if (type == EVS_BOOL_TRUE)
        h->num = 1;
    else if (type == EVS_BYTES || type == EVS_STRING || type == EVS_UUID) {
        h->data = p;
        h->len = (size_t)size;
        if (check && type == EVS_STRING && !evs_utf8_valid(p, (size_t)size)) {
            *why = "header string value is not UTF-8";
            return EVS_ERR_HEADER;
        }
    } else if (size > 0)
        h->num = evs_get_signed(p, size);
    *pp = p + size;
    return 0;
}

void evs_headers_begin(const struct evs_message *m, struct evs_header_iter *it) {
    it->p = m->headers;
    it->end = m->headers + m->headers_len;
}

bool evs_headers_next(struct evs_header_iter *it, struct evs_header *h) {
    const char *why;
    if (it->p >= it->end || evs_read_header(&it->p, it->end, h, false, &why) != 0) return false;
    return true;
}

bool evs_message_header(const struct evs_message *m, const char *name, struct evs_header *h) {
    struct evs_header_iter it;
    size_t n = strlen(name);
    evs_headers_begin(m, &it);
    while (evs_headers_next(&it, h))
        if (h->name_len == n && memcmp(h->name, name, n) == 0) return true;
    return false;
}

struct evs_header evs_header_string(const char *name, const char *value) {
    struct evs_header h = {.name = name,
                           .name_len = strlen(name),
                           .type = EVS_STRING,
                           .data = (const uint8_t *)value,
                           .len = strlen(value)};
    return h;
}

/* ---- encoder ---- */

static int evs_encode_fail(struct buf *err, int code, const char *what) {
    if (err && buf_addf(err, "event stream encode: %s: %s", evs_strerror(code), what) != BUF_OK)
        return EVS_ERR_NOMEM;
    return code;
}

static bool evs_same_name(const struct evs_header *a, const struct evs_header *b) {
    return a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0;
}

/* The encoded size of header h, or 0 (with *why) when it cannot be encoded. */
static size_t evs_header_size(const struct evs_header *h, const char **why) {
    if (h->name_len > 255) {
        *why = "header name longer than 255 bytes";
        return 0;
    }
    if (!evs_utf8_valid((const uint8_t *)h->name, h->name_len)) {
        *why = "header name is not UTF-8";
        return 0;
    }
    if ((unsigned)h->type > EVS_UUID) {
        *why = "unknown header type";
        return 0;
    }
    size_t n = 2 + h->name_len;
    int size = evs_fixed_size(h->type);
    if (h->type == EVS_UUID && h->len != 16) {
        *why = "uuid value not 16 bytes";
        return 0;
    }
    if (size >= 0) return n + (size_t)size;
    if (h->len > EVS_MAX_VALUE_LEN) {
        *why = "header value longer than 65535 bytes";
        return 0;
    }
    if (h->type == EVS_STRING && !evs_utf8_valid(h->data, h->len)) {
        *why = "header string value is not UTF-8";
        return 0;
    }
    return n + 2 + h->len;
}

static uint8_t *evs_put_header(uint8_t *p, const struct evs_header *h) {
    *p++ = (uint8_t)h->name_len;
    memcpy(p, h->name, h->name_len);
    p += h->name_len;
    *p++ = (uint8_t)h->type;
    int size = evs_fixed_size(h->type);
    if (size < 0) {
        *p++ = (uint8_t)(h->len >> 8);
        *p++ = (uint8_t)h->len;
        size = (int)h->len;
    }
    if (h->type == EVS_BYTES || h->type == EVS_STRING || h->type == EVS_UUID) {
        if (size) memcpy(p, h->data, (size_t)size);
    } else
        for (int i = 0; i < size; i++) p[i] = (uint8_t)((uint64_t)h->num >> (8 * (size - 1 - i)));
    return p + size;
}

int evs_encode(struct buf *out, const struct evs_header *h, size_t count, const void *payload,
               size_t payload_len, struct buf *err) {
    size_t hlen = 0;
    for (size_t i = 0; i < count; i++) {
        const char *why = NULL;
        size_t n = evs_header_size(&h[i], &why);
        if (!n) return evs_encode_fail(err, EVS_ERR_HEADER, why);
        for (size_t j = 0; j < i; j++)
            if (evs_same_name(&h[i], &h[j]))
                return evs_encode_fail(err, EVS_ERR_DUP_HEADER, "a header name appears twice");
        hlen += n;
        if (hlen > EVS_MAX_HEADERS_LEN)
            return evs_encode_fail(err, EVS_ERR_HEADERS_LENGTH, "headers over 128 KiB");
    }
    if (payload_len > EVS_MAX_PAYLOAD_LEN)
        return evs_encode_fail(err, EVS_ERR_PAYLOAD_LENGTH, "payload over 16 MiB");
    size_t total = EVS_MIN_MESSAGE_LEN + hlen + payload_len;
    uint8_t *m = (uint8_t *)buf_grow(out, total);
    if (!m) return evs_encode_fail(err, EVS_ERR_NOMEM, "no room for the message");
    evs_put32(m, (uint32_t)total);
    evs_put32(m + 4, (uint32_t)hlen);
    uint32_t pcrc = evs_crc(0, m, 8);
    evs_put32(m + 8, pcrc);
    uint8_t *p = m + EVS_PRELUDE_LEN;
    for (size_t i = 0; i < count; i++) p = evs_put_header(p, &h[i]);
    if (payload_len) memcpy(p, payload, payload_len);
    evs_put32(m + total - 4, evs_crc(pcrc, m + 8, total - EVS_PRELUDE_LEN));
    return EVS_OK;
}

int evs_encode_payload_part(struct buf *out, const void *payload, size_t payload_len,
                            struct buf *err) {
    struct evs_header h[3] = {
        evs_header_string(":event-type", "PayloadPart"),
        evs_header_string(":content-type", "application/octet-stream"),
        evs_header_string(":message-type", "event"),
    };
    return evs_encode(out, h, 3, payload, payload_len, err);
}

/* Appends s as a JSON string (quotes included); bytes >= 0x80 pass as they are. */
static int evs_json_string(struct buf *b, const char *s) {
    int rc = buf_addc(b, '"');
    for (; *s && !rc; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            rc = buf_addf(b, "\\%c", c);
        else if (c < 0x20)
            rc = buf_addf(b, "\\u%04x", c);
        else
            rc = buf_addc(b, (char)c);
    }
    return rc ? rc : buf_addc(b, '"');
}

int evs_encode_exception(struct buf *out, const char *type, const char *error_code,
                         const char *message, struct buf *err) {
    struct buf json;
    buf_init(&json, EVS_MAX_PAYLOAD_LEN);
    int rc = buf_adds(&json, "{\"Message\":");
    if (!rc) rc = evs_json_string(&json, message ? message : "");
    if (!rc && error_code) {
        rc = buf_adds(&json, ",\"ErrorCode\":");
        if (!rc) rc = evs_json_string(&json, error_code);
    }
    if (!rc) rc = buf_addc(&json, '}');
    if (rc)
        rc = evs_encode_fail(err, rc == BUF_ERR_CAP ? EVS_ERR_PAYLOAD_LENGTH : EVS_ERR_NOMEM,
                             "exception payload");
    else {
        struct evs_header h[3] = {
            evs_header_string(":exception-type", type),
            evs_header_string(":content-type", "application/json"),
            evs_header_string(":message-type", "exception"),
        };
        rc = evs_encode(out, h, 3, json.data, json.len, err);
    }
    buf_free(&json);
    return rc;
}

/* ---- decoder ---- */

void evs_decoder_init(struct evs_decoder *d, size_t max_payload) {
    if (max_payload == 0 || max_payload > EVS_MAX_PAYLOAD_LEN) max_payload = EVS_MAX_PAYLOAD_LEN;
    buf_init(&d->buf, EVS_MIN_MESSAGE_LEN + EVS_MAX_HEADERS_LEN + max_payload);
    d->total = 0;
    d->max_payload = max_payload;
    d->offset = 0;
    d->release = false;
    d->err = 0;
    d->msg[0] = '\0';
    d->dup = NULL;
    d->dup_cap = 0;
}

void evs_decoder_free(struct evs_decoder *d) {
    buf_free(&d->buf);
    free(d->dup);
    d->dup = NULL;
    d->dup_cap = 0;
}

static int evs_report(const struct evs_decoder *d, struct buf *err) {
    if (err && buf_adds(err, d->msg) != BUF_OK) return EVS_ERR_NOMEM;
    return d->err;
}

__attribute__((format(printf, 4, 5))) static int evs_fail(struct evs_decoder *d, struct buf *err,
                                                          int code, const char *fmt, ...) {
    va_list ap;
    int n =
        snprintf(d->msg, sizeof d->msg, "event stream: message at byte %" PRIu64 ": ", d->offset);
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof d->msg)
        vsnprintf(d->msg + n, sizeof d->msg - (size_t)n, fmt, ap);
    va_end(ap);
    d->err = code;
    return evs_report(d, err);
}

/* Checks the 12-byte prelude at p and sets d->total. */
static int evs_check_prelude(struct evs_decoder *d, const uint8_t *p, struct buf *err) {
    uint32_t total = evs_get32(p), hlen = evs_get32(p + 4), want = evs_get32(p + 8);
    if (hlen > EVS_MAX_HEADERS_LEN)
        return evs_fail(d, err, EVS_ERR_HEADERS_LENGTH, "headers length %" PRIu32 " over %zu", hlen,
                        EVS_MAX_HEADERS_LEN);
    if (total < EVS_MIN_MESSAGE_LEN || total - EVS_MIN_MESSAGE_LEN < hlen)
        return evs_fail(d, err, EVS_ERR_LENGTH,
                        "total length %" PRIu32 " under 16 + headers length %" PRIu32, total, hlen);
    size_t plen = total - EVS_MIN_MESSAGE_LEN - hlen;
    if (plen > d->max_payload)
        return evs_fail(d, err, EVS_ERR_PAYLOAD_LENGTH, "payload length %zu over %zu", plen,
                        d->max_payload);
    uint32_t got = evs_crc(0, p, 8);
    if (got != want)
        return evs_fail(d, err, EVS_ERR_PRELUDE_CRC,
                        "prelude CRC 0x%08" PRIx32 ", computed 0x%08" PRIx32, want, got);
    d->total = total;
    return 0;
}

static uint32_t evs_name_hash(const char *s, size_t n) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

/* Sets up the hash table for a section of hlen bytes: room at half load for
 * every distinct name it could hold (one empty name, then 3 bytes or more per
 * header). Entries are offsets + 1 into the section, 0 = free. Returns the
 * mask of the part in use (the block may be larger, from an earlier message),
 * or 0 when out of memory. */
static size_t evs_dup_table(struct evs_decoder *d, size_t hlen) {
    size_t need = 64;
    while (need < 2 * (hlen / 3 + 2)) need *= 2;
    if (need > d->dup_cap) {
        uint32_t *t = malloc(need * sizeof *t);
        if (!t) return 0;
        free(d->dup);
        d->dup = t;
        d->dup_cap = need;
    }
    memset(d->dup, 0, need * sizeof *d->dup);
    return need - 1;
}

/* Adds the name of the header at offset off (0-based, into section s) to the
 * table; false when the table holds the name already. */
static bool evs_dup_insert(struct evs_decoder *d, size_t mask, const uint8_t *s, size_t off) {
    const char *name = (const char *)s + off + 1;
    size_t n = s[off];
    for (size_t i = evs_name_hash(name, n) & mask;; i = (i + 1) & mask) {
        uint32_t e = d->dup[i];
        if (!e) {
            d->dup[i] = (uint32_t)off + 1;
            return true;
        }
        if (s[e - 1] == n && memcmp(s + e, name, n) == 0) return false;
    }
}

/* Checks the header section of a message and counts its headers. */
static int evs_check_headers(struct evs_decoder *d, const uint8_t *s, size_t hlen, size_t *count,
                             struct buf *err) {
    const uint8_t *p = s, *end = s + hlen;
    size_t offs[EVS_DUP_PAIRWISE], n = 0, mask = 0;
    struct evs_header h;
    const char *why = NULL;
    while (p < end) {
        size_t off = (size_t)(p - s);
        if (evs_read_header(&p, end, &h, true, &why) != 0)
            return evs_fail(d, err, EVS_ERR_HEADER, "%s (header %zu)", why, n + 1);
        bool dup = false;
        if (n < EVS_DUP_PAIRWISE) {
            for (size_t i = 0; i < n && !dup; i++)
                dup = s[offs[i]] == h.name_len && memcmp(s + offs[i] + 1, h.name, h.name_len) == 0;
            offs[n] = off;
        } else {
            if (n == EVS_DUP_PAIRWISE) {
                if (!(mask = evs_dup_table(d, hlen)))
                    return evs_fail(d, err, EVS_ERR_NOMEM, "out of memory");
                for (size_t i = 0; i < n; i++) (void)evs_dup_insert(d, mask, s, offs[i]);
            }
            dup = !evs_dup_insert(d, mask, s, off);
        }
        if (dup)
            return evs_fail(d, err, EVS_ERR_DUP_HEADER, "header \"%.*s\" appears twice",
                            (int)(h.name_len > 64 ? 64 : h.name_len), h.name);
        n++;
    }
    *count = n;
    return 0;
}

/* Checks the message CRC and the headers of the complete message at m. */
static int evs_decode(struct evs_decoder *d, const uint8_t *m, struct evs_message *msg,
                      struct buf *err) {
    size_t total = d->total, hlen = evs_get32(m + 4);
    uint32_t want = evs_get32(m + total - 4),
             got = evs_crc(evs_get32(m + 8), m + 8, total - EVS_PRELUDE_LEN);
    if (got != want)
        return evs_fail(d, err, EVS_ERR_MESSAGE_CRC,
                        "message CRC 0x%08" PRIx32 ", computed 0x%08" PRIx32, want, got);
    int rc = evs_check_headers(d, m + EVS_PRELUDE_LEN, hlen, &msg->header_count, err);
    if (rc < 0) return rc;
    msg->headers = m + EVS_PRELUDE_LEN;
    msg->headers_len = hlen;
    msg->payload = m + EVS_PRELUDE_LEN + hlen;
    msg->payload_len = total - EVS_MIN_MESSAGE_LEN - hlen;
    msg->offset = d->offset;
    msg->buffered = d->release;
    d->offset += total;
    d->total = 0;
    return 1;
}

/* Moves up to want - buf.len bytes of the input into the buffer; true when it holds want. */
static int evs_take(struct evs_decoder *d, const uint8_t **data, size_t *len, size_t want,
                    struct buf *err) {
    size_t n = want - d->buf.len;
    if (n > *len) n = *len;
    if (buf_add(&d->buf, *data, n) != BUF_OK)
        return evs_fail(d, err, EVS_ERR_NOMEM, "out of memory");
    *data += n;
    *len -= n;
    return d->buf.len == want;
}

int evs_decoder_next(struct evs_decoder *d, const uint8_t **data, size_t *len,
                     struct evs_message *msg, struct buf *err) {
    if (d->err) return evs_report(d, err);
    if (d->release) {
        buf_reset(&d->buf);
        d->release = false;
    }
    if (*len == 0) return 0;
    int rc;
    if (d->buf.len == 0 && *len >= EVS_PRELUDE_LEN) {
        /* The fast path: the message starts here; decode it in place when it is whole. */
        if ((rc = evs_check_prelude(d, *data, err)) < 0) return rc;
        if (*len >= d->total) {
            size_t total = d->total;
            if ((rc = evs_decode(d, *data, msg, err)) < 0) return rc;
            *data += total;
            *len -= total;
            return 1;
        }
    }
    if (!d->total) {
        if ((rc = evs_take(d, data, len, EVS_PRELUDE_LEN, err)) <= 0) return rc;
        if ((rc = evs_check_prelude(d, (const uint8_t *)d->buf.data, err)) < 0) return rc;
    }
    if ((rc = evs_take(d, data, len, d->total, err)) <= 0) return rc;
    d->release = true;
    return evs_decode(d, (const uint8_t *)d->buf.data, msg, err);
}

int evs_decoder_finish(struct evs_decoder *d, struct buf *err) {
    if (d->err) return evs_report(d, err);
    if (d->release) {
        buf_reset(&d->buf);
        d->release = false;
    }
    if (d->buf.len == 0) return 0;
    return evs_fail(d, err, EVS_ERR_TRUNCATED, "the stream ended after %zu of its bytes",
                    d->buf.len);
}
