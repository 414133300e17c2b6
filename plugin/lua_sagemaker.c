/* lua_sagemaker: the Lua binding (require "sagemaker") over the plugin's C
 * cores. Each function checks its arguments, calls a core and pushes the
 * results; bad data returns nil and a message, misuse raises. Nothing here
 * raises while it holds malloc'ed memory.
 *
 * Per lua_State: the credentials last used for signing (an upvalue of every
 * function). Shared by all of wrk's threads: shared.h. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <lauxlib.h>
#include <lua.h>

#include <cjson/cJSON.h>
#include <openssl/crypto.h>

#include "body.h"
#include "call.h"
#include "quiz.h"
#include "reply.h"
#include "shared.h"
#include "skew.h"
#include "smname.h"
#include "sreq.h"
#include "wrkargs.h"

#define LSM_STATE      "sagemaker.state"
#define LSM_REGEX      "sagemaker.regex"
#define LSM_REQUEST    "sagemaker.request"
#define LSM_CALL       "sagemaker.call"
#define LSM_JSON_DEPTH 64

/* The per-state upvalue. */
struct lsm_state {
    bool main;          /* the first state that loaded the module: wrk's main state */
    struct creds creds; /* the credentials requests of this state are signed with */
    time_t creds_at;    /* the second they were fetched for */
    unsigned long creds_gen;
};

static int lsm_loads;             /* luaopen calls so far; only the main OS thread loads */
static pthread_t lsm_main_thread; /* the OS thread of the first luaopen */

static struct lsm_state *lsm_state(lua_State *L) {
    return lua_touserdata(L, lua_upvalueindex(1));
}

static int lsm_state_gc(lua_State *L) {
    struct lsm_state *s = luaL_checkudata(L, 1, LSM_STATE);
    creds_clear(&s->creds);
    return 0;
}

/* nil, message: the way every function reports bad data. */
static int lsm_fail(lua_State *L, const char *msg) {
    lua_pushnil(L);
    lua_pushstring(L, msg);
    return 2;
}

static int lsm_fail_buf(lua_State *L, struct buf *b, const char *fallback) {
    lua_pushnil(L);
    lua_pushstring(L, b->len ? buf_str(b) : fallback);
    buf_free(b);
    return 2;
}

static void lsm_set_number(lua_State *L, const char *name, double v) {
    lua_pushnumber(L, (lua_Number)v);
    lua_setfield(L, -2, name);
}

static void lsm_set_boolean(lua_State *L, const char *name, bool v) {
    lua_pushboolean(L, v);
    lua_setfield(L, -2, name);
}

/* ---- JSON <-> Lua ------------------------------------------------------ */

/* Pushes j; false (nothing pushed) when the Lua stack cannot hold its nesting. */
static bool lsm_push_json(lua_State *L, const cJSON *j) {
    if (!lua_checkstack(L, 3)) return false;
    if (cJSON_IsString(j)) {
        lua_pushstring(L, j->valuestring);
    } else if (cJSON_IsNumber(j)) {
        lua_pushnumber(L, j->valuedouble);
    } else if (cJSON_IsBool(j)) {
        lua_pushboolean(L, cJSON_IsTrue(j));
    } else if (cJSON_IsArray(j) || cJSON_IsObject(j)) {
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
    } else {
        lua_pushlightuserdata(L, NULL); /* sagemaker.null */
    }
    return true;
}

/* sagemaker.json_decode(text) -> value | nil, message. JSON null is sagemaker.null. */
static int lsm_json_decode(lua_State *L) {
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
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TNUMBER) {
            lua_pop(L, 1);
            return false;
        }
        count++;
    }
    return count == n;
}

static cJSON *lsm_to_json(lua_State *L, int idx, int depth, const char **why);

static cJSON *lsm_table_to_json(lua_State *L, int idx, int depth, const char **why) {
    bool array = lsm_is_array(L, idx);
    cJSON *out = array ? cJSON_CreateArray() : cJSON_CreateObject();
    if (!out) return NULL;
    if (!lua_checkstack(L, 4)) goto fail;
    if (array) {
        for (size_t i = 1; i <= lua_objlen(L, idx); i++) {
            lua_rawgeti(L, idx, (int)i);
            cJSON *v = lsm_to_json(L, lua_gettop(L), depth + 1, why);
            lua_pop(L, 1);
            if (!v || !cJSON_AddItemToArray(out, v)) {
                cJSON_Delete(v);
                goto fail;
            }
        }
        return out;
    }
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            *why = "a table with keys that are not strings";
            lua_pop(L, 2);
            goto fail;
        }
        cJSON *v = lsm_to_json(L, lua_gettop(L), depth + 1, why);
        bool ok = v && cJSON_AddItemToObject(out, lua_tostring(L, -2), v);
        lua_pop(L, 1);
        if (!ok) {
            cJSON_Delete(v);
            lua_pop(L, 1);
            goto fail;
        }
    }
    return out;
fail:
    cJSON_Delete(out);
    return NULL;
}

