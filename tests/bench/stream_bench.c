/* The CPU cost per received token of the streaming codecs (common/sstream):
 * eventstream decoding with both CRCs, SSE parsing and chunk parsing, on
 * realistic vLLM chat chunks, one PayloadPart per token as SageMaker relays
 * the container's flushes. Prints ns/token for several slicings of the body.
 * With --file, the eventstream body in FILE (a reply captured from sm-emulator)
 * instead, fed one message at a time, read again until TOKENS tokens; with
 * STREAMS, to that many streams in turn (their states out of the caches).
 * Usage: stream_bench [TOKENS]   (default 1000000)
 *        stream_bench --file FILE [TOKENS [STREAMS]] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sstream.h"

#define DISTINCT 1000 /* distinct chunks in the body, repeated to make TOKENS */

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* vLLM's chunk for one token (as its OpenAI server writes it). */
static void vllm_chunk(struct buf *out, int i) {
    static const char *words[] = {" the",        " lighthouse",        " keeper",        "\\n",
                                  " caf\\u00e9", " \xc3\xa9t\xc3\xa9", " \\\"storm\\\"", ","};
    if (buf_addf(
            out,
            "data: "
            "{\"id\":\"chatcmpl-4f1c0c2b9a6e4d0f8c2d7e5b3a1f9e60\",\"object\":\"chat.completion."
            "chunk\",\"created\":1727212812,\"model\":\"/opt/ml/model\",\"choices\":[{\"index\":0,"
            "\"delta\":{\"content\":\"%s\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":"
            "null}"
            "\n\n",
            words[i % 8]) != BUF_OK)
        exit(1);
}

/* TGI's event for one token. */
static void tgi_chunk(struct buf *out, int i) {
    if (buf_addf(out,
                 "data:{\"index\":%d,\"token\":{\"id\":%d,\"text\":\" word\",\"logprob\":-0.3125,"
                 "\"special\":false},\"generated_text\":null,\"details\":null}\n\n",
                 i + 1, 1000 + i) != BUF_OK)
        exit(1);
}

struct body {
    struct buf bytes;
    size_t msg_len[DISTINCT]; /* eventstream: each message's length */
};

static void make_body(struct body *b, int eventstream, void (*chunk)(struct buf *, int)) {
    struct buf text;
    buf_init(&b->bytes, BUF_NO_CAP);
    buf_init(&text, BUF_NO_CAP);
    for (int i = 0; i < DISTINCT; i++) {
        buf_reset(&text);
        chunk(&text, i);
        size_t before = b->bytes.len;
        int rc = eventstream ? evs_encode_payload_part(&b->bytes, text.data, text.len, NULL)
                             : buf_add(&b->bytes, text.data, text.len);
        if (rc) exit(1);
        b->msg_len[i] = b->bytes.len - before;
    }
    buf_free(&text);
}

/* Feeds the body rounds times; slice 0 = one message per slice, else fixed
 * slices of that many bytes. Returns CPU ns per token. */
static double run(const struct body *b, enum sstream_body kind, size_t slice, long rounds,
                  long *tokens_out) {
    struct sstream s;
    struct schunk c;
    uint64_t tokens = 0;
    sstream_init(&s, kind, SSTREAM_FRAMING_AUTO, NULL);
    double t0 = cpu_seconds();
    for (long r = 0; r < rounds; r++) {
        size_t at = 0;
        for (int i = 0; at < b->bytes.len; i++) {
            size_t n = slice ? slice : b->msg_len[i];
            if (n > b->bytes.len - at) n = b->bytes.len - at;
            const char *p = b->bytes.data + at;
            size_t left = n;
            int rc;
            while ((rc = sstream_next(&s, &p, &left, &c, NULL)) == 1) tokens += (uint64_t)c.tokens;
            if (rc < 0) {
                fprintf(stderr, "stream_bench: error %d: %s\n", rc, s.msg);
                exit(1);
            }
            at += n;
        }
    }
    double t = cpu_seconds() - t0;
    if (tokens != s.totals.tokens || s.totals.content_chunks != tokens) {
        fprintf(stderr, "stream_bench: counted %llu tokens, totals say %llu\n",
                (unsigned long long)tokens, (unsigned long long)s.totals.tokens);
        exit(1);
    }
    sstream_free(&s);
    *tokens_out = (long)tokens;
    return t * 1e9 / (double)tokens;
}

/* The eventstream layer alone (both CRCs, header checks), one message per slice. */
static double run_evs(const struct body *b, long rounds) {
    struct evs_decoder d;
    struct evs_message m;
    long messages = 0;
    evs_decoder_init(&d, 0);
    double t0 = cpu_seconds();
    for (long r = 0; r < rounds; r++) {
        const uint8_t *p = (const uint8_t *)b->bytes.data;
        for (int i = 0; i < DISTINCT; i++) {
            size_t left = b->msg_len[i];
            while (evs_decoder_next(&d, &p, &left, &m, NULL) == 1) messages++;
        }
    }
    double t = cpu_seconds() - t0;
    evs_decoder_free(&d);
    if (messages != rounds * DISTINCT) exit(1);
    return t * 1e9 / (double)messages;
}

