/* mcp_runs: which names stay inside the runs folder (relative, no "..", no
 * odd characters) and that no link on the way is followed; mcp_proc: which
 * processes are the descendants a stop must end. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "mcp_proc.h"
#include "mcp_runs.h"

static const struct name_case {
    const char *name;
    const char *err; /* NULL: a name inside the folder */
} name_cases[] = {
    {"run", NULL},
    {"x/bf16", NULL},
    {"mcp-20260101T000000Z", NULL},
    {"a.b_c-d/e", NULL},
    {"", "out \"\" is empty"},
    {"/etc/cron.d", "out \"/etc/cron.d\" is an absolute path: give a name inside the runs folder"},
    {"../x", "out \"../x\" has a \".\" or \"..\" component: give a name inside the runs folder"},
    {"a/../../x",
     "out \"a/../../x\" has a \".\" or \"..\" component: give a name inside the runs folder"},
    {"a/./b", "out \"a/./b\" has a \".\" or \"..\" component: give a name inside the runs folder"},
    {"..", "out \"..\" has a \".\" or \"..\" component: give a name inside the runs folder"},
    {"a//b", "out \"a//b\" has an empty path component"},
    {"a/", "out \"a/\" ends with '/'"},
    {"a/-rf", "out \"a/-rf\" has a component that starts with '-'"},
    {"a b", "out \"a b\" may hold only A-Z a-z 0-9 . _ - and '/' between names"},
    {"~/x", "out \"~/x\" may hold only A-Z a-z 0-9 . _ - and '/' between names"},
    {"a\\b", "out \"a\\b\" may hold only A-Z a-z 0-9 . _ - and '/' between names"},
};

static void test_names(void) {
    struct buf err;
    buf_init(&err, 1024);
    for (size_t i = 0; i < sizeof name_cases / sizeof name_cases[0]; i++) {
        const struct name_case *c = &name_cases[i];
        buf_reset(&err);
        int rc = mcp_runs_check("out", c->name, &err);
        CHECK_INT(rc, c->err ? MCP_RUNS_ERR_NAME : MCP_RUNS_OK);
        if (c->err) CHECK_STR(buf_str(&err), c->err);
    }
    char longname[MCP_RUNS_NAME_MAX + 2];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK_INT(mcp_runs_check("out", longname, &err), MCP_RUNS_ERR_NAME);
    buf_free(&err);
}

/* A runs folder in a fresh temporary folder, with links planted in it. */
static void test_open(void) {
    char top[] = "/tmp/mcp-runs-XXXXXX";
    CHECK(mkdtemp(top) != NULL);
    char runs[256], path[512];
    snprintf(runs, sizeof runs, "%s/runs", top);
    struct buf out, err;
    buf_init(&out, 4096);
    buf_init(&err, 1024);

    /* create: the folder and the run's folders are made */
    CHECK_INT(mcp_runs_open(runs, "out", "a/b", true, &out, &err), MCP_RUNS_OK);
    snprintf(path, sizeof path, "%s/a/b", runs);
    CHECK_STR(buf_str(&out), path);
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_INT(mcp_runs_open(runs, "out", "a/b", true, &out, &err), MCP_RUNS_OK); /* again */

    /* a link on the way, or as the run itself, is never followed */
    snprintf(path, sizeof path, "%s/up", runs);
    CHECK(symlink(top, path) == 0);
    CHECK_INT(mcp_runs_open(runs, "out", "up/escaped", true, &out, &err), MCP_RUNS_ERR_PLACE);
    snprintf(path, sizeof path, "%s/runs/up/escaped is a link or not a folder on the way", top);
    CHECK_STR(buf_str(&err), path);
    snprintf(path, sizeof path, "%s/escaped", top);
    CHECK(access(path, F_OK) != 0); /* nothing was made through the link */
    CHECK_INT(mcp_runs_open(runs, "out", "up", true, &out, &err), MCP_RUNS_ERR_PLACE);
    snprintf(path, sizeof path, "%s/runs/up is a link", top);
    CHECK_STR(buf_str(&err), path);
    CHECK_INT(mcp_runs_open(runs, "baseline", "up", false, &out, &err), MCP_RUNS_ERR_PLACE);

    /* reading: what exists, folder or file; never made */
    CHECK_INT(mcp_runs_open(runs, "baseline", "a/b", false, &out, &err), MCP_RUNS_OK);
    CHECK_INT(mcp_runs_open(runs, "baseline", "a/none", false, &out, &err), MCP_RUNS_ERR_PLACE);
    snprintf(path, sizeof path, "%s/runs/a/none does not exist", top);
    CHECK_STR(buf_str(&err), path);
    snprintf(path, sizeof path, "%s/a/none", runs);
    CHECK(access(path, F_OK) != 0);
    CHECK_INT(mcp_runs_open(runs, "baseline", "../runs/a/b", false, &out, &err), MCP_RUNS_ERR_NAME);

    snprintf(path, sizeof path, "rm -rf '%s'", top);
    CHECK(system(path) == 0);
    buf_free(&out);
    buf_free(&err);
}

static void test_descendants(void) {
    /* 10 is sm-mcp: 11 its program, 12 and 13 the program's, 14 (reparented
     * to 10) a grandchild left behind; 20 and 21 are someone else's. */
    static const pid_t procs[][2] = {{13, 11}, {20, 1},  {11, 10}, {12, 11},
                                     {21, 20}, {14, 10}, {15, 13}, {10, 1}};
    pid_t out[8];
    size_t n = mcp_proc_descendants(procs, 8, 10, out, 8);
    CHECK_INT(n, 5);
    int seen = 0;
    for (size_t i = 0; i < n; i++) seen |= 1 << (out[i] - 10);
    CHECK_INT(seen, (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5));
    CHECK_INT(mcp_proc_descendants(procs, 8, 20, out, 8), 1);
    CHECK_INT(out[0], 21);
    CHECK_INT(mcp_proc_descendants(procs, 8, 10, out, 2), 2); /* at most max */
}

int main(void) {
    test_names();
    test_open();
    test_descendants();
    return check_exit();
}