/* The value at idx as cJSON, or NULL with *why set (never raises). */
static cJSON *lsm_to_json(lua_State *L, int idx, int depth, const char **why) {
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
static int lsm_json_encode(lua_State *L) {
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

/* sagemaker.strip(text) -> text without surrounding white space, as Python's str.strip(). */
static int lsm_strip(lua_State *L) {
    size_t len, off, n;
    const char *s = luaL_checklstring(L, 1, &len);
    quiz_strip(s, len, &off, &n);
    lua_pushlstring(L, s + off, n);
    return 1;
}

/* sagemaker.is_main_state() -> whether this state loaded the module first (wrk's main state). */
static int lsm_is_main_state(lua_State *L) {
    lua_pushboolean(L, lsm_state(L)->main);
    return 1;
}

/* sagemaker.clock() -> microseconds since the run's origin (monotonic), wall-clock microseconds. */
static int lsm_clock(lua_State *L) {
    lua_pushnumber(L, (lua_Number)shared_now_us());
    lua_pushnumber(L, (lua_Number)shared_wall_us());
    return 2;
}

/* sagemaker.iso8601(wall_us) -> "2026-11-30T10:28:46.123456Z" */
static int lsm_iso8601(lua_State *L) {
    char out[32];
    rec_iso8601((long long)luaL_checknumber(L, 1), out);
    lua_pushstring(L, out);
    return 1;
}

/* sagemaker.journal_path(result_path) -> the journal's path beside it. */
static int lsm_journal_path(lua_State *L) {
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    if (rec_journal_path(luaL_checkstring(L, 1), &out)) {
        buf_free(&out);
        return lsm_fail(L, "out of memory");
    }
    lua_pushlstring(L, buf_str(&out), out.len);
    buf_free(&out);
    return 1;
}

/* ---- wrk's command line -------------------------------------------------- */

static void lsm_push_wrkargs(lua_State *L, const struct wrkargs *a) {
    lua_createtable(L, 0, 12);
    lsm_set_number(L, "threads", (double)a->threads);
    lsm_set_number(L, "connections", (double)a->connections);
    lsm_set_number(L, "duration_s", (double)a->duration_s);
    lsm_set_number(L, "timeout_s", (double)a->timeout_ms / 1000.0);
    lsm_set_boolean(L, "connections_set", a->connections_set);
    lsm_set_boolean(L, "duration_set", a->duration_set);
    lua_pushstring(L, a->script);
    lua_setfield(L, -2, "script");
    lua_pushstring(L, a->url);
    lua_setfield(L, -2, "url");
    lua_createtable(L, (int)a->n_args, 0);
    for (size_t i = 0; i < a->n_args; i++) {
        lua_pushstring(L, a->args[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
    lua_setfield(L, -2, "args");
}

/* sagemaker.wrk_args([path]) -> {threads, connections, duration_s, timeout_s,
 * connections_set, duration_set, script, url, args} | nil, message: wrk's command
 * line as wrk reads it, from /proc/self/cmdline (or path, for tests). */
static int lsm_wrk_args(lua_State *L) {
    const char *path = luaL_optstring(L, 1, "/proc/self/cmdline");
    struct buf data, err;
    buf_init(&data, 1 << 20);
    buf_init(&err, 512);
    FILE *f = fopen(path, "rb");
    char chunk[4096], **argv = NULL;
    size_t n;
    int argc, rc = f ? 0 : -1;
    while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0 && !rc) rc = buf_add(&data, chunk, n);
    if (f) fclose(f);
    struct wrkargs a = {0};
    if (!rc) rc = wrkargs_split(data.data ? data.data : "", data.len, &argv, &argc);
    if (!rc) rc = wrkargs_parse(argc, argv, &a, &err);
    if (!rc) lsm_push_wrkargs(L, &a);
    wrkargs_free(&a);
    free(argv);
    buf_free(&data);
    if (!rc) {
        buf_free(&err);
        return 1;
    }
    return lsm_fail_buf(L, &err, "cannot read wrk's command line");
}

/* ---- bodies and replies --------------------------------------------------- */

static long lsm_opt_long(lua_State *L, int t, const char *name, long dflt) {
    lua_getfield(L, t, name);
    long v = lua_isnil(L, -1) ? dflt : (long)luaL_checknumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* sagemaker.body(format, {prompt, max_tokens, temperature, ignore_eos,
 * min_tokens, seed, extra}) -> body | nil, message. extra is a JSON object text. */
static int lsm_body(lua_State *L) {
    enum body_format f;
    struct body_params p = {0};
    if (body_format_parse(luaL_checkstring(L, 1), &f)) return lsm_fail(L, "unknown body format");
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "prompt");
    p.prompt = luaL_checkstring(L, -1); /* anchored by the table */
    lua_pop(L, 1);
    p.max_tokens = lsm_opt_long(L, 2, "max_tokens", -1);
    p.min_tokens = lsm_opt_long(L, 2, "min_tokens", -1);
    lua_getfield(L, 2, "temperature");
    p.has_temperature = !lua_isnil(L, -1);
    p.temperature = p.has_temperature ? luaL_checknumber(L, -1) : 0;
    lua_getfield(L, 2, "seed");
    p.has_seed = !lua_isnil(L, -1);
    p.seed = p.has_seed ? (long)luaL_checknumber(L, -1) : 0;
    lua_getfield(L, 2, "ignore_eos");
    p.ignore_eos = lua_toboolean(L, -1);
    lua_getfield(L, 2, "extra");
    const char *extra = lua_isnil(L, -1) ? NULL : luaL_checkstring(L, -1);
    lua_pop(L, 4);
    cJSON *ej = extra ? cJSON_Parse(extra) : NULL;
    if (extra && !cJSON_IsObject(ej)) {
        cJSON_Delete(ej);
        return lsm_fail(L, "the extra fields are not a JSON object");
    }
    p.extra = ej;
    struct buf out, err;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, 256);
    int rc = body_build(f, &p, &out, &err);
    cJSON_Delete(ej);
    if (rc) {
        buf_free(&out);
        return lsm_fail_buf(L, &err, "out of memory");
    }
    lua_pushlstring(L, buf_str(&out), out.len);
    buf_free(&out);
    buf_free(&err);
    return 1;
}

/* The headers a reply is read with, from wrk's table at idx (the strings stay
 * anchored by the table). Names in any case; a success needs only its
 * Content-Length, found first in its usual case. */
static void lsm_reply_headers(lua_State *L, int idx, struct call_reply *in) {
    static const struct {
        const char *name;
        size_t len;
    } names[] = {{"x-amzn-ErrorType", 16}, {"date", 4}, {"content-length", 14}};
    const char **slots[] = {&in->error_type, &in->date, &in->content_length};
    if (in->status >= 200 && in->status < 300) {
        lua_getfield(L, idx, "Content-Length");
        in->content_length = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        lua_pop(L, 1);
        if (in->content_length) return;
    }
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        size_t len;
        const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &len) : NULL;
        for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
            if (len == names[i].len && !*slots[i] && lua_type(L, -1) == LUA_TSTRING &&
                strcasecmp(name, names[i].name) == 0)
                *slots[i] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
}

static void lsm_set_string(lua_State *L, const char *name, const char *v) {
    if (!v) return;
    lua_pushstring(L, v);
    lua_setfield(L, -2, name);
}

static void lsm_set_count(lua_State *L, const char *name, long v) {
    if (v >= 0) lsm_set_number(L, name, (double)v);
}

/* Sets the fields a reply table and a record table share, from a record. */
static void lsm_set_outcome(lua_State *L, const struct rec_record *r) {
    lsm_set_count(L, "prompt_tokens", r->prompt_tokens);
    lsm_set_count(L, "completion_tokens", r->completion_tokens);
    lsm_set_string(L, "finish_reason", r->finish_reason);
    lsm_set_string(L, "error_code", r->error_code);
    lsm_set_string(L, "error_message", r->error_message);
    lsm_set_count(L, "original_status", r->original_status ? r->original_status : -1);
}

/* Pushes the reply table of parse_reply. */
static void lsm_push_reply(lua_State *L, const struct reply *r, bool skewed, long long offset) {
    const struct rec_record outcome = {
        .prompt_tokens = r->prompt_tokens,
        .completion_tokens = r->completion_tokens,
        .finish_reason = r->finish_reason,
        .error_code = r->error_code,
        .error_message = r->error_message,
        .original_status = r->original_status,
    };
    lua_createtable(L, 0, 10);
    lua_pushinteger(L, r->status);
    lua_setfield(L, -2, "status");
    lsm_set_string(L, "text", r->text);
    lsm_set_outcome(L, &outcome);
    if (skewed) lsm_set_number(L, "skew_offset", (double)offset);
}

/* sagemaker.parse_reply(status, headers, body) -> {status, text, prompt_tokens,
 * completion_tokens, finish_reason, error_code, error_message, original_status,
 * skew_offset}; absent fields are nil. skew_offset is set for a signature
 * outside the server's time window whose reply carried a Date header. */
static int lsm_parse_reply(lua_State *L) {
    struct call_reply in = {.status = (int)luaL_checkinteger(L, 1)};
    luaL_checktype(L, 2, LUA_TTABLE);
    in.body = luaL_optlstring(L, 3, "", &in.len);
    lsm_reply_headers(L, 2, &in);
    reply_trim(in.content_length, &in.body, &in.len);
    struct reply r;
    reply_init(&r);
    if (reply_parse(in.status, in.error_type, in.body, in.len, &r))
        return lsm_fail(L, "out of memory");
    long long offset = 0;
    bool skewed = r.error_code && skew_offset(in.status, r.error_code, r.error_message, in.date,
                                              time(NULL), &offset) == 0;
    lsm_push_reply(L, &r, skewed, offset);
    reply_clear(&r);
    return 1;
}

/* ---- quiz patterns -------------------------------------------------------- */

/* sagemaker.regex(pattern) -> regex | nil, message. regex:search(text) -> bool. */
static int lsm_regex(lua_State *L) {
    size_t len;
    const char *pattern = luaL_checklstring(L, 1, &len);
    /* NOLINTNEXTLINE(bugprone-sizeof-expression): the userdata holds the pointer */
    struct quiz_re **ud = lua_newuserdata(L, sizeof *ud);
    *ud = NULL;
    luaL_getmetatable(L, LSM_REGEX);
    lua_setmetatable(L, -2);
    struct buf err;
    buf_init(&err, 512);
    if (quiz_re_compile(pattern, len, ud, &err)) return lsm_fail_buf(L, &err, "out of memory");
    buf_free(&err);
    return 1;
}

static int lsm_regex_search(lua_State *L) {
    struct quiz_re **ud = luaL_checkudata(L, 1, LSM_REGEX);
    size_t len;
    const char *s = luaL_checklstring(L, 2, &len);
    bool found;
    if (!*ud || quiz_re_search(*ud, s, len, &found)) return lsm_fail(L, "pattern match failed");
    lua_pushboolean(L, found);
    return 1;
}

static int lsm_regex_gc(lua_State *L) {
    struct quiz_re **ud = luaL_checkudata(L, 1, LSM_REGEX);
    quiz_re_free(*ud);
    *ud = NULL;
    return 0;
}

/* ---- signed requests ------------------------------------------------------ */

static const char *lsm_field(lua_State *L, int t, const char *name, bool required) {
    lua_getfield(L, t, name);
    const char *v = required || !lua_isnil(L, -1) ? luaL_checkstring(L, -1) : NULL;
    lua_pop(L, 1); /* the string stays anchored by the table */
    return v;
}

/* A request object: the prepared request, and the Lua string of its last
 * signature (a registry reference), so an unchanged request is returned without
 * copying it into a new string. */
struct lsm_request {
    struct sreq *r;
    int kept; /* the string of signature kept_gen, or LUA_NOREF */
    unsigned long kept_gen;
};

/* sagemaker.request{method, target, host, content_type, accept, headers =
 * {{name, value}, ...}, user_agent, region, service, body} -> request | nil,
 * message. request:raw() -> the request signed for now (the same string while
 * the signature stays the same), then the clocks as sagemaker.clock() reads
 * them: the time the request leaves | nil, message. */
static int lsm_request(lua_State *L) {
    struct sreq_params p = {0};
    struct sigv4_header extra[16];
    luaL_checktype(L, 1, LUA_TTABLE);
    p.method = lsm_field(L, 1, "method", true);
    p.target = lsm_field(L, 1, "target", true);
    p.host = lsm_field(L, 1, "host", true);
    p.content_type = lsm_field(L, 1, "content_type", false);
    p.accept = lsm_field(L, 1, "accept", false);
    p.user_agent = lsm_field(L, 1, "user_agent", false);
    p.region = lsm_field(L, 1, "region", true);
    p.service = lsm_field(L, 1, "service", true);
    lua_getfield(L, 1, "body");
    p.body = luaL_checklstring(L, -1, &p.body_len);
    lua_getfield(L, 1, "headers");
    size_t n = lua_isnil(L, -1) ? 0 : lua_objlen(L, -1);
    luaL_argcheck(L, n <= 16, 1, "at most 16 extra headers");
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, -1, (int)i + 1);
        luaL_argcheck(L, lua_istable(L, -1), 1, "headers must be {name, value} pairs");
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        extra[i].name = luaL_checklstring(L, -2, &extra[i].name_len);
        extra[i].value = luaL_checklstring(L, -1, &extra[i].value_len);
        lua_pop(L, 3); /* anchored by the headers table, itself anchored by argument 1 */
    }
    p.extra = extra;
    p.n_extra = n;
    struct lsm_request *ud = lua_newuserdata(L, sizeof *ud);
    *ud = (struct lsm_request){.kept = LUA_NOREF};
    luaL_getmetatable(L, LSM_REQUEST);
    lua_setmetatable(L, -2);
    int rc = sreq_new(&p, &ud->r);
    if (rc == SREQ_ERR_INPUT) return lsm_fail(L, "a request field holds a line break");
    if (rc) return lsm_fail(L, "out of memory");
    return 1;
}

