/* The shared credentials/config file parser: profiles, "[profile x]" vs "[x]",
 * comments, white space, continuation lines, and one-line errors naming the
 * file and line without echoing values. */
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"
#include "profile.h"

struct lookup {
    const char *profile, *key, *want; /* want NULL: no such setting */
};

struct parse_case {
    const char *name;
    enum profile_kind kind;
    const char *text;
    size_t len;               /* 0: strlen(text) */
    const char *error;        /* the whole error line, or NULL when the text is valid */
    struct lookup lookups[8]; /* up to the first with a NULL profile */
};

static const struct parse_case cases[] = {
    {"credentials file",
     PROFILE_CREDENTIALS,
     "[default]\naws_access_key_id = AKIDA\naws_secret_access_key=secretA\n\n[dev]\n"
     "aws_access_key_id\t=\tAKIDB  \n",
     0,
     NULL,
     {{"default", "aws_access_key_id", "AKIDA"},
      {"default", "aws_secret_access_key", "secretA"},
      {"dev", "aws_access_key_id", "AKIDB"},
      {"dev", "aws_secret_access_key", NULL},
      {"other", "aws_access_key_id", NULL}}},
    {"comments, CRLF, blank lines, no final newline",
     PROFILE_CREDENTIALS,
     "# a comment\r\n; another\r\n\r\n  [ dev ]  # trailing\r\n  region = x  \r\nkey = v",
     0,
     NULL,
     {{"dev", "region", "x"}, {"dev", "key", "v"}}},
    {"config: [profile x] and [default] are profiles, [x] is not",
     PROFILE_CONFIG,
     "[default]\nregion = r0\n[profile dev]\nregion = r1\n[qa]\nregion = r2\n"
     "[profile   spaced\t]\nregion = r3\n[sso-session s]\nregion = r4\n[profilex]\nregion = r5\n",
     0,
     NULL,
     {{"default", "region", "r0"},
      {"dev", "region", "r1"},
      {"qa", "region", NULL},
      {"spaced", "region", "r3"},
      {"sso-session s", "region", NULL},
      {"profilex", "region", NULL}}},
    {"config: [profile default] is default",
     PROFILE_CONFIG,
     "[profile default]\nregion = r0\n",
     0,
     NULL,
     {{"default", "region", "r0"}}},
    {"credentials: [profile x] keeps its whole name",
     PROFILE_CREDENTIALS,
     "[profile dev]\nk = v\n",
     0,
     NULL,
     {{"profile dev", "k", "v"}, {"dev", "k", NULL}}},
    {"names are case-insensitive, later settings and sections win",
     PROFILE_CREDENTIALS,
     "[a]\nAWS_Access_Key_ID = one\n[b]\nx = 1\n[a]\naws_access_key_id = two\n",
     0,
     NULL,
     {{"a", "aws_access_key_id", "two"}, {"b", "x", "1"}}},
    {"continuation lines belong to the setting before",
     PROFILE_CONFIG,
     "[default]\ns3 =\n  max_concurrent_requests = 10\n\tsignature_version = s3v4\nregion = r\n",
     0,
     NULL,
     {{"default", "s3", ""},
      {"default", "max_concurrent_requests", NULL},
      {"default", "region", "r"}}},
    {"'=' and '#' inside values are kept",
     PROFILE_CONFIG,
     "[default]\ncredential_process = tool --opt=1 # not a comment\n",
     0,
     NULL,
     {{"default", "credential_process", "tool --opt=1 # not a comment"}}},
    {"empty file", PROFILE_CREDENTIALS, "", 0, NULL, {{"default", "x", NULL}}},
    {"setting before any section",
     PROFILE_CREDENTIALS,
     "key = secretvalue\n",
     0,
     "F:1: setting before the first [section]",
     {{0}}},
    {"section without ]",
     PROFILE_CREDENTIALS,
     "[default]\nk = v\n[dev\n",
     0,
     "F:3: section line without ']'",
     {{0}}},
    {"empty section name",
     PROFILE_CREDENTIALS,
     "\n\n[ ]\n",
     0,
     "F:3: empty section name '[]'",
     {{0}}},
    {"text after ]", PROFILE_CREDENTIALS, "[default] junk\n", 0, "F:1: text after ']'", {{0}}},
    {"line that is nothing",
     PROFILE_CREDENTIALS,
     "[default]\n# ok\nsecretvalue\n",
     0,
     "F:3: expected 'name = value', '[section]' or a comment",
     {{0}}},
    {"setting without a name",
     PROFILE_CONFIG,
     "[default]\n = secretvalue\n",
     0,
     "F:2: setting without a name before '='",
     {{0}}},
    {"[profile] without a name",
     PROFILE_CONFIG,
     "[profile ]\n",
     0,
     "F:1: '[profile]' without a name",
     {{0}}},
    {"NUL byte",
     PROFILE_CREDENTIALS,
     "[default]\nk = v\0x\n",
     18,
     "F:2: NUL byte in the file",
     {{0}}},
};

static void run_case(const struct parse_case *c) {
    struct profile_file *f = (struct profile_file *)1;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    int rc = profile_parse(c->text, c->len ? c->len : strlen(c->text), "F", c->kind, &f, &err);
    fprintf(stderr, "case: %s\n", c->name);
    if (c->error) {
        CHECK_INT(rc, PROFILE_ERR_SYNTAX);
        CHECK(f == NULL);
        CHECK_STR(buf_str(&err), c->error);
        CHECK(strstr(buf_str(&err), "secretvalue") == NULL);
    } else {
        CHECK_INT(rc, PROFILE_OK);
        for (const struct lookup *l = c->lookups; l->profile; l++) {
            const char *got = profile_get(f, l->profile, l->key);
            if (l->want)
                CHECK_STR(got, l->want);
            else
                CHECK(got == NULL);
        }
    }
    profile_free(f);
    buf_free(&err);
}

static void test_exists(void) {
    struct profile_file *f;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK_INT(profile_parse("[empty]\n[profile dev]\n", 21, "F", PROFILE_CONFIG, &f, &err), 0);
    CHECK(!profile_exists(f, "empty")); /* not a profile in a config file */
    CHECK(profile_exists(f, "dev"));
    profile_free(f);
    CHECK_INT(profile_parse("[empty]\n", 8, "F", PROFILE_CREDENTIALS, &f, &err), 0);
    CHECK(profile_exists(f, "empty"));
    CHECK(!profile_exists(f, "default"));
    profile_free(f);
    buf_free(&err);
}

static void test_load(void) {
    char dir[] = "/tmp/test_profile.XXXXXX";
    struct profile_file *f;
    struct buf err;
    buf_init(&err, BUF_NO_CAP);
    CHECK(mkdtemp(dir) != NULL);
    char missing[64];
    snprintf(missing, sizeof missing, "%s/none", dir);
    CHECK_INT(profile_load(missing, PROFILE_CREDENTIALS, &f, &err), PROFILE_OK);
    CHECK(f && !profile_exists(f, "default"));
    profile_free(f);
    CHECK_INT(profile_load(dir, PROFILE_CREDENTIALS, &f, &err), PROFILE_ERR_READ);
    CHECK(f == NULL);
    char want[96];
    snprintf(want, sizeof want, "%s: Is a directory", dir);
    CHECK_STR(buf_str(&err), want);
    rmdir(dir);
    buf_free(&err);
}

int main(void) {
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i]);
    test_exists();
    test_load();
    return check_exit();
}
