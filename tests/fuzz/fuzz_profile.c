/* Fuzzes the shared credentials and config file parser: the input is one
 * file, parsed as each kind; then the usual settings of a few profiles are
 * looked up. Errors must be one line naming the file and line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static const char *const fuzz_profiles[] = {"default", "dev", "profile dev", "sso-session x"};
static const char *const fuzz_keys[] = {"aws_access_key_id", "aws_secret_access_key",
                                        "aws_session_token", "credential_process", "region"};

static void fuzz_lookups(const struct profile_file *f) {
    for (size_t p = 0; p < sizeof fuzz_profiles / sizeof *fuzz_profiles; p++)
        for (size_t k = 0; k < sizeof fuzz_keys / sizeof *fuzz_keys; k++) {
            const char *v = profile_get(f, fuzz_profiles[p], fuzz_keys[k]);
            if (v && (!profile_exists(f, fuzz_profiles[p]) || strchr(v, '\n'))) abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const enum profile_kind kinds[] = {PROFILE_CREDENTIALS, PROFILE_CONFIG};
    for (size_t i = 0; i < 2; i++) {
        struct profile_file *f;
        struct buf err;
        buf_init(&err, BUF_NO_CAP);
        int rc = profile_parse((const char *)data, size, "fuzz.ini", kinds[i], &f, &err);
        if (rc == PROFILE_OK)
            fuzz_lookups(f);
        else if (rc != PROFILE_ERR_SYNTAX || f || strncmp(buf_str(&err), "fuzz.ini:", 9) != 0 ||
                 strchr(buf_str(&err), '\n'))
            abort();
        profile_free(f);
        buf_free(&err);
    }
    return 0;
}
