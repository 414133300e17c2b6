/* luahost: a scenario written for wrk, run the way wrk runs it, outside wrk.
 * The main state loads the script (run.lua checks the options, begins the run
 * and opens the result files there); then each engine thread gets a state of
 * its own that loads the script, the main state's setup(thread) runs with a
 * thread object whose get and set copy values between the two states as wrk's
 * do, and the thread's init(args) runs; its request() is the plugin's hooks
 * (sagemaker.hooks), whose plan the engine drives. done() runs in the main
 * state at the end. Each state has a `wrk` table like wrk's (scheme, host,
 * port, method, path, headers, body) and the module preloaded, so a scenario
 * needs no edit. os.exit unwinds to the host (LUAHOST_EXIT), which closes every
 * state before the process exits.
 *
 * Not thread-safe: the main thread makes every state; an engine thread then
 * uses its own state alone. */
#ifndef SM_LUAHOST_H
#define SM_LUAHOST_H

#include <stddef.h>

#include <lua.h>

#include "buf.h"
#include "lua_sagemaker.h"

enum luahost_error {
    LUAHOST_OK = 0,
    LUAHOST_ERR_NOMEM = -1,
    LUAHOST_ERR_SCRIPT = -2, /* the script failed or is no sm.run scenario: err says why */
    LUAHOST_EXIT = 1,        /* the script called os.exit: the process exits with exit_code */
};

struct luahost {
    const char *script;
    const char *url;
    lua_State *main;
    lua_State **threads; /* one state per engine thread */
    size_t n_threads;
    int exit_code; /* os.exit's, after LUAHOST_EXIT */
};

/* The main state with the script loaded: the run has begun when this returns 0. */
__attribute__((warn_unused_result)) int luahost_open(struct luahost *h, const char *script,
                                                     const char *url, size_t n_threads,
                                                     struct buf *err);

/* Engine thread i's state: the script loaded, setup and init run; *hooks the
 * plugin's hooks of its request() (their plan is the thread's). */
__attribute__((warn_unused_result)) int luahost_thread(struct luahost *h, size_t i,
                                                       struct lsm_hooks **hooks, struct buf *err);

/* done() in the main state (it writes the result files and may exit the process). */
__attribute__((warn_unused_result)) int luahost_done(struct luahost *h, struct buf *err);

/* Closes every state. */
void luahost_close(struct luahost *h);

#endif
