/* sm-invoke: sends one SigV4-signed SageMaker Runtime InvokeEndpoint request
 * with libcurl, as `aws sagemaker-runtime invoke-endpoint` does, and prints the
 * reply. Every header curl sends that matters is signed exactly as sent. */
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
#include <openssl/crypto.h>

#include "awserr.h"
#include "creds.h"
#include "plainhttp.h"
#include "readall.h"
#include "sigv4.h"
#include "skew.h"
#include "scrub.h"
#include "smname.h"

#define INVOKE_MAX_EXTRA   32
#define INVOKE_MAX_HEADERS (INVOKE_MAX_EXTRA + 10)
#define INVOKE_MAX_BODY    ((size_t)64 << 20)
#define INVOKE_MAX_REPLY   ((size_t)256 << 20)
#define INVOKE_CONNECT_MS  10000L
#define INVOKE_EXIT_HTTP   1
#define INVOKE_EXIT_USAGE  2
#define INVOKE_REDACTED    SCRUB_REDACTED

static const char invoke_help[] =
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
    "                             https://runtime.sagemaker.REGION.amazonaws.com, e.g.\n"
    "                             http://127.0.0.1:8080 for the emulator\n"
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
    "\n"
    "Exit status: 0 a 2xx reply or a dry run; 1 an error reply or no reply (connection,\n"
    "time-out); 2 bad usage or input (flags, body file, credentials, region).\n";

struct invoke_args {
    const char *endpoint, *body_path, *region, *content_type, *accept, *target_variant;
    const char *custom_attributes, *inference_component, *url, *service, *profile, *amz_date;
    const char *cacert;
    const char *extra[INVOKE_MAX_EXTRA]; /* --header values, "Name: value" */
    size_t n_extra;
    bool dry_run, insecure, verbose, allow_plain_http;
    long timeout_ms;
};

/* Everything that goes on the wire, and the secrets to keep out of any output. */
struct invoke {
    struct invoke_args a;
    struct creds creds;
    struct buf region, url, host, target, body;
    struct sigv4_header headers[INVOKE_MAX_HEADERS]; /* as sent, Authorization not included */
    size_t n_headers;
    char amz_date[SIGV4_DATE_LEN + 1];
    struct sigv4_signer *signer;
    struct sigv4_result signed_req;
};

struct invoke_reply {
    long status;
    struct buf reason, error_type, date, body;
    double seconds;
    bool verbose;
};

/* Prints to f with the secrets scrubbed (scrub.h): nothing printed holds them. */
__attribute__((format(printf, 2, 3))) static void invoke_say(FILE *f, const char *fmt, ...) {
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
__attribute__((format(printf, 1, 2))) static int invoke_error(const char *fmt, ...) {
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
    return INVOKE_EXIT_USAGE;
}

static bool invoke_value_ok(const char *s) {
    for (; *s; s++)
        if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f) return false;
    return true;
}

static bool invoke_tchar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Checks one --header value; returns an error text or NULL. */
static const char *invoke_extra_problem(const char *h) {
    static const char *const managed[] = {
        "host",         "authorization", "x-amz-date", "x-amz-security-token", "content-length",
        "content-type", "accept",        "expect",     "transfer-encoding",    "connection"};
    const char *colon = strchr(h, ':');
    if (!colon || colon == h) return "is not 'Name: value'";
    for (const char *p = h; p < colon; p++)
        if (!invoke_tchar(*p)) return "has a header name with characters HTTP does not allow";
    if (!invoke_value_ok(colon + 1)) return "has control characters in its value";
    for (size_t i = 0; i < sizeof managed / sizeof *managed; i++)
        if (strlen(managed[i]) == (size_t)(colon - h) && strncasecmp(h, managed[i], colon - h) == 0)
            return "sets a header sm-invoke manages (use --content-type, --accept, --amz-date)";
    return NULL;
}

static int invoke_parse_timeout(const char *s, long *ms) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 86400) return -1;
    *ms = (long)(v * 1000 + 0.5);
    return *ms > 0 ? 0 : -1;
}

