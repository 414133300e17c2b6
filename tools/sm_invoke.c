/* sm-invoke: sends one SigV4-signed SageMaker Runtime InvokeEndpoint request
 * with libcurl (aws/rtinvoke.h, the call sm-endpoint and sm-mcp send too), as
 * `aws sagemaker-runtime invoke-endpoint` does, and prints the reply. Every
 * header curl sends that matters is signed exactly as sent. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "awserr.h"
#include "creds.h"
#include "readall.h"
#include "rtinvoke.h"
#include "scrub.h"
#include "sigv4.h"
#include "skew.h"
#include "smname.h"

#define SMINV_MAX_EXTRA  RTINVOKE_MAX_EXTRA
#define SMINV_MAX_BODY   ((size_t)64 << 20)
#define SMINV_MAX_REPLY  ((size_t)256 << 20)
#define SMINV_EXIT_HTTP  1
#define SMINV_EXIT_USAGE 2
#define SMINV_REDACTED   SCRUB_REDACTED

static const char sminv_help[] =
    "Usage: sm-invoke --endpoint NAME --body FILE [options]\n"
    "\n"
    "Sends one SigV4-signed SageMaker Runtime InvokeEndpoint request\n"
    "(POST /endpoints/NAME/invocations) and prints the reply body on standard output\n"
    "and the status and wall time on standard error, e.g. \"200 OK 0.123 s\".\n"
    "\n"
    "  --endpoint NAME            endpoint name: letters, digits and inner '-', at most 63\n"
    "                             characters (required)\n"
    "  --body FILE                request body from FILE, or '-' for standard input (required)\n"
    "  --region REGION            AWS region (default: AWS_REGION, AWS_DEFAULT_REGION, then\n"
    "                             the profile's region)\n"
    "  --content-type TYPE        Content-Type (default application/json)\n"
    "  --accept TYPE              Accept (default application/json)\n"
    "  --header 'Name: value'     an extra request header, signed; repeatable (at most 32)\n"
    "  --target-variant NAME      X-Amzn-SageMaker-Target-Variant\n"
    "  --custom-attributes TEXT   X-Amzn-SageMaker-Custom-Attributes\n"
    "  --inference-component NAME X-Amzn-SageMaker-Inference-Component\n"
    "  --url BASE                 send to BASE (http:// or https://, host, optional port and\n"
    "                             path prefix) instead of\n"
    "                             https://runtime.sagemaker.REGION.amazonaws.com (.com.cn\n"
    "                             in a cn-* region), e.g. http://127.0.0.1:8080 for the\n"
    "                             emulator\n"
    "  --allow-plain-http         sign for an http:// --url whose host is not loopback (the\n"
    "                             signature and session token cross the network in clear);\n"
    "                             http:// to 127.0.0.0/8, ::1 or localhost needs no flag\n"
    "  --service NAME             SigV4 service name (default sagemaker)\n"
    "  --profile NAME             AWS profile (default: AWS_PROFILE, else 'default'); when\n"
    "                             given, AWS_ACCESS_KEY_ID and friends are not used\n"
    "  --dry-run                  send nothing; print the canonical request, the string to\n"
    "                             sign and the signed request headers on standard output\n"
    "  --amz-date YYYYMMDDTHHMMSSZ  sign with this UTC time instead of the clock (turns off\n"
    "                             the clock-skew retry)\n"
    "  --insecure                 HTTPS: do not verify the server's certificate\n"
    "  --cacert FILE              HTTPS: verify the server's certificate with the CA\n"
    "                             certificates in FILE (PEM)\n"
    "  --timeout SECONDS          give up after this long (default 70; SageMaker allows the\n"
    "                             model 60)\n"
    "  -v, --verbose              also print the credential source, region, request and reply\n"
    "                             headers on standard error\n"
    "  -h, --help                 print this help and exit\n"
    "\n"
    "Credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,\n"
    "AWS_SESSION_TOKEN), the shared credentials and config files (AWS_PROFILE,\n"
    "AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE, credential_process), the ECS container\n"
    "endpoint, then EC2 instance metadata (IMDSv2). The secret key is never printed, the\n"
    "session token only as <redacted>; the Authorization header only by --dry-run.\n"
    "\n"
    "A 403 saying \"Signature expired\" or \"Signature not yet current\" is retried once,\n"
    "signed with the time from the reply's Date header. An error reply is printed on\n"
    "standard error as \"STATUS ErrorCode: message\"; its body only with --verbose.\n"
    "Control characters in the reply's status line and headers are shown as '?'.\n"
    "\n"
    "Exit status: 0 a 2xx reply or a dry run; 1 an error reply or no reply (connection,\n"
    "time-out); 2 bad usage or input (flags, body file, credentials, region).\n";

struct sminv_args {
    const char *endpoint, *body_path, *region, *content_type, *accept, *target_variant;
    const char *custom_attributes, *inference_component, *url, *service, *profile, *amz_date;
    const char *cacert;
    const char *extra[SMINV_MAX_EXTRA]; /* --header values, "Name: value" */
    size_t n_extra;
    bool dry_run, insecure, verbose, allow_plain_http;
    long timeout_ms;
};

