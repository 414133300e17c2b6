#include "profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "readall.h"

#define PROFILE_MAX_FILE ((size_t)1024 * 1024)

struct profile_entry {
    const char *profile; /* points into text */
    const char *key;     /* NULL for the section line itself */
    const char *value;
};

struct profile_file {
    char *text; /* a NUL-cut copy of the file: every pointer points into it */
    size_t text_size;
    struct profile_entry *entries;
    size_t n, cap;
};

/* The state of one parse: where we are in the file. */
struct profile_parser {
    struct profile_file *f;
    enum profile_kind kind;
    const char *path;
    size_t line;
    bool in_section;     /* a section line has been seen */
    const char *profile; /* the current profile; NULL in a section that is not one */
    bool after_setting;  /* the previous line was a setting: indented lines continue it */
    struct buf *err;
};

static bool profile_is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Trims white space in place; returns the start. */
static char *profile_strip(char *s) {
    while (profile_is_space(*s)) s++;
    size_t n = strlen(s);
    while (n && profile_is_space(s[n - 1])) s[--n] = '\0';
    return s;
}

static int profile_syntax(struct profile_parser *ps, const char *what) {
    buf_reset(ps->err);
    return buf_addf(ps->err, "%s:%zu: %s", ps->path, ps->line, what) ? PROFILE_ERR_NOMEM
                                                                     : PROFILE_ERR_SYNTAX;
}

static int profile_add(struct profile_file *f, const char *profile, const char *key,
                       const char *value) {
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        struct profile_entry *e = realloc(f->entries, cap * sizeof *e);
        if (!e) return PROFILE_ERR_NOMEM;
        f->entries = e;
        f->cap = cap;
    }
    f->entries[f->n++] = (struct profile_entry){profile, key, value};
    return PROFILE_OK;
}

/* Maps a section name to its profile name (NULL: not a profile) for the file kind. */
static int profile_section_name(struct profile_parser *ps, char *name, const char **profile) {
    *profile = name;
    if (ps->kind == PROFILE_CREDENTIALS || strcmp(name, "default") == 0) return PROFILE_OK;
    *profile = NULL;
    if (strncmp(name, "profile", 7) != 0) return PROFILE_OK;
    if (name[7] && !profile_is_space(name[7])) return PROFILE_OK;
    *profile = profile_strip(name + 7);
    return **profile ? PROFILE_OK : profile_syntax(ps, "'[profile]' without a name");
}

static int profile_section(struct profile_parser *ps, char *line) {
    char *close = strchr(line, ']');
    if (!close) return profile_syntax(ps, "section line without ']'");
    *close = '\0';
    char *rest = profile_strip(close + 1);
    if (*rest && *rest != '#' && *rest != ';') return profile_syntax(ps, "text after ']'");
    char *name = profile_strip(line + 1);
    if (!*name) return profile_syntax(ps, "empty section name '[]'");
    int rc = profile_section_name(ps, name, &ps->profile);
    ps->in_section = true;
    ps->after_setting = false;
    if (!rc && ps->profile) rc = profile_add(ps->f, ps->profile, NULL, NULL);
    return rc;
}

static int profile_setting(struct profile_parser *ps, char *line) {
    char *eq = strchr(line, '=');
    if (!eq) return profile_syntax(ps, "expected 'name = value', '[section]' or a comment");
    if (!ps->in_section) return profile_syntax(ps, "setting before the first [section]");
    *eq = '\0';
    char *key = profile_strip(line);
    if (!*key) return profile_syntax(ps, "setting without a name before '='");
    for (char *k = key; *k; k++)
        if (*k >= 'A' && *k <= 'Z') *k = (char)(*k - 'A' + 'a');
    ps->after_setting = true;
    return ps->profile ? profile_add(ps->f, ps->profile, key, profile_strip(eq + 1)) : PROFILE_OK;
}

static int profile_line(struct profile_parser *ps, char *raw) {
    bool indented = profile_is_space(raw[0]);
    char *line = profile_strip(raw);
    if (!*line || *line == '#' || *line == ';') return PROFILE_OK;
    if (indented && ps->after_setting) return PROFILE_OK;
    return *line == '[' ? profile_section(ps, line) : profile_setting(ps, line);
}

void profile_free(struct profile_file *f) {
    if (!f) return;
    if (f->text) OPENSSL_cleanse(f->text, f->text_size);
    free(f->text);
    free(f->entries);
    free(f);
}

int profile_parse(const char *text, size_t len, const char *path, enum profile_kind kind,
                  struct profile_file **out, struct buf *err) {
    struct profile_file *f = calloc(1, sizeof *f);
    int rc = f ? PROFILE_OK : PROFILE_ERR_NOMEM;
    *out = NULL;
    if (!rc && !(f->text = malloc(len + 1))) rc = PROFILE_ERR_NOMEM;
    if (rc) goto done;
    f->text_size = len + 1;
    if (len) memcpy(f->text, text, len);
    f->text[len] = '\0';
    struct profile_parser ps = {.f = f, .kind = kind, .path = path, .err = err};
    if (strlen(f->text) < len) { /* a NUL byte: name its line */
        ps.line = 1;
        for (const char *p = f->text; *p; p++) ps.line += *p == '\n';
        rc = profile_syntax(&ps, "NUL byte in the file");
    }
    for (char *p = f->text; !rc && *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        ps.line++;
        rc = profile_line(&ps, p);
        p = nl ? nl + 1 : p + strlen(p);
    }
done:
    if (rc == PROFILE_ERR_NOMEM) {
        buf_reset(err);
        if (buf_addf(err, "%s: out of memory", path)) rc = PROFILE_ERR_NOMEM;
    }
    if (rc)
        profile_free(f);
    else
        *out = f;
    return rc;
}

int profile_load(const char *path, enum profile_kind kind, struct profile_file **out,
                 struct buf *err) {
    struct buf text;
    buf_init(&text, PROFILE_MAX_FILE);
    int rc = readall_path(path, &text), ret;
    if (rc == ENOENT || rc == ENOTDIR) {
        ret = profile_parse("", 0, path, kind, out, err);
    } else if (rc) {
        *out = NULL;
        buf_reset(err);
        ret = buf_addf(err, "%s: %s", path,
                       rc == BUF_ERR_CAP     ? "larger than 1 MiB"
                       : rc == BUF_ERR_NOMEM ? "out of memory"
                                             : strerror(rc))
                  ? PROFILE_ERR_NOMEM
                  : PROFILE_ERR_READ;
    } else {
        ret = profile_parse(buf_str(&text), text.len, path, kind, out, err);
    }
    buf_free_secret(&text);
    return ret;
}

const char *profile_get(const struct profile_file *f, const char *profile, const char *key) {
    const char *value = NULL;
    for (size_t i = 0; f && i < f->n; i++) {
        const struct profile_entry *e = &f->entries[i];
        if (e->key && strcmp(e->key, key) == 0 && strcmp(e->profile, profile) == 0)
            value = e->value;
    }
    return value;
}

bool profile_exists(const struct profile_file *f, const char *profile) {
    for (size_t i = 0; f && i < f->n; i++)
        if (strcmp(f->entries[i].profile, profile) == 0) return true;
    return false;
}
