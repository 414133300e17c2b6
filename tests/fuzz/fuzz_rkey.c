/* Fuzzes sm-results' readers of outside bytes (tools/rkey.h): the head of a
 * result file or journal it pushes, and a key from a listing it fetches.
 * Input: a key on the first line, then a file's bytes (read as a result file,
 * then as a journal).
 *
 * A head read gives a run id and label of the label rule; a key's local path
 * is DIR/LABEL/NAME with neither part empty, "." or "..", nor holding '/'. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rkey.h"
#include "smname.h"

static void fuzz_path(const char *path) {
    static const char dir[] = "fetched/";
    if (strncmp(path, dir, sizeof dir - 1) != 0) abort();
    const char *label = path + sizeof dir - 1, *slash = strchr(label, '/');
    if (!slash || slash == label || !slash[1] || strchr(slash + 1, '/')) abort();
    if (label[0] == '.' || slash[1] == '.' || strstr(path, "/../") || strstr(path, "/./")) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *d = (const char *)data, *nl = memchr(d, '\n', size);
    size_t klen = nl ? (size_t)(nl - d) : size;
    char *key = strndup(d, klen);
    const char *file = nl ? nl + 1 : d + size;
    size_t flen = nl ? size - klen - 1 : 0;
    if (!key) return 0;
    struct buf path, folder, err;
    buf_init(&path, BUF_NO_CAP);
    buf_init(&folder, BUF_NO_CAP);
    buf_init(&err, 1024);
    if (rkey_local("runs/r1/", key, "fetched", &path, &folder, &err) == RKEY_OK)
        fuzz_path(buf_str(&path));
    static const char *const names[] = {"x.json", "x.journal.jsonl"};
    for (int i = 0; i < 2; i++) {
        struct rkey_head h;
        buf_reset(&err);
        if (rkey_head_of(names[i], file, flen, &h, &err) != RKEY_OK) continue;
        if (!smname_label_ok(h.run_id, strlen(h.run_id)) ||
            !smname_label_ok(h.label, strlen(h.label)) || h.count < 0 ||
            (h.count > 0 && h.shard >= h.count))
            abort();
    }
    buf_free(&path);
    buf_free(&folder);
    buf_free(&err);
    free(key);
    return 0;
}
