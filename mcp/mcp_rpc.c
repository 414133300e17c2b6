#include "mcp_rpc.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define MCP_RPC_READ_CHUNK ((size_t)64 * 1024)

void mcp_rpc_in_init(struct mcp_rpc_in *in, int fd, size_t max_line) {
    in->fd = fd;
    in->max_line = max_line ? max_line : MCP_RPC_MAX_LINE_DEFAULT;
    buf_init(&in->data, in->max_line + 1);
    in->head = 0;
    in->taken = 0;
    in->clean = 0;
    in->eof = false;
    in->skipping = false;
}

void mcp_rpc_in_free(struct mcp_rpc_in *in) {
    buf_free(&in->data);
}

/* Drops the line last returned. */
static void mcp_rpc_in_consume(struct mcp_rpc_in *in) {
    if (!in->taken) return;
    in->head += in->taken;
    in->taken = 0;
    in->clean = 0;
}

/* Moves the unconsumed bytes to the front of the buffer. */
static void mcp_rpc_in_compact(struct mcp_rpc_in *in) {
    if (!in->head) return;
    size_t n = in->data.len - in->head;
    if (n) memmove(in->data.data, in->data.data + in->head, n);
    buf_truncate(&in->data, n);
    in->head = 0;
}

/* Reads once into the room left under the cap. Returns the byte count, 0 at
 * the end of the input, or MCP_RPC_ERR_IO / MCP_RPC_ERR_NOMEM. */
static long mcp_rpc_in_read(struct mcp_rpc_in *in) {
    mcp_rpc_in_compact(in);
    size_t room = in->data.max - in->data.len;
    if (room > MCP_RPC_READ_CHUNK) room = MCP_RPC_READ_CHUNK;
    if (!room) { /* the callers keep room; never read(0), which looks like the end */
        errno = ENOBUFS;
        return MCP_RPC_ERR_IO;
    }
    size_t old = in->data.len;
    char *p = buf_grow(&in->data, room);
    if (!p) return MCP_RPC_ERR_NOMEM;
    ssize_t n;
    do n = read(in->fd, p, room);
    while (n < 0 && errno == EINTR);
    buf_truncate(&in->data, old + (n > 0 ? (size_t)n : 0));
    if (n < 0) return MCP_RPC_ERR_IO;
    if (n == 0) in->eof = true;
    return (long)n;
}

/* In skipping mode: drops bytes up to and including a newline, or all of
 * them when none has come yet. */
static void mcp_rpc_in_skip(struct mcp_rpc_in *in) {
    size_t avail = in->data.len - in->head;
    if (!avail) return;
    const char *start = in->data.data + in->head;
    const char *nl = memchr(start, '\n', avail);
    if (!nl) {
        in->head = in->data.len;
        return;
    }
    in->head += (size_t)(nl - start) + 1;
    in->skipping = false;
}

#define MCP_RPC_NEED_MORE 2

/* Looks for a complete line at head. Returns MCP_RPC_OK with the line,
 * MCP_RPC_ERR_LONG when the bytes at head already pass the cap, or NEED_MORE. */
static int mcp_rpc_in_find(struct mcp_rpc_in *in, const char **line, size_t *len) {
    size_t avail = in->data.len - in->head;
    if (!avail) return MCP_RPC_NEED_MORE; /* (and no pointer arithmetic on an empty buffer) */
    const char *start = in->data.data + in->head;
    const char *nl = avail > in->clean ? memchr(start + in->clean, '\n', avail - in->clean) : NULL;
    if (nl) {
        *line = start;
        *len = (size_t)(nl - start);
        in->taken = *len + 1;
        return MCP_RPC_OK;
    }
    in->clean = avail;
    if (avail > in->max_line) {
        in->skipping = true;
        in->head = in->data.len;
        in->clean = 0;
        return MCP_RPC_ERR_LONG;
    }
    if (in->eof && avail) { /* a last line without its newline */
        *line = start;
        *len = avail;
        in->taken = avail;
        return MCP_RPC_OK;
    }
    return MCP_RPC_NEED_MORE;
}

int mcp_rpc_in_next(struct mcp_rpc_in *in, const char **line, size_t *len) {
    mcp_rpc_in_consume(in);
    for (;;) {
        if (in->skipping) {
            mcp_rpc_in_skip(in);
            if (!in->skipping) continue;
        } else {
            int rc = mcp_rpc_in_find(in, line, len);
            if (rc != MCP_RPC_NEED_MORE) return rc;
        }
        if (in->eof) return MCP_RPC_EOF;
        long n = mcp_rpc_in_read(in);
        if (n < 0) return (int)n;
    }
}

