/* sm-endpoint: the endpoint lifecycle of the seed system from the command line
 * (deploy, wait, swap, status, list, logs, verify, query, delete, quotas,
 * images, config, autoscale), over the library epops/epinfo/epscale that sm-mcp
 * shares. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epfacts.h"
#include "epinfo.h"
#include "epops.h"
#include "epown.h"
#include "epscale.h"
#include "plainhttp.h"
#include "tty.h"

#define EPCLI_EXIT_AWS     1
#define EPCLI_EXIT_USAGE   2
#define EPCLI_EXIT_STOPPED 130
#define EPCLI_MAX_LIST     8

static const char epcli_usage[] =
    "Usage: sm-endpoint [--region R] [--endpoint-url URL] COMMAND [NAME] [OPTIONS]\n"
    "\n"
    "The life of a SageMaker real-time endpoint serving an LLM with the AWS vLLM container,\n"
    "as the seed system ran it: every step one command. The checkpoint is one environment\n"
    "variable, SM_VLLM_MODEL.\n"
    "\n"
    "Commands:\n"
    "  deploy NAME --model ID --role ARN   CreateModel (the region's vLLM image, "
    "SM_VLLM_MODEL=ID),\n"
    "                            CreateEndpointConfig, CreateEndpoint, then wait for InService "
    "with\n"
    "                            a progress line (status, time, the cost so far)\n"
    "  wait NAME                 wait for InService (or Failed, or --wait-timeout)\n"
    "  swap NAME --model ID      a config of another SM_VLLM_MODEL and UpdateEndpoint; with\n"
    "                            --as NAME2, a second endpoint like NAME instead (A/B)\n"
    "  status NAME               DescribeEndpoint: status, failure reason, model, instances, cost\n"
    "  list                      the endpoints of the region(s)\n"
    "  logs NAME                 the container's log (CloudWatch Logs, "
    "/aws/sagemaker/Endpoints/NAME)\n"
    "  verify NAME               one InvokeEndpoint: a reply of the right shape with the known "
    "answer\n"
    "  query NAME --prompt TEXT  one InvokeEndpoint with a prompt of yours\n"
    "  delete NAME               the endpoint, its config and model, when the run (--run ID)\n"
    "                            or the tool (--created-by-tool) created them and no other\n"
    "                            endpoint uses them (asks on a terminal; --yes)\n"
    "  quotas                    the 'TYPE for endpoint usage' quotas and what is in use\n"
    "  images                    the AWS vLLM container image of the region, and where it is from\n"
    "  config NAME --model ID    the requests and aws CLI commands of a deploy, sending nothing\n"
    "  autoscale set NAME --min N --max N (--target-invocations X | --target-concurrency X)\n"
    "                            Application Auto Scaling of a variant's instance count:\n"
    "                            RegisterScalableTarget and one target-tracking policy\n"
    "  autoscale show NAME       its scalable targets, policies and last activities\n"
    "  autoscale remove NAME     DeleteScalingPolicy (each policy), DeregisterScalableTarget\n"
    "\n"
    "Everywhere:\n"
    "  --region REGION           default: AWS_REGION, AWS_DEFAULT_REGION, the profile's region\n"
    "  --profile NAME            the AWS profile (default AWS_PROFILE, else default)\n"
    "  --endpoint-url URL        send every call there (sm-emulator's URL) instead of AWS\n"
    "  --allow-plain-http        sign for an http:// --endpoint-url whose host is not loopback\n"
    "                            (the signature and session token cross the network in\n"
    "                            clear); http:// to 127.0.0.0/8, ::1 or localhost needs none\n"
    "  --time-scale K            sm-emulator's --time-scale: times and costs are told emulated\n"
    "  --facts FILE              the facts file (images, prices; default: the installed\n"
    "                            tools/endpoint-facts.json)\n"
    "  --json                    the result as one JSON object on standard output\n"
    "  --poll SECONDS            between status calls while waiting (default 15 / K)\n"
    "  -h, --help                this text\n"
    "  --version                 the version and the default facts file\n"
    "\n"
    "deploy, config:\n"
    "  --instance-type T[,T...]  the instance type, or a priority list of up to 5 "
    "(InstancePools);\n"
    "                            default ml.g6.xlarge\n"
    "  --pools                   InstancePools even for one type\n"
    "  --provision-timeout S     VariantInstanceProvisionTimeoutInSeconds (300 to 3600)\n"
    "  --count N                 instances (default 1)\n"
    "  --image URI               the container image (default: the facts' vLLM image of the "
    "region)\n"
    "  --role ARN                the execution role SageMaker runs the container with (deploy)\n"
    "  --env KEY=VALUE           one more container variable (repeatable), e.g. "
    "SM_VLLM_DTYPE=auto\n"
    "  --max-model-len N         SM_VLLM_MAX_MODEL_LEN (default 8192)\n"
    "  --regions R1,R2,...       try these in order: on InsufficientInstanceCapacity or\n"
    "                            ResourceLimitExceeded the next (default: --region)\n"
    "  --no-wait                 return once Creating\n"
    "deploy, wait, swap:\n"
    "  --wait-timeout S          give up waiting after S (emulated) seconds (default 2700)\n"
    "deploy, wait, swap, status, delete:\n"
    "  --price-per-hour USD      the hourly price (default: the facts' for the type and region)\n"
    "swap: --as NAME2, --no-wait.  list: --name-contains TEXT, --regions.\n"
    "logs: --since SECONDS (default 3600), --limit N (default 50).\n"
    "verify, query: --variant V.  query: --prompt TEXT, --system TEXT, --max-tokens N,\n"
    "--temperature T.  delete: --yes, --wait (for Creating or Updating to end first, then\n"
    "until the endpoint is gone).\n"
    "deploy, swap: --run ID     the run id tagged on what they create (default: a new one,\n"
    "                            printed)\n"
    "delete: --run ID           delete only what run ID created (its tags say so)\n"
    "        --created-by-tool  delete what any run of wrk-sagemaker created\n"
    "quotas: --instance-type T[,T...] (default the L4 types), --regions.\n"
    "autoscale set:\n"
    "  --min N, --max N          the instances it scales between (1 to 1000)\n"
    "  --target-invocations X    keep SageMakerVariantInvocationsPerInstance (invocations a\n"
    "                            minute per instance) near X\n"
    "  --target-concurrency X    keep SageMakerVariantConcurrentRequestsPerModelHighResolution\n"
    "                            (concurrent requests per model copy) near X\n"
    "  --scale-in-cooldown S, --scale-out-cooldown S   seconds (0 to 86400; default AWS's)\n"
    "  --disable-scale-in        the policy only adds instances\n"
    "autoscale set, remove: --variant V (default: the endpoint's only variant; remove: every\n"
    "variant), --yes, --dry-run (does the reads, prints the calls that change, sends none).\n"
    "\n"
    "Every deploy prints the hourly price it was told and the cost so far: an endpoint bills\n"
    "from its creation until it is deleted. Ctrl-C stops a wait, not the endpoint.\n"
    "\n"
    "Ownership: what deploy and swap create carries the SageMaker tags\n"
    "wrk-sagemaker:created-by=wrk-sagemaker and wrk-sagemaker:run=ID. A deploy onto a name\n"
    "(endpoint, config or model) that exists fails and touches nothing. delete checks every\n"
    "resource first and deletes nothing when one is not the run's (or the tool's) or another\n"
    "endpoint uses it: one line \"refusing to delete ...\" each, exit 1. autoscale set and\n"
    "remove act only on an endpoint whose tags say wrk-sagemaker created it (any run), and\n"
    "ask on a terminal first (--yes); else one line \"refusing to change the autoscaling of\n"
    "endpoint ...\" and exit 2, nothing changed.\n"
    "\n"
    "Exit status: 0 done; 1 an AWS call failed, or the endpoint failed, timed out or answered\n"
    "wrong; 2 bad usage or input (one line on standard error); 130 stopped by Ctrl-C.\n";

enum epcli_cmd {
    EPCLI_DEPLOY,
    EPCLI_WAIT,
    EPCLI_SWAP,
    EPCLI_STATUS,
    EPCLI_LIST,
    EPCLI_LOGS,
    EPCLI_VERIFY,
    EPCLI_QUERY,
    EPCLI_DELETE,
    EPCLI_QUOTAS,
    EPCLI_IMAGES,
    EPCLI_CONFIG,
    EPCLI_AS_SET,
    EPCLI_AS_SHOW,
    EPCLI_AS_REMOVE,
    EPCLI_NCMD
};

static const struct {
    const char *name;
    bool needs_name;
} epcli_cmds[EPCLI_NCMD] = {
    {"deploy", true},        {"wait", true},           {"swap", true},
    {"status", true},        {"list", false},          {"logs", true},
    {"verify", true},        {"query", true},          {"delete", true},
    {"quotas", false},       {"images", false},        {"config", true},
    {"autoscale set", true}, {"autoscale show", true}, {"autoscale remove", true},
};

#define EPCLI_BIT(c) (1u << (c))
#define EPCLI_ALL    (~0u)

enum {
    EPCLI_O_REGION = 256,
    EPCLI_O_PROFILE,
    EPCLI_O_URL,
    EPCLI_O_PLAIN,
    EPCLI_O_SCALE,
    EPCLI_O_FACTS,
    EPCLI_O_JSON,
    EPCLI_O_POLL,
    EPCLI_O_MODEL,
    EPCLI_O_TYPE,
    EPCLI_O_POOLS,
    EPCLI_O_PTIMEOUT,
    EPCLI_O_COUNT,
    EPCLI_O_IMAGE,
    EPCLI_O_ROLE,
    EPCLI_O_ENV,
    EPCLI_O_MAXLEN,
    EPCLI_O_REGIONS,
    EPCLI_O_NOWAIT,
    EPCLI_O_WTIMEOUT,
    EPCLI_O_PRICE,
    EPCLI_O_AS,
    EPCLI_O_CONTAINS,
    EPCLI_O_SINCE,
    EPCLI_O_LIMIT,
    EPCLI_O_VARIANT,
    EPCLI_O_PROMPT,
    EPCLI_O_SYSTEM,
    EPCLI_O_MAXTOK,
    EPCLI_O_TEMP,
    EPCLI_O_YES,
    EPCLI_O_WAIT,
    EPCLI_O_RUN,
    EPCLI_O_BY_TOOL,
    EPCLI_O_MIN,
    EPCLI_O_MAX,
    EPCLI_O_T_INVOKE,
    EPCLI_O_T_CONC,
    EPCLI_O_IN_COOL,
    EPCLI_O_OUT_COOL,
    EPCLI_O_NO_IN,
    EPCLI_O_DRY,
    EPCLI_O_HELP,
    EPCLI_O_VERSION,
    EPCLI_O_END
};

_Static_assert(EPCLI_O_END - EPCLI_O_REGION <= 64, "an option is a bit of epcli.given");

/* Which commands take each option. */
static const unsigned epcli_takes[EPCLI_O_END - EPCLI_O_REGION] = {
    [0] = EPCLI_ALL, /* EPCLI_O_REGION */
    [EPCLI_O_PROFILE - EPCLI_O_REGION] = EPCLI_ALL,
    [EPCLI_O_URL - EPCLI_O_REGION] = EPCLI_ALL,
    [EPCLI_O_PLAIN - EPCLI_O_REGION] = EPCLI_ALL,
    [EPCLI_O_SCALE - EPCLI_O_REGION] = EPCLI_ALL,
    [EPCLI_O_FACTS - EPCLI_O_REGION] = EPCLI_ALL,
    [EPCLI_O_JSON - EPCLI_O_REGION] = EPCLI_ALL,
    [EPCLI_O_POLL - EPCLI_O_REGION] = EPCLI_ALL,
    [EPCLI_O_HELP - EPCLI_O_REGION] = EPCLI_ALL,
    [EPCLI_O_VERSION - EPCLI_O_REGION] = EPCLI_ALL,
    [EPCLI_O_MODEL - EPCLI_O_REGION] =
        EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_SWAP) | EPCLI_BIT(EPCLI_CONFIG),
    [EPCLI_O_TYPE - EPCLI_O_REGION] =
        EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_CONFIG) | EPCLI_BIT(EPCLI_QUOTAS),
    [EPCLI_O_POOLS - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_CONFIG),
    [EPCLI_O_PTIMEOUT - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_CONFIG),
    [EPCLI_O_COUNT - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_CONFIG),
    [EPCLI_O_IMAGE - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_CONFIG),
    [EPCLI_O_ROLE - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_CONFIG),
    [EPCLI_O_ENV - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_CONFIG),
    [EPCLI_O_MAXLEN - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_CONFIG),
    [EPCLI_O_REGIONS - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_CONFIG) |
                                         EPCLI_BIT(EPCLI_LIST) | EPCLI_BIT(EPCLI_QUOTAS),
    [EPCLI_O_NOWAIT - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_SWAP),
    [EPCLI_O_WTIMEOUT - EPCLI_O_REGION] =
        EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_WAIT) | EPCLI_BIT(EPCLI_SWAP),
    [EPCLI_O_PRICE - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_WAIT) |
                                       EPCLI_BIT(EPCLI_SWAP) | EPCLI_BIT(EPCLI_STATUS) |
                                       EPCLI_BIT(EPCLI_DELETE),
    [EPCLI_O_AS - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_SWAP),
    [EPCLI_O_CONTAINS - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_LIST),
    [EPCLI_O_SINCE - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_LOGS),
    [EPCLI_O_LIMIT - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_LOGS),
    [EPCLI_O_VARIANT - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_VERIFY) | EPCLI_BIT(EPCLI_QUERY) |
                                         EPCLI_BIT(EPCLI_AS_SET) | EPCLI_BIT(EPCLI_AS_REMOVE),
    [EPCLI_O_PROMPT - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_QUERY),
    [EPCLI_O_SYSTEM - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_QUERY),
    [EPCLI_O_MAXTOK - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_QUERY),
    [EPCLI_O_TEMP - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_QUERY),
    [EPCLI_O_YES - EPCLI_O_REGION] =
        EPCLI_BIT(EPCLI_DELETE) | EPCLI_BIT(EPCLI_AS_SET) | EPCLI_BIT(EPCLI_AS_REMOVE),
    [EPCLI_O_WAIT - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DELETE),
    [EPCLI_O_RUN - EPCLI_O_REGION] =
        EPCLI_BIT(EPCLI_DEPLOY) | EPCLI_BIT(EPCLI_SWAP) | EPCLI_BIT(EPCLI_DELETE),
    [EPCLI_O_BY_TOOL - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_DELETE),
    [EPCLI_O_MIN - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_AS_SET),
    [EPCLI_O_MAX - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_AS_SET),
    [EPCLI_O_T_INVOKE - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_AS_SET),
    [EPCLI_O_T_CONC - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_AS_SET),
    [EPCLI_O_IN_COOL - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_AS_SET),
    [EPCLI_O_OUT_COOL - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_AS_SET),
    [EPCLI_O_NO_IN - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_AS_SET),
    [EPCLI_O_DRY - EPCLI_O_REGION] = EPCLI_BIT(EPCLI_AS_SET) | EPCLI_BIT(EPCLI_AS_REMOVE),
};

