#include "suite_spec.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUITE_SPEC_TEXT_MAX 4096 /* an arg, a help text or a default */

static const char *const suite_spec_types[] = {"string", "int",  "number",
                                               "bool",   "ints", "numbers"};

const char *suite_spec_type_name(enum suite_spec_type t) {
    return suite_spec_types[t];
}

/* "--" then a lower-case letter or digit, then those and '-'. */
static bool suite_spec_name_ok(const char *s) {
    size_t n = strlen(s);
    return n > 2 && n < SUITE_SPEC_NAME_MAX && strncmp(s, "--", 2) == 0 && s[2] != '-' &&
           strspn(s + 2, "abcdefghijklmnopqrstuvwxyz0123456789-") == n - 2;
}

/* A number as a scenario would print it back: whole numbers without a point. */
static int suite_spec_number_text(double v, struct buf *out) {
    if (fabs(v) < 1e15 && v == floor(v)) return buf_addf(out, "%.0f", v);
    return buf_addf(out, "%.17g", v);
}

/* The default as a value the option takes, into *out: NULL for none, and for
 * what no value spells (an object, an empty list, a text past the cap). */
static int suite_spec_default(const cJSON *d, char **out) {
    struct buf b;
    int rc = BUF_OK;
    *out = NULL;
    buf_init(&b, SUITE_SPEC_TEXT_MAX);
    if (cJSON_IsString(d)) {
        rc = buf_adds(&b, d->valuestring);
    } else if (cJSON_IsNumber(d)) {
        rc = suite_spec_number_text(d->valuedouble, &b);
    } else if (cJSON_IsArray(d)) {
        const cJSON *e;
        cJSON_ArrayForEach(e, d) {
            if (rc == BUF_OK && !cJSON_IsNumber(e)) rc = BUF_ERR_CAP;
            if (rc == BUF_OK && b.len) rc = buf_addc(&b, ',');
            if (rc == BUF_OK) rc = suite_spec_number_text(e->valuedouble, &b);
        }
    } else {
        rc = BUF_ERR_CAP;
    }
    if (rc == BUF_OK && (b.len > 0 || cJSON_IsString(d)) && !(*out = buf_take(&b)))
        rc = BUF_ERR_NOMEM;
    buf_free(&b);
    return rc == BUF_ERR_NOMEM ? SUITE_SPEC_ERR_NOMEM : SUITE_SPEC_OK;
}

/* A string member that may be absent or null: a copy, or NULL. False when it is
 * something else or too long, or out of memory (*nomem). */
static bool suite_spec_text(const cJSON *o, const char *key, char **out, bool *nomem) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NULL;
    if (!v || cJSON_IsNull(v)) return true;
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= SUITE_SPEC_TEXT_MAX) return false;
    *out = strdup(v->valuestring);
    *nomem = !*out;
    return *out != NULL;
}

static int suite_spec_type_of(const cJSON *v, enum suite_spec_type *t) {
    for (size_t i = 0;
         cJSON_IsString(v) && i < sizeof suite_spec_types / sizeof suite_spec_types[0]; i++)
        if (strcmp(v->valuestring, suite_spec_types[i]) == 0) {
            *t = (enum suite_spec_type)i;
            return SUITE_SPEC_OK;
        }
    return SUITE_SPEC_ERR_FORMAT;
}

