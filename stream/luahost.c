#include "luahost.h"

#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#define LUAHOST_THREAD    "sm-stream.thread"
#define LUAHOST_EXIT_CODE "sm-stream.exit" /* in the registry: the code os.exit gave */
#define LUAHOST_COPY_DEEP 16               /* tables copied between states nest at most this deep */

int luaopen_sagemaker(lua_State *L);

static const char luahost_exit_tag; /* the error os.exit raises, by its address */

/* os.exit([code]): unwinds to the host with the code, so that the host closes
 * every state (and frees what the module holds) before the process exits. */
static int luahost_os_exit(lua_State *L) {
    int code = lua_isboolean(L, 1) ? !lua_toboolean(L, 1) : (int)luaL_optinteger(L, 1, 0);
    lua_pushinteger(L, code);
    lua_setfield(L, LUA_REGISTRYINDEX, LUAHOST_EXIT_CODE);
    lua_pushlightuserdata(L, (void *)&luahost_exit_tag);
    return lua_error(L);
}

/* The error at the top of L's stack into err (or, from os.exit, its code into
 * h->exit_code), popped. */
static int luahost_fail(struct luahost *h, lua_State *L, const char *what, struct buf *err) {
    if (lua_touserdata(L, -1) == &luahost_exit_tag) {
        lua_getfield(L, LUA_REGISTRYINDEX, LUAHOST_EXIT_CODE);
        h->exit_code = (int)lua_tointeger(L, -1);
        lua_pop(L, 2);
        return LUAHOST_EXIT;
    }
    const char *msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "an error that is no message";
    int rc = buf_fail(err, LUAHOST_ERR_SCRIPT, "%s: %s", what, msg);
    lua_pop(L, 1);
    return rc;
}

/* Copies the value at idx of from onto to's stack (nil for what cannot be
 * copied: functions, userdata, tables nested too deep), as wrk's thread:get
 * and thread:set do. */
static void luahost_copy(lua_State *from, int idx, lua_State *to, int depth) {
    idx = idx < 0 ? lua_gettop(from) + idx + 1 : idx;
    switch (lua_type(from, idx)) {
    case LUA_TBOOLEAN:
        lua_pushboolean(to, lua_toboolean(from, idx));
        break;
    case LUA_TNUMBER:
        lua_pushnumber(to, lua_tonumber(from, idx));
        break;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(from, idx, &n);
        lua_pushlstring(to, s, n);
        break;
    }
    case LUA_TTABLE:
        if (depth < LUAHOST_COPY_DEEP && lua_checkstack(to, 3) && lua_checkstack(from, 3)) {
            lua_newtable(to);
            for (lua_pushnil(from); lua_next(from, idx); lua_pop(from, 1)) {
                luahost_copy(from, -2, to, depth + 1);
                luahost_copy(from, -1, to, depth + 1);
                if (lua_isnil(to, -2))
                    lua_pop(to, 2);
                else
                    lua_rawset(to, -3);
            }
            break;
        }
        /* fall through */
    default:
        lua_pushnil(to);
    }
}

/* thread:get(name) -> the thread state's global name. */
static int luahost_thread_get(lua_State *L) {
    lua_State *T = *(lua_State **)luaL_checkudata(L, 1, LUAHOST_THREAD);
    lua_getglobal(T, luaL_checkstring(L, 2));
    luahost_copy(T, -1, L, 0);
    lua_pop(T, 1);
    return 1;
}

/* thread:set(name, value): the thread state's global name. */
static int luahost_thread_set(lua_State *L) {
    lua_State *T = *(lua_State **)luaL_checkudata(L, 1, LUAHOST_THREAD);
    const char *name = luaL_checkstring(L, 2);
    luahost_copy(L, 3, T, 0);
    lua_setglobal(T, name);
    return 0;
}

static int luahost_thread_stop(lua_State *L) {
    luaL_checkudata(L, 1, LUAHOST_THREAD);
    return 0;
}

