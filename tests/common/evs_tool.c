/* The C side of the differential tests against botocore (test_evs_botocore.py).
 *
 *   evs_tool encode   reads message descriptions on stdin and writes the
 *                     encoded stream to stdout. A message is a line
 *                     "M PAYLOAD_HEX COUNT" ("-" for an empty payload)
 *                     followed by COUNT lines "H NAME_HEX TYPE VALUE" (VALUE:
 *                     decimal for the number types, hex for bytes, string and
 *                     uuid, "-" for bools and empty values).
 *   evs_tool decode [LEN,LEN,...]
 *                     reads a stream on stdin and feeds it to the decoder in
 *                     slices of the given lengths (the rest in one last slice);
 *                     prints one JSON line per message, {"headers":[[NAME_HEX,
 *                     TYPE,VALUE],...],"payload":HEX}, then {"error":CODE} or
 *                     {"end":CODE} (0, or the error of evs_decoder_finish). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evs.h"

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Decodes hex ("-": nothing) into a malloc'ed block of *n bytes. */
static uint8_t *unhex(const char *s, size_t *n) {
    size_t len = strcmp(s, "-") == 0 ? 0 : strlen(s);
    uint8_t *out = malloc(len / 2 + 1);
    if (!out || len % 2) exit(2);
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) exit(2);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    *n = len / 2;
    return out;
}

static void puthex(const void *p, size_t n) {
    for (size_t i = 0; i < n; i++) printf("%02x", ((const uint8_t *)p)[i]);
}

static char *field(char **save) {
    char *f = strtok_r(NULL, " \n", save);
    if (!f) exit(2);
    return f;
}

static int encode(void) {
    static char line[1 << 20];
    struct buf out, err;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, BUF_NO_CAP);
    while (fgets(line, sizeof line, stdin)) {
        char *save = NULL;
        if (strcmp(strtok_r(line, " \n", &save), "M") != 0) exit(2);
        size_t plen, count;
        uint8_t *payload = unhex(field(&save), &plen);
        count = strtoul(field(&save), NULL, 10);
        struct evs_header *h = calloc(count + 1, sizeof *h);
        uint8_t **keep = calloc(2 * count + 1, sizeof *keep);
        if (!h || !keep) exit(2);
        for (size_t i = 0; i < count; i++) {
            if (!fgets(line, sizeof line, stdin) || strcmp(strtok_r(line, " \n", &save), "H") != 0)
                exit(2);
            keep[2 * i] = unhex(field(&save), &h[i].name_len);
            h[i].name = (const char *)keep[2 * i];
            h[i].type = (enum evs_type)strtol(field(&save), NULL, 10);
            const char *v = field(&save);
            if (h[i].type == EVS_BYTES || h[i].type == EVS_STRING || h[i].type == EVS_UUID)
                h[i].data = keep[2 * i + 1] = unhex(v, &h[i].len);
            else if (strcmp(v, "-") != 0)
                h[i].num = strtoll(v, NULL, 10);
        }
        int rc = evs_encode(&out, h, count, payload, plen, &err);
        if (rc) {
            fprintf(stderr, "evs_tool: %s\n", buf_str(&err));
            exit(1);
        }
        for (size_t i = 0; i < 2 * count; i++) free(keep[i]);
        free(keep);
        free(h);
        free(payload);
    }
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
    buf_free(&out);
    buf_free(&err);
    return 0;
}

static void print_message(const struct evs_message *m) {
    struct evs_header_iter it;
    struct evs_header h;
    int n = 0;
    printf("{\"headers\":[");
    evs_headers_begin(m, &it);
    while (evs_headers_next(&it, &h)) {
        printf("%s[\"", n++ ? "," : "");
        puthex(h.name, h.name_len);
        printf("\",%d,", (int)h.type);
        if (h.data) {
            printf("\"");
            puthex(h.data, h.len);
            printf("\"");
        } else
            printf("%" PRId64, h.num);
        printf("]");
    }
    printf("],\"count\":%zu,\"payload\":\"", m->header_count);
    puthex(m->payload, m->payload_len);
    printf("\"}\n");
}

static int decode(const char *splits) {
    struct buf in;
    buf_init(&in, BUF_NO_CAP);
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, stdin)) > 0)
        if (buf_add(&in, chunk, got) != BUF_OK) return 2;
    struct evs_decoder d;
    struct evs_message m;
    evs_decoder_init(&d, 0);
    const uint8_t *p = (const uint8_t *)(in.data ? in.data : "");
    size_t left = in.len;
    int rc = 0;
    while (rc >= 0) {
        size_t n = left;
        if (splits && *splits) {
            char *end;
            n = strtoul(splits, &end, 10);
            splits = *end == ',' ? end + 1 : end;
            if (n > left) n = left;
        }
        const uint8_t *slice = p;
        size_t sn = n;
        while ((rc = evs_decoder_next(&d, &slice, &sn, &m, NULL)) == 1) print_message(&m);
        p += n;
        left -= n;
        if (!left) break;
    }
    if (rc < 0)
        printf("{\"error\":%d}\n", rc);
    else
        printf("{\"end\":%d}\n", evs_decoder_finish(&d, NULL));
    evs_decoder_free(&d);
    buf_free(&in);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "encode") == 0) return encode();
    if (argc >= 2 && strcmp(argv[1], "decode") == 0) return decode(argc > 2 ? argv[2] : NULL);
    fprintf(stderr, "usage: evs_tool encode | decode [LEN,LEN,...]\n");
    return 2;
}