/* One entry of "options" into o; the message names the entry by its index. */
static int suite_spec_option(const cJSON *e, size_t i, struct suite_spec_opt *o, struct buf *err) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
    const cJSON *many = cJSON_GetObjectItemCaseSensitive(e, "many");
    const cJSON *min = cJSON_GetObjectItemCaseSensitive(e, "min");
    bool nomem = false;
    if (!cJSON_IsString(name) || !suite_spec_name_ok(name->valuestring))
        return buf_fail(err, SUITE_SPEC_ERR_FORMAT,
                        "option %zu: \"name\" is not an option name such as --max-tokens", i + 1);
    if (!(o->name = strdup(name->valuestring))) return SUITE_SPEC_ERR_NOMEM;
    if (suite_spec_type_of(cJSON_GetObjectItemCaseSensitive(e, "type"), &o->type) < 0)
        return buf_fail(err, SUITE_SPEC_ERR_FORMAT,
                        "%s: \"type\" is not one of string, int, number, bool, ints, numbers",
                        o->name);
    if (many && !cJSON_IsBool(many) && !cJSON_IsNull(many))
        return buf_fail(err, SUITE_SPEC_ERR_FORMAT, "%s: \"many\" is not true or false", o->name);
    o->many = cJSON_IsTrue(many);
    if (min && !cJSON_IsNull(min) && !(cJSON_IsNumber(min) && isfinite(min->valuedouble)))
        return buf_fail(err, SUITE_SPEC_ERR_FORMAT, "%s: \"min\" is not a number", o->name);
    o->has_min = min && cJSON_IsNumber(min);
    o->min = min && o->has_min ? min->valuedouble : 0;
    if (!suite_spec_text(e, "arg", &o->arg, &nomem) ||
        !suite_spec_text(e, "help", &o->help, &nomem))
        return nomem ? SUITE_SPEC_ERR_NOMEM
                     : buf_fail(err, SUITE_SPEC_ERR_FORMAT,
                                "%s: \"arg\" and \"help\" must be text (or null)", o->name);
    if (o->type == SUITE_SPEC_BOOL) return SUITE_SPEC_OK;
    return suite_spec_default(cJSON_GetObjectItemCaseSensitive(e, "default"), &o->dflt);
}

/* The header: the format, the version and the scenario's name. */
static int suite_spec_header(const cJSON *root, struct suite_spec *s, struct buf *err) {
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(root, "version");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "scenario");
    if (!cJSON_IsString(format) || strcmp(format->valuestring, SUITE_SPEC_FORMAT) != 0)
        return buf_fail(err, SUITE_SPEC_ERR_FORMAT, "not a list of options (%s)",
                        SUITE_SPEC_FORMAT);
    if (!cJSON_IsNumber(version) || version->valuedouble != 1)
        return buf_fail(err, SUITE_SPEC_ERR_FORMAT, "options of another version than 1");
    if (!cJSON_IsString(name) || !name->valuestring[0] ||
        strlen(name->valuestring) >= SUITE_SPEC_NAME_MAX ||
        strspn(name->valuestring, "abcdefghijklmnopqrstuvwxyz0123456789_-") !=
            strlen(name->valuestring))
        return buf_fail(err, SUITE_SPEC_ERR_FORMAT, "\"scenario\" is not a scenario's name");
    s->scenario = strdup(name->valuestring);
    return s->scenario ? SUITE_SPEC_OK : SUITE_SPEC_ERR_NOMEM;
}

static int suite_spec_options(const cJSON *list, struct suite_spec *s, struct buf *err) {
    int n = cJSON_GetArraySize(list);
    if (!cJSON_IsArray(list) || n > SUITE_SPEC_MAX_OPTIONS)
        return buf_fail(err, SUITE_SPEC_ERR_FORMAT, "\"options\" is not a list of at most %d",
                        SUITE_SPEC_MAX_OPTIONS);
    s->opts = calloc(n ? (size_t)n : 1, sizeof *s->opts);
    if (!s->opts) return SUITE_SPEC_ERR_NOMEM;
    const cJSON *e;
    for (e = list->child; e && s->n < (size_t)n; e = e->next) {
        struct suite_spec_opt *o = &s->opts[s->n++];
        int rc = cJSON_IsObject(e)
                     ? suite_spec_option(e, s->n - 1, o, err)
                     : buf_fail(err, SUITE_SPEC_ERR_FORMAT, "option %zu is not an object", s->n);
        if (rc < 0) return rc;
        for (size_t k = 0; k + 1 < s->n && o->name; k++)
            if (s->opts[k].name && strcmp(s->opts[k].name, o->name) == 0)
                return buf_fail(err, SUITE_SPEC_ERR_FORMAT, "%s is there twice", o->name);
    }
    return SUITE_SPEC_OK;
}

