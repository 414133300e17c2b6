#include "slot.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "run.h"
#include "watch.h"

#define SLOT_CHUNKS_FIRST 256 /* room for the chunk times of a first reply */

static uint64_t slot_ns(const struct timespec *t) {
    return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

static uint64_t slot_clock_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return slot_ns(&t);
}

/* Copies the value of a header line "Name: value\r\n" into out, cut to fit. */
static void slot_header_value(const char *line, size_t n, size_t name_len, char *out, size_t size) {
    const char *v = line + name_len + 1;
    size_t k = n - name_len - 1;
    while (k && (*v == ' ' || *v == '\t')) v++, k--;
    while (k && (v[k - 1] == '\r' || v[k - 1] == '\n' || v[k - 1] == ' ')) k--;
    if (k >= size) k = size - 1;
    memcpy(out, v, k);
    out[k] = '\0';
}

static bool slot_is_header(const char *line, size_t n, const char *name) {
    size_t k = strlen(name);
    return n > k && line[k] == ':' && strncasecmp(line, name, k) == 0;
}

/* The end of the headers of a final reply: a 2xx streams from here on. */
static void slot_headers_end(struct slot *s) {
    s->t_headers_us = run_now_us();
    if (s->status < 200 || s->status >= 300 || s->control) return;
    s->streaming = true;
    bool es = s->cfg->route == PLAN_ROUTE_STREAM;
    enum sstream_framing framing = sstream_framing_for(s->content_type[0] ? s->content_type : NULL);
    sstream_free(&s->ss);
    sstream_init(&s->ss, es ? SSTREAM_BODY_EVENTSTREAM : SSTREAM_BODY_PLAIN, framing, NULL);
}

/* libcurl's prerequest callback: the request is about to be written on its
 * connection (new or reused): its start. */
static int slot_on_prereq(void *ud, char *ip, char *local_ip, int port, int local_port) {
    struct slot *s = ud;
    (void)ip, (void)local_ip, (void)port, (void)local_port;
    if (!s->left) disp_sent(s->disp, s->t_left_us = run_now_us(), run_wall_us());
    s->left = true;
    return CURL_PREREQFUNC_OK;
}

/* libcurl's header callback: the status line, the headers a record needs. */
static size_t slot_on_header(char *line, size_t size, size_t n_items, void *ud) {
    struct slot *s = ud;
    size_t n = size * n_items;
    if (n >= 5 && strncmp(line, "HTTP/", 5) == 0) {
        const char *sp = memchr(line, ' ', n);
        s->status = sp ? (int)strtol(sp + 1, NULL, 10) : 0;
        s->error_type[0] = s->date[0] = s->content_type[0] = s->new_session[0] = '\0';
        s->service_us[0] = '\0';
    } else if (n <= 2 && (n == 0 || line[0] == '\r' || line[0] == '\n')) {
        if (s->status >= 200) slot_headers_end(s);
    } else if (slot_is_header(line, n, "x-amzn-ErrorType")) {
        slot_header_value(line, n, 16, s->error_type, sizeof s->error_type);
    } else if (s->control && slot_is_header(line, n, CONV_NEW_HEADER)) {
        slot_header_value(line, n, sizeof CONV_NEW_HEADER - 1, s->new_session,
                          sizeof s->new_session);
    } else if (slot_is_header(line, n, REPLY_SERVICE_HEADER)) {
        slot_header_value(line, n, sizeof REPLY_SERVICE_HEADER - 1, s->service_us,
                          sizeof s->service_us);
    } else if (slot_is_header(line, n, "Date")) {
        slot_header_value(line, n, 4, s->date, sizeof s->date);
    } else if (slot_is_header(line, n, "X-Amzn-SageMaker-Content-Type") ||
               (slot_is_header(line, n, "Content-Type") && s->cfg->route != PLAN_ROUTE_STREAM)) {
        size_t name = line[12] == ':' ? 12 : 29;
        slot_header_value(line, n, name, s->content_type, sizeof s->content_type);
    }
    return n;
}

/* The first way the stream failed is the one recorded. */
static void slot_stream_error(struct slot *s, const char *code, const char *msg, size_t msg_len) {
    if (s->stream_code[0]) return;
    snprintf(s->stream_code, sizeof s->stream_code, "%s", code);
    snprintf(s->stream_message, sizeof s->stream_message, "%.*s", (int)msg_len, msg);
}

