/* lua_sagemaker: what the files of the Lua binding share (lua_sagemaker.c: the
 * module and its functions; lua_json.c: JSON values; lua_plan.c: the plan and
 * the scenario's check; lua_hooks.c: wrk's hooks; lua_run.c: the run). Not a
 * public interface: only the binding includes it. */
#ifndef SM_LUA_SAGEMAKER_H
#define SM_LUA_SAGEMAKER_H

#include <stdbool.h>

#include <lua.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "disp.h"
#include "plan.h"
#include "run.h"
#include "sigcreds.h"
#include "wrkargs.h"

#define LSM_STATE "sagemaker.state"
#define LSM_HOOKS "sagemaker.hooks"

/* The client that hosts the module when it is not wrk (the streaming engine),
 * set before any Lua state loads the module. NULL (the default): wrk. */
struct lsm_client {
    const char *name;           /* the result files' "client": "sm-stream" */
    const struct wrkargs *args; /* what sagemaker.wrk_args() returns (threads: its senders) */
    struct run_host host;       /* how a run ends */
    enum plan_route route;      /* the route of every plan's requests */
    const char *api;            /* the result files' "api": "stream" or "openai" */
    const char *bearer;         /* the OpenAI route's bearer token, or NULL (SigV4) */
    long os_threads;            /* its sending OS threads (-t) */
    bool busy_poll;             /* they never sleep (--busy-poll) */
};
void lsm_set_client(const struct lsm_client *c);
const struct lsm_client *lsm_client(void);

/* The hooks behind the request() closure sagemaker.hooks returned, at idx of
 * L's stack, or NULL when it is not one. */
struct lsm_hooks *lsm_hooks_at(lua_State *L, int idx);

/* disp_check_fn over a scenario's check in Lua: ud is the hooks (lsm_hooks_at),
 * whose L must be set to the state to run it in. */
int lsm_check(void *ud, size_t number, const struct call_result *r, struct rec_record *rec,
              struct buf *err);

/* The per-state upvalue of every function. */
struct lsm_state {
    bool main;             /* the first state that loaded the module: wrk's main state */
    struct sigcreds creds; /* the credentials requests of this state are signed with */
};

struct lsm_state *lsm_state(lua_State *L);
/* Whether the caller runs on the OS thread that loaded the module first (wrk's main). */
bool lsm_on_main_thread(void);

/* The number t.name of the table at t, or dflt when it is nil (raises when it is
 * not a number). */
double lsm_opt_num(lua_State *L, int t, const char *name, double dflt);

/* The string t.name of the table at t (anchored by it), or NULL when nil. */
const char *lsm_opt_str(lua_State *L, int t, const char *name);
/* Sets t.name = v in the table at the top of the stack. */
void lsm_set_number(lua_State *L, const char *name, double v);
void lsm_set_string(lua_State *L, const char *name, const char *v);

/* The run's functions (lua_run.c): sagemaker.begin, schedule, add_file, finish. */
int lsm_begin(lua_State *L);
int lsm_schedule(lua_State *L);
int lsm_add_file(lua_State *L);
int lsm_finish(lua_State *L);
int lsm_set_template(lua_State *L);

/* nil, message: the way every function reports bad data (frees b). */
int lsm_fail(lua_State *L, const char *msg);
int lsm_fail_buf(lua_State *L, struct buf *b, const char *fallback);

/* The plan described by the table at idx (run.lua's plan: request, sides,
 * rounds), made into *slot, which a userdata's __gc frees (lsm_plan raises on
 * misuse). Returns 0, or -1 with err set when the plan is wrong. */
int lsm_plan(lua_State *L, int idx, struct plan **slot, struct buf *err);

/* The state of wrk's hooks (a userdata of metatable LSM_HOOKS); begin uses one
 * for its plan alone. */
struct lsm_hooks {
    struct plan *plan;
    struct disp *disp;
    lua_State *L; /* the state of the response() being run, for the check */
    int env;      /* a registry reference to the hooks' environment (items, filler, check) */
    bool check;   /* the scenario has a check */
    int *kept;    /* per request: the Lua string of its last signature, or LUA_NOREF */
    unsigned long *kept_gen;
    size_t n_kept; /* requests of the plan, kept's size */
    bool borrowed; /* plan is the run's shared one (run_shared_plan): not freed here */
};

/* Pushes j as a Lua value (JSON null: sagemaker.null); false (nothing pushed)
 * when the Lua stack cannot hold its nesting. */
bool lsm_push_json(lua_State *L, const cJSON *j);
/* The Lua value at idx as cJSON (a sequence 1..n is an array), or NULL with *why
 * set; never raises. */
cJSON *lsm_to_json(lua_State *L, int idx, int depth, const char **why);
/* sagemaker.json_decode(text) -> value | nil, message; json_encode(value) -> text | nil, message.
 */
int lsm_json_decode(lua_State *L);
int lsm_json_encode(lua_State *L);

/* lua_trace.c, the binding of trace.h (a production trace's replay schedule):
 * sagemaker.trace(path, {speed, from_s, to_s, cap}) -> the schedule as a table
 * | nil, message:
 *   { format = "mooncake"|"azure"|"burstgpt"|"capture", read = N (requests in
 *     the file), requests = { { at_us, t_us, line, input_tokens, output_tokens
 *     (nil when the trace has none), hash_ids = {...} (Mooncake), body = TEXT
 *     (Data Capture) }, ... } } */
int lsm_trace_load(lua_State *L);
/* lua_trace.c, the binding of ramp.h (a ramp's pieces): sagemaker.ramp(text)
 * or sagemaker.ramp(nil, path) (a curve file) -> { { dur_s, from, to }, ... }
 * | nil, message. */
int lsm_ramp(lua_State *L);

/* sagemaker.hooks(plan, {thread, filler, check}) -> request, response. */
int lsm_hooks(lua_State *L);
/* The __gc of the hooks' state. */
int lsm_hooks_gc(lua_State *L);

#endif
