#include "rfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jscan.h"

/* The state of one file's parse. */
struct rctx {
    struct rfile *rf;
    struct diag *d;
    struct jscan s;
    struct buf tmp;    /* decoded strings */
    const char *field; /* the record field being read, for messages */
    size_t line;       /* journal: the line being read (0 in a document) */
    size_t capr;       /* records allocated */
};

int rfile_map(const char *path, struct rmap *m, struct diag *d) {
    struct stat st;
    int fd = open(path, O_RDONLY);
    m->data = NULL;
    m->len = 0;
    if (fd < 0 || fstat(fd, &st) < 0) goto fail;
    if (!S_ISREG(st.st_mode)) {
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        goto fail;
    }
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (p == MAP_FAILED) goto fail;
        m->data = p;
        m->len = (size_t)st.st_size;
    }
    close(fd);
    return 0;
fail:
    diag_error(d, "%s: cannot read: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
}

void rfile_unmap(struct rmap *m) {
    if (m->data) munmap(m->data, m->len);
    m->data = NULL;
    m->len = 0;
}

static int syntax_error(struct rctx *c) {
    size_t line, col;
    jscan_where(&c->s, &line, &col);
    const char *what = c->s.err ? c->s.err : "out of memory";
    if (c->line) line = c->line;
    if (c->field)
        return diag_error(c->d, "%s:%zu:%zu: record %zu, field %s: %s", c->rf->path, line, col,
                          c->rf->nrecs + 1, c->field, what);
    return diag_error(c->d, "%s:%zu:%zu: malformed JSON: %s", c->rf->path, line, col, what);
}

static int record_error(struct rctx *c, const char *msg) {
    if (c->line) return diag_error(c->d, "%s:%zu: record: %s", c->rf->path, c->line, msg);
    return diag_error(c->d, "%s: record %zu: %s", c->rf->path, c->rf->nrecs + 1, msg);
}

/* Decodes a string value into c->tmp (NUL-free, NUL-terminated). */
static int read_string(struct rctx *c) {
    struct jstr str;
    buf_reset(&c->tmp);
    if (jscan_string(&c->s, &str) < 0) return -1;
    if (jstr_decode(&str, &c->tmp) != BUF_OK) return jscan_fail(&c->s, "out of memory");
    if (strlen(buf_str(&c->tmp)) != c->tmp.len)
        return jscan_fail(&c->s, "a string holds a NUL character");
    return 0;
}

/* A string or null into the string table (*id 0 for null). */
static int read_id(struct rctx *c, uint32_t *id) {
    int n = jscan_null(&c->s);
    *id = 0;
    if (n || read_string(c) < 0) return n == 1 ? 0 : -1;
    if (strtab_intern(&c->rf->strs, c->tmp.data ? c->tmp.data : "", c->tmp.len, id) < 0)
        return jscan_fail(&c->s, "out of memory");
    return 0;
}

/* A string or null into the text arena (*off 0 for null). */
static int read_text(struct rctx *c, uint32_t *off) {
    int n = jscan_null(&c->s);
    *off = 0;
    if (n || read_string(c) < 0) return n == 1 ? 0 : -1;
    if (c->rf->texts.len >= UINT32_MAX - c->tmp.len - 2) return jscan_fail(&c->s, "too much text");
    *off = (uint32_t)c->rf->texts.len + 1;
    if (buf_add(&c->rf->texts, buf_str(&c->tmp), c->tmp.len + 1) != BUF_OK)
        return jscan_fail(&c->s, "out of memory");
    return 0;
}

static int read_int(struct rctx *c, int64_t *v) {
    int n = jscan_null(&c->s);
    *v = RFILE_NONE;
    return n ? (n == 1 ? 0 : -1) : jscan_int(&c->s, v);
}

static int read_int32(struct rctx *c, int32_t *v) {
    int64_t x;
    if (read_int(c, &x) < 0) return -1;
    if (x < RFILE_NONE || x > INT32_MAX) return jscan_fail(&c->s, "integer out of range");
    *v = (int32_t)x;
    return 0;
}

static int read_time(struct rctx *c, int64_t *v) {
    if (jscan_int(&c->s, v) < 0) return -1;
    return *v < 0 ? jscan_fail(&c->s, "time out of range") : 0;
}

