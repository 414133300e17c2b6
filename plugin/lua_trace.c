#include <stdlib.h>

#include <lauxlib.h>

#include "lua_sagemaker.h"
#include "ramp.h"
#include "trace.h"

static void lsm_trace_count(lua_State *L, const char *name, long v) {
    if (v < 0) return;
    lua_pushnumber(L, (lua_Number)v);
    lua_setfield(L, -2, name);
}

static void lsm_trace_push(lua_State *L, const struct trace *t) {
    lua_createtable(L, 0, 3);
    lsm_set_string(L, "format", trace_format_name(t->format));
    lsm_set_number(L, "read", (double)t->n_read);
    lua_createtable(L, (int)t->n, 0);
    for (size_t i = 0; i < t->n; i++) {
        const struct trace_req *r = &t->reqs[i];
        lua_createtable(L, 0, 8);
        lsm_set_number(L, "at_us", (double)r->at_us);
        lsm_set_number(L, "t_us", (double)r->t_us);
        lsm_set_number(L, "line", (double)r->line);
        lsm_trace_count(L, "input_tokens", r->input_tokens);
        lsm_trace_count(L, "output_tokens", r->output_tokens);
        if (r->n_hash_ids) {
            lua_createtable(L, (int)r->n_hash_ids, 0);
            for (size_t k = 0; k < r->n_hash_ids; k++) {
                lua_pushnumber(L, (lua_Number)r->hash_ids[k]);
                lua_rawseti(L, -2, (int)k + 1);
            }
            lua_setfield(L, -2, "hash_ids");
        }
        if (r->body) {
            lua_pushlstring(L, r->body, r->body_len);
            lua_setfield(L, -2, "body");
        }
        if (r->content_type) lsm_set_string(L, "content_type", r->content_type);
        lua_rawseti(L, -2, (int)i + 1);
    }
    lua_setfield(L, -2, "requests");
}

int lsm_trace_load(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    double to_s = lsm_opt_num(L, 2, "to_s", -1);
    struct trace_spec s = {
        .speed = lsm_opt_num(L, 2, "speed", 1),
        .from_us = (long long)(lsm_opt_num(L, 2, "from_s", 0) * 1e6 + 0.5),
        .to_us = to_s < 0 ? -1 : (long long)(to_s * 1e6 + 0.5),
        .cap = (long)lsm_opt_num(L, 2, "cap", 0),
    };
    struct trace *t;
    struct buf err;
    buf_init(&err, 1024);
    if (trace_load(path, &s, &t, &err)) return lsm_fail_buf(L, &err, "out of memory");
    buf_free(&err);
    lsm_trace_push(L, t);
    trace_free(t);
    return 1;
}

int lsm_ramp(lua_State *L) {
    struct arrivals_seg *segs;
    size_t n;
    struct buf err;
    buf_init(&err, 1024);
    int rc = lua_isnil(L, 1) ? ramp_load(luaL_checkstring(L, 2), &segs, &n, &err)
                             : ramp_parse(luaL_checkstring(L, 1), &segs, &n, &err);
    if (rc) return lsm_fail_buf(L, &err, "out of memory");
    buf_free(&err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 3);
        lsm_set_number(L, "dur_s", segs[i].dur_s);
        lsm_set_number(L, "from", segs[i].from);
        lsm_set_number(L, "to", segs[i].to);
        lua_rawseti(L, -2, (int)i + 1);
    }
    free(segs);
    return 1;
}
