#include "cpconf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readall.h"

#define CPCONF_FILE_MAX ((size_t)1 << 20)
#define CPCONF_TIME_MAX 1e7
#define CPCONF_NUM_MAX  1000000L

static const struct cpconf_model cpconf_builtin_models[] = {
    {"google/gemma-4-E2B-it", "bf16-l4"},
    {"google/gemma-4-E2B-it-qat-w4a16-ct", "qat-l4"},
};

static bool cpconf_region_ok(const char *s, size_t n) {
    if (n == 0 || n >= CPCONF_REGION_MAX) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

bool cpconf_type_ok(const char *s) {
    size_t n = strlen(s);
    if (n < 4 || n >= CPCONF_TYPE_MAX || strncmp(s, "ml.", 3) != 0) return false;
    for (size_t i = 3; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
            return false;
    return true;
}

void cpconf_init(struct cpconf *c, const char *region) {
    memset(c, 0, sizeof *c);
    snprintf(c->regions[0], sizeof c->regions[0], "%s", region);
    c->n_regions = 1;
    c->create_s = 594;
    c->capacity_wait_s = 1800;
    c->delete_s = 10;
    c->default_quota = 2;
    memcpy(c->models, cpconf_builtin_models, sizeof cpconf_builtin_models);
    c->n_models = sizeof cpconf_builtin_models / sizeof cpconf_builtin_models[0];
}

bool cpconf_serves(const struct cpconf *c, const char *region, size_t len) {
    for (size_t i = 0; i < c->n_regions; i++)
        if (strlen(c->regions[i]) == len && memcmp(c->regions[i], region, len) == 0) return true;
    return false;
}

/* Adds a served region (what names it names it in messages). */
static int cpconf_add_region(struct cpconf *c, const char *what, const char *r, size_t n,
                             struct buf *err) {
    if (!cpconf_region_ok(r, n))
        return buf_fail(err, CPCONF_ERR_INVALID,
                        "%s: '%.*s' is not a region name such as us-east-2", what, (int)n, r);
    if (cpconf_serves(c, r, n)) return CPCONF_OK;
    if (c->n_regions == CPCONF_MAX_REGIONS)
        return buf_fail(err, CPCONF_ERR_INVALID, "%s: more than %d regions", what,
                        CPCONF_MAX_REGIONS);
    snprintf(c->regions[c->n_regions++], CPCONF_REGION_MAX, "%.*s", (int)n, r);
    return CPCONF_OK;
}

/* A whole number from 0 to CPCONF_NUM_MAX, or "unlimited" when allowed. */
static int cpconf_count(const char *s, bool unlimited_ok, long *out) {
    if (unlimited_ok && strcmp(s, "unlimited") == 0) {
        *out = CPCONF_UNLIMITED;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end || errno || v > CPCONF_NUM_MAX) return -1;
    *out = v;
    return 0;
}

/* "REGION/TYPE" (either may be "*") into r. */
static int cpconf_target(struct cpconf *c, const char *what, const char *s, size_t n,
                         struct cpconf_rule *r, struct buf *err) {
    const char *slash = memchr(s, '/', n);
    size_t rn = slash ? (size_t)(slash - s) : 0, tn = slash ? n - rn - 1 : 0;
    if (!slash || rn == 0 || tn == 0 || tn >= CPCONF_TYPE_MAX)
        return buf_fail(err, CPCONF_ERR_INVALID,
                        "%s '%.*s': want REGION/TYPE, e.g. us-east-1/ml.g6.xlarge ('*' for any)",
                        what, (int)n, s);
    snprintf(r->type, sizeof r->type, "%.*s", (int)tn, slash + 1);
    if (strcmp(r->type, "*") != 0 && !cpconf_type_ok(r->type))
        return buf_fail(err, CPCONF_ERR_INVALID,
                        "%s '%.*s': '%s' is not an instance type such as ml.g6.xlarge", what,
                        (int)n, s, r->type);
    if (rn == 1 && s[0] == '*') {
        strcpy(r->region, "*");
        return CPCONF_OK;
    }
    int rc = cpconf_add_region(c, what, s, rn, err);
    if (!rc) snprintf(r->region, sizeof r->region, "%.*s", (int)rn, s);
    return rc;
}

/* Appends a rule to list (of *n, at most CPCONF_MAX_RULES). */
static int cpconf_add_rule(struct cpconf_rule *list, size_t *n, const struct cpconf_rule *r,
                           const char *what, struct buf *err) {
    if (*n == CPCONF_MAX_RULES)
        return buf_fail(err, CPCONF_ERR_INVALID, "%s: more than %d of them", what,
                        CPCONF_MAX_RULES);
    list[(*n)++] = *r;
    return CPCONF_OK;
}

/* "REGION/TYPE=N" for --capacity (N may be "unlimited") or --quota. */
static int cpconf_rule_text(struct cpconf *c, const char *flag, const char *v, bool capacity,
                            struct buf *err) {
    const char *eq = strrchr(v, '=');
    struct cpconf_rule r;
    if (!eq)
        return buf_fail(err, CPCONF_ERR_INVALID, "%s '%s': want REGION/TYPE=%s", flag, v,
                        capacity ? "INSTANCES (or unlimited)" : "INSTANCES");
    int rc = cpconf_target(c, flag, v, (size_t)(eq - v), &r, err);
    if (rc) return rc;
    if (cpconf_count(eq + 1, capacity, &r.value))
        return buf_fail(err, CPCONF_ERR_INVALID,
                        "%s '%s': '%s' is not a whole number of instances%s", flag, v, eq + 1,
                        capacity ? " or unlimited" : "");
    return capacity ? cpconf_add_rule(c->capacity, &c->n_capacity, &r, flag, err)
                    : cpconf_add_rule(c->quota, &c->n_quota, &r, flag, err);
}

/* Maps a model id to a profile (a later mapping of the same id wins). */
static int cpconf_add_model(struct cpconf *c, const char *what, const char *id, size_t idn,
                            const char *profile, struct buf *err) {
    size_t pn = strlen(profile);
    if (idn == 0 || idn >= CPCONF_MODEL_MAX || pn == 0 || pn >= 64)
        return buf_fail(err, CPCONF_ERR_INVALID,
                        "%s: want MODEL_ID=PROFILE (a model id of 1 to 255 bytes, a profile "
                        "name of 1 to 63)",
                        what);
    for (size_t i = 0; i < idn; i++)
        if ((unsigned char)id[i] <= ' ' || id[i] == 0x7f)
            return buf_fail(err, CPCONF_ERR_INVALID,
                            "%s: a model id has no spaces or control characters", what);
    size_t i = 0;
    while (i < c->n_models &&
           !(strlen(c->models[i].model_id) == idn && memcmp(c->models[i].model_id, id, idn) == 0))
        i++;
    if (i == CPCONF_MAX_MODELS)
        return buf_fail(err, CPCONF_ERR_INVALID, "%s: more than %d models", what,
                        CPCONF_MAX_MODELS);
    snprintf(c->models[i].model_id, CPCONF_MODEL_MAX, "%.*s", (int)idn, id);
    snprintf(c->models[i].profile, sizeof c->models[i].profile, "%s", profile);
    if (i == c->n_models) c->n_models++;
    return CPCONF_OK;
}

/* A time in model seconds, from 0 to CPCONF_TIME_MAX. */
static int cpconf_time(const char *what, const char *v, double *out, struct buf *err) {
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno || !(d >= 0) || d > CPCONF_TIME_MAX)
        return buf_fail(err, CPCONF_ERR_INVALID,
                        "%s: '%s' is not a number of model seconds from 0 to 10000000", what, v);
    *out = d;
    return CPCONF_OK;
}

int cpconf_option(struct cpconf *c, const char *flag, const char *value, struct buf *err) {
    if (strcmp(flag, "--control-region") == 0)
        return cpconf_add_region(c, flag, value, strlen(value), err);
    if (strcmp(flag, "--capacity") == 0) return cpconf_rule_text(c, flag, value, true, err);
    if (strcmp(flag, "--quota") == 0) return cpconf_rule_text(c, flag, value, false, err);
    if (strcmp(flag, "--create-time") == 0) return cpconf_time(flag, value, &c->create_s, err);
    if (strcmp(flag, "--capacity-wait") == 0)
        return cpconf_time(flag, value, &c->capacity_wait_s, err);
    if (strcmp(flag, "--delete-time") == 0) return cpconf_time(flag, value, &c->delete_s, err);
    if (strcmp(flag, "--model") == 0) {
        const char *eq = strrchr(value, '=');
        if (!eq)
            return buf_fail(err, CPCONF_ERR_INVALID, "--model '%s': want MODEL_ID=PROFILE", value);
        return cpconf_add_model(c, "--model", value, (size_t)(eq - value), eq + 1, err);
    }
    return buf_fail(err, CPCONF_ERR_INVALID, "%s: not a control-plane option", flag);
}

/* The member "name" of an object of rules ("REGION/TYPE": N). */
static int cpconf_json_rules(struct cpconf *c, const cJSON *obj, const char *path, const char *name,
                             bool capacity, struct buf *err) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, name), *e;
    if (!m) return CPCONF_OK;
    if (!cJSON_IsObject(m))
        return buf_fail(err, CPCONF_ERR_INVALID,
                        "%s: control_plane.%s: want an object of \"REGION/TYPE\": instances", path,
                        name);
    cJSON_ArrayForEach(e, m) {
        char what[96], num[32];
        snprintf(what, sizeof what, "%s: control_plane.%s", path, name);
        if (cJSON_IsString(e) && capacity && strcmp(e->valuestring, "unlimited") == 0)
            strcpy(num, "unlimited");
        else if (cJSON_IsNumber(e) && e->valuedouble >= 0 && e->valuedouble <= CPCONF_NUM_MAX &&
                 e->valuedouble == floor(e->valuedouble))
            snprintf(num, sizeof num, "%ld", (long)e->valuedouble);
        else
            return buf_fail(err, CPCONF_ERR_INVALID,
                            "%s: \"%.100s\": want a whole number of instances", what, e->string);
        struct cpconf_rule r;
        int rc = cpconf_target(c, what, e->string, strlen(e->string), &r, err);
        if (!rc) rc = cpconf_count(num, capacity, &r.value) ? CPCONF_ERR_INVALID : CPCONF_OK;
        if (!rc)
            rc = capacity ? cpconf_add_rule(c->capacity, &c->n_capacity, &r, what, err)
                          : cpconf_add_rule(c->quota, &c->n_quota, &r, what, err);
        if (rc) return rc;
    }
    return CPCONF_OK;
}

