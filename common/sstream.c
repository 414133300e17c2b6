#include "sstream.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "jscan.h"

void sstream_init(struct sstream *s, enum sstream_body body, enum sstream_framing framing,
                  const struct sstream_limits *limits) {
    struct sstream_limits lim = {0, 0, 0};
    if (limits) lim = *limits;
    s->body = body;
    s->framing = framing;
    evs_decoder_init(&s->evs, lim.max_payload);
    s->part = NULL;
    s->part_len = 0;
    s->part_in_input = false;
    buf_init(&s->part_copy, s->evs.max_payload);
    sse_init(&s->sse, lim.max_line, lim.max_event);
    s->max_line = s->sse.max_line;
    buf_init(&s->line, s->max_line);
    s->line_release = false;
    buf_init(&s->scratch, BUF_NO_CAP);
    s->cumulative = 0;
    memset(&s->totals, 0, sizeof s->totals);
    s->totals.prompt_tokens = s->totals.completion_tokens = s->totals.reasoning_tokens = -1;
    s->totals.cached_tokens = -1;
    s->ended = false;
    s->finished = false;
    s->err = 0;
    s->cause = 0;
    s->msg[0] = '\0';
}

void sstream_free(struct sstream *s) {
    evs_decoder_free(&s->evs);
    buf_free(&s->part_copy);
    sse_free(&s->sse);
    buf_free(&s->line);
    buf_free(&s->scratch);
}

enum sstream_framing sstream_framing_for(const char *content_type) {
    static const struct {
        const char *type;
        enum sstream_framing framing;
    } known[] = {
        {"text/event-stream", SSTREAM_FRAMING_SSE},
        {"application/jsonlines", SSTREAM_FRAMING_JSONL},
        {"application/jsonl", SSTREAM_FRAMING_JSONL},
        {"application/x-ndjson", SSTREAM_FRAMING_JSONL},
    };
    if (!content_type) return SSTREAM_FRAMING_AUTO;
    while (*content_type == ' ' || *content_type == '\t') content_type++;
    size_t n = strcspn(content_type, "; \t");
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i].type) == n && strncasecmp(content_type, known[i].type, n) == 0)
            return known[i].framing;
    return SSTREAM_FRAMING_AUTO;
}

static int sstream_report(const struct sstream *s, struct buf *err) {
    if (err && buf_adds(err, s->msg) != BUF_OK) return SSTREAM_ERR_NOMEM;
    return s->err;
}

/* Fails with code; the line is the part's own (evs/sse keep theirs). */
static int sstream_fail(struct sstream *s, struct buf *err, int code, int cause, const char *line) {
    snprintf(s->msg, sizeof s->msg, "%s", line);
    s->err = code;
    s->cause = cause;
    return sstream_report(s, err);
}

/* ---- JSON lines ---- */

static bool sstream_blank(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') return false;
    return true;
}

/* The next non-blank line of *p (without its "\n" or "\r\n"): 1 with it in
 * *line (a span of the input, or of s->line when cut across slices), 0 when
 * the input is used up, or a negative error. */
static int sstream_jl_next(struct sstream *s, const char **p, size_t *n, const char **line,
                           size_t *ll, struct buf *err) {
    if (s->line_release) {
        buf_reset(&s->line);
        s->line_release = false;
    }
    while (*n > 0) {
        const char *nl = memchr(*p, '\n', *n);
        size_t seg = nl ? (size_t)(nl - *p) : *n;
        const char *l = *p;
        size_t len = seg;
        if (!nl || s->line.len) {
            if (buf_add(&s->line, *p, seg) != BUF_OK)
                return sstream_fail(
                    s, err, s->line.len + seg > s->max_line ? SSTREAM_ERR_LINE : SSTREAM_ERR_NOMEM,
                    0, "JSON lines: line over the length cap");
            l = s->line.data;
            len = s->line.len;
        } else if (seg > s->max_line)
            return sstream_fail(s, err, SSTREAM_ERR_LINE, 0,
                                "JSON lines: line over the length cap");
        *p += seg + (nl != NULL);
        *n -= seg + (nl != NULL);
        if (!nl) return 0;
        if (len && l[len - 1] == '\r') len--;
        if (sstream_blank(l, len)) {
            buf_reset(&s->line);
            continue;
        }
        s->line_release = l == s->line.data;
        *line = l;
        *ll = len;
        return 1;
    }
    return 0;
}

