#include "suite_manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readall.h"
#include "suite_files.h"

#define FORMAT  "wrk-sagemaker-suite"
#define VERSION 1

/* Sets obj[key] to item (replacing), taking it; false when item is NULL. */
static bool put(cJSON *obj, const char *key, cJSON *item) {
    if (!item) return false;
    if (cJSON_HasObjectItem(obj, key))
        return cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    return cJSON_AddItemToObject(obj, key, item);
}

static bool put_str(cJSON *obj, const char *key, const char *s) {
    return put(obj, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

static cJSON *strings(const struct suite_argv *a) {
    return cJSON_CreateStringArray((const char *const *)a->v, (int)a->n);
}

static cJSON *read_manifest(const char *path, char *err, size_t errlen) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = readall_path(path, &b);
    cJSON *root = rc == 0 ? cJSON_ParseWithLength(buf_str(&b), b.len) : NULL;
    buf_free(&b);
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsString(format) || strcmp(format->valuestring, FORMAT) != 0) {
        snprintf(err, errlen, "%s: %s", path,
                 rc == ENOENT ? "no such file (not a sm-suite run directory)"
                 : rc         ? "cannot be read"
                              : "not a sm-suite manifest");
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

int suite_manifest_options(const char *dir, struct suite_argv *out, char *err, size_t errlen) {
    char *path;
    if (asprintf(&path, "%s/manifest.json", dir) < 0) return -1;
    cJSON *root = read_manifest(path, err, errlen);
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(root, "options"), *o;
    int rc = root ? 0 : -1;
    if (root && !cJSON_IsArray(opts)) {
        snprintf(err, errlen, "%s: no \"options\" list", path);
        rc = -1;
    }
    for (o = rc ? NULL : opts->child; o; o = o->next) {
        if (!cJSON_IsString(o) || suite_argv_add(out, o->valuestring) < 0) {
            snprintf(err, errlen, "%s: \"options\" must be a list of strings", path);
            rc = -1;
            break;
        }
    }
    cJSON_Delete(root);
    free(path);
    return rc;
}

static cJSON *side_json(const struct suite_opts *o, int k, const char *folder) {
    cJSON *s = cJSON_CreateObject();
    const struct suite_side *d = &o->side[k];
    if (s && put_str(s, "endpoint", d->name) &&
        put_str(s, "variant", d->variant[0] ? d->variant : NULL) && put_str(s, "label", d->label) &&
        put_str(s, "folder", folder))
        return s;
    cJSON_Delete(s);
    return NULL;
}

/* The old entry of a step by id, detached from the old list (or NULL). */
static cJSON *take_old(cJSON *old_steps, const char *id) {
    cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, old_steps) {
        const cJSON *eid = cJSON_GetObjectItemCaseSensitive(e, "id");
        if (cJSON_IsString(eid) && strcmp(eid->valuestring, id) == 0)
            return cJSON_DetachItemFromArray(old_steps, i);
        i++;
    }
    return NULL;
}

static cJSON *files_json(const struct suite_plan *p, const struct suite_step *s, const char *dir,
                         const char *output) {
    cJSON *files = cJSON_CreateArray();
    size_t skip = strlen(dir) + 1;
    for (int k = 0; files && k < s->nsides; k++) {
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
static cJSON *step_json(cJSON *old, const struct suite_plan *p, size_t i, const char *dir) {
    const struct suite_step *s = &p->steps[i];
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(old, "state");
    if (cJSON_IsString(state) && strcmp(state->valuestring, "done") == 0) return old;
    cJSON *e = old ? old : cJSON_CreateObject();
    char output[64];
    snprintf(output, sizeof output, "output/%02zu-%s.txt", i + 1, s->id);
    bool ok = e && put_str(e, "id", s->id) && put_str(e, "title", s->title) &&
              put_str(e, "scenario", suite_scenario_name(s->scenario)) &&
              put(e, "threads_and_connections", cJSON_CreateNumber(s->level)) &&
              put_str(e, "output", output) && put(e, "files", files_json(p, s, dir, output)) &&
              put_str(e, "state", "pending");
    if (ok) return e;
    cJSON_Delete(e);
    return NULL;
}

static cJSON *steps_json(cJSON *old_steps, const struct suite_plan *p, const char *dir) {
    cJSON *steps = cJSON_CreateArray();
    for (size_t i = 0; steps && i < p->n; i++) {
        cJSON *e = step_json(take_old(old_steps, p->steps[i].id), p, i, dir);
        if (!e || !cJSON_AddItemToArray(steps, e)) {
            cJSON_Delete(steps);
            return NULL;
        }
    }
    return steps;
}

/* The start-up logs copied into the sides' folders: {"baseline": {"from", "copy"}, ...}. */
static cJSON *facts_json(const struct suite_opts *o, const char *const folder[2]) {
    static const char *const roles[2] = {"baseline", "candidate"};
    cJSON *f = cJSON_CreateObject();
    for (int k = 0; f && k < 2; k++) {
        cJSON *e = o->facts[k] ? cJSON_CreateObject() : NULL;
        char copy[SUITE_NAME_MAX + 32];
        snprintf(copy, sizeof copy, "%s/%s", folder[k], SUITE_FACTS_FILE);
        if (o->facts[k] && (!e || !put_str(e, "from", o->facts[k]) || !put_str(e, "copy", copy) ||
                            !put(f, roles[k], e))) {
            cJSON_Delete(f);
            return NULL;
        }
    }
    return f;
}

static bool header(cJSON *r, const struct suite_opts *o, const struct suite_plan *p) {
    const char *folder[2] = {strrchr(p->side_dir[0], '/') + 1, strrchr(p->side_dir[1], '/') + 1};
    return put_str(r, "format", FORMAT) && put(r, "version", cJSON_CreateNumber(VERSION)) &&
           put_str(r, "tool", "wrk-sagemaker " SM_VERSION) &&
           put(r, "options", strings(&o->saved)) && put_str(r, "url", p->url) &&
           put_str(r, "region", o->region) &&
           put(r, "time_scale", cJSON_CreateNumber(o->time_scale)) &&
           put_str(r, "order", o->aba ? "aba" : "ab") &&
           put(r, "baseline", side_json(o, 0, folder[0])) &&
           put(r, "candidate", side_json(o, 1, folder[1])) &&
           put(r, "facts", facts_json(o, folder));
}

static bool add_session(struct suite_manifest *m, const struct suite_argv *invocation,
                        const char *now) {
    cJSON *sessions = cJSON_GetObjectItemCaseSensitive(m->root, "sessions");
    if (!cJSON_IsArray(sessions) && !put(m->root, "sessions", cJSON_CreateArray())) return false;
    sessions = cJSON_GetObjectItemCaseSensitive(m->root, "sessions");
    m->session = cJSON_CreateObject();
    if (!m->session || !cJSON_AddItemToArray(sessions, m->session)) {
        cJSON_Delete(m->session);
        m->session = NULL;
        return false;
    }
    return put(m->session, "command", strings(invocation)) &&
           put_str(m->session, "started_at", now) && put_str(m->session, "ended_at", NULL) &&
           put_str(m->session, "outcome", "running");
}

int suite_manifest_begin(struct suite_manifest *m, const char *dir, const struct suite_opts *o,
                         const struct suite_plan *p, const struct suite_argv *invocation,
                         const char *now) {
    char err[512];
    memset(m, 0, sizeof *m);
    if (asprintf(&m->path, "%s/manifest.json", dir) < 0) {
        m->path = NULL;
        return -1;
    }
    m->root = o->resume ? read_manifest(m->path, err, sizeof err) : cJSON_CreateObject();
    if (!m->root) return -1;
    cJSON *old = cJSON_DetachItemFromObjectCaseSensitive(m->root, "steps");
    cJSON *steps = steps_json(old, p, dir);
    cJSON_Delete(old);
    if (!steps || !put(m->root, "steps", steps) || !header(m->root, o, p) ||
        !add_session(m, invocation, now))
        return -1;
    return 0;
}

void suite_manifest_free(struct suite_manifest *m) {
    cJSON_Delete(m->root);
    free(m->path);
    memset(m, 0, sizeof *m);
}

cJSON *suite_manifest_step(const struct suite_manifest *m, size_t i) {
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m->root, "steps"), (int)i);
}

const char *suite_manifest_output(const struct suite_manifest *m, size_t i) {
    return cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(suite_manifest_step(m, i), "output"));
}