/* Refreshes s's credentials once a second; the generation changes with them. */
static int lsm_creds(struct lsm_state *s, time_t now, struct buf *err) {
    if (s->creds.access_key_id && s->creds_at == now) return 0;
    struct creds fresh = {0};
    if (shared_creds(now, &fresh, err)) return -1;
    bool same = s->creds.access_key_id &&
                strcmp(fresh.access_key_id, s->creds.access_key_id) == 0 &&
                strcmp(fresh.secret_access_key, s->creds.secret_access_key) == 0 &&
                !fresh.session_token == !s->creds.session_token &&
                (!fresh.session_token || strcmp(fresh.session_token, s->creds.session_token) == 0);
    creds_clear(&s->creds);
    s->creds = fresh;
    s->creds_at = now;
    if (!same) s->creds_gen++;
    return 0;
}

/* Pushes ud's request signed for now (the kept string while the signature
 * stays the same); or -1 with err set. */
static int lsm_push_signed(lua_State *L, struct lsm_state *s, struct lsm_request *ud,
                           struct buf *err) {
    time_t now = shared_signing_time();
    if (lsm_creds(s, now, err)) return -1;
    struct sigv4_credentials c = {s->creds.access_key_id, s->creds.secret_access_key,
                                  s->creds.session_token};
    const char *raw;
    size_t len;
    int rc = sreq_build(ud->r, shared_signer(), &c, s->creds_gen, now, &raw, &len);
    if (rc) {
        (void)!buf_adds(err, rc == SREQ_ERR_NOMEM ? "out of memory" : "signing failed");
        return -1;
    }
    if (ud->kept != LUA_NOREF && ud->kept_gen == sreq_generation(ud->r)) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, ud->kept);
        return 0;
    }
    lua_pushlstring(L, raw, len);
    lua_pushvalue(L, -1);
    if (ud->kept == LUA_NOREF)
        ud->kept = luaL_ref(L, LUA_REGISTRYINDEX);
    else
        lua_rawseti(L, LUA_REGISTRYINDEX, ud->kept);
    ud->kept_gen = sreq_generation(ud->r);
    return 0;
}