static int invoke_check_date(const char *s) {
    time_t t;
    char again[SIGV4_DATE_LEN + 1];
    if (sigv4_parse_date(s, &t) || sigv4_format_date(t, again)) return -1;
    return strcmp(again, s) == 0 ? 0 : -1;
}

enum {
    OPT_FIRST = 256, /* after every short option's character */
    OPT_ENDPOINT = OPT_FIRST,
    OPT_BODY,
    OPT_REGION,
    OPT_CONTENT_TYPE,
    OPT_ACCEPT,
    OPT_HEADER,
    OPT_TARGET_VARIANT,
    OPT_CUSTOM_ATTRIBUTES,
    OPT_INFERENCE_COMPONENT,
    OPT_URL,
    OPT_SERVICE,
    OPT_PROFILE,
    OPT_DRY_RUN,
    OPT_AMZ_DATE,
    OPT_INSECURE,
    OPT_CACERT,
    OPT_TIMEOUT,
    OPT_ALLOW_PLAIN_HTTP
};

static const struct option invoke_options[] = {
    {"endpoint", required_argument, NULL, OPT_ENDPOINT},
    {"body", required_argument, NULL, OPT_BODY},
    {"region", required_argument, NULL, OPT_REGION},
    {"content-type", required_argument, NULL, OPT_CONTENT_TYPE},
    {"accept", required_argument, NULL, OPT_ACCEPT},
    {"header", required_argument, NULL, OPT_HEADER},
    {"target-variant", required_argument, NULL, OPT_TARGET_VARIANT},
    {"custom-attributes", required_argument, NULL, OPT_CUSTOM_ATTRIBUTES},
    {"inference-component", required_argument, NULL, OPT_INFERENCE_COMPONENT},
    {"url", required_argument, NULL, OPT_URL},
    {"service", required_argument, NULL, OPT_SERVICE},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"amz-date", required_argument, NULL, OPT_AMZ_DATE},
    {"insecure", no_argument, NULL, OPT_INSECURE},
    {"cacert", required_argument, NULL, OPT_CACERT},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"allow-plain-http", no_argument, NULL, OPT_ALLOW_PLAIN_HTTP},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Stores one option; returns 0, or the usage exit code after printing why. */
static int invoke_set(struct invoke_args *a, int opt, const char *v) {
    const char **slots[] = {
        [OPT_ENDPOINT - OPT_FIRST] = &a->endpoint,
        [OPT_BODY - OPT_FIRST] = &a->body_path,
        [OPT_REGION - OPT_FIRST] = &a->region,
        [OPT_CONTENT_TYPE - OPT_FIRST] = &a->content_type,
        [OPT_ACCEPT - OPT_FIRST] = &a->accept,
        [OPT_TARGET_VARIANT - OPT_FIRST] = &a->target_variant,
        [OPT_CUSTOM_ATTRIBUTES - OPT_FIRST] = &a->custom_attributes,
        [OPT_INFERENCE_COMPONENT - OPT_FIRST] = &a->inference_component,
        [OPT_URL - OPT_FIRST] = &a->url,
        [OPT_SERVICE - OPT_FIRST] = &a->service,
        [OPT_PROFILE - OPT_FIRST] = &a->profile,
        [OPT_AMZ_DATE - OPT_FIRST] = &a->amz_date,
        [OPT_CACERT - OPT_FIRST] = &a->cacert,
    };
    switch (opt) {
    case 'v':
        a->verbose = true;
        return 0;
    case OPT_DRY_RUN:
        a->dry_run = true;
        return 0;
    case OPT_INSECURE:
        a->insecure = true;
        return 0;
    case OPT_ALLOW_PLAIN_HTTP:
        a->allow_plain_http = true;
        return 0;
    case OPT_TIMEOUT:
        return invoke_parse_timeout(v, &a->timeout_ms)
                   ? invoke_error("--timeout '%s' is not a number of seconds from 0.001 to 86400",
                                  v)
                   : 0;
    case OPT_HEADER:
        if (a->n_extra == INVOKE_MAX_EXTRA)
            return invoke_error("more than %d --header", INVOKE_MAX_EXTRA);
        a->extra[a->n_extra++] = v;
        return 0;
    default:
        *slots[opt - OPT_FIRST] = v;
        return 0;
    }
}