/* The numbers of "control_plane": create_s, capacity_wait_s, delete_s, default_quota. */
static int cpconf_json_numbers(struct cpconf *c, const cJSON *cp, const char *path,
                               struct buf *err) {
    static const char *const keys[] = {"create_s", "capacity_wait_s", "delete_s"};
    double *dst[] = {&c->create_s, &c->capacity_wait_s, &c->delete_s};
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cp, keys[i]);
        if (!v) continue;
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > CPCONF_TIME_MAX)
            return buf_fail(err, CPCONF_ERR_INVALID,
                            "%s: control_plane.%s: want model seconds from 0 to 10000000", path,
                            keys[i]);
        *dst[i] = v->valuedouble;
    }
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(cp, "default_quota");
    if (q && (!cJSON_IsNumber(q) || q->valuedouble < 0 || q->valuedouble > CPCONF_NUM_MAX ||
              q->valuedouble != floor(q->valuedouble)))
        return buf_fail(err, CPCONF_ERR_INVALID,
                        "%s: control_plane.default_quota: want a whole number of instances", path);
    if (q) c->default_quota = (long)q->valuedouble;
    return CPCONF_OK;
}

static int cpconf_json_regions(struct cpconf *c, const cJSON *cp, const char *path,
                               struct buf *err) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(cp, "regions"), *r;
    if (!list) return CPCONF_OK;
    if (!cJSON_IsArray(list))
        return buf_fail(err, CPCONF_ERR_INVALID,
                        "%s: control_plane.regions: want a list of regions", path);
    cJSON_ArrayForEach(r, list) {
        if (!cJSON_IsString(r))
            return buf_fail(err, CPCONF_ERR_INVALID,
                            "%s: control_plane.regions: want a list of regions", path);
        int rc = cpconf_add_region(c, "control_plane.regions", r->valuestring,
                                   strlen(r->valuestring), err);
        if (rc) return rc;
    }
    return CPCONF_OK;
}

