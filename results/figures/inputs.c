#include "inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "measure.h"
#include "native.h"
#include "rfmt.h"
#include "rfile.h"
#include "shards.h"
#include "vllmimport.h"

/* The state of reading one side. */
struct inputs_ctx {
    struct inputs *in;
    const struct quizfile *qz;
    const struct slo_set *slo;
    struct warnings *w;
    struct buf *err;
    size_t cap;
    char **logs; /* owned paths of the logs found, in order */
    size_t nlogs;
    struct shards_pending pending; /* shards of sharded runs, merged once all are read */
};

static int inputs_nomem(struct inputs_ctx *c) {
    return buf_fail(c->err, INPUTS_ERR_NOMEM, "out of memory");
}

static bool inputs_ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

static int inputs_level_of(const struct src *s) {
    return s->nlevels ? s->levels[0].c : 0;
}

/* A second input of the same run (e.g. a journal beside its result file). */
static const struct src *inputs_same_run(const struct inputs *in, const struct src *s) {
    for (size_t i = 0; s->run_id && i < in->n; i++) {
        const struct src *o = &in->srcs[i];
        if (o->run_id && strcmp(o->run_id, s->run_id) == 0 && strcmp(o->label, s->label) == 0 &&
            strcmp(o->scenario, s->scenario) == 0 && inputs_level_of(o) == inputs_level_of(s))
            return o;
    }
    return NULL;
}

static int inputs_add_src(struct inputs_ctx *c, struct src *s) {
    const struct src *twin = inputs_same_run(c->in, s);
    if (twin) {
        warnings_add(c->w, "%s: the same run as %s (run_id %s); left out", s->path, twin->path,
                     s->run_id);
        src_free(s);
        return 0;
    }
    if (c->in->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        struct src *p = realloc(c->in->srcs, cap * sizeof *p);
        if (!p) {
            src_free(s);
            return inputs_nomem(c);
        }
        c->in->srcs = p;
        c->cap = cap;
    }
    c->in->srcs[c->in->n++] = *s;
    return 0;
}

/* What a JSON file that is no input says: skipped in a directory, an error when named. */
static int inputs_not_input(struct inputs_ctx *c, const struct rfile *rf, const char *path,
                            bool in_dir) {
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(rf->head, "format");
    if (vllmimport_is(rf->head) && in_dir) { /* another tool's figures, never taken as ours */
        warnings_add(c->w,
                     "%s: a vllm bench serve result, left out of the comparison (its ITL is per "
                     "chunk, ours per token): view it with --view vllm",
                     path);
        return 0;
    }
    if (vllmimport_is(rf->head))
        return buf_fail(c->err, INPUTS_ERR_INPUT,
                        "%s: a vllm bench serve result: its metrics are vLLM's (ITL per chunk, "
                        "ours per token; E2EL to its last event), not ours, so it is not "
                        "compared; put it beside ours with --view vllm (or aiperf, guidellm, "
                        "llmperf)",
                        path);
    if (cJSON_IsString(fmt) && !in_dir)
        return buf_fail(c->err, INPUTS_ERR_INPUT, "%s: format \"%.60s\" is not %s", path,
                        fmt->valuestring, RFMT_NAME);
    if (in_dir) {
        warnings_add(c->w, "%s: not a result file, journal or compare.py measure file; left out",
                     path);
        return 0;
    }
    return buf_fail(c->err, INPUTS_ERR_INPUT,
                    "%s: not a wrk-sagemaker result file, journal or compare.py measure file",
                    path);
}

/* Reads one JSON document or journal; in_dir: another kind of JSON is skipped. */
static int inputs_json(struct inputs_ctx *c, const char *path, bool in_dir) {
    struct rfile *rf;
    struct src s = {0};
    int rc = rfile_read(path, &rf, c->err);
    if (rc < 0) return rc;
    if (native_is_result(rf) && shards_is_shard(rf)) return shards_hold(&c->pending, rf, c->err);
    if (native_is_result(rf)) {
        rc = native_src(rf, c->slo, &s, c->w, c->err);
    } else if (!rf->journal && !rf->has_records && measure_is(rf->head)) {
        rc = measure_src(rf->head, path, c->qz, &s, c->w, c->err);
    } else {
        rc = inputs_not_input(c, rf, path, in_dir);
        rfile_free(rf);
        return rc;
    }
    rfile_free(rf);
    if (rc < 0) {
        src_free(&s);
        return rc;
    }
    return inputs_add_src(c, &s);
}

