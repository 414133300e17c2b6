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

#include "cwdoc.h"
#include "readall.h"
#include "rfmt.h"
#include "safeopen.h"

static long suite_files_count(const cJSON *counts, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(counts, name);
    return cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
}

static void suite_files_errors_text(const cJSON *errors, char *out, size_t len) {
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

static int suite_files_from_json(const cJSON *root, const char *path,
                                 struct suite_files_result *r) {
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(root, RFMT_COUNTS);
    const cJSON *reason = cJSON_GetObjectItemCaseSensitive(root, RFMT_PARTIAL_REASON);
    struct rfmt_head head;
    struct buf why;
    buf_init(&why, 512);
    int rc = rfmt_head_parse(root, path, &head, &why);
    buf_free(&why);
    if (rc || !cJSON_IsObject(counts)) return SUITE_FILES_ERR_FORMAT;
    r->partial = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(root, RFMT_PARTIAL));
    if (cJSON_IsString(reason)) snprintf(r->reason, sizeof r->reason, "%s", reason->valuestring);
    r->sent = suite_files_count(counts, RFMT_COUNTS_SENT);
    r->ok = suite_files_count(counts, RFMT_COUNTS_OK);
    r->failed = suite_files_count(counts, RFMT_COUNTS_FAILED);
    suite_files_errors_text(cJSON_GetObjectItemCaseSensitive(counts, RFMT_COUNTS_ERRORS), r->errors,
                            sizeof r->errors);
    const cJSON *ended = cJSON_GetObjectItemCaseSensitive(root, RFMT_ENDED_AT);
    if (head.started_at && cwdoc_time(head.started_at, strlen(head.started_at), &r->started))
        r->started = 0;
    if (!cJSON_IsString(ended) ||
        cwdoc_time(ended->valuestring, strlen(ended->valuestring), &r->ended))
        r->ended = 0;
    return SUITE_FILES_OK;
}

int suite_files_result_read(const char *path, struct suite_files_result *r, struct buf *err) {
    struct buf b;
    memset(r, 0, sizeof *r);
    buf_init(&b, SUITE_FILES_RESULT_MAX);
    int rc = readall_path(path, &b);
    cJSON *root = rc == 0 ? cJSON_ParseWithLength(buf_str(&b), b.len) : NULL;
    buf_free(&b);
    if (rc == ENOENT) return SUITE_FILES_ABSENT;
    if (rc > 0)
        return buf_fail(err, SUITE_FILES_ERR_IO, "%s: cannot be read: %s", path, strerror(rc));
    if (rc < 0 && rc != BUF_ERR_CAP) return buf_fail(err, SUITE_FILES_ERR_NOMEM, "out of memory");
    rc = root ? suite_files_from_json(root, path, r) : SUITE_FILES_ERR_FORMAT;
    cJSON_Delete(root);
    if (rc < 0) buf_fail(err, rc, "%s: not a wrk-sagemaker result file", path);
    return rc;
}

