#include "reqlog.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "jsonw.h"
#include "safeopen.h"

int reqlog_open(struct reqlog *l, const char *path, struct buf *err) {
    l->f = safeopen_stream(path, SAFEOPEN_TRUNC, "--request-log", err); /* never via a link */
    buf_init(&l->line, BUF_NO_CAP);
    return l->f ? REQLOG_OK : REQLOG_ERR_IO;
}

void reqlog_close(struct reqlog *l) {
    if (l->f) fclose(l->f);
    l->f = NULL;
    buf_free(&l->line);
}

/* ,"key":seconds, or null when seconds is 0. */
static int reqlog_time(struct buf *out, const char *key, double seconds) {
    return seconds > 0 ? buf_addf(out, ",\"%s\":%.6f", key, seconds)
                       : buf_addf(out, ",\"%s\":null", key);
}

static int reqlog_num(struct buf *out, const char *key, long v) {
    return v < 0 ? buf_addf(out, ",\"%s\":null", key) : buf_addf(out, ",\"%s\":%ld", key, v);
}

int reqlog_format(struct buf *out, const struct reqlog_entry *e) {
    size_t prompt_len = e->prompt_len;
    if (prompt_len > REQLOG_PROMPT_MAX) { /* cut at a UTF-8 character's start */
        prompt_len = REQLOG_PROMPT_MAX;
        while (prompt_len && ((unsigned char)e->prompt[prompt_len] & 0xc0) == 0x80) prompt_len--;
    }
    int rc = buf_adds(out, "{\"id\":");
    if (!rc) rc = jsonw_cstr(out, e->id);
    if (!rc) rc = buf_addf(out, ",\"arrival\":%.6f", e->arrival > 0 ? e->arrival : e->received);
    if (!rc) rc = buf_addf(out, ",\"received\":%.6f", e->received);
    if (!rc) rc = reqlog_time(out, "admitted", e->admitted);
    if (!rc)
        rc = e->queue_s < 0 ? buf_adds(out, ",\"queue_s\":null")
                            : buf_addf(out, ",\"queue_s\":%.6f", e->queue_s);
    if (!rc) rc = buf_addf(out, ",\"replied\":%.6f", e->replied);
    if (!rc) rc = reqlog_time(out, "first_token", e->first_token);
    if (!rc) rc = reqlog_time(out, "last_token", e->last_token);
    if (!rc) rc = buf_adds(out, ",\"api\":");
    if (!rc) rc = jsonw_cstr(out, e->api);
    if (!rc) rc = buf_adds(out, ",\"endpoint\":");
    if (!rc) rc = jsonw_cstr(out, e->endpoint);
    if (!rc) rc = buf_adds(out, ",\"variant\":");
    if (!rc) rc = jsonw_cstr(out, e->variant);
    if (!rc) rc = buf_adds(out, ",\"access_key_id\":");
    if (!rc)
        rc = e->access_key_id ? jsonw_str(out, e->access_key_id, e->access_key_id_len)
                              : buf_adds(out, "null");
    if (!rc) rc = buf_addf(out, ",\"status\":%d,\"error_type\":", e->status);
    if (!rc) rc = jsonw_cstr(out, e->error_type);
    if (!rc) rc = buf_adds(out, ",\"fault\":");
    if (!rc) rc = jsonw_cstr(out, e->fault);
    if (!rc) rc = buf_adds(out, ",\"prompt\":");
    if (!rc) rc = e->prompt ? jsonw_str(out, e->prompt, prompt_len) : buf_adds(out, "null");
    if (!rc) rc = reqlog_num(out, "prompt_tokens", e->prompt_tokens);
    if (!rc) rc = reqlog_num(out, "completion_tokens", e->completion_tokens);
    if (!rc) rc = reqlog_num(out, "cached_tokens", e->cached_tokens);
    if (!rc) rc = buf_adds(out, ",\"session\":");
    if (!rc) rc = e->session ? jsonw_str(out, e->session, e->session_len) : buf_adds(out, "null");
    return rc ? rc : buf_addc(out, '}');
}

double reqlog_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

void reqlog_write(struct reqlog *l, struct reqlog_entry *e) {
    if (!l->f) return;
    e->replied = reqlog_now();
    buf_reset(&l->line);
    if (reqlog_format(&l->line, e) || buf_addc(&l->line, '\n')) return;
    fwrite(l->line.data, 1, l->line.len, l->f);
    fflush(l->f);
}
