/* sargs: sm-stream's command line. It is wrk's (-t, -c, -d, --timeout, -s,
 * the URL, then the script's words after --), read by wrkargs.h as wrk reads
 * it, plus the engine's own options, anywhere before the "--":
 *
 *   --api stream|openai       InvokeEndpointWithResponseStream (default), or the
 *                             OpenAI-compatible route
 *   --bearer-token-env VAR    the OpenAI route's bearer token, from that variable
 *   --cacert FILE             trust this CA (PEM) for https
 *   --insecure                do not check the server's certificate (an emulator)
 *   --busy-poll               the engine threads never sleep waiting for the network
 *
 * Pure C over wrkargs; the caller owns argv. */
#ifndef SM_SARGS_H
#define SM_SARGS_H

#include <stdbool.h>

#include "buf.h"
#include "plan.h"
#include "wrkargs.h"

enum sargs_error {
    SARGS_OK = 0,
    SARGS_ERR_NOMEM = -1,
    SARGS_ERR_USAGE = -2, /* err says what */
    SARGS_HELP = 1,       /* --help: print the usage */
    SARGS_VERSION = 2,    /* --version */
};

struct sargs {
    struct wrkargs w;       /* as wrk reads them; w.threads: the engine's OS threads */
    enum plan_route route;  /* PLAN_ROUTE_STREAM or PLAN_ROUTE_OPENAI */
    const char *api;        /* "stream" or "openai" */
    const char *bearer_env; /* NULL: sign with SigV4 */
    const char *cacert;     /* NULL: the system's */
    bool insecure;
    bool busy_poll;
    char **rest; /* what went to wrkargs (malloc'ed) */
};

/* Reads argv[0..argc). Returns SARGS_OK, SARGS_HELP, SARGS_VERSION, or an error
 * with one line in err. Free with sargs_free either way. */
__attribute__((warn_unused_result)) int sargs_parse(int argc, char **argv, struct sargs *out,
                                                    struct buf *err);
void sargs_free(struct sargs *a);

#endif
