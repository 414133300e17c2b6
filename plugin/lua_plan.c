/* lua_plan: the Lua binding of the plan (plan.h): run.lua's plan table made a
 * plan in one call, and the scenario's check run on a reply. Tables and C
 * structs are converted field by field through the tables below. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua_sagemaker.h"

enum lsm_kind {
    LSM_STR,
    LSM_LONG,
    LSM_COUNT,
    LSM_INT,
    LSM_POS,
    LSM_LL,
    LSM_DOUBLE,
    LSM_BOOL,
    LSM_TRI
};

struct lsm_field {
    const char *name;
    enum lsm_kind kind; /* COUNT: a long < 0 is nil; POS: an int <= 0 is nil; TRI: an int < 0
                           is nil, else a boolean */
    size_t offset;
};

#define LSM_F(type, name, kind)                                                                    \
    { #name, kind, offsetof(type, name) }
// clang-format off
static const struct lsm_field lsm_request_fields[] = {
    LSM_F(struct plan_request, host, LSM_STR),       LSM_F(struct plan_request, region, LSM_STR),
    LSM_F(struct plan_request, service, LSM_STR),    LSM_F(struct plan_request, user_agent, LSM_STR),
    LSM_F(struct plan_request, format, LSM_STR),     LSM_F(struct plan_request, raw_body, LSM_STR),
    LSM_F(struct plan_request, extra, LSM_STR),      LSM_F(struct plan_request, min_tokens, LSM_COUNT),
    LSM_F(struct plan_request, seed, LSM_LONG),      LSM_F(struct plan_request, custom_attributes, LSM_STR),
    LSM_F(struct plan_request, thinking, LSM_STR),   LSM_F(struct plan_request, shared, LSM_BOOL),
};
static const struct lsm_field lsm_item_fields[] = {
    LSM_F(struct plan_item, phase, LSM_STR),         LSM_F(struct plan_item, batch, LSM_LONG),
    LSM_F(struct plan_item, question, LSM_STR),      LSM_F(struct plan_item, kind, LSM_STR),
    LSM_F(struct plan_item, answer, LSM_STR),        LSM_F(struct plan_item, pattern, LSM_STR),
    LSM_F(struct plan_item, prompt, LSM_STR),        LSM_F(struct plan_item, max_tokens, LSM_COUNT),
    LSM_F(struct plan_item, body, LSM_STR),
    LSM_F(struct plan_item, content_type, LSM_STR),
    LSM_F(struct plan_item, expect_tokens, LSM_COUNT), LSM_F(struct plan_item, temperature, LSM_DOUBLE),
    LSM_F(struct plan_item, ignore_eos, LSM_BOOL),
};
static const struct lsm_field lsm_record_fields[] = {
    LSM_F(struct rec_record, thread, LSM_INT),       LSM_F(struct rec_record, endpoint, LSM_STR),
    LSM_F(struct rec_record, variant, LSM_STR),      LSM_F(struct rec_record, phase, LSM_STR),
    LSM_F(struct rec_record, batch, LSM_LONG),       LSM_F(struct rec_record, question, LSM_STR),
    LSM_F(struct rec_record, kind, LSM_STR),         LSM_F(struct rec_record, max_tokens, LSM_LONG),
    LSM_F(struct rec_record, status, LSM_INT),       LSM_F(struct rec_record, ok, LSM_BOOL),
    LSM_F(struct rec_record, prompt_tokens, LSM_COUNT), LSM_F(struct rec_record, completion_tokens, LSM_COUNT),
    LSM_F(struct rec_record, finish_reason, LSM_STR), LSM_F(struct rec_record, error_code, LSM_STR),
    LSM_F(struct rec_record, error_message, LSM_STR), LSM_F(struct rec_record, original_status, LSM_POS),
    LSM_F(struct rec_record, t_start_us, LSM_LL),    LSM_F(struct rec_record, t_end_us, LSM_LL),
    LSM_F(struct rec_record, wall_start_us, LSM_LL), LSM_F(struct rec_record, text, LSM_STR),
    LSM_F(struct rec_record, answer, LSM_STR),       LSM_F(struct rec_record, correct, LSM_TRI),
    LSM_F(struct rec_record, turn, LSM_POS),
};
static const struct lsm_field lsm_reply_fields[] = {
    LSM_F(struct reply, status, LSM_INT),            LSM_F(struct reply, text, LSM_STR),
    LSM_F(struct reply, prompt_tokens, LSM_COUNT),   LSM_F(struct reply, completion_tokens, LSM_COUNT),
    LSM_F(struct reply, finish_reason, LSM_STR),     LSM_F(struct reply, error_code, LSM_STR),
    LSM_F(struct reply, error_message, LSM_STR),     LSM_F(struct reply, original_status, LSM_POS),
};
// clang-format on
#define LSM_N(fields) (sizeof(fields) / sizeof((fields)[0]))

/* The number field at p of kind k: stored, and read back. */
static void lsm_store(void *p, enum lsm_kind k, double v) {
    if (k == LSM_LONG || k == LSM_COUNT)
        *(long *)p = (long)v;
    else if (k == LSM_INT || k == LSM_POS || k == LSM_TRI)
        *(int *)p = (int)v;
    else if (k == LSM_LL)
        *(long long *)p = (long long)v;
    else if (k == LSM_DOUBLE)
        *(double *)p = v;
    else
        *(bool *)p = v != 0;
}

static double lsm_load(const void *p, enum lsm_kind k) {
    return k == LSM_LONG || k == LSM_COUNT                ? (double)*(const long *)p
           : k == LSM_INT || k == LSM_POS || k == LSM_TRI ? *(const int *)p
           : k == LSM_LL                                  ? (double)*(const long long *)p
           : k == LSM_DOUBLE                              ? *(const double *)p
                                                          : *(const bool *)p;
}

/* Reads the fields of the table at t into obj (strings anchored by the table): a
 * missing count or tristate is -1, another number 0; strict raises on a wrong type. */
static void lsm_get(lua_State *L, int t, void *obj, const struct lsm_field *f, size_t n,
                    bool strict) {
    for (size_t i = 0; i < n; i++) {
        void *p = (char *)obj + f[i].offset;
        enum lsm_kind k = f[i].kind;
        lua_getfield(L, t, f[i].name);
        if (strict && !lua_isnil(L, -1) && k < LSM_BOOL)
            k == LSM_STR ? (void)luaL_checkstring(L, -1) : (void)luaL_checknumber(L, -1);
        if (k == LSM_STR)
            *(const char **)p = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        else if (k == LSM_BOOL || (k == LSM_TRI && lua_isboolean(L, -1)))
            lsm_store(p, k, lua_toboolean(L, -1));
        else
            lsm_store(p, k,
                      lua_isnumber(L, -1)              ? lua_tonumber(L, -1)
                      : k == LSM_COUNT || k == LSM_TRI ? -1
                                                       : 0);
        lua_pop(L, 1);
    }
}

/* Pushes obj's fields as a new table: NULL strings, negative counts and
 * tristates and POS fields <= 0 are nil. */
static void lsm_push(lua_State *L, const void *obj, const struct lsm_field *f, size_t n) {
    lua_createtable(L, 0, (int)n);
    for (size_t i = 0; i < n; i++) {
        const void *p = (const char *)obj + f[i].offset;
        enum lsm_kind k = f[i].kind;
        double v = k == LSM_STR ? 0 : lsm_load(p, k);
        if (k == LSM_STR                       ? !*(const char *const *)p
            : (k == LSM_COUNT || k == LSM_TRI) ? v < 0
                                               : k == LSM_POS && v <= 0)
            continue;
        if (k == LSM_STR)
            lua_pushstring(L, *(const char *const *)p);
        else if (k == LSM_BOOL || k == LSM_TRI)
            lua_pushboolean(L, v != 0);
        else
            lua_pushnumber(L, (lua_Number)v);
        lua_setfield(L, -2, f[i].name);
    }
}

/* Whether the table at t has field name. */
static bool lsm_has(lua_State *L, int t, const char *name) {
    lua_getfield(L, t, name);
    bool has = !lua_isnil(L, -1);
    lua_pop(L, 1);
    return has;
}

/* ---- the plan table --------------------------------------------------------- */

static struct plan *lsm_plan_new(lua_State *L, int idx, struct buf *err) {
    struct plan_request rq = {0};
    lua_getfield(L, idx, "request");
    luaL_argcheck(L, lua_istable(L, -1), idx, "plan.request must be a table");
    lsm_get(L, -1, &rq, lsm_request_fields, LSM_N(lsm_request_fields), true);
    rq.has_seed = lsm_has(L, -1, "seed");
    if (lsm_client()) {
        rq.route = lsm_client()->route;
        rq.bearer = lsm_client()->bearer;
    } else { /* wrk: InvokeEndpoint, or api "openai": the OpenAI route unstreamed */
        lua_getfield(L, -1, "api");
        const char *api = lua_tostring(L, -1);
        luaL_argcheck(L, !api || strcmp(api, "invoke") == 0 || strcmp(api, "openai") == 0, idx,
                      "plan.request.api must be invoke or openai");
        rq.route = api && strcmp(api, "openai") == 0 ? PLAN_ROUTE_OPENAI_WHOLE : PLAN_ROUTE_INVOKE;
        lua_pop(L, 1);
    }
    lua_getfield(L, idx, "sides");
    luaL_argcheck(L, lua_istable(L, -1), idx, "plan.sides must be a list");
    size_t n = lua_objlen(L, -1);
    struct plan_side *sides = lua_newuserdata(L, (n + 1) * sizeof *sides);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, -2, (int)i + 1);
        luaL_argcheck(L, lua_istable(L, -1), idx, "each side must be a table");
        lua_getfield(L, -1, "name");
        lua_getfield(L, -2, "variant");
        lua_getfield(L, -3, "component");
        sides[i] =
            (struct plan_side){lua_tostring(L, -3), lua_tostring(L, -2), lua_tostring(L, -1)};
        lua_pop(L, 4); /* anchored by the side */
    }
    struct plan *p;
    int rc = plan_new(&rq, sides, n, &p, err);
    lua_pop(L, 3);
    return rc ? NULL : p;
}