/* The request (aws/rtinvoke.h), and the secrets to keep out of any output. */
struct sminv {
    struct sminv_args a;
    struct creds creds;
    struct buf region, body;
    struct rtinvoke rt;
    bool made; /* rt was made (rtinvoke_init) */
};

/* Prints to f with the secrets scrubbed (scrub.h): nothing printed holds them. */
__attribute__((format(printf, 2, 3))) static void sminv_say(FILE *f, const char *fmt, ...) {
    struct buf line, clean;
    va_list ap;
    buf_init(&line, BUF_NO_CAP);
    buf_init(&clean, BUF_NO_CAP);
    va_start(ap, fmt);
    if (buf_vaddf(&line, fmt, ap) == 0 && scrub_append(&clean, line.data, line.len) == 0)
        fwrite(clean.data ? clean.data : "", 1, clean.len, f);
    va_end(ap);
    buf_free_secret(&line);
    buf_free_secret(&clean);
}

/* Prints one line naming what was wrong (control characters shown as '?');
 * returns the usage exit code. */
__attribute__((format(printf, 1, 2))) static int sminv_error(const char *fmt, ...) {
    struct buf line;
    va_list ap;
    buf_init(&line, BUF_NO_CAP);
    va_start(ap, fmt);
    if (buf_adds(&line, "sm-invoke: ") == 0 && buf_vaddf(&line, fmt, ap) == 0) {
        for (size_t i = 0; i < line.len; i++)
            if ((unsigned char)line.data[i] < 0x20) line.data[i] = '?';
        fprintf(stderr, "%s\n", line.data);
    }
    va_end(ap);
    buf_free(&line);
    return SMINV_EXIT_USAGE;
}

static bool sminv_value_ok(const char *s) {
    for (; *s; s++)
        if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f) return false;
    return true;
}

static bool sminv_tchar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Checks one --header value; returns an error text or NULL. */
static const char *sminv_extra_problem(const char *h) {
    static const char *const managed[] = {
        "host",         "authorization", "x-amz-date", "x-amz-security-token", "content-length",
        "content-type", "accept",        "expect",     "transfer-encoding",    "connection"};
    const char *colon = strchr(h, ':');
    if (!colon || colon == h) return "is not 'Name: value'";
    for (const char *p = h; p < colon; p++)
        if (!sminv_tchar(*p)) return "has a header name with characters HTTP does not allow";
    if (!sminv_value_ok(colon + 1)) return "has control characters in its value";
    for (size_t i = 0; i < sizeof managed / sizeof *managed; i++)
        if (strlen(managed[i]) == (size_t)(colon - h) && strncasecmp(h, managed[i], colon - h) == 0)
            return "sets a header sm-invoke manages (use --content-type, --accept, --amz-date)";
    return NULL;
}

static int sminv_parse_timeout(const char *s, long *ms) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 86400) return -1;
    *ms = (long)(v * 1000 + 0.5);
    return *ms > 0 ? 0 : -1;
}

static int sminv_check_date(const char *s) {
    time_t t;
    char again[SIGV4_DATE_LEN + 1];
    if (sigv4_parse_date(s, &t) || sigv4_format_date(t, again)) return -1;
    return strcmp(again, s) == 0 ? 0 : -1;
}

