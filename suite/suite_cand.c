#include "suite_cand.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "smname.h"

/* The members a candidate and a deploy spec may have. */
static const char *const suite_cand_members[] = {"label",
                                                 "endpoint",
                                                 "variant",
                                                 "inference_component",
                                                 "instance_type",
                                                 "instance_count",
                                                 "price_per_hour",
                                                 "deploy",
                                                 NULL};
static const char *const suite_cand_deploy_members[] = {
    "model", "image", "instance_type", "instance_count", "environment", NULL};

static bool suite_cand_known(const char *const *names, const char *s) {
    for (; *names; names++)
        if (strcmp(*names, s) == 0) return true;
    return false;
}

/* An unknown member of o, or NULL. */
static const char *suite_cand_unknown(const cJSON *o, const char *const *names) {
    const cJSON *m;
    cJSON_ArrayForEach(m, o) if (!suite_cand_known(names, m->string)) return m->string;
    return NULL;
}

/* Copies the string member key of o into out (size n); absent: "" unless required.
 * check: the rule the value must follow (NULL: any text of 1 to n-1 printable bytes). */
static int suite_cand_str(const cJSON *o, const char *key, bool required, char *out, size_t n,
                          bool (*check)(const char *, size_t), const char *want, const char *where,
                          struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    const char *str = cJSON_IsString(v) ? v->valuestring : NULL;
    out[0] = '\0';
    if (!v && !required) return SUITE_CAND_OK;
    size_t len = str ? strlen(str) : 0;
    bool ok = str && len > 0 && len < n;
    for (size_t i = 0; ok && i < len; i++) ok = (unsigned char)str[i] >= 0x20 && str[i] != 0x7f;
    if (ok && check) ok = check(str, len);
    if (!ok || !str)
        return buf_fail(err, SUITE_CAND_ERR_INVALID, "%s: %s: want %s", where, key,
                        v ? want : "a value (it is missing)");
    memcpy(out, str, len + 1);
    return SUITE_CAND_OK;
}

/* "ml.FAMILY.SIZE": lower-case letters, digits and dots, starting with "ml.". */
static bool suite_cand_type_ok(const char *s, size_t n) {
    if (n < 6 || strncmp(s, "ml.", 3) != 0 || !strchr(s + 3, '.')) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
            return false;
    return true;
}

/* An environment variable's name: a letter or '_', then letters, digits and '_'. */
static bool suite_cand_env_key_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof((struct suite_cand_env *)0)->key || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

static int suite_cand_count(const cJSON *o, const char *where, int *out, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "instance_count");
    *out = 1;
    if (!v) return SUITE_CAND_OK;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < 1 ||
        v->valuedouble > 100)
        return buf_fail(err, SUITE_CAND_ERR_INVALID,
                        "%s: instance_count: want a whole number from 1 to 100", where);
    *out = (int)v->valuedouble;
    return SUITE_CAND_OK;
}

static int suite_cand_env(const cJSON *d, const char *where, struct suite_cand *c,
                          struct buf *err) {
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(d, "environment"), *e;
    if (!env) return SUITE_CAND_OK;
    if (!cJSON_IsObject(env))
        return buf_fail(err, SUITE_CAND_ERR_INVALID,
                        "%s: deploy.environment: want an object of strings", where);
    cJSON_ArrayForEach(e, env) {
        if (c->n_env == SUITE_CAND_ENV_MAX)
            return buf_fail(err, SUITE_CAND_ERR_INVALID,
                            "%s: deploy.environment: want at most %d variables", where,
                            SUITE_CAND_ENV_MAX);
        if (!suite_cand_env_key_ok(e->string))
            return buf_fail(err, SUITE_CAND_ERR_INVALID,
                            "%s: deploy.environment: \"%.60s\" is not a variable name (letters, "
                            "digits and '_', not starting with a digit, under 128 bytes)",
                            where, e->string);
        char key[160];
        snprintf(key, sizeof key, "%s", e->string);
        struct suite_cand_env *v = &c->env[c->n_env];
        char w[256];
        snprintf(w, sizeof w, "%.220s: deploy.environment", where);
        int rc = suite_cand_str(env, key, true, v->value, sizeof v->value, NULL,
                                "a string of 1 to 1024 printable bytes", w, err);
        if (rc) return rc;
        snprintf(v->key, sizeof v->key, "%s", e->string);
        c->n_env++;
    }
    return SUITE_CAND_OK;
}

static bool suite_cand_name_ok(const char *s, size_t n) {
    return smname_endpoint_ok(s, n);
}
static bool suite_cand_label_ok(const char *s, size_t n) {
    return smname_label_ok(s, n);
}