static int lsm_request_raw(lua_State *L) {
    struct lsm_request *ud = luaL_checkudata(L, 1, LSM_REQUEST);
    luaL_argcheck(L, ud->r != NULL, 1, "request not prepared");
    struct buf err;
    buf_init(&err, 512);
    if (lsm_push_signed(L, lsm_state(L), ud, &err)) return lsm_fail_buf(L, &err, "no credentials");
    buf_free(&err);
    lua_pushnumber(L, (lua_Number)shared_now_us());
    lua_pushnumber(L, (lua_Number)shared_wall_us());
    return 3;
}

static int lsm_request_gc(lua_State *L) {
    struct lsm_request *ud = luaL_checkudata(L, 1, LSM_REQUEST);
    sreq_free(ud->r);
    ud->r = NULL;
    luaL_unref(L, LUA_REGISTRYINDEX, ud->kept);
    ud->kept = LUA_NOREF;
    return 0;
}

/* ---- the run -------------------------------------------------------------- */

static double lsm_opt_number(lua_State *L, int t, const char *name, double dflt) {
    lua_getfield(L, t, name);
    double v = lua_isnil(L, -1) ? dflt : luaL_checknumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* sagemaker.begin{scenario, threads, cap_s, rounds = {{items, per_thread,
 * duration_s}, ...}, refuse_after, progress_s, profile} -> true | nil, message.
 * Main state only, once. */
static int lsm_begin(lua_State *L) {
    struct shared_config c = {0};
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argcheck(L, lsm_state(L)->main, 1, "begin belongs in wrk's main state");
    c.scenario = lsm_field(L, 1, "scenario", true);
    c.profile = lsm_field(L, 1, "profile", false);
    c.n_threads = (int)lsm_opt_number(L, 1, "threads", 1);
    c.cap_us = (long long)(lsm_opt_number(L, 1, "cap_s", 0) * 1e6);
    c.refuse_after = (int)lsm_opt_number(L, 1, "refuse_after", 3);
    c.progress_s = lsm_opt_number(L, 1, "progress_s", 30);
    lua_getfield(L, 1, "rounds");
    luaL_argcheck(L, lua_istable(L, -1), 1, "rounds must be a list");
    c.n_rounds = lua_objlen(L, -1);
    struct rounds_round *rounds = lua_newuserdata(L, (c.n_rounds + 1) * sizeof *rounds);
    for (size_t i = 0; i < c.n_rounds; i++) {
        lua_rawgeti(L, -2, (int)i + 1);
        luaL_argcheck(L, lua_istable(L, -1), 1, "each round must be a table");
        int t = lua_gettop(L);
        rounds[i].items = (long)lsm_opt_number(L, t, "items", -1);
        rounds[i].per_thread = (long)lsm_opt_number(L, t, "per_thread", -1);
        rounds[i].duration_us = (long long)(lsm_opt_number(L, t, "duration_s", 0) * 1e6);
        lua_pop(L, 1);
    }
    c.rounds = rounds;
    struct buf err;
    buf_init(&err, 1024);
    int rc = shared_begin(&c, &err);
    if (rc == SHARED_ERR_INPUT)
        return lsm_fail(L, "a round has neither items nor a duration, or threads < 1");
    if (rc == SHARED_ERR_STATE) return lsm_fail(L, "the run has begun already");
    if (rc) return lsm_fail_buf(L, &err, "out of memory");
    buf_free(&err);
    lua_pushboolean(L, 1);
    return 1;
}

/* sagemaker.add_file(result_path, journal_path, header_json) -> index (1-based) |
 * nil, message. header_json: the result file's header fields as a JSON object. */
static int lsm_add_file(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    const char *journal = luaL_checkstring(L, 2);
    const char *text = luaL_checkstring(L, 3);
    cJSON *header = cJSON_Parse(text);
    if (!cJSON_IsObject(header)) {
        cJSON_Delete(header);
        return lsm_fail(L, "the header is not a JSON object");
    }
    struct buf err;
    buf_init(&err, 1024);
    size_t index;
    int rc = shared_add_file(path, journal, header, &index, &err);
    cJSON_Delete(header);
    if (rc == SHARED_ERR_STATE) {
        buf_free(&err);
        return lsm_fail(L, "the run has not begun");
    }
    if (rc) return lsm_fail_buf(L, &err, "out of memory");
    buf_free(&err);
    lua_pushinteger(L, (lua_Integer)index + 1);
    return 1;
}

static long long lsm_get_ll(lua_State *L, int t, const char *name, long long dflt) {
    lua_getfield(L, t, name);
    long long v = lua_isnumber(L, -1) ? (long long)lua_tonumber(L, -1) : dflt;
    lua_pop(L, 1);
    return v;
}

static const char *lsm_get_string(lua_State *L, int t, const char *name) {
    lua_getfield(L, t, name);
    const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1); /* anchored by the table */
    return v;
}

