#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "smerr.h"
#include "smname.h"

#define OPTIONS_MAX_BODY 6291456 /* SageMaker's largest body: the body buffer holds one */

static const char options_usage[] =
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
    "  --idle-timeout SECONDS    close a connection idle this long, or whose client reads none of\n"
    "                            its replies this long (default 300)\n"
    "  --head-timeout SECONDS    a request head must arrive this long after its first byte, else\n"
    "                            408 and the connection closes (default 30)\n"
    "  --body-timeout SECONDS    a request body must arrive this long after its head, else 408\n"
    "                            (default 60)\n"
    "  --max-connections N       connections served at once; more are answered 503 and closed\n"
    "                            (default 1024)\n"
    "  --max-body-buffer BYTES   request bodies being received, in all; a body that would pass\n"
    "                            it is answered 503 (default 67108864, at least 6291456)\n"
    "  --busy-poll               never sleep waiting for the network (one CPU at 100%%, timers\n"
    "                            on time): for benchmarks with the client on this machine, which\n"
    "                            would else pay to wake the emulator's CPU on every request\n"
    "\n"
    "Endpoints and profiles:\n"
    "  --endpoint NAME[/VARIANT]=PROFILE   serve endpoint NAME (repeatable). Several VARIANTs of\n"
    "                            one NAME are production variants, chosen by the request header\n"
    "                            X-Amzn-SageMaker-Target-Variant, else at random by their\n"
    "                            'weight'. VARIANT defaults to AllTraffic. PROFILE: bf16-l4,\n"
    "                            qat-l4 (the article's servers), bf16-l4-awscli, qat-l4-awscli\n"
    "                            (the same through the aws CLI's cost per call), bf16-a10g,\n"
    "                            qat-a10g, bf16-l40s, qat-l40s (the same models on an A10G,\n"
    "                            ml.g5.xlarge, and an L40S, ml.g6e.xlarge: the L4's timing\n"
    "                            scaled by bandwidth and tensor FLOPS), instant, or one from\n"
    "                            --profile-file. Default:\n"
    "                            gemma-4-e2b=bf16-l4 and gemma-4-e2b-qat=qat-l4.\n"
    "  --no-endpoints            none from the command line, not even the default ones: the\n"
    "                            endpoints are those the control plane creates\n"
    "  --set TARGET.KEY=VALUE    set one profile parameter (repeatable, applied in order);\n"
    "                            TARGET is NAME (all its variants), NAME/VARIANT or '*' (all);\n"
    "                            KEY 'instances' (1-64: instances of the variant, each a\n"
    "                            batching model of its own) and 'routing' (RANDOM or\n"
    "                            LEAST_OUTSTANDING_REQUESTS) are the variant's\n"
    "  --profile-file FILE       JSON: {\"profiles\": {\"NAME\": {\"base\": \"bf16-l4\", KEY: "
    "VALUE,\n"
    "                            \"answers\": {KEY: TEXT}, \"faults\": {KIND: SPEC}}}}\n"
    "  --time-scale K            run K times faster: every model time is divided by K (default 1)\n"
    "  --max-duration SECONDS    SageMaker's limit on a container's answer, in model seconds: a\n"
    "                            reply that would take longer is a 424 ModelError after this\n"
    "                            (default 60; 0 = no limit)\n"
    "  --seed N                  seed of every random choice (default 1)\n"
    "  --tokenizer FILE          count prompts' tokens with the model's tokenizer (SentencePiece\n"
    "                            tokenizer.model or byte-level BPE tokenizer.json) instead of the\n"
    "                            emulator's one-token-a-word rule; the template's tokens are\n"
    "                            added as before, replies are counted as before\n"
    "  --stream-split N          cut each streamed step's bytes into PayloadParts of at most N\n"
    "                            bytes (anywhere: inside lines, strings, UTF-8 characters);\n"
    "                            default 0: one PayloadPart per container event\n"
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
    "  --bearer-token TOKEN      accept 'Authorization: Bearer TOKEN' on the OpenAI-compatible\n"
    "                            route (repeatable; never logged); SigV4 is accepted there too\n"
    "\n"
    "Logs:\n"
    "  --log-file PATH           write a vLLM-style container log per variant; PATH may hold\n"
    "                            {endpoint} and {variant}, and must when several would share it\n"
    "  --log-interval SECONDS    model seconds between 'Avg generation throughput' lines and a\n"
    "                            speculative profile's 'SpecDecoding metrics' lines (default 10)\n"
    "  --log-subsecond           start every container log line with a CloudWatch timestamp to\n"
    "                            the microsecond, as 'aws logs tail' prints them (vLLM's own\n"
    "                            prefix has whole seconds)\n"
    "  --request-log FILE        write (truncating FILE) one JSON line per request counted in\n"
    "                            the stats, when its reply is sent or its connection closes\n"
    "                            first: id, received, replied, first_token, last_token (a\n"
    "                            stream's), api, endpoint, variant, access_key_id, status (0:\n"
    "                            closed first), error_type, fault, prompt, prompt_tokens,\n"
    "                            completion_tokens\n"
    "\n"
    "Control plane (POST / with X-Amz-Target: SageMaker.CreateModel, CreateEndpointConfig,\n"
    "CreateEndpoint, UpdateEndpoint, Describe*, ListEndpoints, Delete*, AddTags, ListTags,\n"
    "DeleteTags, Create/Describe/Update/Delete/ListInferenceComponent(s),\n"
    "UpdateInferenceComponentRuntimeConfig (copies on a variant, each a container with a\n"
    "batch of its own, invoked by X-Amzn-SageMaker-Inference-Component and routed by the\n"
    "variant's RoutingConfig; README Inference components), and\n"
    "ServiceQuotasV20190624.ListServiceQuotas, GetServiceQuota; times in model seconds;\n"
    "CloudWatch: Logs_20140328.FilterLogEvents of every container line, and GetMetricData\n"
    "over JSON 1.0 and the query protocol, per-variant metrics by model minute, and an\n"
    "inference component's NoCapacityInvocationFailures, Invocations, InvocationsPerCopy\n"
    "(dimension InferenceComponentName);\n"
    "PutMetricAlarm, DescribeAlarms, DeleteAlarms on those metrics, evaluated each period;\n"
    "AnyScaleFrontendService (Application Auto Scaling): RegisterScalableTarget,\n"
    "DescribeScalableTargets, DeregisterScalableTarget, PutScalingPolicy,\n"
    "DescribeScalingPolicies, DeleteScalingPolicy, DescribeScalingActivities; a target\n"
    "tracking policy scales its variant, or an inference component's copies (min 0), while\n"
    "the emulator serves, a step scaling policy when an alarm in ALARM names its PolicyARN\n"
    "(on a component's copies too: scale out from zero on NoCapacityInvocationFailures),\n"
    "README Autoscaling):\n"
    "  --control-region REGION   serve the control plane of REGION too (repeatable); only\n"
    "                            --region's endpoints serve InvokeEndpoint\n"
    "  --create-time SECONDS     Creating to InService once placed (default 594); also the\n"
    "                            provisioning of an instance autoscaling launches\n"
    "  --capacity-wait SECONDS   InsufficientInstanceCapacity comes this long after a placement\n"
    "                            without capacity (default 1800); then the next instance pool\n"
    "  --delete-time SECONDS     Deleting to gone (default 10)\n"
    "  --capacity REGION/TYPE=N  instances of TYPE free in REGION (default unlimited; '*' for\n"
    "                            any region or type; repeatable, later ones win)\n"
    "  --quota REGION/TYPE=N     the 'TYPE for endpoint usage' quota (default 2)\n"
    "  --model MODEL_ID=PROFILE  the profile that serves SM_VLLM_MODEL=MODEL_ID (built in:\n"
    "                            google/gemma-4-E2B-it=bf16-l4,\n"
    "                            google/gemma-4-E2B-it-qat-w4a16-ct=qat-l4)\n"
    "\n"
    "Paths: POST /endpoints/NAME/invocations (InvokeEndpoint), POST / (the control plane),\n"
    "POST /endpoints/NAME/invocations-response-stream (InvokeEndpointWithResponseStream: with\n"
    "\"stream\": true the container's events as PayloadParts, each token at the end of its\n"
    "decode step), POST /endpoints/NAME[/inference-components/IC]/openai/v1/chat/completions\n"
    "(the OpenAI-compatible route: vLLM chat, SSE when streamed; SigV4 or --bearer-token),\n"
    "GET /ping (200), GET /emulator/stats (JSON counts; unsigned). See emulator/README.md.\n"
    "  --help, --version\n";

