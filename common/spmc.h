/* spmc: a C facade over Debian's libsentencepiece, whose API is C++ only.
 *
 * This pair is the one C++ file of the project (spmc.cc): the library offers no
 * C interface, and reimplementing SentencePiece's normalizer and its unigram and
 * BPE segmentation would be a second, unchecked copy of what the model's users
 * run. Everything else (reading the file, the prompt builder) stays in C
 * (tokz.h); no C++ exception crosses this interface. */
#ifndef SM_SPMC_H
#define SM_SPMC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct spmc;

/* Parses a serialized SentencePiece model (the bytes of tokenizer.model).
 * Returns the processor, or NULL with a one-line reason in why[0..why_len). */
struct spmc *spmc_load(const char *data, size_t len, char *why, size_t why_len);

void spmc_free(struct spmc *m);

/* Encodes text[0..len) (UTF-8) into ids, at most cap of them written. Returns
 * the number of ids (which may pass cap), or -1 when the library refuses. */
long spmc_encode(const struct spmc *m, const char *text, size_t len, int *ids, size_t cap);

/* The number of pieces of the vocabulary. */
int spmc_size(const struct spmc *m);

/* Piece id's text, or NULL for a control, unknown, unused or byte piece. */
const char *spmc_piece(const struct spmc *m, int id);

#ifdef __cplusplus
}
#endif

#endif