static int lsm_get_tristate(lua_State *L, int t, const char *name) {
    lua_getfield(L, t, name);
    int v = lua_isboolean(L, -1) ? lua_toboolean(L, -1) : -1;
    lua_pop(L, 1);
    return v;
}

/* The record in the table at t, as lsm_push_record makes it (the strings stay
 * anchored by the table). */
static void lsm_to_record(lua_State *L, int t, struct rec_record *out) {
    *out = (struct rec_record){
        .thread = (int)lsm_get_ll(L, t, "thread", 0),
        .endpoint = lsm_get_string(L, t, "endpoint"),
        .variant = lsm_get_string(L, t, "variant"),
        .phase = lsm_get_string(L, t, "phase"),
        .batch = (long)lsm_get_ll(L, t, "batch", 0),
        .question = lsm_get_string(L, t, "question"),
        .kind = lsm_get_string(L, t, "kind"),
        .max_tokens = (long)lsm_get_ll(L, t, "max_tokens", -1),
        .prompt_tokens = (long)lsm_get_ll(L, t, "prompt_tokens", -1),
        .completion_tokens = (long)lsm_get_ll(L, t, "completion_tokens", -1),
        .finish_reason = lsm_get_string(L, t, "finish_reason"),
        .status = (int)lsm_get_ll(L, t, "status", 0),
        .ok = lsm_get_tristate(L, t, "ok") == 1,
        .error_code = lsm_get_string(L, t, "error_code"),
        .error_message = lsm_get_string(L, t, "error_message"),
        .original_status = (int)lsm_get_ll(L, t, "original_status", 0),
        .t_start_us = lsm_get_ll(L, t, "t_start_us", 0),
        .t_end_us = lsm_get_ll(L, t, "t_end_us", 0),
        .wall_start_us = lsm_get_ll(L, t, "wall_start_us", 0),
        .text = lsm_get_string(L, t, "text"),
        .answer = lsm_get_string(L, t, "answer"),
        .correct = lsm_get_tristate(L, t, "correct"),
    };
}

/* ---- calls: a planned request, and its reply made its record ---------------- */

static void lsm_set_int(lua_State *L, const char *name, long long v) {
    lsm_set_number(L, name, (double)v);
}

/* Pushes a record as a table (the one a scenario's check may change). */
static void lsm_push_record(lua_State *L, const struct rec_record *r) {
    lua_createtable(L, 0, 22);
    lsm_set_int(L, "thread", r->thread);
    lsm_set_string(L, "endpoint", r->endpoint);
    lsm_set_string(L, "variant", r->variant);
    lsm_set_string(L, "phase", r->phase);
    lsm_set_int(L, "batch", r->batch);
    lsm_set_string(L, "question", r->question);
    lsm_set_string(L, "kind", r->kind);
    lsm_set_int(L, "max_tokens", r->max_tokens);
    lsm_set_int(L, "status", r->status);
    lsm_set_boolean(L, "ok", r->ok);
    lsm_set_outcome(L, r);
    lsm_set_int(L, "t_start_us", r->t_start_us);
    lsm_set_int(L, "t_end_us", r->t_end_us);
    lsm_set_int(L, "wall_start_us", r->wall_start_us);
    lsm_set_string(L, "text", r->text);
    lsm_set_string(L, "answer", r->answer);
    if (r->correct >= 0) lsm_set_boolean(L, "correct", r->correct);
}

/* sagemaker.call{file, thread, endpoint, variant, phase, batch, question, kind,
 * max_tokens, expect_tokens, ignore_eos, answer, regex} -> call | nil, message:
 * one planned request (call.h); file is 1-based, as add_file returns it. */