static const struct option epcli_options[] = {
    {"region", required_argument, NULL, EPCLI_O_REGION},
    {"profile", required_argument, NULL, EPCLI_O_PROFILE},
    {"endpoint-url", required_argument, NULL, EPCLI_O_URL},
    {"allow-plain-http", no_argument, NULL, EPCLI_O_PLAIN},
    {"time-scale", required_argument, NULL, EPCLI_O_SCALE},
    {"facts", required_argument, NULL, EPCLI_O_FACTS},
    {"json", no_argument, NULL, EPCLI_O_JSON},
    {"poll", required_argument, NULL, EPCLI_O_POLL},
    {"model", required_argument, NULL, EPCLI_O_MODEL},
    {"instance-type", required_argument, NULL, EPCLI_O_TYPE},
    {"pools", no_argument, NULL, EPCLI_O_POOLS},
    {"provision-timeout", required_argument, NULL, EPCLI_O_PTIMEOUT},
    {"count", required_argument, NULL, EPCLI_O_COUNT},
    {"image", required_argument, NULL, EPCLI_O_IMAGE},
    {"role", required_argument, NULL, EPCLI_O_ROLE},
    {"env", required_argument, NULL, EPCLI_O_ENV},
    {"max-model-len", required_argument, NULL, EPCLI_O_MAXLEN},
    {"regions", required_argument, NULL, EPCLI_O_REGIONS},
    {"no-wait", no_argument, NULL, EPCLI_O_NOWAIT},
    {"wait-timeout", required_argument, NULL, EPCLI_O_WTIMEOUT},
    {"price-per-hour", required_argument, NULL, EPCLI_O_PRICE},
    {"as", required_argument, NULL, EPCLI_O_AS},
    {"name-contains", required_argument, NULL, EPCLI_O_CONTAINS},
    {"since", required_argument, NULL, EPCLI_O_SINCE},
    {"limit", required_argument, NULL, EPCLI_O_LIMIT},
    {"variant", required_argument, NULL, EPCLI_O_VARIANT},
    {"prompt", required_argument, NULL, EPCLI_O_PROMPT},
    {"system", required_argument, NULL, EPCLI_O_SYSTEM},
    {"max-tokens", required_argument, NULL, EPCLI_O_MAXTOK},
    {"temperature", required_argument, NULL, EPCLI_O_TEMP},
    {"yes", no_argument, NULL, EPCLI_O_YES},
    {"wait", no_argument, NULL, EPCLI_O_WAIT},
    {"run", required_argument, NULL, EPCLI_O_RUN},
    {"created-by-tool", no_argument, NULL, EPCLI_O_BY_TOOL},
    {"min", required_argument, NULL, EPCLI_O_MIN},
    {"max", required_argument, NULL, EPCLI_O_MAX},
    {"target-invocations", required_argument, NULL, EPCLI_O_T_INVOKE},
    {"target-concurrency", required_argument, NULL, EPCLI_O_T_CONC},
    {"scale-in-cooldown", required_argument, NULL, EPCLI_O_IN_COOL},
    {"scale-out-cooldown", required_argument, NULL, EPCLI_O_OUT_COOL},
    {"disable-scale-in", no_argument, NULL, EPCLI_O_NO_IN},
    {"dry-run", no_argument, NULL, EPCLI_O_DRY},
    {"help", no_argument, NULL, EPCLI_O_HELP},
    {"version", no_argument, NULL, EPCLI_O_VERSION},
    {NULL, 0, NULL, 0},
};

