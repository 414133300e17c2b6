/* lua_tok: the Lua binding of a model's tokenizer (common/tokz.h):
 *
 *   sagemaker.tokenizer(path) -> tok | nil, message (one line naming the file)
 *   tok:count(text)           -> its number of tokens | nil, message
 *   tok:encode(text)          -> its ids, a list | nil, message
 *   tok:prompt(n, seed)       -> a text of exactly n tokens, drawn from seed
 *   tok:kind()                -> "sentencepiece" or "bpe"
 *
 * A tokenizer belongs to the Lua state that loaded it (each of wrk's threads
 * loads its own). */
#ifndef SM_LUA_TOK_H
#define SM_LUA_TOK_H

#include <lua.h>

/* sagemaker.tokenizer */
int lsm_tok_open(lua_State *L);

#endif
