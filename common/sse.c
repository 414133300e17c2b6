#include "sse.h"

#include <stdio.h>
#include <string.h>

void sse_init(struct sse_parser *p, size_t max_line, size_t max_event) {
    p->max_line = max_line ? max_line : SSE_DEFAULT_MAX_LINE;
    p->max_event = max_event ? max_event : SSE_DEFAULT_MAX_EVENT;
    buf_init(&p->line, p->max_line);
    buf_init(&p->data, p->max_event);
    buf_init(&p->type, p->max_line);
    p->span = NULL;
    p->span_len = 0;
    p->data_lines = 0;
    p->in_event = false;
    p->cr = false;
    p->bom = 0;
    p->release = false;
    p->err = 0;
    p->msg[0] = '\0';
}

void sse_free(struct sse_parser *p) {
    buf_free(&p->line);
    buf_free(&p->data);
    buf_free(&p->type);
}

static int sse_report(const struct sse_parser *p, struct buf *err) {
    if (err && buf_adds(err, p->msg) != BUF_OK) return SSE_ERR_NOMEM;
    return p->err;
}

static int sse_fail(struct sse_parser *p, struct buf *err, int code, const char *what, size_t n) {
    snprintf(p->msg, sizeof p->msg, "server-sent events: %s (%zu bytes)", what, n);
    p->err = code;
    return sse_report(p, err);
}

/* The error of a failed append to one of the buffers. */
static int sse_add_fail(struct sse_parser *p, struct buf *err, int rc, int cap_code,
                        const char *what, size_t n) {
    if (rc == BUF_ERR_CAP) return sse_fail(p, err, cap_code, what, n);
    return sse_fail(p, err, SSE_ERR_NOMEM, "out of memory", n);
}

/* Forgets the event returned last. */
static void sse_clear_event(struct sse_parser *p) {
    buf_reset(&p->data);
    buf_reset(&p->type);
    p->span = NULL;
    p->data_lines = 0;
    p->in_event = false;
    p->release = false;
}

/* Copies the span of the input into the data buffer (the input is going away). */
static int sse_keep_span(struct sse_parser *p, struct buf *err) {
    if (!p->span) return 0;
    int rc = buf_add(&p->data, p->span, p->span_len);
    p->span = NULL;
    return rc ? sse_add_fail(p, err, rc, SSE_ERR_EVENT, "event over the size cap", p->span_len) : 0;
}

/* Adds a data line; stable: it lies in the caller's input, valid for this call. */
static int sse_add_data(struct sse_parser *p, const char *v, size_t n, bool stable,
                        struct buf *err) {
    if (p->data_lines == 0 && stable) {
        if (n > p->max_event) return sse_fail(p, err, SSE_ERR_EVENT, "event over the size cap", n);
        p->span = v;
        p->span_len = n;
        p->data_lines = 1;
        return 0;
    }
    int rc = sse_keep_span(p, err);
    if (rc < 0) return rc;
    if (p->data_lines > 0) rc = buf_addc(&p->data, '\n');
    if (!rc) rc = buf_add(&p->data, v, n);
    if (rc)
        return sse_add_fail(p, err, rc, SSE_ERR_EVENT, "event over the size cap", p->data.len + n);
    p->data_lines++;
    return 0;
}

static bool sse_field_is(const char *name, size_t n, const char *lit) {
    return n == strlen(lit) && memcmp(name, lit, n) == 0;
}

/* Interprets one line (without its end). Returns 1 when it completed an event
 * (in *ev), 0 when not, or a negative error. */