/* The command line, read. */
struct epcli {
    enum epcli_cmd cmd;
    const char *name;
    const char *region, *profile, *url, *facts;
    double scale, poll, price, wait_timeout, since, temperature;
    bool json, help, version, yes, wait, no_wait, pools, by_tool, plain_http;
    const char *run; /* --run: the run id to tag with, or whose resources delete may act on */
    struct epops_deploy_req deploy;
    char *type_list, *region_list; /* strdup'ed, split in place */
    const char *as, *contains, *variant, *prompt, *system;
    long limit, max_tokens;
    struct epscale_set_req autoscale; /* autoscale set */
    bool dry_run;
    uint64_t given; /* the options given, as bits of EPCLI_O_* - EPCLI_O_REGION */
};

static volatile sig_atomic_t epcli_stop;
static bool epcli_tty;
static bool epcli_line_open;

__attribute__((format(printf, 1, 2))) static int epcli_fail(const char *fmt, ...) {
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (epcli_line_open) fputs("\r\033[K", stderr);
    epcli_line_open = false;
    fputs("sm-endpoint: ", stderr);
    if (tty_write(stderr, line, strlen(line), 0)) fputs("out of memory", stderr);
    fputc('\n', stderr);
    return EPCLI_EXIT_USAGE;
}

/* ---- reading the command line ---- */

