#include "inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "measure.h"
#include "native.h"
#include "rfile.h"

/* The state of reading one side. */
struct ctx {
    struct inputs *in;
    const struct quizfile *qz;
    struct diag *d;
    size_t cap;
    char **logs; /* owned paths of the logs found, in order */
    size_t nlogs;
};

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

static int level_of(const struct src *s) {
    return s->nlevels ? s->levels[0].c : 0;
}

/* A second input of the same run (e.g. a journal beside its result file). */
static const struct src *same_run(const struct inputs *in, const struct src *s) {
    for (size_t i = 0; s->run_id && i < in->n; i++) {
        const struct src *o = &in->srcs[i];
        if (o->run_id && strcmp(o->run_id, s->run_id) == 0 && strcmp(o->label, s->label) == 0 &&
            strcmp(o->scenario, s->scenario) == 0 && level_of(o) == level_of(s))
            return o;
    }
    return NULL;
}

static int add_src(struct ctx *c, struct src *s) {
    const struct src *twin = same_run(c->in, s);
    if (twin) {
        diag_warn(c->d, "%s: the same run as %s (run_id %s); left out", s->path, twin->path,
                  s->run_id);
        src_free(s);
        return 0;
    }
    if (c->in->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        struct src *p = realloc(c->in->srcs, cap * sizeof *p);
        if (!p) {
            src_free(s);
            return diag_error(c->d, "out of memory");
        }
        c->in->srcs = p;
        c->cap = cap;
    }
    c->in->srcs[c->in->n++] = *s;
    return 0;
}

/* Reads one JSON document or journal; in_dir: another kind of JSON is skipped. */
static int read_json(struct ctx *c, const char *path, bool in_dir) {
    struct rfile *rf;
    struct src s = {0};
    int rc = 0;
    if (rfile_read(path, &rf, c->d) < 0) return -1;
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(rf->head, "format");
    if (native_is_result(rf)) {
        rc = native_src(rf, &s, c->d);
    } else if (cJSON_IsString(fmt) && !in_dir) {
        rc = diag_error(c->d, "%s: format \"%s\" is not %s", path, fmt->valuestring, NATIVE_FORMAT);
    } else if (!rf->journal && !rf->has_records && measure_is(rf->head)) {
        rc = measure_src(rf->head, path, c->qz, &s, c->d);
    } else if (in_dir) {
        diag_warn(c->d, "%s: not a result file, journal or compare.py measure file; left out",
                  path);
        rfile_free(rf);
        return 0;
    } else {
        rc = diag_error(c->d,
                        "%s: not a wrk-sagemaker result file, journal or compare.py "
                        "measure file",
                        path);
    }
    rfile_free(rf);
    if (rc < 0) {
        src_free(&s);
        return -1;
    }
    return add_src(c, &s);
}

static int add_log(struct ctx *c, const char *path) {
    char **p = realloc(c->logs, (c->nlogs + 1) * sizeof *p);
    if (!p) return diag_error(c->d, "out of memory");
    c->logs = p;
    if (!(c->logs[c->nlogs] = strdup(path))) return diag_error(c->d, "out of memory");
    c->nlogs++;
    return 0;
}

static int read_file(struct ctx *c, const char *path, bool in_dir) {
    if (ends_with(path, ".log")) return add_log(c, path);
    return read_json(c, path, in_dir);
}

/* True when dir holds the result file this journal belongs to. */
static bool has_result(struct dirent **ents, int n, const char *journal) {
    size_t stem = strlen(journal) - strlen(".journal.jsonl");
    for (int i = 0; i < n; i++) {
        const char *e = ents[i]->d_name;
        if (strlen(e) == stem + 5 && strncmp(e, journal, stem) == 0 && ends_with(e, ".json"))
            return true;
    }
    return false;
}

static bool wanted(struct dirent **ents, int n, const char *name) {
    if (name[0] == '.') return false;
    if (ends_with(name, ".journal.jsonl")) return !has_result(ents, n, name);
    return ends_with(name, ".json") || ends_with(name, ".log");
}

static int read_dir(struct ctx *c, const char *dir) {
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort), rc = 0, used = 0;
    if (n < 0) return diag_error(c->d, "%s: cannot read: %s", dir, strerror(errno));
    for (int i = 0; i < n && rc == 0; i++) {
        if (!wanted(ents, n, ents[i]->d_name)) continue;
        char path[4096];
        struct stat st;
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/') n--;
        snprintf(path, sizeof path, "%.*s/%s", (int)n, dir, ents[i]->d_name);
        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) continue;
        rc = read_file(c, path, true);
        used++;
    }
    for (int i = 0; i < n; i++) free(ents[i]);
    free(ents);
    if (rc == 0 && !used)
        return diag_error(c->d,
                          "%s: no result files, journals, measure files or logs in this "
                          "directory",
                          dir);
    return rc;
}

static void overlay_one(struct fact *into, const struct fact *from) {
    if (from->have) *into = *from;
}

/* Facts found later override those found earlier, field by field. */
static void overlay(struct inputs *in, const struct facts *f) {
    if (!facts_any(f)) return;
    overlay_one(&in->facts.weights_gib, &f->weights_gib);
    overlay_one(&in->facts.load_seconds, &f->load_seconds);
    overlay_one(&in->facts.kv_cache_tokens, &f->kv_cache_tokens);
    overlay_one(&in->facts.max_conc_tokens, &f->max_conc_tokens);
    overlay_one(&in->facts.max_concurrency, &f->max_concurrency);
    overlay_one(&in->facts.quantization, &f->quantization);
    overlay_one(&in->facts.vllm_version, &f->vllm_version);
    snprintf(in->facts.source, sizeof in->facts.source, "%s", f->source);
    in->have_facts = true;
}

static int merge_facts(struct ctx *c, const char *facts_log) {
    for (size_t i = 0; i < c->in->n; i++)
        if (c->in->srcs[i].facts) overlay(c->in, c->in->srcs[i].facts);
    for (size_t i = 0; i <= c->nlogs; i++) {
        const char *path = i < c->nlogs ? c->logs[i] : facts_log;
        struct facts f;
        if (!path) continue;
        if (facts_read(path, &f, c->d) < 0) return -1;
        overlay(c->in, &f);
    }
    return 0;
}

int inputs_read(char *const *paths, size_t npaths, const char *facts_log, const struct quizfile *qz,
                struct inputs *out, struct diag *d) {
    struct ctx c = {.in = out, .qz = qz, .d = d};
    int rc = 0;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < npaths && rc == 0; i++) {
        struct stat st;
        if (stat(paths[i], &st) < 0)
            rc = diag_error(d, "%s: %s", paths[i], strerror(errno));
        else if (S_ISDIR(st.st_mode))
            rc = read_dir(&c, paths[i]);
        else
            rc = read_file(&c, paths[i], false);
    }
    if (rc == 0) rc = merge_facts(&c, facts_log);
    for (size_t i = 0; i < c.nlogs; i++) free(c.logs[i]);
    free(c.logs);
    return rc;
}

void inputs_free(struct inputs *in) {
    for (size_t i = 0; i < in->n; i++) src_free(&in->srcs[i]);
    free(in->srcs);
    memset(in, 0, sizeof *in);
}
