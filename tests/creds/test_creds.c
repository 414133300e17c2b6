/* The credential chain: each source on its own, their order, the errors, the
 * region lookup, and the thread-safe refreshing cache. Files live in a
 * temporary directory; the container endpoint and instance metadata are a
 * fake server on 127.0.0.1 (fake_metadata.py); credential_process commands
 * are shell snippets.
 *
 * usage: test_creds PYTHON FAKE_METADATA_PY */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "creds.h"
#include "metadata.h"
#include "readall.h"

#define NOW     1796034526 /* 2026-11-30T10:28:46Z */
#define EXP2099 4070908800 /* 2099-01-01T00:00:00Z */
#define EXP2100 4102444800 /* 2100-01-01T00:00:00Z */

extern char **environ;

static char dir[] = "/tmp/test_creds.XXXXXX";
static char url[64]; /* http://127.0.0.1:PORT of the fake server */

/* "{URL}" and "{DIR}" in text replaced; the result is valid until the next call. */
static const char *subst(const char *text) {
    static struct buf out = {.max = BUF_NO_CAP};
    buf_reset(&out);
    while (*text) {
        const char *rep = strncmp(text, "{URL}", 5) == 0   ? url
                          : strncmp(text, "{DIR}", 5) == 0 ? dir
                                                           : NULL;
        if (rep ? buf_adds(&out, rep) : buf_addc(&out, *text)) abort();
        text += rep ? 5 : 1;
    }
    return buf_str(&out);
}

static void write_file(const char *name, const char *text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!text) {
        unlink(path);
        return;
    }
    FILE *f = fopen(path, "w");
    if (!f || fputs(subst(text), f) < 0 || fclose(f)) abort();
}

/* Starts the fake server; it stops when *in_fd is closed. */
static pid_t server_start(const char *python, const char *script, int *in_fd) {
    int in[2], out[2];
    pid_t pid;
    char *argv[] = {(char *)python, (char *)script, NULL};
    posix_spawn_file_actions_t fa;
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || posix_spawn_file_actions_init(&fa) ||
        posix_spawn_file_actions_adddup2(&fa, in[0], 0) ||
        posix_spawn_file_actions_adddup2(&fa, out[1], 1) ||
        posix_spawn(&pid, python, &fa, NULL, argv, environ))
        abort();
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    char line[32] = "";
    size_t n = 0;
    while (n < sizeof line - 1 && !strchr(line, '\n')) { /* the port, once it listens */
        ssize_t got = read(out[0], line + n, sizeof line - 1 - n);
        if (got <= 0) break;
        n += (size_t)got;
    }
    close(out[0]);
    long port = strtol(line, NULL, 10);
    if (port <= 0 || port > 65535) abort();
    snprintf(url, sizeof url, "http://127.0.0.1:%ld", port);
    *in_fd = in[1];
    return pid;
}

static const char *const aws_vars[] = {"AWS_ACCESS_KEY_ID",
                                       "AWS_SECRET_ACCESS_KEY",
                                       "AWS_SESSION_TOKEN",
                                       "AWS_PROFILE",
                                       "AWS_REGION",
                                       "AWS_DEFAULT_REGION",
                                       "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                                       "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                                       "AWS_CONTAINER_AUTHORIZATION_TOKEN",
                                       "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
                                       "AWS_EC2_METADATA_SERVICE_ENDPOINT",
                                       "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE",
                                       "AWS_EC2_METADATA_V1_DISABLED"};

/* A clean environment: only files in dir, instance metadata off; then each
 * "NAME=value" of env set ("-NAME" unsets). */
static void env_set(const char *const *env, size_t n) {
    for (size_t i = 0; i < sizeof aws_vars / sizeof *aws_vars; i++) unsetenv(aws_vars[i]);
    setenv("HOME", dir, 1);
    setenv("AWS_SHARED_CREDENTIALS_FILE", subst("{DIR}/credentials"), 1);
    setenv("AWS_CONFIG_FILE", subst("{DIR}/config"), 1);
    setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
    for (size_t i = 0; i < n && env[i]; i++) {
        const char *e = subst(env[i]);
        const char *eq = strchr(e, '=');
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq ? eq - e : (long)strlen(e)), e);
        if (name[0] == '-')
            unsetenv(name + 1);
        else
            setenv(name, eq + 1, 1);
    }
}

