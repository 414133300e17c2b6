/* The AWS SigV4 test suite (tests/data/sigv4), header signing: canonical
 * request, string to sign and signature must match byte for byte.
 *
 * Not run: the query-*.txt artefacts (presigned URLs; InvokeEndpoint is signed
 * in the header). Every header case runs, the S3-style *-unnormalized ones with
 * no_normalize, get-header-value-multiline with obs-fold read as one space
 * (RFC 7230 3.2.4) and post-sts-header-after with the token left unsigned. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../check.h"
#include "sigv4.h"

#define MAX_HEADERS 32

struct suite_request {
    char *text; /* request.txt, cut into the pieces below */
    char *method, *target;
    struct sigv4_header headers[MAX_HEADERS + 1];
    size_t n_headers;
    char *body;
    size_t body_len;
};

static char *read_file(const char *dir, const char *name, size_t *len) {
    char *path;
    if (asprintf(&path, "%s/%s", dir, name) < 0) return NULL;
    FILE *f = fopen(path, "rb");
    free(path);
    if (!f) return NULL;
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (buf_add(&b, chunk, n)) break;
    fclose(f);
    if (len) *len = b.len;
    return buf_take(&b);
}

/* Splits request.txt as the suite's README says: request line, header lines
 * (a line starting with white space continues the previous one), body. */
static bool parse_request(char *text, struct suite_request *r) {
    r->text = text;
    char *line_end = strstr(text, "\n");
    char *http = line_end ? line_end : text + strlen(text);
    while (http > text && strncmp(http - 9, " HTTP/1.1", 9) != 0) http--;
    char *sp = strchr(text, ' ');
    if (!sp || http <= sp + 9) return false;
    *sp = '\0';
    http[-9] = '\0';
    r->method = text;
    r->target = sp + 1;
    char *p = line_end ? line_end + 1 : NULL;
    r->n_headers = 0;
    r->body = "";
    r->body_len = 0;
    while (p && *p) {
        char *nl = strchr(p, '\n');
        if (nl == p) { /* empty line: the body follows */
            r->body = p + 1;
            r->body_len = strlen(p + 1);
            break;
        }
        if (nl) *nl = '\0';
        if ((*p == ' ' || *p == '\t') && r->n_headers) {
            /* obs-fold: the previous value ends at the NUL just before p */
            struct sigv4_header *h = &r->headers[r->n_headers - 1];
            p[-1] = ' ';
            h->value_len = strlen(h->value);
            p = nl ? nl + 1 : NULL;
            continue;
        }
        char *colon = strchr(p, ':');
        if (!colon || r->n_headers == MAX_HEADERS) return false;
        r->headers[r->n_headers++] =
            (struct sigv4_header){p, (size_t)(colon - p), colon + 1, strlen(colon + 1)};
        p = nl ? nl + 1 : NULL;
    }
    return true;
}

static bool json_flag(const cJSON *ctx, const char *name) {
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ctx, name));
}

