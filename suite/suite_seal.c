#include "suite_seal.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readall.h"
#include "suite_files.h"

#define SUITE_SEAL_HEADER "wrk-sagemaker-seal 1\n"
#define SUITE_SEAL_LINE   "hmac-sha256 "
#define SUITE_SEAL_MAX    1024 /* the largest seal file read */

int suite_seal_key_path(char **out, struct buf *err) {
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    const struct passwd *pw = NULL;
    int n;
    if ((!home || home[0] != '/') && (pw = getpwuid(geteuid())) != NULL) home = pw->pw_dir;
    if (xdg && xdg[0] == '/')
        n = asprintf(out, "%s/wrk-sagemaker/suite-seal.key", xdg);
    else if (home && home[0] == '/')
        n = asprintf(out, "%s/.config/wrk-sagemaker/suite-seal.key", home);
    else
        return buf_fail(err, SUITE_SEAL_ERR_KEY,
                        "no home folder for the key that seals manifests: set XDG_CONFIG_HOME");
    if (n >= 0) return SUITE_SEAL_OK;
    *out = NULL;
    return buf_fail(err, SUITE_SEAL_ERR_NOMEM, "out of memory");
}

/* Reads a key file of this user's that only this user can read. */
static int suite_seal_read_key(struct suite_seal *s, const char *path, struct buf *err) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return buf_fail(err, SUITE_SEAL_ERR_KEY, "cannot read the key %s: %s", path,
                        strerror(errno));
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
              (st.st_mode & 077) == 0 && st.st_size == SUITE_SEAL_KEY_LEN &&
              read(fd, s->key, SUITE_SEAL_KEY_LEN) == SUITE_SEAL_KEY_LEN;
    close(fd);
    if (ok) return SUITE_SEAL_OK;
    OPENSSL_cleanse(s->key, sizeof s->key);
    return buf_fail(err, SUITE_SEAL_ERR_KEY,
                    "the key %s must be a file of yours of %d bytes that only you can read "
                    "(chmod 600; or remove it, and runs it sealed can no longer be resumed)",
                    path, SUITE_SEAL_KEY_LEN);
}

/* Makes a folder of this user's only, when it is not there. */
static int suite_seal_mkdir(char *dir, struct buf *err) {
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        int rc = access(dir, F_OK) == 0 ? SUITE_SEAL_OK : suite_seal_mkdir(dir, err);
        *slash = '/';
        if (rc < 0) return rc;
    }
    if (mkdir(dir, 0700) == 0 || errno == EEXIST) return SUITE_SEAL_OK;
    return buf_fail(err, SUITE_SEAL_ERR_KEY, "cannot create %s for the key: %s", dir,
                    strerror(errno));
}

/* A new key at path: written aside, then linked into place unless another
 * sm-suite made one first (then that one is used). */
static int suite_seal_make_key(const char *path, struct buf *err) {
    unsigned char key[SUITE_SEAL_KEY_LEN];
    char *dir = strdup(path), *tmp = NULL;
    int rc = dir && asprintf(&tmp, "%s.XXXXXX", path) >= 0 ? SUITE_SEAL_OK : SUITE_SEAL_ERR_NOMEM;
    if (rc < 0) tmp = NULL;
    if (rc == SUITE_SEAL_OK) {
        *strrchr(dir, '/') = '\0';
        rc = suite_seal_mkdir(dir, err);
    }
    int fd = rc == SUITE_SEAL_OK ? mkstemp(tmp) : -1; /* 0600 */
    if (rc == SUITE_SEAL_OK && fd < 0)
        rc = buf_fail(err, SUITE_SEAL_ERR_KEY, "cannot create the key %s: %s", path,
                      strerror(errno));
    if (fd >= 0) {
        bool ok = RAND_bytes(key, sizeof key) == 1 && write(fd, key, sizeof key) == sizeof key;
        ok = close(fd) == 0 && ok;
        if (!ok || (link(tmp, path) != 0 && errno != EEXIST))
            rc = buf_fail(err, SUITE_SEAL_ERR_KEY, "cannot create the key %s: %s", path,
                          strerror(errno));
        unlink(tmp);
    }
    OPENSSL_cleanse(key, sizeof key);
    if (rc == SUITE_SEAL_ERR_NOMEM) buf_fail(err, rc, "out of memory");
    free(dir);
    free(tmp);
    return rc;
}