/* ---- chunks ---- */

/* Updates the totals with a chunk about to be returned. */
static void sstream_account(struct sstream *s, struct schunk *c) {
    struct sstream_totals *t = &s->totals;
    t->chunks++;
    if (c->kind == SCHUNK_DATA) {
        bool text = c->content.n || c->reasoning.n;
        if (text && c->completion_tokens >= 0 &&
            (c->format == SCHUNK_FMT_CHAT || c->format == SCHUNK_FMT_TEXT)) {
            int64_t grown = c->completion_tokens - s->cumulative;
            if (grown >= 0) c->tokens = grown > 1000000 ? 1000000 : (int)grown;
            s->cumulative = c->completion_tokens;
        }
        if (c->content.n) t->content_chunks++;
        t->content_bytes += c->content.n;
        t->reasoning_bytes += c->reasoning.n;
        t->tokens += (uint64_t)(c->tokens > 0 ? c->tokens : 0);
        if (c->finish_reason.n) {
            size_t n = c->finish_reason.n < sizeof t->finish_reason - 1
                           ? c->finish_reason.n
                           : sizeof t->finish_reason - 1;
            memcpy(t->finish_reason, c->finish_reason.s, n);
            t->finish_reason[n] = '\0';
        }
    }
    if (c->prompt_tokens >= 0) t->prompt_tokens = c->prompt_tokens;
    if (c->completion_tokens >= 0) t->completion_tokens = c->completion_tokens;
    if (c->reasoning_tokens >= 0) t->reasoning_tokens = c->reasoning_tokens;
    if (c->cached_tokens >= 0) t->cached_tokens = c->cached_tokens;
    if (c->kind == SCHUNK_DONE || c->final) t->done = true;
    if (c->kind == SCHUNK_ERROR || c->kind == SCHUNK_EXCEPTION) t->error = true;
}

/* Reads one chunk; type: the SSE event type ("" for JSON lines). */
static int sstream_chunk(struct sstream *s, const char *data, size_t n, const char *type,
                         size_t type_len, struct schunk *out, struct buf *err) {
    struct buf line;
    buf_init(&line, BUF_NO_CAP);
    int rc = schunk_parse(data, n, &s->scratch, out, &line);
    if (rc == SCHUNK_ERR_JSON && type_len == 5 && memcmp(type, "error", 5) == 0) {
        out->kind = SCHUNK_ERROR;
        out->error_message.s = data;
        out->error_message.n = n;
        rc = 0;
    }
    if (rc < 0) {
        rc = sstream_fail(s, err, rc == SCHUNK_ERR_NOMEM ? SSTREAM_ERR_NOMEM : SSTREAM_ERR_CHUNK,
                          rc, line.len ? buf_str(&line) : "stream chunk: out of memory");
    } else {
        sstream_account(s, out);
        rc = 1;
    }
    buf_free(&line);
    return rc;
}

/* Decides AUTO framing on the first byte that is not white space; white space
 * before it is dropped (blank lines mean nothing in either framing). */
static void sstream_decide(struct sstream *s, const char **p, size_t *n) {
    while (*n && (**p == ' ' || **p == '\t' || **p == '\r' || **p == '\n')) {
        ++*p;
        --*n;
    }
    if (*n) s->framing = **p == '{' || **p == '[' ? SSTREAM_FRAMING_JSONL : SSTREAM_FRAMING_SSE;
}

/* The next chunk of the container's text at *p. */
static int sstream_text_next(struct sstream *s, const char **p, size_t *n, struct schunk *out,
                             struct buf *err) {
    if (s->framing == SSTREAM_FRAMING_AUTO) sstream_decide(s, p, n);
    if (s->framing == SSTREAM_FRAMING_JSONL) {
        const char *l = NULL;
        size_t ll = 0;
        int rc = sstream_jl_next(s, p, n, &l, &ll, err);
        return rc <= 0 ? rc : sstream_chunk(s, l, ll, "", 0, out, err);
    }
    if (s->framing == SSTREAM_FRAMING_SSE) {
        struct sse_event ev;
        int rc = sse_next(&s->sse, p, n, &ev, NULL);
        if (rc < 0)
            return sstream_fail(s, err, rc == SSE_ERR_NOMEM ? SSTREAM_ERR_NOMEM : SSTREAM_ERR_SSE,
                                rc, s->sse.msg);
        return rc == 0 ? 0 : sstream_chunk(s, ev.data, ev.data_len, ev.type, ev.type_len, out, err);
    }
    return 0;
}

