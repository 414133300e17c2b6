/* lua_sagemaker: the Lua binding (require "sagemaker") over the plugin's C
 * cores. Each function checks its arguments, calls a core and pushes the
 * results; bad data returns nil and a message, misuse raises. Nothing here
 * raises while it holds malloc'ed memory. The plan and wrk's hooks: lua_plan.c.
 *
 * Per lua_State: the credentials requests of that state are signed with (the
 * upvalue of every function). Shared by all of wrk's threads: run.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include <cjson/cJSON.h>
#include <openssl/rand.h>

#include "clockprobe.h"
#include "dist.h"
#include "lua_sagemaker.h"
#include "lua_tok.h"
#include "plainhttp.h"
#include "record.h"
#include "rfmt.h"
#include "prng.h"
#include "run.h"
#include "scrub.h"
#include "smname.h"
#include "tty.h"
#include "wrkargs.h"
#include "wrkhost.h"

static int lsm_loads;                     /* luaopen calls so far; only the main OS thread loads */
static const struct lsm_client *lsm_host; /* NULL: wrk */

void lsm_set_client(const struct lsm_client *c) {
    lsm_host = c;
}

const struct lsm_client *lsm_client(void) {
    return lsm_host;
}
static pthread_t lsm_main_thread; /* the OS thread of the first luaopen */

struct lsm_state *lsm_state(lua_State *L) {
    return lua_touserdata(L, lua_upvalueindex(1));
}

bool lsm_on_main_thread(void) {
    return lsm_loads > 0 && pthread_equal(pthread_self(), lsm_main_thread);
}

static int lsm_state_gc(lua_State *L) {
    sigcreds_clear(&((struct lsm_state *)luaL_checkudata(L, 1, LSM_STATE))->creds);
    return 0;
}

int lsm_fail(lua_State *L, const char *msg) {
    lua_pushnil(L);
    lua_pushstring(L, msg);
    return 2;
}

int lsm_fail_buf(lua_State *L, struct buf *b, const char *fallback) {
    lua_pushnil(L);
    lua_pushstring(L, b->len ? buf_str(b) : fallback);
    buf_free(b);
    return 2;
}

/* ---- small helpers ------------------------------------------------------ */

/* sagemaker.sha256_hex(data) -> hex */
static int lsm_sha256_hex(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    char hex[SIGV4_HEX_LEN + 1];
    if (sigv4_sha256_hex(s, len, hex)) return lsm_fail(L, "SHA-256 failed");
    lua_pushstring(L, hex);
    return 1;
}

/* sagemaker.tty_text(text) -> text fit for a terminal: scrubbed (scrub.h), what a
 * terminal obeys escaped visibly (tty.h), newlines and tabs kept. A scenario prints a
 * server's text through it. */
static int lsm_tty_text(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    struct buf clean, shown;
    buf_init(&clean, BUF_NO_CAP);
    buf_init(&shown, BUF_NO_CAP);
    int rc = scrub_append(&clean, s, len);
    if (!rc) rc = tty_escape(&shown, buf_str(&clean), clean.len, TTY_LINES);
    if (!rc) lua_pushlstring(L, buf_str(&shown), shown.len);
    buf_free(&clean);
    buf_free(&shown);
    return rc ? lsm_fail(L, "out of memory") : 1;
}

#define LSM_DRAWS_MAX 10000000 /* numbers one call of sample or lengths draws */

/* Pushes the n numbers of v (1-based indices when one is true) as a list. */
static void lsm_push_list(lua_State *L, const long *v, const size_t *idx, size_t n) {
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, idx ? (double)idx[i] + 1 : v ? (double)v[i] : 0);
        lua_rawseti(L, -2, (int)i + 1);
    }
}

/* sagemaker.sample(n, k, seed, replace) -> k indices of 1..n drawn from seed (prng.h),
 * each at most once unless replace | nil, message. */
static int lsm_sample(lua_State *L) {
    lua_Number n = luaL_checknumber(L, 1), k = luaL_checknumber(L, 2);
    bool replace = lua_toboolean(L, 4);
    if (!(n >= 1 && k >= 0 && k <= LSM_DRAWS_MAX && n <= LSM_DRAWS_MAX))
        return lsm_fail(L, "sample: n from 1 and k from 0, both at most 10,000,000");
    if (!replace && k > n) return lsm_fail(L, "sample: more than n without replacement");
    size_t *idx = malloc(((size_t)k + 1) * sizeof *idx);
    if (!idx || prng_sample((size_t)n, (size_t)k, (uint64_t)luaL_checknumber(L, 3), replace, idx)) {
        free(idx);
        return lsm_fail(L, "out of memory");
    }
    lsm_push_list(L, NULL, idx, (size_t)k);
    free(idx);
    return 1;
}

/* sagemaker.lengths(distribution, k, seed) -> k lengths (dist.h) | nil, message. */
static int lsm_lengths(lua_State *L) {
    const char *text = luaL_checkstring(L, 1);
    lua_Number k = luaL_checknumber(L, 2);
    struct dist d;
    struct buf err;
    buf_init(&err, 256);
    if (dist_parse(text, &d, &err)) return lsm_fail_buf(L, &err, "out of memory");
    buf_free(&err);
    if (!(k >= 0 && k <= LSM_DRAWS_MAX)) return lsm_fail(L, "lengths: k from 0 to 10,000,000");
    long *v = malloc(((size_t)k + 1) * sizeof *v);
    if (!v) return lsm_fail(L, "out of memory");
    dist_draw(&d, (size_t)k, (uint64_t)luaL_checknumber(L, 3), v);
    lsm_push_list(L, v, NULL, (size_t)k);
    free(v);
    return 1;
}

