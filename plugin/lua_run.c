/* lua_run: the run's part of the Lua binding (require "sagemaker"): begin
 * (with a shard's stripe and a start barrier), schedule, add_file and finish,
 * over run.h. See lua_sagemaker.c for the module. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include <cjson/cJSON.h>
#include <openssl/rand.h>

#include "clockprobe.h"
#include "lua_sagemaker.h"
#include "record.h"
#include "rfmt.h"
#include "run.h"
#include "wrkhost.h"

#define LSM_START_LEAD_US   2000000LL /* the main state wakes this long before --start-at */
#define LSM_PROBE_BUDGET_US 3000000LL /* the clock probe's time at most */
#define LSM_PROBE_MAX       80        /* and its replies */
#define LSM_PROBE_TARGET_US 1000LL    /* it stops once the offset is known this well */

/* Pushes {run_id, started_at} for a run begun at wall_us; run_id is given's
 * when given, else made of the time and 3 random bytes. */
static void lsm_push_identity(lua_State *L, long long wall_us, const char *given) {
    char started[32], id[40];
    unsigned char r[3] = {0};
    rec_iso8601(wall_us, started);
    time_t s = (time_t)(wall_us / 1000000);
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t n = strftime(id, sizeof id, "%Y%m%dT%H%M%SZ", &tm);
    if (RAND_bytes(r, sizeof r) != 1) r[0] = (unsigned char)getpid();
    snprintf(id + n, sizeof id - n, "-%02x%02x%02x", r[0], r[1], r[2]);
    lua_createtable(L, 0, 5);
    lsm_set_string(L, "run_id", given ? given : id);
    lsm_set_string(L, "started_at", started);
}

/* The start barrier's time of begin's options (start_at, start_tolerance_s):
 * *start_us the wall-clock time, or -1 without one. A start already later
 * than the tolerance fails at once ("late start: ..."). */
static int lsm_start_of(lua_State *L, int opts, long long *start_us, double *tol_s,
                        struct buf *err) {
    const char *at = lsm_opt_str(L, opts, "start_at");
    *tol_s = lsm_opt_num(L, opts, "start_tolerance_s", 1);
    *start_us = -1;
    if (!at) return 0;
    if (rfmt_time_parse(at, start_us))
        return buf_fail(err, -1, "--start-at '%s' is not a UTC time such as 2026-05-01T12:00:00Z",
                        at);
    long long late = run_wall_us() - *start_us;
    if (late > (long long)(*tol_s * 1e6))
        return buf_fail(err, -1,
                        RUN_LATE_REASON ": --start-at %s passed %.3f s ago (tolerance %.3f s)", at,
                        (double)late / 1e6, *tol_s);
    return 0;
}

/* Measures the clock against probe_url before a start at start_us when there is
 * time for it; the result (or why not) set in the table on the top of the stack. */
static void lsm_probe_clock(lua_State *L, const char *probe_url, long long start_us) {
    struct rfmt_clock clk;
    struct buf why;
    buf_init(&why, 512);
    if (start_us - run_wall_us() < LSM_PROBE_BUDGET_US + LSM_START_LEAD_US)
        (void)!buf_addf(&why, "--start-at is less than %.0f s away: no time to measure the clock",
                        (double)(LSM_PROBE_BUDGET_US + LSM_START_LEAD_US) / 1e6);
    else if (clockprobe_run(probe_url, LSM_PROBE_BUDGET_US, LSM_PROBE_MAX, LSM_PROBE_TARGET_US,
                            &clk, &why) == CLOCKPROBE_OK) {
        lua_createtable(L, 0, 3);
        lsm_set_number(L, "offset_us", (double)clk.offset_us);
        lsm_set_number(L, "uncertainty_us", (double)clk.uncertainty_us);
        lsm_set_number(L, "probes", (double)clk.probes);
        lua_setfield(L, -2, "clock");
    }
    if (why.len) lsm_set_string(L, "clock_note", buf_str(&why));
    buf_free(&why);
}

/* Sleeps until the wall clock reads at_us (Ctrl-C ends the process meanwhile). */
static void lsm_sleep_until(long long at_us) {
    struct timespec t = {(time_t)(at_us / 1000000), (long)(at_us % 1000000) * 1000};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &t, NULL) == EINTR) {
    }
}