int mcp_rpc_in_poll(struct mcp_rpc_in *in) {
    mcp_rpc_in_consume(in);
    while (!in->eof && !in->skipping && in->data.len - in->head < in->data.max) {
        struct pollfd p = {.fd = in->fd, .events = POLLIN};
        int r = poll(&p, 1, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return MCP_RPC_ERR_IO;
        if (r == 0) return MCP_RPC_OK;
        long n = mcp_rpc_in_read(in);
        if (n < 0) return (int)n;
        if (n == 0) return MCP_RPC_OK;
    }
    return MCP_RPC_OK;
}

bool mcp_rpc_in_peek(const struct mcp_rpc_in *in, size_t *cursor, const char **line, size_t *len) {
    if (in->skipping || !in->data.data) return false;
    size_t at = in->head + in->taken + *cursor;
    if (at >= in->data.len) return false;
    const char *start = in->data.data + at;
    const char *nl = memchr(start, '\n', in->data.len - at);
    if (!nl) return false;
    *line = start;
    *len = (size_t)(nl - start);
    *cursor += *len + 1;
    return true;
}

bool mcp_rpc_in_eof(const struct mcp_rpc_in *in) {
    return in->eof;
}

/* Length of the UTF-8 sequence at s (n bytes left), or 0 when it is not one
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t mcp_rpc_utf8_seq(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t k;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        k = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else
        return 0;
    if (n < k || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < k; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return k;
}

static bool mcp_rpc_utf8_valid(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    while (n) {
        size_t k = mcp_rpc_utf8_seq(p, n);
        if (!k) return false;
        p += k;
        n -= k;
    }
    return true;
}

static bool mcp_rpc_json_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* True when a string literal of line holds a NUL (the escape \u0000 or the
 * byte), which a C string would cut. */
static bool mcp_rpc_has_nul(const char *line, size_t len) {
    if (memchr(line, '\0', len)) return true;
    for (size_t i = 0; i + 6 <= len; i++)
        if (line[i] == '\\') {
            if (line[i + 1] == 'u' && memcmp(line + i + 2, "0000", 4) == 0) return true;
            i++; /* the escaped character is not a backslash */
        }
    return false;
}

/* A copy of line in which every NUL inside a string (the escape \u0000 or the
 * byte) is the overlong pair C0 80, so that the parsed string keeps what
 * follows and mcp_schema sees it; NULL when out of memory. Other text is
 * unchanged. */
static char *mcp_rpc_mark_nuls(const char *line, size_t len, size_t *out_len) {
    char *copy = malloc(len * 2 + 1), *o = copy;
    if (!copy) return NULL;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = line[i];
        if (in_string && c == '\\' && i + 5 < len && line[i + 1] == 'u' &&
            memcmp(line + i + 2, "0000", 4) == 0) {
            *o++ = (char)0xC0;
            *o++ = (char)0x80;
            i += 5;
        } else if (in_string && c == '\\' && i + 1 < len) {
            *o++ = c;
            *o++ = line[++i];
        } else if (c == '\0') {
            *o++ = (char)0xC0;
            *o++ = (char)0x80;
        } else {
            if (c == '"') in_string = !in_string;
            *o++ = c;
        }
    }
    *out_len = (size_t)(o - copy);
    return copy;
}

int mcp_rpc_parse(const char *line, size_t len, cJSON **out) {
    *out = NULL;
    size_t i = 0;
    while (i < len && mcp_rpc_json_space(line[i])) i++;
    if (i == len) return MCP_RPC_OK;
    if (!mcp_rpc_utf8_valid(line, len)) return MCP_RPC_ERR_PARSE;
    char *marked = NULL;
    if (mcp_rpc_has_nul(line, len)) {
        marked = mcp_rpc_mark_nuls(line, len, &len);
        if (!marked) return MCP_RPC_ERR_NOMEM;
        line = marked;
    }
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(line + i, len - i, &end, 0);
    int rc = v ? MCP_RPC_OK : MCP_RPC_ERR_PARSE;
    for (const char *p = end; v && p < line + len; p++) {
        if (!mcp_rpc_json_space(*p)) {
            cJSON_Delete(v);
            v = NULL;
            rc = MCP_RPC_ERR_PARSE;
        }
    }
    free(marked);
    *out = v;
    return rc;
}

bool mcp_rpc_id_ok(const cJSON *id) {
    if (cJSON_IsString(id)) return true;
    if (!cJSON_IsNumber(id)) return false;
    double d = id->valuedouble;
    return isfinite(d) && d == floor(d);
}

static int mcp_rpc_check_fail(const char **why, const char *text) {
    *why = text;
    return MCP_RPC_ERR_INVALID;
}