static int keep_errmsg(struct rctx *c, uint32_t id) {
    struct rfile *rf = c->rf;
    if (id > rf->nerrmsg) {
        char **m = realloc(rf->errmsg, id * sizeof *m);
        if (!m) return jscan_fail(&c->s, "out of memory");
        for (size_t i = rf->nerrmsg; i < id; i++) m[i] = NULL;
        rf->errmsg = m;
        rf->nerrmsg = id;
    }
    if (!rf->errmsg[id - 1] && !(rf->errmsg[id - 1] = strdup(buf_str(&c->tmp))))
        return jscan_fail(&c->s, "out of memory");
    return 0;
}

/* error: null, {"code": ..., "message": ...}, or (tolerated) a bare string code. */
static int read_error(struct rctx *c, uint32_t *id) {
    *id = 0;
    if (jscan_peek(&c->s) != '{') return read_id(c, id);
    struct jstr key, msg;
    size_t count = 0;
    int more;
    bool have_msg = false;
    if (jscan_object(&c->s) < 0) return -1;
    while ((more = jscan_member(&c->s, &count, &key)) > 0) {
        int rc;
        if (jstr_is(&key, "code") && jscan_peek(&c->s) != '{')
            rc = read_id(c, id);
        else if (jstr_is(&key, "message") && jscan_peek(&c->s) == '"') {
            rc = jscan_string(&c->s, &msg);
            have_msg = rc == 0;
        } else
            rc = jscan_skip(&c->s);
        if (rc < 0) return -1;
    }
    if (more < 0 || !have_msg) return more;
    if (!*id && strtab_intern(&c->rf->strs, "error", 5, id) < 0)
        return jscan_fail(&c->s, "out of memory");
    if (rfile_errmsg(c->rf, *id)) return 0;
    buf_reset(&c->tmp);
    if (jstr_decode(&msg, &c->tmp) != BUF_OK) return jscan_fail(&c->s, "out of memory");
    return keep_errmsg(c, *id);
}

static int read_correct(struct rctx *c, int8_t *v) {
    int n = jscan_null(&c->s);
    bool b = false;
    *v = -1;
    if (n || jscan_bool(&c->s, &b) < 0) return n == 1 ? 0 : -1;
    *v = b;
    return 0;
}

enum { HAVE_PHASE = 1, HAVE_OK = 2, HAVE_START = 4, HAVE_END = 8 };

/* Reads the value of one record member; returns the HAVE_* bit it sets, or -1. */
static int record_member(struct rctx *c, const struct jstr *k, struct rec *r) {
    c->field = NULL;
#define IS(name)                                                                                   \
    (k->n == sizeof(name) - 1 && memcmp(k->s, (name), k->n) == 0 && (c->field = (name)))
    if (k->escaped) return jscan_skip(&c->s);
    switch (k->n) {
    case 2:
        if (IS("ok")) return jscan_bool(&c->s, &r->ok) < 0 ? -1 : HAVE_OK;
        break;
    case 3:
        if (IS("seq")) return read_int(c, &r->seq);
        break;
    case 4:
        if (IS("kind")) return read_id(c, &r->kind);
        if (IS("text")) return read_text(c, &r->text);
        break;
    case 5:
        if (IS("phase")) {
            if (jscan_peek(&c->s) != '"') return jscan_fail(&c->s, "expected a string");
            return read_id(c, &r->phase) < 0 ? -1 : HAVE_PHASE;
        }
        if (IS("batch")) return read_int(c, &r->batch);
        if (IS("error")) return read_error(c, &r->error);
        break;
    case 6:
        if (IS("status")) return read_int32(c, &r->status);
        if (IS("answer")) return read_text(c, &r->answer);
        break;
    case 7:
        if (IS("correct")) return read_correct(c, &r->correct);
        break;
    case 8:
        if (IS("question")) return read_id(c, &r->question);
        if (IS("t_end_us")) return read_time(c, &r->t_end_us) < 0 ? -1 : HAVE_END;
        break;
    case 10:
        if (IS("max_tokens")) return read_int32(c, &r->max_tokens);
        if (IS("t_start_us")) return read_time(c, &r->t_start_us) < 0 ? -1 : HAVE_START;
        break;
    case 17:
        if (IS("completion_tokens")) return read_int32(c, &r->completion_tokens);
        break;
    }
#undef IS
    return jscan_skip(&c->s);
}

