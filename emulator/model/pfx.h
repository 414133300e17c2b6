/* pfx: a prompt's tokens as blocks for the prefix cache (pcache.h), the way
 * vLLM's automatic prefix caching sees them: the token stream cut into blocks
 * of PFX_BLOCK tokens (vLLM's default block size), each block named by a hash
 * chained to every token before it, so two requests share block i only when
 * their first PFX_BLOCK x (i + 1) tokens are the same.
 *
 * Tokens are the emulator's (tok.h). A chat prompt is its template's tokens
 * around the messages' text, as many as cont.h counts: each message is
 * <start_of_turn> ROLE TEXT... <end_of_turn> "\n" (4 + its tokens; the role
 * "assistant" is Gemma's "model"), and the prompt ends with <start_of_turn>
 * model (2), so the reply's tokens follow on: a later turn that repeats a reply
 * as the assistant's message repeats the tokens the model made. A completions,
 * TGI or LMI prompt is <bos> and its text. Template tokens are hashed apart
 * from text, so no text can spell one. */
#ifndef EMU_PFX_H
#define EMU_PFX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PFX_BLOCK 16

struct pfx {
    uint64_t *blocks; /* the hash of each full block (malloc'ed) */
    size_t n_blocks, cap;
    size_t max_blocks; /* blocks kept at most (later ones are counted, not kept) */
    size_t tokens;     /* tokens fed */
    uint64_t chain;    /* the hash of every full block so far */
    uint64_t cur;      /* the hash of the block being filled */
    bool nomem;        /* an allocation failed: no block is kept after it */
};

/* Starts an empty stream keeping the blocks of its first max_tokens tokens.
 * Owns its blocks: pfx_free. */
void pfx_init(struct pfx *h, size_t max_tokens);
void pfx_free(struct pfx *h);
/* Forgets every token fed (keeps its memory); h may be NULL. */
void pfx_reset(struct pfx *h);

/* Each feeds tokens; h may be NULL (nothing is done). */
void pfx_text(struct pfx *h, const char *s, size_t len); /* every token of s (tok.h's rule) */
void pfx_chat_message(struct pfx *h, const char *role, const char *text, size_t len);
void pfx_chat_end(struct pfx *h);                         /* the template's reply header */
void pfx_plain(struct pfx *h, const char *s, size_t len); /* <bos> and s */

/* The full blocks of the first tokens tokens that h kept. */
size_t pfx_blocks_of(const struct pfx *h, size_t tokens);

#endif