static int epcli_number(const char *flag, const char *v, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(d) || d < lo || d > hi)
        return epcli_fail("--%s: '%s' is not a number from %g to %g", flag, v, lo, hi);
    *out = d;
    return 0;
}

static int epcli_whole(const char *flag, const char *v, long lo, long hi, long *out) {
    double d = 0;
    int rc = epcli_number(flag, v, (double)lo, (double)hi, &d);
    if (!rc && d != floor(d)) rc = epcli_fail("--%s: '%s' is not a whole number", flag, v);
    *out = (long)d;
    return rc;
}

/* Splits a comma list in place into out (at most max). */
static int epcli_split(const char *flag, char *s, const char **out, size_t max, size_t *n) {
    *n = 0;
    for (char *p = strtok(s, ","); p; p = strtok(NULL, ",")) {
        if (*n == max) return epcli_fail("--%s: at most %zu of them", flag, max);
        out[(*n)++] = p;
    }
    return *n ? 0 : epcli_fail("--%s: an empty list", flag);
}

/* A value without control characters (it goes into JSON and headers). */
static int epcli_text_ok(const char *flag, const char *v) {
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t')
            return epcli_fail("--%s: a control character in its value", flag);
    return 0;
}

static int epcli_value(struct epcli *a, int opt, const char *name, const char *v) {
    switch (opt) {
    case EPCLI_O_REGION:
        a->region = v;
        return 0;
    case EPCLI_O_PROFILE:
        a->profile = v;
        return 0;
    case EPCLI_O_URL:
        a->url = v;
        return 0;
    case EPCLI_O_FACTS:
        a->facts = v;
        return 0;
    case EPCLI_O_SCALE:
        return epcli_number(name, v, 0.001, 1e6, &a->scale);
    case EPCLI_O_POLL:
        return epcli_number(name, v, 0.01, 3600, &a->poll);
    case EPCLI_O_MODEL:
        a->deploy.model_id = v;
        return epcli_text_ok(name, v);
    case EPCLI_O_TYPE:
        free(a->type_list);
        return (a->type_list = strdup(v)) ? 0 : epcli_fail("out of memory");
    case EPCLI_O_PTIMEOUT:
        return epcli_whole(name, v, 300, 3600, &a->deploy.provision_timeout_s);
    case EPCLI_O_COUNT:
        return epcli_whole(name, v, 1, 100, &a->deploy.count);
    case EPCLI_O_IMAGE:
        a->deploy.image = v;
        return epcli_text_ok(name, v);
    case EPCLI_O_ROLE:
        a->deploy.role = v;
        return epcli_text_ok(name, v);
    case EPCLI_O_ENV:
        if (a->deploy.n_env == EPREQ_MAX_ENV) return epcli_fail("--env: at most %d", EPREQ_MAX_ENV);
        if (!strchr(v, '=') || v[0] == '=') return epcli_fail("--env '%s': want KEY=VALUE", v);
        a->deploy.env[a->deploy.n_env++] = v;
        return epcli_text_ok(name, v);
    case EPCLI_O_MAXLEN:
        return epcli_whole(name, v, 16, 1048576, &a->deploy.max_model_len);
    case EPCLI_O_REGIONS:
        free(a->region_list);
        return (a->region_list = strdup(v)) ? 0 : epcli_fail("out of memory");
    case EPCLI_O_WTIMEOUT:
        return epcli_number(name, v, 1, 86400, &a->wait_timeout);
    case EPCLI_O_PRICE:
        return epcli_number(name, v, 0.0001, 10000, &a->price);
    case EPCLI_O_AS:
        a->as = v;
        return 0;
    case EPCLI_O_CONTAINS:
        a->contains = v;
        return 0;
    case EPCLI_O_SINCE:
        return epcli_number(name, v, 1, 1209600, &a->since);
    case EPCLI_O_LIMIT:
        return epcli_whole(name, v, 1, 10000, &a->limit);
    case EPCLI_O_VARIANT:
        a->variant = v;
        return 0;
    case EPCLI_O_PROMPT:
        a->prompt = v;
        return 0;
    case EPCLI_O_SYSTEM:
        a->system = v;
        return 0;
    case EPCLI_O_MAXTOK:
        return epcli_whole(name, v, 1, 8192, &a->max_tokens);
    case EPCLI_O_TEMP:
        return epcli_number(name, v, 0, 2, &a->temperature);
    case EPCLI_O_MIN:
        return epcli_whole(name, v, 1, EPSCALE_MAX_CAP, &a->autoscale.min);
    case EPCLI_O_MAX:
        return epcli_whole(name, v, 1, EPSCALE_MAX_CAP, &a->autoscale.max);
    case EPCLI_O_T_INVOKE:
    case EPCLI_O_T_CONC:
        a->autoscale.metric = opt == EPCLI_O_T_INVOKE ? EPSCALE_INVOCATIONS : EPSCALE_CONCURRENCY;
        return epcli_number(name, v, 0.001, 1e6, &a->autoscale.target);
    case EPCLI_O_IN_COOL:
        return epcli_whole(name, v, 0, EPSCALE_MAX_COOL, &a->autoscale.scale_in_cooldown_s);
    case EPCLI_O_OUT_COOL:
        return epcli_whole(name, v, 0, EPSCALE_MAX_COOL, &a->autoscale.scale_out_cooldown_s);
    case EPCLI_O_RUN:
        a->run = v;
        return epown_run_ok(v) ? 0
                               : epcli_fail("--run: '%s' is not a run id (1 to 63 letters, "
                                            "digits, '-', '_' and '.')",
                                            v);
    default:
        return 0;
    }
}

