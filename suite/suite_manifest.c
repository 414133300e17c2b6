#include "suite_manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readall.h"
#include "suite_files.h"

#define SUITE_MANIFEST_FORMAT  "wrk-sagemaker-suite"
#define SUITE_MANIFEST_VERSION 1

/* Sets obj[key] to item (replacing), taking it; false when item is NULL. */
static bool suite_manifest_put(cJSON *obj, const char *key, cJSON *item) {
    if (!item) return false;
    if (cJSON_HasObjectItem(obj, key))
        return cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    return cJSON_AddItemToObject(obj, key, item);
}

static bool suite_manifest_put_str(cJSON *obj, const char *key, const char *s) {
    return suite_manifest_put(obj, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

static cJSON *suite_manifest_strings(const struct suite_argv *a) {
    return cJSON_CreateStringArray((const char *const *)a->v, (int)a->n);
}

static const char *suite_manifest_str(const cJSON *obj, const char *key) {
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

void suite_manifest_init(struct suite_manifest *m) {
    memset(m, 0, sizeof *m);
    buf_init(&m->text, SUITE_MANIFEST_MAX);
}

/* DIR/manifest.json and DIR/manifest.json.seal. */
static int suite_manifest_paths(struct suite_manifest *m, const char *dir) {
    if (asprintf(&m->path, "%s/manifest.json", dir) < 0) m->path = NULL;
    if (m->path && asprintf(&m->seal_path, "%s.seal", m->path) < 0) m->seal_path = NULL;
    return m->seal_path ? SUITE_MANIFEST_OK : SUITE_MANIFEST_ERR_NOMEM;
}

int suite_manifest_load(struct suite_manifest *m, const char *dir, struct buf *err) {
    if (suite_manifest_paths(m, dir) < 0)
        return buf_fail(err, SUITE_MANIFEST_ERR_NOMEM, "out of memory");
    int rc = readall_regular(m->path, &m->text);
    if (rc == ENOENT)
        return buf_fail(err, SUITE_MANIFEST_ERR_FORMAT,
                        "%s: no such file (not a sm-suite run directory)", m->path);
    if (rc == READALL_ERR_NOT_REGULAR || rc == ELOOP)
        return buf_fail(err, SUITE_MANIFEST_ERR_FORMAT,
                        "%s: not a regular file (%s): refusing to read it", m->path,
                        rc == ELOOP ? "a symbolic link" : "a FIFO, device, socket or folder");
    if (rc)
        return buf_fail(err, SUITE_MANIFEST_ERR_IO, "%s: cannot be read (%s)", m->path,
                        rc > 0 ? strerror(rc) : "larger than 16 MiB, or out of memory");
    m->root = cJSON_ParseWithLength(buf_str(&m->text), m->text.len);
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(m->root, "format");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(m->root, "version");
    if (!cJSON_IsString(format) || strcmp(format->valuestring, SUITE_MANIFEST_FORMAT) != 0)
        return buf_fail(err, SUITE_MANIFEST_ERR_FORMAT, "%s: not a sm-suite manifest", m->path);
    if (!cJSON_IsNumber(version) || version->valuedouble != SUITE_MANIFEST_VERSION)
        return buf_fail(err, SUITE_MANIFEST_ERR_FORMAT, "%s: a manifest of another version than %d",
                        m->path, SUITE_MANIFEST_VERSION);
    return SUITE_MANIFEST_OK;
}

int suite_manifest_verify(struct suite_manifest *m, struct suite_seal *seal, struct buf *err) {
    struct buf why;
    buf_init(&why, 256);
    int rc = suite_seal_check(seal, m->seal_path, buf_str(&m->text), m->text.len, &why);
    if (rc < 0 && access(m->seal_path, F_OK) != 0)
        buf_fail(err, SUITE_MANIFEST_ERR_SEAL,
                 "%s has no seal (%s): the run could not keep the key that seals it, or sm-suite "
                 "did not write it for this user: refusing to run what it says",
                 m->path, m->seal_path);
    else if (rc < 0)
        buf_fail(err, SUITE_MANIFEST_ERR_SEAL,
                 "%s was changed since sm-suite wrote it, or written by another user or on "
                 "another machine (%s, %s): refusing to run what it says",
                 m->path, buf_str(&why), m->seal_path);
    buf_free(&why);
    if (rc < 0) return SUITE_MANIFEST_ERR_SEAL;
    m->seal = seal;
    buf_free(&m->text);
    return SUITE_MANIFEST_OK;
}

int suite_manifest_options(const struct suite_manifest *m, struct suite_argv *out,
                           struct buf *err) {
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(m->root, "options"), *o;
    if (!cJSON_IsArray(opts))
        return buf_fail(err, SUITE_MANIFEST_ERR_FORMAT, "%s: no \"options\" list", m->path);
    cJSON_ArrayForEach(o, opts) {
        if (!cJSON_IsString(o))
            return buf_fail(err, SUITE_MANIFEST_ERR_FORMAT,
                            "%s: \"options\" must be a list of strings", m->path);
        if (suite_argv_add(out, o->valuestring) < 0)
            return buf_fail(err, SUITE_MANIFEST_ERR_NOMEM, "out of memory");
    }
    return SUITE_MANIFEST_OK;
}

void suite_manifest_target(const struct suite_manifest *m, struct suite_manifest_target *t) {
    static const char *const roles[2] = {"baseline", "candidate"};
    memset(t, 0, sizeof *t);
    t->wrk = suite_manifest_str(m->root, "wrk");
    t->scenario_dir = suite_manifest_str(m->root, "scenario_dir");
    t->url = suite_manifest_str(m->root, "url");
    t->region = suite_manifest_str(m->root, "region");
    for (int k = 0; k < 2; k++) {
        const cJSON *side = cJSON_GetObjectItemCaseSensitive(m->root, roles[k]);
        t->endpoint[k] = suite_manifest_str(side, "endpoint");
        t->variant[k] = suite_manifest_str(side, "variant");
        t->component[k] = suite_manifest_str(side, "inference_component");
        t->label[k] = suite_manifest_str(side, "label");
    }
}

static bool suite_manifest_same(const char *a, const char *b) {
    return a && b ? strcmp(a, b) == 0 : a == b;
}

/* A side as text: "NAME", "NAME variant V", " inference component C", then " labelled L"
 * when the label is its own. */
static int suite_manifest_side_text(const struct suite_manifest_target *t, int k, struct buf *out) {
    const char *id = t->component[k] ? t->component[k]
                     : t->variant[k] ? t->variant[k]
                                     : t->endpoint[k];
    int rc = buf_addf(out, "%s", t->endpoint[k] ? t->endpoint[k] : "(none)");
    if (rc == BUF_OK && t->variant[k]) rc = buf_addf(out, " variant %s", t->variant[k]);
    if (rc == BUF_OK && t->component[k])
        rc = buf_addf(out, " inference component %s", t->component[k]);
    if (rc == BUF_OK && t->label[k] && !suite_manifest_same(t->label[k], id))
        rc = buf_addf(out, " labelled %s", t->label[k]);
    return rc;
}

static int suite_manifest_side_differs(const struct suite_manifest_target *was,
                                       const struct suite_manifest_target *now, int k,
                                       struct buf *err) {
    struct buf a, b;
    buf_init(&a, 512);
    buf_init(&b, 512);
    int rc = suite_manifest_side_text(was, k, &a) == BUF_OK &&
                     suite_manifest_side_text(now, k, &b) == BUF_OK
                 ? buf_fail(err, SUITE_MANIFEST_ERR_MISMATCH,
                            "the run measured the %s %s, this command %s",
                            k ? "candidate" : "baseline", buf_str(&a), buf_str(&b))
                 : buf_fail(err, SUITE_MANIFEST_ERR_NOMEM, "out of memory");
    buf_free(&a);
    buf_free(&b);
    return rc;
}

int suite_manifest_check_target(const struct suite_manifest *m,
                                const struct suite_manifest_target *now, struct buf *err) {
    struct suite_manifest_target was;
    suite_manifest_target(m, &was);
    const struct {
        const char *what, *a, *b;
    } fields[] = {
        {"wrk (WRK or the PATH)", was.wrk, now->wrk},
        {"the scenarios of --scenario-dir", was.scenario_dir, now->scenario_dir},
        {"--url", was.url, now->url},
        {"--region", was.region, now->region},
    };
    int rc = SUITE_MANIFEST_OK;
    for (size_t i = 0; rc == SUITE_MANIFEST_OK && i < sizeof fields / sizeof fields[0]; i++)
        if (!suite_manifest_same(fields[i].a, fields[i].b))
            rc = buf_fail(err, SUITE_MANIFEST_ERR_MISMATCH, "the run used %s %s, this command %s",
                          fields[i].what, fields[i].a ? fields[i].a : "(none recorded)",
                          fields[i].b ? fields[i].b : "(none)");
    for (int k = 0; rc == SUITE_MANIFEST_OK && k < 2; k++)
        if (!suite_manifest_same(was.endpoint[k], now->endpoint[k]) ||
            !suite_manifest_same(was.variant[k], now->variant[k]) ||
            !suite_manifest_same(was.component[k], now->component[k]) ||
            !suite_manifest_same(was.label[k], now->label[k]))
            rc = suite_manifest_side_differs(&was, now, k, err);
    if (rc) buf_one_line(err); /* the manifest's text is quoted */
    return rc;
}

static cJSON *suite_manifest_side_json(const struct suite_manifest_target *t, int k,
                                       const char *folder) {
    cJSON *s = cJSON_CreateObject();
    if (s && suite_manifest_put_str(s, "endpoint", t->endpoint[k]) &&
        suite_manifest_put_str(s, "variant", t->variant[k]) &&
        suite_manifest_put_str(s, "inference_component", t->component[k]) &&
        suite_manifest_put_str(s, "label", t->label[k]) &&
        suite_manifest_put_str(s, "folder", folder))
        return s;
    cJSON_Delete(s);
    return NULL;
}

/* The old entry of a step by id, detached from the old list (or NULL). */
static cJSON *suite_manifest_take_old(cJSON *old_steps, const char *id) {
    cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, old_steps) {
        const char *eid = suite_manifest_str(e, "id");
        if (eid && strcmp(eid, id) == 0) return cJSON_DetachItemFromArray(old_steps, i);
        i++;
    }
    return NULL;
}

static cJSON *suite_manifest_files(const struct suite_plan *p, const struct suite_plan_step *s,
                                   const char *dir, const char *output) {
    cJSON *files = cJSON_CreateArray();
    size_t skip = strlen(dir) + 1;
    for (int k = s->side; files && k < s->side + s->nsides; k++) {
        char *r = suite_plan_result(p, s, k), *j = NULL;
        if (!r || asprintf(&j, "%.*s.journal.jsonl", (int)(strlen(r) - 5), r) < 0) j = NULL;
        bool ok = r && j && cJSON_AddItemToArray(files, cJSON_CreateString(r + skip)) &&
                  cJSON_AddItemToArray(files, cJSON_CreateString(j + skip));
        free(r);
        free(j);
        if (!ok) {
            cJSON_Delete(files);
            return NULL;
        }
    }
    if (files && !cJSON_AddItemToArray(files, cJSON_CreateString(output))) {
        cJSON_Delete(files);
        return NULL;
    }
    return files;
}

/* A step's entry: a complete earlier one as it is, else (re)described from the plan. */
static cJSON *suite_manifest_step_json(cJSON *old, const struct suite_plan *p, size_t i,
                                       const char *dir) {
    const struct suite_plan_step *s = &p->steps[i];
    const char *state = suite_manifest_str(old, "state");
    if (state && strcmp(state, "done") == 0) return old;
    cJSON *e = cJSON_IsObject(old) ? old : cJSON_CreateObject();
    if (e != old) cJSON_Delete(old);
    char output[64];
    snprintf(output, sizeof output, "output/%02zu-%s.txt", i + 1, s->id);
    bool ok = e && suite_manifest_put_str(e, "id", s->id) &&
              suite_manifest_put_str(e, "title", s->title) &&
              suite_manifest_put_str(e, "scenario", suite_opts_scenario_name(s->scenario)) &&
              suite_manifest_put(e, "threads_and_connections", cJSON_CreateNumber(s->level)) &&
              suite_manifest_put_str(e, "output", output) &&
              suite_manifest_put(e, "files", suite_manifest_files(p, s, dir, output)) &&
              suite_manifest_put_str(e, "state", "pending");
    if (ok) return e;
    cJSON_Delete(e);
    return NULL;
}

static cJSON *suite_manifest_steps(cJSON *old_steps, const struct suite_plan *p, const char *dir) {
    cJSON *steps = cJSON_CreateArray();
    for (size_t i = 0; steps && i < p->n; i++) {
        cJSON *e =
            suite_manifest_step_json(suite_manifest_take_old(old_steps, p->steps[i].id), p, i, dir);
        if (!e || !cJSON_AddItemToArray(steps, e)) {
            cJSON_Delete(e);
            cJSON_Delete(steps);
            return NULL;
        }
    }
    return steps;
}

/* The start-up logs copied into the sides' folders: {"baseline": {"from", "copy"}, ...}. */
static cJSON *suite_manifest_facts(const struct suite_opts *o, const char *const folder[2]) {
    static const char *const roles[2] = {"baseline", "candidate"};
    cJSON *f = cJSON_CreateObject();
    for (int k = 0; f && k < 2; k++) {
        cJSON *e = o->facts[k] ? cJSON_CreateObject() : NULL;
        char copy[SUITE_OPTS_NAME_MAX + 32];
        snprintf(copy, sizeof copy, "%s/%s", folder[k], SUITE_PLAN_FACTS_FILE);
        if (o->facts[k] &&
            (!e || !suite_manifest_put_str(e, "from", o->facts[k]) ||
             !suite_manifest_put_str(e, "copy", copy) || !suite_manifest_put(f, roles[k], e))) {
            cJSON_Delete(f);
            return NULL;
        }
    }
    return f;
}

static bool suite_manifest_header(cJSON *r, const struct suite_manifest_run *run) {
    const struct suite_opts *o = run->o;
    const struct suite_plan *p = run->p;
    const struct suite_manifest_target *t = run->target;
    const char *folder[2] = {strrchr(p->side_dir[0], '/') + 1, strrchr(p->side_dir[1], '/') + 1};
    return suite_manifest_put_str(r, "format", SUITE_MANIFEST_FORMAT) &&
           suite_manifest_put(r, "version", cJSON_CreateNumber(SUITE_MANIFEST_VERSION)) &&
           suite_manifest_put_str(r, "tool", "wrk-sagemaker " SM_VERSION) &&
           suite_manifest_put(r, "options", suite_manifest_strings(&o->saved)) &&
           suite_manifest_put_str(r, "wrk", t->wrk) &&
           suite_manifest_put_str(r, "scenario_dir", t->scenario_dir) &&
           suite_manifest_put_str(r, "url", t->url) &&
           suite_manifest_put_str(r, "region", t->region) &&
           suite_manifest_put(r, "time_scale", cJSON_CreateNumber(o->time_scale)) &&
           suite_manifest_put_str(r, "order", o->aba ? "aba" : "ab") &&
           suite_manifest_put(r, "baseline", suite_manifest_side_json(t, 0, folder[0])) &&
           suite_manifest_put(r, "candidate", suite_manifest_side_json(t, 1, folder[1])) &&
           suite_manifest_put(r, "facts", suite_manifest_facts(o, folder));
}

static bool suite_manifest_add_session(struct suite_manifest *m,
                                       const struct suite_argv *invocation, const char *now) {
    cJSON *sessions = cJSON_GetObjectItemCaseSensitive(m->root, "sessions");
    if (!cJSON_IsArray(sessions) && !suite_manifest_put(m->root, "sessions", cJSON_CreateArray()))
        return false;
    sessions = cJSON_GetObjectItemCaseSensitive(m->root, "sessions");
    m->session = cJSON_CreateObject();
    if (!m->session || !cJSON_AddItemToArray(sessions, m->session)) {
        cJSON_Delete(m->session);
        m->session = NULL;
        return false;
    }
    return suite_manifest_put(m->session, "command", suite_manifest_strings(invocation)) &&
           suite_manifest_put_str(m->session, "started_at", now) &&
           suite_manifest_put_str(m->session, "ended_at", NULL) &&
           suite_manifest_put_str(m->session, "outcome", "running");
}

int suite_manifest_begin(struct suite_manifest *m, const char *dir, struct suite_seal *seal,
                         const struct suite_manifest_run *r) {
    if (!m->path && suite_manifest_paths(m, dir) < 0) return SUITE_MANIFEST_ERR_NOMEM;
    if (!m->root) m->root = cJSON_CreateObject();
    if (!m->root) return SUITE_MANIFEST_ERR_NOMEM;
    m->seal = seal;
    cJSON *old = cJSON_DetachItemFromObjectCaseSensitive(m->root, "steps");
    cJSON *steps = suite_manifest_steps(old, r->p, dir);
    cJSON_Delete(old);
    if (!suite_manifest_put(m->root, "steps", steps) || !suite_manifest_header(m->root, r) ||
        !suite_manifest_add_session(m, r->invocation, r->now))
        return SUITE_MANIFEST_ERR_NOMEM;
    return SUITE_MANIFEST_OK;
}

void suite_manifest_free(struct suite_manifest *m) {
    cJSON_Delete(m->root);
    free(m->path);
    free(m->seal_path);
    buf_free(&m->text);
    memset(m, 0, sizeof *m);
}

cJSON *suite_manifest_step(const struct suite_manifest *m, size_t i) {
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m->root, "steps"), (int)i);
}