/* Halves the chunks kept past the first: each pair becomes one chunk of both
 * pairs' tokens, its gap the two gaps summed (their sum, the time from the first
 * chunk to the last, never changes). */
static void slot_merge(struct slot *s) {
    size_t n = 1;
    for (size_t i = 1; i < s->n_chunks; i += 2, n++) {
        uint64_t gap = s->gaps[i - 1], tokens = s->tokens[i];
        if (i + 1 < s->n_chunks) gap += s->gaps[i], tokens += s->tokens[i + 1];
        s->gaps[n - 1] = (uint32_t)(gap < UINT32_MAX ? gap : UINT32_MAX);
        s->tokens[n] = (uint16_t)(tokens < UINT16_MAX ? tokens : UINT16_MAX);
    }
    /* merged when the last kept chunk was whole: it is again when the pairs came out even */
    s->open_n = (s->n_chunks - 1) % 2 ? s->per : 2 * s->per;
    s->per *= 2;
    s->n_chunks = n;
    s->multi_token = true;
}

static bool slot_grow(struct slot *s) {
    if (s->n_chunks < s->cap_chunks) return true;
    size_t cap = s->cap_chunks ? 2 * s->cap_chunks : SLOT_CHUNKS_FIRST;
    if (cap > SLOT_CHUNKS_MAX) cap = SLOT_CHUNKS_MAX;
    uint32_t *g = realloc(s->gaps, cap * sizeof *g);
    if (g) s->gaps = g;
    uint16_t *t = g ? realloc(s->tokens, cap * sizeof *t) : NULL;
    if (t) s->tokens = t;
    if (!g || !t) return false;
    s->cap_chunks = cap;
    return true;
}

/* A chunk that arrived at now: content's time and tokens, or how the stream failed. */
static void slot_chunk(struct slot *s, const struct schunk *c, long long now) {
    if (c->kind == SCHUNK_ERROR || c->kind == SCHUNK_EXCEPTION) {
        if (s->stream_code[0]) return; /* the first failure is the one recorded */
        snprintf(s->stream_code, sizeof s->stream_code, "%.*s",
                 (int)(c->error_type.n ? c->error_type.n : 12),
                 c->error_type.n ? c->error_type.s : "stream_error");
        snprintf(s->stream_message, sizeof s->stream_message, "%.*s%s%.*s", (int)c->error_code.n,
                 c->error_code.s, c->error_code.n ? ": " : "", (int)c->error_message.n,
                 c->error_message.s);
        return;
    }
    /* a thinking model's reasoning is generated tokens too: the first of either
     * kind is the first token, the first content the first output token */
    if (c->kind != SCHUNK_DATA || (c->content.n == 0 && c->reasoning.n == 0)) return;
    int tokens = c->tokens > 0 ? c->tokens : 1;
    /* its tokens are known: a token event, logprobs, or a running count (vLLM's
     * continuous_usage_stats); else it counts as one and ITL is per chunk */
    s->uncounted +=
        c->format != SCHUNK_FMT_TOKEN && c->logprob_tokens <= 0 && c->completion_tokens < 0;
    if (c->content.n == 0)
        s->reasoning_tokens += tokens;
    else if (s->t_first_output_us == 0)
        s->t_first_output_us = now;
    s->multi_token |= tokens != 1;
    s->chunk_tokens += tokens;
    s->cost.tokens += (uint64_t)tokens;
    s->received++;
    if (s->n_chunks == SLOT_CHUNKS_MAX && s->open_n == s->per) slot_merge(s);
    if (s->n_chunks > 1 && s->open_n < s->per) { /* merged: joins the last kept chunk */
        uint64_t gap = s->gaps[s->n_chunks - 2] + (uint64_t)(now - s->t_last_us);
        uint32_t sum = (uint32_t)s->tokens[s->n_chunks - 1] + (uint32_t)tokens;
        s->gaps[s->n_chunks - 2] = (uint32_t)(gap < UINT32_MAX ? gap : UINT32_MAX);
        s->tokens[s->n_chunks - 1] = (uint16_t)(sum < UINT16_MAX ? sum : UINT16_MAX);
        s->open_n++;
    } else if (!slot_grow(s)) {
        slot_stream_error(s, "nomem", "out of memory", 13);
        return;
    } else {
        if (s->n_chunks == 0)
            s->t_first_us = now;
        else
            s->gaps[s->n_chunks - 1] = (uint32_t)(now - s->t_last_us);
        s->tokens[s->n_chunks++] = (uint16_t)(tokens < UINT16_MAX ? tokens : UINT16_MAX);
        s->open_n = 1;
    }
    s->t_last_us = now;
    if (s->want_text && s->text.len < SLOT_TEXT_MAX) { /* the content's prefix (quiz.h) */
        size_t room = SLOT_TEXT_MAX - s->text.len;
        (void)!buf_add(&s->text, c->content.s, c->content.n < room ? c->content.n : room);
    }
}