static int options_double(const char *flag, const char *text, double lo, double *out,
                          struct buf *err) {
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !(v >= lo) || v > 1e9)
        return buf_fail(err, OPTIONS_ERR_USAGE, "%s: '%s' is not a number >= %g", flag, text, lo);
    *out = v;
    return OPTIONS_OK;
}

/* A whole number from lo to 1e12. */
static int options_size(const char *flag, const char *text, size_t lo, size_t *out,
                        struct buf *err) {
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end || errno || v < lo || v > 1000000000000ULL)
        return buf_fail(err, OPTIONS_ERR_USAGE, "%s: '%s' is not a whole number from %zu", flag,
                        text, lo);
    *out = (size_t)v;
    return OPTIONS_OK;
}

/* "NAME[/VARIANT]=PROFILE" */
static int options_endpoint(struct options *o, const char *text, struct buf *err) {
    const char *eq = strchr(text, '=');
    const char *slash = eq ? memchr(text, '/', (size_t)(eq - text)) : NULL;
    size_t nlen = eq ? (size_t)((slash ? slash : eq) - text) : 0;
    size_t vlen = slash ? (size_t)(eq - slash - 1) : 0;
    if (!eq || !eq[1] || !smname_endpoint_ok(text, nlen) ||
        (slash && !smname_endpoint_ok(slash + 1, vlen)))
        return buf_fail(err, OPTIONS_ERR_USAGE,
                        "--endpoint '%s': want NAME[/VARIANT]=PROFILE, NAME and VARIANT of "
                        "letters, digits and inner hyphens (63 at most)",
                        text);
    struct fleet_spec *e = realloc(o->endpoints, (o->n_endpoints + 1) * sizeof *e);
    if (!e) return buf_fail(err, OPTIONS_ERR_NOMEM, "out of memory");
    o->endpoints = e;
    e = &e[o->n_endpoints++];
    snprintf(e->name, sizeof e->name, "%.*s", (int)nlen, text);
    snprintf(e->variant, sizeof e->variant, "%.*s", (int)(slash ? vlen : 10),
             slash ? slash + 1 : "AllTraffic");
    e->profile = eq + 1;
    return OPTIONS_OK;
}