static int lsm_call(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    struct call_spec spec = {
        .file = (size_t)lsm_opt_long(L, 1, "file", 1) - 1,
        .fixed =
            {
                .thread = (int)lsm_opt_long(L, 1, "thread", 0),
                .endpoint = lsm_field(L, 1, "endpoint", true),
                .variant = lsm_field(L, 1, "variant", false),
                .phase = lsm_field(L, 1, "phase", true),
                .batch = lsm_opt_long(L, 1, "batch", 0),
                .question = lsm_field(L, 1, "question", false),
                .kind = lsm_field(L, 1, "kind", false),
                .max_tokens = lsm_opt_long(L, 1, "max_tokens", -1),
                .answer = lsm_field(L, 1, "answer", false),
            },
        .expect_tokens = lsm_opt_long(L, 1, "expect_tokens", -1),
    };
    lua_getfield(L, 1, "ignore_eos");
    spec.ignore_eos = lua_toboolean(L, -1);
    lua_getfield(L, 1, "regex"); /* kept in the call's environment while the call lives */
    if (!lua_isnil(L, -1)) spec.pattern = *(struct quiz_re **)luaL_checkudata(L, -1, LSM_REGEX);
    luaL_argcheck(L, lua_isnil(L, -1) || spec.pattern, 1, "regex not compiled");
    /* NOLINTNEXTLINE(bugprone-sizeof-expression): the userdata holds the pointer */
    struct call **ud = lua_newuserdata(L, sizeof *ud);
    *ud = NULL;
    luaL_getmetatable(L, LSM_CALL);
    lua_setmetatable(L, -2);
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, -3);
    lua_rawseti(L, -2, 1);
    lua_setfenv(L, -2);
    if (call_new(&spec, ud)) return lsm_fail(L, "out of memory");
    return 1;
}

static int lsm_call_gc(lua_State *L) {
    struct call **ud = luaL_checkudata(L, 1, LSM_CALL);
    call_free(*ud);
    *ud = NULL;
    return 0;
}

/* Stops the run; "what: why" (why's first line) is the reason the result files give. */
static void lsm_stop(const char *what, const char *why) {
    struct buf reason;
    buf_init(&reason, 1100);
    (void)!buf_addf(&reason, "%s: %.*s", what, (int)strcspn(why, "\n"), why);
    shared_abort(reason.len ? buf_str(&reason) : what);
    buf_free(&reason);
}

/* Records rec (or stops the run, saying why, when it cannot). */
static void lsm_record(size_t file, const struct rec_record *rec, bool retry) {
    struct buf err;
    buf_init(&err, 1024);
    int rc = shared_record(file, rec, retry, &err);
    if (rc)
        lsm_stop("cannot record", rc == SHARED_ERR_STATE ? "the run has not begun"
                                  : err.len              ? buf_str(&err)
                                                         : "out of memory");
    buf_free(&err);
}

/* ---- wrk's hooks: one C call per request and per reply -------------------- */

/* One planned request: an item of the plan. */
struct lsm_entry {
    struct lsm_request *req;
    const struct call *call;
};

struct lsm_round {
    size_t first, n; /* its entries */
    bool steady;     /* one entry, its template, sent for every index */
};

/* The state of one thread's hooks (their upvalue 2). Its environment anchors
 * the items (at their entry's number), their requests and calls (as keys), the
 * filler and the check. */
struct lsm_hooks {
    int thread;
    bool verified;                 /* thread 0: wrk's verification call is behind */
    bool check;                    /* a scenario's check sees every reply */
    const struct lsm_entry *sent;  /* the request on the wire */
    const struct lsm_entry *retry; /* to send again, signed with the server's clock */
    bool sent_retried;
    long long sent_t, sent_wall;
    size_t n_rounds;
    struct lsm_round *rounds; /* after the entries, in the same block */
    struct lsm_entry entries[];
};

/* The number of items of the round at idx (a steady round: its template). */
static size_t lsm_round_size(lua_State *L, int idx) {
    lua_getfield(L, idx, "items");
    size_t n = lua_istable(L, -1) ? lua_objlen(L, -1) : 1;
    lua_pop(L, 1);
    return n;
}

/* Entry k from the item at the top of the stack, anchored in the table at env. */
static void lsm_hooks_entry(lua_State *L, struct lsm_hooks *h, size_t k, int env) {
    int item = lua_gettop(L);
    luaL_argcheck(L, lua_istable(L, item), 1, "each item must be a table");
    lua_getfield(L, item, "req");
    h->entries[k].req = luaL_checkudata(L, -1, LSM_REQUEST);
    lua_getfield(L, item, "call");
    struct call **call = luaL_checkudata(L, -1, LSM_CALL);
    luaL_argcheck(L, h->entries[k].req->r && *call, 1, "request or call not prepared");
    h->entries[k].call = *call;
    for (int i = 0; i < 2; i++) {
        lua_pushboolean(L, 1);
        lua_rawset(L, env);
    }
    lua_rawseti(L, env, (int)k + 1);
}

/* The entries of the round at idx, from entry *k on. */
static void lsm_hooks_round(lua_State *L, struct lsm_hooks *h, size_t round, size_t *k, int env) {
    int idx = lua_gettop(L);
    struct lsm_round *r = &h->rounds[round];
    lua_getfield(L, idx, "items");
    r->steady = !lua_istable(L, -1);
    r->first = *k;
    r->n = lsm_round_size(L, idx);
    for (size_t i = 0; i < r->n; i++) {
        if (r->steady)
            lua_getfield(L, idx, "template");
        else
            lua_rawgeti(L, -1, (int)i + 1);
        lsm_hooks_entry(L, h, (*k)++, env);
    }
    lua_settop(L, idx - 1);
}

/* The entry of (round, index) from the schedule, or NULL. */
static const struct lsm_entry *lsm_hooks_find(const struct lsm_hooks *h, size_t round, long index) {
    if (round >= h->n_rounds || index < 0) return NULL;
    const struct lsm_round *r = &h->rounds[round];
    size_t i = r->steady ? 0 : (size_t)index;
    return i < r->n ? &h->entries[r->first + i] : NULL;
}

