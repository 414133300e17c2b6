#include "candfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "rfile.h"
#include "smname.h"

#define CANDFILE_FORMAT  "wrk-sagemaker-candidates"
#define CANDFILE_VERSION 1

/* A string member into out (cap bytes): 0, 1 when absent or null and optional,
 * or CANDFILE_ERR_INPUT. */
static int candfile_str(const cJSON *o, const char *key, bool need, char *out, size_t cap,
                        const char *name, size_t i, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    out[0] = '\0';
    if ((!v || cJSON_IsNull(v)) && !need) return 1;
    if (!v || !cJSON_IsString(v) || strlen(v->valuestring) >= cap)
        return buf_fail(err, CANDFILE_ERR_INPUT,
                        "%s: candidates[%zu].%s must be a string of at most %zu bytes", name, i,
                        key, cap - 1);
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
    return 0;
}

static int candfile_cand(const cJSON *o, const char *name, size_t i, struct candfile_cand *c,
                         struct buf *err) {
    if (!cJSON_IsObject(o))
        return buf_fail(err, CANDFILE_ERR_INPUT, "%s: candidates[%zu] is not an object", name, i);
    if (candfile_str(o, "label", true, c->label, sizeof c->label, name, i, err) < 0 ||
        candfile_str(o, "folder", true, c->folder, sizeof c->folder, name, i, err) < 0 ||
        candfile_str(o, "instance_type", false, c->instance_type, sizeof c->instance_type, name, i,
                     err) < 0)
        return CANDFILE_ERR_INPUT;
    if (!smname_label_ok(c->label, strlen(c->label)))
        return buf_fail(err, CANDFILE_ERR_INPUT,
                        "%s: candidates[%zu].label is not a label (1 to 64 letters, digits, "
                        "'-', '_', '.')",
                        name, i);
    if (!smname_label_ok(c->folder, strlen(c->folder)))
        return buf_fail(err, CANDFILE_ERR_INPUT,
                        "%s: candidate %s: folder must be a name in the run folder", name,
                        c->label);
    const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(o, "instance_count");
    c->instance_count = 1;
    if (cnt && !cJSON_IsNull(cnt)) {
        if (!cJSON_IsNumber(cnt) || cnt->valuedouble < 1 || cnt->valuedouble > 100 ||
            cnt->valuedouble != floor(cnt->valuedouble))
            return buf_fail(err, CANDFILE_ERR_INPUT,
                            "%s: candidate %s: instance_count must be a whole number 1 to 100",
                            name, c->label);
        c->instance_count = (int)cnt->valuedouble;
    }
    const cJSON *cost = cJSON_GetObjectItemCaseSensitive(o, "cost_at_capacity");
    const cJSON *usd = cJSON_GetObjectItemCaseSensitive(cost, "usd_per_hour");
    c->usd_per_hour = NAN;
    if (cost && !cJSON_IsNull(cost) && !cJSON_IsObject(cost))
        return buf_fail(err, CANDFILE_ERR_INPUT,
                        "%s: candidate %s: cost_at_capacity must be an object", name, c->label);
    if (usd && !cJSON_IsNull(usd)) {
        if (!cJSON_IsNumber(usd) || !(usd->valuedouble > 0) || usd->valuedouble > 1e6)
            return buf_fail(err, CANDFILE_ERR_INPUT,
                            "%s: candidate %s: cost_at_capacity.usd_per_hour must be a price "
                            "above 0 (USD)",
                            name, c->label);
        c->usd_per_hour = usd->valuedouble;
    }
    return 0;
}

int candfile_parse(const char *text, size_t len, const char *name, struct candfile *f,
                   struct buf *err) {
    memset(f, 0, sizeof *f);
    cJSON *doc = cJSON_ParseWithLength(text ? text : "", len);
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(doc, "format");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "candidates");
    int rc = 0;
    if (!doc && cJSON_GetErrorPtr())
        rc = buf_fail(err, CANDFILE_ERR_INPUT, "%s: not valid JSON", name);
    else if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, CANDFILE_FORMAT) != 0)
        rc = buf_fail(err, CANDFILE_ERR_INPUT, "%s: format is not \"%s\"", name, CANDFILE_FORMAT);
    else if (!cJSON_IsNumber(ver) || ver->valuedouble != CANDFILE_VERSION)
        rc = buf_fail(err, CANDFILE_ERR_INPUT, "%s: version must be %d", name, CANDFILE_VERSION);
    else if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) < 1 ||
             cJSON_GetArraySize(list) > CANDFILE_MAX)
        rc = buf_fail(err, CANDFILE_ERR_INPUT, "%s: candidates must be a list of 1 to %d", name,
                      CANDFILE_MAX);
    else if (candfile_str(doc, "slo", false, f->slo, sizeof f->slo, name, 0, err) < 0)
        rc = buf_fail(err, CANDFILE_ERR_INPUT, "%s: slo must be a string such as \"ttft:p90:1\"",
                      name);
    const cJSON *o, *each = list;
    if (rc) each = NULL;
    cJSON_ArrayForEach(o, each) {
        if ((rc = candfile_cand(o, name, f->n, &f->c[f->n], err)) < 0) break;
        for (size_t j = 0; j < f->n; j++)
            if (strcmp(f->c[j].label, f->c[f->n].label) == 0) {
                rc = buf_fail(err, CANDFILE_ERR_INPUT, "%s: label %s is given twice", name,
                              f->c[j].label);
                break;
            }
        if (rc < 0) break;
        f->n++;
    }
    cJSON_Delete(doc);
    return rc < 0 ? CANDFILE_ERR_INPUT : 0;
}

int candfile_read(const char *dir, struct candfile *f, struct buf *err) {
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, CANDFILE_NAME) >= (int)sizeof path)
        return buf_fail(err, CANDFILE_ERR_INPUT, "%s: path too long", dir);
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return buf_fail(err, CANDFILE_ERR_INPUT,
                        "%s: not a folder (--candidates wants the "
                        "folder of an sm-suite --candidates run)",
                        dir);
    if (stat(path, &st) < 0)
        return buf_fail(err, CANDFILE_ERR_INPUT,
                        "%s: no %s: not the folder of an sm-suite --candidates run", dir,
                        CANDFILE_NAME);
    if (!S_ISREG(st.st_mode) || st.st_size > CANDFILE_SIZE_MAX)
        return buf_fail(err, CANDFILE_ERR_INPUT, "%s: not a file of at most %d bytes", path,
                        CANDFILE_SIZE_MAX);
    struct rfile_map m = {0};
    if (rfile_map_open(path, &m, err) < 0) return CANDFILE_ERR_INPUT;
    int rc = candfile_parse(m.data, m.len, path, f, err);
    rfile_map_close(&m);
    return rc;
}
