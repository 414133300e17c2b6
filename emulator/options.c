#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "smerr.h"
#include "smname.h"

static const char opt_usage[] =
    "Usage: sm-emulator [OPTIONS]\n"
    "A local Amazon SageMaker Runtime endpoint (InvokeEndpoint) for tests and demos: verifies\n"
    "SigV4 like SageMaker, answers with the AWS vLLM container's (or TGI's, LMI's) bodies, and\n"
    "times replies with a continuous-batching model of the GPU. Prints the URL it serves as the\n"
    "first line of standard output. Stops on SIGINT or SIGTERM.\n"
    "\n"
    "Serving:\n"
    "  --listen HOST:PORT        address to bind (default 127.0.0.1:0; port 0 = a free port)\n"
    "  --port-file FILE          also write the URL and a newline to FILE (atomically)\n"
    "  --tls-cert PEM --tls-key PEM   serve HTTPS with this certificate chain and key\n"
    "  --idle-timeout SECONDS    close idle keep-alive connections after this (default 300)\n"
    "  --busy-poll               never sleep waiting for the network (one CPU at 100%%, timers\n"
    "                            on time): for benchmarks with the client on this machine, which\n"
    "                            would else pay to wake the emulator's CPU on every request\n"
    "\n"
    "Endpoints and profiles:\n"
    "  --endpoint NAME[/VARIANT]=PROFILE   serve endpoint NAME (repeatable). Several VARIANTs of\n"
    "                            one NAME are production variants, chosen by the request header\n"
    "                            X-Amzn-SageMaker-Target-Variant, else at random by their\n"
    "                            'weight'. VARIANT defaults to AllTraffic. PROFILE: bf16-l4,\n"
    "                            qat-l4, instant, or one from --profile-file. Default:\n"
    "                            gemma-4-e2b=bf16-l4 and gemma-4-e2b-qat=qat-l4.\n"
    "  --set TARGET.KEY=VALUE    set one profile parameter (repeatable, applied in order);\n"
    "                            TARGET is NAME (all its variants), NAME/VARIANT or '*' (all)\n"
    "  --profile-file FILE       JSON: {\"profiles\": {\"NAME\": {\"base\": \"bf16-l4\", KEY: "
    "VALUE,\n"
    "                            \"answers\": {KEY: TEXT}, \"faults\": {KIND: SPEC}}}}\n"
    "  --time-scale K            run K times faster: every model time is divided by K (default 1)\n"
    "  --max-duration SECONDS    SageMaker's limit on a container's answer, in model seconds: a\n"
    "                            reply that would take longer is a 424 ModelError after this\n"
    "                            (default 60; 0 = no limit)\n"
    "  --seed N                  seed of every random choice (default 1)\n"
    "\n"
    "Profile parameters (KEY):\n"
    "%s"
    "\n"
    "Authentication (every request but GET /ping and GET /emulator/stats is verified):\n"
    "  --region REGION           the region requests must be signed for (default us-east-1)\n"
    "  --account-id ID           the account named in error messages (default 123456789012)\n"
    "  --credential AKID:SECRET[:TOKEN][@EXPIRY]   accept this key (repeatable); with TOKEN the\n"
    "                            request must carry it as X-Amz-Security-Token; EXPIRY is Unix\n"
    "                            seconds, +/-SECONDS from now, or YYYY-MM-DDTHH:MM:SSZ. The\n"
    "                            secret shows in the process list: prefer --credentials-file.\n"
    "  --credentials-file FILE   JSON list (or {\"credentials\": [...]}) of {\"access_key_id\",\n"
    "                            \"secret_access_key\", \"session_token\", \"expiration\"}\n"
    "  --no-env-credentials      do not accept the credentials that the AWS credential chain\n"
    "                            finds in this process's environment (accepted by default)\n"
    "\n"
    "Logs:\n"
    "  --log-file PATH           write a vLLM-style container log per variant; PATH may hold\n"
    "                            {endpoint} and {variant}, and must when several would share it\n"
    "  --log-interval SECONDS    model seconds between 'Avg generation throughput' lines\n"
    "                            (default 10)\n"
    "  --request-log FILE        write (truncating FILE) one JSON line per request counted in\n"
    "                            the stats, when its reply is sent or its connection closes\n"
    "                            first: id, received, replied, endpoint, variant,\n"
    "                            access_key_id, status (0: closed first), error_type, fault,\n"
    "                            prompt, prompt_tokens, completion_tokens\n"
    "\n"
    "Paths: POST /endpoints/NAME/invocations (InvokeEndpoint), GET /ping (200),\n"
    "GET /emulator/stats (JSON counts; unsigned). See emulator/README.md.\n"
    "  --help, --version\n";

static int opt_double(const char *flag, const char *text, double lo, double *out, struct buf *err) {
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !(v >= lo) || v > 1e9) {
        (void)!buf_addf(err, "%s: '%s' is not a number >= %g", flag, text, lo);
        return -1;
    }
    *out = v;
    return 0;
}