const char *suite_manifest_output(const struct suite_manifest *m, size_t i) {
    return suite_manifest_str(suite_manifest_step(m, i), "output");
}

int suite_manifest_step_start(struct suite_manifest *m, const struct suite_plan *p, size_t i,
                              const char *line, const char *now) {
    cJSON *e = suite_manifest_step(m, i);
    bool ok = e && suite_manifest_put(e, "command", suite_manifest_strings(&p->steps[i].cmd)) &&
              suite_manifest_put_str(e, "command_line", line) &&
              suite_manifest_put_str(e, "state", "running") &&
              suite_manifest_put_str(e, "started_at", now) &&
              suite_manifest_put_str(e, "ended_at", NULL) &&
              suite_manifest_put_str(e, "exit_status", NULL) &&
              suite_manifest_put_str(e, "reason", NULL);
    return ok ? SUITE_MANIFEST_OK : SUITE_MANIFEST_ERR_NOMEM;
}

int suite_manifest_step_end(struct suite_manifest *m, size_t i, const char *state, int exit_status,
                            const char *reason, const char *now) {
    cJSON *e = suite_manifest_step(m, i);
    bool ok = e && suite_manifest_put_str(e, "state", state) &&
              suite_manifest_put_str(e, "ended_at", now) &&
              suite_manifest_put(e, "exit_status",
                                 exit_status < 0 ? cJSON_CreateNull()
                                                 : cJSON_CreateNumber(exit_status)) &&
              suite_manifest_put_str(e, "reason", reason);
    return ok ? SUITE_MANIFEST_OK : SUITE_MANIFEST_ERR_NOMEM;
}