#define KEYS      "AWS_ACCESS_KEY_ID=AKIDENV", "AWS_SECRET_ACCESS_KEY=envsecret"
#define CONTAINER "AWS_CONTAINER_CREDENTIALS_FULL_URI={URL}/container/ok"
#define IMDS      "AWS_EC2_METADATA_DISABLED=", "AWS_EC2_METADATA_SERVICE_ENDPOINT={URL}/v2"
#define CRED_FILE "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = filesecret\n"
#define PROC_JSON "\"AccessKeyId\":\"AKIDPROC\",\"SecretAccessKey\":\"procsecret\""
/* The command prints the JSON from the config file's [x] section, so that it is
 * not in the command itself (errors name the command). */
#define PROC(json)                                                                                 \
    "[default]\ncredential_process = sed -n 's/^json = //p' {DIR}/config\n[x]\njson = " json "\n"
#define PROC_OK                                                                                    \
    PROC("{\"Version\":1," PROC_JSON                                                               \
         ",\"SessionToken\":\"proctoken\",\"Expiration\":\"2099-01-01T00:00:00Z\"}")
#define CMD(cmd) "[default]\ncredential_process = " cmd "\n"
#define NO_CONTAINER                                                                               \
    "container endpoint (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and _FULL_URI not set)"

struct chain_case {
    const char *name;
    const char *env[8];               /* "NAME=value" ("-NAME": unset); {URL} and {DIR} replaced */
    const char *credentials, *config; /* file texts; NULL: no file */
    const char *profile;              /* creds_options.profile */
    int process_timeout_ms;
    int rc;
    const char *akid, *token; /* expected when rc is 0 */
    time_t expiration;
    const char *text; /* a part of the source (rc 0) or of the error line */
};

