#include "mcp_schema.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum mcp_schema_node_type {
    MCP_SCHEMA_T_OBJECT,
    MCP_SCHEMA_T_STRING,
    MCP_SCHEMA_T_INTEGER,
    MCP_SCHEMA_T_NUMBER,
    MCP_SCHEMA_T_BOOLEAN,
    MCP_SCHEMA_T_ARRAY,
    MCP_SCHEMA_T_NONE
};

static const char *const type_names[] = {"object", "string",  "integer",
                                         "number", "boolean", "array"};

/* Keywords allowed for a type (annotations are allowed everywhere). */
static const char *const type_keywords[][5] = {
    [MCP_SCHEMA_T_OBJECT] = {"properties", "required", "additionalProperties"},
    [MCP_SCHEMA_T_STRING] = {"enum", "minLength", "maxLength", "contentMediaType"},
    [MCP_SCHEMA_T_INTEGER] = {"enum", "minimum", "maximum"},
    [MCP_SCHEMA_T_NUMBER] = {"enum", "minimum", "maximum"},
    [MCP_SCHEMA_T_BOOLEAN] = {0},
    [MCP_SCHEMA_T_ARRAY] = {"items", "minItems", "maxItems"},
};

static const char *const annotations[] = {"type", "description", "title", "default", "examples"};

static enum mcp_schema_node_type mcp_schema_type_of(const cJSON *node) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(node, "type");
    if (!cJSON_IsString(t)) return MCP_SCHEMA_T_NONE;
    for (int i = 0; i < MCP_SCHEMA_T_NONE; i++)
        if (strcmp(t->valuestring, type_names[i]) == 0) return (enum mcp_schema_node_type)i;
    return MCP_SCHEMA_T_NONE;
}

static bool mcp_schema_in_list(const char *s, const char *const *list, size_t n) {
    for (size_t i = 0; i < n && list[i]; i++)
        if (strcmp(s, list[i]) == 0) return true;
    return false;
}

/* A path for messages: "" at the root, else `"a"`, `"a.b"`, `"a[]"`. */
struct mcp_schema_path {
    char text[256];
    size_t len;
};

static size_t mcp_schema_path_push(struct mcp_schema_path *p, const char *sep, const char *name) {
    size_t old = p->len;
    int n = snprintf(p->text + p->len, sizeof p->text - p->len, "%s%s", p->len ? sep : "", name);
    if (n > 0)
        p->len += (size_t)n < sizeof p->text - p->len ? (size_t)n : sizeof p->text - p->len - 1;
    return old;
}

static void mcp_schema_path_pop(struct mcp_schema_path *p, size_t old) {
    p->len = old;
    p->text[old] = '\0';
}

static int mcp_schema_fail(struct buf *err, const struct mcp_schema_path *p, const char *what) {
    buf_reset(err);
    if (buf_addf(err, "schema%s%s%s: %s", p->len ? " node \"" : "", p->text, p->len ? "\"" : "",
                 what))
        return MCP_SCHEMA_ERR_NOMEM;
    return MCP_SCHEMA_ERR_SCHEMA;
}

static bool mcp_schema_is_count(const cJSON *v) {
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble == floor(v->valuedouble) &&
           v->valuedouble <= 1e15;
}

static bool mcp_schema_value_has_type(const cJSON *v, enum mcp_schema_node_type t);

static int mcp_schema_check_node(const cJSON *node, struct mcp_schema_path *p, int depth,
                                 struct buf *err);

static int mcp_schema_check_object(const cJSON *node, struct mcp_schema_path *p, int depth,
                                   struct buf *err) {
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(node, "properties");
    if (props && !cJSON_IsObject(props))
        return mcp_schema_fail(err, p, "properties must be an object");
    const cJSON *prop;
    cJSON_ArrayForEach(prop, props) {
        size_t old = mcp_schema_path_push(p, ".", prop->string);
        int rc = mcp_schema_check_node(prop, p, depth + 1, err);
        if (rc) return rc;
        mcp_schema_path_pop(p, old);
    }
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(node, "required"), *r;
    if (req && !cJSON_IsArray(req)) return mcp_schema_fail(err, p, "required must be an array");
    cJSON_ArrayForEach(r, req) {
        if (!cJSON_IsString(r)) return mcp_schema_fail(err, p, "required must list names");
        if (!cJSON_GetObjectItemCaseSensitive(props, r->valuestring))
            return mcp_schema_fail(err, p, "required names a property that is not declared");
    }
    const cJSON *add = cJSON_GetObjectItemCaseSensitive(node, "additionalProperties");
    if (add && !cJSON_IsBool(add))
        return mcp_schema_fail(err, p, "additionalProperties must be true or false");
    return MCP_SCHEMA_OK;
}

