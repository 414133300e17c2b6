#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "readall.h"

#define TRACE_MAX_TOKENS   10000000L /* a length beyond this is a mistake */
#define TRACE_MAX_HASH_IDS 100000L   /* blocks of one request */
#define TRACE_MAX_COLUMNS  64
#define TRACE_MAX_TIME_US  4102444800000000LL /* 2100-01-01 in Unix microseconds */

struct trace_line {
    const char *s;
    size_t n;
    long number;
};

/* The CSV columns a format reads, by name (-1: absent). */
struct trace_cols {
    int time, in, out;
};

const char *trace_format_name(enum trace_format f) {
    static const char *const names[] = {"mooncake", "azure", "burstgpt", "capture"};
    return f >= TRACE_MOONCAKE && f <= TRACE_CAPTURE ? names[f] : "unknown";
}

void trace_free(struct trace *t) {
    if (!t) return;
    for (size_t i = 0; i < t->n; i++) {
        free(t->reqs[i].hash_ids);
        free(t->reqs[i].body);
        free(t->reqs[i].content_type);
    }
    free(t->reqs);
    free(t);
}

/* The next line of text at *pos (without its "\r\n" or "\n"); false at the end. */
static bool trace_next_line(const char *text, size_t len, size_t *pos, struct trace_line *l) {
    if (*pos >= len) return false;
    const char *s = text + *pos;
    const char *nl = memchr(s, '\n', len - *pos);
    size_t n = nl ? (size_t)(nl - s) : len - *pos;
    *pos += n + (nl ? 1 : 0);
    if (n && s[n - 1] == '\r') n--;
    l->s = s;
    l->n = n;
    l->number++;
    return true;
}

static bool trace_blank(const struct trace_line *l) {
    for (size_t i = 0; i < l->n; i++)
        if (l->s[i] != ' ' && l->s[i] != '\t') return false;
    return true;
}

/* ---- values -------------------------------------------------------------------- */

/* A whole number of tokens from 0 to TRACE_MAX_TOKENS in text[0..n). */
static bool trace_count_text(const char *s, size_t n, long *out) {
    while (n && (*s == ' ' || *s == '"')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '"')) n--;
    if (!n || n > 12) return false;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.' && i > 0) { /* "12.0" as some CSV writers print it */
            for (size_t k = i + 1; k < n; k++)
                if (s[k] != '0') return false;
            break;
        }
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    if (v > TRACE_MAX_TOKENS) return false;
    *out = v;
    return true;
}

/* Seconds (a decimal number, >= 0) in text[0..n) as microseconds. */
static bool trace_seconds_text(const char *s, size_t n, long long *out) {
    char tmp[40];
    while (n && (*s == ' ' || *s == '"')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '"')) n--;
    if (!n || n >= sizeof tmp) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == 'e' || s[i] == 'E' ||
              s[i] == '+' || s[i] == '-'))
            return false;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (errno || *end || !(v >= 0) || v * 1e6 > (double)TRACE_MAX_TIME_US) return false;
    *out = llround(v * 1e6);
    return true;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static long long trace_days(long long y, long long m, long long d) {
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool trace_digits(const char *s, size_t n, size_t at, size_t k, long long *v) {
    if (at + k > n) return false;
    *v = 0;
    for (size_t i = at; i < at + k; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        *v = *v * 10 + (s[i] - '0');
    }
    return true;
}

/* "YYYY-MM-DD HH:MM:SS[.frac]" ('T' or ' ' between, then "Z", "+00:00" or
 * nothing: UTC) as Unix microseconds. */
static bool trace_datetime_text(const char *s, size_t n, long long *out) {
    while (n && (*s == ' ' || *s == '"')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '"')) n--;
    long long y, mo, d, h, mi, se;
    if (n < 19 || !trace_digits(s, n, 0, 4, &y) || s[4] != '-' || !trace_digits(s, n, 5, 2, &mo) ||
        s[7] != '-' || !trace_digits(s, n, 8, 2, &d) || (s[10] != 'T' && s[10] != ' ') ||
        !trace_digits(s, n, 11, 2, &h) || s[13] != ':' || !trace_digits(s, n, 14, 2, &mi) ||
        s[16] != ':' || !trace_digits(s, n, 17, 2, &se))
        return false;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return false;
    size_t i = 19;
    long long us = 0, scale = 100000;
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9') return false;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
            us += scale * (s[i] - '0'); /* digits past the microsecond add 0 */
    }
    if (!(i == n || (i + 1 == n && s[i] == 'Z') || (i + 6 == n && memcmp(s + i, "+00:00", 6) == 0)))
        return false;
    *out = ((trace_days(y, mo, d) * 24 + h) * 60 + mi) * 60 * 1000000LL + se * 1000000LL + us;
    return *out <= TRACE_MAX_TIME_US;
}

