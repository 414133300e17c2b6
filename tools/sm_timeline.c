/* sm-timeline: samples an endpoint variant's scaling, or an inference
 * component's, while a load runs (endpoint/eptimeline.h): every --every seconds
 * DescribeEndpoint's instance counts (with --inference-component also
 * DescribeInferenceComponent's copy counts) and DescribeScalingActivities, one
 * JSON line a sample, into --out.
 * Given a command after --, it runs it (SM_TIMELINE=FILE in its environment,
 * which scenarios/ramp.lua records in the result's settings), samples until it
 * exits, takes a last sample and exits with its status. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "awsj.h"
#include "creds.h"
#include "eptimeline.h"
#include "safeopen.h"
#include "smname.h"

#define SMTL_EXIT_USAGE 2
#define SMTL_EXIT_AWS   3

static const char smtl_help[] =
    "Usage: sm-timeline --endpoint NAME --out FILE [options] [-- COMMAND [ARG...]]\n"
    "       sm-timeline --inference-component NAME --out FILE [options] [-- COMMAND ...]\n"
    "\n"
    "Samples an endpoint variant's scaling: every --every seconds DescribeEndpoint (the\n"
    "variant's CurrentInstanceCount and DesiredInstanceCount) and Application Auto\n"
    "Scaling's DescribeScalingActivities for it, both signed, one JSON line a sample in\n"
    "FILE (docs/result-format.md, Timeline). With --inference-component, each sample\n"
    "also reads DescribeInferenceComponent (its CurrentCopyCount, DesiredCopyCount and\n"
    "status; its endpoint and variant), and the activities are the component's\n"
    "(inference-component/NAME): sm-compare then shows its copies and cold starts.\n"
    "With a COMMAND (a load: sm-stream or wrk\n"
    "running scenarios/ramp.lua), it runs it with SM_TIMELINE=FILE in its environment\n"
    "(ramp.lua names the file in its result, where sm-compare finds it), samples until it\n"
    "exits, takes a last sample and exits with the command's status.\n"
    "\n"
    "  --endpoint NAME      the endpoint (required without --inference-component;\n"
    "                       with it, a check that the component is on this endpoint)\n"
    "  --variant NAME       its production variant (default: the first)\n"
    "  --inference-component NAME\n"
    "                       sample this inference component (its variant's instances too)\n"
    "  --every SECONDS      between samples (default 5; at least 0.01)\n"
    "  --samples N          without a COMMAND: take N samples (default 1)\n"
    "  --out FILE           the samples (required; an existing file is replaced, the\n"
    "                       missing folders of a relative path made, no link followed)\n"
    "  --region REGION      default: AWS_REGION, AWS_DEFAULT_REGION, the profile's region\n"
    "  --profile NAME       credentials from this AWS profile\n"
    "  --endpoint-url URL   send the calls to URL (the emulator) instead of AWS\n"
    "  --allow-plain-http   an http:// --endpoint-url whose host is not loopback\n"
    "  --help               print this help\n"
    "\n"
    "A sample whose call fails is left out with a line on standard error. Exit: the\n"
    "command's status; without one 0, or 3 when no sample could be taken; 2 for bad usage.\n";

struct smtl_args {
    const char *endpoint, *variant, *component, *out, *region, *profile, *url;
    double every;
    long samples;
    bool plain;
    char **command;
};

static int smtl_usage(const char *fmt, const char *what) {
    fprintf(stderr, "sm-timeline: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, " (see --help)\n");
    return SMTL_EXIT_USAGE;
}

static int smtl_parse(int argc, char **argv, struct smtl_args *a) {
    static const struct option opts[] = {
        {"endpoint", required_argument, 0, 'e'},
        {"variant", required_argument, 0, 'v'},
        {"inference-component", required_argument, 0, 'c'},
        {"every", required_argument, 0, 'E'},
        {"samples", required_argument, 0, 'n'},
        {"out", required_argument, 0, 'o'},
        {"region", required_argument, 0, 'r'},
        {"profile", required_argument, 0, 'p'},
        {"endpoint-url", required_argument, 0, 'u'},
        {"allow-plain-http", no_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    *a = (struct smtl_args){.every = 5, .samples = 1};
    int c;
    char *end;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            a->endpoint = optarg;
            break;
        case 'v':
            a->variant = optarg;
            break;
        case 'c':
            a->component = optarg;
            break;
        case 'o':
            a->out = optarg;
            break;
        case 'r':
            a->region = optarg;
            break;
        case 'p':
            a->profile = optarg;
            break;
        case 'u':
            a->url = optarg;
            break;
        case 'P':
            a->plain = true;
            break;
        case 'E':
            a->every = strtod(optarg, &end);
            if (*end || !(a->every >= 0.01 && a->every <= 86400))
                return smtl_usage("--every wants seconds from 0.01 to 86400, got '%s'", optarg);
            break;
        case 'n':
            a->samples = strtol(optarg, &end, 10);
            if (*end || a->samples < 1 || a->samples > 1000000)
                return smtl_usage("--samples wants 1 to 1000000, got '%s'", optarg);
            break;
        case 'h':
            fputs(smtl_help, stdout);
            exit(0);
        default:
            return smtl_usage("unknown option or missing value: %s", argv[optind - 1]);
        }
    }
    if (optind < argc) a->command = argv + optind;
    if (!a->endpoint && !a->component)
        return smtl_usage("%s is required", "--endpoint NAME (or --inference-component NAME)");
    if (a->endpoint && !smname_endpoint_ok(a->endpoint, strlen(a->endpoint)))
        return smtl_usage("--endpoint '%s' is not an endpoint name", a->endpoint);
    if (a->component && !smname_endpoint_ok(a->component, strlen(a->component)))
        return smtl_usage("--inference-component '%s' is not an inference component name",
                          a->component);
    if (a->component && a->variant)
        return smtl_usage("%s: the component names its variant",
                          "--variant is not for --inference-component");
    if (!a->out) return smtl_usage("%s is required", "--out FILE");
    return 0;
}

static double smtl_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Takes one sample into fd; returns whether it was written. */
static bool smtl_sample(struct awsj_client *c, const struct smtl_args *a, int fd) {
    struct eptimeline_sample *s = malloc(sizeof *s);
    struct buf err, line;
    buf_init(&err, 4096);
    buf_init(&line, BUF_NO_CAP);
    bool ok = s &&
              !eptimeline_take(c, a->endpoint, a->variant, a->component, smtl_now(), s, &err) &&
              !eptimeline_json(s, &line);
    if (ok && write(fd, line.data, line.len) != (ssize_t)line.len) {
        fprintf(stderr, "sm-timeline: cannot write %s: %s\n", a->out, strerror(errno));
        ok = false;
    } else if (!ok) {
        fprintf(stderr, "sm-timeline: a sample left out: %s\n",
                err.len ? buf_str(&err) : "out of memory");
    }
    free(s);
    buf_free(&err);
    buf_free(&line);
    return ok;
}