static int inputs_add_log(struct inputs_ctx *c, const char *path) {
    char **p = realloc(c->logs, (c->nlogs + 1) * sizeof *p);
    if (!p) return inputs_nomem(c);
    c->logs = p;
    if (!(c->logs[c->nlogs] = strdup(path))) return inputs_nomem(c);
    c->nlogs++;
    return 0;
}

/* A CloudWatch document: FilterLogEvents' (*.logs.json) or GetMetricData's (*.metrics.json). */
static int inputs_cloudwatch(struct inputs_ctx *c, const char *path, bool logs) {
    struct rfile_map m;
    struct buf why;
    int rc = rfile_map_open(path, &m, c->err);
    if (rc < 0) return rc;
    buf_init(&why, 1024);
    rc = logs ? cloudwatch_side_logs(&c->in->cw, m.data, m.len, &why)
              : cloudwatch_side_metrics(&c->in->cw, m.data, m.len, &why);
    rfile_map_close(&m);
    if (rc == CLOUDWATCH_SIDE_ERR_INPUT)
        rc =
            buf_fail(c->err, INPUTS_ERR_INPUT, "%s: not what aws %s prints: %s", path,
                     logs ? "logs filter-log-events" : "cloudwatch get-metric-data", buf_str(&why));
    else if (rc)
        rc = inputs_nomem(c);
    buf_free(&why);
    if (!rc && !c->in->cw_path[0]) {
        const char *slash = strrchr(path, '/');
        snprintf(c->in->cw_path, sizeof c->in->cw_path, "%.*s", slash ? (int)(slash - path) : 1,
                 slash ? path : ".");
    }
    return rc;
}

static int inputs_file(struct inputs_ctx *c, const char *path, bool in_dir) {
    if (inputs_ends_with(path, ".log")) return inputs_add_log(c, path);
    if (inputs_ends_with(path, ".logs.json")) return inputs_cloudwatch(c, path, true);
    if (inputs_ends_with(path, ".metrics.json")) return inputs_cloudwatch(c, path, false);
    return inputs_json(c, path, in_dir);
}

/* True when dir holds the result file this journal belongs to. */
static bool inputs_has_result(struct dirent **ents, int n, const char *journal) {
    size_t stem = strlen(journal) - strlen(".journal.jsonl");
    for (int i = 0; i < n; i++) {
        const char *e = ents[i]->d_name;
        if (strlen(e) == stem + 5 && strncmp(e, journal, stem) == 0 && inputs_ends_with(e, ".json"))
            return true;
    }
    return false;
}

static bool inputs_wanted(struct dirent **ents, int n, const char *name) {
    if (name[0] == '.') return false;
    if (inputs_ends_with(name, ".journal.jsonl")) return !inputs_has_result(ents, n, name);
    return inputs_ends_with(name, ".json") || inputs_ends_with(name, ".log");
}

/* The CloudWatch documents of a run directory's cloudwatch/ folder. */
static int inputs_cw_dir(struct inputs_ctx *c, const char *dir, int *used) {
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort), rc = 0;
    if (n < 0)
        return buf_fail(c->err, INPUTS_ERR_READ, "%s: cannot read: %s", dir, strerror(errno));
    for (int i = 0; i < n && rc == 0; i++) {
        const char *e = ents[i]->d_name;
        bool logs = inputs_ends_with(e, ".logs.json");
        if (e[0] == '.' || (!logs && !inputs_ends_with(e, ".metrics.json"))) continue;
        char path[4096];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, e) >= (int)sizeof path ||
            stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
            warnings_add(c->w, "%s: not a regular file; left out", path);
            continue;
        }
        rc = inputs_cloudwatch(c, path, logs);
        (*used)++;
    }
    for (int i = 0; i < n; i++) free(ents[i]);
    free(ents);
    return rc;
}

