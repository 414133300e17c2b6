/* peerread: a side's runs for a peer's view (sm-compare --view), read from result
 * files, folders of them, vLLM's and AIPerf's own files (peerread.h). */
#include "peerread.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "aiperfimport.h"
#include "rfile.h"
#include "vllmimport.h"

static int peerread_cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int peerread_file(struct peerview_side *s, const char *path, struct buf *err) {
    struct rfile *rf = NULL;
    if (aiperfimport_is(path)) return aiperfimport_read(s, path, err);
    int rc = rfile_read(path, &rf, err);
    if (rc < 0) return rc;
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(rf->head, "time_scale");
    double scale = cJSON_IsNumber(ts) && ts->valuedouble > 0 ? ts->valuedouble : 1;
    if (!rf->has_records && !rf->journal && vllmimport_is(rf->head)) {
        rc = vllmimport_add(s, rf->head, path, err);
        rfile_free(rf);
        return rc;
    }
    rc = rf->has_records || rf->journal ? peerview_add_file(s, rf, scale) : 0;
    rfile_free(rf);
    return rc < 0 ? buf_fail(err, rc, "out of memory") : 0;
}

/* A folder's result files: its *.json, sorted by name (journals hold the same
 * records as their result file, and are left out). */
static int peerread_dir(struct peerview_side *s, const char *dir, struct buf *err) {
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    if (!d)
        return buf_fail(err, PEERVIEW_ERR_INPUT, "%s: cannot read the folder: %s", dir,
                        strerror(errno));
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **p = realloc(names, cap * sizeof *p);
            if (!p) {
                rc = -1;
                break;
            }
            names = p;
        }
        size_t need = strlen(dir) + len + 2;
        if (!(names[n] = malloc(need))) {
            rc = -1;
            break;
        }
        snprintf(names[n++], need, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (rc < 0) rc = buf_fail(err, PEERVIEW_ERR_NOMEM, "out of memory");
    if (n) qsort(names, n, sizeof *names, peerread_cmp_str);
    for (size_t i = 0; rc == 0 && i < n; i++) rc = peerread_file(s, names[i], err);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return rc;
}

int peerread_paths(struct peerview_side *s, char *const *paths, size_t n, struct buf *err) {
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        int rc = stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode) ? peerread_dir(s, paths[i], err)
                                                                 : peerread_file(s, paths[i], err);
        if (rc < 0) return rc;
    }
    return 0;
}