static int suite_cand_deploy(const cJSON *d, const char *where, struct suite_cand *c,
                             struct buf *err) {
    const char *bad;
    if (!cJSON_IsObject(d))
        return buf_fail(err, SUITE_CAND_ERR_INVALID,
                        "%s: deploy: want an object (model, instance_type, ...)", where);
    if ((bad = suite_cand_unknown(d, suite_cand_deploy_members)))
        return buf_fail(err, SUITE_CAND_ERR_INVALID,
                        "%s: deploy: unknown member \"%.60s\" (model, image, instance_type, "
                        "instance_count, environment)",
                        where, bad);
    char w[256];
    snprintf(w, sizeof w, "%.220s: deploy", where);
    int rc = suite_cand_str(d, "model", true, c->model, sizeof c->model, NULL,
                            "a model id of 1 to 255 printable bytes", w, err);
    if (!rc)
        rc = suite_cand_str(d, "image", false, c->image, sizeof c->image, NULL,
                            "an image URI of 1 to 511 printable bytes", w, err);
    if (!rc)
        rc = suite_cand_str(d, "instance_type", true, c->instance_type, sizeof c->instance_type,
                            suite_cand_type_ok, "an instance type such as ml.g6.xlarge", w, err);
    if (!rc) rc = suite_cand_count(d, w, &c->instance_count, err);
    return rc ? rc : suite_cand_env(d, where, c, err);
}

static int suite_cand_one(const cJSON *o, const char *where, struct suite_cand *c,
                          struct buf *err) {
    const char *bad;
    memset(c, 0, sizeof *c);
    if (!cJSON_IsObject(o))
        return buf_fail(err, SUITE_CAND_ERR_INVALID, "%s: want an object", where);
    if ((bad = suite_cand_unknown(o, suite_cand_members)))
        return buf_fail(err, SUITE_CAND_ERR_INVALID,
                        "%s: unknown member \"%.60s\" (label, endpoint, variant, "
                        "inference_component, instance_type, instance_count, price_per_hour, "
                        "deploy)",
                        where, bad);
    const cJSON *ep = cJSON_GetObjectItemCaseSensitive(o, "endpoint");
    const cJSON *dep = cJSON_GetObjectItemCaseSensitive(o, "deploy");
    const cJSON *price = cJSON_GetObjectItemCaseSensitive(o, "price_per_hour");
    if (!ep == !dep)
        return buf_fail(err, SUITE_CAND_ERR_INVALID,
                        "%s: want exactly one of \"endpoint\" (an existing one) and \"deploy\"",
                        where);
    int rc = suite_cand_str(o, "label", true, c->label, sizeof c->label, suite_cand_label_ok,
                            "1 to 64 letters, digits, '-', '_' or '.', not starting with '.'",
                            where, err);
    if (rc) return rc;
    if (dep) {
        if (cJSON_GetObjectItemCaseSensitive(o, "variant") ||
            cJSON_GetObjectItemCaseSensitive(o, "inference_component") ||
            cJSON_GetObjectItemCaseSensitive(o, "instance_type") ||
            cJSON_GetObjectItemCaseSensitive(o, "instance_count"))
            return buf_fail(err, SUITE_CAND_ERR_INVALID,
                            "%s: a deploy spec gives its instance type and count inside "
                            "\"deploy\", and has no variant or inference component",
                            where);
        c->deploy = true;
        rc = suite_cand_deploy(dep, where, c, err);
    } else {
        const char *name_rule = "a SageMaker name (letters, digits and '-', 1 to 63)";
        rc = suite_cand_str(o, "endpoint", true, c->endpoint, sizeof c->endpoint,
                            suite_cand_name_ok, name_rule, where, err);
        if (!rc)
            rc = suite_cand_str(o, "variant", false, c->variant, sizeof c->variant,
                                suite_cand_name_ok, name_rule, where, err);
        if (!rc)
            rc = suite_cand_str(o, "inference_component", false, c->component, sizeof c->component,
                                suite_cand_name_ok, name_rule, where, err);
        if (!rc && c->variant[0] && c->component[0])
            rc = buf_fail(err, SUITE_CAND_ERR_INVALID,
                          "%s: want a variant or an inference component, not both", where);
        if (!rc)
            rc = suite_cand_str(o, "instance_type", false, c->instance_type,
                                sizeof c->instance_type, suite_cand_type_ok,
                                "an instance type such as ml.g6.xlarge", where, err);
        if (!rc) rc = suite_cand_count(o, where, &c->instance_count, err);
    }
    if (rc) return rc;
    if (price && (!cJSON_IsNumber(price) || !(price->valuedouble > 0) || price->valuedouble > 1e4))
        return buf_fail(err, SUITE_CAND_ERR_INVALID,
                        "%s: price_per_hour: want USD per instance-hour above 0 (at most 10000)",
                        where);
    /* A component shares its endpoint's instances with others: what share it costs is the
       user's to say (sm-suite cannot know the other tenants), so it is given whole. */
    if (c->component[0] && cJSON_GetObjectItemCaseSensitive(o, "instance_count"))
        return buf_fail(err, SUITE_CAND_ERR_INVALID,
                        "%s: inference component %s: its price_per_hour is its whole cost per "
                        "hour; drop instance_count",
                        where, c->component);
    if (c->component[0] && !price)
        return buf_fail(err, SUITE_CAND_ERR_INVALID,
                        "%s: inference component %s: want its price_per_hour, the USD per hour "
                        "of its share of the endpoint's instances (e.g. the instance's price x "
                        "the accelerators it reserves / the instance's): sm-suite cannot know "
                        "the share",
                        where, c->component);
    c->price_per_hour = price ? price->valuedouble : 0;
    return SUITE_CAND_OK;
}