void slot_prefetch(const struct slot *s) {
    const char *p = (const char *)s, *end = (const char *)(&s->ss + 1);
    for (; p < end; p += 64) __builtin_prefetch(p);
}

/* libcurl's write callback: a streamed body into chunks, an error reply kept. */
static size_t slot_on_body(char *data, size_t size, size_t n_items, void *ud) {
    struct slot *s = ud;
    size_t n = size * n_items;
    if (!s->streaming) {
        size_t keep = SLOT_ERROR_BODY_MAX - s->error_body.len;
        (void)!buf_add(&s->error_body, data, n < keep ? n : keep);
        return n;
    }
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t t0 = slot_ns(&t);
    long long now = run_us_at(&t); /* what one read brought arrived together */
    const char *p = data;
    size_t left = n;
    struct schunk c;
    int rc;
    size_t before = s->received;
    buf_reset(&s->scratch);
    while ((rc = sstream_next(&s->ss, &p, &left, &c, &s->scratch)) == 1) slot_chunk(s, &c, now);
    watch_count_read((long)(s->received - before), &s->reads, &s->read_chunks, &s->burst_chunks);
    if (rc < 0) slot_stream_error(s, "stream_framing", buf_str(&s->scratch), s->scratch.len);
    s->cost.decode_ns += slot_clock_ns() - t0;
    return rc < 0 ? 0 : n; /* 0 ends the transfer */
}

/* What a connection is chosen by, the same for a slot's requests and a warm-up
 * (libcurl reuses a connection only for a transfer of the same TLS settings). */
static CURLcode slot_easy_common(CURL *easy, const struct slot_config *cfg) {
    CURLcode rc = curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    rc |= curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    rc |= curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    rc |= curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, cfg->timeout_ms);
    if (cfg->cacert) rc |= curl_easy_setopt(easy, CURLOPT_CAINFO, cfg->cacert);
    if (cfg->insecure) {
        rc |= curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
        rc |= curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    return rc;
}

static size_t slot_discard(char *data, size_t size, size_t n_items, void *ud) {
    (void)data, (void)ud;
    return size * n_items;
}

int slot_warm_new(const struct slot_config *cfg, CURL **out) {
    struct buf url;
    buf_init(&url, BUF_NO_CAP);
    *out = NULL;
    CURL *easy =
        buf_addf(&url, "%s%s", cfg->base_url, SLOT_WARM_PATH) == 0 ? curl_easy_init() : NULL;
    CURLcode rc = easy ? slot_easy_common(easy, cfg) : CURLE_OUT_OF_MEMORY;
    if (easy) {
        rc |= curl_easy_setopt(easy, CURLOPT_PRIVATE, NULL);
        rc |= curl_easy_setopt(easy, CURLOPT_URL, buf_str(&url));
        rc |= curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
        rc |= curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, slot_discard);
    }
    buf_free(&url);
    if (rc != CURLE_OK) {
        if (easy) curl_easy_cleanup(easy);
        return easy ? SLOT_ERR_CURL : SLOT_ERR_NOMEM;
    }
    *out = easy;
    return SLOT_OK;
}

int slot_init(struct slot *s, const struct slot_config *cfg, struct disp *disp, bool keep_text) {
    *s = (struct slot){.cfg = cfg, .disp = disp, .keep_text = keep_text, .per = 1};
    buf_init(&s->error_body, SLOT_ERROR_BODY_MAX);
    buf_init(&s->text, SLOT_TEXT_MAX);
    buf_init(&s->scratch, 1024);
    sstream_init(&s->ss, SSTREAM_BODY_PLAIN, SSTREAM_FRAMING_AUTO, NULL);
    if (!(s->easy = curl_easy_init())) return SLOT_ERR_NOMEM;
    CURLcode rc = curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s);
    rc |= slot_easy_common(s->easy, cfg);
    rc |= curl_easy_setopt(s->easy, CURLOPT_PREREQFUNCTION, slot_on_prereq);
    rc |= curl_easy_setopt(s->easy, CURLOPT_PREREQDATA, s);
    rc |= curl_easy_setopt(s->easy, CURLOPT_HEADERFUNCTION, slot_on_header);
    rc |= curl_easy_setopt(s->easy, CURLOPT_HEADERDATA, s);
    rc |= curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, slot_on_body);
    rc |= curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
    return rc == CURLE_OK ? SLOT_OK : SLOT_ERR_CURL;
}

