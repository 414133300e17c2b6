#include "sreq.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct sreq {
    char *method, *target, *region, *service;
    struct buf body;
    char payload_hash[SIGV4_HEX_LEN + 1];
    struct sigv4_header *headers; /* the signed ones; point into head */
    size_t n_headers;
    struct buf head; /* the request line and the static header lines */
    struct buf raw;  /* head, the signature's lines, the blank line and the body */
    struct sigv4_result result;
    bool built; /* raw holds a signature for signed_at and signed_gen */
    time_t signed_at;
    unsigned long signed_gen;
    bool bearer;              /* head holds Authorization: Bearer: nothing to sign */
    unsigned long generation; /* signatures made so far */
};

static bool sreq_clean(const char *s) {
    return s && !strpbrk(s, "\r\n");
}

static int sreq_line(struct buf *b, const char *name, size_t name_len, const char *value,
                     size_t value_len) {
    int rc = buf_add(b, name, name_len);
    if (!rc) rc = buf_add(b, ": ", 2);
    if (!rc) rc = buf_add(b, value, value_len);
    return rc ? rc : buf_add(b, "\r\n", 2);
}

/* The signed headers as sent, in order; r->headers points into r->head afterwards. */
static int sreq_head(struct sreq *r, const struct sreq_params *p) {
    struct sigv4_header h[3 + 16];
    size_t n = 0;
    if (p->n_extra > 16) return SREQ_ERR_INPUT;
    h[n++] = (struct sigv4_header){"Host", 4, p->host, strlen(p->host)};
    if (p->content_type)
        h[n++] =
            (struct sigv4_header){"Content-Type", 12, p->content_type, strlen(p->content_type)};
    if (p->accept) h[n++] = (struct sigv4_header){"Accept", 6, p->accept, strlen(p->accept)};
    for (size_t i = 0; i < p->n_extra; i++) h[n++] = p->extra[i];
    for (size_t i = 0; i < n; i++)
        if (!sreq_clean(h[i].name) || !sreq_clean(h[i].value)) return SREQ_ERR_INPUT;
    size_t *offsets = calloc(n, 2 * sizeof *offsets);
    int rc = offsets && buf_addf(&r->head, "%s %s HTTP/1.1\r\n", p->method, p->target) == BUF_OK
                 ? SREQ_OK
                 : SREQ_ERR_NOMEM;
    for (size_t i = 0; i < n && rc == SREQ_OK; i++) {
        offsets[2 * i] = r->head.len;
        offsets[2 * i + 1] = r->head.len + h[i].name_len + 2;
        if (sreq_line(&r->head, h[i].name, h[i].name_len, h[i].value, h[i].value_len))
            rc = SREQ_ERR_NOMEM;
    }
    if (rc == SREQ_OK && p->user_agent &&
        sreq_line(&r->head, "User-Agent", 10, p->user_agent, strlen(p->user_agent)))
        rc = SREQ_ERR_NOMEM;
    if (rc == SREQ_OK && buf_addf(&r->head, "Content-Length: %zu\r\n", p->body_len))
        rc = SREQ_ERR_NOMEM;
    if (rc == SREQ_OK && p->bearer &&
        (!sreq_clean(p->bearer) || buf_addf(&r->head, "Authorization: Bearer %s\r\n", p->bearer)))
        rc = sreq_clean(p->bearer) ? SREQ_ERR_NOMEM : SREQ_ERR_INPUT;
    r->bearer = p->bearer != NULL;
    if (rc == SREQ_OK && !(r->headers = calloc(n, sizeof *r->headers))) rc = SREQ_ERR_NOMEM;
    for (size_t i = 0; i < n && rc == SREQ_OK; i++)
        r->headers[i] = (struct sigv4_header){r->head.data + offsets[2 * i], h[i].name_len,
                                              r->head.data + offsets[2 * i + 1], h[i].value_len};
    r->n_headers = n;
    free(offsets);
    return rc;
}

