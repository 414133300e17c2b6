#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jmap.h"
#include "jsonw.h"
#include "rfield.h"
#include "rfmt.h"
#include "safeopen.h"

struct rec_file {
    char *result_path;
    char *root;          /* the folder the user named (safeopen.h), or NULL: the file's own */
    struct jmap journal; /* the header line, then a line per record; read back by rec_finish */
    cJSON *header;
    cJSON *extra; /* members only this file gets at the end (rec_set_more), or NULL */
    struct rec_counts counts;
};

struct rec_recorder {
    struct rec_file *files;
    size_t n_files;
    long long seq;
    struct buf line; /* the record being serialised */
};

int rec_new(struct rec_recorder **out) {
    struct rec_recorder *r = calloc(1, sizeof *r);
    if (!r) return REC_ERR_NOMEM;
    buf_init(&r->line, BUF_NO_CAP);
    *out = r;
    return REC_OK;
}

static void rec_counts_free(struct rec_counts *c) {
    for (size_t i = 0; i < c->n_errors; i++) free(c->errors[i].code);
    free(c->errors);
    free(c->first_error);
}

void rec_free(struct rec_recorder *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n_files; i++) {
        struct rec_file *f = &r->files[i];
        (void)jmap_close(&f->journal);
        free(f->result_path);
        free(f->root);
        cJSON_Delete(f->header);
        cJSON_Delete(f->extra);
        rec_counts_free(&f->counts);
    }
    free(r->files);
    buf_free(&r->line);
    free(r);
}

/* mkdir -p of the directory part of path. */
static int rec_mkdirs(const char *path, struct buf *err) {
    char *dir = strdup(path);
    if (!dir) return REC_ERR_NOMEM;
    int rc = REC_OK;
    for (char *p = strchr(dir + 1, '/'); p && rc == REC_OK; p = strchr(p + 1, '/')) {
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            rc = buf_fail(err, REC_ERR_IO, "cannot create the folder %s: %s", dir, strerror(errno));
        *p = '/';
    }
    free(dir);
    return rc;
}

/* Nothing of an earlier run is overwritten unless force, and then it is removed
 * (a symbolic link itself, never what it points to; never through a linked
 * folder: safeopen.h). */
static int rec_claim(const char *result_path, const char *journal_path, const char *root,
                     bool force, struct buf *err) {
    const char *paths[] = {result_path, journal_path};
    struct stat st;
    for (size_t i = 0; i < 2; i++) {
        int rc = force ? safeopen_remove(paths[i], root, err) : 0;
        if (rc) return rc == SAFEOPEN_ERR_LINK ? REC_ERR_LINK : REC_ERR_IO;
        if (!force && lstat(paths[i], &st) == 0)
            return buf_fail(err, REC_ERR_EXISTS,
                            "%s exists: a run never overwrites %s (move it, or pass --force)",
                            paths[i], i ? "an earlier run's journal" : "a result");
    }
    return REC_OK;
}

int rec_add_file(struct rec_recorder *r, const char *result_path, const char *journal_path,
                 const char *root, const cJSON *header, bool force, size_t *index_out,
                 struct buf *err) {
    if (!cJSON_IsObject(header)) return REC_ERR_INPUT;
    struct buf named; /* the folders made as named, links followed: root's, or the file's */
    buf_init(&named, BUF_NO_CAP);
    int rc = root ? buf_addf(&named, "%s/x", root) : buf_adds(&named, result_path);
    rc = rc ? REC_ERR_NOMEM : rec_mkdirs(buf_str(&named), err);
    buf_free(&named);
    if (!rc) rc = rec_claim(result_path, journal_path, root, force, err);
    if (rc) return rc;
    struct rec_file *files = realloc(r->files, (r->n_files + 1) * sizeof *files);
    if (!files) return REC_ERR_NOMEM;
    r->files = files;
    struct rec_file *f = &files[r->n_files];
    *f = (struct rec_file){.journal = {.fd = -1}};
    f->result_path = strdup(result_path);
    f->root = root ? strdup(root) : NULL;
    f->header = cJSON_Duplicate(header, true);
    char *line = f->header ? cJSON_PrintUnformatted(f->header) : NULL;
    int fd;
    buf_reset(&r->line);
    if (!f->result_path || (root && !f->root) || !line || buf_adds(&r->line, line) ||
        buf_addc(&r->line, '\n')) {
        rc = REC_ERR_NOMEM;
    } else if ((fd = safeopen_path(journal_path, root, 0666, SAFEOPEN_NEW | SAFEOPEN_RDWR, err)) <
               0) {
        rc = fd == SAFEOPEN_ERR_LINK     ? REC_ERR_LINK
             : fd == SAFEOPEN_ERR_EXISTS ? REC_ERR_EXISTS
                                         : REC_ERR_IO;
    } else if ((jmap_adopt(&f->journal, fd), 0)) {
    } else if (jmap_append(&f->journal, r->line.data, r->line.len) != 0) {
        rc = buf_fail(err, REC_ERR_IO, "cannot write the journal %s: %s", journal_path,
                      strerror(errno));
    }
    cJSON_free(line);
    if (rc) {
        (void)jmap_close(&f->journal);
        free(f->result_path);
        free(f->root);
        cJSON_Delete(f->header);
        return rc;
    }
    *index_out = r->n_files++;
    return REC_OK;
}