/* Reads the wanted entries of a directory; *used counts those read. */
static int inputs_entries(struct inputs_ctx *c, const char *dir, struct dirent **ents, int n,
                          int *used) {
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;
    for (int i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%.*s/%s", (int)len, dir, ents[i]->d_name);
        if (strcmp(ents[i]->d_name, "cloudwatch") == 0 && stat(path, &st) == 0 &&
            S_ISDIR(st.st_mode)) {
            int rc = inputs_cw_dir(c, path, used);
            if (rc < 0) return rc;
            continue;
        }
        if (!inputs_wanted(ents, n, ents[i]->d_name)) continue;
        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
            warnings_add(c->w, "%s: not a regular file; left out", path);
            continue;
        }
        int rc = inputs_file(c, path, true);
        if (rc < 0) return rc;
        (*used)++;
    }
    return 0;
}

static int inputs_dir(struct inputs_ctx *c, const char *dir) {
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort), used = 0;
    if (n < 0)
        return buf_fail(c->err, INPUTS_ERR_READ, "%s: cannot read: %s", dir, strerror(errno));
    int rc = inputs_entries(c, dir, ents, n, &used);
    for (int i = 0; i < n; i++) free(ents[i]);
    free(ents);
    if (rc == 0 && !used)
        return buf_fail(c->err, INPUTS_ERR_INPUT,
                        "%s: no result files, journals, measure files or logs in this directory",
                        dir);
    return rc;
}

static void inputs_overlay_one(struct facts_fact *into, const struct facts_fact *from) {
    if (from->have) *into = *from;
}

/* Facts found later override those found earlier, field by field. */
static void inputs_overlay(struct inputs *in, const struct facts *f) {
    if (!facts_any(f)) return;
    inputs_overlay_one(&in->facts.weights_gib, &f->weights_gib);
    inputs_overlay_one(&in->facts.load_seconds, &f->load_seconds);
    inputs_overlay_one(&in->facts.kv_cache_tokens, &f->kv_cache_tokens);
    inputs_overlay_one(&in->facts.max_conc_tokens, &f->max_conc_tokens);
    inputs_overlay_one(&in->facts.max_concurrency, &f->max_concurrency);
    inputs_overlay_one(&in->facts.quantization, &f->quantization);
    inputs_overlay_one(&in->facts.vllm_version, &f->vllm_version);
    snprintf(in->facts.source, sizeof in->facts.source, "%s", f->source);
    in->have_facts = true;
}

/* One log: its start-up facts over those found before, its throughput lines added. */
static int inputs_log(struct inputs_ctx *c, const char *path) {
    struct rfile_map m;
    struct facts f;
    size_t lines = c->in->log.n;
    memset(&f, 0, sizeof f);
    int rc = rfile_map_open(path, &m, c->err);
    if (rc < 0) return rc;
    if ((rc = facts_scan(m.data, m.len, &f, c->err)) == 0)
        rc = srvlog_scan(&c->in->log, m.data ? m.data : "", m.len, c->err);
    size_t spec = c->in->spec.lines;
    if (rc == 0 && m.data) specdec_scan(&c->in->spec, m.data, m.len);
    rfile_map_close(&m);
    if (rc < 0) return rc;
    c->in->nlogs++;
    snprintf(f.source, sizeof f.source, "%s", path);
    if (!facts_any(&f) && c->in->log.n == lines && c->in->spec.lines == spec)
        warnings_add(c->w, "%s: no vLLM start-up facts or throughput lines in this log", path);
    inputs_overlay(c->in, &f);
    return 0;
}

/* The earliest request of the side's sweeps on the wall clock, or 0. */
static double inputs_first_request(const struct inputs *in) {
    double first = 0;
    for (size_t i = 0; i < in->n; i++)
        for (size_t k = 0; k < in->srcs[i].nlevels; k++) {
            double t = in->srcs[i].levels[k].wall_first;
            if (t > 0 && (first == 0 || t < first)) first = t;
        }
    return first;
}