/* "TARGET.KEY=VALUE" */
static int options_set(struct options *o, const char *text, struct buf *err) {
    const char *dot = strchr(text, '.');
    const char *eq = dot ? strchr(dot, '=') : NULL;
    if (!dot || !eq || dot == text || eq == dot + 1 || (size_t)(dot - text) >= 130)
        return buf_fail(err, OPTIONS_ERR_USAGE,
                        "--set '%s': want TARGET.KEY=VALUE (TARGET: NAME, NAME/VARIANT or *)",
                        text);
    char *copy = strdup(text);
    struct fleet_setting *s = realloc(o->sets, (o->n_sets + 1) * sizeof *s);
    char **texts = s ? realloc(o->set_texts, (o->n_sets + 1) * sizeof *texts) : NULL;
    if (s) o->sets = s;
    if (texts) o->set_texts = texts;
    if (!copy || !s || !texts) {
        free(copy);
        return buf_fail(err, OPTIONS_ERR_NOMEM, "out of memory");
    }
    o->set_texts[o->n_sets] = copy;
    s = &o->sets[o->n_sets++];
    snprintf(s->target, sizeof s->target, "%.*s", (int)(dot - text), text);
    copy[eq - text] = '\0';
    s->key = copy + (dot - text) + 1;
    s->value = copy + (eq - text) + 1;
    return OPTIONS_OK;
}

/* Appends text to the list *list of *n (--credential, --bearer-token). */
static int options_push(const char ***list, size_t *n, const char *text, struct buf *err) {
    const char **grown = realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown) return buf_fail(err, OPTIONS_ERR_NOMEM, "out of memory");
    *list = grown;
    grown[(*n)++] = text;
    return OPTIONS_OK;
}