#define LSM_TURNS_MAX 1000 /* turns of one conversation at most */

/* A conversation's turns (a list of prompts), think times (seconds) and
 * session of the item at t into item; pushes one value: the room of the
 * turns and times (a userdata), or nil for an item that is no conversation. */
static void lsm_plan_turns(lua_State *L, int t, struct plan_item *item) {
    if (t < 0) t = lua_gettop(L) + t + 1;
    lua_getfield(L, t, "turns");
    if (lua_isnil(L, -1)) return;
    luaL_argcheck(L, lua_istable(L, -1), 1, "an item's turns must be a list of prompts");
    size_t n = lua_objlen(L, -1);
    luaL_argcheck(L, n >= 1 && n <= LSM_TURNS_MAX, 1, "an item has 1 to 1000 turns");
    unsigned char *room = lua_newuserdata(L, n * (sizeof(double) + sizeof(const char *)));
    double *think = (double *)(void *)room; /* the times first: both arrays stay aligned */
    const char **turns = (const char **)(void *)(room + n * sizeof *think);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, -2, (int)i + 1);
        turns[i] = luaL_checkstring(L, -1); /* anchored by the list, and it by the item */
        lua_pop(L, 1);
    }
    lua_getfield(L, t, "think_s");
    bool list = lua_istable(L, -1);
    for (size_t i = 0; i + 1 < n; i++) {
        think[i] = 0;
        if (!list) continue;
        lua_rawgeti(L, -1, (int)i + 1);
        think[i] = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : -1;
        lua_pop(L, 1);
    }
    lua_getfield(L, t, "session");
    item->session = lua_toboolean(L, -1);
    lua_pop(L, 2);
    lua_remove(L, -2); /* the list: the userdata stays */
    item->turns = turns;
    item->n_turns = n;
    item->think_s = think;
}

