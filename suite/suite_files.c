#include "suite_files.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "readall.h"

static long count_of(const cJSON *counts, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(counts, name);
    return cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
}

static void errors_text(const cJSON *errors, char *out, size_t len) {
    const cJSON *e;
    size_t at = 0;
    out[0] = '\0';
    cJSON_ArrayForEach(e, errors) {
        if (!cJSON_IsNumber(e) || at >= len) continue;
        int n = snprintf(out + at, len - at, "%s%ld %s", at ? ", " : "", (long)e->valuedouble,
                         e->string);
        at += n > 0 ? (size_t)n : 0;
    }
}

static int from_json(const cJSON *root, struct suite_result *r) {
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(root, "counts");
    const cJSON *reason = cJSON_GetObjectItemCaseSensitive(root, "partial_reason");
    if (!cJSON_IsString(format) || strcmp(format->valuestring, "wrk-sagemaker-result") != 0 ||
        !cJSON_IsObject(counts)) {
        snprintf(r->reason, sizeof r->reason, "not a wrk-sagemaker result file");
        return -1;
    }
    r->partial = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, "partial"));
    if (cJSON_IsString(reason)) snprintf(r->reason, sizeof r->reason, "%s", reason->valuestring);
    r->sent = count_of(counts, "sent");
    r->ok = count_of(counts, "ok");
    r->failed = count_of(counts, "failed");
    errors_text(cJSON_GetObjectItemCaseSensitive(counts, "errors"), r->errors, sizeof r->errors);
    return 0;
}

int suite_result_read(const char *path, struct suite_result *r) {
    struct buf b;
    memset(r, 0, sizeof *r);
    buf_init(&b, BUF_NO_CAP);
    int rc = readall_path(path, &b);
    if (rc == ENOENT) {
        buf_free(&b);
        return 1;
    }
    cJSON *root = rc == 0 ? cJSON_ParseWithLength(buf_str(&b), b.len) : NULL;
    buf_free(&b);
    if (!root) {
        snprintf(r->reason, sizeof r->reason, "%s", rc ? "cannot be read" : "not JSON");
        return -1;
    }
    rc = from_json(root, r);
    cJSON_Delete(root);
    return rc;
}

int suite_mkdirs(const char *path) {
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = tmp + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return -1;
        *p = c;
        if (!c) break;
    }
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
}

int suite_dir_state(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) return -1;
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return -1;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    int state = 1;
    struct dirent *e;
    while (state == 1 && (e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) state = 2;
    closedir(d);
    return state;
}

int suite_copy(const char *from, const char *to) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = readall_path(from, &b);
    if (rc) {
        buf_free(&b);
        errno = rc > 0 ? rc : ENOMEM;
        return -1;
    }
    rc = suite_write_atomic(to, buf_str(&b), b.len);
    buf_free(&b);
    return rc;
}

int suite_move_into(const char *path, const char *dir) {
    char *copy = strdup(path), *to = NULL;
    int rc = -1;
    if (!copy || asprintf(&to, "%s/%s", dir, basename(copy)) < 0) {
        to = NULL;
        goto done;
    }
    if (access(path, F_OK) != 0) {
        rc = errno == ENOENT ? 0 : -1;
        goto done;
    }
    if (suite_mkdirs(dir) == 0 && rename(path, to) == 0) rc = 0;
done:
    free(copy);
    free(to);
    return rc;
}

int suite_write_atomic(const char *path, const char *text, size_t len) {
    char *tmp;
    if (asprintf(&tmp, "%s.tmp%ld", path, (long)getpid()) < 0) return -1;
    FILE *f = fopen(tmp, "wb");
    int rc = -1;
    if (f) {
        bool ok = fwrite(text, 1, len, f) == len;
        ok = fclose(f) == 0 && ok;
        rc = ok && rename(tmp, path) == 0 ? 0 : -1;
        if (rc) unlink(tmp);
    }
    free(tmp);
    return rc;
}

int suite_append(const char *path, const char *text) {
    FILE *f = fopen(path, "a");
    if (!f) return -1;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}