/* Waits up to s seconds for the child (0: none) to exit; returns whether it did (*status). */
static bool smtl_wait(pid_t child, double s, int *status) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    double until = smtl_now() + s;
    for (;;) {
        if (child > 0 && waitpid(child, status, WNOHANG) == child) return true;
        double left = until - smtl_now();
        if (left <= 0) return false;
        struct timespec ts = {(time_t)left, (long)((left - floor(left)) * 1e9)};
        (void)sigtimedwait(&set, NULL, &ts); /* a SIGCHLD ends it early */
    }
}

static int smtl_run(const struct smtl_args *a, struct awsj_client *c, int fd) {
    long taken = 0;
    if (!a->command) {
        for (long i = 0; i < a->samples; i++) {
            taken += smtl_sample(c, a, fd);
            int ignored;
            if (i + 1 < a->samples) (void)smtl_wait(0, a->every, &ignored);
        }
        return taken ? 0 : SMTL_EXIT_AWS;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    if (setenv("SM_TIMELINE", a->out, 1)) return SMTL_EXIT_USAGE;
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "sm-timeline: cannot start %s: %s\n", a->command[0], strerror(errno));
        return SMTL_EXIT_USAGE;
    }
    if (child == 0) {
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        close(fd);
        execvp(a->command[0], a->command);
        fprintf(stderr, "sm-timeline: cannot run %s: %s\n", a->command[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    for (;;) {
        (void)smtl_sample(c, a, fd);
        if (smtl_wait(child, a->every, &status)) break;
    }
    (void)smtl_sample(c, a, fd); /* the scale at the load's end */
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The region (--region or the credential chain's) and the signed client; 0 or the
 * exit status, its message said. */
static int smtl_start(const struct smtl_args *a, const struct creds_options *co, struct buf *region,
                      struct awsj_client **c, struct buf *err) {
    if (a->region ? buf_adds(region, a->region) != 0
                  : creds_region(co, region, err) != 0 || !region->len) {
        fprintf(stderr, "sm-timeline: no region: pass --region REGION (or set AWS_REGION)\n");
        return SMTL_EXIT_USAGE;
    }
    if (!creds_name_ok(buf_str(region)))
        return smtl_usage("--region '%s' is not a region such as us-east-2", buf_str(region));
    struct awsj_config cfg = {.region = buf_str(region),
                              .endpoint_url = a->url,
                              .allow_plain_http = a->plain,
                              .creds = *co};
    if (awsj_client_new(&cfg, c, err)) { /* a refused plain http URL: the flag's fault */
        fprintf(stderr, "sm-timeline: %s%s\n",
                a->url && strncmp(buf_str(err), "refusing", 8) == 0 ? "--endpoint-url: " : "",
                buf_str(err));
        *c = NULL;
        return SMTL_EXIT_USAGE;
    }
    return 0;
}

int main(int argc, char **argv) {
    struct smtl_args a;
    int rc = smtl_parse(argc, argv, &a);
    if (rc) return rc;
    struct creds_options co = {.profile = a.profile};
    struct buf region, err;
    struct awsj_client *c = NULL;
    buf_init(&region, 256);
    buf_init(&err, 4096);
    rc = smtl_start(&a, &co, &region, &c, &err);
    int fd = rc ? -1 : safeopen_path(a.out, ".", 0644, SAFEOPEN_TRUNC, &err); /* folders made */
    if (!rc && fd < 0) {
        fprintf(stderr, "sm-timeline: %s\n", buf_str(&err));
        rc = SMTL_EXIT_USAGE;
    }
    if (!rc) {
        rc = smtl_run(&a, c, fd);
        close(fd);
    }
    if (c) awsj_client_free(c);
    buf_free(&region);
    buf_free(&err);
    return rc;
}
