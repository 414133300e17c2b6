/* tokz: a model's tokenizer for exact token lengths: a SentencePiece model
 * (tokenizer.model, through libsentencepiece: spmc.h) or a Hugging Face
 * tokenizer.json of byte-level BPE (bpe.h), told apart by the file's first
 * byte ('{': JSON).
 *
 * The prompt builder draws words that are one token each, both at the start of
 * a text and after a space, from the model's own vocabulary (checked by
 * encoding each), so that a text of n of them, joined by spaces, is n tokens:
 * both kinds split at spaces before they segment, so the counts add up (checked
 * at load on a sample). Building is then copying words: no encoding. A count
 * excludes what the chat template adds (BOS, role headers): that overhead is the
 * server's, measured from its usage. One tokz is used by one thread at a time. */
#ifndef SM_TOKZ_H
#define SM_TOKZ_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define TOKZ_MAX_FILE ((size_t)64 * 1024 * 1024) /* the largest tokenizer file read */

enum tokz_error {
    TOKZ_OK = 0,
    TOKZ_ERR_NOMEM = -1,
    TOKZ_ERR_IO = -2,     /* the file cannot be read */
    TOKZ_ERR_FORMAT = -3, /* not a model of either kind, or one without single-token words */
    TOKZ_ERR_ENCODE = -4, /* the tokenizer refused a text */
};

enum tokz_kind {
    TOKZ_SENTENCEPIECE,
    TOKZ_BPE,
};

struct tokz;

/* Loads the tokenizer file at path. Returns 0 or TOKZ_ERR_*, with one line in
 * err naming the file and what is wrong with it. */
__attribute__((warn_unused_result)) int tokz_open(const char *path, struct tokz **out,
                                                  struct buf *err);

void tokz_free(struct tokz *t);

enum tokz_kind tokz_kind(const struct tokz *t);

/* "sentencepiece" or "bpe". */
const char *tokz_kind_name(const struct tokz *t);

/* Encodes text[0..len): the ids go to ids[0..cap), their number (which may pass
 * cap) to *n. Returns 0 or TOKZ_ERR_*. */
__attribute__((warn_unused_result)) int tokz_encode(struct tokz *t, const char *text, size_t len,
                                                    int32_t *ids, size_t cap, size_t *n,
                                                    struct buf *err);

/* The number of tokens of text[0..len) into *n. Returns 0 or TOKZ_ERR_*. */
__attribute__((warn_unused_result)) int tokz_count(struct tokz *t, const char *text, size_t len,
                                                   size_t *n, struct buf *err);

/* The number of single-token words the builder draws from. */
size_t tokz_words(const struct tokz *t);

/* Appends a text of exactly n tokens, its words drawn from seed (the same seed,
 * the same text). Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int tokz_prompt(const struct tokz *t, size_t n, uint64_t seed,
                                                    struct buf *out);

#endif