int suite_spec_parse(const char *text, size_t len, struct suite_spec *s, struct buf *err) {
    memset(s, 0, sizeof *s);
    if (len > SUITE_SPEC_MAX_BYTES)
        return buf_fail(err, SUITE_SPEC_ERR_FORMAT, "the list of options is larger than %zu bytes",
                        SUITE_SPEC_MAX_BYTES);
    cJSON *root = cJSON_ParseWithLength(text, len);
    int rc = root ? suite_spec_header(root, s, err)
                  : buf_fail(err, SUITE_SPEC_ERR_FORMAT, "the list of options is not JSON");
    if (rc == SUITE_SPEC_OK)
        rc = suite_spec_options(cJSON_GetObjectItemCaseSensitive(root, "options"), s, err);
    cJSON_Delete(root);
    if (rc == SUITE_SPEC_ERR_NOMEM) buf_fail(err, rc, "out of memory");
    return rc;
}

void suite_spec_free(struct suite_spec *s) {
    for (size_t i = 0; i < s->n; i++) {
        free(s->opts[i].name);
        free(s->opts[i].arg);
        free(s->opts[i].help);
        free(s->opts[i].dflt);
    }
    free(s->opts);
    free(s->scenario);
    memset(s, 0, sizeof *s);
}

const struct suite_spec_opt *suite_spec_find(const struct suite_spec *s, const char *name) {
    for (size_t i = 0; s && i < s->n; i++)
        if (strcmp(s->opts[i].name, name) == 0) return &s->opts[i];
    return NULL;
}

/* A decimal number, all of text (no hex, no inf or nan, no white space). */
static bool suite_spec_number(const char *text, double *out) {
    char *end;
    if (!*text || strchr("+-.0123456789", *text) == NULL || strpbrk(text, "xXnNiI")) return false;
    *out = strtod(text, &end);
    return *end == '\0' && isfinite(*out);
}

/* Numbers separated by commas: whole ones >= 1, or any > 0. */
static bool suite_spec_list(const char *text, bool whole) {
    for (const char *p = text;;) {
        size_t k = strcspn(p, ",");
        char part[64];
        double v;
        if (k == 0 || k >= sizeof part) return false;
        memcpy(part, p, k);
        part[k] = '\0';
        if (!suite_spec_number(part, &v) || (whole ? v != floor(v) || v < 1 : !(v > 0)))
            return false;
        if (!p[k]) return true;
        p += k + 1;
    }
}

int suite_spec_check(const struct suite_spec_opt *o, const char *given, const char *value,
                     struct buf *err) {
    double v;
    double min = o->has_min ? o->min : 0;
    switch (o->type) {
    case SUITE_SPEC_STRING:
        if (*value) return SUITE_SPEC_OK;
        return buf_fail(err, SUITE_SPEC_ERR_VALUE, "--%s wants a value", given);
    case SUITE_SPEC_INT:
        if (suite_spec_number(value, &v) && v == floor(v) && v >= min) return SUITE_SPEC_OK;
        return buf_fail(err, SUITE_SPEC_ERR_VALUE, "--%s wants a whole number >= %g, got '%s'",
                        given, min, value);
    case SUITE_SPEC_NUMBER:
        if (suite_spec_number(value, &v) && (o->has_min ? v >= min : v > 0)) return SUITE_SPEC_OK;
        return buf_fail(err, SUITE_SPEC_ERR_VALUE, "--%s wants a number %s %g, got '%s'", given,
                        o->has_min ? ">=" : ">", min, value);
    case SUITE_SPEC_INTS:
        if (suite_spec_list(value, true)) return SUITE_SPEC_OK;
        return buf_fail(err, SUITE_SPEC_ERR_VALUE,
                        "--%s wants whole numbers >= 1 separated by commas, got '%s'", given,
                        value);
    case SUITE_SPEC_NUMBERS:
        if (suite_spec_list(value, false)) return SUITE_SPEC_OK;
        return buf_fail(err, SUITE_SPEC_ERR_VALUE,
                        "--%s wants numbers > 0 separated by commas, got '%s'", given, value);
    case SUITE_SPEC_BOOL:
        break;
    }
    return buf_fail(err, SUITE_SPEC_ERR_VALUE, "--%s takes no value", given);
}