/* BASE64 (RFC 4648, padding optional) in s[0..n) into a new NUL-terminated
 * string *out of *out_n bytes: TRACE_OK, TRACE_ERR_INPUT when it is no BASE64
 * or TRACE_ERR_NOMEM. */
static int trace_base64(const char *s, size_t n, char **out, size_t *out_n) {
    while (n && s[n - 1] == '=') n--;
    if (n % 4 == 1) return TRACE_ERR_INPUT;
    unsigned char *d = malloc(n / 4 * 3 + 3);
    if (!d) return TRACE_ERR_NOMEM;
    size_t k = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int v = c >= 'A' && c <= 'Z'   ? c - 'A'
                : c >= 'a' && c <= 'z' ? c - 'a' + 26
                : c >= '0' && c <= '9' ? c - '0' + 52
                : c == '+'             ? 62
                : c == '/'             ? 63
                                       : -1;
        if (v < 0) {
            free(d);
            return TRACE_ERR_INPUT;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            d[k++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    d[k] = '\0';
    *out = (char *)d;
    *out_n = k;
    return TRACE_OK;
}

/* ---- the schedule -------------------------------------------------------------- */

struct trace_build {
    const char *name;
    struct trace *t;
    size_t cap;
    struct buf *err;
};

static int trace_fail(struct trace_build *b, long line, const char *what) {
    return buf_fail(b->err, TRACE_ERR_INPUT, "%s:%ld: %s", b->name, line, what);
}

/* A new request at line, its time t_us (absolute, in microseconds). */
static struct trace_req *trace_add(struct trace_build *b, long line, long long t_us) {
    if (b->t->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        struct trace_req *r = realloc(b->t->reqs, cap * sizeof *r);
        if (!r) return NULL;
        b->t->reqs = r;
        b->cap = cap;
    }
    struct trace_req *r = &b->t->reqs[b->t->n++];
    *r = (struct trace_req){.line = line, .t_us = t_us, .input_tokens = -1, .output_tokens = -1};
    return r;
}

/* A JSON number field of o as a token count; false when absent or out of range. */
static bool trace_json_count(const cJSON *o, const char *field, long *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > TRACE_MAX_TOKENS ||
        v->valuedouble != floor(v->valuedouble))
        return false;
    *out = (long)v->valuedouble;
    return true;
}

static int trace_mooncake(struct trace_build *b, const cJSON *o, long line) {
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "timestamp");
    if (!cJSON_IsNumber(ts) || !(ts->valuedouble >= 0) ||
        ts->valuedouble * 1e3 > (double)TRACE_MAX_TIME_US)
        return trace_fail(b, line, "\"timestamp\" must be milliseconds from 0 (a number)");
    long in, out;
    if (!trace_json_count(o, "input_length", &in))
        return trace_fail(b, line, "\"input_length\" must be a whole number of tokens");
    if (!trace_json_count(o, "output_length", &out))
        return trace_fail(b, line, "\"output_length\" must be a whole number of tokens");
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(o, "hash_ids");
    if (ids && !cJSON_IsArray(ids))
        return trace_fail(b, line, "\"hash_ids\" must be a list of whole numbers");
    size_t n = ids ? (size_t)cJSON_GetArraySize(ids) : 0;
    if (n > TRACE_MAX_HASH_IDS) return trace_fail(b, line, "more than 100000 \"hash_ids\"");
    struct trace_req *r = trace_add(b, line, llround(ts->valuedouble * 1e3));
    if (!r) return TRACE_ERR_NOMEM;
    r->input_tokens = in;
    r->output_tokens = out;
    if (!n) return TRACE_OK;
    if (!(r->hash_ids = malloc(n * sizeof *r->hash_ids))) return TRACE_ERR_NOMEM;
    const cJSON *id;
    cJSON_ArrayForEach(id, ids) {
        if (!cJSON_IsNumber(id) || !(id->valuedouble >= 0) || id->valuedouble > 9.0e15 ||
            id->valuedouble != floor(id->valuedouble))
            return trace_fail(b, line, "\"hash_ids\" must be a list of whole numbers");
        r->hash_ids[r->n_hash_ids++] = (long long)id->valuedouble;
    }
    return TRACE_OK;
}