/* The entry to send next: the retry (*retried), else the next item; NULL when
 * the run is ending (or the plan and the schedule disagree: the run stops). */
static const struct lsm_entry *lsm_hooks_next(struct lsm_hooks *h, bool *retried) {
    const struct lsm_entry *e = h->retry;
    h->retry = NULL;
    *retried = e != NULL;
    if (e) return e;
    size_t round;
    long index;
    if (shared_next(h->thread, &round, &index) != SHARED_ITEM) {
        shared_idle(); /* wrk stops this thread soon */
        return NULL;
    }
    e = lsm_hooks_find(h, round, index);
    if (!e) lsm_stop("internal error", "the schedule holds an item the plan has not");
    return e;
}

/* The scenario's check on r: check(item, reply, record), then the record as it
 * left it is recorded. An error in it stops the run. */
static void lsm_hooks_check(lua_State *L, struct lsm_hooks *h, const struct lsm_entry *e,
                            const struct call_result *r) {
    int top = lua_gettop(L);
    lua_getfenv(L, lua_upvalueindex(2));
    lsm_push_record(L, &r->rec);
    lua_getfield(L, top + 1, "check");
    lua_rawgeti(L, top + 1, (int)(e - h->entries) + 1);
    lsm_push_reply(L, &r->reply, r->skewed, r->skew_offset);
    lua_pushvalue(L, top + 2);
    if (lua_pcall(L, 3, 0, 0)) {
        lsm_stop("scenario error", lua_isstring(L, -1) ? lua_tostring(L, -1) : "not a message");
    } else {
        struct rec_record rec;
        lsm_to_record(L, top + 2, &rec);
        lsm_record(call_file(e->call), &rec, r->retry);
    }
    lua_settop(L, top);
}

/* Makes what came back for the request on the wire its record: status 0 when
 * nothing did (then no headers or body: their index is 0). */
static void lsm_hooks_finish(lua_State *L, struct lsm_hooks *h, int status, int headers, int body) {
    const struct lsm_entry *e = h->sent;
    struct call_reply in = {.status = status,
                            .body = "",
                            .t_start_us = h->sent_t,
                            .t_end_us = shared_now_us(),
                            .wall_start_us = h->sent_wall,
                            .retried = h->sent_retried,
                            .want_text = h->check,
                            .now = time(NULL)};
    h->sent = NULL;
    if (headers && lua_istable(L, headers)) lsm_reply_headers(L, headers, &in);
    if (body && lua_type(L, body) == LUA_TSTRING) in.body = lua_tolstring(L, body, &in.len);
    struct call_result r;
    call_result_init(&r);
    if (call_finish(e->call, &in, &r)) {
        lsm_stop("cannot record", "out of memory");
        return;
    }
    if (r.retry) {
        shared_set_skew(r.skew_offset);
        h->retry = e;
    }
    if (h->check)
        lsm_hooks_check(L, h, e, &r);
    else
        lsm_record(call_file(e->call), &r.rec, r.retry);
    call_result_clear(&r);
}

static int lsm_hooks_filler(lua_State *L) {
    lua_getfenv(L, lua_upvalueindex(2));
    lua_getfield(L, -1, "filler");
    return 1;
}

/* wrk's request(). */
static int lsm_hooks_request(lua_State *L) {
    struct lsm_hooks *h = lua_touserdata(L, lua_upvalueindex(2));
    if (!h->verified) {
        h->verified = true;
        if (h->thread == 0 && pthread_equal(pthread_self(), lsm_main_thread))
            return lsm_hooks_filler(L);
    }
    if (h->sent) lsm_hooks_finish(L, h, 0, 0, 0); /* wrk reconnected and asks again */
    bool retried;
    const struct lsm_entry *e = lsm_hooks_next(h, &retried);
    if (!e) return lsm_hooks_filler(L);
    struct buf err;
    buf_init(&err, 512);
    int rc = lsm_push_signed(L, lsm_state(L), e->req, &err);
    if (rc) lsm_stop("cannot sign a request", err.len ? buf_str(&err) : "no credentials");
    buf_free(&err);
    if (rc) return lsm_hooks_filler(L);
    h->sent = e;
    h->sent_retried = retried;
    h->sent_t = shared_now_us();
    h->sent_wall = shared_wall_us();
    return 1;
}

/* wrk's response(status, headers, body). */
static int lsm_hooks_response(lua_State *L) {
    struct lsm_hooks *h = lua_touserdata(L, lua_upvalueindex(2));
    if (h->sent) lsm_hooks_finish(L, h, (int)lua_tointeger(L, 1), 2, 3); /* else a filler's */
    return 0;
}

/* sagemaker.hooks(rounds, {thread, filler, check}) -> request, response: wrk's
 * two per-request functions for one thread, each a single C call. rounds are
 * the plan's, {{items = {item, ...}} | {template = item}, ...}, every item
 * with its req (sagemaker.request) and call (sagemaker.call); thread is
 * 0-based. request() returns the next item's request signed (a retry first),
 * or the filler when there is nothing to send and for wrk's verification call
 * (thread 0's first, from wrk's main OS thread); response(status, headers,
 * body) makes what came back for it its record. check(item, reply, record),
 * when given, sees each reply (as parse_reply's) and its record before it is
 * recorded, and may change the record. Neither function raises: what goes
 * wrong stops the run, and the result files say why. */