enum {
    SMINV_OPT_FIRST = 256, /* after every short option's character */
    SMINV_OPT_ENDPOINT = SMINV_OPT_FIRST,
    SMINV_OPT_BODY,
    SMINV_OPT_REGION,
    SMINV_OPT_CONTENT_TYPE,
    SMINV_OPT_ACCEPT,
    SMINV_OPT_HEADER,
    SMINV_OPT_TARGET_VARIANT,
    SMINV_OPT_CUSTOM_ATTRIBUTES,
    SMINV_OPT_INFERENCE_COMPONENT,
    SMINV_OPT_URL,
    SMINV_OPT_SERVICE,
    SMINV_OPT_PROFILE,
    SMINV_OPT_DRY_RUN,
    SMINV_OPT_AMZ_DATE,
    SMINV_OPT_INSECURE,
    SMINV_OPT_CACERT,
    SMINV_OPT_TIMEOUT,
    SMINV_OPT_ALLOW_PLAIN_HTTP
};

static const struct option sminv_options[] = {
    {"endpoint", required_argument, NULL, SMINV_OPT_ENDPOINT},
    {"body", required_argument, NULL, SMINV_OPT_BODY},
    {"region", required_argument, NULL, SMINV_OPT_REGION},
    {"content-type", required_argument, NULL, SMINV_OPT_CONTENT_TYPE},
    {"accept", required_argument, NULL, SMINV_OPT_ACCEPT},
    {"header", required_argument, NULL, SMINV_OPT_HEADER},
    {"target-variant", required_argument, NULL, SMINV_OPT_TARGET_VARIANT},
    {"custom-attributes", required_argument, NULL, SMINV_OPT_CUSTOM_ATTRIBUTES},
    {"inference-component", required_argument, NULL, SMINV_OPT_INFERENCE_COMPONENT},
    {"url", required_argument, NULL, SMINV_OPT_URL},
    {"service", required_argument, NULL, SMINV_OPT_SERVICE},
    {"profile", required_argument, NULL, SMINV_OPT_PROFILE},
    {"dry-run", no_argument, NULL, SMINV_OPT_DRY_RUN},
    {"amz-date", required_argument, NULL, SMINV_OPT_AMZ_DATE},
    {"insecure", no_argument, NULL, SMINV_OPT_INSECURE},
    {"cacert", required_argument, NULL, SMINV_OPT_CACERT},
    {"timeout", required_argument, NULL, SMINV_OPT_TIMEOUT},
    {"allow-plain-http", no_argument, NULL, SMINV_OPT_ALLOW_PLAIN_HTTP},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Stores one option; returns 0, or the usage exit code after printing why. */
static int sminv_set(struct sminv_args *a, int opt, const char *v) {
    const char **slots[] = {
        [SMINV_OPT_ENDPOINT - SMINV_OPT_FIRST] = &a->endpoint,
        [SMINV_OPT_BODY - SMINV_OPT_FIRST] = &a->body_path,
        [SMINV_OPT_REGION - SMINV_OPT_FIRST] = &a->region,
        [SMINV_OPT_CONTENT_TYPE - SMINV_OPT_FIRST] = &a->content_type,
        [SMINV_OPT_ACCEPT - SMINV_OPT_FIRST] = &a->accept,
        [SMINV_OPT_TARGET_VARIANT - SMINV_OPT_FIRST] = &a->target_variant,
        [SMINV_OPT_CUSTOM_ATTRIBUTES - SMINV_OPT_FIRST] = &a->custom_attributes,
        [SMINV_OPT_INFERENCE_COMPONENT - SMINV_OPT_FIRST] = &a->inference_component,
        [SMINV_OPT_URL - SMINV_OPT_FIRST] = &a->url,
        [SMINV_OPT_SERVICE - SMINV_OPT_FIRST] = &a->service,
        [SMINV_OPT_PROFILE - SMINV_OPT_FIRST] = &a->profile,
        [SMINV_OPT_AMZ_DATE - SMINV_OPT_FIRST] = &a->amz_date,
        [SMINV_OPT_CACERT - SMINV_OPT_FIRST] = &a->cacert,
    };
    switch (opt) {
    case 'v':
        a->verbose = true;
        return 0;
    case SMINV_OPT_DRY_RUN:
        a->dry_run = true;
        return 0;
    case SMINV_OPT_INSECURE:
        a->insecure = true;
        return 0;
    case SMINV_OPT_ALLOW_PLAIN_HTTP:
        a->allow_plain_http = true;
        return 0;
    case SMINV_OPT_TIMEOUT:
        return sminv_parse_timeout(v, &a->timeout_ms)
                   ? sminv_error("--timeout '%s' is not a number of seconds from 0.001 to 86400", v)
                   : 0;
    case SMINV_OPT_HEADER:
        if (a->n_extra == SMINV_MAX_EXTRA)
            return sminv_error("more than %d --header", SMINV_MAX_EXTRA);
        a->extra[a->n_extra++] = v;
        return 0;
    default:
        *slots[opt - SMINV_OPT_FIRST] = v;
        return 0;
    }
}

/* Checks the values that must make sense together; returns 0 or the usage exit code. */
static int sminv_validate(const struct sminv_args *a) {
    const char *values[] = {a->content_type, a->accept, a->target_variant, a->custom_attributes,
                            a->inference_component};
    if (!a->endpoint) return sminv_error("missing --endpoint NAME");
    if (!smname_endpoint_ok(a->endpoint, strlen(a->endpoint)))
        return sminv_error("--endpoint '%s' is not a SageMaker endpoint name "
                           "(letters, digits and inner '-', at most 63)",
                           a->endpoint);
    if (!a->body_path) return sminv_error("missing --body FILE (or --body - for standard input)");
    if (a->amz_date && sminv_check_date(a->amz_date))
        return sminv_error("--amz-date '%s' is not a UTC time YYYYMMDDTHHMMSSZ", a->amz_date);
    for (size_t i = 0; i < sizeof values / sizeof *values; i++)
        if (values[i] && !sminv_value_ok(values[i]))
            return sminv_error("a header value has control characters");
    for (size_t i = 0; i < a->n_extra; i++) {
        const char *why = sminv_extra_problem(a->extra[i]);
        if (why) return sminv_error("--header '%s' %s", a->extra[i], why);
    }
    return 0;
}

static int sminv_parse_args(int argc, char **argv, struct sminv_args *a) {
    *a = (struct sminv_args){.content_type = "application/json",
                             .accept = "application/json",
                             .service = "sagemaker",
                             .timeout_ms = 70000};
    opterr = 0;
    for (;;) {
        int opt = getopt_long(argc, argv, ":vh", sminv_options, NULL);
        if (opt == -1) break;
        if (opt == 'h') {
            fputs(sminv_help, stdout);
            return -1;
        }
        if (opt == '?')
            return sminv_error("unknown option '%s' (see sm-invoke --help)", argv[optind - 1]);
        if (opt == ':')
            return sminv_error("%s needs a value (see sm-invoke --help)", argv[optind - 1]);
        int rc = sminv_set(a, opt, optarg);
        if (rc) return rc;
    }
    if (optind < argc) return sminv_error("unexpected argument '%s'", argv[optind]);
    return sminv_validate(a);
}

static int sminv_read_body(struct sminv *inv) {
    const char *path = inv->a.body_path;
    bool in = strcmp(path, "-") == 0;
    int rc = in ? readall_fd(STDIN_FILENO, &inv->body) : readall_path(path, &inv->body);
    if (rc == BUF_ERR_CAP)
        return sminv_error("--body %s: larger than %zu MiB", in ? "(standard input)" : path,
                           SMINV_MAX_BODY >> 20);
    if (rc)
        return sminv_error("--body %s: %s", in ? "(standard input)" : path,
                           rc == BUF_ERR_NOMEM ? "out of memory" : strerror(rc));
    return 0;
}

static int sminv_region_and_creds(struct sminv *inv) {
    struct creds_options o = {.profile = inv->a.profile};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    int rc = 0;
    if (inv->a.region ? buf_adds(&inv->region, inv->a.region) != 0
                      : creds_region(&o, &inv->region, &err) != 0)
        rc = sminv_error("%s", err.len ? buf_str(&err) : "out of memory");
    else if (!creds_name_ok(buf_str(&inv->region)))
        rc = sminv_error("--region '%s' is not a region name such as us-east-1",
                         buf_str(&inv->region));
    else if (!creds_name_ok(inv->a.service))
        rc = sminv_error("--service '%s' is not a service name such as sagemaker", inv->a.service);
    else if (creds_resolve(&o, time(NULL), &inv->creds, &err))
        rc = sminv_error("%s", buf_str(&err));
    if (!rc && inv->a.verbose)
        sminv_say(stderr, "sm-invoke: credentials %s from %s; region %s\n",
                  inv->creds.access_key_id, inv->creds.source, buf_str(&inv->region));
    buf_free(&err);
    return rc;
}

/* Makes the request: its URL, Host and target (aws/rtinvoke.h). */
static int sminv_make(struct sminv *inv) {
    const struct sminv_args *a = &inv->a;
    struct rtinvoke_req q = {.region = buf_str(&inv->region),
                             .base_url = a->url,
                             .endpoint = a->endpoint,
                             .service = a->service,
                             .content_type = a->content_type,
                             .accept = a->accept,
                             .custom_attributes = a->custom_attributes,
                             .target_variant = a->target_variant,
                             .inference_component = a->inference_component,
                             .extra = a->extra,
                             .n_extra = a->n_extra,
                             .body = buf_str(&inv->body),
                             .body_len = inv->body.len,
                             .allow_plain_http = a->allow_plain_http};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    inv->made = true;
    int rc = rtinvoke_init(&inv->rt, &q, &err)
                 ? sminv_error("%s%s", a->url ? "--url: " : "", buf_str(&err))
                 : 0;
    buf_free(&err);
    return rc;
}

/* Signs the request at time when (or at --amz-date). */
static int sminv_sign(struct sminv *inv, time_t when) {
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    int rc = rtinvoke_sign(&inv->rt, &inv->creds, when, inv->a.amz_date, &err)
                 ? sminv_error("%s", buf_str(&err))
                 : 0;
    buf_free(&err);
    return rc;
}

/* Prints the request line and headers as sent; Authorization only when show_auth. */
static void sminv_print_request(FILE *f, const struct sminv *inv, const char *prefix,
                                bool show_auth) {
    sminv_say(f, "%sPOST %s HTTP/1.1\n", prefix, buf_str(&inv->rt.target));
    for (size_t i = 0; i < inv->rt.n_headers; i++) {
        const struct sigv4_header *h = &inv->rt.headers[i];
        const char *v = h->value + strspn(h->value, " \t");
        sminv_say(f, "%s%.*s: %s\n", prefix, (int)h->name_len, h->name, v);
    }
    sminv_say(f, "%sContent-Length: %zu\n", prefix, inv->body.len);
    /* Our own signature, shown as asked (sminv_say would scrub it as an echo). */
    fprintf(f, "%sAuthorization: %s\n", prefix,
            show_auth ? buf_str(&inv->rt.signed_req.authorization) : SMINV_REDACTED);
}

static void sminv_print_dry_run(const struct sminv *inv) {
    sminv_say(stdout,
              "---- canonical request\n%s\n---- string to sign\n%s\n---- signed request headers\n",
              buf_str(&inv->rt.signed_req.canonical_request),
              buf_str(&inv->rt.signed_req.string_to_sign));
    sminv_print_request(stdout, inv, "", true);
}

/* --verbose: each reply header line, its control characters as '?'. */
static void sminv_on_line(void *ud, const char *line, size_t len) {
    struct buf shown;
    (void)ud;
    buf_init(&shown, BUF_NO_CAP);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        if (buf_add(&shown, c < 0x20 || c == 0x7f ? "?" : &line[i], 1)) break;
    }
    sminv_say(stderr, "< %s\n", buf_str(&shown));
    buf_free(&shown);
}