/* Checks the values that must make sense together; returns 0 or the usage exit code. */
static int invoke_validate(const struct invoke_args *a) {
    const char *values[] = {a->content_type, a->accept, a->target_variant, a->custom_attributes,
                            a->inference_component};
    if (!a->endpoint) return invoke_error("missing --endpoint NAME");
    if (!smname_endpoint_ok(a->endpoint, strlen(a->endpoint)))
        return invoke_error("--endpoint '%s' is not a SageMaker endpoint name "
                            "(letters, digits and inner '-', at most 63)",
                            a->endpoint);
    if (!a->body_path) return invoke_error("missing --body FILE (or --body - for standard input)");
    if (a->amz_date && invoke_check_date(a->amz_date))
        return invoke_error("--amz-date '%s' is not a UTC time YYYYMMDDTHHMMSSZ", a->amz_date);
    for (size_t i = 0; i < sizeof values / sizeof *values; i++)
        if (values[i] && !invoke_value_ok(values[i]))
            return invoke_error("a header value has control characters");
    for (size_t i = 0; i < a->n_extra; i++) {
        const char *why = invoke_extra_problem(a->extra[i]);
        if (why) return invoke_error("--header '%s' %s", a->extra[i], why);
    }
    return 0;
}

static int invoke_parse_args(int argc, char **argv, struct invoke_args *a) {
    *a = (struct invoke_args){.content_type = "application/json",
                              .accept = "application/json",
                              .service = "sagemaker",
                              .timeout_ms = 70000};
    opterr = 0;
    for (;;) {
        int opt = getopt_long(argc, argv, ":vh", invoke_options, NULL);
        if (opt == -1) break;
        if (opt == 'h') {
            fputs(invoke_help, stdout);
            return -1;
        }
        if (opt == '?')
            return invoke_error("unknown option '%s' (see sm-invoke --help)", argv[optind - 1]);
        if (opt == ':')
            return invoke_error("%s needs a value (see sm-invoke --help)", argv[optind - 1]);
        int rc = invoke_set(a, opt, optarg);
        if (rc) return rc;
    }
    if (optind < argc) return invoke_error("unexpected argument '%s'", argv[optind]);
    return invoke_validate(a);
}

static int invoke_read_body(struct invoke *inv) {
    const char *path = inv->a.body_path;
    bool in = strcmp(path, "-") == 0;
    int rc = in ? readall_fd(STDIN_FILENO, &inv->body) : readall_path(path, &inv->body);
    if (rc == BUF_ERR_CAP)
        return invoke_error("--body %s: larger than %zu MiB", in ? "(standard input)" : path,
                            INVOKE_MAX_BODY >> 20);
    if (rc)
        return invoke_error("--body %s: %s", in ? "(standard input)" : path,
                            rc == BUF_ERR_NOMEM ? "out of memory" : strerror(rc));
    return 0;
}

static int invoke_region_and_creds(struct invoke *inv) {
    struct creds_options o = {.profile = inv->a.profile};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    int rc = 0;
    if (inv->a.region ? buf_adds(&inv->region, inv->a.region) != 0
                      : creds_region(&o, &inv->region, &err) != 0)
        rc = invoke_error("%s", err.len ? buf_str(&err) : "out of memory");
    else if (!creds_name_ok(buf_str(&inv->region)))
        rc = invoke_error("--region '%s' is not a region name such as us-east-1",
                          buf_str(&inv->region));
    else if (!creds_name_ok(inv->a.service))
        rc = invoke_error("--service '%s' is not a service name such as sagemaker", inv->a.service);
    else if (creds_resolve(&o, time(NULL), &inv->creds, &err))
        rc = invoke_error("%s", buf_str(&err));
    if (!rc && inv->a.verbose)
        invoke_say(stderr, "sm-invoke: credentials %s from %s; region %s\n",
                   inv->creds.access_key_id, inv->creds.source, buf_str(&inv->region));
    buf_free(&err);
    return rc;
}