static void epcli_flag(struct epcli *a, int opt) {
    if (opt == EPCLI_O_JSON) a->json = true;
    if (opt == EPCLI_O_POOLS) a->pools = true;
    if (opt == EPCLI_O_NOWAIT) a->no_wait = true;
    if (opt == EPCLI_O_YES) a->yes = true;
    if (opt == EPCLI_O_WAIT) a->wait = true;
    if (opt == EPCLI_O_BY_TOOL) a->by_tool = true;
    if (opt == EPCLI_O_NO_IN) a->autoscale.disable_scale_in = true;
    if (opt == EPCLI_O_DRY) a->dry_run = true;
    if (opt == EPCLI_O_PLAIN) a->plain_http = true;
    if (opt == EPCLI_O_HELP) a->help = true;
    if (opt == EPCLI_O_VERSION) a->version = true;
}

/* The command and its name (the words that are not options). */
static int epcli_words(struct epcli *a, int argc, char **argv) {
    const char *cmd = optind < argc ? argv[optind++] : NULL;
    if (!cmd) return epcli_fail("no command (see sm-endpoint --help)");
    a->cmd = EPCLI_NCMD;
    if (strcmp(cmd, "autoscale") == 0) { /* two words: autoscale set|show|remove */
        const char *sub = optind < argc ? argv[optind++] : "";
        if (strcmp(sub, "set") == 0) a->cmd = EPCLI_AS_SET;
        if (strcmp(sub, "show") == 0) a->cmd = EPCLI_AS_SHOW;
        if (strcmp(sub, "remove") == 0) a->cmd = EPCLI_AS_REMOVE;
        if (a->cmd == EPCLI_NCMD)
            return epcli_fail("autoscale: '%s' is not set, show or remove (see sm-endpoint "
                              "--help)",
                              sub);
        cmd = epcli_cmds[a->cmd].name;
    }
    for (int i = 0; i < EPCLI_NCMD && a->cmd == EPCLI_NCMD; i++)
        if (strcmp(cmd, epcli_cmds[i].name) == 0) a->cmd = (enum epcli_cmd)i;
    if (a->cmd == EPCLI_NCMD)
        return epcli_fail("unknown command '%s' (see sm-endpoint --help)", cmd);
    if (epcli_cmds[a->cmd].needs_name) {
        if (optind >= argc)
            return epcli_fail("%s: which endpoint? (sm-endpoint %s NAME)", cmd, cmd);
        a->name = argv[optind++];
    }
    if (optind < argc) return epcli_fail("%s: unexpected argument '%s'", cmd, argv[optind]);
    return 0;
}