int suite_manifest_step_start(struct suite_manifest *m, const struct suite_plan *p, size_t i,
                              const char *line, const char *now) {
    cJSON *e = suite_manifest_step(m, i);
    bool ok = e && put(e, "command", strings(&p->steps[i].cmd)) &&
              put_str(e, "command_line", line) && put_str(e, "state", "running") &&
              put_str(e, "started_at", now) && put_str(e, "ended_at", NULL) &&
              put_str(e, "exit_status", NULL) && put_str(e, "reason", NULL);
    return ok ? 0 : -1;
}

int suite_manifest_step_end(struct suite_manifest *m, size_t i, const char *state, int exit_status,
                            const char *reason, const char *now) {
    cJSON *e = suite_manifest_step(m, i);
    bool ok = e && put_str(e, "state", state) && put_str(e, "ended_at", now) &&
              put(e, "exit_status",
                  exit_status < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(exit_status)) &&
              put_str(e, "reason", reason);
    return ok ? 0 : -1;
}

int suite_manifest_step_moved(struct suite_manifest *m, size_t i, const char *dir) {
    cJSON *e = suite_manifest_step(m, i);
    if (!e) return -1;
    cJSON *earlier = cJSON_DetachItemFromObjectCaseSensitive(e, "earlier");
    if (!earlier) earlier = cJSON_CreateArray();
    cJSON *copy = cJSON_Duplicate(e, true);
    bool ok =
        earlier && copy && put_str(copy, "moved_to", dir) && cJSON_AddItemToArray(earlier, copy);
    if (!ok) cJSON_Delete(copy);
    return put(e, "earlier", earlier) && ok ? 0 : -1;
}

