/* bpe: Hugging Face byte-level BPE (tokenizer.json of the GPT-2, Llama 3 and
 * Qwen kind) in C.
 *
 * What the file states is followed: the pre-tokenizer's split pattern (a Split
 * with a Regex, behaviour Isolated, or ByteLevel's own GPT-2 pattern with
 * use_regex), ByteLevel's add_prefix_space, the vocabulary, the merges (as "a b"
 * strings or ["a", "b"] pairs) applied lowest rank first, and ignore_merges.
 * Each piece's bytes are mapped through GPT-2's byte-to-unicode table before
 * the merges. Special tokens are never produced (a prompt's text is encoded as
 * text; the chat template adds them) and a normalizer is not applied (NFC
 * leaves the ASCII words the prompt builder uses unchanged). */
#ifndef SM_BPE_H
#define SM_BPE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum bpe_error {
    BPE_OK = 0,
    BPE_ERR_NOMEM = -1,
    BPE_ERR_FORMAT = -2, /* not a tokenizer.json this module reads */
    BPE_ERR_VOCAB = -3,  /* a piece's byte has no token */
};

struct bpe;

/* Reads a tokenizer.json held in json[0..len); name is how messages call it.
 * Returns 0 or BPE_ERR_*, with a one-line message in err naming the field. */
__attribute__((warn_unused_result)) int bpe_load(const char *json, size_t len, const char *name,
                                                 struct bpe **out, struct buf *err);

void bpe_free(struct bpe *b);

/* Encodes text[0..len): appends the ids to ids[0..cap) and returns their number
 * (which may pass cap) in *n. Returns 0 or BPE_ERR_*. */
__attribute__((warn_unused_result)) int bpe_encode(struct bpe *b, const char *text, size_t len,
                                                   int32_t *ids, size_t cap, size_t *n,
                                                   struct buf *err);

/* The number of ids of the vocabulary (the largest id + 1). */
size_t bpe_size(const struct bpe *b);

/* Token id's text as the vocabulary spells it (byte-to-unicode mapped: 'Ġ' for
 * a space), or NULL when no token has that id. */
const char *bpe_token(const struct bpe *b, size_t id);

#endif