/* Splits the base URL into the Host header (port only when not the scheme's
 * default), the request target and the full URL. */
static int invoke_build_url(struct invoke *inv, const char *base) {
    char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL, *query = NULL, *user = NULL;
    const char *why = NULL;
    CURLU *u = curl_url();
    int rc = 0;
    if (!u) return invoke_error("out of memory");
    if (curl_url_set(u, CURLUPART_URL, base, 0) || curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) || curl_url_get(u, CURLUPART_PATH, &path, 0))
        why = " is not a URL such as http://127.0.0.1:8080";
    else if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)
        why = ": only http:// and https:// are supported";
    else if (curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK ||
             curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK || strchr(base, '#'))
        why = ": a query, user or fragment is not allowed";
    if (why) {
        rc = invoke_error("--url '%s'%s", base, why);
        goto done;
    }
    curl_url_get(u, CURLUPART_PORT, &port, 0);
    bool default_port = !port || strcmp(port, strcmp(scheme, "https") == 0 ? "443" : "80") == 0;
    size_t path_len = strlen(path);
    while (path_len && path[path_len - 1] == '/') path_len--;
    if (buf_addf(&inv->host, "%s%s%s", host, default_port ? "" : ":", default_port ? "" : port) ||
        buf_addf(&inv->target, "%.*s/endpoints/%s/invocations", (int)path_len, path,
                 inv->a.endpoint) ||
        buf_addf(&inv->url, "%s://%s%s", scheme, buf_str(&inv->host), buf_str(&inv->target)))
        rc = invoke_error("out of memory");
done:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_free(path);
    curl_free(query);
    curl_free(user);
    curl_url_cleanup(u);
    return rc;
}

static void invoke_header(struct invoke *inv, const char *name, size_t name_len,
                          const char *value) {
    inv->headers[inv->n_headers++] =
        (struct sigv4_header){name, name_len, value, value ? strlen(value) : 0};
}

/* The headers as curl will send them, in order; every one is signed. */
static void invoke_build_headers(struct invoke *inv) {
    const struct invoke_args *a = &inv->a;
    invoke_header(inv, "Host", 4, buf_str(&inv->host));
    invoke_header(inv, "Content-Type", 12, a->content_type);
    invoke_header(inv, "Accept", 6, a->accept);
    if (a->custom_attributes)
        invoke_header(inv, "X-Amzn-SageMaker-Custom-Attributes", 34, a->custom_attributes);
    if (a->target_variant)
        invoke_header(inv, "X-Amzn-SageMaker-Target-Variant", 31, a->target_variant);
    if (a->inference_component)
        invoke_header(inv, "X-Amzn-SageMaker-Inference-Component", 36, a->inference_component);
    for (size_t i = 0; i < a->n_extra; i++) {
        const char *colon = strchr(a->extra[i], ':');
        invoke_header(inv, a->extra[i], (size_t)(colon - a->extra[i]), colon + 1);
    }
    invoke_header(inv, "X-Amz-Date", 10, inv->amz_date);
    inv->headers[inv->n_headers - 1].value_len = SIGV4_DATE_LEN; /* filled in by invoke_sign */
    if (inv->creds.session_token)
        invoke_header(inv, "X-Amz-Security-Token", 20, inv->creds.session_token);
}

/* Signs the request at time when (or at --amz-date). */
static int invoke_sign(struct invoke *inv, time_t when) {
    if (inv->a.amz_date)
        memcpy(inv->amz_date, inv->a.amz_date, SIGV4_DATE_LEN + 1);
    else if (sigv4_format_date(when, inv->amz_date))
        return invoke_error("the clock is out of range");
    struct sigv4_credentials c = {inv->creds.access_key_id, inv->creds.secret_access_key,
                                  inv->creds.session_token};
    struct sigv4_request req = {
        "POST",         buf_str(&inv->target), inv->target.len, inv->headers,
        inv->n_headers, buf_str(&inv->body),   inv->body.len,   NULL};
    struct sigv4_params p = {buf_str(&inv->region), inv->a.service, inv->amz_date, false, false};
    int rc = sigv4_sign(inv->signer, &req, &c, &p, &inv->signed_req);
    if (rc)
        return invoke_error("signing failed (%s)",
                            rc == SIGV4_ERR_INPUT ? "bad input" : "internal error");
    return 0;
}

