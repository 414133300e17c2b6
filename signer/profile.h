/* profile: the AWS shared credentials and config files (INI style).
 *
 * Lines are "[section]", "name = value", comments starting with '#' or ';', or
 * blank. A section line may end in a comment. In the credentials file every
 * section is a profile of that name; in the config file "[profile NAME]" and
 * "[default]" are profiles and other sections (sso-session, services) are kept
 * out. Setting names are case-insensitive; later settings win. An indented
 * line after a setting continues it (nested settings such as "s3 =") and is
 * not read. Values are never shown in errors: they may be secrets. */
#ifndef SM_PROFILE_H
#define SM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

enum profile_error {
    PROFILE_OK = 0,
    PROFILE_ERR_NOMEM = -1,
    PROFILE_ERR_SYNTAX = -2, /* a malformed line: err says "FILE:LINE: ..." */
    PROFILE_ERR_READ = -3,   /* the file exists but cannot be read */
};

enum profile_kind {
    PROFILE_CREDENTIALS, /* "[name]" */
    PROFILE_CONFIG,      /* "[profile name]", "[default]" */
};

struct profile_file;

/* Parses text (len bytes, copied) read from path (used in errors only) into a
 * new profile_file the caller frees. On error *out is NULL and err holds one line. */
__attribute__((warn_unused_result)) int profile_parse(const char *text, size_t len,
                                                      const char *path, enum profile_kind kind,
                                                      struct profile_file **out, struct buf *err);

/* Reads and parses the file at path. A missing file gives an empty profile_file. */
__attribute__((warn_unused_result)) int profile_load(const char *path, enum profile_kind kind,
                                                     struct profile_file **out, struct buf *err);

/* Wipes the values and frees f; NULL is fine. */
void profile_free(struct profile_file *f);

/* The value of key (lower case) in profile, or NULL. Valid until profile_free. */
const char *profile_get(const struct profile_file *f, const char *profile, const char *key);

/* Whether the file has a section for profile (even an empty one). */
bool profile_exists(const struct profile_file *f, const char *profile);

#endif
