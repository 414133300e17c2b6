#include "lua_tok.h"

#include <lauxlib.h>

#include "tokz.h"

#define LSM_TOK_META       "sagemaker.tokenizer"
#define LSM_TOK_MAX_PROMPT 10000000 /* tokens of one built prompt, at most */

static struct tokz *lsm_tok_check(lua_State *L) {
    struct tokz **slot = luaL_checkudata(L, 1, LSM_TOK_META);
    if (!*slot) luaL_error(L, "the tokenizer is closed");
    return *slot;
}

static int lsm_tok_gc(lua_State *L) {
    struct tokz **slot = luaL_checkudata(L, 1, LSM_TOK_META);
    tokz_free(*slot);
    *slot = NULL;
    return 0;
}

static int lsm_tok_fail(lua_State *L, struct buf *err, const char *fallback) {
    lua_pushnil(L);
    lua_pushstring(L, err->len ? buf_str(err) : fallback);
    buf_free(err);
    return 2;
}

/* tok:count(text) -> n | nil, message */
static int lsm_tok_count(lua_State *L) {
    struct tokz *t = lsm_tok_check(L);
    size_t len, n = 0;
    const char *s = luaL_checklstring(L, 2, &len);
    struct buf err;
    buf_init(&err, 512);
    if (tokz_count(t, s, len, &n, &err)) return lsm_tok_fail(L, &err, "out of memory");
    buf_free(&err);
    lua_pushnumber(L, (lua_Number)n);
    return 1;
}

/* tok:encode(text) -> {id, ...} | nil, message */
static int lsm_tok_encode(lua_State *L) {
    struct tokz *t = lsm_tok_check(L);
    size_t len, n = 0;
    const char *s = luaL_checklstring(L, 2, &len);
    struct buf err, ids;
    buf_init(&err, 512);
    buf_init(&ids, BUF_NO_CAP);
    /* A token holds at least one byte, or is the one a text may begin with. */
    int32_t *v = (int32_t *)buf_grow(&ids, (len + 2) * sizeof *v);
    int rc = v ? tokz_encode(t, s, len, v, len + 2, &n, &err) : TOKZ_ERR_NOMEM;
    if (rc || n > len + 2) {
        buf_free(&ids);
        return lsm_tok_fail(L, &err, "out of memory");
    }
    buf_free(&err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, v[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
    buf_free(&ids);
    return 1;
}

/* tok:prompt(n, seed) -> text of exactly n tokens */
static int lsm_tok_prompt(lua_State *L) {
    struct tokz *t = lsm_tok_check(L);
    lua_Number n = luaL_checknumber(L, 2), seed = luaL_optnumber(L, 3, 1);
    luaL_argcheck(L, n >= 0 && n <= LSM_TOK_MAX_PROMPT && n == (lua_Number)(size_t)n, 2,
                  "a whole number of tokens from 0 to 10,000,000");
    luaL_argcheck(L, seed >= 0, 3, "a seed from 0");
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    if (tokz_prompt(t, (size_t)n, (uint64_t)seed, &out)) {
        buf_free(&out);
        lua_pushnil(L);
        lua_pushstring(L, "out of memory");
        return 2;
    }
    lua_pushlstring(L, buf_str(&out), out.len);
    buf_free(&out);
    return 1;
}

static int lsm_tok_kind(lua_State *L) {
    lua_pushstring(L, tokz_kind_name(lsm_tok_check(L)));
    return 1;
}

static const luaL_Reg lsm_tok_methods[] = {
    {"count", lsm_tok_count},
    {"encode", lsm_tok_encode},
    {"prompt", lsm_tok_prompt},
    {"kind", lsm_tok_kind},
    {NULL, NULL},
};

int lsm_tok_open(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    struct tokz **slot = lua_newuserdata(L, sizeof(struct tokz *));
    *slot = NULL;
    if (luaL_newmetatable(L, LSM_TOK_META)) {
        lua_pushcfunction(L, lsm_tok_gc);
        lua_setfield(L, -2, "__gc");
        lua_newtable(L);
        luaL_register(L, NULL, lsm_tok_methods);
        lua_setfield(L, -2, "__index");
    }
    lua_setmetatable(L, -2);
    struct buf err;
    buf_init(&err, 512);
    if (tokz_open(path, slot, &err)) {
        buf_one_line(&err);
        return lsm_tok_fail(L, &err, "out of memory");
    }
    buf_free(&err);
    return 1;
}