int suite_manifest_step_probe(struct suite_manifest *m, size_t i, double rate, bool held) {
    cJSON *e = suite_manifest_step(m, i), *probe = cJSON_CreateObject();
    bool ok = e && probe && cJSON_AddNumberToObject(probe, "rate", rate) &&
              cJSON_AddBoolToObject(probe, "held", held);
    if (ok)
        return suite_manifest_put(e, "probe", probe) ? SUITE_MANIFEST_OK : SUITE_MANIFEST_ERR_NOMEM;
    cJSON_Delete(probe);
    return SUITE_MANIFEST_ERR_NOMEM;
}

int suite_manifest_step_moved(struct suite_manifest *m, size_t i, const char *dir) {
    cJSON *e = suite_manifest_step(m, i);
    if (!e) return SUITE_MANIFEST_ERR_NOMEM;
    cJSON *earlier = cJSON_DetachItemFromObjectCaseSensitive(e, "earlier");
    if (!cJSON_IsArray(earlier)) {
        cJSON_Delete(earlier);
        earlier = cJSON_CreateArray();
    }
    cJSON *copy = cJSON_Duplicate(e, true);
    bool ok = earlier && copy && suite_manifest_put_str(copy, "moved_to", dir) &&
              cJSON_AddItemToArray(earlier, copy);
    if (!ok) cJSON_Delete(copy);
    return suite_manifest_put(e, "earlier", earlier) && ok ? SUITE_MANIFEST_OK
                                                           : SUITE_MANIFEST_ERR_NOMEM;
}