int suite_cand_parse(const char *text, size_t len, const char *name, struct suite_cand_list *l,
                     struct buf *err) {
    memset(l, 0, sizeof *l);
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "candidates"), *o;
    int rc = SUITE_CAND_OK;
    if (!cJSON_IsObject(root) || !cJSON_IsArray(list) || cJSON_GetArraySize(list) < 1 ||
        cJSON_GetArraySize(list) > SUITE_CAND_MAX)
        rc = buf_fail(err, SUITE_CAND_ERR_INVALID,
                      "%.200s: not a candidates file (JSON: {\"candidates\": [1 to %d objects]})",
                      name, SUITE_CAND_MAX);
    else if (cJSON_GetArraySize(root) != 1)
        rc = buf_fail(err, SUITE_CAND_ERR_INVALID,
                      "%.200s: want only the member \"candidates\" at the top", name);
    const cJSON *each = rc ? NULL : list;
    cJSON_ArrayForEach(o, each) {
        char where[256];
        snprintf(where, sizeof where, "%.200s: candidates[%zu]", name, l->n);
        rc = suite_cand_one(o, where, &l->c[l->n], err);
        for (size_t i = 0; !rc && i < l->n; i++)
            if (strcmp(l->c[i].label, l->c[l->n].label) == 0)
                rc = buf_fail(err, SUITE_CAND_ERR_INVALID,
                              "%s: label \"%s\" is candidates[%zu]'s too: labels name folders",
                              where, l->c[i].label, i);
        if (rc) break;
        l->n++;
    }
    cJSON_Delete(root);
    return rc;
}

double suite_cand_usd_per_million(double usd_per_hour, int count, double tokens_per_second) {
    if (!(usd_per_hour > 0) || count < 1 || !(tokens_per_second > 0) || !isfinite(usd_per_hour) ||
        !isfinite(tokens_per_second))
        return NAN;
    return usd_per_hour * count / 3600.0 / tokens_per_second * 1e6;
}

static double suite_cand_cost_at(const struct suite_cand *c, const struct suite_cand_figures *f,
                                 double rps) {
    return suite_cand_usd_per_million(f->price_per_hour, c->instance_count,
                                      rps * f->tokens_per_request);
}

int suite_cand_cheapest(const struct suite_cand_list *l, const struct suite_cand_figures *f) {
    int best = -1;
    double low = INFINITY;
    for (size_t i = 0; i < l->n; i++) {
        double usd = suite_cand_cost_at(&l->c[i], &f[i], f[i].capacity_rps);
        if (isfinite(usd) && usd < low) low = usd, best = (int)i;
    }
    return best;
}

int suite_cand_rival(const struct suite_cand_list *l, const struct suite_cand_figures *f,
                     int best) {
    if (best < 0) return -1;
    /* the most best can cost: at the rate it last held (no rate held: unbounded) */
    double high = suite_cand_cost_at(&l->c[best], &f[best], f[best].last_held_rps);
    for (size_t i = 0; i < l->n; i++) {
        if ((int)i == best || !isfinite(suite_cand_cost_at(&l->c[i], &f[i], f[i].capacity_rps)))
            continue; /* not priced or not measured: not in the choice */
        /* the least i can cost: at the rate it first failed (none failed: no bound) */
        double low = suite_cand_cost_at(&l->c[i], &f[i], f[i].first_failed_rps);
        if (!isfinite(high) || !isfinite(low) || !(high < low)) return (int)i;
    }
    return -1;
}