static int cpconf_json_models(struct cpconf *c, const cJSON *root, const char *path,
                              struct buf *err) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "models"), *e;
    if (!m) return CPCONF_OK;
    if (!cJSON_IsObject(m))
        return buf_fail(err, CPCONF_ERR_INVALID,
                        "%s: models: want an object of \"MODEL_ID\": \"PROFILE\"", path);
    cJSON_ArrayForEach(e, m) {
        char what[64];
        snprintf(what, sizeof what, "%.40s: models", path);
        if (!cJSON_IsString(e))
            return buf_fail(err, CPCONF_ERR_INVALID, "%s: \"%.100s\": want a profile name", what,
                            e->string);
        int rc = cpconf_add_model(c, what, e->string, strlen(e->string), e->valuestring, err);
        if (rc) return rc;
    }
    return CPCONF_OK;
}

int cpconf_apply_json(struct cpconf *c, const cJSON *root, const char *path, struct buf *err) {
    const cJSON *cp = cJSON_GetObjectItemCaseSensitive(root, "control_plane");
    int rc = CPCONF_OK;
    if (cp && !cJSON_IsObject(cp))
        return buf_fail(err, CPCONF_ERR_INVALID, "%s: control_plane: want an object", path);
    if (cp) rc = cpconf_json_regions(c, cp, path, err);
    if (!rc && cp) rc = cpconf_json_numbers(c, cp, path, err);
    if (!rc && cp) rc = cpconf_json_rules(c, cp, path, "capacity", true, err);
    if (!rc && cp) rc = cpconf_json_rules(c, cp, path, "quotas", false, err);
    if (!rc) rc = cpconf_json_models(c, root, path, err);
    return rc;
}