int suite_manifest_reports(struct suite_manifest *m, const struct suite_plan *p,
                           const struct suite_plan_tools *t, int exit_status) {
    cJSON *r = cJSON_CreateObject(), *cmds = cJSON_CreateArray();
    bool ok = r && cmds && suite_manifest_put(r, "commands", cmds);
    if (!ok) cJSON_Delete(cmds);
    for (int k = 0; ok && k < SUITE_PLAN_NCMP; k++) {
        struct buf line;
        buf_init(&line, BUF_NO_CAP);
        ok = suite_plan_command_line(t, &p->compare[k], false, &line) == BUF_OK &&
             cJSON_AddItemToArray(cmds, cJSON_CreateString(buf_str(&line)));
        buf_free(&line);
    }
    ok = ok && suite_manifest_put_str(r, "text", suite_plan_report_files[SUITE_PLAN_CMP_TEXT]) &&
         suite_manifest_put_str(r, "markdown", suite_plan_report_files[SUITE_PLAN_CMP_MARKDOWN]) &&
         suite_manifest_put_str(r, "json", suite_plan_report_files[SUITE_PLAN_CMP_JSON]) &&
         suite_manifest_put_str(r, "chart", suite_plan_report_files[SUITE_PLAN_NCMP]) &&
         suite_manifest_put(r, "exit_status", cJSON_CreateNumber(exit_status));
    if (ok)
        return suite_manifest_put(m->root, "reports", r) ? SUITE_MANIFEST_OK
                                                         : SUITE_MANIFEST_ERR_NOMEM;
    cJSON_Delete(r);
    return SUITE_MANIFEST_ERR_NOMEM;
}

int suite_manifest_end(struct suite_manifest *m, const char *outcome, const char *now) {
    return m->session && suite_manifest_put_str(m->session, "ended_at", now) &&
                   suite_manifest_put_str(m->session, "outcome", outcome)
               ? SUITE_MANIFEST_OK
               : SUITE_MANIFEST_ERR_NOMEM;
}

int suite_manifest_save(const struct suite_manifest *m, struct buf *err) {
    char *text = cJSON_Print(m->root);
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = text && buf_adds(&b, text) == BUF_OK && buf_addc(&b, '\n') == BUF_OK
                 ? SUITE_MANIFEST_OK
                 : buf_fail(err, SUITE_MANIFEST_ERR_NOMEM, "out of memory");
    cJSON_free(text);
    if (rc == SUITE_MANIFEST_OK && m->seal &&
        suite_seal_write(m->seal, m->seal_path, buf_str(&b), b.len, err) < 0)
        rc = SUITE_MANIFEST_ERR_IO;
    if (rc == SUITE_MANIFEST_OK && suite_files_write_atomic(m->path, buf_str(&b), b.len, err) < 0)
        rc = SUITE_MANIFEST_ERR_IO;
    buf_free(&b);
    return rc;
}
