/* wrk's command line read as wrk 4.1.0 reads it (getopt_long, its units and defaults). */
#include <stdlib.h>

#include "../check.h"
#include "wrkargs.h"

static const struct {
    const char *line; /* words separated by '|' */
    int rc;
    unsigned long long threads, connections, duration_s, timeout_ms;
    const char *script, *url, *args; /* args joined by '|' */
} cases[] = {
    {"wrk|-t1|-c1|-d1h|--timeout|60s|-s|decode.lua|http://h:8080|--|--endpoint|a", 0, 1, 1, 3600,
     60000, "decode.lua", "http://h:8080", "--endpoint|a"},
    {"wrk|http://h|-s|x.lua", 0, 2, 10, 10, 2000, "x.lua", "http://h", ""},
    {"wrk|-t16|-c16|-d|2m|--script=s.lua|--timeout=1m|https://h/|--|-t|3", 0, 16, 16, 120, 60000,
     "s.lua", "https://h/", "-t|3"},
    {"wrk|--threads|4|--connections|1k|--duration|30|--latency|-H|X: y|u|w1|w2", 0, 4, 1000, 30,
     2000, NULL, "u", "w1|w2"},
    {"wrk|-Lt2|-c2|--thr|3|u", 0, 3, 2, 10, 2000, NULL, "u", ""},
    {"wrk|-t2|-c4|-d1H|-T2M|u", 0, 2, 4, 3600, 120000, NULL, "u", ""},
    {"wrk|-v|-t1|-c1|u|--|", 0, 1, 1, 10, 2000, NULL, "u", ""},
    {"wrk|-t1|-c1|-d10ms|u", WRKARGS_ERR_USAGE, 0, 0, 0, 0, NULL, NULL, NULL},
    {"wrk|-t1|-c1", WRKARGS_ERR_USAGE, 0, 0, 0, 0, NULL, NULL, NULL},
    {"wrk|--t|1|u", WRKARGS_ERR_USAGE, 0, 0, 0, 0, NULL, NULL, NULL},
    {"wrk|-x|u", WRKARGS_ERR_USAGE, 0, 0, 0, 0, NULL, NULL, NULL},
    {"wrk|--help|u", WRKARGS_ERR_USAGE, 0, 0, 0, 0, NULL, NULL, NULL},
    {"wrk|-t0|u", WRKARGS_ERR_USAGE, 0, 0, 0, 0, NULL, NULL, NULL},
    {"wrk|u|-t", WRKARGS_ERR_USAGE, 0, 0, 0, 0, NULL, NULL, NULL},
};

static void test_cases(void) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char data[512];
        size_t len = (size_t)snprintf(data, sizeof data, "%s", cases[i].line) + 1;
        for (size_t k = 0; k < len; k++)
            if (data[k] == '|') data[k] = '\0';
        char **argv;
        int argc;
        struct wrkargs a;
        struct buf err;
        buf_init(&err, BUF_NO_CAP);
        CHECK_INT(wrkargs_split(data, len, &argv, &argc), WRKARGS_OK);
        int rc = wrkargs_parse(argc, argv, &a, &err);
        if (rc != cases[i].rc) fprintf(stderr, "case %s: %s\n", cases[i].line, buf_str(&err));
        CHECK_INT(rc, cases[i].rc);
        if (rc == 0 && cases[i].rc == 0) {
            CHECK_INT(a.threads, cases[i].threads);
            CHECK_INT(a.connections, cases[i].connections);
            CHECK_INT(a.duration_s, cases[i].duration_s);
            CHECK_INT(a.timeout_ms, cases[i].timeout_ms);
            if (cases[i].script)
                CHECK_STR(a.script, cases[i].script);
            else
                CHECK(a.script == NULL);
            CHECK_STR(a.url, cases[i].url);
            char joined[256] = "";
            for (size_t k = 0; k < a.n_args; k++) {
                if (k) strcat(joined, "|");
                strcat(joined, a.args[k]);
            }
            CHECK_STR(joined, cases[i].args);
        } else if (rc) {
            CHECK(err.len > 0);
        }
        wrkargs_free(&a);
        free(argv);
        buf_free(&err);
    }
}

static void test_flags(void) {
    char data[] = "wrk\0-d\0005\0u";
    char **argv;
    int argc;
    struct wrkargs a;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(wrkargs_split(data, sizeof data, &argv, &argc), WRKARGS_OK);
    CHECK_INT(argc, 4);
    CHECK_INT(wrkargs_parse(argc, argv, &a, &err), WRKARGS_OK);
    CHECK(a.duration_set && !a.timeout_set && !a.threads_set && !a.connections_set);
    wrkargs_free(&a);
    free(argv);
    char unterminated[] = {'w', 'r', 'k'};
    CHECK_INT(wrkargs_split(unterminated, 3, &argv, &argc), WRKARGS_ERR_USAGE);
    buf_free(&err);
}

int main(void) {
    test_cases();
    test_flags();
    return check_exit();
}