/* clang-format off */
static const struct chain_case chain[] = {
    /* the order: environment, shared files, credential_process, container, instance metadata */
    {"order: environment first", {KEYS, CONTAINER, IMDS}, CRED_FILE, PROC_OK, NULL, 0, 0, "AKIDENV",
     NULL, 0, "environment"},
    {"order: then the credentials file", {CONTAINER, IMDS}, CRED_FILE, PROC_OK, NULL, 0, 0,
     "AKIDFILE", NULL, 0, "profile 'default' in {DIR}/credentials"},
    {"order: then credential_process", {CONTAINER, IMDS}, NULL, PROC_OK, NULL, 0, 0, "AKIDPROC",
     "proctoken", EXP2099, "credential_process of profile 'default' in {DIR}/config"},
    {"order: then the container endpoint", {CONTAINER, IMDS}, NULL, NULL, NULL, 0, 0,
     "AKIDCONTAINER", "akidcontainer-token", EXP2099, "container endpoint {URL}/container/ok"},
    {"order: then instance metadata (IMDSv2)", {IMDS}, NULL, NULL, NULL, 0, 0, "AKIDIMDS",
     "akidimds-token", EXP2099, "instance metadata {URL}/v2"},
    {"order: nothing names every source", {"AWS_EC2_METADATA_DISABLED=",
     "AWS_EC2_METADATA_SERVICE_ENDPOINT={URL}/norole"}, "[other]\n", NULL, NULL, 0,
     CREDS_ERR_NOT_FOUND, NULL, NULL, 0,
     "no AWS credentials: tried environment, profile 'default' in {DIR}/credentials and "
     "{DIR}/config, " NO_CONTAINER ", instance metadata ({URL}/norole/latest/meta-data/iam/"
     "security-credentials/: no IAM role attached (HTTP 404))"},
    {"nothing, default file paths under HOME", {"-AWS_SHARED_CREDENTIALS_FILE", "-AWS_CONFIG_FILE"},
     NULL, NULL, NULL, 0, CREDS_ERR_NOT_FOUND, NULL, NULL, 0,
     "tried environment, profile 'default' in {DIR}/.aws/credentials and " "{DIR}/.aws/config, "
     NO_CONTAINER ", instance metadata (disabled by AWS_EC2_METADATA_DISABLED)"},
    {"~ in AWS_SHARED_CREDENTIALS_FILE is HOME", {"AWS_SHARED_CREDENTIALS_FILE=~/credentials"},
     CRED_FILE, NULL, NULL, 0, 0, "AKIDFILE", NULL, 0, "{DIR}/credentials"},
    /* environment */
    {"environment with a session token", {KEYS, "AWS_SESSION_TOKEN=envtoken"}, NULL, NULL, NULL, 0,
     0, "AKIDENV", "envtoken", 0, "environment"},
    {"environment with an empty token", {KEYS, "AWS_SESSION_TOKEN="}, NULL, NULL, NULL, 0, 0,
     "AKIDENV", NULL, 0, "environment"},
    {"environment without the secret", {"AWS_ACCESS_KEY_ID=AKIDENV"}, NULL, NULL, NULL, 0,
     CREDS_ERR_INVALID, NULL, NULL, 0,
     "environment: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"},
    {"environment key id with a space", {"AWS_ACCESS_KEY_ID=AKID EXAMPLE",
     "AWS_SECRET_ACCESS_KEY=s"}, NULL, NULL, NULL, 0, CREDS_ERR_INVALID, NULL, NULL, 0,
     "environment: the access key id has characters other than A-Z a-z 0-9 - _ . ~"},
    /* profiles */
    {"AWS_PROFILE picks the section but the environment's keys win", {KEYS, "AWS_PROFILE=dev"},
     "[dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = d\n", NULL, NULL, 0, 0, "AKIDENV",
     NULL, 0, "environment"},
    {"AWS_PROFILE picks the section", {"AWS_PROFILE=dev"},
     CRED_FILE "[dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = d\n", NULL, NULL, 0, 0,
     "AKIDDEV", NULL, 0, "profile 'dev' in {DIR}/credentials"},
    {"a named profile wins over the environment", {KEYS, "AWS_PROFILE=other"},
     "[dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = d\n", NULL, "dev", 0, 0,
     "AKIDDEV", NULL, 0, "profile 'dev'"},
    {"keys in the config file", {0}, NULL,
     "[profile dev]\naws_access_key_id = AKIDCFG\naws_secret_access_key = c\n"
     "aws_session_token = cfgtoken\n",
     "dev", 0, 0, "AKIDCFG", "cfgtoken", 0, "profile 'dev' in {DIR}/config"},
    {"the credentials file wins over the config file", {0}, CRED_FILE,
     "[default]\naws_access_key_id = AKIDCFG\naws_secret_access_key = c\n", NULL, 0, 0, "AKIDFILE",
     NULL, 0, "{DIR}/credentials"},
    {"keys win over credential_process", {0}, NULL,
     "[default]\naws_access_key_id = AKIDCFG\naws_secret_access_key = c\ncredential_process = "
     "exit 1\n",
     NULL, 0, 0, "AKIDCFG", NULL, 0, "{DIR}/config"},
    {"[dev] in the config file is no profile", {"AWS_PROFILE=dev"}, NULL,
     "[dev]\naws_access_key_id = AKIDCFG\naws_secret_access_key = c\n", NULL, 0, CREDS_ERR_INVALID,
     NULL, NULL, 0, "AWS profile 'dev' not found in {DIR}/credentials or {DIR}/config"},
    {"a key id without a secret", {0}, "[default]\naws_access_key_id = AKIDFILE\n", NULL, NULL, 0,
     CREDS_ERR_INVALID, NULL, NULL, 0,
     "profile 'default' in {DIR}/credentials: aws_access_key_id without aws_secret_access_key"},
    {"a malformed credentials file", {0}, "[default]\n\nbroken line\n", NULL, NULL, 0,
     CREDS_ERR_INVALID, NULL, NULL, 0,
     "{DIR}/credentials:3: expected 'name = value', '[section]' or a comment"},
    {"a malformed config file", {0}, NULL, "[default\n", NULL, 0, CREDS_ERR_INVALID, NULL, NULL, 0,
     "{DIR}/config:1: section line without ']'"},
    {"a malformed file does not matter with environment keys", {KEYS}, "broken\n", NULL, NULL, 0, 0,
     "AKIDENV", NULL, 0, "environment"},
    {"role_arn is named as not supported", {0}, NULL,
     "[default]\nrole_arn = arn:aws:iam::123456789012:role/r\nsource_profile = x\n", NULL, 0,
     CREDS_ERR_INVALID, NULL, NULL, 0,
     "profile 'default' in {DIR}/config: role_arn is not supported; use credential_process"},
    /* credential_process */
    {"process without Expiration", {0}, NULL, PROC("{\"Version\":1," PROC_JSON "}"), NULL, 0, 0,
     "AKIDPROC", NULL, 0, "credential_process"},
    {"process Expiration with fractions", {0}, NULL,
     PROC("{\"Version\":1," PROC_JSON ",\"Expiration\":\"2099-01-01T00:00:00.123456Z\"}"), NULL, 0,
     0, "AKIDPROC", NULL, EXP2099, "credential_process"},
    {"process Expiration with +hh:mm", {0}, NULL,
     PROC("{\"Version\":1," PROC_JSON ",\"Expiration\":\"2099-01-01T01:30:00+01:30\"}"), NULL, 0, 0,
     "AKIDPROC", NULL, EXP2099, "credential_process"},
    {"process Expiration with -hhmm", {0}, NULL,
     PROC("{\"Version\":1," PROC_JSON ",\"Expiration\":\"2098-12-31T23:00:00-0100\"}"), NULL, 0, 0,
     "AKIDPROC", NULL, EXP2099, "credential_process"},
    {"process standard error is not read", {0}, NULL,
     CMD("cat {DIR}/secretfile >&2; printf '%s' '{\"Version\":1," PROC_JSON "}'"), NULL, 0, 0,
     "AKIDPROC", NULL, 0, "credential_process"},
    {"process printing no JSON", {0}, NULL, CMD("echo hello"), NULL, 0, CREDS_ERR_INVALID, NULL,
     NULL, 0, "credential_process (program 'echo'): the answer is not a JSON object"},
    {"process Version 2", {0}, NULL, PROC("{\"Version\":2," PROC_JSON "}"), NULL, 0,
     CREDS_ERR_INVALID, NULL, NULL, 0, "'): \"Version\" is missing or not 1"},
    {"process without Version", {0}, NULL, PROC("{" PROC_JSON "}"), NULL, 0, CREDS_ERR_INVALID,
     NULL, NULL, 0, "'): \"Version\" is missing or not 1"},
    {"process without SecretAccessKey", {0}, NULL,
     PROC("{\"Version\":1,\"AccessKeyId\":\"AKIDPROC\"}"), NULL, 0, CREDS_ERR_INVALID, NULL, NULL,
     0, "'): \"SecretAccessKey\" is missing or not a string"},
    {"process AccessKeyId not a string", {0}, NULL,
     PROC("{\"Version\":1,\"AccessKeyId\":7,\"SecretAccessKey\":\"s\"}"), NULL, 0,
     CREDS_ERR_INVALID, NULL, NULL, 0, "'): \"AccessKeyId\" is missing or not a string"},
    {"process SessionToken not a string", {0}, NULL,
     PROC("{\"Version\":1," PROC_JSON ",\"SessionToken\":5}"), NULL, 0, CREDS_ERR_INVALID, NULL,
     NULL, 0, "'): the session token is not a string"},
    {"process Expiration not a time", {0}, NULL,
     PROC("{\"Version\":1," PROC_JSON ",\"Expiration\":\"tomorrow\"}"), NULL, 0, CREDS_ERR_INVALID,
     NULL, NULL, 0, "'): \"Expiration\" is not an ISO 8601 time"},
    {"process credentials already expired", {0}, NULL,
     PROC("{\"Version\":1," PROC_JSON ",\"Expiration\":\"2020-01-01T00:00:00Z\"}"), NULL, 0,
     CREDS_ERR_INVALID, NULL, NULL, 0, "'): the credentials expired at 2020-01-01T00:00:00Z"},
    {"process exiting 3", {0}, NULL, CMD("cat {DIR}/secretfile >&2; exit 3"), NULL, 0,
     CREDS_ERR_FETCH, NULL, NULL, 0,
     "credential_process (program 'cat') exited with status 3 (its standard "
     "error is not shown: run it by hand to see why)"},
    {"process not found", {0}, NULL, CMD("/nonexistent/tool"), NULL, 0, CREDS_ERR_FETCH, NULL, NULL,
     0, "credential_process (program 'tool') exited with status 127 (command not found)"},
    {"process too slow", {0}, NULL, CMD("exec sleep 30"), NULL, 200, CREDS_ERR_FETCH, NULL, NULL, 0,
     "credential_process (program 'exec') timed out after 200 ms"},
    {"process printing too much", {0}, NULL, CMD("head -c 100000 /dev/zero"), NULL, 0,
     CREDS_ERR_FETCH, NULL, NULL, 0, "') printed more than 65536 bytes"},
    /* the container endpoint */
    {"container with an authorization token",
     {"AWS_CONTAINER_CREDENTIALS_FULL_URI={URL}/container/auth",
     "AWS_CONTAINER_AUTHORIZATION_TOKEN=container-auth-token"}, NULL, NULL, NULL, 0, 0,
     "AKIDCONTAINER", "akidcontainer-token", EXP2099, "container endpoint {URL}/container/auth"},
    {"container token file wins over the token",
     {"AWS_CONTAINER_CREDENTIALS_FULL_URI={URL}/container/auth",
     "AWS_CONTAINER_AUTHORIZATION_TOKEN=wrong", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE={DIR}/tok"},
     NULL, NULL, NULL, 0, 0, "AKIDCONTAINER", "akidcontainer-token", EXP2099, "container endpoint"},
    {"container without the token it needs",
     {"AWS_CONTAINER_CREDENTIALS_FULL_URI={URL}/container/auth"}, NULL, NULL, NULL, 0,
     CREDS_ERR_FETCH, NULL, NULL, 0, "{URL}/container/auth: HTTP 401"},
    {"container token file missing", {CONTAINER,
     "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE={DIR}/none"}, NULL, NULL, NULL, 0, CREDS_ERR_FETCH,
     NULL, NULL, 0, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE {DIR}/none: No such file or directory"},
    {"container failing", {"AWS_CONTAINER_CREDENTIALS_FULL_URI={URL}/container/fail"}, NULL, NULL,
     NULL, 0, CREDS_ERR_FETCH, NULL, NULL, 0, "{URL}/container/fail: HTTP 500"},
    {"container answering no JSON", {"AWS_CONTAINER_CREDENTIALS_FULL_URI={URL}/container/badjson"},
     NULL, NULL, NULL, 0, CREDS_ERR_INVALID, NULL, NULL, 0,
     "container endpoint {URL}/container/badjson: the answer is not a JSON object"},
    {"container unreachable", {"AWS_CONTAINER_CREDENTIALS_FULL_URI=http://127.0.0.1:1/creds"}, NULL,
     NULL, NULL, 0, CREDS_ERR_FETCH, NULL, NULL, 0, "http://127.0.0.1:1/creds: "},
    {"container plain http to another host",
     {"AWS_CONTAINER_CREDENTIALS_FULL_URI=http://example.com/creds"}, NULL, NULL, NULL, 0,
     CREDS_ERR_INVALID, NULL, NULL, 0,
     "AWS_CONTAINER_CREDENTIALS_FULL_URI 'http://example.com/creds': plain http is only allowed "
     "to a loopback address or the ECS/EKS agent"},
    /* instance metadata */
    {"IMDSv1 fallback", {"AWS_EC2_METADATA_DISABLED=false",
     "AWS_EC2_METADATA_SERVICE_ENDPOINT={URL}/v1"}, NULL, NULL, NULL, 0, 0, "AKIDIMDS",
     "akidimds-token", EXP2099, "instance metadata {URL}/v1"},
    {"IMDSv1 fallback disabled", {"AWS_EC2_METADATA_DISABLED=",
     "AWS_EC2_METADATA_SERVICE_ENDPOINT={URL}/v1", "AWS_EC2_METADATA_V1_DISABLED=true"}, NULL, NULL,
     NULL, 0, CREDS_ERR_NOT_FOUND, NULL, NULL, 0,
     "instance metadata ({URL}/v1/latest/api/token: HTTP 404 (IMDSv1 fallback disabled))"},
    {"IMDS endpoint with a trailing slash", {"AWS_EC2_METADATA_DISABLED=",
     "AWS_EC2_METADATA_SERVICE_ENDPOINT={URL}/v2//"}, NULL, NULL, NULL, 0, 0, "AKIDIMDS",
     "akidimds-token", EXP2099, "instance metadata"},
    {"IMDS credentials with Code Failure", {"AWS_EC2_METADATA_DISABLED=",
     "AWS_EC2_METADATA_SERVICE_ENDPOINT={URL}/failing"}, NULL, NULL, NULL, 0, CREDS_ERR_INVALID,
     NULL, NULL, 0, "\"Code\" is not \"Success\""},
    {"IMDS unreachable", {"AWS_EC2_METADATA_DISABLED=",
     "AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:1"}, NULL, NULL, NULL, 0,
     CREDS_ERR_NOT_FOUND, NULL, NULL, 0,
     ", instance metadata (http://127.0.0.1:1/latest/api/token: "},
};
/* clang-format on */

/* The secrets the cases use: no error may show them. */
static const char *const secrets[] = {"envsecret", "filesecret",           "procsecret",
                                      "proctoken", "akidcontainer-secret", "akidimds-secret"};

static void run_chain_case(const struct chain_case *c) {
    struct creds_options o = {.profile = c->profile, .process_timeout_ms = c->process_timeout_ms};
    struct creds got = {0};
    struct buf err, want;
    buf_init(&err, BUF_NO_CAP);
    buf_init(&want, BUF_NO_CAP);
    fprintf(stderr, "case: %s\n", c->name);
    env_set(c->env, sizeof c->env / sizeof *c->env);
    write_file("credentials", c->credentials);
    write_file("config", c->config);
    write_file("tok", "container-auth-token\n");
    write_file("secretfile", "procsecret proctoken\n");
    int rc = creds_resolve(&o, NOW, &got, &err);
    if (buf_adds(&want, subst(c->text))) abort();
    CHECK_INT(rc, c->rc);
    if (!rc) {
        CHECK_STR(got.access_key_id, c->akid);
        if (c->token)
            CHECK_STR(got.session_token, c->token);
        else
            CHECK(got.session_token == NULL);
        CHECK(got.secret_access_key && *got.secret_access_key);
        CHECK_INT(got.expiration, c->expiration);
        CHECK(strstr(got.source, buf_str(&want)) != NULL);
    } else {
        CHECK(got.access_key_id == NULL && got.secret_access_key == NULL);
        if (!strstr(buf_str(&err), buf_str(&want)))
            fprintf(stderr, "error [%s]\nlacks [%s]\n", buf_str(&err), buf_str(&want));
        CHECK(strstr(buf_str(&err), buf_str(&want)) != NULL);
        CHECK(strchr(buf_str(&err), '\n') == NULL);
        for (size_t i = 0; i < sizeof secrets / sizeof *secrets; i++)
            CHECK(strstr(buf_str(&err), secrets[i]) == NULL);
    }
    creds_clear(&got);
    buf_free(&err);
    buf_free(&want);
}

static const struct {
    const char *env[4];
    const char *config, *profile;
    int rc;
    const char *text; /* the region, or a part of the error */
} regions[] = {
    {{"AWS_REGION=eu-west-1", "AWS_DEFAULT_REGION=us-east-2"},
     "[default]\nregion = ap-east-1\n",
     NULL,
     0,
     "eu-west-1"},
    {{"AWS_DEFAULT_REGION=us-east-2"}, "[default]\nregion = ap-east-1\n", NULL, 0, "us-east-2"},
    {{0},
     "[default]\nregion = ap-east-1\n[profile dev]\nregion = sa-east-1\n",
     NULL,
     0,
     "ap-east-1"},
    {{"AWS_PROFILE=dev"},
     "[default]\nregion = ap-east-1\n[profile dev]\nregion = sa-east-1\n",
     NULL,
     0,
     "sa-east-1"},
    {{0}, "[profile dev]\nregion = sa-east-1\n", "dev", 0, "sa-east-1"},
    {{0},
     "[default]\n",
     NULL,
     CREDS_ERR_NOT_FOUND,
     "no AWS region: AWS_REGION and AWS_DEFAULT_REGION are not set and profile 'default' has no "
     "region in {DIR}/credentials or {DIR}/config"},
    {{"AWS_REGION=EU_WEST"},
     NULL,
     NULL,
     CREDS_ERR_INVALID,
     "AWS_REGION: 'EU_WEST' is not a region name such as us-east-1"},
    {{0},
     "[default]\nregion = bad region\n",
     NULL,
     CREDS_ERR_INVALID,
     "{DIR}/config: 'bad region' is not a region name"},
    {{0}, "[default]\nregion\n", NULL, CREDS_ERR_INVALID, "{DIR}/config:2: expected"},
};

static void test_regions(void) {
    for (size_t i = 0; i < sizeof regions / sizeof *regions; i++) {
        struct creds_options o = {.profile = regions[i].profile};
        struct buf region, err, want;
        buf_init(&region, BUF_NO_CAP);
        buf_init(&err, BUF_NO_CAP);
        buf_init(&want, BUF_NO_CAP);
        fprintf(stderr, "region case %zu\n", i);
        env_set(regions[i].env, 4);
        write_file("credentials", NULL);
        write_file("config", regions[i].config);
        if (buf_adds(&want, subst(regions[i].text))) abort();
        int rc = creds_region(&o, &region, &err);
        CHECK_INT(rc, regions[i].rc);
        if (!rc)
            CHECK_STR(buf_str(&region), buf_str(&want));
        else
            CHECK(strstr(buf_str(&err), buf_str(&want)) != NULL);
        buf_free(&region);
        buf_free(&err);
        buf_free(&want);
    }
}

static const struct {
    const char *relative, *full;
    int rc;
    const char *text; /* the URL, or a part of the error */
} container_urls[] = {
    {"/v2/credentials?id=1", NULL, 0, "http://169.254.170.2/v2/credentials?id=1"},
    {"/rel", "http://127.0.0.1:9/full", 0, "http://169.254.170.2/rel"},
    {NULL, "http://127.0.0.1:9/full", 0, "http://127.0.0.1:9/full"},
    {NULL, "http://127.5.6.7/x", 0, "http://127.5.6.7/x"},
    {NULL, "http://localhost:80/x", 0, "http://localhost:80/x"},
    {NULL, "http://[::1]:8/x", 0, "http://[::1]:8/x"},
    {NULL, "http://169.254.170.23/v1/credentials", 0, "http://169.254.170.23/v1/credentials"},
    {NULL, "https://creds.example.com/x", 0, "https://creds.example.com/x"},
    {NULL, "http://128.0.0.1/x", METADATA_ERR_INPUT, "plain http is only allowed"},
    {NULL, "ftp://127.0.0.1/x", METADATA_ERR_INPUT, "is not http or https"},
    {NULL, "not a url", METADATA_ERR_INPUT, "'not a url' is not a URL"},
    {"rel", NULL, METADATA_ERR_INPUT, "'rel' does not start with '/'"},
    {NULL, NULL, METADATA_ERR_INPUT, "neither"},
};

static void test_container_urls(void) {
    for (size_t i = 0; i < sizeof container_urls / sizeof *container_urls; i++) {
        struct buf u, err;
        buf_init(&u, BUF_NO_CAP);
        buf_init(&err, BUF_NO_CAP);
        fprintf(stderr, "container url case %zu\n", i);
        int rc =
            metadata_container_url(container_urls[i].relative, container_urls[i].full, &u, &err);
        CHECK_INT(rc, container_urls[i].rc);
        if (!rc)
            CHECK_STR(buf_str(&u), container_urls[i].text);
        else
            CHECK(strstr(buf_str(&err), container_urls[i].text) != NULL);
        buf_free(&u);
        buf_free(&err);
    }
}

/* A credential_process that counts its runs in {DIR}/count, fails while
 * {DIR}/fail exists, and hands out AKIDGEN<run> expiring at {DIR}/expiration. */
#define REFRESH_SCRIPT                                                                             \
    "n=$(($(cat {DIR}/count 2>/dev/null || echo 0) + 1)); echo $n > {DIR}/count; "                 \
    "test -e {DIR}/fail && exit 1; "                                                               \
    "printf '{\"Version\":1,\"AccessKeyId\":\"AKIDGEN%d\",\"SecretAccessKey\":\"s\","              \
    "\"Expiration\":\"%s\"}' $n $(cat {DIR}/expiration)"

static int runs(void) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    char path[256];
    snprintf(path, sizeof path, "%s/count", dir);
    int n = readall_path(path, &b) ? 0 : (int)strtol(buf_str(&b), NULL, 10);
    buf_free(&b);
    return n;
}

struct getter {
    struct creds_cache *cache;
    time_t now;
    int rc;
    char akid[32];
};

static void *get_thread(void *arg) {
    struct getter *g = arg;
    struct creds c = {0};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    g->rc = creds_cache_get(g->cache, g->now, &c, &err);
    snprintf(g->akid, sizeof g->akid, "%s", c.access_key_id ? c.access_key_id : "");
    creds_clear(&c);
    buf_free(&err);
    return NULL;
}

/* Calls creds_cache_get from n threads at once at time now. */
static void get_many(struct creds_cache *cache, time_t now, struct getter *g, int n) {
    pthread_t t[16];
    for (int i = 0; i < n; i++) {
        g[i] = (struct getter){.cache = cache, .now = now};
        if (pthread_create(&t[i], NULL, get_thread, &g[i])) abort();
    }
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
}

/* One get at now: checks the result, the key id and the number of process runs so far. */
static void expect_get(struct creds_cache *cache, time_t now, int rc, const char *akid,
                       int want_runs, const char *err_part) {
    struct creds c = {0};
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(creds_cache_get(cache, now, &c, &err), rc);
    if (akid)
        CHECK_STR(c.access_key_id, akid);
    else
        CHECK(c.access_key_id == NULL);
    CHECK_INT(runs(), want_runs);
    if (err_part) CHECK(strstr(buf_str(&err), err_part) != NULL);
    creds_clear(&c);
    buf_free(&err);
}

static struct creds_cache *refresh_setup(void) {
    const char *env[] = {"-AWS_PROFILE"};
    env_set(env, 1);
    write_file("credentials", NULL);
    write_file("config", CMD(REFRESH_SCRIPT));
    write_file("count", "0\n");
    write_file("fail", NULL);
    write_file("expiration", "2100-01-01T00:00:00Z");
    struct creds_options o = {0};
    struct creds_cache *cache = creds_cache_new(&o);
    if (!cache) abort();
    expect_get(cache, EXP2100 - 3600, 0, "AKIDGEN1", 1, NULL);
    write_file("expiration", "2100-01-01T01:00:00Z");
    return cache;
}

static void test_refresh_sequence(void) {
    fprintf(stderr, "refresh: one thread\n");
    struct creds_cache *cache = refresh_setup();
    expect_get(cache, EXP2100 - 301, 0, "AKIDGEN1", 1, NULL); /* not yet due */
    expect_get(cache, EXP2100 - 300, 0, "AKIDGEN2", 2, NULL); /* 5 minutes before expiry */
    expect_get(cache, EXP2100 - 1, 0, "AKIDGEN2", 2, NULL);
    /* a failing refresh keeps the still valid ones, and waits 10 s before trying again */
    write_file("fail", "");
    expect_get(cache, EXP2100 + 3600 - 200, 0, "AKIDGEN2", 3, "exited with status 1");
    expect_get(cache, EXP2100 + 3600 - 191, 0, "AKIDGEN2", 3, "exited with status 1");
    expect_get(cache, EXP2100 + 3600 - 190, 0, "AKIDGEN2", 4, "exited with status 1");
    /* expired and failing: the error */
    expect_get(cache, EXP2100 + 3600, CREDS_ERR_FETCH, NULL, 5, "exited with status 1");
    write_file("fail", NULL);
    write_file("expiration", "2100-01-01T02:00:00Z");
    expect_get(cache, EXP2100 + 3601, 0, "AKIDGEN6", 6, NULL);
    creds_cache_free(cache);
}

static void test_refresh_threads(void) {
    struct getter g[16];
    fprintf(stderr, "refresh: 16 threads, due but valid\n");
    struct creds_cache *cache = refresh_setup();
    get_many(cache, EXP2100 - 100, g, 16);
    for (int i = 0; i < 16; i++) {
        CHECK_INT(g[i].rc, 0);
        CHECK(strcmp(g[i].akid, "AKIDGEN1") == 0 || strcmp(g[i].akid, "AKIDGEN2") == 0);
    }
    CHECK_INT(runs(), 2);
    expect_get(cache, EXP2100 - 100, 0, "AKIDGEN2", 2, NULL);
    creds_cache_free(cache);

    fprintf(stderr, "refresh: 16 threads, expired\n");
    cache = refresh_setup();
    get_many(cache, EXP2100 + 10, g, 16);
    for (int i = 0; i < 16; i++) {
        CHECK_INT(g[i].rc, 0);
        CHECK_STR(g[i].akid, "AKIDGEN2");
    }
    CHECK_INT(runs(), 2);
    creds_cache_free(cache);

    fprintf(stderr, "refresh: 16 threads, expired and failing\n");
    cache = refresh_setup();
    write_file("fail", "");
    get_many(cache, EXP2100 + 10, g, 16);
    for (int i = 0; i < 16; i++) {
        CHECK_INT(g[i].rc, CREDS_ERR_FETCH);
        CHECK_STR(g[i].akid, "");
    }
    CHECK(runs() >= 2);
    creds_cache_free(cache);
}

static void cleanup(void) {
    const char *files[] = {"credentials", "config", "tok",       "secretfile",
                           "count",       "fail",   "expiration"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) write_file(files[i], NULL);
    rmdir(dir);
}

int main(int argc, char **argv) {
    int server_in;
    if (argc != 3 || !mkdtemp(dir)) {
        fprintf(stderr, "usage: test_creds PYTHON FAKE_METADATA_PY\n");
        return 2;
    }
    pid_t server = server_start(argv[1], argv[2], &server_in);
    for (size_t i = 0; i < sizeof chain / sizeof *chain; i++) run_chain_case(&chain[i]);
    test_regions();
    test_container_urls();
    test_refresh_sequence();
    test_refresh_threads();
    close(server_in);
    waitpid(server, NULL, 0);
    cleanup();
    return check_exit();
}