/* Sends the signed request; returns 0 with a reply in r, or SMINV_EXIT_HTTP
 * after printing why none came. */
static int sminv_send(const struct sminv *inv, struct rtinvoke_reply *r) {
    struct rtinvoke_net net = {.timeout_ms = inv->a.timeout_ms,
                               .ca_bundle = inv->a.cacert,
                               .insecure = inv->a.insecure,
                               .user_agent = "sm-invoke/" SM_VERSION};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    r->on_line = inv->a.verbose ? sminv_on_line : NULL;
    if (inv->a.verbose) sminv_print_request(stderr, inv, "> ", false);
    int rc = rtinvoke_send(&inv->rt, &net, r, &err);
    if (rc == RTINVOKE_ERR_TIMEOUT)
        sminv_say(stderr, "sm-invoke: %s (--timeout)\n", buf_str(&err));
    else if (rc == RTINVOKE_ERR_TOO_LARGE)
        sminv_say(stderr, "sm-invoke: %s: reply larger than %zu MiB\n", buf_str(&inv->rt.url),
                  SMINV_MAX_REPLY >> 20);
    else if (rc)
        sminv_say(stderr, "sm-invoke: %s\n", buf_str(&err));
    buf_free(&err);
    return rc ? SMINV_EXIT_HTTP : 0;
}