static int epcli_parse(struct epcli *a, int argc, char **argv) {
    int opt, idx = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "+:h", epcli_options, &idx)) != -1) {
        if (opt == 'h') { /* the short option: idx is not set */
            a->given |= UINT64_C(1) << (EPCLI_O_HELP - EPCLI_O_REGION);
            epcli_flag(a, EPCLI_O_HELP);
            continue;
        }
        if (opt == '?')
            return epcli_fail("unknown option '%s' (see sm-endpoint --help)", argv[optind - 1]);
        if (opt == ':')
            return epcli_fail("%s needs a value (see sm-endpoint --help)", argv[optind - 1]);
        a->given |= UINT64_C(1) << (opt - EPCLI_O_REGION);
        int rc =
            epcli_options[idx].has_arg ? epcli_value(a, opt, epcli_options[idx].name, optarg) : 0;
        if (!epcli_options[idx].has_arg) epcli_flag(a, opt);
        if (rc) return rc;
    }
    return 0;
}

/* Parses options and words in any order: options may follow the command. */
static int epcli_read(struct epcli *a, int argc, char **argv) {
    char **words = calloc((size_t)argc + 1, sizeof *words),
         **opts = calloc((size_t)argc + 1, sizeof *opts);
    int nw = 1, no = 1, rc = 0;
    if (!words || !opts) {
        free(words);
        free(opts);
        return epcli_fail("out of memory");
    }
    words[0] = opts[0] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        bool is_opt = w[0] == '-' && w[1];
        if (strcmp(w, "--") == 0) {
            while (++i < argc) words[nw++] = argv[i];
            break;
        }
        if (!is_opt) {
            words[nw++] = argv[i];
            continue;
        }
        opts[no++] = argv[i];
        /* an option's value follows it unless given with '=' */
        for (const struct option *o = epcli_options; o->name; o++)
            if (o->has_arg && w[1] == '-' && strcmp(w + 2, o->name) == 0 && i + 1 < argc)
                opts[no++] = argv[++i];
    }
    a->cmd = EPCLI_NCMD;
    if (!rc) {
        optind = 0;
        rc = epcli_parse(a, no, opts);
    }
    if (!rc && !a->help && !a->version) {
        optind = 1;
        rc = epcli_words(a, nw, words);
    }
    free(words);
    free(opts);
    return rc;
}

/* Refuses an option the command does not take. */
static int epcli_check(const struct epcli *a) {
    for (int k = 0; k < EPCLI_O_END - EPCLI_O_REGION; k++)
        if ((a->given & (UINT64_C(1) << k)) && !(epcli_takes[k] & EPCLI_BIT(a->cmd))) {
            const char *name = "?";
            for (const struct option *o = epcli_options; o->name; o++)
                if (o->val == k + EPCLI_O_REGION) name = o->name;
            return epcli_fail("--%s does not go with %s (see sm-endpoint --help)", name,
                              epcli_cmds[a->cmd].name);
        }
    if ((a->cmd == EPCLI_DEPLOY || a->cmd == EPCLI_SWAP || a->cmd == EPCLI_CONFIG) &&
        !a->deploy.model_id)
        return epcli_fail("%s: which checkpoint? pass --model MODEL_ID (SM_VLLM_MODEL), e.g. "
                          "google/gemma-4-E2B-it",
                          epcli_cmds[a->cmd].name);
    if (a->cmd == EPCLI_DEPLOY && !a->deploy.role)
        return epcli_fail(
            "deploy: pass --role ARN, the execution role SageMaker runs the container "
            "with (arn:aws:iam::ACCOUNT:role/NAME)");
    if (a->cmd == EPCLI_QUERY && !a->prompt) return epcli_fail("query: pass --prompt TEXT");
    const uint64_t t_inv = UINT64_C(1) << (EPCLI_O_T_INVOKE - EPCLI_O_REGION),
                   t_conc = UINT64_C(1) << (EPCLI_O_T_CONC - EPCLI_O_REGION);
    if (a->cmd == EPCLI_AS_SET && (!(a->given & (UINT64_C(1) << (EPCLI_O_MIN - EPCLI_O_REGION))) ||
                                   !(a->given & (UINT64_C(1) << (EPCLI_O_MAX - EPCLI_O_REGION)))))
        return epcli_fail("autoscale set: pass --min N and --max N (the instances it scales "
                          "between)");
    if (a->cmd == EPCLI_AS_SET && a->autoscale.min > a->autoscale.max)
        return epcli_fail("autoscale set: --min %ld is above --max %ld", a->autoscale.min,
                          a->autoscale.max);
    if (a->cmd == EPCLI_AS_SET && !(a->given & t_inv) == !(a->given & t_conc))
        return epcli_fail("autoscale set: pass one of --target-invocations X and "
                          "--target-concurrency X");
    if (a->cmd == EPCLI_DELETE && !a->run == !a->by_tool)
        return epcli_fail("delete: pass --run RUN_ID (the run that deployed it: deploy prints it) "
                          "or --created-by-tool (anything wrk-sagemaker created), not both");
    if (a->url && strncmp(a->url, "http://", 7) != 0 && strncmp(a->url, "https://", 8) != 0)
        return epcli_fail("--endpoint-url: '%s' is not an http:// or https:// URL", a->url);
    struct buf why;
    buf_init(&why, 1024);
    int prc = a->url && plainhttp_check(a->url, a->plain_http, &why)
                  ? epcli_fail("--endpoint-url: %s", buf_str(&why))
                  : 0;
    buf_free(&why);
    return prc;
}