/* The captured observedContentType ct (absent: none) into r: a header value
 * of printable ASCII, at most TRACE_MAX_CONTENT_TYPE bytes. */
static int trace_content_type(struct trace_build *b, struct trace_req *r, const cJSON *ct,
                              long line) {
    if (!ct) return TRACE_OK;
    const char *s = cJSON_IsString(ct) ? ct->valuestring : NULL;
    size_t n = s ? strlen(s) : 0;
    bool ok = s && n > 0 && n <= TRACE_MAX_CONTENT_TYPE;
    for (size_t i = 0; ok && i < n; i++) ok = s[i] >= 0x20 && s[i] < 0x7f;
    if (!ok)
        return trace_fail(b, line,
                          "\"captureData.endpointInput.observedContentType\" must be a header "
                          "value of 1 to 255 printable ASCII characters");
    return (r->content_type = strdup(s)) ? TRACE_OK : TRACE_ERR_NOMEM;
}

static int trace_capture(struct trace_build *b, const cJSON *o, long line) {
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(o, "eventMetadata");
    const cJSON *when = cJSON_GetObjectItemCaseSensitive(meta, "inferenceTime");
    long long t;
    if (!cJSON_IsString(when) ||
        !trace_datetime_text(when->valuestring, strlen(when->valuestring), &t))
        return trace_fail(b, line,
                          "\"eventMetadata.inferenceTime\" must be a UTC time "
                          "(YYYY-MM-DDTHH:MM:SS[.frac]Z)");
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o, "captureData"), "endpointInput");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(in, "data");
    const cJSON *enc = cJSON_GetObjectItemCaseSensitive(in, "encoding");
    if (!cJSON_IsString(data))
        return trace_fail(b, line, "\"captureData.endpointInput.data\" must be a string");
    if (!cJSON_IsString(enc))
        return trace_fail(b, line,
                          "\"captureData.endpointInput.encoding\" must be JSON, CSV or BASE64");
    const char *s = data->valuestring;
    size_t n = strlen(s);
    struct trace_req *r = trace_add(b, line, t);
    if (!r) return TRACE_ERR_NOMEM;
    if (strcmp(enc->valuestring, "BASE64") == 0) {
        int rc = trace_base64(s, n, &r->body, &r->body_len);
        if (rc == TRACE_ERR_INPUT)
            return trace_fail(b, line, "\"captureData.endpointInput.data\" is no BASE64");
        if (rc) return rc;
        if (strlen(r->body) != r->body_len)
            return trace_fail(b, line,
                              "the captured body holds a NUL byte (a request body of text is "
                              "replayed)");
    } else if (strcmp(enc->valuestring, "JSON") == 0 || strcmp(enc->valuestring, "CSV") == 0) {
        if (!(r->body = strdup(s))) return TRACE_ERR_NOMEM;
        r->body_len = n;
    } else {
        return trace_fail(b, line,
                          "\"captureData.endpointInput.encoding\" must be JSON, CSV or BASE64");
    }
    if (!r->body_len) return trace_fail(b, line, "the captured body is empty");
    return trace_content_type(b, r, cJSON_GetObjectItemCaseSensitive(in, "observedContentType"),
                              line);
}

/* The CSV fields of l into f (at most TRACE_MAX_COLUMNS; quoted fields keep
 * their quotes, which the value readers skip); returns their number or -1. */
static int trace_csv_split(const struct trace_line *l, struct trace_line *f) {
    int k = 0;
    size_t start = 0;
    bool quoted = false;
    for (size_t i = 0; i <= l->n; i++) {
        if (i < l->n && l->s[i] == '"') quoted = !quoted;
        if (i < l->n && (quoted || l->s[i] != ',')) continue;
        if (k == TRACE_MAX_COLUMNS) return -1;
        f[k++] = (struct trace_line){l->s + start, i - start, l->number};
        start = i + 1;
    }
    return quoted ? -1 : k;
}