int suite_manifest_reports(struct suite_manifest *m, const struct suite_plan *p,
                           const struct suite_tools *t, int exit_status) {
    cJSON *r = cJSON_CreateObject(), *cmds = cJSON_CreateArray();
    bool ok = r && cmds && put(r, "commands", cmds);
    if (!ok) cJSON_Delete(cmds);
    for (int k = 0; ok && k < SUITE_NCMP; k++) {
        struct buf line;
        buf_init(&line, BUF_NO_CAP);
        ok = suite_plan_command_line(t, &p->compare[k], false, &line) == BUF_OK &&
             cJSON_AddItemToArray(cmds, cJSON_CreateString(buf_str(&line)));
        buf_free(&line);
    }
    ok = ok && put_str(r, "text", suite_report_files[SUITE_CMP_TEXT]) &&
         put_str(r, "markdown", suite_report_files[SUITE_CMP_MARKDOWN]) &&
         put_str(r, "json", suite_report_files[SUITE_CMP_JSON]) &&
         put_str(r, "chart", suite_report_files[SUITE_NCMP]) &&
         put(r, "exit_status", cJSON_CreateNumber(exit_status));
    if (ok) return put(m->root, "reports", r) ? 0 : -1;
    cJSON_Delete(r);
    return -1;
}

int suite_manifest_end(struct suite_manifest *m, const char *outcome, const char *now) {
    return m->session && put_str(m->session, "ended_at", now) &&
                   put_str(m->session, "outcome", outcome)
               ? 0
               : -1;
}

int suite_manifest_save(const struct suite_manifest *m) {
    char *text = cJSON_Print(m->root);
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = text && buf_adds(&b, text) == BUF_OK && buf_addc(&b, '\n') == BUF_OK
                 ? suite_write_atomic(m->path, buf_str(&b), b.len)
                 : -1;
    cJSON_free(text);
    buf_free(&b);
    return rc;
}