/* Prints the reply: the body and "STATUS REASON SECONDS s" for a 2xx, else
 * "STATUS ErrorCode: message". Returns the exit code. */
static int sminv_report(const struct sminv *inv, const struct rtinvoke_reply *r) {
    struct buf why;
    buf_init(&why, BUF_NO_CAP);
    int rc = 0;
    if (rtinvoke_failure(r, &why) == RTINVOKE_OK) {
        if (r->body.len) fwrite(r->body.data, 1, r->body.len, stdout);
        fflush(stdout);
        sminv_say(stderr, "%ld%s%s %.3f s\n", r->status, r->reason.len ? " " : "",
                  buf_str(&r->reason), r->seconds);
    } else {
        if (inv->a.verbose && r->body.len) sminv_say(stderr, "%s\n", buf_str(&r->body));
        sminv_say(stderr, "%s\n", buf_str(&why));
        rc = SMINV_EXIT_HTTP;
    }
    buf_free(&why);
    return rc;
}

/* When the reply says the signing time was off, signs again with the server's
 * clock (from its Date header) and sends once more. */
static int sminv_skew_retry(struct sminv *inv, struct rtinvoke_reply *r) {
    struct awserr e;
    long long offset;
    time_t now = time(NULL);
    awserr_parse(r->error_type.len ? buf_str(&r->error_type) : NULL, buf_str(&r->body), r->body.len,
                 &e);
    if (inv->a.amz_date ||
        skew_offset((int)r->status, e.code, e.message, buf_str(&r->date), now, &offset))
        return 0;
    sminv_say(stderr,
              "sm-invoke: %ld %s: the server's clock is %+lld s from ours; signing again with "
              "its time\n",
              r->status, e.code[0] ? e.code : "signing-time error", offset);
    int rc = sminv_sign(inv, (time_t)(now + offset));
    return rc ? rc : sminv_send(inv, r);
}