/* Prints the request line and headers as sent; Authorization only when show_auth. */
static void invoke_print_request(FILE *f, const struct invoke *inv, const char *prefix,
                                 bool show_auth) {
    invoke_say(f, "%sPOST %s HTTP/1.1\n", prefix, buf_str(&inv->target));
    for (size_t i = 0; i < inv->n_headers; i++) {
        const struct sigv4_header *h = &inv->headers[i];
        const char *v = h->value + strspn(h->value, " \t");
        invoke_say(f, "%s%.*s: %s\n", prefix, (int)h->name_len, h->name, v);
    }
    invoke_say(f, "%sContent-Length: %zu\n", prefix, inv->body.len);
    /* Our own signature, shown as asked (invoke_say would scrub it as an echo). */
    fprintf(f, "%sAuthorization: %s\n", prefix,
            show_auth ? buf_str(&inv->signed_req.authorization) : INVOKE_REDACTED);
}

static void invoke_print_dry_run(const struct invoke *inv) {
    invoke_say(stdout,
               "---- canonical request\n%s\n---- string to sign\n%s\n---- signed request headers\n",
               buf_str(&inv->signed_req.canonical_request),
               buf_str(&inv->signed_req.string_to_sign));
    invoke_print_request(stdout, inv, "", true);
}

static void invoke_reply_init(struct invoke_reply *r, const struct invoke *inv) {
    *r = (struct invoke_reply){.verbose = inv->a.verbose};
    buf_init(&r->reason, 1024);
    buf_init(&r->error_type, 1024);
    buf_init(&r->date, 1024);
    buf_init(&r->body, INVOKE_MAX_REPLY);
}

static void invoke_reply_free(struct invoke_reply *r) {
    buf_free(&r->reason);
    buf_free(&r->error_type);
    buf_free(&r->date);
    buf_free(&r->body);
}

static size_t invoke_on_body(char *p, size_t size, size_t n, void *ud) {
    struct invoke_reply *r = ud;
    return buf_add(&r->body, p, size * n) ? 0 : size * n;
}

/* Stores value (trimmed) in b when the header line's name is name. */
static void invoke_capture(struct buf *b, const char *line, size_t len, const char *name) {
    size_t n = strlen(name);
    if (len <= n || line[n] != ':' || strncasecmp(line, name, n) != 0) return;
    const char *v = line + n + 1, *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t')) end--;
    buf_reset(b);
    if (buf_add(b, v, (size_t)(end - v))) buf_reset(b);
}

static size_t invoke_on_header(char *p, size_t size, size_t n, void *ud) {
    struct invoke_reply *r = ud;
    size_t len = size * n;
    while (len && (p[len - 1] == '\n' || p[len - 1] == '\r')) len--;
    if (r->verbose && len) invoke_say(stderr, "< %.*s\n", (int)len, p);
    if (len > 5 && strncmp(p, "HTTP/", 5) == 0) { /* a new reply: forget the last one's */
        const char *sp = memchr(p, ' ', len);
        const char *reason = sp ? memchr(sp + 1, ' ', len - (size_t)(sp + 1 - p)) : NULL;
        buf_reset(&r->reason);
        buf_reset(&r->error_type);
        buf_reset(&r->date);
        if (reason && buf_add(&r->reason, reason + 1, len - (size_t)(reason + 1 - p)))
            buf_reset(&r->reason);
    }
    invoke_capture(&r->error_type, p, len, "x-amzn-ErrorType");
    invoke_capture(&r->date, p, len, "Date");
    return size * n;
}

