/* sm-stream's command line: wrk's, read as wrk reads it, with the engine's
 * options taken out wherever they stand before the scenario's "--". */
#include <stdlib.h>

#include "../check.h"
#include "sargs.h"

static const struct {
    const char *line; /* words separated by '|' */
    int rc;
    const char *api, *bearer_env, *cacert;
    int insecure;
    unsigned long long threads, connections;
    const char *url, *args; /* args joined by '|' */
    const char *error;      /* a part of the message, for an error */
} cases[] = {
    {"sm-stream|-t1|-c4|-d1h|-s|x.lua|http://h|--|--endpoint|a", 0, "stream", NULL, NULL, 0, 1, 4,
     "http://h", "--endpoint|a", NULL},
    {"sm-stream|--api|openai|-t2|-c2|-s|x.lua|http://h", 0, "openai", NULL, NULL, 0, 2, 2,
     "http://h", "", NULL},
    {"sm-stream|-s|x.lua|https://h|--api=openai|--bearer-token-env|TOK|--insecure|--cacert=ca.pem",
     0, "openai", "TOK", "ca.pem", 1, 2, 10, "https://h", "", NULL},
    /* After "--" the words are the scenario's, even when they look like the engine's. */
    {"sm-stream|-t1|-c1|-s|x.lua|u|--|--api|openai|--insecure", 0, "stream", NULL, NULL, 0, 1, 1,
     "u", "--api|openai|--insecure", NULL},
    /* A wrk option's value is never read as an engine option. */
    {"sm-stream|-H|--insecure|-t1|-c1|-s|x.lua|u", 0, "stream", NULL, NULL, 0, 1, 1, "u", "", NULL},
    {"sm-stream|--api|grpc|-s|x.lua|u", SARGS_ERR_USAGE, 0, 0, 0, 0, 0, 0, 0, 0,
     "--api wants stream or openai, got 'grpc'"},
    {"sm-stream|-s|x.lua|u|--cacert", SARGS_ERR_USAGE, 0, 0, 0, 0, 0, 0, 0, 0,
     "--cacert needs a value"},
    {"sm-stream|-t1|-c1|u", SARGS_ERR_USAGE, 0, 0, 0, 0, 0, 0, 0, 0, "no scenario"},
    {"sm-stream|-t4|-c2|-s|x.lua|u", SARGS_ERR_USAGE, 0, 0, 0, 0, 0, 0, 0, 0,
     "-t 4 is more threads than -c 2 connections"},
    {"sm-stream|--bearer-token-env|T|-s|x.lua|u", SARGS_ERR_USAGE, 0, 0, 0, 0, 0, 0, 0, 0,
     "--bearer-token-env goes with --api openai"},
    {"sm-stream|-t1|-c1|-d10ms|-s|x.lua|u", SARGS_ERR_USAGE, 0, 0, 0, 0, 0, 0, 0, 0, "10ms"},
    {"sm-stream|-s|x.lua|--help", SARGS_HELP, 0, 0, 0, 0, 0, 0, 0, 0, NULL},
    {"sm-stream|--version", SARGS_VERSION, 0, 0, 0, 0, 0, 0, 0, 0, NULL},
    /* The scenario's --help is the scenario's. */
    {"sm-stream|-t1|-c1|-s|x.lua|u|--|--help", 0, "stream", NULL, NULL, 0, 1, 1, "u", "--help",
     NULL},
};

static void test_case(size_t i) {
    char data[512];
    snprintf(data, sizeof data, "%s", cases[i].line);
    char *argv[32];
    int argc = 0;
    for (char *w = strtok(data, "|"); w && argc < 32; w = strtok(NULL, "|")) argv[argc++] = w;
    struct sargs a;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    int rc = sargs_parse(argc, argv, &a, &err);
    if (rc != cases[i].rc) fprintf(stderr, "case %s: %s\n", cases[i].line, buf_str(&err));
    CHECK_INT(rc, cases[i].rc);
    if (rc == SARGS_OK && cases[i].rc == SARGS_OK) {
        CHECK_STR(a.api, cases[i].api);
        CHECK_INT(a.route,
                  strcmp(cases[i].api, "openai") == 0 ? PLAN_ROUTE_OPENAI : PLAN_ROUTE_STREAM);
        CHECK(cases[i].bearer_env ? a.bearer_env && !strcmp(a.bearer_env, cases[i].bearer_env)
                                  : a.bearer_env == NULL);
        CHECK(cases[i].cacert ? a.cacert && !strcmp(a.cacert, cases[i].cacert) : a.cacert == NULL);
        CHECK_INT(a.insecure, cases[i].insecure);
        CHECK_INT(a.w.threads, cases[i].threads);
        CHECK_INT(a.w.connections, cases[i].connections);
        CHECK_STR(a.w.url, cases[i].url);
        CHECK_STR(a.w.script, "x.lua");
        char joined[256] = "";
        for (size_t k = 0; k < a.w.n_args; k++) {
            if (k) strcat(joined, "|");
            strcat(joined, a.w.args[k]);
        }
        CHECK_STR(joined, cases[i].args);
    } else if (cases[i].error) {
        if (!strstr(buf_str(&err), cases[i].error))
            fprintf(stderr, "case %s: [%s] lacks [%s]\n", cases[i].line, buf_str(&err),
                    cases[i].error);
        CHECK(strstr(buf_str(&err), cases[i].error) != NULL);
        CHECK(strchr(buf_str(&err), '\n') == NULL);
    }
    sargs_free(&a);
    buf_free(&err);
}

/* --busy-poll before the "--" is the engine's; after it, the scenario's word. */
static void test_busy_poll(void) {
    char *before[] = {"sm-stream", "--busy-poll", "-t1", "-c1", "-s", "x.lua", "u"};
    char *after[] = {"sm-stream", "-t1", "-c1", "-s", "x.lua", "u", "--", "--busy-poll"};
    struct sargs a, b;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(sargs_parse(7, before, &a, &err), SARGS_OK);
    CHECK(a.busy_poll);
    CHECK_INT(a.w.n_args, 0);
    CHECK_INT(sargs_parse(8, after, &b, &err), SARGS_OK);
    CHECK(!b.busy_poll);
    CHECK(b.w.n_args == 1 && strcmp(b.w.args[0], "--busy-poll") == 0);
    sargs_free(&a);
    sargs_free(&b);
    buf_free(&err);
}

int main(void) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) test_case(i);
    test_busy_poll();
    return check_exit();
}
