#include "suite_cdrun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "readall.h"
#include "suite_deploy.h"
#include "suite_exec.h"
#include "suite_files.h"

#define SUITE_CDRUN_OUT_MAX ((size_t)1 << 20)

/* The options read here that take a value (the slots of suite_cdrun_args). */
static const char *const suite_cdrun_valued[] = {"--role", "--region", "--endpoint-url",
                                                 "--time-scale"};

int suite_cdrun_args(struct suite_cdrun *d, struct suite_argv *rest, struct buf *err) {
    const char **slot[] = {&d->role, &d->region, &d->endpoint_url, &d->time_scale};
    const size_t nslots = sizeof slot / sizeof slot[0];
    _Static_assert(sizeof slot / sizeof slot[0] ==
                       sizeof suite_cdrun_valued / sizeof suite_cdrun_valued[0],
                   "a slot for each option");
    struct suite_argv keep;
    suite_argv_init(&keep);
    int rc = SUITE_CDRUN_OK;
    for (size_t i = 0; !rc && i < rest->n; i++) {
        const char *w = rest->v[i];
        size_t j = 0;
        while (j < nslots && strcmp(w, suite_cdrun_valued[j]) != 0) j++;
        if (j < nslots && i + 1 == rest->n) {
            rc = buf_fail(err, SUITE_CDRUN_ERR_USAGE, "%s: want a value", w);
            break;
        }
        if (j < nslots) {
            char *v = strdup(rest->v[i + 1]); /* the words are handed on below */
            if (!v) {
                rc = buf_fail(err, SUITE_CDRUN_ERR_NOMEM, "out of memory");
                break;
            }
            free((char *)*slot[j]);
            *slot[j] = v;
        }
        if (strcmp(w, "--allow-plain-http") == 0) d->plain_http = true;
        if (strcmp(w, "--dry-run") == 0) d->dry = true;
        if (strcmp(w, "--yes") == 0) {
            d->yes = true;
            continue;
        }
        if (j == 0) { /* --role and its value: sm-endpoint's, not the pairs' */
            i++;
            continue;
        }
        if (suite_argv_add(&keep, w)) rc = buf_fail(err, SUITE_CDRUN_ERR_NOMEM, "out of memory");
    }
    if (!rc) { /* the pairs get the rest */
        struct suite_argv old = *rest;
        *rest = keep;
        keep = old;
    }
    suite_argv_free(&keep);
    return rc;
}

/* ---- running sm-endpoint ---- */

/* sm-endpoint with the control plane's options, then verb and name (NULL: none). */
static int suite_cdrun_cmd(const struct suite_cdrun *d, const char *verb, const char *name,
                           struct suite_argv *cmd) {
    suite_argv_init(cmd);
    int rc = suite_argv_add(cmd, d->program);
    if (!rc && d->endpoint_url)
        rc = suite_argv_add(cmd, "--endpoint-url") || suite_argv_add(cmd, d->endpoint_url);
    if (!rc && d->plain_http) rc = suite_argv_add(cmd, "--allow-plain-http");
    if (!rc && d->region) rc = suite_argv_add(cmd, "--region") || suite_argv_add(cmd, d->region);
    if (!rc && d->time_scale)
        rc = suite_argv_add(cmd, "--time-scale") || suite_argv_add(cmd, d->time_scale);
    if (!rc) rc = suite_argv_add(cmd, verb);
    if (!rc && name) rc = suite_argv_add(cmd, name);
    return rc ? SUITE_CDRUN_ERR_NOMEM : SUITE_CDRUN_OK;
}

/* Runs cmd (shown unless quiet; freed); *status its exit status, c its output. */
static int suite_cdrun_exec(struct suite_argv *cmd, bool shielded, bool quiet,
                            struct suite_deploy_run *c, int *status, struct buf *err) {
    *status = -1;
    int rc = suite_deploy_exec(cmd, shielded, quiet, c, status, err) ? SUITE_CDRUN_ERR_FAILED : 0;
    suite_argv_free(cmd);
    return rc;
}

/* Runs cmd and wants exit status 0; what names the step in a failure. */
static int suite_cdrun_step(struct suite_argv *cmd, bool shielded, const char *what,
                            struct buf *err) {
    struct suite_deploy_run c = {.echo = false};
    int status;
    buf_init(&c.out, SUITE_CDRUN_OUT_MAX);
    int rc = suite_cdrun_exec(cmd, shielded, false, &c, &status, err);
    if (!rc && status != 0)
        rc = buf_fail(err, status == 130 ? SUITE_CDRUN_ERR_STOPPED : SUITE_CDRUN_ERR_FAILED,
                      "sm-endpoint %s exited with status %d%s%s", what, status,
                      c.last[0] ? ": " : "", c.last);
    buf_free(&c.out);
    return rc;
}