/* The item at the top of the stack (popped) added to p. */
static int lsm_plan_item(lua_State *L, struct plan *p, struct buf *err) {
    struct plan_item item = {0};
    luaL_argcheck(L, lua_istable(L, -1), 1, "each item must be a table");
    lsm_get(L, -1, &item, lsm_item_fields, LSM_N(lsm_item_fields), true);
    item.has_temperature = lsm_has(L, -1, "temperature");
    lsm_plan_turns(L, -1, &item);
    lua_insert(L, -2); /* under the item, popped with it */
    lua_getfield(L, -1, "side");
    luaL_argcheck(L, lua_istable(L, -1), 1, "an item's side must be a table");
    lua_getfield(L, -1, "index");
    item.side = (size_t)lua_tointeger(L, -1) - 1;
    lua_getfield(L, -3, "messages");
    const char *why = "out of memory";
    cJSON *messages = lua_isnil(L, -1) ? NULL : lsm_to_json(L, -1, 0, &why);
    item.messages = messages;
    int rc = !lua_isnil(L, -1) && !messages
                 ? buf_fail(err, PLAN_ERR_INPUT, "an item's messages: %s", why)
                 : plan_add_item(p, &item, err);
    cJSON_Delete(messages);
    lua_pop(L, 5);
    return rc;
}