static int sse_process_line(struct sse_parser *p, const char *s, size_t n, bool stable,
                            struct sse_event *ev, struct buf *err) {
    if (n > p->max_line) return sse_fail(p, err, SSE_ERR_LINE, "line over the length cap", n);
    if (n == 0) {
        if (p->data_lines == 0) {
            sse_clear_event(p);
            return 0;
        }
        ev->data = p->span ? p->span : p->data.data ? p->data.data : "";
        ev->data_len = p->span ? p->span_len : p->data.len;
        ev->type = p->type.data ? p->type.data : "";
        ev->type_len = p->type.len;
        p->release = true;
        return 1;
    }
    if (s[0] == ':') return 0;
    p->in_event = true;
    const char *colon = memchr(s, ':', n);
    size_t name_len = colon ? (size_t)(colon - s) : n;
    const char *v = colon ? colon + 1 : s + n;
    size_t vlen = n - (size_t)(v - s);
    if (vlen && *v == ' ') {
        v++;
        vlen--;
    }
    if (sse_field_is(s, name_len, "data")) return sse_add_data(p, v, vlen, stable, err);
    if (sse_field_is(s, name_len, "event")) {
        buf_reset(&p->type);
        int rc = buf_add(&p->type, v, vlen);
        if (rc) return sse_add_fail(p, err, rc, SSE_ERR_LINE, "line over the length cap", vlen);
    }
    return 0;
}

/* Eats the start of a byte order mark; on a mismatch the bytes taken so far
 * begin the first line. */
static int sse_skip_bom(struct sse_parser *p, const char **s, size_t *n, struct buf *err) {
    static const char bom[] = "\xEF\xBB\xBF";
    while (p->bom < 3 && *n > 0) {
        if (**s == bom[p->bom]) {
            p->bom++;
            ++*s;
            --*n;
            continue;
        }
        int rc = buf_add(&p->line, bom, (size_t)p->bom);
        if (rc) return sse_add_fail(p, err, rc, SSE_ERR_LINE, "line over the length cap", 3);
        p->bom = 3;
    }
    return 0;
}

int sse_next(struct sse_parser *p, const char **data, size_t *len, struct sse_event *ev,
             struct buf *err) {
    if (p->err) return sse_report(p, err);
    if (p->release) sse_clear_event(p);
    const char *s = *data;
    size_t n = *len;
    int rc = p->bom < 3 ? sse_skip_bom(p, &s, &n, err) : 0;
    if (p->cr && n > 0) {
        if (*s == '\n') {
            s++;
            n--;
        }
        p->cr = false;
    }
    while (rc == 0 && n > 0) {
        const char *nl = memchr(s, '\n', n);
        size_t upto = nl ? (size_t)(nl - s) : n;
        const char *cr = memchr(s, '\r', upto);
        const char *eol = cr ? cr : nl;
        if (!eol) {
            rc = buf_add(&p->line, s, n);
            if (rc)
                rc = sse_add_fail(p, err, rc, SSE_ERR_LINE, "line over the length cap",
                                  p->line.len + n);
            s += n;
            n = 0;
            break;
        }
        size_t ll = (size_t)(eol - s), adv = ll + 1;
        if (eol == cr) {
            if (adv < n) {
                if (s[adv] == '\n') adv++;
            } else
                p->cr = true;
        }
        if (p->line.len) {
            rc = buf_add(&p->line, s, ll);
            if (rc)
                rc = sse_add_fail(p, err, rc, SSE_ERR_LINE, "line over the length cap",
                                  p->line.len + ll);
            else
                rc = sse_process_line(p, p->line.data, p->line.len, false, ev, err);
            buf_reset(&p->line);
        } else
            rc = sse_process_line(p, s, ll, true, ev, err);
        s += adv;
        n -= adv;
    }
    *data = s;
    *len = n;
    if (rc == 0) rc = sse_keep_span(p, err);
    return rc;
}

int sse_finish(struct sse_parser *p, struct buf *err) {
    if (p->err) return sse_report(p, err);
    if (p->release) sse_clear_event(p);
    if (p->line.len || p->in_event || (p->bom > 0 && p->bom < 3))
        return sse_fail(p, err, SSE_ERR_TRUNCATED, "the stream ended inside an event",
                        p->line.len + (p->span ? p->span_len : p->data.len));
    return 0;
}
