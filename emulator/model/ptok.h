/* ptok: how the emulator counts a prompt's tokens. By its own rule (tok.h)
 * unless --tokenizer named the model's tokenizer (common/tokz.h): then every
 * prompt's usage.prompt_tokens is that tokenizer's count of the text plus the
 * same template tokens as before (CONT_CHAT_TOKENS_PER_* for a chat, 1 for a
 * completion), so a client that builds prompts of an exact length sees an
 * exact, constant template overhead. Replies are still made and counted by
 * tok.h's rule. The emulator answers on one thread: the tokenizer is global. */
#ifndef EMU_PTOK_H
#define EMU_PTOK_H

#include <stddef.h>

#include "buf.h"

/* Loads the tokenizer at path (NULL: none, tok.h's rule). Returns 0, or -1 with
 * one line in err naming the file. */
__attribute__((warn_unused_result)) int ptok_open(const char *path, struct buf *err);

void ptok_close(void);

/* The number of tokens of a prompt's text s[0..len). */
size_t ptok_count(const char *s, size_t len);

#endif
