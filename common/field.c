#include "field.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD_SHOWN 60 /* bytes of a bad value shown in a message */

/* The value as JSON, cut to FIELD_SHOWN bytes with "...". */
static void field_show(const cJSON *v, char *out, size_t cap) {
    char *text = cJSON_PrintUnformatted(v);
    if (!text) {
        snprintf(out, cap, "(a value)");
        return;
    }
    if (strlen(text) > FIELD_SHOWN)
        snprintf(out, cap, "%.*s...", FIELD_SHOWN, text);
    else
        snprintf(out, cap, "%s", text);
    free(text);
}

/* What the rule's types are, for a message ("a string or null"). */
static void field_expected(unsigned types, char *out, size_t cap) {
    static const struct {
        unsigned type;
        const char *name;
    } names[] = {{FIELD_STR, "a string"},       {FIELD_NUM, "a number"},
                 {FIELD_INT, "a whole number"}, {FIELD_BOOL, "true or false"},
                 {FIELD_OBJ, "an object"},      {FIELD_ARR, "an array"},
                 {FIELD_NULL, "null"}};
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0] && k < cap; i++)
        if (types & names[i].type)
            k += (size_t)snprintf(out + k, cap - k, "%s%s", k ? " or " : "", names[i].name);
}

/* 1 when v has one of the types (numbers still to be range-checked), else 0. */
static int field_type_ok(const cJSON *v, unsigned types) {
    if (cJSON_IsString(v)) return (types & FIELD_STR) != 0;
    if (cJSON_IsNumber(v)) {
        if (types & FIELD_NUM) return 1;
        return (types & FIELD_INT) && v->valuedouble == floor(v->valuedouble);
    }
    if (cJSON_IsBool(v)) return (types & FIELD_BOOL) != 0;
    if (cJSON_IsObject(v)) return (types & FIELD_OBJ) != 0;
    if (cJSON_IsArray(v)) return (types & FIELD_ARR) != 0;
    if (cJSON_IsNull(v)) return (types & FIELD_NULL) != 0;
    return 0;
}

int field_check_value(const cJSON *v, const struct field_rule *rule, const char *path,
                      const char *name, struct buf *err) {
    char shown[FIELD_SHOWN + 8], want[120];
    if (!field_type_ok(v, rule->types)) {
        field_show(v, shown, sizeof shown);
        field_expected(rule->types, want, sizeof want);
        return buf_fail(err, FIELD_ERR_INPUT, "%s: %s: %s is not %s", path, name, shown, want);
    }
    if (cJSON_IsNumber(v) && (rule->types & (FIELD_NUM | FIELD_INT)) &&
        !(v->valuedouble >= rule->lo && v->valuedouble <= rule->hi)) {
        field_show(v, shown, sizeof shown);
        return buf_fail(err, FIELD_ERR_INPUT, "%s: %s: %s is out of range (%g to %g)", path, name,
                        shown, rule->lo, rule->hi);
    }
    return FIELD_OK;
}

int field_check(const cJSON *obj, const struct field_rule *rules, size_t n, const char *path,
                const char *prefix, struct buf *err) {
    char name[160];
    for (size_t i = 0; i < n; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, rules[i].key);
        if (!v) continue;
        snprintf(name, sizeof name, "%s%s", prefix, rules[i].key);
        int rc = field_check_value(v, &rules[i], path, name, err);
        if (rc < 0) return rc;
    }
    return FIELD_OK;
}
