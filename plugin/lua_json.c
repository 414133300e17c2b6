/* lua_json: JSON and Lua values, both ways (cJSON), for the Lua binding. */
#include <stdbool.h>

#include <lauxlib.h>
#include <lua.h>

#include <cjson/cJSON.h>

#include "lua_sagemaker.h"

#define LSM_JSON_DEPTH 64

/* Pushes j; false (nothing pushed) when the Lua stack cannot hold its nesting. */
bool lsm_push_json(lua_State *L, const cJSON *j) {
    if (!lua_checkstack(L, 3)) return false;
    if (cJSON_IsString(j))
        lua_pushstring(L, j->valuestring);
    else if (cJSON_IsNumber(j))
        lua_pushnumber(L, j->valuedouble);
    else if (cJSON_IsBool(j))
        lua_pushboolean(L, cJSON_IsTrue(j));
    else if (!cJSON_IsArray(j) && !cJSON_IsObject(j))
        lua_pushlightuserdata(L, NULL); /* sagemaker.null */
    else {
        const cJSON *e;
        int i = 1;
        lua_newtable(L);
        cJSON_ArrayForEach(e, j) {
            if (!lsm_push_json(L, e)) {
                lua_pop(L, 1);
                return false;
            }
            if (cJSON_IsArray(j))
                lua_rawseti(L, -2, i++);
            else
                lua_setfield(L, -2, e->string);
        }
    }
    return true;
}

/* sagemaker.json_decode(text) -> value | nil, message. JSON null is sagemaker.null. */
int lsm_json_decode(lua_State *L) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    cJSON *j = cJSON_ParseWithLength(s, len);
    if (!j) {
        const char *at = cJSON_GetErrorPtr();
        lua_pushnil(L);
        lua_pushfstring(L, "not valid JSON near byte %d", at ? (int)(at - s) + 1 : 1);
        return 2;
    }
    bool pushed = lsm_push_json(L, j);
    cJSON_Delete(j);
    return pushed ? 1 : lsm_fail(L, "JSON nested too deeply");
}

/* Whether the table at idx is a sequence 1..n with n > 0. */
static bool lsm_is_array(lua_State *L, int idx) {
    size_t n = lua_objlen(L, idx), count = 0;
    if (n == 0) return false;
    for (lua_pushnil(L); lua_next(L, idx); count++) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TNUMBER) {
            lua_pop(L, 1);
            return false;
        }
    }
    return count == n;
}

static cJSON *lsm_table_to_json(lua_State *L, int idx, int depth, const char **why) {
    bool array = lsm_is_array(L, idx);
    cJSON *out = array ? cJSON_CreateArray() : cJSON_CreateObject();
    if (!out || !lua_checkstack(L, 4)) goto fail;
    for (size_t i = 1; array && i <= lua_objlen(L, idx); i++) {
        lua_rawgeti(L, idx, (int)i);
        cJSON *v = lsm_to_json(L, lua_gettop(L), depth + 1, why);
        lua_pop(L, 1);
        if (!v || !cJSON_AddItemToArray(out, v)) {
            cJSON_Delete(v);
            goto fail;
        }
    }
    if (array) return out;
    for (lua_pushnil(L); lua_next(L, idx); lua_pop(L, 1)) {
        cJSON *v =
            lua_type(L, -2) == LUA_TSTRING ? lsm_to_json(L, lua_gettop(L), depth + 1, why) : NULL;
        if (lua_type(L, -2) != LUA_TSTRING) *why = "a table with keys that are not strings";
        if (!v || !cJSON_AddItemToObject(out, lua_tostring(L, -2), v)) {
            cJSON_Delete(v);
            lua_pop(L, 2);
            goto fail;
        }
    }
    return out;
fail:
    cJSON_Delete(out);
    return NULL;
}

/* The value at idx as cJSON, or NULL with *why set (never raises). */
cJSON *lsm_to_json(lua_State *L, int idx, int depth, const char **why) {
    if (idx < 0 && idx > LUA_REGISTRYINDEX) idx = lua_gettop(L) + idx + 1; /* it pushes */
    if (depth > LSM_JSON_DEPTH) {
        *why = "tables nested too deeply (or a cycle)";
        return NULL;
    }
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        return cJSON_CreateNull();
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) == NULL) return cJSON_CreateNull();
        break;
    case LUA_TBOOLEAN:
        return cJSON_CreateBool(lua_toboolean(L, idx));
    case LUA_TNUMBER:
        return cJSON_CreateNumber(lua_tonumber(L, idx));
    case LUA_TSTRING:
        return cJSON_CreateString(lua_tostring(L, idx));
    case LUA_TTABLE:
        return lsm_table_to_json(L, idx, depth, why);
    }
    *why = "a value JSON cannot hold (function, userdata or thread)";
    return NULL;
}

/* sagemaker.json_encode(value) -> text | nil, message. */
int lsm_json_encode(lua_State *L) {
    const char *why = "out of memory";
    luaL_checkany(L, 1);
    cJSON *j = lsm_to_json(L, 1, 0, &why);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!text) return lsm_fail(L, why);
    lua_pushstring(L, text);
    cJSON_free(text);
    return 1;
}
