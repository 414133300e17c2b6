#include "tokz.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bpe.h"
#include "readall.h"
#include "spmc.h"

#define TOKZ_MAX_WORDS  1024 /* single-token words kept for the builder */
#define TOKZ_WORD_MIN   2    /* letters of a word, at least */
#define TOKZ_WORD_MAX   12   /* and at most */
#define TOKZ_CHECK_LEN  64   /* the tokens of the sample checked at load */
#define TOKZ_NAME_BYTES 200  /* of the path quoted in a message */

#define TOKZ_SLOT  16   /* bytes of a word's slot: a space and at most TOKZ_WORD_MAX letters */
#define TOKZ_BATCH 4096 /* words written per growth of the output */

_Static_assert(TOKZ_WORD_MAX + 1 <= TOKZ_SLOT, "a word and its space fit a slot");

/* A word as the builder copies it: the whole slot at once, then len bytes kept. */
struct tokz_word {
    char text[TOKZ_SLOT]; /* " word", padded */
    size_t len;
};

struct tokz {
    enum tokz_kind kind;
    struct bpe *bpe;
    struct spmc *spm;
    struct tokz_word *next; /* one token after a space */
    size_t nnext;
    struct tokz_word *first; /* one token at the start of a text too: "word", no space */
    size_t nfirst;
};

static uint64_t tokz_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

enum tokz_kind tokz_kind(const struct tokz *t) {
    return t->kind;
}

const char *tokz_kind_name(const struct tokz *t) {
    return t->kind == TOKZ_BPE ? "bpe" : "sentencepiece";
}

size_t tokz_words(const struct tokz *t) {
    return t->nnext;
}

int tokz_encode(struct tokz *t, const char *text, size_t len, int32_t *ids, size_t cap, size_t *n,
                struct buf *err) {
    if (t->kind == TOKZ_BPE) {
        int rc = bpe_encode(t->bpe, text, len, ids, cap, n, err);
        if (rc == BPE_ERR_NOMEM) return TOKZ_ERR_NOMEM;
        return rc ? TOKZ_ERR_ENCODE : TOKZ_OK;
    }
    long got = spmc_encode(t->spm, text, len, (int *)ids, cap);
    if (got < 0) return buf_fail(err, TOKZ_ERR_ENCODE, "the SentencePiece model refused a text");
    *n = (size_t)got;
    return TOKZ_OK;
}

int tokz_count(struct tokz *t, const char *text, size_t len, size_t *n, struct buf *err) {
    return tokz_encode(t, text, len, NULL, 0, n, err);
}

/* A number below n from the 32 bits r (Lemire's multiply-shift: no division). */
static inline size_t tokz_below(uint32_t r, size_t n) {
    return (size_t)(((uint64_t)r * n) >> 32);
}

int tokz_prompt(const struct tokz *t, size_t n, uint64_t seed, struct buf *out) {
    uint64_t s = seed;
    size_t i = 0;
    while (i < n) {
        size_t batch = n - i < TOKZ_BATCH ? n - i : TOKZ_BATCH, start = out->len, used = 0;
        char *p = buf_grow(out, batch * TOKZ_SLOT);
        if (!p) return BUF_ERR_NOMEM;
        for (size_t k = 0; k < batch; k++, i++) {
            uint64_t r = tokz_rand(&s);
            const struct tokz_word *w = i == 0 && t->nfirst
                                            ? &t->first[tokz_below((uint32_t)r, t->nfirst)]
                                            : &t->next[tokz_below((uint32_t)r, t->nnext)];
            memcpy(p + used, w->text, TOKZ_SLOT);
            used += w->len;
        }
        buf_truncate(out, start + used);
    }
    return BUF_OK;
}

/* The letters of a vocabulary token that is a marker (the space's stand-in)
 * and then TOKZ_WORD_MIN..MAX ASCII lowercase letters; NULL otherwise. */
static const char *tokz_candidate(const char *tok, const char *marker, size_t *len) {
    size_t m = strlen(marker);
    if (!tok || strncmp(tok, marker, m) != 0) return NULL;
    const char *p = tok + m;
    size_t k = 0;
    while (p[k] >= 'a' && p[k] <= 'z') k++;
    if (p[k] != '\0' || k < TOKZ_WORD_MIN || k > TOKZ_WORD_MAX) return NULL;
    *len = k;
    return p;
}

/* Whether text[0..len) is exactly one token. */
static bool tokz_single(struct tokz *t, const char *text, size_t len) {
    size_t n = 0;
    return tokz_count(t, text, len, &n, NULL) == TOKZ_OK && n == 1;
}