static int suite_cdrun_save(struct suite_cdrun *d, struct buf *err) {
    struct buf json;
    buf_init(&json, 1u << 20);
    int rc = suite_cdep_manifest_json(d->l, &d->m, &json);
    if (rc) rc = buf_fail(err, SUITE_CDRUN_ERR_NOMEM, "out of memory");
    if (!rc && suite_files_write_atomic(d->path, buf_str(&json), json.len, err) < 0)
        rc = SUITE_CDRUN_ERR_FAILED;
    buf_free(&json);
    return rc;
}

/* ---- before anything is created ---- */

static int suite_cdrun_quotas(struct suite_cdrun *d, struct suite_cdep_quota *q, size_t *nq,
                              struct buf *err) {
    struct suite_argv cmd;
    struct buf types;
    buf_init(&types, 4096);
    for (size_t i = 0; i < d->l->n; i++) {
        const struct suite_cand *c = &d->l->c[i];
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= d->l->c[j].deploy && strcmp(d->l->c[j].instance_type, c->instance_type) == 0;
        if (c->deploy && !seen &&
            buf_addf(&types, "%s%s", types.len ? "," : "", c->instance_type) != BUF_OK)
            return buf_fail(err, SUITE_CDRUN_ERR_NOMEM, "out of memory");
    }
    struct suite_deploy_run c = {.echo = false};
    int status;
    buf_init(&c.out, SUITE_CDRUN_OUT_MAX);
    int rc = suite_cdrun_cmd(d, "quotas", NULL, &cmd);
    if (!rc)
        rc = suite_argv_add(&cmd, "--instance-type") || suite_argv_add(&cmd, buf_str(&types)) ||
                     suite_argv_add(&cmd, "--json")
                 ? SUITE_CDRUN_ERR_NOMEM
                 : 0;
    if (!rc)
        rc = suite_cdrun_exec(&cmd, false, true, &c, &status, err);
    else
        suite_argv_free(&cmd);
    if (!rc && status != 0)
        rc = buf_fail(err, status == 130 ? SUITE_CDRUN_ERR_STOPPED : SUITE_CDRUN_ERR_FAILED,
                      "--candidates: the quotas of %s could not be read (sm-endpoint quotas: "
                      "%s); nothing was created",
                      buf_str(&types), c.last[0] ? c.last : "failed");
    if (!rc && suite_cdep_quotas_read(buf_str(&c.out), c.out.len, q, SUITE_CDEP_TYPE_MAX, nq, err))
        rc = SUITE_CDRUN_ERR_FAILED;
    buf_free(&c.out);
    buf_free(&types);
    return rc;
}

/* The manifest of an earlier run into d->m, else a new run id. */
static int suite_cdrun_manifest(struct suite_cdrun *d, struct buf *err) {
    struct buf text;
    buf_init(&text, 1u << 20);
    int rd = readall_regular(d->path, &text), rc = SUITE_CDRUN_OK;
    if (rd == 0)
        rc = suite_cdep_manifest_read(buf_str(&text), text.len, d->path, d->l, &d->m, err)
                 ? SUITE_CDRUN_ERR_USAGE
                 : SUITE_CDRUN_OK;
    else if (rd != ENOENT)
        rc = buf_fail(err, SUITE_CDRUN_ERR_USAGE, "%s: %s", d->path,
                      rd > 0 ? strerror(rd) : "not a file under 1 MiB");
    buf_free(&text);
    if (rc || rd == 0) return rc;
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32] = "0";
    if (gmtime_r(&now, &tm)) strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(d->m.run, sizeof d->m.run, "cand-%s-%lx", stamp, (unsigned long)getpid());
    return SUITE_CDRUN_OK;
}