/* The round at the top of the stack started in p: open loop when it has arrivals
 * (process, rate, burstiness, seed, count or duration_s; count defaults to the
 * number of its items; or ramp = pieces instead of rate, count and duration). */
static int lsm_plan_round(lua_State *L, struct plan *p, struct buf *err) {
    lua_getfield(L, -1, "arrivals");
    if (lua_isnil(L, -1)) {
        lua_getfield(L, -2, "per_thread");
        lua_getfield(L, -3, "duration_s");
        int rc = plan_add_round(p, lua_isnil(L, -2) ? -1 : (long)lua_tonumber(L, -2),
                                lua_tonumber(L, -1));
        lua_pop(L, 3);
        return rc;
    }
    luaL_argcheck(L, lua_istable(L, -1), 1, "a round's arrivals must be a table");
    lua_getfield(L, -1, "at_us");
    if (lua_istable(L, -1)) { /* a replay's times (trace.h) */
        long n = (long)lua_objlen(L, -1);
        long long *at = lua_newuserdata(L, (size_t)(n > 0 ? n : 1) * sizeof *at);
        for (long i = 0; i < n; i++) {
            lua_rawgeti(L, -2, (int)i + 1);
            at[i] = (long long)lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        int rc = plan_add_timed_round(p, at, n, err);
        lua_pop(L, 3);
        return rc;
    }
    lua_pop(L, 1);
    lua_getfield(L, -1, "ramp");
    size_t n_segs = lua_istable(L, -1) ? lua_objlen(L, -1) : 0;
    struct arrivals_seg *segs = lua_newuserdata(L, (n_segs ? n_segs : 1) * sizeof *segs);
    for (size_t i = 0; i < n_segs; i++) { /* a ramp's pieces (ramp.h, sagemaker.ramp) */
        lua_rawgeti(L, -2, (int)i + 1);
        luaL_argcheck(L, lua_istable(L, -1), 1, "a ramp's pieces must be tables");
        segs[i] = (struct arrivals_seg){lsm_opt_num(L, -1, "dur_s", 0),
                                        lsm_opt_num(L, -1, "from", 0), lsm_opt_num(L, -1, "to", 0)};
        lua_pop(L, 1);
    }
    lua_insert(L, -3); /* the pieces and their table under the arrivals, popped with them */
    lua_insert(L, -3);
    lua_getfield(L, -1, "process");
    int process = arrivals_process_of(lua_tostring(L, -1));
    lua_pop(L, 1);
    if (process < 0) {
        lua_pop(L, 3);
        return buf_fail(err, PLAN_ERR_INPUT, "arrivals.process must be constant, poisson or gamma");
    }
    lua_getfield(L, -4, "items");
    long items = lua_istable(L, -1) ? (long)lua_objlen(L, -1) : 0;
    lua_pop(L, 1);
    struct arrivals_spec a = {
        .process = (enum arrivals_process)process,
        .rate = lsm_opt_num(L, -1, "rate", 0),
        .burstiness = lsm_opt_num(L, -1, "burstiness", 1),
        .seed = (uint64_t)lsm_opt_num(L, -1, "seed", 0),
        .count = (long)lsm_opt_num(L, -1, "count", 0),
        .duration_us = (long long)(lsm_opt_num(L, -1, "duration_s", 0) * 1e6),
        .segs = segs,
        .n_segs = n_segs,
    };
    if (!a.count && a.duration_us <= 0) a.count = items;
    int rc = plan_add_open_round(p, &a, err);
    lua_pop(L, 3);
    return rc;
}

int lsm_plan(lua_State *L, int idx, struct plan **slot, struct buf *err) {
    luaL_checktype(L, idx, LUA_TTABLE);
    int rc = (*slot = lsm_plan_new(L, idx, err)) ? 0 : -1;
    lua_getfield(L, idx, "rounds");
    luaL_argcheck(L, lua_istable(L, -1), idx, "plan.rounds must be a list");
    for (size_t i = 0; !rc && i < lua_objlen(L, -1); i++) {
        lua_rawgeti(L, -1, (int)i + 1);
        luaL_argcheck(L, lua_istable(L, -1), idx, "each round must be a table");
        rc = lsm_plan_round(L, *slot, err);
        lua_getfield(L, -1, "items");
        for (size_t k = 0; !rc && lua_istable(L, -1) && k < lua_objlen(L, -1); k++) {
            lua_rawgeti(L, -1, (int)k + 1);
            rc = lsm_plan_item(L, *slot, err);
        }
        if (!rc && !lua_istable(L, -1)) {
            lua_getfield(L, -2, "template");
            rc = lsm_plan_item(L, *slot, err);
        }
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    if (rc && !err->len) (void)!buf_adds(err, "out of memory");
    return rc;
}

/* ---- the scenario's check ------------------------------------------------------ */

/* disp_check_fn: check(item, reply, record) in Lua; the record table stays on the
 * stack (its strings anchor *rec) until response() returns. */
int lsm_check(void *ud, size_t number, const struct call_result *r, struct rec_record *rec,
              struct buf *err) {
    const struct lsm_hooks *h = ud;
    lua_State *L = h->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->env);
    lsm_push(L, &r->rec, lsm_record_fields, LSM_N(lsm_record_fields));
    int t = lua_gettop(L);
    lua_getfield(L, t - 1, "check");
    lua_rawgeti(L, t - 1, (int)number + 1);
    lsm_push(L, &r->reply, lsm_reply_fields, LSM_N(lsm_reply_fields));
    if (r->skewed) {
        lua_pushnumber(L, (lua_Number)r->skew_offset);
        lua_setfield(L, -2, "skew_offset");
    }
    lua_pushvalue(L, t);
    if (lua_pcall(L, 3, 0, 0))
        return buf_fail(err, -1, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "not a message");
    lsm_get(L, t, rec, lsm_record_fields, LSM_N(lsm_record_fields), false);
    return 0;
}