/* The run's shard from begin's options (shard_index, shard_count). */
static void lsm_config_of(lua_State *L, int opts, struct run_config *c) {
    c->shard_index = (long)lsm_opt_num(L, opts, "shard_index", 0);
    c->shard_count = (long)lsm_opt_num(L, opts, "shard_count", 1);
}

/* sagemaker.begin(plan, {scenario, threads, cap_s, refuse_after, progress_s,
 * profile, run_id, shard_index, shard_count, start_at, start_tolerance_s,
 * probe_url}) -> {run_id, started_at, start_at, clock, clock_note} | nil,
 * message, "late": checks the plan (as every thread will make it) and begins
 * the run with its schedule (this shard's stripe of it). With start_at (a UTC
 * time) it measures the clock against probe_url first (when given and there
 * is time), then sleeps until shortly before start_at, and the first round
 * starts at start_at; a start_at already past its tolerance is refused with
 * "late" as the third value. Main state only, once. */
int lsm_begin(lua_State *L) {
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_argcheck(L, lsm_state(L)->main, 1, "begin belongs in wrk's main state");
    struct buf err;
    buf_init(&err, 1024);
    long long start_us;
    double tol_s;
    if (lsm_start_of(L, 2, &start_us, &tol_s, &err)) {
        lsm_fail_buf(L, &err, "out of memory");
        lua_pushstring(L,
                       strncmp(lua_tostring(L, -1), RUN_LATE_REASON, 10) == 0 ? "late" : "usage");
        return 3;
    }
    const char *given_id = lsm_opt_str(L, 2, "run_id"), *probe = lsm_opt_str(L, 2, "probe_url");
    struct lsm_hooks *box = lua_newuserdata(L, sizeof *box); /* frees the plan */
    *box = (struct lsm_hooks){0};
    luaL_getmetatable(L, LSM_HOOKS);
    lua_setmetatable(L, -2);
    if (lsm_plan(L, 1, &box->plan, &err)) return lsm_fail_buf(L, &err, "out of memory");
    struct plan *p = box->plan;
    struct rounds_round *rounds = calloc(plan_n_rounds(p) + 1, sizeof *rounds);
    if (rounds) plan_schedule(p, rounds);
    struct run_config c = {
        .scenario = lsm_opt_str(L, 2, "scenario"),
        .n_threads = (int)lsm_opt_num(L, 2, "threads", 1),
        .cap_us = (long long)(lsm_opt_num(L, 2, "cap_s", 0) * 1e6),
        .rounds = rounds,
        .n_rounds = plan_n_rounds(p),
        .refuse_after = (int)lsm_opt_num(L, 2, "refuse_after", 3),
        .progress_s = lsm_opt_num(L, 2, "progress_s", 30),
        .profile = lsm_opt_str(L, 2, "profile"),
        .host = lsm_client() ? lsm_client()->host : wrkhost_host(),
        .start_tolerance_s = tol_s,
        .watch = {.threads = lsm_client() ? lsm_client()->os_threads : 0,
                  .busy_poll = lsm_client() && lsm_client()->busy_poll,
                  .stalls_of = lsm_client() ? "event loop" : "lua hooks"},
    };
    lsm_config_of(L, 2, &c);
    int rc = rounds ? run_begin(&c, &err) : RUN_ERR_NOMEM;
    free(rounds);
    if (rc == RUN_OK && !lsm_client() && wrkhost_start()) rc = RUN_ERR_NOMEM;
    if (rc == RUN_OK && plan_shared(p)) { /* the run owns it now: every sender uses it */
        run_share_plan(p);
        box->plan = NULL;
    }
    if (rc == RUN_ERR_INPUT && err.len) return lsm_fail_buf(L, &err, "bad input");
    if (rc == RUN_ERR_INPUT) return lsm_fail(L, "a round has no items, or threads < 1");
    if (rc == RUN_ERR_STATE) return lsm_fail(L, "the run has begun already");
    if (rc) return lsm_fail_buf(L, &err, "out of memory");
    buf_free(&err);
    lua_createtable(L, 0, 4); /* what the wait finds, before the identity */
    if (start_us >= 0 && probe) lsm_probe_clock(L, probe, start_us);
    if (start_us >= 0) {
        if (start_us - LSM_START_LEAD_US > run_wall_us())
            lsm_sleep_until(start_us - LSM_START_LEAD_US);
        run_set_start(start_us);
    }
    lsm_push_identity(L, run_wall_us(), given_id);
    lua_pushnil(L); /* the wait's fields join it: wait, identity, key */
    while (lua_next(L, -3)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_settable(L, -4);
    }
    lua_remove(L, -2);
    if (start_us >= 0) {
        char at[32];
        rfmt_time_format(start_us, at);
        lsm_set_string(L, "start_at", at);
    }
    return 1;
}