/* A record is written through a cursor into room reserved once, then the
 * buffer is cut to what was written: room for each string (rec_str_room) and
 * for all the rest. */
#define REC_ROOM_NUMBERS 1024 /* more than the names, numbers and punctuation of any record */
#define REC_ROOM_CHUNK   24   /* a chunk's gap and tokens, with their commas */

/* The most jsonw_put_cstr writes for s. */
static size_t rec_str_room(const char *s) {
    return s ? jsonw_str_room(strlen(s)) : 4;
}

static char *rec_count(char *p, long v) {
    return v < 0 ? JSONW_PUT(p, "null") : jsonw_put_int(p, v);
}

static char *rec_bool(char *p, bool v) {
    return v ? JSONW_PUT(p, "true") : JSONW_PUT(p, "false");
}

static char *rec_error(char *p, const struct rec_record *rec) {
    if (!rec->error_code) return JSONW_PUT(p, ",\"" RFIELD_ERROR "\":null");
    p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_ERROR "\":{\"" RFIELD_ERROR_CODE "\":"),
                       rec->error_code);
    p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_ERROR_MESSAGE "\":"),
                       rec->error_message ? rec->error_message : "");
    if (rec->original_status > 0)
        p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_ERROR_ORIGINAL_STATUS "\":"),
                          rec->original_status);
    return JSONW_PUT(p, "}");
}

static size_t rec_fixed_room(const struct rec_record *rec) {
    return rec_str_room(rec->endpoint) + rec_str_room(rec->variant) + rec_str_room(rec->phase) +
           rec_str_room(rec->question) + rec_str_room(rec->kind);
}

/* The fields the plan fixes, from endpoint to max_tokens, each with its leading comma. */
static char *rec_fixed(char *p, const struct rec_record *rec) {
    p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_ENDPOINT "\":"),
                       rec->endpoint ? rec->endpoint : "");
    p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_VARIANT "\":"), rec->variant);
    p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_PHASE "\":"), rec->phase ? rec->phase : "");
    p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_BATCH "\":"), rec->batch);
    p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_QUESTION "\":"), rec->question);
    p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_KIND "\":"), rec->kind);
    return jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_MAX_TOKENS "\":"), rec->max_tokens);
}

char *rec_fixed_json(const struct rec_record *rec) {
    char *out = malloc(REC_ROOM_NUMBERS + rec_fixed_room(rec));
    if (out) *rec_fixed(out, rec) = '\0';
    return out;
}

/* A streamed reply's times, with their leading commas: when the headers and the
 * first content came, and the gaps between content chunks (with each chunk's
 * tokens when some carried more than one). */
