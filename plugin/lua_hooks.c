/* lua_hooks: wrk's request() and response() as C closures over one
 * dispatcher (disp.h), one C call each; sagemaker.hooks makes them. */
#include <stdlib.h>
#include <strings.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua_sagemaker.h"
#include "run.h"
#include "wrkhost.h"

int lsm_hooks_gc(lua_State *L) {
    struct lsm_hooks *h = luaL_checkudata(L, 1, LSM_HOOKS);
    for (size_t i = 0; h->kept && i < h->n_kept; i++) luaL_unref(L, LUA_REGISTRYINDEX, h->kept[i]);
    free(h->kept);
    free(h->kept_gen);
    if (h->env) luaL_unref(L, LUA_REGISTRYINDEX, h->env);
    disp_free(h->disp);
    if (!h->borrowed) plan_free(h->plan);
    *h = (struct lsm_hooks){0};
    return 0;
}

/* Pushes e's request signed now (the kept string while its signature stays). */
static int lsm_push_signed(lua_State *L, struct lsm_hooks *h, const struct plan_entry *e,
                           struct buf *err) {
    struct sreq *r = disp_request(h->disp, e);
    size_t k = plan_request_number(h->plan, e), len;
    const char *raw;
    if (sigcreds_sign(&lsm_state(L)->creds, r, &raw, &len, err)) return -1;
    if (disp_dynamic(h->disp)) { /* a conversation's step: sent once */
        lua_pushlstring(L, raw, len);
        return 0;
    }
    if (h->kept[k] == LUA_NOREF || h->kept_gen[k] != sreq_generation(r)) {
        luaL_unref(L, LUA_REGISTRYINDEX, h->kept[k]);
        lua_pushlstring(L, raw, len);
        h->kept[k] = luaL_ref(L, LUA_REGISTRYINDEX);
        h->kept_gen[k] = sreq_generation(r);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->kept[k]);
    return 0;
}

/* wrk's request(). */
static int lsm_hooks_request(lua_State *L) {
    struct lsm_hooks *h = lua_touserdata(L, lua_upvalueindex(2));
    const struct plan_entry *e;
    h->L = L; /* a reply that never came is finished (and checked) here */
    int rc = disp_next(h->disp, lsm_on_main_thread(), &e); /* may wait: not a stall */
    if (rc == DISP_END) wrkhost_idle();                    /* wrk stops this thread meanwhile */
    struct buf err;
    buf_init(&err, 512);
    long long t0 = run_now_us();
    if (rc == DISP_SEND && lsm_push_signed(L, h, e, &err) == 0) {
        long long now = run_now_us();
        disp_sent(h->disp, now, run_wall_us());
        run_watch_stall(now - t0); /* signing held wrk's loop this long */
        buf_free(&err);
        return 1;
    }
    if (rc == DISP_SEND) disp_abort("cannot sign a request", buf_str(&err));
    buf_free(&err);
    if (rc == DISP_NONE) { /* another shard's sender: wrk writes nothing and waits to the end */
        lua_pushliteral(L, "");
        return 1;
    }
    lua_getfenv(L, lua_upvalueindex(2));
    lua_getfield(L, -1, "filler");
    return 1;
}

struct lsm_hooks *lsm_hooks_at(lua_State *L, int idx) {
    if (lua_tocfunction(L, idx) != lsm_hooks_request || !lua_getupvalue(L, idx, 2)) return NULL;
    struct lsm_hooks *h = luaL_checkudata(L, -1, LSM_HOOKS);
    lua_pop(L, 1);
    return h;
}

/* The headers a reply is read with, from wrk's table at idx (anchored by it). */
static void lsm_reply_headers(lua_State *L, int idx, struct call_reply *in) {
    static const char *const names[] = {"x-amzn-ErrorType", "date", "content-length",
                                        REPLY_SERVICE_HEADER};
    const char **slots[] = {&in->error_type, &in->date, &in->content_length, &in->service_us};
    for (lua_pushnil(L); lua_next(L, idx); lua_pop(L, 1))
        for (size_t i = 0; i < 4 && lua_type(L, -2) == LUA_TSTRING; i++)
            if (!*slots[i] && lua_type(L, -1) == LUA_TSTRING &&
                strcasecmp(lua_tostring(L, -2), names[i]) == 0)
                *slots[i] = lua_tostring(L, -1);
}

/* A session's NEW_SESSION reply: its X-Amzn-SageMaker-New-Session-Id header
 * (conv.h checks it), from wrk's table at idx (anchored by it). */
static void lsm_session_header(lua_State *L, int idx, struct call_reply *in) {
    for (lua_pushnil(L); lua_next(L, idx); lua_pop(L, 1))
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING &&
            strcasecmp(lua_tostring(L, -2), CONV_NEW_HEADER) == 0)
            in->new_session = lua_tostring(L, -1);
}