/* A control-plane option, kept with its flag for cpconf. */
static int options_cp(struct options *o, const char *flag, const char *value, struct buf *err) {
    struct options_cp *cp = realloc(o->cp, (o->n_cp + 1) * sizeof *cp);
    if (!cp) return buf_fail(err, OPTIONS_ERR_NOMEM, "out of memory");
    o->cp = cp;
    cp[o->n_cp++] = (struct options_cp){flag, value};
    return OPTIONS_OK;
}

static int options_help(struct options *o, struct buf *err) {
    struct buf params;
    buf_init(&params, BUF_NO_CAP);
    int rc = model_help(&params);
    if (!rc) printf(options_usage, buf_str(&params));
    buf_free(&params);
    o->done = true;
    return rc ? buf_fail(err, OPTIONS_ERR_NOMEM, "out of memory") : OPTIONS_OK;
}

enum {
    OPTIONS_LISTEN = 256,
    OPTIONS_PORT_FILE,
    OPTIONS_REGION,
    OPTIONS_ACCOUNT,
    OPTIONS_TLS_CERT,
    OPTIONS_TLS_KEY,
    OPTIONS_LOG_FILE,
    OPTIONS_LOG_INTERVAL,
    OPTIONS_REQUEST_LOG,
    OPTIONS_PROFILE_FILE,
    OPTIONS_TOKENIZER,
    OPTIONS_CRED_FILE,
    OPTIONS_CRED,
    OPTIONS_NO_ENV,
    OPTIONS_BUSY_POLL,
    OPTIONS_TIME_SCALE,
    OPTIONS_MAX_DURATION,
    OPTIONS_IDLE,
    OPTIONS_HEAD_TIMEOUT,
    OPTIONS_BODY_TIMEOUT,
    OPTIONS_MAX_CONNECTIONS,
    OPTIONS_MAX_BODY_BUFFER,
    OPTIONS_SEED,
    OPTIONS_BEARER,
    OPTIONS_STREAM_SPLIT,
    OPTIONS_LOG_SUBSECOND,
    OPTIONS_ENDPOINT,
    OPTIONS_SET,
    OPTIONS_HELP,
    OPTIONS_VERSION,
    OPTIONS_CP, /* the control plane's options (cpconf.h), kept as given */
    OPTIONS_NO_ENDPOINTS,
};

static const struct option options_long[] = {
    {"listen", required_argument, NULL, OPTIONS_LISTEN},
    {"port-file", required_argument, NULL, OPTIONS_PORT_FILE},
    {"region", required_argument, NULL, OPTIONS_REGION},
    {"account-id", required_argument, NULL, OPTIONS_ACCOUNT},
    {"tls-cert", required_argument, NULL, OPTIONS_TLS_CERT},
    {"tls-key", required_argument, NULL, OPTIONS_TLS_KEY},
    {"log-file", required_argument, NULL, OPTIONS_LOG_FILE},
    {"log-interval", required_argument, NULL, OPTIONS_LOG_INTERVAL},
    {"request-log", required_argument, NULL, OPTIONS_REQUEST_LOG},
    {"profile-file", required_argument, NULL, OPTIONS_PROFILE_FILE},
    {"tokenizer", required_argument, NULL, OPTIONS_TOKENIZER},
    {"credentials-file", required_argument, NULL, OPTIONS_CRED_FILE},
    {"credential", required_argument, NULL, OPTIONS_CRED},
    {"no-env-credentials", no_argument, NULL, OPTIONS_NO_ENV},
    {"busy-poll", no_argument, NULL, OPTIONS_BUSY_POLL},
    {"time-scale", required_argument, NULL, OPTIONS_TIME_SCALE},
    {"max-duration", required_argument, NULL, OPTIONS_MAX_DURATION},
    {"idle-timeout", required_argument, NULL, OPTIONS_IDLE},
    {"head-timeout", required_argument, NULL, OPTIONS_HEAD_TIMEOUT},
    {"body-timeout", required_argument, NULL, OPTIONS_BODY_TIMEOUT},
    {"max-connections", required_argument, NULL, OPTIONS_MAX_CONNECTIONS},
    {"max-body-buffer", required_argument, NULL, OPTIONS_MAX_BODY_BUFFER},
    {"seed", required_argument, NULL, OPTIONS_SEED},
    {"bearer-token", required_argument, NULL, OPTIONS_BEARER},
    {"stream-split", required_argument, NULL, OPTIONS_STREAM_SPLIT},
    {"log-subsecond", no_argument, NULL, OPTIONS_LOG_SUBSECOND},
    {"endpoint", required_argument, NULL, OPTIONS_ENDPOINT},
    {"set", required_argument, NULL, OPTIONS_SET},
    {"help", no_argument, NULL, OPTIONS_HELP},
    {"version", no_argument, NULL, OPTIONS_VERSION},
    {"no-endpoints", no_argument, NULL, OPTIONS_NO_ENDPOINTS},
    {"control-region", required_argument, NULL, OPTIONS_CP},
    {"create-time", required_argument, NULL, OPTIONS_CP},
    {"capacity-wait", required_argument, NULL, OPTIONS_CP},
    {"delete-time", required_argument, NULL, OPTIONS_CP},
    {"capacity", required_argument, NULL, OPTIONS_CP},
    {"quota", required_argument, NULL, OPTIONS_CP},
    {"model", required_argument, NULL, OPTIONS_CP},
    {NULL, 0, NULL, 0},
};