static int add_record(struct rctx *c, const struct rec *r) {
    struct rfile *rf = c->rf;
    if (rf->nrecs == c->capr) {
        size_t cap = c->capr ? c->capr * 2 : 1024;
        struct rec *p = realloc(rf->recs, cap * sizeof *p);
        if (!p) return diag_error(c->d, "out of memory");
        rf->recs = p;
        c->capr = cap;
    }
    rf->recs[rf->nrecs++] = *r;
    return 0;
}

/* Reads one record object at the scanner's position. */
static int read_record(struct rctx *c) {
    struct rec r = {.seq = RFILE_NONE,
                    .batch = RFILE_NONE,
                    .max_tokens = RFILE_NONE,
                    .completion_tokens = RFILE_NONE,
                    .correct = -1};
    struct jstr key;
    size_t count = 0;
    int more, have = 0;
    if (jscan_peek(&c->s) != '{') return record_error(c, "not an object");
    if (jscan_object(&c->s) < 0) return syntax_error(c);
    while ((more = jscan_member(&c->s, &count, &key)) > 0) {
        int bit = record_member(c, &key, &r);
        if (bit < 0) return syntax_error(c);
        have |= bit;
    }
    c->field = NULL;
    if (more < 0) return syntax_error(c);
    static const struct {
        int bit;
        const char *msg;
    } need[] = {{HAVE_PHASE, "phase is missing"},
                {HAVE_OK, "ok is missing"},
                {HAVE_START, "t_start_us is missing"},
                {HAVE_END, "t_end_us is missing"}};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!(have & need[i].bit)) return record_error(c, need[i].msg);
    if (r.t_end_us < r.t_start_us) return record_error(c, "t_end_us is before t_start_us");
    return add_record(c, &r);
}

static int read_records(struct rctx *c) {
    size_t count = 0;
    int more;
    c->rf->has_records = true;
    if (jscan_array(&c->s) < 0) return diag_error(c->d, "%s: records is not an array", c->rf->path);
    while ((more = jscan_item(&c->s, &count)) > 0)
        if (read_record(c) < 0) return -1;
    return more < 0 ? syntax_error(c) : 0;
}

/* cJSON refuses one thing the scanner lets through (jstr_decode makes it
 * U+FFFD): half of a UTF-16 surrogate pair. Reports it at the value at at. */
static int surrogate_error(struct rctx *c, const char *at) {
    c->s.p = at;
    jscan_fail(&c->s, "a \\u escape is half of a UTF-16 surrogate pair");
    return syntax_error(c);
}

/* Parses the value at the scanner into head[key] with cJSON. */
static int read_head_member(struct rctx *c, const struct jstr *key) {
    buf_reset(&c->tmp);
    if (jstr_decode(key, &c->tmp) != BUF_OK) return diag_error(c->d, "out of memory");
    jscan_peek(&c->s);
    const char *from = c->s.p;
    if (jscan_skip(&c->s) < 0) return syntax_error(c);
    cJSON *v = cJSON_ParseWithLength(from, (size_t)(c->s.p - from));
    if (!v) return surrogate_error(c, from);
    cJSON_DeleteItemFromObjectCaseSensitive(c->rf->head, buf_str(&c->tmp));
    cJSON_AddItemToObject(c->rf->head, buf_str(&c->tmp), v);
    return 0;
}

static int read_document(struct rctx *c, const char *data, size_t len) {
    struct jstr key;
    size_t count = 0;
    int more;
    jscan_init(&c->s, data, len);
    if (jscan_peek(&c->s) != '{') {
        if (jscan_peek(&c->s) == 0) return diag_error(c->d, "%s: empty file", c->rf->path);
        if (jscan_peek(&c->s) == '[' || jscan_skip(&c->s) == 0)
            return diag_error(c->d, "%s: not a JSON object at the top level", c->rf->path);
        return syntax_error(c);
    }
    if (jscan_object(&c->s) < 0) return syntax_error(c);
    while ((more = jscan_member(&c->s, &count, &key)) > 0) {
        int rc = jstr_is(&key, "records") && jscan_peek(&c->s) == '[' ? read_records(c)
                                                                      : read_head_member(c, &key);
        if (rc < 0) return -1;
    }
    if (more < 0) return syntax_error(c);
    if (jscan_peek(&c->s) != 0) {
        jscan_fail(&c->s, "data after the end of the document");
        return syntax_error(c);
    }
    return 0;
}