static bool trace_field_is(const struct trace_line *f, const char *name) {
    const char *s = f->s;
    size_t n = f->n;
    while (n && (*s == ' ' || *s == '"' || (unsigned char)*s == 0xEF || (unsigned char)*s == 0xBB ||
                 (unsigned char)*s == 0xBF))
        s++, n--; /* a UTF-8 byte order mark too */
    while (n && (s[n - 1] == ' ' || s[n - 1] == '"')) n--;
    return n == strlen(name) && memcmp(s, name, n) == 0;
}

static int trace_col(const struct trace_line *f, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (trace_field_is(&f[i], name)) return i;
    return -1;
}

/* The CSV format its header names, with its columns; -1 for none. */
static int trace_csv_format(const struct trace_line *head, struct trace_cols *c) {
    struct trace_line f[TRACE_MAX_COLUMNS];
    int n = trace_csv_split(head, f);
    if (n < 0) return -1;
    c->time = trace_col(f, n, "TIMESTAMP");
    c->in = trace_col(f, n, "ContextTokens");
    c->out = trace_col(f, n, "GeneratedTokens");
    if (c->time >= 0 && c->in >= 0 && c->out >= 0) return TRACE_AZURE;
    c->time = trace_col(f, n, "Timestamp");
    c->in = trace_col(f, n, "Request tokens");
    c->out = trace_col(f, n, "Response tokens");
    if (c->time >= 0 && c->in >= 0 && c->out >= 0) return TRACE_BURSTGPT;
    return -1;
}

static int trace_csv_row(struct trace_build *b, const struct trace_cols *c,
                         const struct trace_line *l) {
    struct trace_line f[TRACE_MAX_COLUMNS];
    int n = trace_csv_split(l, f);
    int need = c->time > c->in ? c->time : c->in;
    if (c->out > need) need = c->out;
    if (n <= need) return trace_fail(b, l->number, "fewer columns than the header names");
    bool azure = b->t->format == TRACE_AZURE;
    long long t;
    if (azure ? !trace_datetime_text(f[c->time].s, f[c->time].n, &t)
              : !trace_seconds_text(f[c->time].s, f[c->time].n, &t))
        return trace_fail(b, l->number,
                          azure ? "TIMESTAMP must be a date and time (YYYY-MM-DD HH:MM:SS[.frac])"
                                : "Timestamp must be seconds from 0");
    long in, out;
    if (!trace_count_text(f[c->in].s, f[c->in].n, &in))
        return trace_fail(b, l->number,
                          azure ? "ContextTokens must be a whole number of tokens"
                                : "Request tokens must be a whole number of tokens");
    if (!trace_count_text(f[c->out].s, f[c->out].n, &out))
        return trace_fail(b, l->number,
                          azure ? "GeneratedTokens must be a whole number of tokens"
                                : "Response tokens must be a whole number of tokens");
    struct trace_req *r = trace_add(b, l->number, t);
    if (!r) return TRACE_ERR_NOMEM;
    r->input_tokens = in;
    r->output_tokens = out;
    return TRACE_OK;
}

static int trace_json_row(struct trace_build *b, const struct trace_line *l) {
    cJSON *o = cJSON_ParseWithLength(l->s, l->n);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return trace_fail(b, l->number, "not a JSON object");
    }
    int rc = b->t->format == TRACE_CAPTURE ? trace_capture(b, o, l->number)
                                           : trace_mooncake(b, o, l->number);
    cJSON_Delete(o);
    return rc;
}

