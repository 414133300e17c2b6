#include "rkey.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jscan.h"
#include "rfmt.h"
#include "smname.h"

static const char rkey_journal[] = ".journal.jsonl";

/* A file name: 1 to RKEY_NAME_MAX letters, digits, '-', '_' and '.', not starting with '.'. */
static bool rkey_name_ok(const char *s, size_t n) {
    if (n == 0 || n > RKEY_NAME_MAX || s[0] == '.') return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_' || s[i] == '.'))
            return false;
    return true;
}

static bool rkey_ends(const char *s, size_t n, const char *tail) {
    size_t t = strlen(tail);
    return n >= t && memcmp(s + n - t, tail, t) == 0;
}

/* The top-level members of a JSON document but "records", as an object. */
static cJSON *rkey_document_head(const char *data, size_t len) {
    struct jscan s;
    struct jscan_str key;
    size_t count = 0;
    int more;
    cJSON *head = cJSON_CreateObject();
    jscan_init(&s, data, len);
    if (!head || jscan_object(&s) < 0) goto fail;
    while ((more = jscan_member(&s, &count, &key)) > 0) {
        jscan_peek(&s);
        const char *from = s.p;
        if (jscan_skip(&s) < 0) goto fail;
        if (jscan_str_is(&key, RFMT_RECORDS)) continue;
        char name[64];
        if (key.escaped || key.n >= sizeof name) continue;
        memcpy(name, key.s, key.n);
        name[key.n] = '\0';
        cJSON *v = cJSON_ParseWithLength(from, (size_t)(s.p - from));
        if (!v || cJSON_GetObjectItemCaseSensitive(head, name) ||
            !cJSON_AddItemToObject(head, name, v)) {
            cJSON_Delete(v);
            goto fail;
        }
    }
    if (more == 0) return head;
fail:
    cJSON_Delete(head);
    return NULL;
}

static int rkey_copy_name(char dst[65], const char *v, const char *what, const char *path,
                          struct buf *err) {
    if (!v || !smname_label_ok(v, strlen(v)))
        return buf_fail(err, RKEY_ERR_INPUT,
                        "%s: its %s is missing or not a name of letters, digits, '-', '_' and "
                        "'.' (a result file of wrk-sagemaker has one)",
                        path, what);
    snprintf(dst, 65, "%s", v);
    return RKEY_OK;
}

int rkey_head_of(const char *path, const char *data, size_t len, struct rkey_head *out,
                 struct buf *err) {
    bool journal = rkey_ends(path, strlen(path), rkey_journal);
    const char *nl = journal ? memchr(data, '\n', len) : NULL;
    cJSON *head = journal ? cJSON_ParseWithLength(data, nl ? (size_t)(nl - data) : len)
                          : rkey_document_head(data, len);
    struct rfmt_head h;
    struct buf why;
    buf_init(&why, 1024);
    memset(out, 0, sizeof *out);
    int rc = head ? RKEY_OK
                  : buf_fail(err, RKEY_ERR_INPUT, "%s: not a JSON %s", path,
                             journal ? "journal (its first line is no object)" : "document");
    if (!rc && rfmt_head_parse(head, path, &h, &why))
        rc = buf_fail(err, RKEY_ERR_INPUT, "%s", buf_str(&why));
    if (!rc) rc = rkey_copy_name(out->run_id, h.run_id, "run_id", path, err);
    if (!rc) rc = rkey_copy_name(out->label, h.label, "label", path, err);
    if (!rc) {
        out->shard = h.shard.index;
        out->count = h.shard.count;
    }
    buf_free(&why);
    cJSON_Delete(head);
    return rc;
}

int rkey_key(const char *prefix, const struct rkey_head *h, const char *name, struct buf *key,
             struct buf *err) {
    size_t n = strlen(name);
    const char *ext = rkey_ends(name, n, rkey_journal) ? rkey_journal
                      : rkey_ends(name, n, ".json")    ? ".json"
                                                       : NULL;
    if (!ext || !rkey_name_ok(name, n - strlen(ext)))
        return buf_fail(err, RKEY_ERR_INPUT,
                        "%s: a result file's name is NAME.json or NAME.journal.jsonl, NAME of "
                        "letters, digits, '-', '_' and '.'",
                        name);
    int rc = buf_addf(key, "%s%s%s/%s/%.*s", prefix, *prefix ? "/" : "", h->run_id, h->label,
                      (int)(n - strlen(ext)), name);
    if (!rc && h->count > 1) rc = buf_addf(key, ".shard-%ld-of-%ld", h->shard, h->count);
    if (!rc) rc = buf_adds(key, ext);
    return rc ? RKEY_ERR_NOMEM : RKEY_OK;
}

int rkey_local(const char *run_prefix, const char *key, const char *dir, struct buf *path,
               struct buf *folder, struct buf *err) {
    size_t pre = strlen(run_prefix);
    const char *rest = strncmp(key, run_prefix, pre) == 0 ? key + pre : NULL;
    const char *slash = rest ? strchr(rest, '/') : NULL;
    const char *name = slash ? slash + 1 : NULL;
    if (!slash || !smname_label_ok(rest, (size_t)(slash - rest)) || strchr(name, '/') ||
        !rkey_name_ok(name, strlen(name)))
        return buf_fail(err, RKEY_ERR_INPUT,
                        "the key '%.300s' is not %sLABEL/NAME (NAME of letters, digits, '-', '_' "
                        "and '.'): left alone",
                        key, run_prefix);
    size_t dn = strlen(dir);
    while (dn > 1 && dir[dn - 1] == '/') dn--;
    int rc = buf_addf(folder, "%.*s/%.*s", (int)dn, dir, (int)(slash - rest), rest) ||
             buf_addf(path, "%s/%s", buf_str(folder), name);
    return rc ? RKEY_ERR_NOMEM : RKEY_OK;
}