/* "NAME[/VARIANT]=PROFILE" */
static int opt_endpoint(struct options *o, const char *text, struct buf *err) {
    const char *eq = strchr(text, '=');
    const char *slash = eq ? memchr(text, '/', (size_t)(eq - text)) : NULL;
    size_t nlen = eq ? (size_t)((slash ? slash : eq) - text) : 0;
    size_t vlen = slash ? (size_t)(eq - slash - 1) : 0;
    if (!eq || !eq[1] || !smname_endpoint_ok(text, nlen) ||
        (slash && !smname_endpoint_ok(slash + 1, vlen))) {
        (void)!buf_addf(err,
                        "--endpoint '%s': want NAME[/VARIANT]=PROFILE, NAME and VARIANT of "
                        "letters, digits and inner hyphens (63 at most)",
                        text);
        return -1;
    }
    struct opt_endpoint *e = realloc(o->endpoints, (o->n_endpoints + 1) * sizeof *e);
    if (!e) return -1;
    o->endpoints = e;
    e = &e[o->n_endpoints++];
    snprintf(e->name, sizeof e->name, "%.*s", (int)nlen, text);
    snprintf(e->variant, sizeof e->variant, "%.*s", (int)(slash ? vlen : 10),
             slash ? slash + 1 : "AllTraffic");
    e->profile = eq + 1;
    return 0;
}

/* "TARGET.KEY=VALUE" */
static int opt_set(struct options *o, const char *text, struct buf *err) {
    const char *dot = strchr(text, '.');
    const char *eq = dot ? strchr(dot, '=') : NULL;
    if (!dot || !eq || dot == text || eq == dot + 1 || (size_t)(dot - text) >= 130) {
        (void)!buf_addf(err, "--set '%s': want TARGET.KEY=VALUE (TARGET: NAME, NAME/VARIANT or *)",
                        text);
        return -1;
    }
    char *copy = strdup(text);
    struct opt_set *s = realloc(o->sets, (o->n_sets + 1) * sizeof *s);
    char **texts = s ? realloc(o->set_texts, (o->n_sets + 1) * sizeof *texts) : NULL;
    if (s) o->sets = s;
    if (texts) o->set_texts = texts;
    if (!copy || !s || !texts) {
        free(copy);
        return -1;
    }
    o->set_texts[o->n_sets] = copy;
    s = &o->sets[o->n_sets++];
    snprintf(s->target, sizeof s->target, "%.*s", (int)(dot - text), text);
    copy[eq - text] = '\0';
    s->key = copy + (dot - text) + 1;
    s->value = copy + (eq - text) + 1;
    return 0;
}

static int opt_help(void) {
    struct buf params;
    buf_init(&params, BUF_NO_CAP);
    int rc = model_help(&params);
    if (!rc) printf(opt_usage, buf_str(&params));
    buf_free(&params);
    return rc ? OPT_ERROR : OPT_EXIT;
}

enum {
    OPT_LISTEN = 256,
    OPT_PORT_FILE,
    OPT_REGION,
    OPT_ACCOUNT,
    OPT_TLS_CERT,
    OPT_TLS_KEY,
    OPT_LOG_FILE,
    OPT_LOG_INTERVAL,
    OPT_REQUEST_LOG,
    OPT_PROFILE_FILE,
    OPT_CRED_FILE,
    OPT_CRED,
    OPT_NO_ENV,
    OPT_BUSY_POLL,
    OPT_TIME_SCALE,
    OPT_MAX_DURATION,
    OPT_IDLE,
    OPT_SEED,
    OPT_ENDPOINT,
    OPT_SET,
    OPT_HELP,
    OPT_VERSION,
};