static void suite_cdrun_tell_plan(const struct suite_cdrun *d, const struct suite_cdep_quota *q,
                                  size_t nq) {
    for (size_t t = 0; t < nq; t++)
        fprintf(stderr,
                "sm-suite: candidates: quota \"%s for endpoint usage\": %.0f, %ld in use "
                "by others\n",
                q[t].type, q[t].quota, q[t].in_use - q[t].ours);
    size_t np = (d->l->n + 1) / 2;
    for (int w = 0; w < d->nwaves; w++) {
        fprintf(stderr, "sm-suite: candidates: plan: step %d of %d deploys the endpoints of pair",
                w + 1, d->nwaves);
        const char *sep = " ";
        for (size_t k = 0; k < np; k++)
            if (d->wave[k] == w) {
                fprintf(stderr, "%s%zu", sep, k + 1);
                sep = ", ";
            }
        fprintf(stderr, " at once, measures those pairs one after another and deletes each "
                        "pair's endpoints after it\n");
    }
    if (d->nwaves > 1)
        fprintf(stderr,
                "sm-suite: candidates: the quotas do not hold every pair at once: %d "
                "steps one after another\n",
                d->nwaves);
}

/* --yes, or a "y" on a terminal. */
static int suite_cdrun_confirm(const struct suite_cdrun *d, size_t todo, struct buf *err) {
    if (d->yes || todo == 0) return SUITE_CDRUN_OK;
    if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
        char line[16] = "";
        fprintf(stderr, "sm-suite: deploy %zu endpoint(s) of %s (they bill until deleted)? [y/N] ",
                todo, d->m.run);
        if (fgets(line, sizeof line, stdin) && (line[0] == 'y' || line[0] == 'Y'))
            return SUITE_CDRUN_OK;
        return buf_fail(err, SUITE_CDRUN_ERR_USAGE,
                        "--candidates: not confirmed: nothing deployed");
    }
    return buf_fail(err, SUITE_CDRUN_ERR_USAGE,
                    "--candidates: %zu deploy spec(s) create endpoints that bill until deleted: "
                    "give --yes (without a terminal nothing is asked); nothing was created",
                    todo);
}

int suite_cdrun_name(struct suite_cdrun *d, struct buf *err) {
    for (size_t i = 0; i < d->l->n; i++) d->ndeploy += d->l->c[i].deploy;
    if (!d->ndeploy) return SUITE_CDRUN_OK;
    snprintf(d->path, sizeof d->path, "%s/deployments.json", d->out);
    if (!d->role)
        return buf_fail(err, SUITE_CDRUN_ERR_USAGE,
                        "--candidates: deploy specs need --role ARN (the execution role "
                        "SageMaker runs the container with)");
    int rc = suite_cdrun_manifest(d, err);
    if (rc) return rc;
    for (size_t i = 0; i < d->l->n; i++)
        if (d->l->c[i].deploy) suite_cdep_name(d->m.run, i, d->l->c[i].label, d->l->c[i].endpoint);
    return SUITE_CDRUN_OK;
}

int suite_cdrun_plan(struct suite_cdrun *d, struct buf *err) {
    int rc;
    if (!d->ndeploy) return SUITE_CDRUN_OK;
    if (!(d->program = d->find_endpoint ? d->find_endpoint() : NULL))
        return buf_fail(err, SUITE_CDRUN_ERR_USAGE,
                        "--candidates: deploy specs run sm-endpoint: not found beside sm-suite or "
                        "on PATH (build it, or set SM_ENDPOINT)");
    struct suite_cdep_quota q[SUITE_CDEP_TYPE_MAX];
    size_t nq = 0, todo = 0;
    if ((rc = suite_cdrun_quotas(d, q, &nq, err))) return rc;
    for (size_t i = 0; i < d->l->n; i++) {
        const struct suite_cand *c = &d->l->c[i];
        bool live = c->deploy && d->m.named[i] && !d->m.deleted[i];
        for (size_t t = 0; live && t < nq; t++)
            if (strcmp(q[t].type, c->instance_type) == 0) q[t].ours += c->instance_count;
        todo += c->deploy && !d->m.done[i / 2];
    }
    for (size_t t = 0; t < nq; t++)
        if (q[t].ours > q[t].in_use) q[t].ours = q[t].in_use; /* some are gone already */
    if (suite_cdep_plan(d->l, q, nq, d->m.done, d->region ? d->region : "the region", d->wave,
                        &d->nwaves, err))
        return SUITE_CDRUN_ERR_USAGE;
    fprintf(stderr,
            "sm-suite: candidates: run %s: its deploys are tagged wrk-sagemaker:run=%s; "
            "%s names them\n",
            d->m.run, d->m.run, d->path);
    suite_cdrun_tell_plan(d, q, nq);
    return d->dry ? SUITE_CDRUN_OK : suite_cdrun_confirm(d, todo, err);
}

