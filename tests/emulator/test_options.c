/* sm-emulator's command line: the defaults, the limits' flags and their ranges,
 * and one-line refusals with OPTIONS_ERR_USAGE. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "options.h"

/* Parses "sm-emulator ARGS..." (NULL-terminated). */
static int parse(struct options *o, struct buf *err, ...) {
    static char name[] = "sm-emulator";
    char *argv[32] = {name};
    int argc = 1;
    va_list ap;
    va_start(ap, err);
    for (char *a; argc < 31 && (a = va_arg(ap, char *));) argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    buf_reset(err);
    return options_parse(argc, argv, o, err);
}

int main(void) {
    struct options o;
    struct buf err;
    buf_init(&err, 4096);
    CHECK_INT(parse(&o, &err, (char *)NULL), 0);
    CHECK(!o.done && o.idle_timeout == 300 && o.head_timeout == 30 && o.body_timeout == 60);
    CHECK_INT(o.max_connections, 1024);
    CHECK_INT(o.max_body_buffer, 64 << 20);
    CHECK_INT(o.n_endpoints, 2); /* the two default endpoints */
    CHECK_STR(o.endpoints[1].name, "gemma-4-e2b-qat");
    options_free(&o);
    CHECK_INT(parse(&o, &err, "--head-timeout", "0.5", "--body-timeout", "2", "--max-connections",
                    "3", "--max-body-buffer", "6291456", "--endpoint", "ep/v=instant",
                    (char *)NULL),
              0);
    CHECK(o.head_timeout == 0.5 && o.body_timeout == 2);
    CHECK_INT(o.max_connections, 3);
    CHECK_INT(o.max_body_buffer, 6291456);
    CHECK_INT(o.n_endpoints, 1);
    CHECK_STR(o.endpoints[0].variant, "v");
    CHECK(o.n_bearer_tokens == 0 && o.stream_split == 0 && !o.log_subsecond);
    options_free(&o);
    CHECK_INT(parse(&o, &err, "--bearer-token", "t1", "--bearer-token", "t2", "--stream-split", "7",
                    "--log-subsecond", (char *)NULL),
              0);
    CHECK(o.n_bearer_tokens == 2 && strcmp(o.bearer_tokens[1], "t2") == 0);
    CHECK(o.stream_split == 7 && o.log_subsecond);
    options_free(&o);
    static const struct {
        const char *flag, *value, *error;
    } bad[] = {
        {"--head-timeout", "0.05", "--head-timeout: '0.05' is not a number >= 0.1"},
        {"--body-timeout", "x", "--body-timeout: 'x' is not a number >= 0.1"},
        {"--max-connections", "0", "--max-connections: '0' is not a whole number from 1"},
        {"--max-connections", "-3", "--max-connections: '-3' is not a whole number from 1"},
        {"--max-body-buffer", "6291455",
         "--max-body-buffer: '6291455' is not a whole number from 6291456"},
        {"--max-body-buffer", "1e9", "--max-body-buffer: '1e9' is not a whole number from 6291456"},
        {"--endpoint", "a_b=instant", "--endpoint 'a_b=instant': want NAME[/VARIANT]=PROFILE"},
        {"--set", "nodot", "--set 'nodot': want TARGET.KEY=VALUE"},
        {"--stream-split", "-1", "--stream-split: '-1' is not a whole number from 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_INT(parse(&o, &err, bad[i].flag, bad[i].value, (char *)NULL), OPTIONS_ERR_USAGE);
        CHECK(strncmp(buf_str(&err), bad[i].error, strlen(bad[i].error)) == 0);
        if (strncmp(buf_str(&err), bad[i].error, strlen(bad[i].error)) != 0)
            fprintf(stderr, "%s %s: %s\n", bad[i].flag, bad[i].value, buf_str(&err));
        options_free(&o);
    }
    CHECK_INT(parse(&o, &err, "--tls-cert", "c.pem", (char *)NULL), OPTIONS_ERR_USAGE);
    CHECK_STR(buf_str(&err), "--tls-cert and --tls-key go together");
    options_free(&o);
    CHECK_INT(parse(&o, &err, "--version", (char *)NULL), 0);
    CHECK(o.done);
    options_free(&o);
    buf_free(&err);
    return check_exit();
}
