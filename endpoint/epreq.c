#include "epreq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cwlogs.h"

#define EPREQ_STARTUP_S 1800 /* the seed's: model download and vLLM start-up */

/* Writes the tree as compact JSON into out and frees it. */
static int epreq_emit(cJSON *root, struct buf *out) {
    buf_reset(out);
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;
    int rc = text && buf_adds(out, text) == 0 ? EPREQ_OK : EPREQ_ERR_NOMEM;
    cJSON_free(text);
    cJSON_Delete(root);
    return rc;
}

static const char *epreq_or(const char *a, const char *b) {
    return a ? a : b;
}

/* Sets name=value in env (replacing it). */
static bool epreq_env_set(cJSON *env, const char *name, const char *value) {
    cJSON_DeleteItemFromObjectCaseSensitive(env, name);
    return cJSON_AddStringToObject(env, name, value) != NULL;
}

int epreq_create_model(const struct epreq_deploy *d, struct buf *out, struct buf *err) {
    char len[32];
    snprintf(len, sizeof len, "%ld", d->max_model_len ? d->max_model_len : 8192);
    cJSON *root = cJSON_CreateObject(), *pc = NULL, *env = NULL;
    bool ok = root &&
              cJSON_AddStringToObject(root, "ModelName", epreq_or(d->model_name, d->name)) &&
              cJSON_AddStringToObject(root, "ExecutionRoleArn", d->role) &&
              (pc = cJSON_AddObjectToObject(root, "PrimaryContainer")) &&
              cJSON_AddStringToObject(pc, "Image", d->image) &&
              (env = cJSON_AddObjectToObject(pc, "Environment")) &&
              epreq_env_set(env, "SM_VLLM_MODEL", d->model_id) &&
              epreq_env_set(env, "SM_VLLM_SERVED_MODEL_NAME", d->model_id) &&
              epreq_env_set(env, "SM_VLLM_MAX_MODEL_LEN", len);
    for (size_t i = 0; ok && i < d->n_env; i++) {
        const char *eq = strchr(d->env[i], '=');
        if (!eq || eq == d->env[i]) {
            cJSON_Delete(root);
            return buf_fail(err, EPREQ_ERR_INPUT, "--env '%s': want KEY=VALUE", d->env[i]);
        }
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(eq - d->env[i]), d->env[i]);
        ok = epreq_env_set(env, key, eq + 1);
    }
    if (!ok) {
        cJSON_Delete(root);
        return EPREQ_ERR_NOMEM;
    }
    return epreq_emit(root, out);
}

/* The production variant's placement: InstanceType, or InstancePools by priority. */
static bool epreq_placement(const struct epreq_deploy *d, cJSON *v) {
    if (d->n_types == 1 && !d->pools)
        return cJSON_AddStringToObject(v, "InstanceType", d->types[0]);
    cJSON *pools = cJSON_AddArrayToObject(v, "InstancePools");
    for (size_t i = 0; pools && i < d->n_types; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddItemToArray(pools, p);
        if (!p || !cJSON_AddStringToObject(p, "InstanceType", d->types[i]) ||
            !cJSON_AddNumberToObject(p, "Priority", (double)(i + 1)))
            return false;
    }
    return pools && (!d->provision_timeout_s ||
                     cJSON_AddNumberToObject(v, "VariantInstanceProvisionTimeoutInSeconds",
                                             (double)d->provision_timeout_s));
}