/* sagemaker.is_main_state() -> whether this state loaded the module first (wrk's main state). */
static int lsm_is_main_state(lua_State *L) {
    lua_pushboolean(L, lsm_state(L)->main);
    return 1;
}

/* sagemaker.endpoint_ok(name), label_ok(label) -> whether the name or label is valid. */
static int lsm_endpoint_ok(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lua_pushboolean(L, smname_endpoint_ok(s, n));
    return 1;
}

static int lsm_label_ok(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lua_pushboolean(L, smname_label_ok(s, n));
    return 1;
}

/* sagemaker.region_of(host) -> the region of a SageMaker Runtime host, or nil. */
static int lsm_region_of(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    char region[64];
    if (!smname_region_of_host(s, n, region)) return 0;
    lua_pushstring(L, region);
    return 1;
}

/* sagemaker.plain_http_check(url, allow) -> true, or nil and why requests signed
 * for url must not go there (plainhttp.h). */
static int lsm_plain_http_check(lua_State *L) {
    const char *url = luaL_checkstring(L, 1);
    struct buf err;
    buf_init(&err, 512);
    if (plainhttp_check(url, lua_toboolean(L, 2), &err) == PLAINHTTP_OK) {
        buf_free(&err);
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, buf_str(&err));
    buf_free(&err);
    return 2;
}

void lsm_set_number(lua_State *L, const char *name, double v) {
    lua_pushnumber(L, (lua_Number)v);
    lua_setfield(L, -2, name);
}

void lsm_set_string(lua_State *L, const char *name, const char *v) {
    lua_pushstring(L, v);
    lua_setfield(L, -2, name);
}

/* sagemaker.wrk_args() -> {threads, connections, duration_s, timeout_s,
 * connections_set, duration_set, script, url, args} | nil, message: the client's
 * command line as wrk reads it (wrkargs.h), from /proc/self/cmdline. */
static int lsm_wrk_args(lua_State *L) {
    struct buf err;
    buf_init(&err, 512);
    struct wrkargs a = {0}, *own = &a;
    if (lsm_host)
        own = (struct wrkargs *)lsm_host->args; /* read only below */
    else if (wrkargs_read("/proc/self/cmdline", &a, &err))
        return lsm_fail_buf(L, &err, "cannot read wrk's command line");
    buf_free(&err);
    const struct wrkargs *w = own;
    lua_createtable(L, 0, 12);
    lsm_set_number(L, "threads", (double)w->threads);
    lsm_set_number(L, "connections", (double)w->connections);
    lsm_set_number(L, "duration_s", (double)w->duration_s);
    lsm_set_number(L, "timeout_s", (double)w->timeout_ms / 1000.0);
    lua_pushboolean(L, w->connections_set);
    lua_setfield(L, -2, "connections_set");
    lua_pushboolean(L, w->duration_set);
    lua_setfield(L, -2, "duration_set");
    lsm_set_string(L, "script", w->script);
    lsm_set_string(L, "url", w->url);
    lua_createtable(L, (int)w->n_args, 0);
    for (size_t i = 0; i < w->n_args; i++) {
        lua_pushstring(L, w->args[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
    lua_setfield(L, -2, "args");
    wrkargs_free(&a);
    return 1;
}

const char *lsm_opt_str(lua_State *L, int t, const char *name) {
    lua_getfield(L, t, name);
    const char *v = lua_isnil(L, -1) ? NULL : luaL_checkstring(L, -1);
    lua_pop(L, 1); /* anchored by the table */
    return v;
}

double lsm_opt_num(lua_State *L, int t, const char *name, double dflt) {
    lua_getfield(L, t, name);
    double v = lua_isnil(L, -1) ? dflt : luaL_checknumber(L, -1);
    lua_pop(L, 1);
    return v;
}

static const luaL_Reg lsm_functions[] = {
    {"json_decode", lsm_json_decode},
    {"json_encode", lsm_json_encode},
    {"sha256_hex", lsm_sha256_hex},
    {"tty_text", lsm_tty_text},
    {"sample", lsm_sample},
    {"lengths", lsm_lengths},
    {"is_main_state", lsm_is_main_state},
    {"endpoint_ok", lsm_endpoint_ok},
    {"label_ok", lsm_label_ok},
    {"region_of", lsm_region_of},
    {"plain_http_check", lsm_plain_http_check},
    {"wrk_args", lsm_wrk_args},
    {"begin", lsm_begin},
    {"schedule", lsm_schedule},
    {"add_file", lsm_add_file},
    {"hooks", lsm_hooks},
    {"finish", lsm_finish},
    {"set_template", lsm_set_template},
    {"trace", lsm_trace_load},
    {"ramp", lsm_ramp},
    {"tokenizer", lsm_tok_open},
    {NULL, NULL},
};

__attribute__((visibility("default"))) int luaopen_sagemaker(lua_State *L) {
    struct lsm_state *s = lua_newuserdata(L, sizeof *s);
    memset(s, 0, sizeof *s);
    s->main = lsm_loads++ == 0;
    if (s->main) lsm_main_thread = pthread_self();
    luaL_newmetatable(L, LSM_STATE);
    lua_pushcfunction(L, lsm_state_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    luaL_newmetatable(L, LSM_HOOKS);
    lua_pushcfunction(L, lsm_hooks_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -2);
    luaL_openlib(L, NULL, lsm_functions, 1);
    lua_pushstring(L, SM_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushstring(L, lsm_host ? lsm_host->name : "wrk");
    lua_setfield(L, -2, "client");
    lua_pushlightuserdata(L, NULL);
    lua_setfield(L, -2, "null");
    return 1;
}