int sreq_new(const struct sreq_params *p, struct sreq **out) {
    if (!sreq_clean(p->method) || !sreq_clean(p->target) || !sreq_clean(p->host) || !p->region ||
        !p->service || (p->user_agent && !sreq_clean(p->user_agent)) ||
        (p->content_type && !sreq_clean(p->content_type)) || (p->accept && !sreq_clean(p->accept)))
        return SREQ_ERR_INPUT;
    struct sreq *r = calloc(1, sizeof *r);
    if (!r) return SREQ_ERR_NOMEM;
    buf_init(&r->body, BUF_NO_CAP);
    buf_init(&r->head, BUF_NO_CAP);
    buf_init(&r->raw, BUF_NO_CAP);
    sigv4_result_init(&r->result);
    r->method = strdup(p->method);
    r->target = strdup(p->target);
    r->region = strdup(p->region);
    r->service = strdup(p->service);
    int rc = r->method && r->target && r->region && r->service ? SREQ_OK : SREQ_ERR_NOMEM;
    if (rc == SREQ_OK && p->body_len && buf_add(&r->body, p->body, p->body_len))
        rc = SREQ_ERR_NOMEM;
    if (rc == SREQ_OK &&
        sigv4_sha256_hex(r->body.data ? r->body.data : "", r->body.len, r->payload_hash))
        rc = SREQ_ERR_NOMEM;
    if (rc == SREQ_OK) rc = sreq_head(r, p);
    if (rc) {
        sreq_free(r);
        return rc;
    }
    *out = r;
    return SREQ_OK;
}

void sreq_free(struct sreq *r) {
    if (!r) return;
    free(r->method);
    free(r->target);
    free(r->region);
    free(r->service);
    free(r->headers);
    buf_free(&r->body);
    buf_free(&r->head);
    buf_free_secret(&r->raw);
    sigv4_result_free(&r->result);
    free(r);
}

static int sreq_sign(struct sreq *r, struct sigv4_signer *signer,
                     const struct sigv4_credentials *creds, time_t now) {
    if (r->bearer) { /* the bytes never change */
        buf_reset(&r->raw);
        int rc = buf_add(&r->raw, r->head.data, r->head.len);
        if (!rc) rc = buf_add(&r->raw, "\r\n", 2);
        if (!rc && r->body.len) rc = buf_add(&r->raw, r->body.data, r->body.len);
        return rc ? SREQ_ERR_NOMEM : SREQ_OK;
    }
    struct sigv4_params params = {.region = r->region, .service = r->service};
    char date[SIGV4_DATE_LEN + 1];
    if (sigv4_format_date(now, date)) return SREQ_ERR_INPUT;
    params.amz_date = date;
    struct sigv4_request req = {
        .method = r->method,
        .target = r->target,
        .target_len = strlen(r->target),
        .headers = r->headers,
        .n_headers = r->n_headers,
        .body = r->body.data,
        .body_len = r->body.len,
        .payload_hash = r->payload_hash,
    };
    int rc = sigv4_sign(signer, &req, creds, &params, &r->result);
    if (rc) return rc == SIGV4_ERR_NOMEM ? SREQ_ERR_NOMEM : SREQ_ERR_SIGN;
    buf_reset(&r->raw);
    rc = buf_add(&r->raw, r->head.data, r->head.len);
    if (!rc) rc = buf_addf(&r->raw, "X-Amz-Date: %s\r\n", r->result.amz_date);
    if (!rc && creds->session_token && *creds->session_token)
        rc = buf_addf(&r->raw, "X-Amz-Security-Token: %s\r\n", creds->session_token);
    if (!rc) rc = buf_addf(&r->raw, "Authorization: %s\r\n\r\n", buf_str(&r->result.authorization));
    if (!rc && r->body.len) rc = buf_add(&r->raw, r->body.data, r->body.len);
    return rc ? SREQ_ERR_NOMEM : SREQ_OK;
}

int sreq_build(struct sreq *r, struct sigv4_signer *signer, const struct sigv4_credentials *creds,
               unsigned long creds_gen, time_t now, const char **raw, size_t *len) {
    if (!r->built || (!r->bearer && (r->signed_at != now || r->signed_gen != creds_gen))) {
        r->built = false;
        int rc = sreq_sign(r, signer, creds, now);
        if (rc) return rc;
        r->built = true;
        r->signed_at = now;
        r->signed_gen = creds_gen;
        r->generation++;
    }
    *raw = r->raw.data;
    *len = r->raw.len;
    return SREQ_OK;
}

unsigned long sreq_generation(const struct sreq *r) {
    return r->generation;
}