static const struct option opt_long[] = {
    {"listen", required_argument, NULL, OPT_LISTEN},
    {"port-file", required_argument, NULL, OPT_PORT_FILE},
    {"region", required_argument, NULL, OPT_REGION},
    {"account-id", required_argument, NULL, OPT_ACCOUNT},
    {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
    {"tls-key", required_argument, NULL, OPT_TLS_KEY},
    {"log-file", required_argument, NULL, OPT_LOG_FILE},
    {"log-interval", required_argument, NULL, OPT_LOG_INTERVAL},
    {"request-log", required_argument, NULL, OPT_REQUEST_LOG},
    {"profile-file", required_argument, NULL, OPT_PROFILE_FILE},
    {"credentials-file", required_argument, NULL, OPT_CRED_FILE},
    {"credential", required_argument, NULL, OPT_CRED},
    {"no-env-credentials", no_argument, NULL, OPT_NO_ENV},
    {"busy-poll", no_argument, NULL, OPT_BUSY_POLL},
    {"time-scale", required_argument, NULL, OPT_TIME_SCALE},
    {"max-duration", required_argument, NULL, OPT_MAX_DURATION},
    {"idle-timeout", required_argument, NULL, OPT_IDLE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"endpoint", required_argument, NULL, OPT_ENDPOINT},
    {"set", required_argument, NULL, OPT_SET},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static int opt_one(struct options *o, int c, const char *arg, struct buf *err) {
    double d;
    const char **creds;
    switch (c) {
    case OPT_LISTEN:
        o->listen = arg;
        return 0;
    case OPT_PORT_FILE:
        o->port_file = arg;
        return 0;
    case OPT_REGION:
        o->region = arg;
        return 0;
    case OPT_ACCOUNT:
        o->account = arg;
        return 0;
    case OPT_TLS_CERT:
        o->tls_cert = arg;
        return 0;
    case OPT_TLS_KEY:
        o->tls_key = arg;
        return 0;
    case OPT_LOG_FILE:
        o->log_file = arg;
        return 0;
    case OPT_REQUEST_LOG:
        o->request_log = arg;
        return 0;
    case OPT_PROFILE_FILE:
        o->profile_file = arg;
        return 0;
    case OPT_CRED_FILE:
        o->credentials_file = arg;
        return 0;
    case OPT_NO_ENV:
        o->no_env_credentials = true;
        return 0;
    case OPT_BUSY_POLL:
        o->busy_poll = true;
        return 0;
    case OPT_LOG_INTERVAL:
        return opt_double("--log-interval", arg, 0, &o->log_interval, err);
    case OPT_MAX_DURATION:
        return opt_double("--max-duration", arg, 0, &o->max_duration, err);
    case OPT_IDLE:
        return opt_double("--idle-timeout", arg, 1, &o->idle_timeout, err);
    case OPT_TIME_SCALE:
        return opt_double("--time-scale", arg, 1e-3, &o->time_scale, err);
    case OPT_SEED:
        if (opt_double("--seed", arg, 0, &d, err)) return -1;
        o->seed = (uint64_t)d;
        return 0;
    case OPT_ENDPOINT:
        return opt_endpoint(o, arg, err);
    case OPT_SET:
        return opt_set(o, arg, err);
    case OPT_CRED:
        creds = realloc(o->credentials, (o->n_credentials + 1) * sizeof *creds);
        if (!creds) return -1;
        o->credentials = creds;
        creds[o->n_credentials++] = arg;
        return 0;
    default:
        return -1;
    }
}

static int opt_args(int argc, char **argv, struct options *o, struct buf *err) {
    *o = (struct options){.listen = "127.0.0.1:0",
                          .region = "us-east-1",
                          .account = "123456789012",
                          .time_scale = 1,
                          .max_duration = 60,
                          .log_interval = 10,
                          .idle_timeout = 300,
                          .seed = 1};
    int c;
    opterr = 0;
    optind = 0; /* 0, not 1: glibc forgets a half-read "-ab" of an earlier parse */
    while ((c = getopt_long(argc, argv, "", opt_long, NULL)) != -1) {
        if (c == OPT_HELP) return opt_help();
        if (c == OPT_VERSION) {
            printf("sm-emulator " SM_VERSION "\n");
            return OPT_EXIT;
        }
        if (c == '?' && optopt != 0 && optopt < 256) { /* "-x": there are no short options */
            (void)!buf_addf(err, "unknown option or missing value: '-%c' (see --help)", optopt);
            return OPT_ERROR;
        }
        if (c == '?' || c == ':') {
            (void)!buf_addf(err, "unknown option or missing value: '%s' (see --help)",
                            argv[optind - 1]);
            return OPT_ERROR;
        }
        if (opt_one(o, c, optarg, err)) {
            if (!err->len) (void)!buf_adds(err, "out of memory");
            return OPT_ERROR;
        }
    }
    if (optind < argc) {
        (void)!buf_addf(err, "unexpected argument '%s' (see --help)", argv[optind]);
        return OPT_ERROR;
    }
    for (size_t i = 0; !o->n_endpoints && i < 2; i++) {
        static const char *const defaults[] = {"gemma-4-e2b=bf16-l4", "gemma-4-e2b-qat=qat-l4"};
        if (opt_endpoint(o, defaults[0], err) || opt_endpoint(o, defaults[1], err)) {
            (void)!buf_adds(err, "out of memory");
            return OPT_ERROR;
        }
    }
    if (!o->tls_cert != !o->tls_key) {
        (void)!buf_adds(err, "--tls-cert and --tls-key go together");
        return OPT_ERROR;
    }
    return OPT_RUN;
}

int opt_parse(int argc, char **argv, struct options *o, struct buf *err) {
    int rc = opt_args(argc, argv, o, err);
    if (rc == OPT_ERROR) smerr_one_line(err);
    return rc;
}

void opt_free(struct options *o) {
    for (size_t i = 0; i < o->n_sets; i++) free(o->set_texts[i]);
    free(o->set_texts);
    free(o->sets);
    free(o->endpoints);
    free(o->credentials);
}
