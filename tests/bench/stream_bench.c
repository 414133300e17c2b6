/* The CPU cost per received token of the streaming codecs (common/sstream):
 * eventstream decoding with both CRCs, SSE parsing and chunk parsing, on
 * realistic vLLM chat chunks, one PayloadPart per token as SageMaker relays
 * the container's flushes. Prints ns/token for several slicings of the body.
 * Usage: stream_bench [TOKENS]   (default 1000000) */
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

int main(int argc, char **argv) {
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