static int trace_order(const void *a, const void *b) {
    const struct trace_req *x = a, *y = b;
    if (x->t_us != y->t_us) return x->t_us < y->t_us ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Sorts, cuts the window and the cap, and sets each request's times. */
static void trace_schedule(struct trace *t, const struct trace_spec *s) {
    t->n_read = t->n;
    if (!t->n) return;
    qsort(t->reqs, t->n, sizeof *t->reqs, trace_order);
    long long t0 = t->reqs[0].t_us;
    size_t keep = 0;
    for (size_t i = 0; i < t->n; i++) {
        struct trace_req r = t->reqs[i];
        r.t_us -= t0;
        bool in = r.t_us >= s->from_us && (s->to_us < 0 || r.t_us < s->to_us) &&
                  (s->cap <= 0 || keep < (size_t)s->cap);
        if (!in) {
            free(r.hash_ids);
            free(r.body);
            free(r.content_type);
            continue;
        }
        r.at_us = llround((double)(r.t_us - s->from_us) / s->speed);
        t->reqs[keep++] = r;
    }
    t->n = keep;
}

static int trace_check_spec(const char *name, const struct trace_spec *s, struct buf *err) {
    if (!(s->speed > 0) || !isfinite(s->speed) || s->speed > 1e6)
        return buf_fail(err, TRACE_ERR_INPUT, "%s: the speed must be above 0 (and at most 1e6)",
                        name);
    if (s->from_us < 0 || (s->to_us >= 0 && s->to_us <= s->from_us))
        return buf_fail(err, TRACE_ERR_INPUT,
                        "%s: the window must start at 0 or later and end after its start", name);
    if (s->cap < 0) return buf_fail(err, TRACE_ERR_INPUT, "%s: the cap must be 0 or more", name);
    return TRACE_OK;
}

int trace_parse(const char *name, const char *text, size_t len, const struct trace_spec *s,
                struct trace **out, struct buf *err) {
    *out = NULL;
    int rc = trace_check_spec(name, s, err);
    if (rc) return rc;
    struct trace *t = calloc(1, sizeof *t);
    if (!t) return TRACE_ERR_NOMEM;
    struct trace_build b = {name, t, 0, err};
    struct trace_line l = {0};
    struct trace_cols cols = {-1, -1, -1};
    size_t pos = 0;
    bool head = false;
    while (!rc && trace_next_line(text, len, &pos, &l)) {
        if (trace_blank(&l)) continue;
        if (l.n > (size_t)TRACE_MAX_LINE) {
            rc = trace_fail(&b, l.number, "a line longer than 16 MiB");
        } else if (memchr(l.s, '\0', l.n)) {
            rc = trace_fail(&b, l.number, "a NUL byte (a trace is text)");
        } else if (!head) {
            head = true;
            if (l.s[0] == '{') {
                cJSON *o = cJSON_ParseWithLength(l.s, l.n);
                t->format = cJSON_HasObjectItem(o, "captureData") ? TRACE_CAPTURE : TRACE_MOONCAKE;
                cJSON_Delete(o);
                rc = trace_json_row(&b, &l);
            } else {
                int f = trace_csv_format(&l, &cols);
                if (f < 0)
                    rc = trace_fail(
                        &b, l.number,
                        "not a trace this reads: Mooncake or Data Capture JSON lines, "
                        "or a CSV header with TIMESTAMP,ContextTokens,GeneratedTokens "
                        "(Azure) or Timestamp,Request tokens,Response tokens (BurstGPT)");
                t->format = (enum trace_format)f;
            }
        } else if (t->format == TRACE_MOONCAKE || t->format == TRACE_CAPTURE) {
            rc = trace_json_row(&b, &l);
        } else {
            rc = trace_csv_row(&b, &cols, &l);
        }
    }
    if (!rc && !t->n) rc = buf_fail(err, TRACE_ERR_INPUT, "%s: no requests", name);
    if (rc) {
        trace_free(t);
        return rc == TRACE_ERR_NOMEM ? TRACE_ERR_NOMEM : TRACE_ERR_INPUT;
    }
    trace_schedule(t, s);
    if (!t->n) {
        trace_free(t);
        return buf_fail(err, TRACE_ERR_INPUT, "%s: no requests in the window", name);
    }
    *out = t;
    return TRACE_OK;
}

int trace_load(const char *path, const struct trace_spec *s, struct trace **out, struct buf *err) {
    struct buf text;
    buf_init(&text, (size_t)TRACE_MAX_BYTES);
    int rc = readall_regular(path, &text);
    if (rc) {
        buf_free(&text);
        *out = NULL;
        if (rc == BUF_ERR_NOMEM) return TRACE_ERR_NOMEM;
        return buf_fail(err, TRACE_ERR_INPUT, "cannot read the trace %s: %s", path,
                        rc == BUF_ERR_CAP               ? "larger than 1 GiB"
                        : rc == READALL_ERR_NOT_REGULAR ? "not a regular file"
                        : rc > 0                        ? strerror(rc)
                                                        : "read failed");
    }
    rc = trace_parse(path, text.data ? text.data : "", text.len, s, out, err);
    buf_free(&text);
    return rc;
}