static int sminv_run(struct sminv *inv) {
    int rc = sminv_read_body(inv);
    if (!rc) rc = sminv_region_and_creds(inv);
    if (!rc) rc = sminv_make(inv);
    if (!rc) rc = sminv_sign(inv, time(NULL));
    if (rc || inv->a.dry_run) {
        if (!rc) sminv_print_dry_run(inv);
        return rc;
    }
    struct rtinvoke_reply r;
    rtinvoke_reply_init(&r, SMINV_MAX_REPLY);
    rc = sminv_send(inv, &r);
    if (!rc && r.status == 403) rc = sminv_skew_retry(inv, &r);
    if (!rc) rc = sminv_report(inv, &r);
    rtinvoke_reply_free(&r);
    return rc;
}

int main(int argc, char **argv) {
    struct sminv inv = {0};
    int rc = sminv_parse_args(argc, argv, &inv.a);
    if (rc) return rc < 0 ? 0 : rc;
    if (curl_global_init(CURL_GLOBAL_DEFAULT)) return sminv_error("could not start libcurl");
    buf_init(&inv.region, BUF_NO_CAP);
    buf_init(&inv.body, SMINV_MAX_BODY);
    rc = sminv_run(&inv);
    if (inv.made) rtinvoke_free(&inv.rt);
    buf_free(&inv.region);
    buf_free(&inv.body);
    creds_clear(&inv.creds);
    curl_global_cleanup();
    return rc;
}