void slot_free(struct slot *s) {
    if (s->easy) curl_easy_cleanup(s->easy);
    curl_slist_free_all(s->headers);
    sstream_free(&s->ss);
    buf_free(&s->error_body);
    buf_free(&s->text);
    buf_free(&s->scratch);
    free(s->gaps);
    free(s->tokens);
    *s = (struct slot){0};
}

/* The signed request's lines (but the request line) as libcurl's header list,
 * and "Expect:" (no 100-continue round trip). */
static int slot_headers(struct slot *s, const char *head, const char *end) {
    curl_slist_free_all(s->headers);
    s->headers = NULL;
    char line[8192];
    for (const char *p = strstr(head, "\r\n"); p && p + 2 < end;) {
        const char *start = p + 2, *eol = strstr(start, "\r\n");
        if (!eol || eol > end || eol == start) break;
        size_t n = (size_t)(eol - start);
        if (n >= sizeof line) return SLOT_ERR_NOMEM;
        memcpy(line, start, n);
        line[n] = '\0';
        struct curl_slist *l = curl_slist_append(s->headers, line);
        if (!l) return SLOT_ERR_NOMEM;
        s->headers = l;
        p = eol;
    }
    struct curl_slist *l = curl_slist_append(s->headers, "Expect:");
    if (!l) return SLOT_ERR_NOMEM;
    s->headers = l;
    return SLOT_OK;
}

/* Clears what the last reply left. */
static void slot_reset(struct slot *s) {
    s->status = 0;
    s->streaming = false;
    s->error_type[0] = s->date[0] = s->content_type[0] = s->new_session[0] = '\0';
    s->service_us[0] = '\0';
    s->t_headers_us = s->t_first_us = s->t_last_us = s->t_first_output_us = 0;
    s->reasoning_tokens = 0;
    s->uncounted = 0;
    s->n_chunks = 0;
    s->received = 0;
    s->per = 1;
    s->open_n = 0;
    s->multi_token = false;
    s->chunk_tokens = 0;
    s->reads = s->read_chunks = s->burst_chunks = 0;
    s->stream_code[0] = s->stream_message[0] = '\0';
    buf_reset(&s->error_body);
    buf_reset(&s->text);
}

void slot_handed(struct slot *s) {
    s->t_handed_us = run_now_us();
    s->wall_handed_us = run_wall_us();
}

int slot_prepare(struct slot *s, const struct plan_entry *e, struct sigcreds *creds,
                 struct buf *err) {
    const char *raw;
    size_t len;
    if (sigcreds_sign(creds, disp_request(s->disp, e), &raw, &len, err)) return SLOT_ERR_SIGN;
    const char *sp = memchr(raw, ' ', len), *sp2 = sp ? memchr(sp + 1, ' ', len) : NULL;
    const char *body = strstr(raw, "\r\n\r\n");
    if (!sp || !sp2 || !body) return buf_fail(err, SLOT_ERR_SIGN, "a malformed signed request");
    body += 4;
    struct buf url;
    buf_init(&url, BUF_NO_CAP);
    int rc = buf_addf(&url, "%s%.*s", s->cfg->base_url, (int)(sp2 - sp - 1), sp + 1) == 0
                 ? slot_headers(s, raw, body - 2)
                 : SLOT_ERR_NOMEM;
    size_t body_len = len - (size_t)(body - raw);
    CURLcode c = CURLE_OK;
    if (rc == SLOT_OK) {
        c = curl_easy_setopt(s->easy, CURLOPT_URL, buf_str(&url));
        c |= curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, s->headers);
        c |= curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE, (long)body_len);
        c |= curl_easy_setopt(s->easy, CURLOPT_COPYPOSTFIELDS, body);
    }
    buf_free(&url);
    if (rc) return buf_fail(err, rc, "out of memory");
    if (c != CURLE_OK) return buf_fail(err, SLOT_ERR_CURL, "libcurl refused the request");
    slot_reset(s);
    s->entry = e;
    s->left = false;
    slot_handed(s);
    s->want_text = s->keep_text || call_scored(plan_entry_call(e)) || disp_wants_text(s->disp);
    s->control = disp_control(s->disp);
    return SLOT_OK;
}