/* A new state as wrk makes one: the libraries, the module preloaded, the wrk table. */
static lua_State *luahost_state(const char *url) {
    lua_State *L = luaL_newstate();
    if (!L) return NULL;
    luaL_openlibs(L);
    lua_getglobal(L, "os");
    lua_pushcfunction(L, luahost_os_exit);
    lua_setfield(L, -2, "exit");
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_sagemaker);
    lua_setfield(L, -2, "sagemaker");
    lua_pop(L, 2);
    lua_newtable(L);
    const char *rest = strstr(url, "://");
    lua_pushlstring(L, url, rest ? (size_t)(rest - url) : 0);
    lua_setfield(L, -2, "scheme");
    lua_pushstring(L, "GET");
    lua_setfield(L, -2, "method");
    lua_pushstring(L, "/");
    lua_setfield(L, -2, "path");
    lua_newtable(L);
    lua_setfield(L, -2, "headers");
    lua_setglobal(L, "wrk");
    return L;
}

/* Loads and runs the script in L. */
static int luahost_load(struct luahost *h, lua_State *L, struct buf *err) {
    if (luaL_loadfile(L, h->script) || lua_pcall(L, 0, 0, 0))
        return luahost_fail(h, L, h->script, err);
    return LUAHOST_OK;
}

int luahost_open(struct luahost *h, const char *script, const char *url, size_t n_threads,
                 struct buf *err) {
    *h = (struct luahost){.script = script, .url = url, .n_threads = n_threads};
    // NOLINTNEXTLINE(bugprone-sizeof-expression): pointers
    h->threads = calloc(n_threads ? n_threads : 1, sizeof *h->threads);
    if (!h->threads || !(h->main = luahost_state(url))) return LUAHOST_ERR_NOMEM;
    luaL_newmetatable(h->main, LUAHOST_THREAD);
    lua_newtable(h->main);
    lua_pushcfunction(h->main, luahost_thread_get);
    lua_setfield(h->main, -2, "get");
    lua_pushcfunction(h->main, luahost_thread_set);
    lua_setfield(h->main, -2, "set");
    lua_pushcfunction(h->main, luahost_thread_stop);
    lua_setfield(h->main, -2, "stop");
    lua_setfield(h->main, -2, "__index");
    lua_pop(h->main, 1);
    return luahost_load(h, h->main, err);
}

/* Calls the global function name of L with nargs arguments below it, if L has one. */
static int luahost_call(struct luahost *h, lua_State *L, const char *name, int nargs,
                        struct buf *err) {
    lua_getglobal(L, name);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1 + nargs);
        return LUAHOST_OK;
    }
    lua_insert(L, -1 - nargs);
    if (lua_pcall(L, nargs, 0, 0)) return luahost_fail(h, L, name, err);
    return LUAHOST_OK;
}

int luahost_thread(struct luahost *h, size_t i, struct lsm_hooks **hooks, struct buf *err) {
    lua_State *T = h->threads[i] = luahost_state(h->url);
    if (!T) return LUAHOST_ERR_NOMEM;
    int rc = luahost_load(h, T, err);
    if (rc) return rc;
    lua_State **ud = lua_newuserdata(h->main, sizeof *ud); // NOLINT(bugprone-sizeof-expression)
    *ud = T;
    luaL_getmetatable(h->main, LUAHOST_THREAD);
    lua_setmetatable(h->main, -2);
    if ((rc = luahost_call(h, h->main, "setup", 1, err))) return rc;
    lua_newtable(T); /* init(args): run.lua reads its options itself */
    if ((rc = luahost_call(h, T, "init", 1, err))) return rc;
    lua_getglobal(T, "request");
    *hooks = lsm_hooks_at(T, -1);
    lua_pop(T, 1);
    if (!*hooks)
        return buf_fail(err, LUAHOST_ERR_SCRIPT,
                        "%s: its request() is not the plugin's: sm-stream runs scenarios made "
                        "with sm.run (run.scenario{...}), as scenarios/*.lua are",
                        h->script);
    (*hooks)->L = T;
    return LUAHOST_OK;
}

int luahost_done(struct luahost *h, struct buf *err) {
    lua_newtable(h->main); /* wrk's summary, latency and requests: run.lua keeps its own */
    lua_newtable(h->main);
    lua_newtable(h->main);
    return luahost_call(h, h->main, "done", 3, err);
}

void luahost_close(struct luahost *h) {
    for (size_t i = 0; h->threads && i < h->n_threads; i++)
        if (h->threads[i]) lua_close(h->threads[i]);
    if (h->main) lua_close(h->main);
    free(h->threads);
    *h = (struct luahost){0};
}