/* ---- hooks: progress on stderr, Ctrl-C, sleeping ---- */

static void epcli_on_signal(int sig) {
    (void)sig;
    epcli_stop = 1;
}

static void epcli_progress(void *ud, const char *line, double fraction) {
    (void)ud;
    (void)fraction;
    fputs(epcli_tty ? "\r\033[Ksm-endpoint: " : "sm-endpoint: ", stderr);
    if (tty_write(stderr, line, strlen(line), 0)) fputs("out of memory", stderr);
    if (!epcli_tty) fputc('\n', stderr);
    epcli_line_open = epcli_tty;
    fflush(stderr);
}

static bool epcli_stopped(void *ud) {
    (void)ud;
    return epcli_stop != 0;
}

static void epcli_sleep(void *ud, double s) {
    (void)ud;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    if (!epcli_stop) nanosleep(&ts, NULL); /* a signal ends it early */
}

/* ---- running ---- */

/* The region: --region, else the environment's or the profile's. */
static int epcli_region(struct epcli *a, struct buf *region) {
    struct creds_options co = {.profile = a->profile};
    struct buf err;
    buf_init(&err, 1024);
    int rc = 0;
    if (a->region)
        rc = buf_adds(region, a->region) ? epcli_fail("out of memory") : 0;
    else if (creds_region(&co, region, &err) || !region->len)
        rc = epcli_fail("no region: pass --region REGION (or set AWS_REGION)");
    if (!rc && !creds_name_ok(buf_str(region)))
        rc = epcli_fail("--region '%s' is not a region such as us-east-2", buf_str(region));
    buf_free(&err);
    return rc;
}

/* Asks on the terminal before a delete or an autoscaling change; 0 to go on. */
static int epcli_confirm(const struct epcli *a, const char *region) {
    bool scale = a->cmd == EPCLI_AS_SET || a->cmd == EPCLI_AS_REMOVE;
    if (a->yes || a->dry_run) return 0;
    if (!isatty(STDIN_FILENO) && scale)
        return epcli_fail("%s %s: standard input is not a terminal to ask on: pass --yes to "
                          "change its autoscaling (or --dry-run to see the calls)",
                          epcli_cmds[a->cmd].name, a->name);
    if (!isatty(STDIN_FILENO))
        return epcli_fail("delete %s: standard input is not a terminal to ask on: pass --yes to "
                          "delete the endpoint, its config and model",
                          a->name);
    if (a->cmd == EPCLI_AS_SET)
        fprintf(stderr,
                "Set the autoscaling of endpoint %s in %s to %ld to %ld instance(s)? It changes "
                "how many instances bill. [y/N] ",
                a->name, region, a->autoscale.min, a->autoscale.max);
    else if (a->cmd == EPCLI_AS_REMOVE)
        fprintf(stderr,
                "Remove the autoscaling of endpoint %s in %s? Its instance count stays where it "
                "is. [y/N] ",
                a->name, region);
    else
        fprintf(stderr,
                "Delete endpoint %s in %s, its endpoint config and model? It stops the billing. "
                "[y/N] ",
                a->name, region);
    fflush(stderr);
    char answer[16] = "";
    if (!fgets(answer, sizeof answer, stdin) || (answer[0] != 'y' && answer[0] != 'Y')) {
        fprintf(stderr, "sm-endpoint: %s\n", scale ? "nothing changed" : "not deleted");
        return EPCLI_EXIT_AWS;
    }
    return 0;
}