static int mcp_schema_check_limits(const cJSON *node, enum mcp_schema_node_type t,
                                   struct mcp_schema_path *p, struct buf *err) {
    static const char *const counts[] = {"minLength", "maxLength", "minItems", "maxItems"};
    for (size_t i = 0; i < 4; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(node, counts[i]);
        if (v && !mcp_schema_is_count(v))
            return mcp_schema_fail(err, p, "a length limit must be a count");
    }
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(node, "minimum");
    const cJSON *hi = cJSON_GetObjectItemCaseSensitive(node, "maximum");
    if ((lo && !cJSON_IsNumber(lo)) || (hi && !cJSON_IsNumber(hi)))
        return mcp_schema_fail(err, p, "minimum and maximum must be numbers");
    const cJSON *media = cJSON_GetObjectItemCaseSensitive(node, "contentMediaType");
    if (media && (!cJSON_IsString(media) || strcmp(media->valuestring, "text/plain") != 0))
        return mcp_schema_fail(err, p, "contentMediaType must be \"text/plain\"");
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(node, "enum"), *e;
    if (en && (!cJSON_IsArray(en) || !cJSON_GetArraySize(en)))
        return mcp_schema_fail(err, p, "enum must be a non-empty array");
    cJSON_ArrayForEach(e, en) {
        if (!mcp_schema_value_has_type(e, t))
            return mcp_schema_fail(err, p, "an enum value has the wrong type");
    }
    return MCP_SCHEMA_OK;
}

static int mcp_schema_check_node(const cJSON *node, struct mcp_schema_path *p, int depth,
                                 struct buf *err) {
    if (depth >= MCP_SCHEMA_MAX_DEPTH) return mcp_schema_fail(err, p, "nested too deep");
    if (!cJSON_IsObject(node)) return mcp_schema_fail(err, p, "must be an object");
    enum mcp_schema_node_type t = mcp_schema_type_of(node);
    if (t == MCP_SCHEMA_T_NONE)
        return mcp_schema_fail(err, p, "type must be one of the supported types");
    const cJSON *kw;
    cJSON_ArrayForEach(kw, node) {
        if (mcp_schema_in_list(kw->string, annotations, 5) ||
            mcp_schema_in_list(kw->string, type_keywords[t], 5))
            continue;
        buf_reset(err);
        if (buf_addf(err, "schema%s%s%s: keyword \"%s\" is not supported for type %s",
                     p->len ? " node \"" : "", p->text, p->len ? "\"" : "", kw->string,
                     type_names[t]))
            return MCP_SCHEMA_ERR_NOMEM;
        return MCP_SCHEMA_ERR_SCHEMA;
    }
    if (t == MCP_SCHEMA_T_OBJECT) return mcp_schema_check_object(node, p, depth, err);
    if (t == MCP_SCHEMA_T_ARRAY) {
        const cJSON *items = cJSON_GetObjectItemCaseSensitive(node, "items");
        if (items) {
            size_t old = mcp_schema_path_push(p, "", "[]");
            int rc = mcp_schema_check_node(items, p, depth + 1, err);
            if (rc) return rc;
            mcp_schema_path_pop(p, old);
        }
    }
    return mcp_schema_check_limits(node, t, p, err);
}

int mcp_schema_check(const cJSON *schema, struct buf *err) {
    struct mcp_schema_path p = {.len = 0};
    p.text[0] = '\0';
    return mcp_schema_check_node(schema, &p, 0, err);
}

/* ---- validation ---- */

static bool mcp_schema_value_has_type(const cJSON *v, enum mcp_schema_node_type t) {
    switch (t) {
    case MCP_SCHEMA_T_OBJECT:
        return cJSON_IsObject(v);
    case MCP_SCHEMA_T_STRING:
        return cJSON_IsString(v);
    case MCP_SCHEMA_T_INTEGER:
        return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
               v->valuedouble == floor(v->valuedouble);
    case MCP_SCHEMA_T_NUMBER:
        return cJSON_IsNumber(v);
    case MCP_SCHEMA_T_BOOLEAN:
        return cJSON_IsBool(v);
    case MCP_SCHEMA_T_ARRAY:
        return cJSON_IsArray(v);
    default:
        return false;
    }
}

static const char *mcp_schema_value_kind(const cJSON *v) {
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    return "null";
}

