#include "epfacts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "datadir.h"
#include "readall.h"

#define EPFACTS_FILE_MAX ((size_t)1 << 20)
#define EPFACTS_FORMAT   "wrk-sagemaker-endpoint-facts"

#ifndef SM_SOURCE_DIR
#define SM_SOURCE_DIR "."
#endif

char *epfacts_default_path(void) {
    return datadir_path(SM_SOURCE_DIR, "tools/endpoint-facts.json");
}

/* A string member copied into dst (size bytes, longer is an error). */
static int epfacts_str(const cJSON *o, const char *key, const char *where, char *dst, size_t size,
                       bool required, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v && !required) {
        dst[0] = '\0';
        return EPFACTS_OK;
    }
    if (!v || !cJSON_IsString(v) || !v->valuestring || strlen(v->valuestring) >= size)
        return buf_fail(err, EPFACTS_ERR_FORMAT, "%s.%s: want a string of at most %zu bytes", where,
                        key, size - 1);
    for (const char *p = v->valuestring; *p; p++)
        if ((unsigned char)*p < 0x20)
            return buf_fail(err, EPFACTS_ERR_FORMAT, "%s.%s: a control character", where, key);
    memcpy(dst, v->valuestring, strlen(v->valuestring) + 1);
    return EPFACTS_OK;
}

static bool epfacts_region_ok(const char *s) {
    size_t n = strlen(s);
    return n > 0 && n < 32 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

/* At most 40 bytes of s for a message: a byte outside printable ASCII becomes '?'. */
static const char *epfacts_shown(const char *s, char out[41]) {
    size_t i = 0;
    for (; s && s[i] && i < 40; i++) out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    out[i] = '\0';
    return out;
}

/* An instance type: "ml." and lowercase letters, digits and dots, under 48 bytes. */
static bool epfacts_type_ok(const char *s) {
    size_t n = s ? strlen(s) : 0;
    return n > 3 && n < 48 && strncmp(s, "ml.", 3) == 0 &&
           strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789.") == n;
}

static int epfacts_accounts(const cJSON *images, const char *name, struct epfacts *f,
                            struct buf *err) {
    const cJSON *acc = cJSON_GetObjectItemCaseSensitive(images, "accounts"), *a;
    if (!cJSON_IsObject(acc))
        return buf_fail(err, EPFACTS_ERR_FORMAT, "%s: images.accounts: want an object", name);
    cJSON_ArrayForEach(a, acc) {
        if (f->n_accounts == EPFACTS_MAX_REGIONS)
            return buf_fail(err, EPFACTS_ERR_FORMAT, "%s: images.accounts: more than %d regions",
                            name, EPFACTS_MAX_REGIONS);
        if (!epfacts_region_ok(a->string) || !cJSON_IsString(a) || strlen(a->valuestring) != 12 ||
            strspn(a->valuestring, "0123456789") != 12) {
            char shown[41];
            return buf_fail(err, EPFACTS_ERR_FORMAT,
                            "%s: images.accounts: \"%s\": want a region and a 12-digit account",
                            name, epfacts_shown(a->string, shown));
        }
        struct epfacts_account *e = &f->accounts[f->n_accounts++];
        snprintf(e->region, sizeof e->region, "%s", a->string);
        snprintf(e->account, sizeof e->account, "%s", a->valuestring);
    }
    return EPFACTS_OK;
}

static int epfacts_images(const cJSON *root, const char *name, struct epfacts *f, struct buf *err) {
    const cJSON *im = cJSON_GetObjectItemCaseSensitive(root, "images");
    char where[96];
    snprintf(where, sizeof where, "%.80s: images", name);
    if (!cJSON_IsObject(im)) return buf_fail(err, EPFACTS_ERR_FORMAT, "%s: want an object", where);
    int rc = epfacts_str(im, "repository", where, f->repository, sizeof f->repository, true, err);
    if (!rc) rc = epfacts_str(im, "tag", where, f->tag, sizeof f->tag, true, err);
    if (!rc)
        rc = epfacts_str(im, "tag_source", where, f->tag_source, sizeof f->tag_source, true, err);
    if (!rc)
        rc = epfacts_str(im, "newest_rule", where, f->newest_rule, sizeof f->newest_rule, false,
                         err);
    if (!rc)
        rc = epfacts_str(im, "accounts_source", where, f->accounts_source,
                         sizeof f->accounts_source, true, err);
    if (!rc && (!f->repository[0] || strpbrk(f->repository, " :@/") || !f->tag[0] ||
                strpbrk(f->tag, " :@/")))
        rc = buf_fail(err, EPFACTS_ERR_FORMAT,
                      "%s: repository and tag are names without spaces, "
                      "':', '@' or '/'",
                      where);
    return rc ? rc : epfacts_accounts(im, name, f, err);
}

static int epfacts_types(const cJSON *root, const char *name, struct epfacts *f, struct buf *err) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, "instance_types");
    const cJSON *l4 = cJSON_GetObjectItemCaseSensitive(it, "l4_single_gpu"), *t;
    if (!it) return EPFACTS_OK;
    if (!cJSON_IsArray(l4))
        return buf_fail(err, EPFACTS_ERR_FORMAT,
                        "%s: instance_types.l4_single_gpu: want a list of instance types", name);
    cJSON_ArrayForEach(t, l4) {
        if (!cJSON_IsString(t) || !epfacts_type_ok(t->valuestring) || f->n_l4 == EPFACTS_MAX_TYPES)
            return buf_fail(err, EPFACTS_ERR_FORMAT,
                            "%s: instance_types.l4_single_gpu: want at most %d types such as "
                            "ml.g6.xlarge",
                            name, EPFACTS_MAX_TYPES);
        snprintf(f->l4[f->n_l4++], 48, "%s", t->valuestring);
    }
    return EPFACTS_OK;
}