/* The options that take a string as it is, by the field they fill. */
static const struct {
    int code;
    size_t field;
} options_strings[] = {
    {OPTIONS_LISTEN, offsetof(struct options, listen)},
    {OPTIONS_PORT_FILE, offsetof(struct options, port_file)},
    {OPTIONS_REGION, offsetof(struct options, region)},
    {OPTIONS_ACCOUNT, offsetof(struct options, account)},
    {OPTIONS_TLS_CERT, offsetof(struct options, tls_cert)},
    {OPTIONS_TLS_KEY, offsetof(struct options, tls_key)},
    {OPTIONS_LOG_FILE, offsetof(struct options, log_file)},
    {OPTIONS_REQUEST_LOG, offsetof(struct options, request_log)},
    {OPTIONS_PROFILE_FILE, offsetof(struct options, profile_file)},
    {OPTIONS_TOKENIZER, offsetof(struct options, tokenizer)},
    {OPTIONS_CRED_FILE, offsetof(struct options, credentials_file)},
};

/* The options that take a number. */
static int options_number(struct options *o, int c, const char *arg, struct buf *err) {
    double d = 0;
    switch (c) {
    case OPTIONS_LOG_INTERVAL:
        return options_double("--log-interval", arg, 0, &o->log_interval, err);
    case OPTIONS_MAX_DURATION:
        return options_double("--max-duration", arg, 0, &o->max_duration, err);
    case OPTIONS_IDLE:
        return options_double("--idle-timeout", arg, 1, &o->idle_timeout, err);
    case OPTIONS_HEAD_TIMEOUT:
        return options_double("--head-timeout", arg, 0.1, &o->head_timeout, err);
    case OPTIONS_BODY_TIMEOUT:
        return options_double("--body-timeout", arg, 0.1, &o->body_timeout, err);
    case OPTIONS_MAX_CONNECTIONS:
        return options_size("--max-connections", arg, 1, &o->max_connections, err);
    case OPTIONS_MAX_BODY_BUFFER:
        return options_size("--max-body-buffer", arg, OPTIONS_MAX_BODY, &o->max_body_buffer, err);
    case OPTIONS_TIME_SCALE:
        return options_double("--time-scale", arg, 1e-3, &o->time_scale, err);
    case OPTIONS_STREAM_SPLIT:
        return options_size("--stream-split", arg, 0, &o->stream_split, err);
    case OPTIONS_SEED:
        if (options_double("--seed", arg, 0, &d, err)) return OPTIONS_ERR_USAGE;
        o->seed = (uint64_t)d;
        return OPTIONS_OK;
    default:
        return buf_fail(err, OPTIONS_ERR_USAGE, "unknown option (see --help)");
    }
}