/* ---- the wave's deploys, the pair's deletes ---- */

/* 1: candidate i's endpoint is there (any state), 0: it is not, <0: could not ask. */
static int suite_cdrun_there(const struct suite_cdrun *d, size_t i, struct buf *err) {
    struct suite_argv cmd;
    struct suite_deploy_run c = {.echo = false};
    int status;
    buf_init(&c.out, SUITE_CDRUN_OUT_MAX);
    int rc = suite_cdrun_cmd(d, "status", d->l->c[i].endpoint, &cmd);
    if (!rc) rc = suite_argv_add(&cmd, "--json") ? SUITE_CDRUN_ERR_NOMEM : 0;
    if (!rc)
        rc = suite_cdrun_exec(&cmd, false, true, &c, &status, err);
    else
        suite_argv_free(&cmd);
    if (!rc && status == 0)
        rc = 1;
    else if (!rc && strstr(c.last, "Could not find endpoint"))
        rc = 0;
    else if (!rc)
        rc = buf_fail(err, status == 130 ? SUITE_CDRUN_ERR_STOPPED : SUITE_CDRUN_ERR_FAILED,
                      "sm-endpoint status %s exited with status %d%s%s", d->l->c[i].endpoint,
                      status, c.last[0] ? ": " : "", c.last);
    buf_free(&c.out);
    return rc;
}

static int suite_cdrun_deploy(struct suite_cdrun *d, size_t i, struct buf *err) {
    const struct suite_cand *c = &d->l->c[i];
    struct suite_argv cmd;
    int rc = suite_cdrun_cmd(d, "deploy", c->endpoint, &cmd);
    if (!rc)
        rc = suite_argv_add(&cmd, "--model") || suite_argv_add(&cmd, c->model) ||
             suite_argv_add(&cmd, "--role") || suite_argv_add(&cmd, d->role) ||
             suite_argv_add(&cmd, "--instance-type") || suite_argv_add(&cmd, c->instance_type) ||
             suite_argv_add(&cmd, "--count") || suite_argv_addf(&cmd, "%d", c->instance_count);
    if (!rc && c->image[0]) rc = suite_argv_add(&cmd, "--image") || suite_argv_add(&cmd, c->image);
    for (size_t e = 0; !rc && e < c->n_env; e++)
        rc = suite_argv_add(&cmd, "--env") ||
             suite_argv_addf(&cmd, "%s=%s", c->env[e].key, c->env[e].value);
    if (!rc && c->price_per_hour > 0)
        rc = suite_argv_add(&cmd, "--price-per-hour") ||
             suite_argv_addf(&cmd, "%g", c->price_per_hour);
    if (!rc)
        rc = suite_argv_add(&cmd, "--no-wait") || suite_argv_add(&cmd, "--run") ||
             suite_argv_add(&cmd, d->m.run);
    if (rc) {
        suite_argv_free(&cmd);
        return buf_fail(err, SUITE_CDRUN_ERR_NOMEM, "out of memory");
    }
    return suite_cdrun_step(&cmd, false, "deploy", err);
}

static int suite_cdrun_delete(struct suite_cdrun *d, size_t i, struct buf *err) {
    struct suite_argv cmd;
    int rc = suite_cdrun_cmd(d, "delete", d->l->c[i].endpoint, &cmd);
    if (!rc)
        rc = suite_argv_add(&cmd, "--yes") || suite_argv_add(&cmd, "--wait") ||
             suite_argv_add(&cmd, "--run") || suite_argv_add(&cmd, d->m.run);
    if (rc) {
        suite_argv_free(&cmd);
        return buf_fail(err, SUITE_CDRUN_ERR_NOMEM, "out of memory");
    }
    rc = suite_cdrun_step(&cmd, true, "delete", err);
    if (!rc) {
        d->m.deleted[i] = true;
        rc = suite_cdrun_save(d, err);
    }
    return rc;
}