int suite_seal_open(struct suite_seal *s, const char *key_path, bool create, struct buf *err) {
    memset(s, 0, sizeof *s);
    if (create && access(key_path, F_OK) != 0 && errno == ENOENT) {
        int rc = suite_seal_make_key(key_path, err);
        if (rc < 0) return rc;
    }
    return suite_seal_read_key(s, key_path, err);
}

void suite_seal_close(struct suite_seal *s) {
    OPENSSL_cleanse(s, sizeof *s);
}

/* The seal of text, as hex. */
static int suite_seal_of(const struct suite_seal *s, const char *text, size_t len,
                         char hex[SUITE_SEAL_HEX_LEN + 1]) {
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (!HMAC(EVP_sha256(), s->key, SUITE_SEAL_KEY_LEN, (const unsigned char *)text, len, mac,
              &n) ||
        n * 2 != SUITE_SEAL_HEX_LEN)
        return SUITE_SEAL_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) snprintf(hex + 2 * i, 3, "%02x", mac[i]);
    return SUITE_SEAL_OK;
}

int suite_seal_write(struct suite_seal *s, const char *seal_path, const char *text, size_t len,
                     struct buf *err) {
    char hex[SUITE_SEAL_HEX_LEN + 1];
    struct buf b;
    if (suite_seal_of(s, text, len, hex) < 0)
        return buf_fail(err, SUITE_SEAL_ERR_NOMEM, "cannot compute the seal of %s", seal_path);
    buf_init(&b, SUITE_SEAL_MAX);
    int rc = buf_addf(&b, SUITE_SEAL_HEADER SUITE_SEAL_LINE "%s\n", hex);
    if (rc == BUF_OK && s->last[0] && strcmp(s->last, hex) != 0)
        rc = buf_addf(&b, SUITE_SEAL_LINE "%s\n", s->last);
    rc = rc == BUF_OK ? suite_files_write_atomic(seal_path, buf_str(&b), b.len, err)
                      : buf_fail(err, SUITE_SEAL_ERR_NOMEM, "out of memory");
    buf_free(&b);
    if (rc < 0) return rc == SUITE_FILES_ERR_IO ? SUITE_SEAL_ERR_IO : SUITE_SEAL_ERR_NOMEM;
    memcpy(s->last, hex, sizeof hex);
    return SUITE_SEAL_OK;
}

/* Whether one of the seal file's lines is hex. */
static bool suite_seal_listed(const char *file, const char *hex) {
    const char *p = file + strlen(SUITE_SEAL_HEADER);
    for (int k = 0; k < 2 && strncmp(p, SUITE_SEAL_LINE, strlen(SUITE_SEAL_LINE)) == 0; k++) {
        p += strlen(SUITE_SEAL_LINE);
        if (strspn(p, "0123456789abcdef") == SUITE_SEAL_HEX_LEN && p[SUITE_SEAL_HEX_LEN] == '\n' &&
            CRYPTO_memcmp(p, hex, SUITE_SEAL_HEX_LEN) == 0)
            return true;
        p += strcspn(p, "\n");
        p += *p == '\n';
    }
    return false;
}

int suite_seal_check(struct suite_seal *s, const char *seal_path, const char *text, size_t len,
                     struct buf *err) {
    char hex[SUITE_SEAL_HEX_LEN + 1];
    struct buf b;
    buf_init(&b, SUITE_SEAL_MAX);
    int rc = readall_regular(seal_path, &b);
    bool listed =
        rc == 0 && strncmp(buf_str(&b), SUITE_SEAL_HEADER, strlen(SUITE_SEAL_HEADER)) == 0 &&
        suite_seal_of(s, text, len, hex) == SUITE_SEAL_OK && suite_seal_listed(buf_str(&b), hex);
    buf_free(&b);
    if (rc == READALL_ERR_NOT_REGULAR)
        return buf_fail(err, SUITE_SEAL_ERR_IO, "cannot read %s: not a regular file", seal_path);
    if (rc > 0 && rc != ENOENT)
        return buf_fail(err, SUITE_SEAL_ERR_IO, "cannot read %s: %s", seal_path, strerror(rc));
    if (!listed)
        return buf_fail(err, SUITE_SEAL_ERR_MISMATCH, "%s",
                        rc == ENOENT ? "it has no seal" : "its seal does not match");
    memcpy(s->last, hex, sizeof hex);
    return SUITE_SEAL_OK;
}
