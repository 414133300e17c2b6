/* Fuzzes the reader of Hugging Face tokenizer.json files and the byte-level
 * BPE encoder (common/bpe.h). Input: the file's JSON, a NUL byte, then the text
 * encoded with it (none: the whole input is the file).
 *
 * Whatever comes in: no crash; a refused file leaves one non-empty line in err
 * and no tokenizer; a loaded one encodes any bytes (invalid UTF-8 too) to at
 * most one id per byte of the text (plus the prefix space), each id a token of
 * the vocabulary, or refuses with one non-empty line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpe.h"

static void fuzz_bpe_one_line(const struct buf *err) {
    if (err->len == 0 || memchr(err->data, '\n', err->len)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *json = (const char *)data;
    const char *nul = memchr(data, '\0', size);
    size_t jlen = nul ? (size_t)(nul - json) : size;
    const char *text = nul ? nul + 1 : "";
    size_t tlen = nul ? size - jlen - 1 : 0;
    struct buf err;
    buf_init(&err, 1024);
    struct bpe *b = (struct bpe *)1;
    int rc = bpe_load(json, jlen, "fuzz.json", &b, &err);
    if (rc) {
        if (b != NULL) abort();
        if (rc != BPE_ERR_NOMEM) fuzz_bpe_one_line(&err);
        buf_free(&err);
        return 0;
    }
    size_t cap = tlen + 2, n = 0;
    int32_t *ids = malloc(cap * sizeof *ids);
    if (ids && (rc = bpe_encode(b, text, tlen, ids, cap, &n, &err)) == 0) {
        if (n > tlen + 1) abort();
        for (size_t i = 0; i < n; i++)
            if (ids[i] < 0 || !bpe_token(b, (size_t)ids[i])) abort();
    } else if (ids && rc != BPE_ERR_NOMEM) {
        fuzz_bpe_one_line(&err);
    }
    free(ids);
    bpe_free(b);
    buf_free(&err);
    return 0;
}