int mcp_rpc_check(const cJSON *obj, struct mcp_rpc_msg *msg, const char **why) {
    memset(msg, 0, sizeof *msg);
    *why = NULL;
    if (!cJSON_IsObject(obj)) return mcp_rpc_check_fail(why, "a message must be a JSON object");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(obj, "id");
    if (mcp_rpc_id_ok(id)) msg->id = id;
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(obj, "jsonrpc");
    if (!cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") != 0)
        return mcp_rpc_check_fail(why, "jsonrpc must be \"2.0\"");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(obj, "method");
    if (!method) {
        bool reply = cJSON_HasObjectItem(obj, "result") || cJSON_HasObjectItem(obj, "error");
        if (!reply || !id) return mcp_rpc_check_fail(why, "a request needs a method");
        msg->kind = MCP_RPC_RESPONSE;
        return MCP_RPC_OK;
    }
    if (!cJSON_IsString(method)) return mcp_rpc_check_fail(why, "method must be a string");
    if (id && !msg->id) return mcp_rpc_check_fail(why, "id must be a string or an integer");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(obj, "params");
    if (params && !cJSON_IsObject(params))
        return mcp_rpc_check_fail(why, "params must be an object");
    msg->kind = id ? MCP_RPC_REQUEST : MCP_RPC_NOTIFICATION;
    msg->method = method->valuestring;
    msg->params = params;
    return MCP_RPC_OK;
}

/* Turns every byte of text that starts no valid UTF-8 sequence into '?' (such
 * bytes are only ever inside strings: a quoted name holding a NUL mark, or
 * cut by a "%.128s"), so every line written is UTF-8. Returns its length. */
static size_t mcp_rpc_utf8_repair(char *text) {
    size_t n = strlen(text);
    for (size_t i = 0; i < n;) {
        size_t k = mcp_rpc_utf8_seq((const unsigned char *)text + i, n - i);
        if (!k) text[i] = '?';
        i += k ? k : 1;
    }
    return n;
}

int mcp_rpc_write(int fd, const cJSON *msg) {
    char *text = cJSON_PrintUnformatted(msg);
    if (!text) return MCP_RPC_ERR_NOMEM;
    char nl = '\n';
    struct iovec v[2] = {{text, mcp_rpc_utf8_repair(text)}, {&nl, 1}};
    int iv = 0, rc = MCP_RPC_OK;
    while (iv < 2) {
        ssize_t n = writev(fd, v + iv, 2 - iv);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            rc = MCP_RPC_ERR_IO;
            break;
        }
        while (iv < 2 && (size_t)n >= v[iv].iov_len) n -= (ssize_t)v[iv++].iov_len;
        if (iv < 2) {
            v[iv].iov_base = (char *)v[iv].iov_base + n;
            v[iv].iov_len -= (size_t)n;
        }
    }
    cJSON_free(text);
    return rc;
}

/* Writes or collects msg, then frees it. */
static int mcp_rpc_out_send(struct mcp_rpc_out *out, cJSON *msg, bool response) {
    if (response && out->batch) {
        cJSON_AddItemToArray(out->batch, msg);
        return MCP_RPC_OK;
    }
    int rc = mcp_rpc_write(out->fd, msg);
    cJSON_Delete(msg);
    return rc;
}

/* {"jsonrpc":"2.0"} plus a copy of id when given; NULL when out of memory. */
static cJSON *mcp_rpc_envelope(const cJSON *id) {
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddStringToObject(m, "jsonrpc", "2.0")) goto fail;
    if (id) {
        cJSON *copy = cJSON_Duplicate(id, 1);
        if (!copy) goto fail;
        cJSON_AddItemToObject(m, "id", copy);
    }
    return m;
fail:
    cJSON_Delete(m);
    return NULL;
}

int mcp_rpc_result(struct mcp_rpc_out *out, const cJSON *id, cJSON *result) {
    cJSON *m = result ? mcp_rpc_envelope(id) : NULL;
    if (!m) {
        cJSON_Delete(result);
        return MCP_RPC_ERR_NOMEM;
    }
    cJSON_AddItemToObject(m, "result", result);
    return mcp_rpc_out_send(out, m, true);
}

int mcp_rpc_error(struct mcp_rpc_out *out, const cJSON *id, int code, const char *message,
                  cJSON *data) {
    cJSON *m = mcp_rpc_envelope(id), *e = cJSON_CreateObject();
    if (!m || !e || !cJSON_AddNumberToObject(e, "code", code) ||
        !cJSON_AddStringToObject(e, "message", message)) {
        cJSON_Delete(m);
        cJSON_Delete(e);
        cJSON_Delete(data);
        return MCP_RPC_ERR_NOMEM;
    }
    if (data) cJSON_AddItemToObject(e, "data", data);
    cJSON_AddItemToObject(m, "error", e);
    return mcp_rpc_out_send(out, m, true);
}

int mcp_rpc_notify(struct mcp_rpc_out *out, const char *method, cJSON *params) {
    cJSON *m = mcp_rpc_envelope(NULL);
    if (!m || !cJSON_AddStringToObject(m, "method", method)) {
        cJSON_Delete(m);
        cJSON_Delete(params);
        return MCP_RPC_ERR_NOMEM;
    }
    if (params) cJSON_AddItemToObject(m, "params", params);
    return mcp_rpc_out_send(out, m, false);
}
