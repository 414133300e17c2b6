/* suite_seal: proof that sm-suite wrote a file (the run's manifest.json), so
 * that --resume refuses one changed since.
 *
 * The threat: a run directory may be shared (a group-writable folder, a
 * network share, /tmp), and whoever else can write it could edit manifest.json
 * so that a resume runs other code or sends signed requests to another host. A
 * plain checksum beside the file would not stop them: they could rewrite it
 * too. The seal is an HMAC-SHA-256 of the file's bytes under a key that only
 * this user can read (a file of 32 random bytes, mode 0600, in the user's
 * configuration folder, made on first use): someone who can write the run
 * directory but not read the key cannot seal a manifest of their own.
 *
 * Not covered: whoever can read the key (this account, root); a manifest this
 * user sealed earlier put back in place (it describes a run this user
 * started). A run resumed by another user, or on a machine without the key,
 * is refused as unsealed. The seal is not the only guard: a resume takes the
 * options that choose code or destination from its command line (sm_suite.c). */
#ifndef SM_SUITE_SEAL_H
#define SM_SUITE_SEAL_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

#define SUITE_SEAL_KEY_LEN 32
#define SUITE_SEAL_HEX_LEN 64

enum suite_seal_error {
    SUITE_SEAL_OK = 0,
    SUITE_SEAL_ERR_KEY = -1,      /* no usable key */
    SUITE_SEAL_ERR_MISMATCH = -2, /* the file is not sealed, or was changed */
    SUITE_SEAL_ERR_IO = -3,
    SUITE_SEAL_ERR_NOMEM = -4,
};

/* A key, and the seal of the text sealed or checked last. */
struct suite_seal {
    unsigned char key[SUITE_SEAL_KEY_LEN];
    char last[SUITE_SEAL_HEX_LEN + 1]; /* "" at first */
};

/* The key's path: $XDG_CONFIG_HOME, else $HOME/.config, then
 * /wrk-sagemaker/suite-seal.key; malloc'ed into *out. Returns 0, or
 * SUITE_SEAL_ERR_KEY (no home folder) or _NOMEM with a message in err. */
__attribute__((warn_unused_result)) int suite_seal_key_path(char **out, struct buf *err);

/* Reads the key at key_path into s; when create and there is none yet, makes
 * one (its folder too, 0700). The key must be a file of this user's that only
 * this user can read. Returns 0, or SUITE_SEAL_ERR_KEY with a message in err.
 * Close with suite_seal_close (which wipes the key). */
__attribute__((warn_unused_result)) int suite_seal_open(struct suite_seal *s, const char *key_path,
                                                        bool create, struct buf *err);
/* Wipes the key. */
void suite_seal_close(struct suite_seal *s);

/* Writes the seal of text[0..len) to seal_path (atomically), with the seal of
 * the text sealed before it (so that a file replaced right after its seal
 * still checks when the replacement did not happen). Call it before writing
 * the text itself. Returns 0 or SUITE_SEAL_ERR_IO with a message in err. */
__attribute__((warn_unused_result)) int suite_seal_write(struct suite_seal *s,
                                                         const char *seal_path, const char *text,
                                                         size_t len, struct buf *err);
/* Checks text[0..len) against the seal at seal_path. Returns 0, or
 * SUITE_SEAL_ERR_MISMATCH (no seal, or the text was changed) or _IO with a
 * message in err. */
__attribute__((warn_unused_result)) int suite_seal_check(struct suite_seal *s,
                                                         const char *seal_path, const char *text,
                                                         size_t len, struct buf *err);

#endif
