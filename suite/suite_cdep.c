#include "suite_cdep.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonw.h"

void suite_cdep_name(const char *run, size_t i, const char *label, char out[64]) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)run; *p; p++) h = (h ^ *p) * 16777619u;
    int n = snprintf(out, 64, "c%zu-%08x-", i + 1, (unsigned)h);
    for (const char *p = label; *p && n < 63; p++) {
        bool alnum =
            (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
        out[n++] = alnum ? *p : '-';
    }
    while (n > 0 && out[n - 1] == '-') n--;
    out[n] = '\0';
}

int suite_cdep_quotas_read(const char *json, size_t len, struct suite_cdep_quota *q, size_t max,
                           size_t *n, struct buf *err) {
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "quotas"), *r;
    int rc = cJSON_IsArray(rows) ? SUITE_CDEP_OK
                                 : buf_fail(err, SUITE_CDEP_ERR_REFUSED,
                                            "sm-endpoint quotas --json gave no \"quotas\" list");
    *n = 0;
    const cJSON *each = rc ? NULL : rows;
    cJSON_ArrayForEach(r, each) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "instance_type");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "quota");
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(r, "in_use");
        if (!cJSON_IsString(t) || strlen(t->valuestring) >= sizeof q->type || !cJSON_IsNumber(u) ||
            !(cJSON_IsNumber(v) || cJSON_IsNull(v))) {
            rc = buf_fail(err, SUITE_CDEP_ERR_REFUSED,
                          "sm-endpoint quotas --json: a row without instance_type, quota, in_use");
            break;
        }
        if (*n == max) break;
        struct suite_cdep_quota *x = &q[(*n)++];
        snprintf(x->type, sizeof x->type, "%s", t->valuestring);
        x->quota = cJSON_IsNumber(v) ? v->valuedouble : -1;
        x->in_use = (long)u->valuedouble;
        x->ours = 0;
    }
    cJSON_Delete(root);
    return rc;
}

static const struct suite_cdep_quota *suite_cdep_find(const struct suite_cdep_quota *q, size_t nq,
                                                      const char *type) {
    for (size_t i = 0; i < nq; i++)
        if (strcmp(q[i].type, type) == 0) return &q[i];
    return NULL;
}

/* Instances of q's type that pair k's deploy specs need. */
static long suite_cdep_need(const struct suite_cand_list *l, size_t k, const char *type) {
    size_t ia = 2 * k, ib = 2 * k + 1 < l->n ? 2 * k + 1 : 2 * k;
    long need = 0;
    for (size_t i = ia; i <= ib; i++)
        if (l->c[i].deploy && strcmp(l->c[i].instance_type, type) == 0)
            need += l->c[i].instance_count;
    return need;
}

int suite_cdep_plan(const struct suite_cand_list *l, const struct suite_cdep_quota *q, size_t nq,
                    const bool *done, const char *region, int *wave, int *nwaves, struct buf *err) {
    size_t np = (l->n + 1) / 2;
    double free_now[SUITE_CDEP_TYPE_MAX] = {0}, left[SUITE_CDEP_TYPE_MAX] = {0};
    if (nq > SUITE_CDEP_TYPE_MAX) nq = SUITE_CDEP_TYPE_MAX;
    for (size_t t = 0; t < nq; t++) free_now[t] = q[t].quota - (double)(q[t].in_use - q[t].ours);
    /* every pair fits alone, or nothing runs */
    for (size_t k = 0; k < np; k++) {
        if (done[k]) continue;
        size_t ia = 2 * k, ib = 2 * k + 1 < l->n ? 2 * k + 1 : 2 * k;
        for (size_t i = ia; i <= ib; i++) {
            if (!l->c[i].deploy) continue;
            const char *type = l->c[i].instance_type;
            const struct suite_cdep_quota *x = suite_cdep_find(q, nq, type);
            long need = suite_cdep_need(l, k, type);
            char who[256]; /* labels are at most 64 bytes */
            if (need > l->c[i].instance_count && ia != ib)
                snprintf(who, sizeof who, "candidates %.64s and %.64s, measured together, need",
                         l->c[ia].label, l->c[ib].label);
            else
                snprintf(who, sizeof who, "candidate %.64s needs", l->c[i].label);
            if (!x || x->quota < 0)
                return buf_fail(err, SUITE_CDEP_ERR_REFUSED,
                                "--candidates: %s %ld %s: %s has no quota \"%s for endpoint "
                                "usage\" (sm-endpoint quotas); nothing was created",
                                who, need, type, region, type);
            if ((double)need > free_now[x - q])
                return buf_fail(err, SUITE_CDEP_ERR_REFUSED,
                                "--candidates: %s %ld %s: the quota \"%s for endpoint usage\" in "
                                "%s is %.0f with %ld in use by others; nothing was created",
                                who, need, type, type, region, x->quota, x->in_use - x->ours);
        }
    }
    /* waves: consecutive pairs while their needs fit at once */
    int w = -1;
    for (size_t k = 0; k < np; k++) {
        wave[k] = -1;
        if (done[k]) continue;
        bool fits = w >= 0;
        for (size_t t = 0; fits && t < nq; t++) fits = suite_cdep_need(l, k, q[t].type) <= left[t];
        if (!fits) {
            w++;
            memcpy(left, free_now, sizeof left);
        }
        for (size_t t = 0; t < nq; t++) left[t] -= (double)suite_cdep_need(l, k, q[t].type);
        wave[k] = w;
    }
    *nwaves = w + 1;
    return SUITE_CDEP_OK;
}