/* Finds the builder's words in the vocabulary and checks that they add up. */
static int tokz_find_words(struct tokz *t, const char *name, struct buf *err) {
    size_t size = t->kind == TOKZ_BPE ? bpe_size(t->bpe) : (size_t)spmc_size(t->spm);
    const char *marker = t->kind == TOKZ_BPE ? "\xC4\xA0" : "\xE2\x96\x81";
    if (!(t->next = calloc(TOKZ_MAX_WORDS, sizeof *t->next)) ||
        !(t->first = calloc(TOKZ_MAX_WORDS, sizeof *t->first)))
        return TOKZ_ERR_NOMEM;
    for (size_t id = 0; id < size && t->nnext < TOKZ_MAX_WORDS; id++) {
        size_t k;
        const char *tok = t->kind == TOKZ_BPE ? bpe_token(t->bpe, id) : spmc_piece(t->spm, (int)id);
        const char *letters = tokz_candidate(tok, marker, &k);
        if (!letters) continue;
        struct tokz_word *e = &t->next[t->nnext];
        e->text[0] = ' ';
        memcpy(e->text + 1, letters, k);
        e->len = k + 1;
        if (!tokz_single(t, e->text, e->len)) {
            memset(e, 0, sizeof *e);
            continue;
        }
        t->nnext++;
        if (tokz_single(t, e->text + 1, k)) {
            struct tokz_word *f = &t->first[t->nfirst++];
            memcpy(f->text, letters, k);
            f->len = k;
        }
    }
    if (t->nnext == 0)
        return buf_fail(err, TOKZ_ERR_FORMAT,
                        "%.*s: no word of its vocabulary is one token after a space, so no "
                        "prompt of an exact length can be built from it",
                        TOKZ_NAME_BYTES, name);
    for (uint64_t seed = 1; seed <= 2; seed++) {
        struct buf sample;
        buf_init(&sample, BUF_NO_CAP);
        size_t n = 0;
        int rc = tokz_prompt(t, TOKZ_CHECK_LEN, seed, &sample);
        if (rc == 0) rc = tokz_count(t, sample.data, sample.len, &n, err);
        buf_free(&sample);
        if (rc) return rc == BUF_ERR_NOMEM ? TOKZ_ERR_NOMEM : rc;
        if (n != TOKZ_CHECK_LEN)
            return buf_fail(err, TOKZ_ERR_FORMAT,
                            "%.*s: a text of %d of its single-token words is %zu tokens, so "
                            "its counts do not add up over words",
                            TOKZ_NAME_BYTES, name, TOKZ_CHECK_LEN, n);
    }
    return TOKZ_OK;
}

static int tokz_load(struct tokz *t, const char *path, struct buf *err) {
    struct buf file;
    buf_init(&file, TOKZ_MAX_FILE);
    /* A model in the Hugging Face cache is a link to its blob: the link is followed,
     * and the file it names must be a regular one (no FIFO to block on). */
    char *real = realpath(path, NULL);
    int rc = real ? readall_regular(real, &file) : errno;
    free(real);
    if (rc) {
        const char *why = rc == BUF_ERR_CAP               ? "larger than 64 MiB"
                          : rc == READALL_ERR_NOT_REGULAR ? "not a regular file"
                          : rc == BUF_ERR_NOMEM           ? "out of memory"
                          : rc > 0                        ? strerror(rc)
                                                          : "unreadable";
        buf_free(&file);
        return buf_fail(err, TOKZ_ERR_IO, "cannot read the tokenizer %.*s: %s", TOKZ_NAME_BYTES,
                        path, why);
    }
    size_t i = 0;
    while (i < file.len && strchr(" \t\r\n", file.data[i])) i++;
    if (i < file.len && file.data[i] == '{') {
        t->kind = TOKZ_BPE;
        rc = bpe_load(file.data, file.len, path, &t->bpe, err);
        rc = rc == BPE_ERR_NOMEM ? TOKZ_ERR_NOMEM : rc ? TOKZ_ERR_FORMAT : TOKZ_OK;
    } else {
        char why[160] = "";
        t->kind = TOKZ_SENTENCEPIECE;
        t->spm = file.len ? spmc_load(file.data, file.len, why, sizeof why) : NULL;
        /* The library's reason names its own source lines: the user is told what the file is not.
         */
        if (!t->spm)
            rc = buf_fail(err, TOKZ_ERR_FORMAT,
                          "%.*s: neither a tokenizer.json nor a SentencePiece model%s",
                          TOKZ_NAME_BYTES, path, file.len ? "" : " (empty)");
    }
    buf_free(&file);
    return rc ? rc : tokz_find_words(t, path, err);
}

int tokz_open(const char *path, struct tokz **out, struct buf *err) {
    *out = NULL;
    struct tokz *t = calloc(1, sizeof *t);
    if (!t) return buf_fail(err, TOKZ_ERR_NOMEM, "out of memory");
    int rc = tokz_load(t, path, err);
    if (rc) {
        if (rc == TOKZ_ERR_NOMEM)
            (void)buf_fail(err, rc, "%.*s: out of memory", TOKZ_NAME_BYTES, path);
        tokz_free(t);
        return rc;
    }
    *out = t;
    return TOKZ_OK;
}

void tokz_free(struct tokz *t) {
    if (!t) return;
    bpe_free(t->bpe);
    spmc_free(t->spm);
    free(t->next);
    free(t->first);
    free(t);
}