static int read_journal_head(struct rctx *c, const char *line, size_t n) {
    jscan_init(&c->s, line, n);
    if (jscan_peek(&c->s) != '{' || jscan_skip(&c->s) < 0 || jscan_peek(&c->s) != 0)
        return diag_error(c->d, "%s:1: the journal's first line is not a JSON object", c->rf->path);
    cJSON_Delete(c->rf->head);
    c->rf->head = cJSON_ParseWithLength(line, n);
    return c->rf->head ? 0 : surrogate_error(c, line);
}

/* One record line; a last line without its newline that does not parse is cut. */
static int read_journal_line(struct rctx *c, const char *line, size_t n, bool last_unterminated) {
    struct diag scratch;
    struct diag *keep = c->d;
    diag_init(&scratch);
    if (last_unterminated) c->d = &scratch;
    jscan_init(&c->s, line, n);
    int rc = read_record(c);
    if (rc == 0 && jscan_peek(&c->s) != 0) {
        jscan_fail(&c->s, "data after the record");
        rc = syntax_error(c);
    }
    c->d = keep;
    if (rc < 0 && last_unterminated) {
        c->rf->cut_tail = true;
        rc = 0;
    }
    diag_free(&scratch);
    return rc;
}

static int read_journal(struct rctx *c, const char *data, size_t len) {
    while (len > 0 && data[len - 1] == '\0') len--; /* the space a killed run had reserved */
    const char *p = data, *end = data + len;
    for (c->line = 1; p < end; c->line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *q = p;
        while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
        if (q < eol) {
            int rc = c->line == 1 ? read_journal_head(c, p, (size_t)(eol - p))
                                  : read_journal_line(c, p, (size_t)(eol - p), nl == NULL);
            if (rc < 0) return -1;
        } else if (c->line == 1) {
            return diag_error(c->d, "%s:1: the journal's first line is empty", c->rf->path);
        }
        p = eol + 1;
    }
    if (!c->rf->head) return diag_error(c->d, "%s: empty file", c->rf->path);
    return 0;
}

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

int rfile_read(const char *path, struct rfile **out, struct diag *d) {
    struct rctx c = {.d = d};
    struct rmap map = {0};
    buf_init(&c.tmp, BUF_NO_CAP);
    struct rfile *rf = calloc(1, sizeof *rf);
    if (!rf || !(rf->path = strdup(path)) || !(rf->head = cJSON_CreateObject())) {
        diag_error(d, "out of memory");
        goto fail;
    }
    strtab_init(&rf->strs);
    buf_init(&rf->texts, BUF_NO_CAP);
    c.rf = rf;
    if (rfile_map(path, &map, d) < 0) goto fail;
    rf->journal = ends_with(path, ".jsonl");
    const char *data = map.data ? map.data : ""; /* an empty file has no mapping */
    if ((rf->journal ? read_journal(&c, data, map.len) : read_document(&c, data, map.len)) < 0)
        goto fail;
    rfile_unmap(&map);
    buf_free(&c.tmp);
    *out = rf;
    return 0;
fail:
    rfile_unmap(&map);
    buf_free(&c.tmp);
    rfile_free(rf);
    return -1;
}

void rfile_free(struct rfile *rf) {
    if (!rf) return;
    for (size_t i = 0; i < rf->nerrmsg; i++) free(rf->errmsg[i]);
    free(rf->errmsg);
    free(rf->path);
    cJSON_Delete(rf->head);
    free(rf->recs);
    strtab_free(&rf->strs);
    buf_free(&rf->texts);
    free(rf);
}

const char *rfile_text(const struct rfile *rf, uint32_t off) {
    return off && off <= rf->texts.len ? rf->texts.data + off - 1 : NULL;
}

const char *rfile_str(const struct rfile *rf, uint32_t id) {
    return strtab_get(&rf->strs, id);
}

const char *rfile_errmsg(const struct rfile *rf, uint32_t id) {
    return id && id <= rf->nerrmsg ? rf->errmsg[id - 1] : NULL;
}
