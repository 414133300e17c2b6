/* s3sign_tool: prints what the S3 client would send for one request (aws/s3.h,
 * s3_sign), for test_s3_botocore.py to sign again with botocore's S3SigV4Auth.
 *
 *   s3sign_tool METHOD BUCKET KEY|- QUERY|- REGION ENDPOINT_URL|- UNIX_TIME CONTENT_TYPE|- < BODY
 *
 * Credentials from AKID, SECRET and TOKEN (optional). Prints "url: URL", one
 * "header: NAME: VALUE" per signed header, and "authorization: VALUE". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readall.h"
#include "s3.h"

static const char *opt(const char *s) {
    return strcmp(s, "-") == 0 ? NULL : s;
}

int main(int argc, char **argv) {
    if (argc != 9) {
        fprintf(stderr, "usage: s3sign_tool METHOD BUCKET KEY QUERY REGION ENDPOINT TIME TYPE\n");
        return 2;
    }
    struct buf body;
    buf_init(&body, BUF_NO_CAP);
    if (readall_fd(0, &body)) return 2;
    struct s3_request r = {argv[1],   argv[2],  opt(argv[3]), opt(argv[4]),
                           body.data, body.len, opt(argv[8])};
    struct sigv4_credentials creds = {getenv("AKID"), getenv("SECRET"), getenv("TOKEN")};
    struct sigv4_signer *signer = sigv4_signer_new();
    struct s3_signed s;
    s3_signed_init(&s);
    int rc =
        s3_sign(signer, argv[5], opt(argv[6]), &r, &creds, (time_t)strtoll(argv[7], NULL, 10), &s);
    if (rc == S3_OK) {
        printf("url: %s\n", buf_str(&s.url));
        for (size_t i = 0; i < s.n_headers; i++)
            printf("header: %s: %s\n", s.headers[i].name, s.headers[i].value);
        printf("authorization: %s\n", buf_str(&s.sig.authorization));
    } else {
        printf("refused: %d\n", rc);
    }
    s3_signed_free(&s);
    sigv4_signer_free(signer);
    buf_free(&body);
    return rc == S3_OK ? 0 : 1;
}
