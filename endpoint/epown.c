#include "epown.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>

bool epown_run_ok(const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n >= EPOWN_RUN_MAX) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            return false;
    return true;
}

void epown_run_make(double wall, unsigned nonce, char out[EPOWN_RUN_MAX]) {
    time_t t = (time_t)wall;
    struct tm tm;
    char stamp[32] = "0";
    if (gmtime_r(&t, &tm)) strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(out, EPOWN_RUN_MAX, "%s-%08x", stamp, nonce);
}

/* Adds {"Key": key, "Value": value} to list. */
static bool epown_add(cJSON *list, const char *key, const char *value) {
    cJSON *t = cJSON_CreateObject();
    if (!t) return false;
    cJSON_AddItemToArray(list, t);
    return cJSON_AddStringToObject(t, "Key", key) && cJSON_AddStringToObject(t, "Value", value);
}

int epown_tag(struct buf *req, const char *run) {
    if (!epown_run_ok(run)) return EPOWN_ERR_INPUT;
    cJSON *root = cJSON_ParseWithLength(buf_str(req), req->len), *list = NULL;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return EPOWN_ERR_INPUT;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(root, "Tags");
    bool ok = (list = cJSON_AddArrayToObject(root, "Tags")) &&
              epown_add(list, EPOWN_KEY_TOOL, EPOWN_TOOL) && epown_add(list, EPOWN_KEY_RUN, run);
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    buf_reset(req);
    int rc = text && buf_adds(req, text) == 0 ? EPOWN_OK : EPOWN_ERR_NOMEM;
    cJSON_free(text);
    return rc;
}

/* The value of tag key in list, or NULL. */
static const char *epown_value(const cJSON *list, const char *key) {
    const cJSON *t;
    cJSON_ArrayForEach(t, list) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(t, "Key");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, "Value");
        if (cJSON_IsString(k) && strcmp(k->valuestring, key) == 0)
            return cJSON_IsString(v) ? v->valuestring : "";
    }
    return NULL;
}

int epown_judge(const char *json, size_t len, const char *run, struct buf *why) {
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "Tags");
    int rc = 0;
    if (!cJSON_IsArray(list)) {
        rc = buf_fail(why, EPOWN_ERR_INPUT, "ListTags gave no Tags list");
    } else {
        const char *tool = epown_value(list, EPOWN_KEY_TOOL),
                   *by = epown_value(list, EPOWN_KEY_RUN);
        if (!tool || strcmp(tool, EPOWN_TOOL) != 0)
            rc = buf_fail(why, 1, "it has no tag %s=%s: wrk-sagemaker did not create it",
                          EPOWN_KEY_TOOL, EPOWN_TOOL);
        else if (run && !by)
            rc = buf_fail(why, 1, "it has no tag %s: not created by run '%s'", EPOWN_KEY_RUN, run);
        else if (run && strcmp(by, run) != 0)
            rc = buf_fail(why, 1, "run '%.64s' created it, not run '%s'", by, run);
    }
    cJSON_Delete(root);
    return rc;
}

const char *epown_user(const struct epown_use *uses, size_t n, const char *self, bool is_model,
                       const char *name) {
    for (size_t i = 0; i < n; i++) {
        if (strcasecmp(uses[i].endpoint, self) == 0) continue;
        size_t m = is_model ? uses[i].n_models : uses[i].n_configs;
        for (size_t j = 0; j < m; j++)
            if (strcasecmp(is_model ? uses[i].models[j] : uses[i].configs[j], name) == 0)
                return uses[i].endpoint;
    }
    return NULL;
}
