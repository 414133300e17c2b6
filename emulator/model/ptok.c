#include "ptok.h"

#include "tok.h"
#include "tokz.h"

static struct tokz *ptok_model; /* NULL: tok.h's rule */

int ptok_open(const char *path, struct buf *err) {
    if (!path) return 0;
    return tokz_open(path, &ptok_model, err) ? -1 : 0;
}

void ptok_close(void) {
    tokz_free(ptok_model);
    ptok_model = NULL;
}

size_t ptok_count(const char *s, size_t len) {
    size_t n = 0;
    /* A text the tokenizer refuses (invalid UTF-8 for SentencePiece) is counted
     * by tok.h's rule rather than as nothing. */
    if (ptok_model && tokz_count(ptok_model, s, len, &n, NULL) == TOKZ_OK) return n;
    return tok_count(s, len);
}