int suite_cdep_manifest_json(const struct suite_cand_list *l, const struct suite_cdep_manifest *m,
                             struct buf *out) {
    int rc = buf_adds(out, "{\"run\": ") || jsonw_cstr(out, m->run) ||
             buf_adds(out, ",\n \"deployments\": [");
    const char *sep = "";
    for (size_t i = 0; !rc && i < l->n; i++) {
        if (!l->c[i].deploy || !m->named[i]) continue;
        char name[64];
        suite_cdep_name(m->run, i, l->c[i].label, name);
        rc = buf_addf(out, "%s\n  {\"label\": ", sep) || jsonw_cstr(out, l->c[i].label) ||
             buf_adds(out, ", \"endpoint\": ") || jsonw_cstr(out, name) ||
             buf_addf(out, ", \"deleted\": %s}", m->deleted[i] ? "true" : "false");
        sep = ",";
    }
    if (!rc) rc = buf_adds(out, "],\n \"pairs_done\": [");
    sep = "";
    for (size_t k = 0; !rc && k < (l->n + 1) / 2; k++)
        if (m->done[k]) {
            rc = buf_addf(out, "%s%zu", sep, k + 1);
            sep = ", ";
        }
    if (!rc) rc = buf_adds(out, "]}\n");
    return rc ? SUITE_CDEP_ERR_NOMEM : SUITE_CDEP_OK;
}

static bool suite_cdep_run_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n >= SUITE_CDEP_RUN_MAX) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

int suite_cdep_manifest_read(const char *text, size_t len, const char *name,
                             const struct suite_cand_list *l, struct suite_cdep_manifest *m,
                             struct buf *err) {
    memset(m, 0, sizeof *m);
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(root, "run");
    const cJSON *deps = cJSON_GetObjectItemCaseSensitive(root, "deployments");
    const cJSON *done = cJSON_GetObjectItemCaseSensitive(root, "pairs_done"), *e;
    int rc = SUITE_CDEP_OK;
    if (!cJSON_IsString(run) || !suite_cdep_run_ok(run->valuestring) || !cJSON_IsArray(deps) ||
        !cJSON_IsArray(done))
        rc = buf_fail(err, SUITE_CDEP_ERR_REFUSED,
                      "%.200s: not a candidates run's deployments (run, deployments, pairs_done)",
                      name);
    else
        snprintf(m->run, sizeof m->run, "%s", run->valuestring);
    const cJSON *each = rc ? NULL : deps;
    cJSON_ArrayForEach(e, each) {
        const cJSON *lab = cJSON_GetObjectItemCaseSensitive(e, "label");
        const cJSON *ep = cJSON_GetObjectItemCaseSensitive(e, "endpoint");
        const cJSON *del = cJSON_GetObjectItemCaseSensitive(e, "deleted");
        size_t i = 0;
        while (cJSON_IsString(lab) && i < l->n && strcmp(l->c[i].label, lab->valuestring) != 0) i++;
        char want[64] = "";
        if (i < l->n) suite_cdep_name(m->run, i, l->c[i].label, want);
        if (!cJSON_IsString(lab) || i == l->n || !l->c[i].deploy || !cJSON_IsString(ep) ||
            strcmp(ep->valuestring, want) != 0 || !cJSON_IsBool(del)) {
            rc = buf_fail(err, SUITE_CDEP_ERR_REFUSED,
                          "%.200s: a deployment the candidates file does not name as this run's "
                          "deploy spec (was the file changed? give a new --out)",
                          name);
            break;
        }
        m->named[i] = true;
        m->deleted[i] = cJSON_IsTrue(del);
    }
    each = rc ? NULL : done;
    size_t np = (l->n + 1) / 2;
    cJSON_ArrayForEach(e, each) {
        double k = cJSON_IsNumber(e) ? e->valuedouble : -1;
        if (!(k >= 1 && k <= (double)np) || k != floor(k)) {
            rc = buf_fail(err, SUITE_CDEP_ERR_REFUSED, "%.200s: pairs_done: want pair numbers",
                          name);
            break;
        }
        m->done[(size_t)k - 1] = true;
    }
    cJSON_Delete(root);
    return rc;
}