static int mcp_schema_invalid(struct buf *err, const struct mcp_schema_path *p, const char *fmt,
                              const char *a, const char *b) {
    buf_reset(err);
    int rc = p->len ? buf_addf(err, "argument \"%s\": ", p->text) : buf_adds(err, "arguments: ");
    if (!rc) rc = buf_addf(err, fmt, a, b);
    return rc ? MCP_SCHEMA_ERR_NOMEM : MCP_SCHEMA_ERR_INVALID;
}

static size_t mcp_schema_utf8_length(const char *s) {
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) n++;
    return n;
}

static int mcp_schema_validate_node(const cJSON *node, const cJSON *v, struct mcp_schema_path *p,
                                    struct buf *err);

/* The first control character of s (NUL as mcp_rpc marks it: C0 80; C0 but
 * TAB, LF and CR when text; DEL; C1), as its code point, and its position in
 * characters from 1; -1 when there is none. */
static long mcp_schema_control_char(const char *s, bool text, size_t *at) {
    const unsigned char *u = (const unsigned char *)s;
    *at = 0;
    for (size_t i = 0; u[i]; i++) {
        if ((u[i] & 0xC0) != 0x80) ++*at;
        unsigned c = u[i];
        if (c == 0xC0 && u[i + 1] == 0x80) return 0;
        if (c == 0xC2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9F) return (long)u[i + 1];
        if (c == 0x7F || (c < 0x20 && !(text && (c == '\t' || c == '\n' || c == '\r'))))
            return (long)c;
    }
    return -1;
}

/* Refuses a string (a value, or a member's name when name) with a control character. */
static int mcp_schema_check_text(const char *s, bool text, bool name,
                                 const struct mcp_schema_path *p, struct buf *err) {
    size_t at;
    long c = mcp_schema_control_char(s, text, &at);
    if (c < 0) return MCP_SCHEMA_OK;
    buf_reset(err);
    int rc = name ? buf_addf(err, "an argument name%s%s", p->len ? " in " : "", p->text)
                  : buf_addf(err, "argument \"%s\"", p->len ? p->text : "");
    if (!rc && c == 0) rc = buf_addf(err, " holds a NUL (U+0000) at character %zu", at);
    if (!rc && c)
        rc = buf_addf(err, " holds the control character U+%04lX at character %zu", c, at);
    if (!rc)
        rc = buf_addf(err,
                      ": no NUL or other control character (U+0000-U+001F, U+007F-U+009F)%s "
                      "is accepted",
                      text ? " but tab and line breaks" : "");
    return rc ? MCP_SCHEMA_ERR_NOMEM : MCP_SCHEMA_ERR_INVALID;
}

static int mcp_schema_validate_object(const cJSON *node, const cJSON *v, struct mcp_schema_path *p,
                                      struct buf *err) {
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(node, "properties");
    const cJSON *r, *m;
    cJSON_ArrayForEach(m, v) {
        int rc = mcp_schema_check_text(m->string, false, true, p, err);
        if (rc) return rc;
    }
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(node, "required")) {
        if (cJSON_GetObjectItemCaseSensitive(v, r->valuestring)) continue;
        buf_reset(err);
        int rc = buf_addf(err, "missing required argument \"%s%s%s\"", p->text, p->len ? "." : "",
                          r->valuestring);
        return rc ? MCP_SCHEMA_ERR_NOMEM : MCP_SCHEMA_ERR_INVALID;
    }
    const cJSON *add = cJSON_GetObjectItemCaseSensitive(node, "additionalProperties");
    cJSON_ArrayForEach(m, v) {
        const cJSON *sub = cJSON_GetObjectItemCaseSensitive(props, m->string);
        size_t old = mcp_schema_path_push(p, ".", m->string);
        if (!sub && cJSON_IsFalse(add)) {
            buf_reset(err);
            int rc = buf_addf(err, "unknown argument \"%s\"", p->text);
            return rc ? MCP_SCHEMA_ERR_NOMEM : MCP_SCHEMA_ERR_INVALID;
        }
        int rc = sub ? mcp_schema_validate_node(sub, m, p, err) : MCP_SCHEMA_OK;
        if (rc) return rc;
        mcp_schema_path_pop(p, old);
    }
    return MCP_SCHEMA_OK;
}

/* Checks n (a value, a length or a count) against the node's limits; what is
 * "value", "characters" or "items" and words the message. */