/* The stream's end: the chunks still held, and how it ended. */
static void slot_finish_stream(struct slot *s, CURLcode result) {
    struct schunk c;
    int rc;
    long long now = run_now_us();
    size_t before = s->received;
    buf_reset(&s->scratch);
    while (result == CURLE_OK && (rc = sstream_finish(&s->ss, &c, &s->scratch)) == 1)
        slot_chunk(s, &c, now);
    watch_count_read((long)(s->received - before), &s->reads, &s->read_chunks, &s->burst_chunks);
    if (result == CURLE_OK && rc < 0)
        slot_stream_error(s, "stream_framing", buf_str(&s->scratch), s->scratch.len);
    if (result != CURLE_OK && result != CURLE_WRITE_ERROR)
        slot_stream_error(s, result == CURLE_OPERATION_TIMEDOUT ? "timeout" : "socket",
                          curl_easy_strerror(result), strlen(curl_easy_strerror(result)));
}

/* How long opening the request's connection took, as libcurl timed it from the
 * transfer's start: the connect (name lookup and TCP; 0 on a kept connection)
 * and the TLS handshake after it (0 when reused or plain HTTP). */
static void slot_conn_times(struct slot *s, struct call_reply *in) {
    curl_off_t connect = 0, app = 0;
    if (curl_easy_getinfo(s->easy, CURLINFO_CONNECT_TIME_T, &connect) != CURLE_OK ||
        curl_easy_getinfo(s->easy, CURLINFO_APPCONNECT_TIME_T, &app) != CURLE_OK)
        return;
    in->conn_timed = true;
    in->connect_us = connect > 0 ? (long long)connect : 0;
    in->tls_us = app > connect && connect > 0 ? (long long)(app - connect) : 0;
}

void slot_done(struct slot *s, CURLcode result) {
    uint64_t t0 = slot_clock_ns();
    if (!s->left) disp_sent(s->disp, s->t_handed_us, s->wall_handed_us); /* never written */
    struct call_stream st = {.t_headers_us = s->t_headers_us,
                             .prompt_tokens = -1,
                             .completion_tokens = -1,
                             .cached_tokens = -1};
    struct call_reply in = {.status = s->status, .body = "", .stream = &st};
    if (s->streaming) {
        slot_finish_stream(s, result);
        const struct sstream_totals *t = &s->ss.totals;
        st = (struct call_stream){
            .t_headers_us = s->t_headers_us,
            .t_first_us = s->t_first_us,
            .t_first_output_us = s->t_first_output_us,
            .itl_per_token = s->received > 0 && s->uncounted == 0,
            .reasoning_tokens =
                t->reasoning_tokens >= 0 ? t->reasoning_tokens : s->reasoning_tokens,
            .gaps_us = s->gaps,
            .tokens = s->multi_token ? s->tokens : NULL,
            .n_chunks = s->n_chunks,
            .n_received = s->received,
            .chunk_tokens = s->chunk_tokens,
            .prompt_tokens = t->prompt_tokens,
            .completion_tokens = t->completion_tokens,
            .cached_tokens = t->cached_tokens,
            .finish_reason = t->finish_reason[0] ? t->finish_reason : NULL,
            .error_code = s->stream_code[0] ? s->stream_code : NULL,
            .error_message = s->stream_message,
            .text = buf_str(&s->text),
        };
    } else if (result != CURLE_OK || s->status < 200) {
        in.status = 0; /* no reply: a socket failure */
        in.stream = NULL;
    } else {
        in.body = buf_str(&s->error_body);
        in.len = s->error_body.len;
        in.error_type = s->error_type[0] ? s->error_type : NULL;
        in.date = s->date[0] ? s->date : NULL;
    }
    in.want_text = s->want_text;
    slot_conn_times(s, &in);
    in.service_us = s->status >= 200 && s->service_us[0] ? s->service_us : NULL;
    in.new_session = s->control && s->new_session[0] ? s->new_session : NULL;
    s->entry = NULL;
    run_watch_reads(s->reads, s->read_chunks, s->burst_chunks); /* before its record: its round */
    disp_finish(s->disp, &in);
    s->cost.record_ns += slot_clock_ns() - t0;
    s->cost.records++;
}