int epreq_create_config(const struct epreq_deploy *d, struct buf *out, struct buf *err) {
    if (d->n_types == 0 || d->n_types > EPREQ_MAX_TYPES)
        return buf_fail(err, EPREQ_ERR_INPUT, "give 1 to %d instance types", EPREQ_MAX_TYPES);
    cJSON *root = cJSON_CreateObject(), *list = NULL, *v = cJSON_CreateObject();
    bool ok =
        root && v &&
        cJSON_AddStringToObject(root, "EndpointConfigName", epreq_or(d->config_name, d->name)) &&
        (list = cJSON_AddArrayToObject(root, "ProductionVariants"));
    if (list)
        cJSON_AddItemToArray(list, v);
    else
        cJSON_Delete(v);
    ok = ok && cJSON_AddStringToObject(v, "VariantName", epreq_or(d->variant, "AllTraffic")) &&
         cJSON_AddStringToObject(v, "ModelName", epreq_or(d->model_name, d->name)) &&
         cJSON_AddNumberToObject(v, "InitialInstanceCount", (double)(d->count ? d->count : 1)) &&
         epreq_placement(d, v) &&
         cJSON_AddNumberToObject(v, "ContainerStartupHealthCheckTimeoutInSeconds",
                                 EPREQ_STARTUP_S) &&
         cJSON_AddNumberToObject(v, "ModelDataDownloadTimeoutInSeconds", EPREQ_STARTUP_S);
    if (!ok) {
        cJSON_Delete(root);
        return EPREQ_ERR_NOMEM;
    }
    return epreq_emit(root, out);
}

int epreq_endpoint(const char *name, const char *config, struct buf *out) {
    cJSON *root = cJSON_CreateObject();
    if (!root || !cJSON_AddStringToObject(root, "EndpointName", name) ||
        !cJSON_AddStringToObject(root, "EndpointConfigName", config)) {
        cJSON_Delete(root);
        return EPREQ_ERR_NOMEM;
    }
    return epreq_emit(root, out);
}

int epreq_named(const char *key, const char *value, struct buf *out) {
    cJSON *root = cJSON_CreateObject();
    if (!root || !cJSON_AddStringToObject(root, key, value)) {
        cJSON_Delete(root);
        return EPREQ_ERR_NOMEM;
    }
    return epreq_emit(root, out);
}

int epreq_list(const char *name_contains, struct buf *out) {
    cJSON *root = cJSON_CreateObject();
    if (!root || !cJSON_AddNumberToObject(root, "MaxResults", 100) ||
        (name_contains && !cJSON_AddStringToObject(root, "NameContains", name_contains))) {
        cJSON_Delete(root);
        return EPREQ_ERR_NOMEM;
    }
    return epreq_emit(root, out);
}

int epreq_logs(const char *endpoint, long long start_ms, int limit, struct buf *out) {
    struct cwlogs_query q = {endpoint, NULL, start_ms, 0, NULL, limit};
    int rc = cwlogs_request(&q, out, NULL);
    return rc == AWSJ_ERR_INPUT ? EPREQ_ERR_INPUT : rc ? EPREQ_ERR_NOMEM : EPREQ_OK;
}

int epreq_model_like(const char *describe, size_t len, const char *name, const char *model_id,
                     struct buf *out, struct buf *err) {
    cJSON *d = cJSON_ParseWithLength(describe, len);
    const cJSON *pc = cJSON_GetObjectItemCaseSensitive(d, "PrimaryContainer");
    const cJSON *role = cJSON_GetObjectItemCaseSensitive(d, "ExecutionRoleArn");
    const cJSON *image = cJSON_GetObjectItemCaseSensitive(pc, "Image");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(pc, "Environment"), *e;
    if (!cJSON_IsString(role) || !cJSON_IsString(image) || (env && !cJSON_IsObject(env))) {
        cJSON_Delete(d);
        return buf_fail(err, EPREQ_ERR_INPUT,
                        "the model to copy has no PrimaryContainer with an Image and an "
                        "ExecutionRoleArn (DescribeModel)");
    }
    cJSON *root = cJSON_CreateObject(), *npc = NULL, *nenv = NULL;
    bool ok = root && cJSON_AddStringToObject(root, "ModelName", name) &&
              cJSON_AddStringToObject(root, "ExecutionRoleArn", role->valuestring) &&
              (npc = cJSON_AddObjectToObject(root, "PrimaryContainer")) &&
              cJSON_AddStringToObject(npc, "Image", image->valuestring) &&
              (nenv = cJSON_AddObjectToObject(npc, "Environment"));
    cJSON_ArrayForEach(e, env) {
        if (ok && cJSON_IsString(e)) ok = epreq_env_set(nenv, e->string, e->valuestring);
    }
    ok = ok && epreq_env_set(nenv, "SM_VLLM_MODEL", model_id);
    if (ok && cJSON_GetObjectItemCaseSensitive(nenv, "SM_VLLM_SERVED_MODEL_NAME"))
        ok = epreq_env_set(nenv, "SM_VLLM_SERVED_MODEL_NAME", model_id);
    cJSON_Delete(d);
    if (!ok) {
        cJSON_Delete(root);
        return EPREQ_ERR_NOMEM;
    }
    return epreq_emit(root, out);
}