static int mcp_schema_validate_count(const cJSON *node, const char *lo_kw, const char *hi_kw,
                                     double n, const char *what, const struct mcp_schema_path *p,
                                     struct buf *err) {
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(node, lo_kw);
    const cJSON *hi = cJSON_GetObjectItemCaseSensitive(node, hi_kw);
    bool value = strcmp(what, "value") == 0;
    char lim[64];
    if (lo && n < lo->valuedouble) {
        snprintf(lim, sizeof lim, "%.17g", lo->valuedouble);
        return mcp_schema_invalid(err, p,
                                  value ? "must be at least %s%s" : "must have at least %s %s", lim,
                                  value ? "" : what);
    }
    if (hi && n > hi->valuedouble) {
        snprintf(lim, sizeof lim, "%.17g", hi->valuedouble);
        return mcp_schema_invalid(err, p,
                                  value ? "must be at most %s%s" : "must have at most %s %s", lim,
                                  value ? "" : what);
    }
    return MCP_SCHEMA_OK;
}

static int mcp_schema_validate_enum(const cJSON *node, const cJSON *v,
                                    const struct mcp_schema_path *p, struct buf *err) {
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(node, "enum"), *e;
    if (!en) return MCP_SCHEMA_OK;
    cJSON_ArrayForEach(e, en) {
        if (cJSON_Compare(e, v, 1)) return MCP_SCHEMA_OK;
    }
    char *choices = cJSON_PrintUnformatted(en);
    if (!choices) return MCP_SCHEMA_ERR_NOMEM;
    int rc = mcp_schema_invalid(err, p, "must be one of %s%s", choices, "");
    cJSON_free(choices);
    return rc;
}

static int mcp_schema_validate_array(const cJSON *node, const cJSON *v, struct mcp_schema_path *p,
                                     struct buf *err) {
    int rc = mcp_schema_validate_count(node, "minItems", "maxItems", (double)cJSON_GetArraySize(v),
                                       "items", p, err);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(node, "items"), *e;
    int i = 0;
    cJSON_ArrayForEach(e, v) {
        if (rc || !items) return rc;
        char index[24];
        snprintf(index, sizeof index, "[%d]", i++);
        size_t old = mcp_schema_path_push(p, "", index);
        rc = mcp_schema_validate_node(items, e, p, err);
        mcp_schema_path_pop(p, old);
    }
    return rc;
}

static int mcp_schema_validate_node(const cJSON *node, const cJSON *v, struct mcp_schema_path *p,
                                    struct buf *err) {
    enum mcp_schema_node_type t = mcp_schema_type_of(node);
    if (t == MCP_SCHEMA_T_NONE) return MCP_SCHEMA_ERR_SCHEMA; /* not a checked schema */
    if (!mcp_schema_value_has_type(v, t)) {
        const char *want =
            t == MCP_SCHEMA_T_INTEGER || t == MCP_SCHEMA_T_ARRAY || t == MCP_SCHEMA_T_OBJECT ? "an "
                                                                                             : "a ";
        buf_reset(err);
        int rc =
            p->len ? buf_addf(err, "argument \"%s\": ", p->text) : buf_adds(err, "arguments: ");
        if (!rc)
            rc = buf_addf(err, "expected %s%s, got %s", want, type_names[t],
                          mcp_schema_value_kind(v));
        return rc ? MCP_SCHEMA_ERR_NOMEM : MCP_SCHEMA_ERR_INVALID;
    }
    int rc = MCP_SCHEMA_OK;
    if (t == MCP_SCHEMA_T_STRING) {
        const cJSON *media = cJSON_GetObjectItemCaseSensitive(node, "contentMediaType");
        rc = mcp_schema_check_text(v->valuestring, media != NULL, false, p, err);
    }
    if (!rc) rc = mcp_schema_validate_enum(node, v, p, err);
    if (rc) return rc;
    switch (t) {
    case MCP_SCHEMA_T_OBJECT:
        return mcp_schema_validate_object(node, v, p, err);
    case MCP_SCHEMA_T_STRING:
        return mcp_schema_validate_count(node, "minLength", "maxLength",
                                         (double)mcp_schema_utf8_length(v->valuestring),
                                         "characters", p, err);
    case MCP_SCHEMA_T_INTEGER:
    case MCP_SCHEMA_T_NUMBER:
        return mcp_schema_validate_count(node, "minimum", "maximum", v->valuedouble, "value", p,
                                         err);
    case MCP_SCHEMA_T_ARRAY:
        return mcp_schema_validate_array(node, v, p, err);
    default:
        return MCP_SCHEMA_OK;
    }
}

int mcp_schema_validate(const cJSON *schema, const cJSON *value, struct buf *err) {
    struct mcp_schema_path p = {.len = 0};
    p.text[0] = '\0';
    return mcp_schema_validate_node(schema, value, &p, err);
}

const cJSON *mcp_schema_property(const cJSON *schema, const char *name) {
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schema, "properties"),
                                            name);
}