/* ---- eventstream messages ---- */

static bool sstream_hdr_is(const struct evs_header *h, const char *lit) {
    return h->type == EVS_STRING && h->len == strlen(lit) && memcmp(h->data, lit, h->len) == 0;
}

static struct schunk_str sstream_hdr_str(const struct evs_header *h) {
    struct schunk_str v = {"", 0};
    if (h->type == EVS_STRING) {
        v.s = (const char *)h->data;
        v.n = h->len;
    }
    return v;
}

static int sstream_exception_member(struct jscan *js, const struct jscan_str *key,
                                    struct schunk *out, struct buf *scratch) {
    struct schunk_str *to = NULL;
    struct jscan_str j;
    if (jscan_str_is(key, "Message") || jscan_str_is(key, "message"))
        to = &out->error_message;
    else if (jscan_str_is(key, "ErrorCode"))
        to = &out->error_code;
    if (!to || jscan_peek(js) != '"') return jscan_skip(js);
    if (jscan_string(js, &j) < 0) return -1;
    size_t at = scratch->len;
    if (jscan_str_decode(&j, scratch) != BUF_OK) return -1;
    to->s = scratch->data + at;
    to->n = scratch->len - at;
    return 0;
}

/* An exception message: its type from the header, Message and ErrorCode from
 * the JSON payload (a payload that is not JSON is the message as it is). */
static int sstream_exception(struct sstream *s, const struct evs_message *m, struct schunk_str type,
                             struct schunk *out) {
    struct jscan js;
    struct jscan_str key;
    size_t count = 0;
    int more = -1;
    schunk_clear(out);
    out->kind = SCHUNK_EXCEPTION;
    out->error_type = type;
    buf_reset(&s->scratch);
    if (!buf_grow(&s->scratch, m->payload_len)) return -1;
    buf_reset(&s->scratch); /* decoded strings fit in the room made: they never move */
    jscan_init(&js, (const char *)m->payload, m->payload_len);
    int rc = jscan_object(&js);
    while (rc == 0 && (more = jscan_member(&js, &count, &key)) > 0)
        rc = sstream_exception_member(&js, &key, out, &s->scratch);
    if (rc < 0 || more < 0) {
        out->error_code.n = 0;
        out->error_message.s = (const char *)m->payload;
        out->error_message.n = m->payload_len;
    }
    return 0;
}

/* Copies the unread rest of a payload lying in the caller's input, which
 * goes away with this call, though the chunk just read stays in it. */
static int sstream_keep_part(struct sstream *s, struct buf *err) {
    buf_reset(&s->part_copy);
    if (buf_add(&s->part_copy, s->part, s->part_len) != BUF_OK)
        return sstream_fail(s, err, SSTREAM_ERR_NOMEM, 0, "event stream: out of memory");
    s->part = (const uint8_t *)s->part_copy.data;
    s->part_in_input = false;
    return 0;
}

/* Handles one eventstream message: 1 with a chunk (an exception), 0 to go on. */
static int sstream_message(struct sstream *s, const struct evs_message *m, struct schunk *out,
                           struct buf *err) {
    struct evs_header_iter it;
    struct evs_header h, mtype = {0}, etype = {0}, xtype = {0}, code = {0}, text = {0};
    s->totals.messages++;
    evs_headers_begin(m, &it);
    while (evs_headers_next(&it, &h)) {
        if (h.name_len < 2 || h.name[0] != ':') continue;
        struct schunk_str name = {h.name, h.name_len};
#define SSTREAM_NAME_IS(lit) (name.n == sizeof(lit) - 1 && memcmp(name.s, (lit), name.n) == 0)
        if (SSTREAM_NAME_IS(":message-type"))
            mtype = h;
        else if (SSTREAM_NAME_IS(":event-type"))
            etype = h;
        else if (SSTREAM_NAME_IS(":exception-type"))
            xtype = h;
        else if (SSTREAM_NAME_IS(":error-code"))
            code = h;
        else if (SSTREAM_NAME_IS(":error-message"))
            text = h;
#undef SSTREAM_NAME_IS
    }
    if (sstream_hdr_is(&mtype, "event") && sstream_hdr_is(&etype, "PayloadPart")) {
        s->part = m->payload;
        s->part_len = m->payload_len;
        s->totals.payload_bytes += m->payload_len;
        return 0;
    }
    if (sstream_hdr_is(&mtype, "exception")) {
        if (sstream_exception(s, m, sstream_hdr_str(&xtype), out) < 0)
            return sstream_fail(s, err, SSTREAM_ERR_NOMEM, 0, "event stream: out of memory");
    } else if (sstream_hdr_is(&mtype, "error")) {
        schunk_clear(out);
        out->kind = SCHUNK_EXCEPTION;
        out->error_type = sstream_hdr_str(&code);
        out->error_message = sstream_hdr_str(&text);
    } else {
        s->totals.ignored_messages++;
        return 0;
    }
    s->ended = true;
    sstream_account(s, out);
    return 1;
}