static int lsm_hooks(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t n_rounds = lua_objlen(L, 1), n = 0;
    for (size_t i = 0; i < n_rounds; i++) {
        lua_rawgeti(L, 1, (int)i + 1);
        luaL_argcheck(L, lua_istable(L, -1), 1, "each round must be a table");
        n += lsm_round_size(L, -1);
        lua_pop(L, 1);
    }
    struct lsm_hooks *h =
        lua_newuserdata(L, sizeof *h + n * sizeof h->entries[0] + n_rounds * sizeof h->rounds[0]);
    *h = (struct lsm_hooks){.thread = (int)lsm_opt_long(L, 2, "thread", 0), .n_rounds = n_rounds};
    h->rounds = (struct lsm_round *)(void *)(h->entries + n);
    lua_createtable(L, (int)n, (int)(2 * n + 2));
    int env = lua_gettop(L);
    lua_getfield(L, 2, "filler");
    luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, 2, "filler must be a string");
    lua_setfield(L, env, "filler");
    lua_getfield(L, 2, "check");
    h->check = !lua_isnil(L, -1);
    luaL_argcheck(L, !h->check || lua_isfunction(L, -1), 2, "check must be a function");
    lua_setfield(L, env, "check");
    for (size_t i = 0, k = 0; i < n_rounds; i++) {
        lua_rawgeti(L, 1, (int)i + 1);
        lsm_hooks_round(L, h, i, &k, env);
    }
    lua_setfenv(L, -2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, lsm_hooks_request, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, -3);
    lua_pushcclosure(L, lsm_hooks_response, 2);
    return 2;
}

/* sagemaker.endpoint_ok(name) -> whether name is a SageMaker endpoint or variant name. */
static int lsm_endpoint_ok(lua_State *L) {
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lua_pushboolean(L, smname_endpoint_ok(s, n));
    return 1;
}

/* sagemaker.label_ok(label) -> whether label may name a result file or folder. */
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

/* sagemaker.set_skew(seconds): the offset signing adds to the local clock. */
static int lsm_set_skew(lua_State *L) {
    shared_set_skew((long long)luaL_checknumber(L, 1));
    return 0;
}

static void lsm_push_counts(lua_State *L, const struct rec_counts *c) {
    lua_createtable(L, 0, 5);
    lsm_set_number(L, "sent", (double)c->sent);
    lsm_set_number(L, "ok", (double)c->ok);
    lsm_set_number(L, "failed", (double)c->failed);
    lsm_set_string(L, "first_error", c->first_error);
    lua_createtable(L, 0, (int)c->n_errors);
    for (size_t i = 0; i < c->n_errors; i++)
        lsm_set_number(L, c->errors[i].code, (double)c->errors[i].count);
    lua_setfield(L, -2, "errors");
}

/* sagemaker.finish() -> {partial, reason, files = {counts, ...}} | nil, message:
 * in done(), says how the run ended and writes the result files. */
static int lsm_finish(lua_State *L) {
    struct shared_outcome out;
    struct buf err;
    buf_init(&err, 1024);
    int rc = shared_end(&out, &err);
    if (rc == SHARED_ERR_STATE) {
        buf_free(&err);
        return lsm_fail(L, "the run has not begun");
    }
    lua_createtable(L, 0, 3);
    lsm_set_boolean(L, "partial", out.partial);
    lsm_set_string(L, "reason", out.partial ? out.reason : NULL);
    lua_newtable(L);
    for (size_t i = 0; i < shared_n_files(); i++) {
        lsm_push_counts(L, shared_counts(i));
        lua_rawseti(L, -2, (int)i + 1);
    }
    lua_setfield(L, -2, "files");
    shared_free();
    if (rc) return lsm_fail_buf(L, &err, "cannot write the result files");
    buf_free(&err);
    return 1;
}

static const luaL_Reg lsm_functions[] = {
    {"json_decode", lsm_json_decode},
    {"json_encode", lsm_json_encode},
    {"sha256_hex", lsm_sha256_hex},
    {"strip", lsm_strip},
    {"is_main_state", lsm_is_main_state},
    {"clock", lsm_clock},
    {"iso8601", lsm_iso8601},
    {"journal_path", lsm_journal_path},
    {"wrk_args", lsm_wrk_args},
    {"body", lsm_body},
    {"parse_reply", lsm_parse_reply},
    {"regex", lsm_regex},
    {"request", lsm_request},
    {"begin", lsm_begin},
    {"add_file", lsm_add_file},
    {"call", lsm_call},
    {"hooks", lsm_hooks},
    {"endpoint_ok", lsm_endpoint_ok},
    {"label_ok", lsm_label_ok},
    {"region_of", lsm_region_of},
    {"set_skew", lsm_set_skew},
    {"finish", lsm_finish},
    {NULL, NULL},
};

static const luaL_Reg lsm_regex_methods[] = {{"search", lsm_regex_search}, {NULL, NULL}};
static const luaL_Reg lsm_request_methods[] = {{"raw", lsm_request_raw}, {NULL, NULL}};
static const luaL_Reg lsm_call_methods[] = {{NULL, NULL}};

/* A metatable name with __gc and an __index table of methods sharing upvalue 1. */
static void lsm_class(lua_State *L, const char *name, lua_CFunction gc, const luaL_Reg *methods) {
    luaL_newmetatable(L, name);
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
    lua_newtable(L);
    lua_pushvalue(L, -3); /* the state upvalue, below the metatable */
    luaL_openlib(L, NULL, methods, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

__attribute__((visibility("default"))) int luaopen_sagemaker(lua_State *L) {
    struct lsm_state *s = lua_newuserdata(L, sizeof *s);
    memset(s, 0, sizeof *s);
    s->main = lsm_loads++ == 0;
    if (s->main) lsm_main_thread = pthread_self();
    luaL_newmetatable(L, LSM_STATE);
    lua_pushcfunction(L, lsm_state_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lsm_class(L, LSM_REGEX, lsm_regex_gc, lsm_regex_methods);
    lsm_class(L, LSM_REQUEST, lsm_request_gc, lsm_request_methods);
    lsm_class(L, LSM_CALL, lsm_call_gc, lsm_call_methods);
    lua_newtable(L);
    lua_pushvalue(L, -2);
    luaL_openlib(L, NULL, lsm_functions, 1);
    lua_pushstring(L, SM_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushlightuserdata(L, NULL);
    lua_setfield(L, -2, "null");
    return 1;
}