static int options_one(struct options *o, int c, const char *arg, struct buf *err) {
    for (size_t i = 0; i < sizeof options_strings / sizeof *options_strings; i++) {
        if (options_strings[i].code != c) continue;
        memcpy((char *)o + options_strings[i].field, &arg, sizeof arg);
        return OPTIONS_OK;
    }
    switch (c) {
    case OPTIONS_NO_ENV:
        o->no_env_credentials = true;
        return OPTIONS_OK;
    case OPTIONS_BUSY_POLL:
        o->busy_poll = true;
        return OPTIONS_OK;
    case OPTIONS_LOG_SUBSECOND:
        o->log_subsecond = true;
        return OPTIONS_OK;
    case OPTIONS_NO_ENDPOINTS:
        o->no_endpoints = true;
        return OPTIONS_OK;
    case OPTIONS_ENDPOINT:
        return options_endpoint(o, arg, err);
    case OPTIONS_SET:
        return options_set(o, arg, err);
    case OPTIONS_CRED:
        return options_push(&o->credentials, &o->n_credentials, arg, err);
    case OPTIONS_BEARER:
        return options_push(&o->bearer_tokens, &o->n_bearer_tokens, arg, err);
    default:
        return options_number(o, c, arg, err);
    }
}

/* getopt_long's '?' or ':' for the option just read. */
static int options_unknown(char **argv, struct buf *err) {
    if (optopt != 0 && optopt < 256) /* "-x": there are no short options */
        return buf_fail(err, OPTIONS_ERR_USAGE,
                        "unknown option or missing value: '-%c' (see --help)", optopt);
    return buf_fail(err, OPTIONS_ERR_USAGE, "unknown option or missing value: '%s' (see --help)",
                    argv[optind - 1]);
}

/* What the arguments do not say. */
static int options_finish(struct options *o, struct buf *err) {
    static const char *const defaults[] = {"gemma-4-e2b=bf16-l4", "gemma-4-e2b-qat=qat-l4"};
    if (o->no_endpoints && o->n_endpoints)
        return buf_fail(err, OPTIONS_ERR_USAGE, "--no-endpoints and --endpoint do not go together");
    for (size_t i = 0; !o->n_endpoints && !o->no_endpoints && i < 2; i++) {
        int rc = options_endpoint(o, defaults[0], err);
        if (!rc) rc = options_endpoint(o, defaults[1], err);
        if (rc) return rc;
    }
    if (!o->tls_cert != !o->tls_key)
        return buf_fail(err, OPTIONS_ERR_USAGE, "--tls-cert and --tls-key go together");
    return OPTIONS_OK;
}

static int options_args(int argc, char **argv, struct options *o, struct buf *err) {
    *o = (struct options){.listen = "127.0.0.1:0",
                          .region = "us-east-1",
                          .account = "123456789012",
                          .time_scale = 1,
                          .max_duration = 60,
                          .log_interval = 10,
                          .idle_timeout = 300,
                          .head_timeout = 30,
                          .body_timeout = 60,
                          .max_connections = 1024,
                          .max_body_buffer = (size_t)64 << 20,
                          .seed = 1};
    int c, at;
    opterr = 0;
    optind = 0; /* 0, not 1: glibc forgets a half-read "-ab" of an earlier parse */
    while ((c = getopt_long(argc, argv, "", options_long, &at)) != -1) {
        if (c == OPTIONS_CP) {
            int rc = options_cp(o, options_long[at].name, optarg, err);
            if (rc) return rc;
            continue;
        }
        if (c == OPTIONS_HELP) return options_help(o, err);
        if (c == OPTIONS_VERSION) {
            printf("sm-emulator " SM_VERSION "\n");
            o->done = true;
            return OPTIONS_OK;
        }
        if (c == '?' || c == ':') return options_unknown(argv, err);
        int rc = options_one(o, c, optarg, err);
        if (rc) return rc;
    }
    if (optind < argc)
        return buf_fail(err, OPTIONS_ERR_USAGE, "unexpected argument '%s' (see --help)",
                        argv[optind]);
    return options_finish(o, err);
}

int options_parse(int argc, char **argv, struct options *o, struct buf *err) {
    int rc = options_args(argc, argv, o, err);
    if (rc) buf_one_line(err);
    return rc;
}

void options_free(struct options *o) {
    for (size_t i = 0; i < o->n_sets; i++) free(o->set_texts[i]);
    free(o->set_texts);
    free(o->sets);
    free(o->endpoints);
    free(o->credentials);
    free(o->bearer_tokens);
    free(o->cp);
}
