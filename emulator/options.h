/* options: sm-emulator's command line. Strings point into argv. */
#ifndef EMU_OPTIONS_H
#define EMU_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct opt_endpoint {
    char name[64];
    char variant[64]; /* "AllTraffic" unless given */
    const char *profile;
};

struct opt_set {
    char target[130]; /* "NAME", "NAME/VARIANT" or "*" */
    const char *key;  /* points into a copy owned by the options */
    const char *value;
};

struct options {
    const char *listen;
    const char *port_file;
    const char *region;
    const char *account;
    const char *tls_cert, *tls_key;
    const char *log_file;
    const char *request_log;
    const char *profile_file;
    const char *credentials_file;
    bool no_env_credentials;
    bool busy_poll; /* poll the sockets without sleeping (one CPU at 100%) */
    double time_scale;
    double max_duration;
    double log_interval;
    double idle_timeout;
    uint64_t seed;
    struct opt_endpoint *endpoints;
    size_t n_endpoints;
    struct opt_set *sets;
    size_t n_sets;
    char **set_texts;         /* copies the sets point into */
    const char **credentials; /* "AKID:SECRET[:TOKEN][@EXPIRY]" */
    size_t n_credentials;
};

enum opt_result { OPT_RUN = 0, OPT_EXIT = 1, OPT_ERROR = -1 };

/* Parses argv. OPT_EXIT: --help or --version was printed. OPT_ERROR: err holds
 * one line. The options must be freed either way. */
__attribute__((warn_unused_result)) int opt_parse(int argc, char **argv, struct options *o,
                                                  struct buf *err);
void opt_free(struct options *o);

#endif