/* Candidate i's endpoint, deployed unless it is there. */
static int suite_cdrun_ensure(struct suite_cdrun *d, size_t i, struct buf *err) {
    const struct suite_cand *c = &d->l->c[i];
    if (d->m.named[i] && !d->m.deleted[i]) {
        int there = suite_cdrun_there(d, i, err);
        if (there < 0) return there;
        if (there) {
            fprintf(stderr,
                    "sm-suite: candidates: %s: endpoint %s is there (the manifest names "
                    "it): not deployed again\n",
                    c->label, c->endpoint);
            return SUITE_CDRUN_OK;
        }
    }
    if (suite_exec_stopping()) return buf_fail(err, SUITE_CDRUN_ERR_STOPPED, "interrupted");
    d->m.named[i] = true; /* named before it exists */
    d->m.deleted[i] = false;
    int rc = suite_cdrun_save(d, err);
    if (!rc)
        fprintf(stderr,
                "sm-suite: candidates: %s: deploying endpoint %s (%d %s, %s); it bills "
                "until its pair is measured and it is deleted\n",
                c->label, c->endpoint, c->instance_count, c->instance_type, c->model);
    return rc ? rc : suite_cdrun_deploy(d, i, err);
}

int suite_cdrun_up(struct suite_cdrun *d, int w, struct buf *err) {
    size_t np = (d->l->n + 1) / 2;
    int rc = SUITE_CDRUN_OK;
    for (size_t i = 0; !rc && i < d->l->n; i++)
        if (d->l->c[i].deploy && d->wave[i / 2] == w) rc = suite_cdrun_ensure(d, i, err);
    for (size_t i = 0; !rc && i < d->l->n; i++) {
        struct suite_argv cmd;
        if (!d->l->c[i].deploy || d->wave[i / 2] != w) continue;
        rc = suite_cdrun_cmd(d, "wait", d->l->c[i].endpoint, &cmd);
        if (!rc && d->l->c[i].price_per_hour > 0)
            rc = suite_argv_add(&cmd, "--price-per-hour") ||
                         suite_argv_addf(&cmd, "%g", d->l->c[i].price_per_hour)
                     ? SUITE_CDRUN_ERR_NOMEM
                     : 0;
        if (rc)
            suite_argv_free(&cmd);
        else
            rc = suite_cdrun_step(&cmd, false, "wait", err);
    }
    if (rc && suite_exec_stopping()) return buf_fail(err, SUITE_CDRUN_ERR_STOPPED, "interrupted");
    if (rc) {
        /* the run stops here: what this wave deployed goes */
        fprintf(stderr, "sm-suite: %s\n", buf_str(err));
        for (size_t k = 0; k < np; k++)
            if (d->wave[k] == w) (void)suite_cdrun_down(d, k, false);
    }
    return rc;
}

int suite_cdrun_down(struct suite_cdrun *d, size_t k, bool complete) {
    size_t ia = 2 * k, ib = 2 * k + 1 < d->l->n ? 2 * k + 1 : 2 * k;
    int status = 0;
    struct buf err;
    buf_init(&err, 4096);
    for (size_t i = ia; i <= ib; i++) {
        if (!d->l->c[i].deploy || !d->m.named[i] || d->m.deleted[i]) continue;
        fprintf(stderr, "sm-suite: candidates: deleting %s's endpoint %s (this run's)%s\n",
                d->l->c[i].label, d->l->c[i].endpoint,
                suite_exec_stopping() ? "; stopping does not stop this" : "");
        if (suite_cdrun_delete(d, i, &err)) {
            fprintf(stderr,
                    "sm-suite: %s: delete it by hand (sm-endpoint delete %s --run %s "
                    "--yes --wait)\n",
                    buf_str(&err), d->l->c[i].endpoint, d->m.run);
            status = 1;
        }
    }
    if (complete && !status && d->ndeploy) {
        d->m.done[k] = true;
        if (suite_cdrun_save(d, &err)) {
            fprintf(stderr, "sm-suite: %s\n", buf_str(&err));
            status = 1;
        }
    }
    buf_free(&err);
    return status;
}

void suite_cdrun_left(const struct suite_cdrun *d) {
    for (size_t i = 0; i < d->l->n; i++)
        if (d->l->c[i].deploy && d->m.named[i] && !d->m.deleted[i])
            fprintf(stderr,
                    "sm-suite: candidates: left for the next run (it bills meanwhile): "
                    "endpoint %s; to delete it instead: sm-endpoint delete %s --run %s "
                    "--yes --wait\n",
                    d->l->c[i].endpoint, d->l->c[i].endpoint, d->m.run);
}

void suite_cdrun_free(struct suite_cdrun *d) {
    free(d->program);
    free((char *)d->role);
    free((char *)d->region);
    free((char *)d->endpoint_url);
    free((char *)d->time_scale);
}
