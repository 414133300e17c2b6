#include "cptag.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpreq.h"
#include "jsonw.h"

#define CPTAG_PATTERN "^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$"

void cptag_free(struct cptag_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->key[i]);
        free(l->value[i]);
    }
    l->n = 0;
}

_Static_assert((int)CPTAG_ERR_VALIDATION == (int)CPREQ_ERR_VALIDATION,
               "cpreq_invalid's code is ours");

/* Letters (any byte of a UTF-8 sequence), digits, spaces and _.:/=+-@. */
static bool cptag_text_ok(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!(*p >= 0x80 || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr(" _.:/=+-@", *p)))
            return false;
    return true;
}

/* Checks one tag's key and value; field is "tags.N.member". */
static int cptag_check(const char *key, const char *value, size_t i, struct buf *err) {
    char field[64];
    snprintf(field, sizeof field, "tags.%zu.member.key", i + 1);
    size_t n = strlen(key);
    if (n < 1 || n > CPTAG_KEY_MAX)
        return cpreq_invalid(err, field, key,
                             n < 1 ? "Member must have length greater than or equal to 1"
                                   : "Member must have length less than or equal to 128");
    if (!cptag_text_ok(key))
        return cpreq_invalid(err, field, key,
                             "Member must satisfy regular expression pattern: " CPTAG_PATTERN);
    if (strncmp(key, "aws:", 4) == 0)
        return buf_fail(err, CPTAG_ERR_VALIDATION,
                        "Tag keys beginning with 'aws:' are reserved for system use (tag '%.200s')",
                        key);
    snprintf(field, sizeof field, "tags.%zu.member.value", i + 1);
    if (strlen(value) > CPTAG_VALUE_MAX)
        return cpreq_invalid(err, field, value,
                             "Member must have length less than or equal to 256");
    if (!cptag_text_ok(value))
        return cpreq_invalid(err, field, value,
                             "Member must satisfy regular expression pattern: " CPTAG_PATTERN);
    return CPTAG_OK;
}

/* Sets key to value in l (replacing a value it holds); the strings are copied. */
static int cptag_set(struct cptag_list *l, const char *key, const char *value) {
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->key[i], key) == 0) {
            char *v = strdup(value);
            if (!v) return CPTAG_ERR_NOMEM;
            free(l->value[i]);
            l->value[i] = v;
            return CPTAG_OK;
        }
    if (l->n == CPTAG_MAX) return CPTAG_ERR_VALIDATION;
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return CPTAG_ERR_NOMEM;
    }
    l->key[l->n] = k;
    l->value[l->n++] = v;
    return CPTAG_OK;
}

int cptag_read(const cJSON *req, struct cptag_list *l, struct buf *err) {
    const cJSON *tags = cJSON_GetObjectItemCaseSensitive(req, "Tags"), *t;
    cptag_free(l);
    if (!tags || cJSON_IsNull(tags)) return CPTAG_OK;
    if (!cJSON_IsArray(tags))
        return buf_fail(err, CPTAG_ERR_SERIALIZATION, "Tags: expected a list");
    if (cJSON_GetArraySize(tags) > CPTAG_MAX)
        return cpreq_invalid(err, "tags", "[...]",
                             "Member must have length less than or equal to 50");
    size_t i = 0;
    int rc = CPTAG_OK;
    cJSON_ArrayForEach(t, tags) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(t, "Key");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, "Value");
        const char *key = cJSON_GetStringValue(k), *value = cJSON_GetStringValue(v);
        char field[64];
        snprintf(field, sizeof field, "tags.%zu.member.key", i + 1);
        if (!cJSON_IsObject(t) || (k && !cJSON_IsNull(k) && !cJSON_IsString(k)) ||
            (v && !cJSON_IsNull(v) && !cJSON_IsString(v)))
            rc = buf_fail(err, CPTAG_ERR_SERIALIZATION,
                          "Tags: expected a list of {\"Key\": string, \"Value\": string}");
        else if (!key)
            rc = cpreq_invalid(err, field, NULL, NULL);
        if (!value) value = "";
        if (!rc && key) rc = cptag_check(key, value, i, err);
        if (!rc && key && cptag_set(l, key, value)) rc = CPTAG_ERR_NOMEM;
        if (rc) break;
        i++;
    }
    if (rc) cptag_free(l);
    return rc;
}

int cptag_merge(struct cptag_list *dst, struct cptag_list *src, struct buf *err) {
    size_t add = 0;
    for (size_t i = 0; i < src->n; i++) {
        bool held = false;
        for (size_t j = 0; j < dst->n; j++) held |= strcmp(dst->key[j], src->key[i]) == 0;
        add += !held;
    }
    if (dst->n + add > CPTAG_MAX)
        return buf_fail(err, CPTAG_ERR_VALIDATION,
                        "The resource would have %zu tags: a resource has at most %d", dst->n + add,
                        CPTAG_MAX);
    int rc = CPTAG_OK;
    for (size_t i = 0; !rc && i < src->n; i++) rc = cptag_set(dst, src->key[i], src->value[i]);
    cptag_free(src);
    return rc;
}

