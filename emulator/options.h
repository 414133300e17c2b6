/* options: sm-emulator's command line. Strings point into argv. */
#ifndef EMU_OPTIONS_H
#define EMU_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "fleet.h"

/* A control-plane option as given (cpconf.h reads it): "--capacity", "us-east-1/ml.g6.xlarge=0". */
struct options_cp {
    const char *flag, *value;
};

struct options {
    bool done; /* --help or --version was printed: exit 0 */
    const char *listen;
    const char *port_file;
    const char *region;
    const char *account;
    const char *tls_cert, *tls_key;
    const char *log_file;
    const char *request_log;
    const char *profile_file;
    const char *tokenizer; /* --tokenizer: prompts counted by the model's tokenizer (ptok.h) */
    const char *credentials_file;
    bool no_env_credentials;
    bool busy_poll; /* poll the sockets without sleeping (one CPU at 100%) */
    bool
        no_endpoints; /* no --endpoint and no default ones: endpoints come from the control plane */
    double time_scale;
    double max_duration;
    double log_interval;
    double idle_timeout;    /* real seconds */
    double head_timeout;    /* real seconds a request head may take to arrive */
    double body_timeout;    /* real seconds a request body may take to arrive */
    size_t max_connections; /* connections served at once */
    size_t max_body_buffer; /* bytes of request bodies buffered across connections */
    uint64_t seed;
    struct fleet_spec *endpoints;
    size_t n_endpoints;
    struct fleet_setting *sets;
    size_t n_sets;
    char **set_texts;         /* copies the sets point into */
    const char **credentials; /* "AKID:SECRET[:TOKEN][@EXPIRY]" */
    size_t n_credentials;
    const char **bearer_tokens; /* --bearer-token values (the OpenAI route) */
    size_t n_bearer_tokens;
    size_t stream_split;   /* bytes per PayloadPart; 0: one per container event */
    bool log_subsecond;    /* CloudWatch timestamps before the container log's lines */
    struct options_cp *cp; /* the control plane's options, in order */
    size_t n_cp;
};

enum options_error {
    OPTIONS_OK = 0,
    OPTIONS_ERR_USAGE = -1, /* a bad option or value */
    OPTIONS_ERR_NOMEM = -2,
};

/* Parses argv into o. Returns 0 (o->done: --help or --version was printed), or
 * OPTIONS_ERR_* with one line in err. The options must be freed either way. */
__attribute__((warn_unused_result)) int options_parse(int argc, char **argv, struct options *o,
                                                      struct buf *err);
/* Frees what options_parse allocated (not the strings of argv). */
void options_free(struct options *o);

#endif