static const char *json_str(const cJSON *obj, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* "2015-08-30T12:36:00Z" -> "20150830T123600Z" */
static void iso_to_amz(const char *iso, char out[SIGV4_DATE_LEN + 1]) {
    size_t n = 0;
    for (; *iso && n < SIGV4_DATE_LEN; iso++)
        if (*iso != '-' && *iso != ':') out[n++] = *iso;
    out[n] = '\0';
}

/* Signs one case and compares against the expected files; returns failures. */
static int run_case(const char *dir, const char *name, const char *req_file, const char *creq_file,
                    const char *sts_file, const char *sig_file, const cJSON *ctx) {
    int before = check_failed;
    char *path;
    if (asprintf(&path, "%s/%s", dir, name) < 0) return 1;
    struct suite_request r;
    char *text = read_file(path, req_file, NULL);
    char *want_creq = read_file(path, creq_file, NULL);
    char *want_sts = read_file(path, sts_file, NULL);
    char *want_sig = read_file(path, sig_file, NULL);
    CHECK(text && want_creq && want_sts);
    if (!text || !want_creq || !want_sts || !parse_request(text, &r)) {
        fprintf(stderr, "%s: cannot read the case\n", name);
        check_failed++;
        goto done;
    }
    const cJSON *creds = cJSON_GetObjectItemCaseSensitive(ctx, "credentials");
    char amz[SIGV4_DATE_LEN + 1] = "20150830T123600Z";
    if (json_str(ctx, "timestamp")) iso_to_amz(json_str(ctx, "timestamp"), amz);
    struct sigv4_credentials c = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", NULL};
    if (creds)
        c = (struct sigv4_credentials){json_str(creds, "access_key_id"),
                                       json_str(creds, "secret_access_key"),
                                       json_str(creds, "token")};
    if (json_flag(ctx, "omit_session_token")) c.session_token = NULL;
    char body_hash[SIGV4_HEX_LEN + 1];
    CHECK_INT(sigv4_sha256_hex(r.body, r.body_len, body_hash), 0);
    if (json_flag(ctx, "sign_body"))
        r.headers[r.n_headers++] =
            (struct sigv4_header){"x-amz-content-sha256", 20, body_hash, SIGV4_HEX_LEN};
    struct sigv4_request req = {r.method,    r.target, strlen(r.target), r.headers,
                                r.n_headers, r.body,   r.body_len,       NULL};
    const char *region = json_str(ctx, "region"), *service = json_str(ctx, "service");
    struct sigv4_params p = {region ? region : "us-east-1", service ? service : "service", amz,
                             ctx && !json_flag(ctx, "normalize"), false};
    struct sigv4_signer *s = sigv4_signer_new();
    struct sigv4_result res;
    sigv4_result_init(&res);
    CHECK_INT(sigv4_sign(s, &req, &c, &p, &res), 0);
    CHECK_STR(buf_str(&res.canonical_request), want_creq);
    CHECK_STR(buf_str(&res.string_to_sign), want_sts);
    if (want_sig) {
        want_sig[strcspn(want_sig, "\n")] = '\0';
        const char *sig = strstr(want_sig, "Signature=");
        CHECK_STR(res.signature, sig ? sig + 10 : want_sig);
    }
    sigv4_result_free(&res);
    sigv4_signer_free(s);
done:
    free(path);
    free(text);
    free(want_creq);
    free(want_sts);
    free(want_sig);
    if (check_failed != before) fprintf(stderr, "FAIL %s\n", name);
    return check_failed - before;
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every case directory of the aws-c-auth layout; returns how many ran. */
static int run_aws_c_auth(const char *dir) {
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return 0;
    char *names[128] = {0};
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 128)
        if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, name_cmp);
    for (int i = 0; i < n; i++) {
        char *path;
        if (asprintf(&path, "%s/%s", dir, names[i]) < 0) path = NULL;
        char *json = path ? read_file(path, "context.json", NULL) : NULL;
        free(path);
        cJSON *ctx = json ? cJSON_Parse(json) : NULL;
        CHECK(ctx != NULL);
        run_case(dir, names[i], "request.txt", "header-canonical-request.txt",
                 "header-string-to-sign.txt", "header-signature.txt", ctx);
        cJSON_Delete(ctx);
        free(json);
        free(names[i]);
    }
    return n;
}

/* The older layout's cases that the newer one lacks. */
static int run_botocore(const char *dir) {
    static const char *const cases[] = {"get-vanilla-query-order-key",
                                        "get-vanilla-query-order-value",
                                        "normalize-path/get-special-character"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *base = strrchr(cases[i], '/') ? strrchr(cases[i], '/') + 1 : cases[i];
        char f[4][256];
        snprintf(f[0], sizeof f[0], "%s.req", base);
        snprintf(f[1], sizeof f[1], "%s.creq", base);
        snprintf(f[2], sizeof f[2], "%s.sts", base);
        snprintf(f[3], sizeof f[3], "%s.authz", base);
        run_case(dir, cases[i], f[0], f[1], f[2], f[3], NULL);
    }
    return (int)(sizeof cases / sizeof *cases);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SIGV4_TESTSUITE_DIR\n", argv[0]);
        return 2;
    }
    char *dir;
    if (asprintf(&dir, "%s/aws-c-auth-v4", argv[1]) < 0) return 1;
    int n = run_aws_c_auth(dir);
    free(dir);
    CHECK_INT(n, 38);
    if (asprintf(&dir, "%s/botocore-aws4_testsuite", argv[1]) < 0) return 1;
    n += run_botocore(dir);
    free(dir);
    printf("%d cases, %d failed checks\n", n, check_failed);
    return check_exit();
}
