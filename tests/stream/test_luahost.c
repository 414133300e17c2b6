/* luahost: a script runs in a main state and one state per engine thread, with
 * wrk's globals (the wrk table, setup/init, thread:get and thread:set), and a
 * script that is no sm.run scenario, or that fails, is refused in one line. */
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"
#include "luahost.h"

/* A script file holding text; its path in path. */
static void write_script(char *path, const char *text) {
    strcpy(path, "/tmp/test_luahost_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

static double number(lua_State *L, const char *name) {
    lua_getglobal(L, name);
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

static const char *string(lua_State *L, const char *name) {
    lua_getglobal(L, name);
    const char *v = lua_tostring(L, -1); /* the global anchors it */
    lua_pop(L, 1);
    return v ? v : "(nil)";
}

static const char copying[] =
    "function setup(thread)\n"
    "  thread:set('given', {a = 1, b = {'s', {deep = true}}, f = print, [2] = 'two'})\n"
    "  thread:set('marker', 7)\n"
    "  from_thread = thread:get('marker')\n"
    "  nested = thread:get('given').b[2].deep and 'yes' or 'no'\n"
    "  setups = (setups or 0) + 1\n"
    "end\n"
    "function init(args) inits = (inits or 0) + 1; nargs = #args; a = given.a;\n"
    "  f = type(given.f); two = given[2]; scheme = wrk.scheme; method = wrk.method end\n"
    "function request() return 'GET / HTTP/1.1\\r\\n\\r\\n' end\n";

/* Values go between the states as copies; functions become nil. The thread's
 * request() is no plugin hooks, so the thread is refused after its init ran. */
static void test_copying(void) {
    char path[64];
    write_script(path, copying);
    struct luahost h;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(luahost_open(&h, path, "https://example.com:8443/x", 2, &err), LUAHOST_OK);
    struct lsm_hooks *hooks = (struct lsm_hooks *)1;
    CHECK_INT(luahost_thread(&h, 1, &hooks, &err), LUAHOST_ERR_SCRIPT);
    CHECK(hooks == NULL);
    CHECK(strstr(buf_str(&err), "is not the plugin's") != NULL);
    CHECK(strstr(buf_str(&err), path) != NULL);
    CHECK_INT(number(h.main, "from_thread"), 7);
    CHECK_INT(number(h.main, "setups"), 1);
    CHECK_STR(string(h.main, "nested"), "yes");
    CHECK(h.threads[0] == NULL);
    lua_State *T = h.threads[1];
    CHECK_INT(number(T, "inits"), 1);
    CHECK_INT(number(T, "nargs"), 0);
    CHECK_INT(number(T, "a"), 1);
    CHECK_STR(string(T, "f"), "nil");
    CHECK_STR(string(T, "two"), "two");
    CHECK_STR(string(T, "scheme"), "https");
    CHECK_STR(string(T, "method"), "GET");
    CHECK(number(h.main, "marker") == 0); /* the main state's own is untouched */
    luahost_close(&h);
    buf_free(&err);
    unlink(path);
}

/* What a script did: the code of luahost_open or, with in_thread, of the
 * first thread's luahost_thread (once the open succeeded); os.exit's code;
 * the error line. */
struct outcome {
    int rc, exit_code;
    char err[4096];
};

static struct outcome run_script(const char *text, bool in_thread) {
    char path[64];
    write_script(path, text);
    struct luahost h;
    struct buf err;
    struct lsm_hooks *hooks;
    struct outcome o;
    buf_init(&err, BUF_NO_CAP);
    o.rc = luahost_open(&h, path, "http://h", 1, &err);
    if (in_thread) {
        CHECK_INT(o.rc, LUAHOST_OK);
        o.rc = luahost_thread(&h, 0, &hooks, &err);
    }
    o.exit_code = h.exit_code;
    snprintf(o.err, sizeof o.err, "%s", buf_str(&err));
    luahost_close(&h);
    buf_free(&err);
    unlink(path);
    return o;
}

/* A script that does not load, or whose setup fails, says where in one line. */
static void test_failures(void) {
    static const struct {
        const char *text, *in_main, *in_thread;
    } cases[] = {
        {"this is not lua", "expected near", NULL},
        {"error('refused by the scenario')", "refused by the scenario", NULL},
        {"function setup(t) error('setup broke') end", NULL, "setup: "},
        {"function init(a) error('init broke') end", NULL, "init: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct outcome o = run_script(cases[i].text, !cases[i].in_main);
        CHECK_INT(o.rc, LUAHOST_ERR_SCRIPT);
        CHECK(strstr(o.err, cases[i].in_main ? cases[i].in_main : cases[i].in_thread) != NULL);
        CHECK(strchr(o.err, '\n') == NULL || !"one line");
    }
}

/* os.exit unwinds to the host with its code, in the main state or a thread's. */
static void test_exit(void) {
    static const struct {
        const char *text;
        int code;
        bool in_thread;
    } cases[] = {
        {"os.exit(3)", 3, false},
        {"os.exit(true)", 0, false},
        {"os.exit(false)", 1, false},
        {"os.exit()", 0, false},
        {"function setup(t) os.exit(4) end", 4, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct outcome o = run_script(cases[i].text, cases[i].in_thread);
        CHECK_INT(o.rc, LUAHOST_EXIT);
        CHECK_INT(o.exit_code, cases[i].code);
        CHECK_STR(o.err, "");
    }
}

int main(void) {
    test_exit();
    test_copying();
    test_failures();
    return check_exit();
}