static void invoke_slist_free(struct curl_slist *list) {
    for (struct curl_slist *i = list; i; i = i->next) OPENSSL_cleanse(i->data, strlen(i->data));
    curl_slist_free_all(list);
}

static int invoke_append(struct curl_slist **list, const struct buf *line) {
    struct curl_slist *next = curl_slist_append(*list, buf_str(line));
    if (!next) return -1;
    *list = next;
    return 0;
}

/* The curl header lines: each header as sent, an empty value as "Name;" (curl
 * drops "Name:"), Authorization, and "Expect:" to stop 100-continue. The
 * caller frees *list with invoke_slist_free, also on error. */
static int invoke_header_list(const struct invoke *inv, struct curl_slist **list) {
    struct buf line;
    int rc = 0;
    buf_init(&line, BUF_NO_CAP);
    for (size_t i = 0; !rc && i < inv->n_headers; i++) {
        const struct sigv4_header *h = &inv->headers[i];
        const char *v = h->value + strspn(h->value, " \t");
        buf_reset(&line);
        rc = (*v ? buf_addf(&line, "%.*s: %s", (int)h->name_len, h->name, v)
                 : buf_addf(&line, "%.*s;", (int)h->name_len, h->name)) ||
             invoke_append(list, &line);
    }
    buf_reset(&line);
    if (!rc)
        rc = buf_addf(&line, "Authorization: %s", buf_str(&inv->signed_req.authorization)) ||
             invoke_append(list, &line);
    buf_reset(&line);
    if (!rc) rc = buf_adds(&line, "Expect:") || invoke_append(list, &line);
    buf_free_secret(&line);
    return rc;
}

static void invoke_setopts(CURL *h, const struct invoke *inv, struct curl_slist *list,
                           struct invoke_reply *r, char *errbuf) {
    const struct invoke_args *a = &inv->a;
    curl_easy_setopt(h, CURLOPT_URL, buf_str(&inv->url));
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, buf_str(&inv->body));
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)inv->body.len);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "sm-invoke/" SM_VERSION);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, a->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     a->timeout_ms < INVOKE_CONNECT_MS ? a->timeout_ms : INVOKE_CONNECT_MS);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, invoke_on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, invoke_on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    if (a->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (a->cacert) curl_easy_setopt(h, CURLOPT_CAINFO, a->cacert);
}

/* Sends the signed request; returns 0 with a reply in r, or INVOKE_EXIT_HTTP
 * after printing why none came. */
static int invoke_send(const struct invoke *inv, struct invoke_reply *r) {
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *list = NULL;
    CURL *h = curl_easy_init();
    int rc = INVOKE_EXIT_HTTP;
    if (!h || invoke_header_list(inv, &list)) {
        invoke_say(stderr, "sm-invoke: out of memory\n");
        goto done;
    }
    invoke_setopts(h, inv, list, r, errbuf);
    if (inv->a.verbose) invoke_print_request(stderr, inv, "> ", false);
    CURLcode res = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_TOTAL_TIME, &r->seconds);
    if (res == CURLE_OPERATION_TIMEDOUT)
        invoke_say(stderr, "sm-invoke: %s: no complete reply within %.3f s (--timeout)\n",
                   buf_str(&inv->url), inv->a.timeout_ms / 1000.0);
    else if (res == CURLE_WRITE_ERROR)
        invoke_say(stderr, "sm-invoke: %s: reply larger than %zu MiB\n", buf_str(&inv->url),
                   INVOKE_MAX_REPLY >> 20);
    else if (res != CURLE_OK)
        invoke_say(stderr, "sm-invoke: %s: %s\n", buf_str(&inv->url),
                   *errbuf ? errbuf : curl_easy_strerror(res));
    else if (curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status) == CURLE_OK)
        rc = 0;
done:
    invoke_slist_free(list);
    curl_easy_cleanup(h);
    return rc;
}

/* Prints the reply: the body and "STATUS REASON SECONDS s" for a 2xx, else
 * "STATUS ErrorCode: message". Returns the exit code. */
