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
#include "rfield.h"
#include "rfmt.h"

#define RFILE_MAX_BYTES ((off_t)1 << 36) /* 64 GiB: a larger file is refused */

/* The state of one file's parse. */
struct rfile_ctx {
    struct rfile *rf;
    struct buf *err;
    struct jscan s;
    struct buf tmp;    /* decoded strings */
    const char *field; /* the record field being read, for messages */
    size_t line;       /* journal: the line being read (0 in a document) */
    size_t capr;       /* records allocated */
    size_t capg, capt; /* gaps and chunk tokens allocated */
    size_t rec_ngaps;  /* the record's chunk_gaps_us entries */
    size_t rec_nctoks; /* the record's chunk_tokens entries */
};

/* Why a file that opened is not one to map, or NULL. */
static const char *rfile_not_regular(const struct stat *st) {
    if (S_ISREG(st->st_mode)) return st->st_size > RFILE_MAX_BYTES ? "larger than 64 GiB" : NULL;
    if (S_ISDIR(st->st_mode)) return "a directory, not a file";
    if (S_ISFIFO(st->st_mode)) return "a FIFO (named pipe), not a regular file";
    if (S_ISSOCK(st->st_mode)) return "a socket, not a regular file";
    return "a device, not a regular file";
}

int rfile_map_open(const char *path, struct rfile_map *m, struct buf *err) {
    struct stat st;
    const char *why = NULL;
    m->data = NULL;
    m->len = 0;
    /* O_NONBLOCK: opening a FIFO does not wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        why = strerror(errno);
    } else if (!(why = rfile_not_regular(&st)) && st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (p == MAP_FAILED) {
            why = strerror(errno);
        } else {
            m->data = p;
            m->len = (size_t)st.st_size;
        }
    }
    if (fd >= 0) close(fd);
    if (why) return buf_fail(err, RFILE_ERR_READ, "%s: cannot read: %s", path, why);
    return RFILE_OK;
}

void rfile_map_close(struct rfile_map *m) {
    if (m->data) munmap(m->data, m->len);
    m->data = NULL;
    m->len = 0;
}

static int rfile_nomem(struct rfile_ctx *c) {
    return buf_fail(c->err, RFILE_ERR_NOMEM, "out of memory");
}

static int rfile_syntax_error(struct rfile_ctx *c) {
    size_t line, col;
    if (!c->s.err) return rfile_nomem(c);
    jscan_where(&c->s, &line, &col);
    if (c->line) line = c->line;
    if (c->field)
        return buf_fail(c->err, RFILE_ERR_INPUT, "%s:%zu:%zu: record %zu, field %s: %s",
                        c->rf->path, line, col, c->rf->nrecs + 1, c->field, c->s.err);
    return buf_fail(c->err, RFILE_ERR_INPUT, "%s:%zu:%zu: malformed JSON: %s", c->rf->path, line,
                    col, c->s.err);
}

static int rfile_record_error(struct rfile_ctx *c, const char *msg) {
    if (c->line)
        return buf_fail(c->err, RFILE_ERR_INPUT, "%s:%zu: record: %s", c->rf->path, c->line, msg);
    return buf_fail(c->err, RFILE_ERR_INPUT, "%s: record %zu: %s", c->rf->path, c->rf->nrecs + 1,
                    msg);
}

/* Decodes a string value into c->tmp (NUL-free, NUL-terminated). */
static int rfile_string(struct rfile_ctx *c) {
    struct jscan_str str;
    buf_reset(&c->tmp);
    if (jscan_string(&c->s, &str) < 0) return -1;
    if (jscan_str_decode(&str, &c->tmp) != BUF_OK) return jscan_fail(&c->s, "out of memory");
    if (strlen(buf_str(&c->tmp)) != c->tmp.len)
        return jscan_fail(&c->s, "a string holds a NUL character");
    return 0;
}

/* A string or null into the string table (*id 0 for null). */
static int rfile_id(struct rfile_ctx *c, uint32_t *id) {
    int n = jscan_null(&c->s);
    *id = 0;
    if (n || rfile_string(c) < 0) return n == 1 ? 0 : -1;
    if (strtab_intern(&c->rf->strs, c->tmp.data ? c->tmp.data : "", c->tmp.len, id) < 0)
        return jscan_fail(&c->s, "out of memory");
    return 0;
}

/* A string or null into the text arena (*off 0 for null). */
static int rfile_text_value(struct rfile_ctx *c, uint32_t *off) {
    int n = jscan_null(&c->s);
    *off = 0;
    if (n || rfile_string(c) < 0) return n == 1 ? 0 : -1;
    if (c->rf->texts.len >= UINT32_MAX - c->tmp.len - 2) return jscan_fail(&c->s, "too much text");
    *off = (uint32_t)c->rf->texts.len + 1;
    if (buf_add(&c->rf->texts, buf_str(&c->tmp), c->tmp.len + 1) != BUF_OK)
        return jscan_fail(&c->s, "out of memory");
    return 0;
}

static int rfile_int(struct rfile_ctx *c, int64_t *v) {
    int n = jscan_null(&c->s);
    *v = RFILE_NONE;
    return n ? (n == 1 ? 0 : -1) : jscan_int(&c->s, v);
}

static int rfile_int32(struct rfile_ctx *c, int32_t *v) {
    int64_t x;
    if (rfile_int(c, &x) < 0) return -1;
    if (x < RFILE_NONE || x > INT32_MAX) return jscan_fail(&c->s, "integer out of range");
    *v = (int32_t)x;
    return 0;
}

static int rfile_time(struct rfile_ctx *c, int64_t *v) {
    if (jscan_int(&c->s, v) < 0) return -1;
    return *v < 0 ? jscan_fail(&c->s, "time out of range") : 0;
}

/* The emulator's service time: a whole number of model microseconds in range. */
static int rfile_server_us(struct rfile_ctx *c, int64_t *v) {
    if (jscan_int(&c->s, v) < 0) return -1;
    return *v < 0 || *v > RFIELD_SERVER_US_MAX ? jscan_fail(&c->s, "server_us out of range") : 0;
}

static int rfile_keep_errmsg(struct rfile_ctx *c, uint32_t id) {
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
static int rfile_error_value(struct rfile_ctx *c, uint32_t *id) {
    *id = 0;
    if (jscan_peek(&c->s) != '{') return rfile_id(c, id);
    struct jscan_str key, msg;
    size_t count = 0;
    int more;
    bool have_msg = false;
    if (jscan_object(&c->s) < 0) return -1;
    while ((more = jscan_member(&c->s, &count, &key)) > 0) {
        int rc;
        if (jscan_str_is(&key, RFIELD_ERROR_CODE) && jscan_peek(&c->s) != '{')
            rc = rfile_id(c, id);
        else if (jscan_str_is(&key, RFIELD_ERROR_MESSAGE) && jscan_peek(&c->s) == '"') {
            rc = jscan_string(&c->s, &msg);
            have_msg = rc == 0;
        } else
            rc = jscan_skip(&c->s);
        if (rc < 0) return -1;
    }
    if (more < 0 || !have_msg) return more;
    if (!*id && strtab_intern(&c->rf->strs, RFIELD_ERROR, sizeof RFIELD_ERROR - 1, id) < 0)
        return jscan_fail(&c->s, "out of memory");
    if (rfile_errmsg(c->rf, *id)) return 0;
    buf_reset(&c->tmp);
    if (jscan_str_decode(&msg, &c->tmp) != BUF_OK) return jscan_fail(&c->s, "out of memory");
    return rfile_keep_errmsg(c, *id);
}

/* Room for one more element of size size in *arr (of *cap); 0 or -1. */
static int rfile_room(void **arr, size_t *cap, size_t n, size_t size) {
    if (n < *cap) return 0;
    size_t want = *cap ? *cap * 2 : 4096;
    void *p = want < SIZE_MAX / size ? realloc(*arr, want * size) : NULL;
    if (!p) return -1;
    *arr = p;
    *cap = want;
    return 0;
}

/* An integer array whose elements are checked by bad(v) (why not, or NULL) and kept by keep. */
static int rfile_ints(struct rfile_ctx *c, const char *(*bad)(int64_t),
                      int (*keep)(struct rfile_ctx *, int64_t)) {
    size_t count = 0;
    int more;
    int64_t v;
    if (jscan_array(&c->s) < 0) return -1;
    while ((more = jscan_item(&c->s, &count)) > 0) {
        if (jscan_int(&c->s, &v) < 0) return -1;
        if (bad(v)) return jscan_fail(&c->s, bad(v));
        if (keep(c, v) < 0) return jscan_fail(&c->s, "out of memory");
    }
    return more;
}

static const char *rfile_gap_bad(int64_t v) {
    return v < 0 ? "a gap is negative" : v > RFILE_MAX_GAP ? "a gap is over 71 minutes" : NULL;
}

static const char *rfile_ctok_bad(int64_t v) {
    return v < 1 || v > UINT16_MAX ? "a chunk's tokens are not 1 to 65535" : NULL;
}

static int rfile_keep_gap(struct rfile_ctx *c, int64_t v) {
    struct rfile *rf = c->rf;
    if (rfile_room((void **)&rf->gaps, &c->capg, rf->ngaps, sizeof *rf->gaps) < 0) return -1;
    rf->gaps[rf->ngaps++] = (uint32_t)v;
    c->rec_ngaps++;
    return 0;
}

static int rfile_keep_ctok(struct rfile_ctx *c, int64_t v) {
    struct rfile *rf = c->rf;
    if (rfile_room((void **)&rf->ctoks, &c->capt, rf->nctoks, sizeof *rf->ctoks) < 0) return -1;
    rf->ctoks[rf->nctoks++] = (uint16_t)v;
    c->rec_nctoks++;
    return 0;
}

/* chunk_gaps_us: whole microseconds, 0 to RFILE_MAX_GAP. */
static int rfile_gaps(struct rfile_ctx *c, struct rfile_rec *r) {
    r->gaps = c->rf->ngaps;
    c->rec_ngaps = 0;
    return rfile_ints(c, rfile_gap_bad, rfile_keep_gap);
}

/* chunk_tokens: each chunk's tokens, 1 to 65535. */
static int rfile_ctoks(struct rfile_ctx *c, struct rfile_rec *r) {
    r->ctoks = c->rf->nctoks;
    c->rec_nctoks = 0;
    return rfile_ints(c, rfile_ctok_bad, rfile_keep_ctok);
}

/* A time or null (RFILE_NONE). */
static int rfile_time_or_null(struct rfile_ctx *c, int64_t *v) {
    int n = jscan_null(&c->s);
    *v = RFILE_NONE;
    return n ? (n == 1 ? 0 : -1) : rfile_time(c, v);
}

static int rfile_correct(struct rfile_ctx *c, int8_t *v) {
    int n = jscan_null(&c->s);
    bool b = false;
    *v = -1;
    if (n || jscan_bool(&c->s, &b) < 0) return n == 1 ? 0 : -1;
    *v = b;
    return 0;
}

enum {
    RFILE_HAVE_PHASE = 1,
    RFILE_HAVE_OK = 2,
    RFILE_HAVE_START = 4,
    RFILE_HAVE_END = 8,
    RFILE_HAVE_FIRST = 16, /* the streamed record's fields */
    RFILE_HAVE_CHUNKS = 32,
    RFILE_HAVE_GAPS = 64,
    RFILE_HAVE_CTOKS = 128,
    RFILE_HAVE_HEADERS = 256,
    RFILE_HAVE_STREAM = 496, /* any of them */
    RFILE_HAVE_OUTPUT = 512, /* t_first_output_us (a thinking model's record) */
};

/* The value of a member that sets a bit: bit, or -1 when it failed. */
static int rfile_bit(int rc, int bit) {
    return rc < 0 ? -1 : bit;
}

/* itl_unit: "token" or "chunk". */
static int rfile_itl_unit(struct rfile_ctx *c, int8_t *out) {
    struct jscan_str s;
    if (jscan_peek(&c->s) != '"' || jscan_string(&c->s, &s) < 0)
        return jscan_fail(&c->s, "itl_unit is not \"token\" or \"chunk\"");
    if (s.n == sizeof RFIELD_ITL_TOKEN - 1 && !s.escaped && memcmp(s.s, RFIELD_ITL_TOKEN, s.n) == 0)
        *out = RFILE_ITL_TOKEN;
    else if (s.n == sizeof RFIELD_ITL_CHUNK - 1 && !s.escaped &&
             memcmp(s.s, RFIELD_ITL_CHUNK, s.n) == 0)
        *out = RFILE_ITL_CHUNK;
    else
        return jscan_fail(&c->s, "itl_unit is not \"token\" or \"chunk\"");
    return 0;
}

/* Reads the value of one record member; returns the RFILE_HAVE_* bit it sets, or -1. */
static int rfile_member(struct rfile_ctx *c, const struct jscan_str *k, struct rfile_rec *r) {
    c->field = NULL;
#define RFILE_IS(name)                                                                             \
    (k->n == sizeof(name) - 1 && memcmp(k->s, (name), k->n) == 0 && (c->field = (name)))
    if (k->escaped) return jscan_skip(&c->s);
    switch (k->n) {
    case 2:
        if (RFILE_IS(RFIELD_OK)) return jscan_bool(&c->s, &r->ok) < 0 ? -1 : RFILE_HAVE_OK;
        break;
    case 3:
        if (RFILE_IS(RFIELD_SEQ)) return rfile_int(c, &r->seq);
        break;
    case 4:
        if (RFILE_IS(RFIELD_KIND)) return rfile_id(c, &r->kind);
        if (RFILE_IS(RFIELD_TEXT)) return rfile_text_value(c, &r->text);
        break;
    case 5:
        if (RFILE_IS(RFIELD_PHASE)) {
            if (jscan_peek(&c->s) != '"') return jscan_fail(&c->s, "expected a string");
            return rfile_id(c, &r->phase) < 0 ? -1 : RFILE_HAVE_PHASE;
        }
        if (RFILE_IS(RFIELD_BATCH)) return rfile_int(c, &r->batch);
        if (RFILE_IS(RFIELD_ERROR)) return rfile_error_value(c, &r->error);
        break;
    case 6:
        if (RFILE_IS(RFIELD_STATUS)) return rfile_int32(c, &r->status);
        if (RFILE_IS(RFIELD_ANSWER)) return rfile_text_value(c, &r->answer);
        if (RFILE_IS(RFIELD_TLS_US)) return rfile_time(c, &r->tls_us);
        if (RFILE_IS(RFIELD_CHUNKS))
            return rfile_bit(rfile_int32(c, &r->chunks), RFILE_HAVE_CHUNKS);
        break;
    case 7:
        if (RFILE_IS(RFIELD_CORRECT)) return rfile_correct(c, &r->correct);
        break;
    case 8:
        if (RFILE_IS(RFIELD_QUESTION)) return rfile_id(c, &r->question);
        if (RFILE_IS(RFIELD_ITL_UNIT)) return rfile_itl_unit(c, &r->itl_unit);
        if (RFILE_IS(RFIELD_T_END_US)) return rfile_time(c, &r->t_end_us) < 0 ? -1 : RFILE_HAVE_END;
        break;
    case 9:
        if (RFILE_IS(RFIELD_SERVER_US)) return rfile_server_us(c, &r->server_us);
        break;
    case 10:
        if (RFILE_IS(RFIELD_MAX_TOKENS)) return rfile_int32(c, &r->max_tokens);
        if (RFILE_IS(RFIELD_CONNECT_US)) return rfile_time(c, &r->connect_us);
        if (RFILE_IS(RFIELD_T_START_US))
            return rfile_time(c, &r->t_start_us) < 0 ? -1 : RFILE_HAVE_START;
        break;
    case 12:
        if (RFILE_IS(RFIELD_T_HEADERS_US))
            return rfile_bit(rfile_time(c, &r->t_headers_us), RFILE_HAVE_HEADERS);
        if (RFILE_IS(RFIELD_CHUNK_TOKENS)) return rfile_bit(rfile_ctoks(c, r), RFILE_HAVE_CTOKS);
        break;
    case 13:
        if (RFILE_IS(RFIELD_WALL_START_US)) return rfile_int(c, &r->wall_start_us);
        if (RFILE_IS(RFIELD_PROMPT_TOKENS)) return rfile_int32(c, &r->prompt_tokens);
        if (RFILE_IS(RFIELD_CACHED_TOKENS)) return rfile_int32(c, &r->cached_tokens);
        if (RFILE_IS(RFIELD_CHUNK_GAPS_US)) return rfile_bit(rfile_gaps(c, r), RFILE_HAVE_GAPS);
        if (RFILE_IS(RFIELD_T_INTENDED_US)) return rfile_time_or_null(c, &r->t_intended_us);
        break;
    case 16:
        if (RFILE_IS(RFIELD_T_FIRST_TOKEN_US))
            return rfile_bit(rfile_time_or_null(c, &r->t_first_us), RFILE_HAVE_FIRST);
        if (RFILE_IS(RFIELD_REASONING_TOKENS)) return rfile_int32(c, &r->reasoning_tokens);
        break;
    case 17:
        if (RFILE_IS(RFIELD_COMPLETION_TOKENS)) return rfile_int32(c, &r->completion_tokens);
        if (RFILE_IS(RFIELD_T_FIRST_OUTPUT_US))
            return rfile_bit(rfile_time_or_null(c, &r->t_first_output_us), RFILE_HAVE_OUTPUT);
        break;
    }
#undef RFILE_IS
    return jscan_skip(&c->s);
}

static int rfile_add_record(struct rfile_ctx *c, const struct rfile_rec *r) {
    struct rfile *rf = c->rf;
    if (rf->nrecs == c->capr) {
        size_t cap = c->capr ? c->capr * 2 : 1024;
        struct rfile_rec *p = realloc(rf->recs, cap * sizeof *p);
        if (!p) return rfile_nomem(c);
        rf->recs = p;
        c->capr = cap;
    }
    rf->recs[rf->nrecs++] = *r;
    return 0;
}

/* The first required member a record lacks, or NULL. */
static const char *rfile_missing(int have) {
    static const struct {
        int bit;
        const char *msg;
    } need[] = {{RFILE_HAVE_PHASE, "phase is missing"},
                {RFILE_HAVE_OK, "ok is missing"},
                {RFILE_HAVE_START, "t_start_us is missing"},
                {RFILE_HAVE_END, "t_end_us is missing"}};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!(have & need[i].bit)) return need[i].msg;
    return NULL;
}

/* The first inconsistency among a streamed record's fields, into out; false when none. */
static bool rfile_stream_bad(const struct rfile_ctx *c, const struct rfile_rec *r, int have,
                             char *out, size_t cap) {
    const uint32_t *g = c->rec_ngaps ? c->rf->gaps + r->gaps : NULL;
    const char *missing = !(have & RFILE_HAVE_FIRST)    ? RFIELD_T_FIRST_TOKEN_US
                          : !(have & RFILE_HAVE_CHUNKS) ? RFIELD_CHUNKS
                          : !(have & RFILE_HAVE_GAPS)   ? RFIELD_CHUNK_GAPS_US
                                                        : NULL;
    uint64_t sum = 0;
    for (size_t i = 0; !missing && i < c->rec_ngaps; i++) sum += g[i];
    if (missing)
        snprintf(out, cap,
                 "%s is missing (a streamed record has t_first_token_us, chunks and "
                 "chunk_gaps_us)",
                 missing);
    else if (r->chunks < 0)
        snprintf(out, cap, "chunks is not a count of chunks");
    else if (c->rec_ngaps != (size_t)(r->chunks ? r->chunks - 1 : 0))
        snprintf(out, cap, "chunk_gaps_us: %zu gaps for %d chunks (chunks - 1 expected)",
                 c->rec_ngaps, (int)r->chunks);
    else if ((have & RFILE_HAVE_CTOKS) && c->rec_nctoks != (size_t)r->chunks)
        snprintf(out, cap, "chunk_tokens: %zu counts for %d chunks (one a chunk expected)",
                 c->rec_nctoks, (int)r->chunks);
    else if ((r->t_first_us == RFILE_NONE) != (r->chunks == 0))
        snprintf(out, cap, "t_first_token_us is %s but chunks is %d",
                 r->t_first_us == RFILE_NONE ? "null" : "set", (int)r->chunks);
    else if (r->t_first_us != RFILE_NONE &&
             (r->t_first_us < r->t_start_us || r->t_first_us > r->t_end_us))
        snprintf(out, cap, "t_first_token_us is %s",
                 r->t_first_us < r->t_start_us ? "before t_start_us" : "after t_end_us");
    else if (r->t_first_output_us != RFILE_NONE &&
             (r->t_first_us == RFILE_NONE || r->t_first_output_us < r->t_first_us ||
              r->t_first_output_us > r->t_end_us))
        snprintf(out, cap, RFIELD_T_FIRST_OUTPUT_US " is %s",
                 r->t_first_us == RFILE_NONE            ? "set but t_first_token_us is null"
                 : r->t_first_output_us < r->t_first_us ? "before t_first_token_us"
                                                        : "after t_end_us");
    else if (r->reasoning_tokens < 0 ||
             (r->reasoning_tokens > 0 && r->completion_tokens != RFILE_NONE &&
              r->reasoning_tokens > r->completion_tokens))
        snprintf(out, cap, RFIELD_REASONING_TOKENS " is %s",
                 r->reasoning_tokens < 0 ? "negative" : "more than completion_tokens");
    else if (r->t_headers_us != RFILE_NONE &&
             (r->t_headers_us < r->t_start_us || r->t_headers_us > r->t_end_us))
        snprintf(out, cap, "t_headers_us is %s",
                 r->t_headers_us < r->t_start_us ? "before t_start_us" : "after t_end_us");
    else if (r->chunks > 1 && sum > (uint64_t)(r->t_end_us - r->t_first_us))
        snprintf(out, cap,
                 "chunk_gaps_us add up to %llu, past t_end_us (%lld after the first "
                 "token)",
                 (unsigned long long)sum, (long long)(r->t_end_us - r->t_first_us));
    else
        return false;
    return true;
}

/* Reads one record object at the scanner's position. */
static int rfile_record(struct rfile_ctx *c) {
    struct rfile_rec r = {.seq = RFILE_NONE,
                          .t_intended_us = RFILE_NONE,
                          .wall_start_us = RFILE_NONE,
                          .batch = RFILE_NONE,
                          .max_tokens = RFILE_NONE,
                          .completion_tokens = RFILE_NONE,
                          .prompt_tokens = RFILE_NONE,
                          .cached_tokens = RFILE_NONE,
                          .correct = -1,
                          .chunks = RFILE_NONE,
                          .t_headers_us = RFILE_NONE,
                          .server_us = RFILE_NONE,
                          .connect_us = RFILE_NONE,
                          .tls_us = RFILE_NONE,
                          .t_first_us = RFILE_NONE,
                          .t_first_output_us = RFILE_NONE,
                          .ctoks = RFILE_NO_CTOKS};
    struct jscan_str key;
    size_t count = 0;
    int more, have = 0;
    c->rec_ngaps = c->rec_nctoks = 0;
    if (jscan_peek(&c->s) != '{') return rfile_record_error(c, "not an object");
    if (jscan_object(&c->s) < 0) return rfile_syntax_error(c);
    while ((more = jscan_member(&c->s, &count, &key)) > 0) {
        int bit = rfile_member(c, &key, &r);
        if (bit < 0) return rfile_syntax_error(c);
        have |= bit;
    }
    c->field = NULL;
    if (more < 0) return rfile_syntax_error(c);
    const char *missing = rfile_missing(have);
    if (missing) return rfile_record_error(c, missing);
    if (r.t_end_us < r.t_start_us) return rfile_record_error(c, "t_end_us is before t_start_us");
    if (r.t_intended_us > r.t_start_us)
        return rfile_record_error(c, "t_intended_us is after t_start_us (a request never leaves "
                                     "before its intended start)");
    if (r.cached_tokens != RFILE_NONE && r.prompt_tokens != RFILE_NONE &&
        r.cached_tokens > r.prompt_tokens)
        return rfile_record_error(c, RFIELD_CACHED_TOKENS " is more than " RFIELD_PROMPT_TOKENS);
    char why[160];
    r.stream = (have & RFILE_HAVE_STREAM) != 0;
    if (!(have & RFILE_HAVE_OUTPUT)) r.t_first_output_us = r.t_first_us;
    if ((have & RFILE_HAVE_OUTPUT) && !r.stream)
        return rfile_record_error(c, RFIELD_T_FIRST_OUTPUT_US " without t_first_token_us");
    if (r.stream && rfile_stream_bad(c, &r, have, why, sizeof why))
        return rfile_record_error(c, why);
    if (!(have & RFILE_HAVE_CTOKS)) r.ctoks = RFILE_NO_CTOKS;
    return rfile_add_record(c, &r);
}

static int rfile_records(struct rfile_ctx *c) {
    size_t count = 0;
    int more;
    c->rf->has_records = true;
    if (jscan_array(&c->s) < 0)
        return buf_fail(c->err, RFILE_ERR_INPUT, "%s: records is not an array", c->rf->path);
    while ((more = jscan_item(&c->s, &count)) > 0) {
        int rc = rfile_record(c);
        if (rc < 0) return rc;
    }
    return more < 0 ? rfile_syntax_error(c) : 0;
}

/* cJSON refuses one thing the scanner lets through (jscan_str_decode makes it
 * U+FFFD): half of a UTF-16 surrogate pair. Reports it at the value at at. */
static int rfile_surrogate_error(struct rfile_ctx *c, const char *at) {
    c->s.p = at;
    jscan_fail(&c->s, "a \\u escape is half of a UTF-16 surrogate pair");
    return rfile_syntax_error(c);
}

/* Parses the value at the scanner into head[key] with cJSON. */
static int rfile_head_member(struct rfile_ctx *c, const struct jscan_str *key) {
    buf_reset(&c->tmp);
    if (jscan_str_decode(key, &c->tmp) != BUF_OK) return rfile_nomem(c);
    jscan_peek(&c->s);
    const char *from = c->s.p;
    if (jscan_skip(&c->s) < 0) return rfile_syntax_error(c);
    cJSON *v = cJSON_ParseWithLength(from, (size_t)(c->s.p - from));
    if (!v) return rfile_surrogate_error(c, from);
    cJSON_DeleteItemFromObjectCaseSensitive(c->rf->head, buf_str(&c->tmp));
    cJSON_AddItemToObject(c->rf->head, buf_str(&c->tmp), v);
    return 0;
}

/* A file that starts with a NUL byte is binary, not JSON text. */
static int rfile_nul_start(struct rfile_ctx *c, const char *data, size_t len) {
    if (len == 0 || data[0] != '\0') return 0;
    return buf_fail(c->err, RFILE_ERR_INPUT, "%s: starts with a NUL byte: not a JSON text file",
                    c->rf->path);
}

static int rfile_document(struct rfile_ctx *c, const char *data, size_t len) {
    struct jscan_str key;
    size_t count = 0;
    int more;
    if (rfile_nul_start(c, data, len) < 0) return RFILE_ERR_INPUT;
    jscan_init(&c->s, data, len);
    if (jscan_peek(&c->s) != '{') {
        if (jscan_peek(&c->s) == 0 && !c->s.err)
            return buf_fail(c->err, RFILE_ERR_INPUT, "%s: empty file", c->rf->path);
        if (jscan_peek(&c->s) == '[' || jscan_skip(&c->s) == 0)
            return buf_fail(c->err, RFILE_ERR_INPUT, "%s: not a JSON object at the top level",
                            c->rf->path);
        return rfile_syntax_error(c);
    }
    if (jscan_object(&c->s) < 0) return rfile_syntax_error(c);
    while ((more = jscan_member(&c->s, &count, &key)) > 0) {
        int rc = jscan_str_is(&key, RFMT_RECORDS) && jscan_peek(&c->s) == '['
                     ? rfile_records(c)
                     : rfile_head_member(c, &key);
        if (rc < 0) return rc;
    }
    if (more < 0) return rfile_syntax_error(c);
    if (jscan_peek(&c->s) != 0 || c->s.p < c->s.end) {
        jscan_fail(&c->s, "data after the end of the document");
        return rfile_syntax_error(c);
    }
    return 0;
}

static int rfile_journal_head(struct rfile_ctx *c, const char *line, size_t n) {
    jscan_init(&c->s, line, n);
    if (jscan_peek(&c->s) != '{' || jscan_skip(&c->s) < 0 || jscan_peek(&c->s) != 0)
        return buf_fail(c->err, RFILE_ERR_INPUT,
                        "%s:1: the journal's first line is not a JSON object", c->rf->path);
    cJSON_Delete(c->rf->head);
    c->rf->head = cJSON_ParseWithLength(line, n);
    return c->rf->head ? 0 : rfile_surrogate_error(c, line);
}

/* One record line; a last line without its newline that does not parse is cut. */
static int rfile_journal_line(struct rfile_ctx *c, const char *line, size_t n,
                              bool last_unterminated) {
    struct buf scratch;
    struct buf *keep = c->err;
    buf_init(&scratch, 1024);
    if (last_unterminated) c->err = &scratch;
    jscan_init(&c->s, line, n);
    int rc = rfile_record(c);
    if (rc == 0 && jscan_peek(&c->s) != 0) {
        jscan_fail(&c->s, "data after the record");
        rc = rfile_syntax_error(c);
    }
    c->err = keep;
    if (rc == RFILE_ERR_INPUT && last_unterminated) {
        c->rf->cut_tail = true;
        rc = 0;
    }
    buf_free(&scratch);
    return rc;
}

static int rfile_journal(struct rfile_ctx *c, const char *data, size_t len) {
    size_t whole = len;
    while (len > 0 && data[len - 1] == '\0') len--; /* the space a killed run had reserved */
    if (len < whole && len == 0)
        return buf_fail(c->err, RFILE_ERR_INPUT,
                        "%s: empty journal (the run was killed before it wrote its header)",
                        c->rf->path);
    if (rfile_nul_start(c, data, len) < 0) return RFILE_ERR_INPUT;
    const char *p = data, *end = data + len;
    for (c->line = 1; p < end; c->line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *q = p;
        while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
        if (q < eol) {
            int rc = c->line == 1 ? rfile_journal_head(c, p, (size_t)(eol - p))
                                  : rfile_journal_line(c, p, (size_t)(eol - p), nl == NULL);
            if (rc < 0) return rc;
        } else if (c->line == 1) {
            return buf_fail(c->err, RFILE_ERR_INPUT, "%s:1: the journal's first line is empty",
                            c->rf->path);
        }
        p = eol + 1;
    }
    if (!c->rf->head) return buf_fail(c->err, RFILE_ERR_INPUT, "%s: empty file", c->rf->path);
    return 0;
}

static bool rfile_ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

int rfile_read(const char *path, struct rfile **out, struct buf *err) {
    struct rfile_ctx c = {.err = err};
    struct rfile_map map = {0};
    int rc = RFILE_ERR_NOMEM;
    buf_init(&c.tmp, BUF_NO_CAP);
    struct rfile *rf = calloc(1, sizeof *rf);
    *out = NULL;
    if (!rf || !(rf->path = strdup(path)) || !(rf->head = cJSON_CreateObject())) {
        rc = buf_fail(err, RFILE_ERR_NOMEM, "out of memory");
        goto done;
    }
    strtab_init(&rf->strs);
    buf_init(&rf->texts, BUF_NO_CAP);
    c.rf = rf;
    if ((rc = rfile_map_open(path, &map, err)) < 0) goto done;
    rf->journal = rfile_ends_with(path, ".jsonl");
    const char *data = map.data ? map.data : ""; /* an empty file has no mapping */
    rc = rf->journal ? rfile_journal(&c, data, map.len) : rfile_document(&c, data, map.len);
done:
    rfile_map_close(&map);
    buf_free(&c.tmp);
    if (rc < 0) {
        rfile_free(rf);
        return rc;
    }
    *out = rf;
    return RFILE_OK;
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
    free(rf->gaps);
    free(rf->ctoks);
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