static cJSON *suite_cand_num(double v) {
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *suite_cand_row(const struct suite_cand *c, const struct suite_cand_figures *f) {
    cJSON *r = cJSON_CreateObject(), *cap = cJSON_CreateObject(), *cost = cJSON_CreateObject();
    cJSON *quiz = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "label", c->label);
    cJSON_AddStringToObject(r, "kind",
                            c->deploy         ? "deploy"
                            : c->component[0] ? "inference_component"
                                              : "endpoint");
    cJSON_AddItemToObject(r, "endpoint",
                          c->endpoint[0] ? cJSON_CreateString(c->endpoint) : cJSON_CreateNull());
    cJSON_AddItemToObject(r, "variant",
                          c->variant[0] ? cJSON_CreateString(c->variant) : cJSON_CreateNull());
    cJSON_AddItemToObject(r, "inference_component",
                          c->component[0] ? cJSON_CreateString(c->component) : cJSON_CreateNull());
    cJSON_AddItemToObject(r, "model",
                          c->model[0] ? cJSON_CreateString(c->model) : cJSON_CreateNull());
    cJSON_AddItemToObject(r, "instance_type",
                          c->instance_type[0] ? cJSON_CreateString(c->instance_type)
                                              : cJSON_CreateNull());
    cJSON_AddNumberToObject(r, "instance_count", c->instance_count);
    cJSON_AddItemToObject(cap, "requests_per_second", suite_cand_num(f->capacity_rps));
    cJSON_AddItemToObject(cap, "last_held", suite_cand_num(f->last_held_rps));
    cJSON_AddItemToObject(cap, "first_failed", suite_cand_num(f->first_failed_rps));
    cJSON_AddItemToObject(cap, "tokens_per_request", suite_cand_num(f->tokens_per_request));
    cJSON_AddItemToObject(cap, "tokens_per_second",
                          suite_cand_num(f->capacity_rps * f->tokens_per_request));
    cJSON_AddItemToObject(r, "capacity", cap);
    cJSON_AddItemToObject(
        cost, "usd_per_hour",
        suite_cand_num(f->price_per_hour > 0 ? f->price_per_hour * c->instance_count : NAN));
    cJSON_AddItemToObject(cost, "price_source",
                          f->price_source ? cJSON_CreateString(f->price_source)
                                          : cJSON_CreateNull());
    cJSON_AddItemToObject(cost, "usd_per_million_tokens",
                          suite_cand_num(suite_cand_cost_at(c, f, f->capacity_rps)));
    /* the bracket's ends: a capacity as high as first_failed costs least */
    cJSON_AddItemToObject(cost, "usd_per_million_tokens_low",
                          suite_cand_num(suite_cand_cost_at(c, f, f->first_failed_rps)));
    cJSON_AddItemToObject(cost, "usd_per_million_tokens_high",
                          suite_cand_num(suite_cand_cost_at(c, f, f->last_held_rps)));
    cJSON_AddItemToObject(r, "cost_at_capacity", cost);
    if (f->quiz_total > 0) {
        cJSON_AddNumberToObject(quiz, "correct", (double)f->quiz_correct);
        cJSON_AddNumberToObject(quiz, "total", (double)f->quiz_total);
        cJSON_AddNumberToObject(quiz, "score", (double)f->quiz_correct / (double)f->quiz_total);
        cJSON_AddItemToObject(r, "quiz", quiz);
    } else {
        cJSON_Delete(quiz);
        cJSON_AddNullToObject(r, "quiz");
    }
    cJSON_AddStringToObject(r, "folder", c->label);
    return r;
}

int suite_cand_summary(const struct suite_cand_list *l, const struct suite_cand_figures *f,
                       const char *slo, struct buf *out) {
    cJSON *root = cJSON_CreateObject(), *rows = cJSON_CreateArray();
    cJSON_AddStringToObject(root, "format", "wrk-sagemaker-candidates");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddItemToObject(root, "slo", slo ? cJSON_CreateString(slo) : cJSON_CreateNull());
    for (size_t i = 0; i < l->n; i++) cJSON_AddItemToArray(rows, suite_cand_row(&l->c[i], &f[i]));
    cJSON_AddItemToObject(root, "candidates", rows);
    int best = suite_cand_cheapest(l, f), rival = suite_cand_rival(l, f, best);
    cJSON_AddItemToObject(root, "cheapest_at_capacity",
                          best >= 0 ? cJSON_CreateString(l->c[best].label) : cJSON_CreateNull());
    cJSON_AddItemToObject(root, "decided_by_brackets",
                          best >= 0 ? cJSON_CreateBool(rival < 0) : cJSON_CreateNull());
    cJSON_AddItemToObject(root, "overlapping",
                          rival >= 0 ? cJSON_CreateString(l->c[rival].label) : cJSON_CreateNull());
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text) return SUITE_CAND_ERR_NOMEM;
    int rc = buf_addf(out, "%s\n", text);
    free(text);
    return rc ? SUITE_CAND_ERR_NOMEM : SUITE_CAND_OK;
}