int epreq_chat(const char *prompt, const char *system, long max_tokens, double temperature,
               struct buf *out) {
    cJSON *root = cJSON_CreateObject(), *msgs = NULL, *m;
    bool ok = root && (msgs = cJSON_AddArrayToObject(root, "messages"));
    for (int i = system ? 0 : 1; ok && i < 2; i++) {
        ok = (m = cJSON_CreateObject()) != NULL;
        if (ok) cJSON_AddItemToArray(msgs, m);
        ok = ok && cJSON_AddStringToObject(m, "role", i ? "user" : "system") &&
             cJSON_AddStringToObject(m, "content", i ? prompt : system);
    }
    ok = ok && cJSON_AddNumberToObject(root, "max_tokens", (double)max_tokens) &&
         cJSON_AddNumberToObject(root, "temperature", temperature);
    if (!ok) {
        cJSON_Delete(root);
        return EPREQ_ERR_NOMEM;
    }
    return epreq_emit(root, out);
}

/* Appends s in single quotes for sh. */
static int epreq_quote(struct buf *out, const char *s) {
    int rc = buf_addc(out, '\'');
    for (; !rc && *s; s++) rc = *s == '\'' ? buf_adds(out, "'\\''") : buf_addc(out, *s);
    return rc ? rc : buf_addc(out, '\'');
}

int epreq_aws_cli(const struct epreq_deploy *d, const char *region, struct buf *out,
                  struct buf *err) {
    struct buf model, config, j;
    buf_init(&model, BUF_NO_CAP);
    buf_init(&config, BUF_NO_CAP);
    buf_init(&j, BUF_NO_CAP);
    int rc = epreq_create_model(d, &model, err);
    if (!rc) rc = epreq_create_config(d, &config, err);
    buf_reset(out);
    /* the JSON of the two lists as the CLI takes them */
    cJSON *m = rc ? NULL : cJSON_Parse(buf_str(&model));
    cJSON *c = rc ? NULL : cJSON_Parse(buf_str(&config));
    char *pc = m ? cJSON_PrintUnformatted(cJSON_GetObjectItem(m, "PrimaryContainer")) : NULL;
    char *pv = c ? cJSON_PrintUnformatted(cJSON_GetObjectItem(c, "ProductionVariants")) : NULL;
    if (!rc && (!pc || !pv)) rc = EPREQ_ERR_NOMEM;
    const char *mname = epreq_or(d->model_name, d->name),
               *cname = epreq_or(d->config_name, d->name);
    if (!rc)
        rc = buf_addf(out,
                      "aws sagemaker create-model --region %s --model-name %s "
                      "--execution-role-arn ",
                      region, mname) ||
                     epreq_quote(out, d->role) || buf_adds(out, " --primary-container ") ||
                     epreq_quote(out, pc) ||
                     buf_addf(out,
                              "\naws sagemaker create-endpoint-config --region %s "
                              "--endpoint-config-name %s --production-variants ",
                              region, cname) ||
                     epreq_quote(out, pv) ||
                     buf_addf(out,
                              "\naws sagemaker create-endpoint --region %s --endpoint-name %s "
                              "--endpoint-config-name %s\naws sagemaker wait endpoint-in-service "
                              "--region %s --endpoint-name %s\n",
                              region, d->name, cname, region, d->name)
                 ? EPREQ_ERR_NOMEM
                 : EPREQ_OK;
    cJSON_free(pc);
    cJSON_free(pv);
    cJSON_Delete(m);
    cJSON_Delete(c);
    buf_free(&model);
    buf_free(&config);
    buf_free(&j);
    return rc;
}