/* CloudWatch's log events, as a log: facts over those of the log files, and
 * their throughput lines instead of the files' when they have any. */
static int inputs_cw_log(struct inputs_ctx *c) {
    struct buf text;
    struct facts f;
    struct srvlog lines = {0};
    memset(&f, 0, sizeof f);
    cloudwatch_side_finish(&c->in->cw);
    if (!c->in->cw.nev) return 0;
    buf_init(&text, BUF_NO_CAP);
    int rc = cloudwatch_side_log_text(&c->in->cw, &text) ? inputs_nomem(c) : 0;
    if (!rc) rc = facts_scan(text.data, text.len, &f, c->err);
    if (!rc) rc = srvlog_scan(&lines, text.data ? text.data : "", text.len, c->err);
    struct specdec spec = {0};
    if (!rc && text.data) specdec_scan(&spec, text.data, text.len);
    buf_free(&text);
    if (rc < 0) {
        srvlog_free(&lines);
        return rc;
    }
    snprintf(f.source, sizeof f.source, "%.160s (CloudWatch Logs, %zu events)", c->in->cw_path,
             c->in->cw.nev);
    inputs_overlay(c->in, &f);
    if (lines.n) {
        srvlog_free(&c->in->log);
        c->in->log = lines;
    }
    if (spec.lines) c->in->spec = spec; /* as the throughput lines: CloudWatch's instead */
    return 0;
}

static int inputs_merge_facts(struct inputs_ctx *c, const char *facts_log) {
    for (size_t i = 0; i < c->in->n; i++)
        if (c->in->srcs[i].facts) inputs_overlay(c->in, c->in->srcs[i].facts);
    for (size_t i = 0; i <= c->nlogs + 1; i++) {
        int rc = i == c->nlogs ? inputs_cw_log(c) : 0;
        const char *path = i < c->nlogs ? c->logs[i] : i > c->nlogs ? facts_log : NULL;
        if (rc == 0 && path) rc = inputs_log(c, path);
        if (rc < 0) return rc;
    }
    /* vLLM's own stamps have no year: the year of the run */
    srvlog_place(&c->in->log, inputs_first_request(c->in));
    return 0;
}

/* shards_add_fn: a merged sharded run becomes one input. */
static int inputs_add_merged(void *ud, struct rfile *merged, struct shards_info *info) {
    struct inputs_ctx *c = ud;
    struct src s = {0};
    int rc = native_src(merged, c->slo, &s, c->w, c->err);
    rfile_free(merged);
    s.shards = info;
    if (rc < 0) {
        src_free(&s);
        return rc;
    }
    return inputs_add_src(c, &s);
}

int inputs_read(char *const *paths, size_t npaths, const char *facts_log, const struct quizfile *qz,
                const struct slo_set *slo, struct inputs *out, struct warnings *w,
                struct buf *err) {
    struct inputs_ctx c = {.in = out, .qz = qz, .slo = slo, .w = w, .err = err};
    int rc = 0;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < npaths && rc == 0; i++) {
        struct stat st;
        if (stat(paths[i], &st) < 0)
            rc = buf_fail(err, INPUTS_ERR_READ, "%s: %s", paths[i], strerror(errno));
        else if (S_ISDIR(st.st_mode))
            rc = inputs_dir(&c, paths[i]);
        else
            rc = inputs_file(&c, paths[i], false);
    }
    if (rc == 0) rc = shards_flush(&c.pending, inputs_add_merged, &c, w, err);
    shards_pending_free(&c.pending);
    if (rc == 0) rc = inputs_merge_facts(&c, facts_log);
    for (size_t i = 0; i < c.nlogs; i++) free(c.logs[i]);
    free(c.logs);
    return rc;
}

void inputs_free(struct inputs *in) {
    for (size_t i = 0; i < in->n; i++) src_free(&in->srcs[i]);
    free(in->srcs);
    srvlog_free(&in->log);
    cloudwatch_side_free(&in->cw);
    memset(in, 0, sizeof *in);
}
