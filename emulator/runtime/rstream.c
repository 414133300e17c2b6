#include "rstream.h"

#include "evs.h"
#include "fault.h"
#include "jsonw.h"

/* Wordings: the API reference's descriptions of the errors (the service's own
 * messages are not known). */
static const struct {
    const char *type, *code, *snake, *message;
} rstream_errors[] = {
    [RSTREAM_STREAM_BROKEN] = {"ModelStreamError", "StreamBroken", "stream_broken",
                               "The Transmission Control Protocol (TCP) connection between the "
                               "client and the model was reset or closed."},
    [RSTREAM_TIME_EXCEEDED] = {"ModelStreamError", "ModelInvocationTimeExceeded",
                               "model_invocation_time_exceeded",
                               "The model failed to finish sending the response within the "
                               "timeout period allowed by Amazon SageMaker AI."},
    [RSTREAM_INTERNAL_FAILURE] = {"InternalStreamFailure", NULL, "internal_stream_failure",
                                  "The stream processing failed because of an unknown error, "
                                  "exception or failure. Try your request again."},
};

void rstream_init(struct rstream *s, const struct cont_request *r, const struct cont_answer *a,
                  const struct cont_meta *m, enum rstream_wire wire, size_t split, int fault) {
    *s = (struct rstream){.wire = wire, .split = split, .fault = fault};
    cstream_init(&s->cs, r, a, m);
    s->fault_at = (s->cs.steps - 1) / 2;
    buf_init(&s->step, BUF_NO_CAP);
}

void rstream_free(struct rstream *s) {
    buf_free(&s->step);
}

const char *rstream_content_type(const struct rstream *s) {
    return cstream_content_type(s->cs.req->kind);
}

bool rstream_done(const struct rstream *s) {
    return cstream_done(&s->cs);
}

/* Appends len bytes at data as PayloadParts of at most split bytes (split 0: one). */
static int rstream_parts(size_t split, const char *data, size_t len, struct buf *out,
                         size_t *first_end) {
    size_t step = split ? split : len;
    for (size_t off = 0; off < len; off += step) {
        size_t n = len - off < step ? len - off : step;
        if (evs_encode_payload_part(out, data + off, n, NULL)) return RSTREAM_ERR_NOMEM;
        if (off == 0 && first_end) *first_end = out->len;
    }
    return RSTREAM_OK;
}

/* Frames the step's events (ev over s->step) into out; *first_end: where its first frame ends. */
static int rstream_frame(struct rstream *s, const struct cstream_events *ev, struct buf *out,
                         size_t *first_end) {
    const char *data = buf_str(&s->step);
    *first_end = out->len;
    if (s->wire == RSTREAM_PLAIN) {
        *first_end += ev->n ? ev->ends[0] : s->step.len;
        return buf_add(out, data, s->step.len) ? RSTREAM_ERR_NOMEM : RSTREAM_OK;
    }
    if (s->split) return rstream_parts(s->split, data, s->step.len, out, first_end);
    for (size_t i = 0, start = 0; i < ev->n; start = ev->ends[i++]) {
        if (evs_encode_payload_part(out, data + start, ev->ends[i] - start, NULL))
            return RSTREAM_ERR_NOMEM;
        if (i == 0) *first_end = out->len;
    }
    return RSTREAM_OK;
}

/* The fault that strikes this step: its bytes and what follows. */
static int rstream_strike(struct rstream *s, const struct cstream_events *ev, struct buf *out,
                          struct rstream_step *st) {
    size_t start = out->len, first_end;
    int rc = RSTREAM_OK;
    switch (s->fault) {
    case FAULT_STREAM_ERROR:
    case FAULT_STREAM_FAILURE:
        *st = (struct rstream_step){RSTREAM_END, false};
        return rstream_error(
            s->wire,
            s->fault == FAULT_STREAM_ERROR ? RSTREAM_STREAM_BROKEN : RSTREAM_INTERNAL_FAILURE, out);
    case FAULT_TRUNCATE:
        *st = (struct rstream_step){RSTREAM_END, false};
        return RSTREAM_OK;
    case FAULT_STREAM_CUT:
    case FAULT_DROP:
        rc = rstream_frame(s, ev, out, &first_end);
        if (!rc) buf_truncate(out, start + (first_end - start) / 2);
        *st = (struct rstream_step){RSTREAM_CUT, false};
        return rc;
    default:
        rc = rstream_frame(s, ev, out, &first_end);
        if (!rc && s->fault == FAULT_STREAM_CRC && s->wire == RSTREAM_EVENTSTREAM &&
            first_end > start)
            out->data[first_end - 1] ^= 0x5a; /* the message CRC's last byte */
        if (s->fault == FAULT_STREAM_STALL && st->next == RSTREAM_MORE) st->next = RSTREAM_STALL;
        return rc;
    }
}

int rstream_next(struct rstream *s, struct buf *out, struct rstream_step *st) {
    struct cstream_events ev;
    size_t first_end, at = s->cs.done;
    buf_reset(&s->step);
    if (cstream_step(&s->cs, &s->step, &ev)) return RSTREAM_ERR_NOMEM;
    *st = (struct rstream_step){cstream_done(&s->cs) ? RSTREAM_END : RSTREAM_MORE, true};
    if (at == s->fault_at && s->fault != FAULT_NONE) return rstream_strike(s, &ev, out, st);
    return rstream_frame(s, &ev, out, &first_end);
}

int rstream_error(enum rstream_wire wire, enum rstream_exception e, struct buf *out) {
    int rc;
    if (wire == RSTREAM_EVENTSTREAM)
        return evs_encode_exception(out, rstream_errors[e].type, rstream_errors[e].code,
                                    rstream_errors[e].message, NULL)
                   ? RSTREAM_ERR_NOMEM
                   : RSTREAM_OK;
    rc = buf_adds(out, "data: {\"error\":{\"message\":");
    if (!rc) rc = jsonw_cstr(out, rstream_errors[e].message);
    if (!rc) rc = buf_adds(out, ",\"type\":\"server_error\",\"param\":null,\"code\":");
    if (!rc) rc = jsonw_cstr(out, rstream_errors[e].snake);
    if (!rc) rc = buf_adds(out, "}}\n\n");
    return rc ? RSTREAM_ERR_NOMEM : RSTREAM_OK;
}

int rstream_whole(enum rstream_wire wire, size_t split, const char *body, size_t len,
                  struct buf *out) {
    if (wire == RSTREAM_PLAIN) return buf_add(out, body, len) ? RSTREAM_ERR_NOMEM : RSTREAM_OK;
    return rstream_parts(split, body, len, out, NULL);
}