static char *rec_stream(char *p, const struct rec_record *rec) {
    p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_T_HEADERS_US "\":"), rec->t_headers_us);
    p = JSONW_PUT(p, ",\"" RFIELD_T_FIRST_TOKEN_US "\":");
    p = rec->t_first_token_us > 0 ? jsonw_put_int(p, rec->t_first_token_us) : JSONW_PUT(p, "null");
    if (rec->t_first_output_us != rec->t_first_token_us &&
        (rec->t_first_output_us > 0 || rec->reasoning_tokens > 0)) {
        p = JSONW_PUT(p, ",\"" RFIELD_T_FIRST_OUTPUT_US "\":");
        p = rec->t_first_output_us > 0 ? jsonw_put_int(p, rec->t_first_output_us)
                                       : JSONW_PUT(p, "null");
    }
    p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_CHUNKS "\":"), (long long)rec->n_chunks);
    if (rec->n_received > rec->n_chunks)
        p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_CHUNKS_RECEIVED "\":"),
                          (long long)rec->n_received);
    p = JSONW_PUT(p, ",\"" RFIELD_CHUNK_GAPS_US "\":[");
    for (size_t i = 0; i + 1 < rec->n_chunks; i++) {
        if (i) *p++ = ',';
        p = jsonw_put_int(p, rec->chunk_gaps_us[i]);
    }
    *p++ = ']';
    if (rec->n_chunks > 1 && rec->itl_per_token)
        p = JSONW_PUT(p, ",\"" RFIELD_ITL_UNIT "\":\"" RFIELD_ITL_TOKEN "\"");
    else if (rec->n_chunks > 1)
        p = JSONW_PUT(p, ",\"" RFIELD_ITL_UNIT "\":\"" RFIELD_ITL_CHUNK "\"");
    if (!rec->chunk_tokens) return p;
    p = JSONW_PUT(p, ",\"" RFIELD_CHUNK_TOKENS "\":[");
    for (size_t i = 0; i < rec->n_chunks; i++) {
        if (i) *p++ = ',';
        p = jsonw_put_int(p, rec->chunk_tokens[i]);
    }
    *p++ = ']';
    return p;
}

/* The record as one JSON line (with its newline), in the order of the format's table. */
static int rec_serialize(struct buf *b, long long seq, const struct rec_record *rec) {
    size_t fixed = rec->fixed_json ? strlen(rec->fixed_json) : 0;
    size_t room = REC_ROOM_NUMBERS + (rec->fixed_json ? fixed : rec_fixed_room(rec)) +
                  rec_str_room(rec->finish_reason) + rec_str_room(rec->error_code) +
                  rec_str_room(rec->error_message) + rec_str_room(rec->text) +
                  rec_str_room(rec->answer) + rec_str_room(rec->session) +
                  REC_ROOM_CHUNK * rec->n_chunks;
    size_t at = b->len;
    char *start = buf_grow(b, room);
    if (!start) return BUF_ERR_NOMEM;
    char *p = jsonw_put_int(JSONW_PUT(start, "{\"" RFIELD_SEQ "\":"), seq);
    p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_THREAD "\":"), rec->thread);
    p = rec->fixed_json ? jsonw_put(p, rec->fixed_json, fixed) : rec_fixed(p, rec);
    p = rec_count(JSONW_PUT(p, ",\"" RFIELD_PROMPT_TOKENS "\":"), rec->prompt_tokens);
    p = rec_count(JSONW_PUT(p, ",\"" RFIELD_COMPLETION_TOKENS "\":"), rec->completion_tokens);
    if (rec->reasoning_tokens > 0)
        p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_REASONING_TOKENS "\":"), rec->reasoning_tokens);
    if (rec->has_cached_tokens)
        p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_CACHED_TOKENS "\":"), rec->cached_tokens);
    p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_FINISH_REASON "\":"), rec->finish_reason);
    p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_STATUS "\":"), rec->status);
    p = rec_bool(JSONW_PUT(p, ",\"" RFIELD_OK "\":"), rec->ok);
    p = rec_error(p, rec);
    p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_T_START_US "\":"), rec->t_start_us);
    p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_T_END_US "\":"), rec->t_end_us);
    p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_WALL_START_US "\":"), rec->wall_start_us);
    if (rec->has_server_us)
        p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_SERVER_US "\":"), rec->server_us);
    if (rec->t_intended_us > 0)
        p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_T_INTENDED_US "\":"), rec->t_intended_us);
    if (rec->has_conn) {
        p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_CONNECT_US "\":"), rec->connect_us);
        p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_TLS_US "\":"), rec->tls_us);
    }
    if (rec->text) p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_TEXT "\":"), rec->text);
    if (rec->answer) p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_ANSWER "\":"), rec->answer);
    if (rec->correct >= 0) p = rec_bool(JSONW_PUT(p, ",\"" RFIELD_CORRECT "\":"), rec->correct);
    if (rec->turn > 0) p = jsonw_put_int(JSONW_PUT(p, ",\"" RFIELD_TURN "\":"), rec->turn);
    if (rec->session) p = jsonw_put_cstr(JSONW_PUT(p, ",\"" RFIELD_SESSION "\":"), rec->session);
    if (rec->t_headers_us > 0) p = rec_stream(p, rec);
    p = JSONW_PUT(p, "}\n");
    buf_truncate(b, at + (size_t)(p - start));
    return BUF_OK;
}