int cptag_delete(const cJSON *req, struct cptag_list *l, struct buf *err) {
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(req, "TagKeys"), *k;
    if (!keys || cJSON_IsNull(keys)) return cpreq_invalid(err, "tagKeys", NULL, NULL);
    if (!cJSON_IsArray(keys))
        return buf_fail(err, CPTAG_ERR_SERIALIZATION, "TagKeys: expected a list");
    int n = cJSON_GetArraySize(keys);
    if (n < 1 || n > CPTAG_MAX)
        return cpreq_invalid(err, "tagKeys", "[...]",
                             n < 1 ? "Member must have length greater than or equal to 1"
                                   : "Member must have length less than or equal to 50");
    cJSON_ArrayForEach(k, keys) {
        if (!cJSON_IsString(k))
            return buf_fail(err, CPTAG_ERR_SERIALIZATION, "TagKeys: expected a list of strings");
        size_t len = strlen(k->valuestring);
        if (len < 1 || len > CPTAG_KEY_MAX)
            return cpreq_invalid(err, "tagKeys", k->valuestring,
                                 "Member must have length from 1 to 128");
    }
    cJSON_ArrayForEach(k, keys) {
        for (size_t i = 0; i < l->n; i++) {
            if (strcmp(l->key[i], k->valuestring) != 0) continue;
            free(l->key[i]);
            free(l->value[i]);
            memmove(&l->key[i], &l->key[i + 1], (l->n - i - 1) * sizeof l->key[0]);
            memmove(&l->value[i], &l->value[i + 1], (l->n - i - 1) * sizeof l->value[0]);
            l->n--;
            break;
        }
    }
    return CPTAG_OK;
}

int cptag_page(const cJSON *req, long *start, long *max, struct buf *err) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(req, "MaxResults");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(req, "NextToken");
    *start = 0;
    *max = CPTAG_PAGE_MIN;
    if (m && !cJSON_IsNull(m)) {
        if (!cJSON_IsNumber(m) || m->valuedouble != floor(m->valuedouble) ||
            fabs(m->valuedouble) > 2147483647.0)
            return buf_fail(err, CPTAG_ERR_SERIALIZATION, "MaxResults: expected an integer");
        char num[32];
        snprintf(num, sizeof num, "%ld", (long)m->valuedouble);
        if (m->valuedouble < CPTAG_PAGE_MIN)
            return cpreq_invalid(err, "maxResults", num,
                                 "Member must have value greater than or equal to 50");
        *max = (long)m->valuedouble;
    }
    if (!t || cJSON_IsNull(t)) return CPTAG_OK;
    if (!cJSON_IsString(t))
        return buf_fail(err, CPTAG_ERR_SERIALIZATION, "NextToken: expected a string");
    char *end;
    errno = 0;
    long s = t->valuestring[0] == 'g' ? strtol(t->valuestring + 1, &end, 10) : -1;
    if (s < 1 || s > CPTAG_MAX || errno || *end)
        return buf_fail(err, CPTAG_ERR_VALIDATION, "Invalid pagination token");
    *start = s;
    return CPTAG_OK;
}

int cptag_json(struct buf *out, const struct cptag_list *l, long start, long max) {
    int rc = buf_adds(out, "\"Tags\":[");
    long i = start;
    for (; !rc && i < (long)l->n && i - start < max; i++) {
        if (i > start) rc = buf_addc(out, ',');
        if (!rc) rc = buf_adds(out, "{\"Key\":");
        if (!rc) rc = jsonw_cstr(out, l->key[i]);
        if (!rc) rc = buf_adds(out, ",\"Value\":");
        if (!rc) rc = jsonw_cstr(out, l->value[i]);
        if (!rc) rc = buf_addc(out, '}');
    }
    if (!rc) rc = buf_addc(out, ']');
    if (!rc && i < (long)l->n) rc = buf_addf(out, ",\"NextToken\":\"g%ld\"", i);
    return rc;
}

/* Copies the n bytes at s into out (CPTAG_PART_MAX): false when they do not fit or are none. */
static bool cptag_part(const char *s, size_t n, char out[CPTAG_PART_MAX]) {
    if (n == 0 || n >= CPTAG_PART_MAX) return false;
    memcpy(out, s, n);
    out[n] = '\0';
    return true;
}

int cptag_resource(const cJSON *req, struct cptag_arn *a, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, "ResourceArn");
    if (!v || cJSON_IsNull(v)) return cpreq_invalid(err, "resourceArn", NULL, NULL);
    if (!cJSON_IsString(v))
        return buf_fail(err, CPTAG_ERR_SERIALIZATION, "ResourceArn: expected a string");
    const char *s = v->valuestring, *p = s + 7;
    memset(a, 0, sizeof *a);
    bool ok = strlen(s) <= CPTAG_ARN_MAX && strncmp(s, "arn:aws", 7) == 0;
    while (ok && ((*p >= 'a' && *p <= 'z') || *p == '-')) p++;
    ok = ok && strncmp(p, ":sagemaker:", 11) == 0;
    const char *region = p + 11, *account = ok ? strchr(region, ':') : NULL;
    const char *type = account ? strchr(account + 1, ':') : NULL;
    const char *name = type ? strchr(type + 1, '/') : NULL;
    ok = name && cptag_part(region, (size_t)(account - region), a->region) &&
         cptag_part(account + 1, (size_t)(type - account - 1), a->account) &&
         cptag_part(type + 1, (size_t)(name - type - 1), a->type) &&
         cptag_part(name + 1, strlen(name + 1), a->name) && strlen(a->account) == 12 &&
         strspn(a->account, "0123456789") == 12;
    if (!ok)
        return cpreq_invalid(err, "resourceArn", s,
                             "Member must satisfy regular expression pattern: "
                             "arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:.+");
    return CPTAG_OK;
}