int sstream_next(struct sstream *s, const char **data, size_t *len, struct schunk *out,
                 struct buf *err) {
    if (s->err) return sstream_report(s, err);
    if (s->ended) {
        s->totals.bytes_after_end += *len;
        *data += *len;
        *len = 0;
        return 0;
    }
    if (s->body == SSTREAM_BODY_PLAIN) {
        size_t before = *len;
        int rc = sstream_text_next(s, data, len, out, err);
        s->totals.body_bytes += before - *len;
        s->totals.payload_bytes += before - *len;
        return rc;
    }
    for (;;) {
        if (s->part_len) {
            const char *p = (const char *)s->part;
            int rc = sstream_text_next(s, &p, &s->part_len, out, err);
            s->part = (const uint8_t *)p;
            if (rc > 0 && s->part_len && s->part_in_input && sstream_keep_part(s, err) < 0)
                return s->err;
            if (rc != 0) return rc;
        }
        struct evs_message m;
        const uint8_t *p = (const uint8_t *)*data;
        size_t before = *len;
        int rc = evs_decoder_next(&s->evs, &p, len, &m, NULL);
        s->totals.body_bytes += before - *len;
        *data = (const char *)p;
        if (rc < 0)
            return sstream_fail(s, err,
                                rc == EVS_ERR_NOMEM ? SSTREAM_ERR_NOMEM : SSTREAM_ERR_EVENTSTREAM,
                                rc, s->evs.msg);
        if (rc == 0) return 0;
        s->part_in_input = !m.buffered;
        if ((rc = sstream_message(s, &m, out, err)) != 0) return rc;
    }
}

/* The end of the container's text: a last JSON line without its line end, or
 * an SSE event cut short. */
static int sstream_text_finish(struct sstream *s, struct schunk *out, struct buf *err) {
    if (s->framing == SSTREAM_FRAMING_SSE) {
        int rc = sse_finish(&s->sse, NULL);
        return rc < 0 ? sstream_fail(s, err, SSTREAM_ERR_TRUNCATED, rc, s->sse.msg) : 0;
    }
    if (s->framing != SSTREAM_FRAMING_JSONL || s->line_release ||
        sstream_blank(s->line.data, s->line.len))
        return 0;
    size_t n = s->line.len;
    if (n && s->line.data[n - 1] == '\r') n--;
    s->line_release = true;
    int rc = sstream_chunk(s, s->line.data, n, "", 0, out, NULL);
    if (rc == SSTREAM_ERR_CHUNK) {
        char line[80];
        snprintf(line, sizeof line, "JSON lines: the body ended inside a line (%zu bytes)", n);
        return sstream_fail(s, err, SSTREAM_ERR_TRUNCATED, s->cause, line);
    }
    return rc < 0 ? sstream_report(s, err) : rc;
}

int sstream_finish(struct sstream *s, struct schunk *out, struct buf *err) {
    const char *p = "";
    size_t n = 0;
    int rc = sstream_next(s, &p, &n, out, err);
    if (rc != 0 || s->ended || s->finished) return rc;
    if (s->body == SSTREAM_BODY_EVENTSTREAM && (rc = evs_decoder_finish(&s->evs, NULL)) < 0)
        return sstream_fail(s, err, SSTREAM_ERR_TRUNCATED, rc, s->evs.msg);
    if ((rc = sstream_text_finish(s, out, err)) != 0) return rc;
    s->finished = true;
    return 0;
}