static int rec_count_error(struct rec_counts *c, const struct rec_record *rec) {
    for (size_t i = 0; i < c->n_errors; i++) {
        if (strcmp(c->errors[i].code, rec->error_code) == 0) {
            c->errors[i].count++;
            return REC_OK;
        }
    }
    struct rec_error_count *e = realloc(c->errors, (c->n_errors + 1) * sizeof *e);
    if (!e) return REC_ERR_NOMEM;
    c->errors = e;
    e[c->n_errors] = (struct rec_error_count){strdup(rec->error_code), 1};
    if (!e[c->n_errors].code) return REC_ERR_NOMEM;
    c->n_errors++;
    if (c->first_error) return REC_OK;
    struct buf first;
    buf_init(&first, BUF_NO_CAP);
    if (buf_addf(&first, "%d %s: %s", rec->status, rec->error_code,
                 rec->error_message ? rec->error_message : "") != BUF_OK)
        return REC_ERR_NOMEM;
    c->first_error = buf_take(&first);
    return c->first_error ? REC_OK : REC_ERR_NOMEM;
}

int rec_write(struct rec_recorder *r, size_t file, const struct rec_record *rec, struct buf *err) {
    if (file >= r->n_files) return REC_ERR_INPUT;
    struct rec_file *f = &r->files[file];
    buf_reset(&r->line);
    if (rec_serialize(&r->line, r->seq, rec) != BUF_OK) return REC_ERR_NOMEM;
    if (jmap_append(&f->journal, r->line.data, r->line.len) != 0)
        return buf_fail(err, REC_ERR_IO, "cannot write the journal of %s: %s", f->result_path,
                        strerror(errno));
    r->seq++;
    f->counts.sent++;
    if (rec->ok) {
        f->counts.ok++;
        return REC_OK;
    }
    f->counts.failed++;
    return rec->error_code ? rec_count_error(&f->counts, rec) : REC_OK;
}

const struct rec_counts *rec_counts(const struct rec_recorder *r, size_t file) {
    return file < r->n_files ? &r->files[file].counts : NULL;
}

size_t rec_n_files(const struct rec_recorder *r) {
    return r->n_files;
}

static cJSON *rec_counts_json(const struct rec_counts *c) {
    cJSON *o = cJSON_CreateObject();
    cJSON *errors = o ? cJSON_AddObjectToObject(o, RFMT_COUNTS_ERRORS) : NULL;
    bool ok = errors && cJSON_AddNumberToObject(o, RFMT_COUNTS_SENT, (double)c->sent) &&
              cJSON_AddNumberToObject(o, RFMT_COUNTS_OK, (double)c->ok) &&
              cJSON_AddNumberToObject(o, RFMT_COUNTS_FAILED, (double)c->failed);
    for (size_t i = 0; ok && i < c->n_errors; i++)
        ok = cJSON_AddNumberToObject(errors, c->errors[i].code, (double)c->errors[i].count);
    if (ok) return o;
    cJSON_Delete(o);
    return NULL;
}

/* The top-level object of f's result file, without records, printed (malloc'ed). */
static char *rec_top(const struct rec_file *f, const char *ended_at, bool partial,
                     const char *partial_reason, const cJSON *more) {
    cJSON *top = cJSON_Duplicate(f->header, true);
    cJSON *counts = rec_counts_json(&f->counts);
    char *text = NULL;
    bool ok = top && counts && cJSON_AddStringToObject(top, "ended_at", ended_at) &&
              cJSON_AddBoolToObject(top, "partial", partial) &&
              (partial_reason ? cJSON_AddStringToObject(top, "partial_reason", partial_reason)
                              : cJSON_AddNullToObject(top, "partial_reason")) &&
              cJSON_AddItemToObject(top, "counts", counts);
    const cJSON *m;
    if (ok) counts = NULL;
    cJSON_ArrayForEach(m, more) {
        cJSON *copy = ok ? cJSON_Duplicate(m, true) : NULL;
        ok = copy && cJSON_AddItemToObject(top, m->string, copy);
        if (!ok) cJSON_Delete(copy);
    }
    cJSON_ArrayForEach(m, f->extra) {
        cJSON *copy = ok ? cJSON_Duplicate(m, true) : NULL;
        ok = copy && cJSON_AddItemToObject(top, m->string, copy);
        if (!ok) cJSON_Delete(copy);
    }
    if (ok) text = cJSON_Print(top);
    cJSON_Delete(counts); /* NULL when top owns it */
    cJSON_Delete(top);
    return text;
}