/* wrk's response(status, headers, body). */
static int lsm_hooks_response(lua_State *L) {
    struct lsm_hooks *h = lua_touserdata(L, lua_upvalueindex(2));
    struct call_reply in = {.status = (int)lua_tointeger(L, 1), .body = ""};
    if (in.status >= 100 && in.status < 200 && in.status != 101) {
        disp_interim(h->disp); /* 100 Continue and the like: the reply is still to come */
        return 0;
    }
    if (!disp_busy(h->disp)) return 0; /* a filler's */
    if (in.status >= 200 && in.status < 300 && lua_istable(L, 2)) {
        lua_getfield(L, 2, "Content-Length"); /* a success needs only this, in its usual case */
        in.content_length = lua_tostring(L, -1);
        lua_getfield(L, 2, REPLY_SERVICE_HEADER); /* and the emulator's, as it writes it */
        in.service_us = lua_tostring(L, -1);
    }
    if (!in.content_length && lua_istable(L, 2)) lsm_reply_headers(L, 2, &in);
    if (disp_control(h->disp) && lua_istable(L, 2)) lsm_session_header(L, 2, &in);
    if (lua_type(L, 3) == LUA_TSTRING) in.body = lua_tolstring(L, 3, &in.len);
    h->L = L;
    long long t0 = run_now_us();
    disp_finish(h->disp, &in);
    run_watch_stall(run_now_us() - t0); /* the check and the record held wrk's loop */
    return 0;
}

/* The environment of the hooks: the plan's items by number, the filler and the check. */
static void lsm_hooks_env(lua_State *L, int plan, int opts) {
    lua_newtable(L);
    int env = lua_gettop(L), n = 0;
    lua_getfield(L, plan, "rounds");
    for (size_t i = 0; i < lua_objlen(L, -1); i++) {
        lua_rawgeti(L, -1, (int)i + 1);
        lua_getfield(L, -1, "items");
        for (size_t k = 0; lua_istable(L, -1) && k < lua_objlen(L, -1); k++) {
            lua_rawgeti(L, -1, (int)k + 1);
            lua_rawseti(L, env, ++n);
        }
        lua_getfield(L, -2, "template");
        if (!lua_isnil(L, -1))
            lua_rawseti(L, env, ++n);
        else
            lua_pop(L, 1);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    lua_getfield(L, opts, "filler");
    luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, 2, "filler must be a string");
    lua_setfield(L, env, "filler");
    lua_getfield(L, opts, "check");
    luaL_argcheck(L, lua_isnil(L, -1) || lua_isfunction(L, -1), 2, "check must be a function");
    lua_setfield(L, env, "check");
}

/* sagemaker.hooks(plan, {thread, filler, check}) -> request, response | nil,
 * message: wrk's two per-request functions for one thread, each a single C call
 * (disp.h). request() returns the next item's request signed, or the filler
 * when there is nothing to send and for wrk's verification call; response(status,
 * headers, body) makes what came back its record. check(item, reply, record),
 * when given, sees each reply and its record first and may change the record.
 * Neither raises: what goes wrong stops the run, and the result files say why. */
int lsm_hooks(lua_State *L) {
    luaL_checktype(L, 2, LUA_TTABLE);
    struct lsm_hooks *h = lua_newuserdata(L, sizeof *h);
    *h = (struct lsm_hooks){0};
    luaL_getmetatable(L, LSM_HOOKS);
    lua_setmetatable(L, -2);
    int ud = lua_gettop(L);
    struct buf err;
    buf_init(&err, 1024);
    const struct plan *shared = run_shared_plan();
    if (shared) { /* read only from now on; its items are signed by one sender each */
        h->plan = (struct plan *)shared;
        h->borrowed = true;
    } else if (lsm_plan(L, 1, &h->plan, &err)) {
        return lsm_fail_buf(L, &err, "out of memory");
    }
    buf_free(&err);
    lsm_hooks_env(L, 1, 2);
    lua_getfield(L, -1, "check");
    bool check = h->check = !lua_isnil(L, -1);
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    h->env = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_setfenv(L, ud);
    lua_getfield(L, 2, "thread");
    int thread = (int)lua_tointeger(L, -1);
    struct disp_config c = {.plan = h->plan,
                            .thread = thread,
                            .verification = thread == 0,
                            .block = true,
                            .check = check ? lsm_check : NULL,
                            .check_ud = h,
                            .want_text = check};
    size_t n = h->n_kept = plan_n_requests(h->plan);
    h->kept = malloc((n + 1) * sizeof *h->kept);
    h->kept_gen = calloc(n + 1, sizeof *h->kept_gen);
    if (!h->kept || !h->kept_gen || disp_new(&c, &h->disp)) return lsm_fail(L, "out of memory");
    for (size_t i = 0; i < n; i++) h->kept[i] = LUA_NOREF;
    for (int i = 0; i < 2; i++) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushvalue(L, ud);
        lua_pushcclosure(L, i ? lsm_hooks_response : lsm_hooks_request, 2);
    }
    return 2;
}