static int epcli_run_cmd(struct epcli *a, struct epops *o, const char *region,
                         struct epops_out *out, struct buf *err) {
    const char *regions[EPCLI_MAX_LIST], *types[EPREQ_MAX_TYPES];
    size_t nr = 0, nt = 0;
    if (a->region_list && epcli_split("regions", a->region_list, regions, EPCLI_MAX_LIST, &nr))
        return EPOPS_ERR_INPUT;
    if (a->type_list && epcli_split("instance-type", a->type_list, types, EPREQ_MAX_TYPES, &nt))
        return EPOPS_ERR_INPUT;
    struct epops_deploy_req *d = &a->deploy;
    d->name = a->name;
    memcpy(d->types, types, nt * sizeof types[0]);
    d->n_types = nt;
    memcpy(d->regions, regions, nr * sizeof regions[0]);
    d->n_regions = nr;
    d->pools = a->pools;
    d->wait = !a->no_wait;
    d->wait_timeout_s = a->wait_timeout;
    d->price = a->price;
    struct epops_swap_req s = {a->name,     d->model_id,     a->as,   region,
                               !a->no_wait, a->wait_timeout, a->price};
    struct epinfo_query q = {a->prompt, a->system, a->max_tokens, a->temperature, a->variant};
    switch (a->cmd) {
    case EPCLI_DEPLOY:
        return epops_deploy(o, d, out, err);
    case EPCLI_WAIT:
        return epops_wait(o, region, a->name, NULL, a->wait_timeout, a->price, out, err);
    case EPCLI_SWAP:
        return epops_swap(o, &s, out, err);
    case EPCLI_STATUS:
        return epinfo_status(o, region, a->name, a->price, out, err);
    case EPCLI_LIST:
        return epinfo_list(o, regions, nr, a->contains, out, err);
    case EPCLI_LOGS:
        return epinfo_logs(o, region, a->name, a->since, a->limit, out, err);
    case EPCLI_VERIFY:
        return epinfo_verify(o, region, a->name, a->variant, out, err);
    case EPCLI_QUERY:
        return epinfo_query(o, region, a->name, &q, out, err);
    case EPCLI_DELETE:
        return epops_delete(o, region, a->name, a->wait, a->price, a->by_tool, out, err);
    case EPCLI_QUOTAS:
        return epinfo_quotas(o, regions, nr, types, nt, out, err);
    case EPCLI_IMAGES:
        return epinfo_images(o, region, out, err);
    case EPCLI_CONFIG:
        return epinfo_config(o, d, out, err);
    case EPCLI_AS_SET:
        a->autoscale.name = a->name;
        a->autoscale.variant = a->variant;
        return epscale_set(o, region, &a->autoscale, a->dry_run, out, err);
    case EPCLI_AS_SHOW:
        return epscale_show(o, region, a->name, out, err);
    case EPCLI_AS_REMOVE:
        return epscale_remove(o, region, a->name, a->variant, a->dry_run, out, err);
    default:
        return EPOPS_ERR_INPUT;
    }
}

static int epcli_exit(int rc) {
    switch (rc) {
    case EPOPS_OK:
        return 0;
    case EPOPS_ERR_INPUT:
        return EPCLI_EXIT_USAGE;
    case EPOPS_ERR_STOPPED:
        return EPCLI_EXIT_STOPPED;
    default:
        return EPCLI_EXIT_AWS;
    }
}

static int epcli_run(struct epcli *a) {
    struct buf region, err;
    buf_init(&region, 64);
    buf_init(&err, 4096);
    int rc = epcli_region(a, &region);
    if (!rc && (a->cmd == EPCLI_DELETE || a->cmd == EPCLI_AS_SET || a->cmd == EPCLI_AS_REMOVE))
        rc = epcli_confirm(a, buf_str(&region));
    if (rc) {
        buf_free(&region);
        buf_free(&err);
        return rc;
    }
    struct epops_config cfg = {buf_str(&region),
                               a->url,
                               a->profile,
                               a->facts,
                               a->scale,
                               a->poll,
                               {epcli_progress, epcli_stopped, epcli_sleep, NULL, NULL, NULL},
                               a->run,
                               a->plain_http};
    struct epops *o = NULL;
    struct epops_out out;
    epops_out_init(&out);
    int orc = epops_new(&cfg, &o, &err);
    if (!orc) orc = epcli_run_cmd(a, o, buf_str(&region), &out, &err);
    if (epcli_line_open) fputs("\n", stderr);
    epcli_line_open = false;
    if (orc && err.len)
        epcli_fail("%s", buf_str(&err));
    else if (orc == EPOPS_ERR_NOMEM)
        epcli_fail("out of memory");
    /* what came from AWS (a reply, a log line, a failure reason) reaches the terminal
     * scrubbed and with its control characters escaped (tty.h) */
    int wrc = 0;
    if (!orc && a->json && out.json) {
        char *text = cJSON_PrintUnformatted(out.json);
        wrc = text ? tty_write(stdout, text, strlen(text), TTY_JSON) : BUF_ERR_NOMEM;
        if (!wrc) putchar('\n');
        cJSON_free(text);
    } else if (!orc) {
        wrc = tty_write(stdout, buf_str(&out.text), out.text.len, TTY_LINES);
    }
    if (wrc) {
        epcli_fail("out of memory");
        orc = EPOPS_ERR_NOMEM;
    }
    /* an autoscaling refusal is the caller's to fix: not this tool's endpoint */
    rc = orc == EPOPS_ERR_REFUSED && (a->cmd == EPCLI_AS_SET || a->cmd == EPCLI_AS_REMOVE)
             ? EPCLI_EXIT_USAGE
             : epcli_exit(orc);
    epops_out_free(&out);
    epops_free(o);
    buf_free(&region);
    buf_free(&err);
    return rc;
}

int main(int argc, char **argv) {
    struct epcli a = {0};
    a.since = 3600;
    a.limit = 50;
    a.autoscale.scale_in_cooldown_s = -1;
    a.autoscale.scale_out_cooldown_s = -1;
    struct sigaction sa = {0};
    sa.sa_handler = epcli_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    epcli_tty = isatty(STDERR_FILENO) == 1;
    int rc = epcli_read(&a, argc, argv);
    if (!rc && a.help)
        fputs(epcli_usage, stdout);
    else if (!rc && a.version) {
        char *facts = epfacts_default_path();
        printf("sm-endpoint (wrk-sagemaker) %s\ndefault facts: %s\n", SM_VERSION,
               facts ? facts : "?");
        free(facts);
    } else if (!rc)
        rc = epcli_check(&a);
    if (!rc && !a.help && !a.version) rc = epcli_run(&a);
    free(a.type_list);
    free(a.region_list);
    return rc;
}