/* One line of sagemaker.schedule: item i of round r as {"round", "index",
 * "at_us", "item", "side"}. */
static int lsm_schedule_item(struct buf *out, const struct plan *p, const struct rounds_round *r,
                             size_t round, long i) {
    const struct plan_entry *e = plan_entry(p, round, i);
    const struct call *c = e ? plan_entry_call(e) : NULL;
    int rc = buf_addf(out, "{\"round\":%zu,\"index\":%ld,\"at_us\":", round, i);
    if (!rc) rc = r->at_us ? buf_addf(out, "%lld", r->at_us[i]) : buf_adds(out, "null");
    if (!rc)
        rc = buf_addf(out, ",\"item\":%zu,\"side\":%zu}\n", e ? plan_entry_number(p, e) : 0,
                      c ? call_file(c) : 0);
    return rc;
}

/* The schedule's lines for the shard of s (rounds.h) over p's rounds r. */
static int lsm_schedule_lines(struct buf *out, const struct plan *p, const struct rounds *s,
                              const struct rounds_round *r, int threads, long shard, long count) {
    int rc = buf_addf(out, "{\"shard\":%ld,\"count\":%ld,\"senders\":[", shard, count);
    for (int t = 0, n = 0; !rc && t < threads; t++)
        if (rounds_is_sender(s, t)) rc = buf_addf(out, n++ ? ",%d" : "%d", t);
    if (!rc) rc = buf_adds(out, "]}\n");
    for (size_t k = 0; !rc && k < plan_n_rounds(p); k++) {
        if (r[k].items < 0) { /* steady: every sender of the shard, for its duration */
            rc = buf_addf(out, "{\"round\":%zu,\"index\":null,\"duration_s\":%.6f}\n", k,
                          (double)r[k].duration_us / 1e6);
            continue;
        }
        for (long i = 0; !rc && i < r[k].items; i++)
            if (rounds_keeps(s, i)) rc = lsm_schedule_item(out, p, &r[k], k, i);
    }
    return rc;
}

/* sagemaker.schedule(plan, {threads, shard_index, shard_count}) -> text | nil,
 * message: what the shard would send, as JSON lines: first {"shard", "count",
 * "senders"}, then per item of a bounded round {"round", "index", "at_us",
 * "item", "side"} (at_us: an open-loop item's time from its round's
 * start, else null; item: its number in the plan; side: 0-based), per steady
 * round {"round", "index": null, "duration_s"}. Sends nothing. */
int lsm_schedule(lua_State *L) {
    luaL_checktype(L, 2, LUA_TTABLE);
    struct buf err, out;
    buf_init(&err, 1024);
    buf_init(&out, BUF_NO_CAP);
    struct lsm_hooks *box = lua_newuserdata(L, sizeof *box); /* frees the plan */
    *box = (struct lsm_hooks){0};
    luaL_getmetatable(L, LSM_HOOKS);
    lua_setmetatable(L, -2);
    if (lsm_plan(L, 1, &box->plan, &err)) return lsm_fail_buf(L, &err, "out of memory");
    buf_free(&err);
    int threads = (int)lsm_opt_num(L, 2, "threads", 1);
    long shard = (long)lsm_opt_num(L, 2, "shard_index", 0);
    long count = (long)lsm_opt_num(L, 2, "shard_count", 1);
    struct rounds_round *r = calloc(plan_n_rounds(box->plan) + 1, sizeof *r);
    struct rounds *s = NULL;
    if (r) plan_schedule(box->plan, r);
    int rc = !r ? ROUNDS_ERR_NOMEM : rounds_new(threads, r, plan_n_rounds(box->plan), &s);
    if (!rc) rc = rounds_set_shard(s, shard, count);
    if (!rc) rc = lsm_schedule_lines(&out, box->plan, s, r, threads, shard, count) ? -1 : 0;
    rounds_free(s);
    free(r);
    if (rc) {
        buf_free(&out);
        return lsm_fail(L, rc == ROUNDS_ERR_INPUT
                               ? "the shard has no sender, or a round has no items"
                               : "out of memory");
    }
    lua_pushlstring(L, out.data ? out.data : "", out.len);
    buf_free(&out);
    return 1;
}