int cpconf_load(struct cpconf *c, const char *path, struct buf *err) {
    struct buf text;
    buf_init(&text, CPCONF_FILE_MAX);
    int rd = readall_path(path, &text), rc;
    cJSON *root = rd ? NULL : cJSON_ParseWithLength(buf_str(&text), text.len);
    if (rd)
        rc = buf_fail(err, CPCONF_ERR_IO, "%s: %s", path,
                      rd == BUF_ERR_CAP ? "larger than 1 MiB"
                      : rd > 0          ? strerror(rd)
                                        : "out of memory");
    else if (!cJSON_IsObject(root))
        rc = buf_fail(err, CPCONF_ERR_INVALID, "%s: not a JSON object", path);
    else
        rc = cpconf_apply_json(c, root, path, err);
    cJSON_Delete(root);
    buf_free(&text);
    return rc;
}

/* The value of the last rule matching region and type, or dflt. */
static long cpconf_lookup(const struct cpconf_rule *list, size_t n, const char *region,
                          const char *type, long dflt) {
    long v = dflt;
    for (size_t i = 0; i < n; i++)
        if ((strcmp(list[i].region, "*") == 0 || strcmp(list[i].region, region) == 0) &&
            (strcmp(list[i].type, "*") == 0 || strcmp(list[i].type, type) == 0))
            v = list[i].value;
    return v;
}

long cpconf_capacity(const struct cpconf *c, const char *region, const char *type) {
    return cpconf_lookup(c->capacity, c->n_capacity, region, type, CPCONF_UNLIMITED);
}

long cpconf_quota(const struct cpconf *c, const char *region, const char *type) {
    return cpconf_lookup(c->quota, c->n_quota, region, type, c->default_quota);
}

const char *cpconf_profile(const struct cpconf *c, const char *model_id) {
    for (size_t i = c->n_models; i-- > 0;)
        if (strcmp(c->models[i].model_id, model_id) == 0) return c->models[i].profile;
    return NULL;
}