/* The captured body's messages (the prelude's total length each). */
static size_t split_messages(const struct buf *body, size_t *lens, size_t max) {
    size_t n = 0;
    const uint8_t *at = (const uint8_t *)body->data, *end = at + body->len;
    while (n < max && end - at >= 4) {
        size_t len = (size_t)at[0] << 24 | (size_t)at[1] << 16 | (size_t)at[2] << 8 | at[3];
        if (len < 16 || len > (size_t)(end - at)) len = (size_t)(end - at);
        lens[n++] = len;
        at += len;
    }
    return n;
}

/* The eventstream body in path, as the engine reads it: one message per slice,
 * to n_streams streams in turn (each its own decoder, as in a run with that
 * many streams, whose states no cache holds), read again until want tokens.
 * Prints its tokens per reading and the ns/token. */
static int run_file(const char *path, long want, long n_streams) {
    struct buf body;
    buf_init(&body, 64 << 20);
    FILE *f = fopen(path, "rb");
    char block[65536];
    size_t n;
    while (f && (n = fread(block, 1, sizeof block, f)) > 0)
        if (buf_add(&body, block, n) != BUF_OK) break;
    size_t *lens = malloc((body.len / 16 + 1) * sizeof *lens);
    struct sstream *ss = calloc((size_t)n_streams, sizeof *ss);
    if (!f || ferror(f) || !feof(f) || body.len < 16 || !lens || !ss) {
        fprintf(stderr, "stream_bench: cannot read the eventstream body %s\n", path);
        if (f) fclose(f);
        buf_free(&body);
        free(lens);
        free(ss);
        return 2;
    }
    fclose(f);
    size_t n_msgs = split_messages(&body, lens, body.len / 16 + 1);
    uint64_t tokens = 0, per_reading = 0;
    double seconds = 0;
    int rc = 0;
    for (long r = 0; rc >= 0 && (r == 0 || (long)tokens < want); r++) {
        struct schunk c;
        for (long k = 0; k < n_streams; k++)
            sstream_init(&ss[k], SSTREAM_BODY_EVENTSTREAM, SSTREAM_FRAMING_AUTO, NULL);
        double t0 = cpu_seconds();
        size_t at = 0;
        for (size_t i = 0; rc >= 0 && i < n_msgs; at += lens[i++])
            for (long k = 0; rc >= 0 && k < n_streams; k++) {
                const char *p = body.data + at;
                size_t left = lens[i];
                while ((rc = sstream_next(&ss[k], &p, &left, &c, NULL)) == 1) continue;
            }
        seconds += cpu_seconds() - t0;
        per_reading = ss[0].totals.content_chunks;
        tokens += per_reading * (uint64_t)n_streams;
        if (rc < 0 || per_reading == 0)
            fprintf(stderr, "stream_bench: %s: %s\n", path, rc < 0 ? ss[0].msg : "no content");
        if (per_reading == 0) rc = -1;
        for (long k = 0; k < n_streams; k++) sstream_free(&ss[k]);
    }
    if (rc >= 0)
        printf("file %s: %zu bytes, %llu tokens a reading, %ld streams, %llu tokens, %.1f "
               "ns/token\n",
               path, body.len, (unsigned long long)per_reading, n_streams,
               (unsigned long long)tokens, seconds * 1e9 / (double)tokens);
    buf_free(&body);
    free(lens);
    free(ss);
    return rc < 0;
}

int main(int argc, char **argv) {
    if (argc > 2 && strcmp(argv[1], "--file") == 0)
        return run_file(argv[2], argc > 3 ? strtol(argv[3], NULL, 10) : 1000000,
                        argc > 4 && strtol(argv[4], NULL, 10) > 0 ? strtol(argv[4], NULL, 10) : 1);
    long want = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
    long rounds = want / DISTINCT > 0 ? want / DISTINCT : 1, tokens;
    struct body es_vllm, es_tgi, sse_vllm;
    make_body(&es_vllm, 1, vllm_chunk);
    make_body(&es_tgi, 1, tgi_chunk);
    make_body(&sse_vllm, 0, vllm_chunk);
    printf("%-52s %10s %8s\n", "body, slicing", "tokens", "ns/token");
    struct {
        const char *name;
        const struct body *b;
        enum sstream_body kind;
        size_t slice;
    } rows[] = {
        {"eventstream vLLM chat, one message per slice", &es_vllm, SSTREAM_BODY_EVENTSTREAM, 0},
        {"eventstream vLLM chat, 16 KiB slices", &es_vllm, SSTREAM_BODY_EVENTSTREAM, 16384},
        {"eventstream vLLM chat, 100-byte slices", &es_vllm, SSTREAM_BODY_EVENTSTREAM, 100},
        {"eventstream TGI, one message per slice", &es_tgi, SSTREAM_BODY_EVENTSTREAM, 0},
        {"plain SSE vLLM chat (OpenAI route), one event per slice", &sse_vllm, SSTREAM_BODY_PLAIN,
         0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double ns = run(rows[i].b, rows[i].kind, rows[i].slice, rounds, &tokens);
        printf("%-52s %10ld %8.1f\n", rows[i].name, tokens, ns);
    }
    printf("%-52s %10ld %8.1f\n", "eventstream layer alone (vLLM chat messages)", rounds * DISTINCT,
           run_evs(&es_vllm, rounds));
    printf("message bytes per token (vLLM chat, eventstream): %zu\n", es_vllm.msg_len[0]);
    buf_free(&es_vllm.bytes);
    buf_free(&es_tgi.bytes);
    buf_free(&sse_vllm.bytes);
    return 0;
}