/* sagemaker.add_file(result_path, head, force, root) -> index (1-based) | nil,
 * message: a result file of the run and its journal beside it; root (or nil):
 * the folder the user named, of which result_path is below (record.h). head: the result file's
 * head (rfmt.h, docs/result-format.md) but format, version and tool, its
 * settings a list of {name, value} pairs in their order. An existing result or
 * journal is refused unless force (then replaced). */
int lsm_add_file(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    bool force = lua_toboolean(L, 3);
    const char *root = luaL_optstring(L, 4, NULL);
    const char *why = "out of memory";
    cJSON *given = lsm_to_json(L, 2, 0, &why), *head = NULL;
    if (!given) return lsm_fail(L, why);
    const struct lsm_client *host = lsm_client();
    if (host && !(cJSON_AddStringToObject(given, RFMT_CLIENT_NAME, host->name) &&
                  cJSON_AddStringToObject(given, RFMT_API, host->api))) {
        cJSON_Delete(given);
        return lsm_fail(L, "out of memory");
    }
    struct buf err;
    buf_init(&err, 1024);
    int rc = rfmt_head_make(given, "wrk-sagemaker " SM_VERSION, &head, &err);
    cJSON_Delete(given);
    size_t index;
    if (!rc) rc = run_add_file(path, root, head, force, &index, &err);
    cJSON_Delete(head);
    if (rc == RUN_ERR_STATE) return lsm_fail_buf(L, &err, "the run has not begun");
    if (rc) return lsm_fail_buf(L, &err, "out of memory");
    buf_free(&err);
    lua_pushinteger(L, (lua_Integer)index + 1);
    return 1;
}

static void lsm_push_counts(lua_State *L, const struct rec_counts *c) {
    lua_createtable(L, 0, 5);
    lsm_set_number(L, "sent", (double)c->sent);
    lsm_set_number(L, "ok", (double)c->ok);
    lsm_set_number(L, "failed", (double)c->failed);
    if (c->first_error) lsm_set_string(L, "first_error", c->first_error);
    lua_createtable(L, 0, (int)c->n_errors);
    for (size_t i = 0; i < c->n_errors; i++)
        lsm_set_number(L, c->errors[i].code, (double)c->errors[i].count);
    lua_setfield(L, -2, "errors");
}

/* sagemaker.set_template(file, {tokens = N, ...}) -> true | nil, message: the
 * template's overhead (rfmt.h: RFMT_TEMPLATE) of result file file (1-based),
 * written by finish. */
int lsm_set_template(lua_State *L) {
    lua_Integer file = luaL_checkinteger(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    const char *why = "out of memory";
    cJSON *v = lsm_to_json(L, 2, 0, &why);
    if (!v) return luaL_error(L, "set_template: %s", why);
    struct buf err;
    buf_init(&err, 256);
    int rc = file >= 1 ? run_set_template((size_t)file - 1, v, &err)
                       : buf_fail(&err, RUN_ERR_INPUT, "no result file %ld", (long)file);
    cJSON_Delete(v);
    if (rc) return lsm_fail_buf(L, &err, "out of memory");
    buf_free(&err);
    lua_pushboolean(L, 1);
    return 1;
}

/* sagemaker.finish() -> {partial, reason, files = {counts, ...}} | nil, message:
 * in done(), says how the run ended and writes the result files. */
int lsm_finish(lua_State *L) {
    struct run_outcome out;
    struct buf err;
    buf_init(&err, 1024);
    wrkhost_stop();
    int rc = run_end(&out, &err);
    if (rc == RUN_ERR_STATE) return lsm_fail_buf(L, &err, "the run has not begun");
    lua_createtable(L, 0, 3);
    lua_pushboolean(L, out.partial);
    lua_setfield(L, -2, "partial");
    if (out.partial) lsm_set_string(L, "reason", out.reason);
    lua_newtable(L);
    for (size_t i = 0; i < run_n_files(); i++) {
        lsm_push_counts(L, run_counts(i));
        lua_rawseti(L, -2, (int)i + 1);
    }
    lua_setfield(L, -2, "files");
    run_free();
    if (rc) return lsm_fail_buf(L, &err, "cannot write the result files");
    buf_free(&err);
    return 1;
}