static int epfacts_prices(const cJSON *root, const char *name, struct epfacts *f, struct buf *err) {
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(root, "prices");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(pr, "usd_per_hour"), *p;
    char where[96];
    if (!pr) return EPFACTS_OK;
    if (!cJSON_IsArray(list))
        return buf_fail(err, EPFACTS_ERR_FORMAT, "%s: prices.usd_per_hour: want a list", name);
    cJSON_ArrayForEach(p, list) {
        snprintf(where, sizeof where, "%.60s: prices.usd_per_hour[%zu]", name, f->n_prices);
        if (f->n_prices == EPFACTS_MAX_PRICES || !cJSON_IsObject(p))
            return buf_fail(err, EPFACTS_ERR_FORMAT, "%s: want at most %d objects", where,
                            EPFACTS_MAX_PRICES);
        struct epfacts_price *e = &f->prices[f->n_prices];
        const cJSON *usd = cJSON_GetObjectItemCaseSensitive(p, "usd");
        int rc = epfacts_str(p, "instance_type", where, e->type, sizeof e->type, true, err);
        if (!rc) rc = epfacts_str(p, "region", where, e->region, sizeof e->region, true, err);
        if (!rc) rc = epfacts_str(p, "date", where, e->date, sizeof e->date, true, err);
        if (!rc) rc = epfacts_str(p, "source", where, e->source, sizeof e->source, true, err);
        if (!rc && (!cJSON_IsNumber(usd) || !(usd->valuedouble > 0) || usd->valuedouble > 1e4))
            rc = buf_fail(err, EPFACTS_ERR_FORMAT, "%s: usd: want a price above 0", where);
        if (rc) return rc;
        e->usd = usd->valuedouble;
        f->n_prices++;
    }
    return EPFACTS_OK;
}

int epfacts_parse(const char *text, size_t len, const char *name, struct epfacts *f,
                  struct buf *err) {
    memset(f, 0, sizeof *f);
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
    int rc = EPFACTS_OK;
    if (!cJSON_IsObject(root) || !fmt || !cJSON_IsString(fmt) || !fmt->valuestring ||
        strcmp(fmt->valuestring, EPFACTS_FORMAT) != 0 || !ver || !cJSON_IsNumber(ver) ||
        ver->valuedouble != 1)
        rc = buf_fail(err, EPFACTS_ERR_FORMAT,
                      "%s: not a facts file (JSON with \"format\": \"" EPFACTS_FORMAT
                      "\", \"version\": 1)",
                      name);
    if (!rc) rc = epfacts_images(root, name, f, err);
    if (!rc) rc = epfacts_types(root, name, f, err);
    if (!rc) rc = epfacts_prices(root, name, f, err);
    cJSON_Delete(root);
    return rc;
}

int epfacts_load(const char *path, struct epfacts *f, struct buf *err) {
    char *own = path ? NULL : epfacts_default_path();
    const char *p = path ? path : own;
    struct buf text;
    if (!p) return buf_fail(err, EPFACTS_ERR_NOMEM, "out of memory");
    buf_init(&text, EPFACTS_FILE_MAX);
    int rd = readall_path(p, &text), rc;
    if (rd)
        rc = buf_fail(err, rd == BUF_ERR_NOMEM ? EPFACTS_ERR_NOMEM : EPFACTS_ERR_IO, "%s: %s", p,
                      rd == BUF_ERR_CAP ? "larger than 1 MiB"
                      : rd > 0          ? strerror(rd)
                                        : "out of memory");
    else
        rc = epfacts_parse(buf_str(&text), text.len, p, f, err);
    buf_free(&text);
    free(own);
    return rc;
}

int epfacts_image(const struct epfacts *f, const char *region, struct buf *uri, struct buf *err) {
    buf_reset(uri);
    for (size_t i = 0; i < f->n_accounts; i++) {
        if (strcmp(f->accounts[i].region, region) != 0) continue;
        bool china = strncmp(region, "cn-", 3) == 0;
        return buf_addf(uri, "%s.dkr.ecr.%s.amazonaws.com%s/%s:%s", f->accounts[i].account, region,
                        china ? ".cn" : "", f->repository, f->tag)
                   ? buf_fail(err, EPFACTS_ERR_NOMEM, "out of memory")
                   : EPFACTS_OK;
    }
    return buf_fail(err, EPFACTS_ERR_FORMAT,
                    "no Deep Learning Containers account known for region %s: pass --image URI",
                    region);
}

const struct epfacts_price *epfacts_price(const struct epfacts *f, const char *type,
                                          const char *region) {
    for (size_t i = 0; i < f->n_prices; i++)
        if (strcmp(f->prices[i].type, type) == 0 && strcmp(f->prices[i].region, region) == 0)
            return &f->prices[i];
    return NULL;
}