/* Copies the journal's records (every line after the header) into out as the
 * elements of a JSON array. */
static int rec_copy_records(const struct jmap *journal, FILE *out) {
    const char *data;
    if (jmap_view(journal, &data) != 0) return REC_ERR_IO;
    const char *end = data + journal->used;
    const char *nl = data ? memchr(data, '\n', journal->used) : NULL; /* the header's */
    int rc = REC_OK;
    for (const char *sep = "\n"; rc == REC_OK && nl && nl + 1 < end; sep = ",\n") {
        const char *p = nl + 1;
        nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl || fputs(sep, out) < 0 || fwrite(p, 1, (size_t)(nl - p), out) != (size_t)(nl - p))
            rc = REC_ERR_IO;
    }
    jmap_unview(data, journal->used);
    return rc;
}

static int rec_finish_file(struct rec_file *f, const char *ended_at, bool partial,
                           const char *partial_reason, const cJSON *more, struct buf *err) {
    char *top = rec_top(f, ended_at, partial, partial_reason, more);
    struct safeopen_tmp tmp = {.dfd = -1};
    FILE *out = NULL;
    int rc = REC_OK;
    char *end = top ? strrchr(top, '}') : NULL;
    if (!end) {
        rc = REC_ERR_NOMEM;
        goto done;
    }
    *end = '\0';
    int fd = safeopen_tmp_open(&tmp, f->result_path, f->root, 0666, err);
    if (fd < 0) {
        rc = fd == SAFEOPEN_ERR_LINK ? REC_ERR_LINK : REC_ERR_IO;
        goto done;
    }
    if (!(out = fdopen(fd, "w"))) {
        close(fd);
        rc = buf_fail(err, REC_ERR_IO, "cannot write %s: %s", f->result_path, strerror(errno));
        goto done;
    }
    bool written = fprintf(out, "%s,\n\t\"records\": [", top) >= 0 &&
                   rec_copy_records(&f->journal, out) == REC_OK && fprintf(out, "\n\t]\n}\n") >= 0;
    if (fclose(out) != 0) written = false;
    out = NULL;
    if (!written) {
        rc = buf_fail(err, REC_ERR_IO, "cannot write %s: %s", f->result_path, strerror(errno));
        goto done;
    }
    if (safeopen_tmp_commit(&tmp, err) != 0) rc = REC_ERR_IO;
done:
    if (out) fclose(out);
    safeopen_tmp_drop(&tmp); /* nothing once committed */
    cJSON_free(top);
    return rc;
}

int rec_set_more(struct rec_recorder *r, size_t file, const char *name, const cJSON *v) {
    if (file >= r->n_files || !v) return REC_ERR_INPUT;
    struct rec_file *f = &r->files[file];
    if (!f->extra && !(f->extra = cJSON_CreateObject())) return REC_ERR_NOMEM;
    cJSON *copy = cJSON_Duplicate(v, true);
    cJSON_DeleteItemFromObjectCaseSensitive(f->extra, name);
    if (copy && cJSON_AddItemToObject(f->extra, name, copy)) return REC_OK;
    cJSON_Delete(copy);
    return REC_ERR_NOMEM;
}

int rec_finish(struct rec_recorder *r, const char *ended_at, bool partial,
               const char *partial_reason, const cJSON *more, struct buf *err) {
    for (size_t i = 0; i < r->n_files; i++) {
        int rc = rec_finish_file(&r->files[i], ended_at, partial, partial_reason, more, err);
        if (rc) return rc;
    }
    return REC_OK;
}

void rec_iso8601(long long wall_us, char out[32]) {
    time_t s = (time_t)(wall_us / 1000000);
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%06lldZ", wall_us % 1000000);
}

int rec_journal_path(const char *result_path, struct buf *out) {
    size_t n = strlen(result_path);
    if (n > 5 && strcmp(result_path + n - 5, ".json") == 0) n -= 5;
    int rc = buf_add(out, result_path, n);
    return rc ? rc : buf_adds(out, ".journal.jsonl");
}