static int invoke_report(const struct invoke *inv, const struct invoke_reply *r) {
    if (r->status >= 200 && r->status < 300) {
        if (r->body.len) fwrite(r->body.data, 1, r->body.len, stdout);
        fflush(stdout);
        invoke_say(stderr, "%ld%s%s %.3f s\n", r->status, r->reason.len ? " " : "",
                   buf_str(&r->reason), r->seconds);
        return 0;
    }
    struct awserr e;
    awserr_parse(r->error_type.len ? buf_str(&r->error_type) : NULL, buf_str(&r->body), r->body.len,
                 &e);
    const char *code = e.code[0] ? e.code : r->reason.len ? buf_str(&r->reason) : "HTTPError";
    if (inv->a.verbose && r->body.len) invoke_say(stderr, "%s\n", buf_str(&r->body));
    invoke_say(stderr, "%ld %s%s%s\n", r->status, code, e.message[0] ? ": " : "", e.message);
    return INVOKE_EXIT_HTTP;
}

/* When the reply says the signing time was off, signs again with the server's
 * clock (from its Date header) and sends once more. */
static int invoke_skew_retry(struct invoke *inv, struct invoke_reply *r) {
    struct awserr e;
    long long offset;
    time_t now = time(NULL);
    awserr_parse(r->error_type.len ? buf_str(&r->error_type) : NULL, buf_str(&r->body), r->body.len,
                 &e);
    if (inv->a.amz_date ||
        skew_offset((int)r->status, e.code, e.message, buf_str(&r->date), now, &offset))
        return 0;
    invoke_say(stderr,
               "sm-invoke: %ld %s: the server's clock is %+lld s from ours; signing again with "
               "its time\n",
               r->status, e.code[0] ? e.code : "signing-time error", offset);
    int rc = invoke_sign(inv, (time_t)(now + offset));
    if (rc) return rc;
    invoke_reply_free(r);
    invoke_reply_init(r, inv);
    return invoke_send(inv, r);
}

static int invoke_run(struct invoke *inv) {
    struct buf base;
    buf_init(&base, BUF_NO_CAP);
    int rc = invoke_read_body(inv);
    if (!rc) rc = invoke_region_and_creds(inv);
    if (!rc && !inv->a.url &&
        buf_addf(&base, "https://runtime.sagemaker.%s.amazonaws.com", buf_str(&inv->region)))
        rc = invoke_error("out of memory");
    if (!rc) rc = invoke_build_url(inv, inv->a.url ? inv->a.url : buf_str(&base));
    buf_free(&base);
    if (!rc && plainhttp_check(buf_str(&inv->url), inv->a.allow_plain_http, &base))
        rc = invoke_error("--url: %s", buf_str(&base));
    buf_free(&base);
    if (!rc) invoke_build_headers(inv);
    if (!rc) rc = invoke_sign(inv, time(NULL));
    if (rc || inv->a.dry_run) {
        if (!rc) invoke_print_dry_run(inv);
        return rc;
    }
    struct invoke_reply r;
    invoke_reply_init(&r, inv);
    rc = invoke_send(inv, &r);
    if (!rc && r.status == 403) rc = invoke_skew_retry(inv, &r);
    if (!rc) rc = invoke_report(inv, &r);
    invoke_reply_free(&r);
    return rc;
}

int main(int argc, char **argv) {
    struct invoke inv = {0};
    int rc = invoke_parse_args(argc, argv, &inv.a);
    if (rc) return rc < 0 ? 0 : rc;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) || !(inv.signer = sigv4_signer_new()))
        return invoke_error("could not start libcurl or the signer");
    struct buf *bufs[] = {&inv.region, &inv.url, &inv.host, &inv.target, &inv.body};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) buf_init(bufs[i], BUF_NO_CAP);
    inv.body.max = INVOKE_MAX_BODY;
    sigv4_result_init(&inv.signed_req);
    rc = invoke_run(&inv);
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) buf_free(bufs[i]);
    sigv4_result_free(&inv.signed_req);
    sigv4_signer_free(inv.signer);
    creds_clear(&inv.creds);
    curl_global_cleanup();
    return rc;
}