int suite_files_mkdirs(const char *path, struct buf *err) {
    char tmp[4096];
    struct stat st;
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return buf_fail(err, SUITE_FILES_ERR_IO, "cannot create %.64s...: %s", path,
                        strerror(ENAMETOOLONG));
    for (char *p = tmp + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return buf_fail(err, SUITE_FILES_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
        *p = c;
        if (!c) break;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return SUITE_FILES_OK;
    return buf_fail(err, SUITE_FILES_ERR_IO, "cannot create %s: %s", path, strerror(ENOTDIR));
}

int suite_files_dir_state(const char *path, const char *ignore) {
    struct stat st;
    if (stat(path, &st) != 0) return errno == ENOENT ? SUITE_FILES_DIR_NONE : SUITE_FILES_DIR_OTHER;
    if (!S_ISDIR(st.st_mode)) return SUITE_FILES_DIR_OTHER;
    DIR *d = opendir(path);
    if (!d) return SUITE_FILES_DIR_OTHER;
    int state = SUITE_FILES_DIR_EMPTY;
    const struct dirent *e;
    while (state == SUITE_FILES_DIR_EMPTY && (e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            (!ignore || strcmp(e->d_name, ignore) != 0))
            state = SUITE_FILES_DIR_FULL;
    closedir(d);
    return state;
}

int suite_files_copy(const char *from, const char *to, struct buf *err) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = readall_path(from, &b);
    if (rc) {
        buf_free(&b);
        return rc > 0 ? buf_fail(err, SUITE_FILES_ERR_IO, "cannot read %s: %s", from, strerror(rc))
                      : buf_fail(err, SUITE_FILES_ERR_NOMEM, "out of memory");
    }
    rc = suite_files_write_atomic(to, buf_str(&b), b.len, err);
    buf_free(&b);
    return rc;
}

int suite_files_move_into(const char *path, const char *dir, struct buf *err) {
    char *copy = strdup(path), *to = NULL;
    int rc = SUITE_FILES_OK;
    if (!copy || asprintf(&to, "%s/%s", dir, basename(copy)) < 0) {
        to = NULL;
        rc = buf_fail(err, SUITE_FILES_ERR_NOMEM, "out of memory");
    } else if (access(path, F_OK) != 0) {
        if (errno != ENOENT)
            rc = buf_fail(err, SUITE_FILES_ERR_IO, "cannot move %s: %s", path, strerror(errno));
    } else if ((rc = suite_files_mkdirs(dir, err)) == SUITE_FILES_OK &&
               safeopen_rename(path, to, err) != 0) { /* never into a linked folder */
        rc = SUITE_FILES_ERR_IO;
    }
    free(copy);
    free(to);
    return rc;
}

/* Writes all of text to fd. */
static bool suite_files_write_all(int fd, const char *text, size_t len) {
    while (len > 0) {
        ssize_t w = write(fd, text, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        text += w;
        len -= (size_t)w;
    }
    return true;
}

int suite_files_write_atomic(const char *path, const char *text, size_t len, struct buf *err) {
    /* never through a link, in the file's folder nor at its name (safeopen.h) */
    int rc = safeopen_write(path, NULL, text, len, 0644, err);
    return rc == SAFEOPEN_ERR_NOMEM ? SUITE_FILES_ERR_NOMEM : rc < 0 ? SUITE_FILES_ERR_IO : 0;
}

int suite_files_append(const char *path, const char *text, struct buf *err) {
    int fd = safeopen_path(path, NULL, 0644, SAFEOPEN_APPEND, err);
    if (fd < 0) return fd == SAFEOPEN_ERR_NOMEM ? SUITE_FILES_ERR_NOMEM : SUITE_FILES_ERR_IO;
    bool ok = suite_files_write_all(fd, text, strlen(text));
    ok = close(fd) == 0 && ok;
    return ok ? SUITE_FILES_OK
              : buf_fail(err, SUITE_FILES_ERR_IO, "cannot write %s: %s", path, strerror(errno));
}

int suite_files_result_sum(const char *path, const char *step, const char *label, long sum[3],
                           struct buf *lines) {
    struct suite_files_result res;
    if (suite_files_result_read(path, &res, NULL) != SUITE_FILES_OK) return SUITE_FILES_OK;
    sum[0] += res.sent;
    sum[1] += res.ok;
    sum[2] += res.failed;
    int head = (int)strcspn(res.reason, ":");
    if ((res.failed || res.partial) &&
        buf_addf(lines, "  %-18s %-16s %ld of %ld failed%s%s%s%.*s\n", step, label, res.failed,
                 res.sent, res.errors[0] ? ": " : "", res.errors, res.partial ? "; partial: " : "",
                 res.partial ? head : 0, res.reason) != BUF_OK)
        return SUITE_FILES_ERR_NOMEM;
    return SUITE_FILES_OK;
}
