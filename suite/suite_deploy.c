#include "suite_deploy.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "awsj.h"
#include "scrub.h"
#include "suite_exec.h"

#define SUITE_DEPLOY_OUT_MAX ((size_t)1 << 20)

int suite_deploy_command(const struct suite_opts *o, const char *program, const char *verb, int k,
                         const char *run, struct suite_argv *out) {
    const char *name = o->side[o->variants ? 0 : k].name;
    suite_argv_free(out);
    suite_argv_init(out);
    int rc = suite_argv_add(out, program);
    if (!rc && o->endpoint_url)
        rc = suite_argv_add(out, "--endpoint-url") || suite_argv_add(out, o->endpoint_url);
    if (!rc && o->allow_plain_http) rc = suite_argv_add(out, "--allow-plain-http");
    if (!rc) rc = suite_argv_add(out, "--region") || suite_argv_add(out, o->region);
    if (!rc && o->time_scale != 1)
        rc = suite_argv_add(out, "--time-scale") || suite_argv_addf(out, "%g", o->time_scale);
    if (!rc) rc = suite_argv_add(out, verb) || suite_argv_add(out, name);
    bool deploy = strcmp(verb, "deploy") == 0;
    if (!rc && deploy)
        rc = suite_argv_add(out, "--model") || suite_argv_add(out, o->model[k]) ||
             suite_argv_add(out, "--role") || suite_argv_add(out, o->role);
    if (!rc && deploy && o->instance_type)
        rc = suite_argv_add(out, "--instance-type") || suite_argv_add(out, o->instance_type);
    if (!rc && deploy) rc = suite_argv_add(out, "--no-wait");
    if (!rc && strcmp(verb, "delete") == 0)
        rc = suite_argv_add(out, "--yes") || suite_argv_add(out, "--wait");
    if (!rc && strcmp(verb, "status") == 0) rc = suite_argv_add(out, "--json");
    if (!rc && o->price > 0 && strcmp(verb, "status") != 0)
        rc = suite_argv_add(out, "--price-per-hour") || suite_argv_addf(out, "%g", o->price);
    if (!rc && run && (deploy || strcmp(verb, "delete") == 0))
        rc = suite_argv_add(out, "--run") || suite_argv_add(out, run);
    return rc ? SUITE_DEPLOY_ERR_NOMEM : SUITE_DEPLOY_OK;
}

int suite_deploy_judge(const char *json, size_t len, const char *endpoint, const char *variant,
                       struct buf *why) {
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "status");
    const cJSON *vs = cJSON_GetObjectItemCaseSensitive(root, "variants"), *v;
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(root, "failure_reason");
    int rc = SUITE_DEPLOY_OK;
    if (!cJSON_IsString(st))
        rc = buf_fail(why, SUITE_DEPLOY_ERR_NOT_READY, "sm-endpoint status %s gave no status",
                      endpoint);
    else if (strcmp(st->valuestring, "InService") != 0)
        rc = buf_fail(why, SUITE_DEPLOY_ERR_NOT_READY,
                      "endpoint %s is %.32s, not InService%s%.300s", endpoint, st->valuestring,
                      cJSON_IsString(fr) ? ": " : "", cJSON_IsString(fr) ? fr->valuestring : "");
    bool found = !variant;
    const cJSON *list = cJSON_IsArray(vs) ? vs : NULL;
    cJSON_ArrayForEach(v, list) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(v, "name");
        if (variant && cJSON_IsString(n) && strcmp(n->valuestring, variant) == 0) found = true;
    }
    if (!rc && !found)
        rc = buf_fail(why, SUITE_DEPLOY_ERR_NOT_READY, "endpoint %s has no production variant %s",
                      endpoint, variant);
    cJSON_Delete(root);
    return rc;
}

int suite_deploy_judge_component(const char *json, size_t len, const char *endpoint,
                                 const char *component, struct buf *why) {
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "InferenceComponentStatus");
    const cJSON *ep = cJSON_GetObjectItemCaseSensitive(root, "EndpointName");
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(root, "FailureReason");
    char line[512] = ""; /* the reply's text, bounded, quoted */
    if (!cJSON_IsString(st) || !cJSON_IsString(ep))
        snprintf(line, sizeof line, "DescribeInferenceComponent %s gave no status or endpoint",
                 component);
    else if (strcmp(ep->valuestring, endpoint) != 0)
        snprintf(line, sizeof line, "inference component %s is on endpoint %.63s, not %s",
                 component, ep->valuestring, endpoint);
    else if (strcmp(st->valuestring, "InService") != 0)
        snprintf(line, sizeof line,
                 "inference component %s of endpoint %s is %.32s, not InService%s%.300s", component,
                 endpoint, st->valuestring, cJSON_IsString(fr) ? ": " : "",
                 cJSON_IsString(fr) ? fr->valuestring : "");
    cJSON_Delete(root);
    if (!line[0]) return SUITE_DEPLOY_OK;
    scrub_in_place(line); /* a server's text may echo a secret */
    int rc = buf_fail(why, SUITE_DEPLOY_ERR_NOT_READY, "%s", line);
    buf_one_line(why);
    return rc;
}

int suite_deploy_check_component(const struct suite_opts *o, int k, struct buf *err) {
    const struct suite_opts_side *s = &o->side[k];
    const char *name = s->name;
    struct awsj_config cfg = {.region = o->region,
                              .endpoint_url = o->endpoint_url,
                              .allow_plain_http = o->allow_plain_http,
                              .ca_bundle = o->cacert};
    struct awsj_client *c = NULL;
    struct buf req, reply;
    buf_init(&req, 256);
    buf_init(&reply, SUITE_DEPLOY_OUT_MAX);
    int rc = SUITE_DEPLOY_OK;
    /* the name follows SageMaker's rule (suite_opts): no JSON escape needed */
    int call = buf_addf(&req, "{\"InferenceComponentName\":\"%s\"}", s->component)
                   ? AWSJ_ERR_NOMEM
                   : awsj_client_new(&cfg, &c, err);
    if (!call)
        call =
            awsj_call(c, AWSJ_SAGEMAKER, "DescribeInferenceComponent", buf_str(&req), &reply, err);
    if (!call)
        rc = suite_deploy_judge_component(reply.data, reply.len, name, s->component, err);
    else if (call == AWSJ_ERR_NOMEM)
        rc = buf_fail(err, SUITE_DEPLOY_ERR_NOMEM, "out of memory");
    else if (call == AWSJ_ERR_SERVICE && strcmp(awsj_last(c)->code, "ValidationException") == 0 &&
             strstr(buf_str(err), "Could not find"))
        rc = buf_fail(err, SUITE_DEPLOY_ERR_NOT_READY,
                      "inference component %s (of endpoint %s) does not exist in %s", s->component,
                      name, o->region);
    else
        fprintf(stderr,
                "sm-suite: warning: inference component %s not checked before the run (%s); "
                "going on\n",
                s->component, buf_str(err));
    awsj_client_free(c);
    buf_free(&req);
    buf_free(&reply);
    return rc;
}

/* ---- running sm-endpoint ---- */

static void suite_deploy_on_line(void *ctx, const char *line, bool is_stderr) {
    struct suite_deploy_run *r = ctx;
    if (!is_stderr) {
        if (buf_adds(&r->out, line) || buf_addc(&r->out, '\n')) buf_reset(&r->out);
        if (r->echo) fprintf(stderr, "  %s\n", line);
        return;
    }
    fprintf(stderr, "  %s\n", line);
    snprintf(r->last, sizeof r->last, "%s", line);
}

int suite_deploy_exec(const struct suite_argv *cmd, bool shielded, bool quiet,
                      struct suite_deploy_run *r, int *status, struct buf *err) {
    struct buf line;
    buf_init(&line, BUF_NO_CAP);
    if (!quiet && suite_argv_quote_all(&line, cmd) == BUF_OK)
        fprintf(stderr, "%s\n", buf_str(&line));
    buf_free(&line);
    struct suite_exec_io io = {-1, -1, suite_deploy_on_line, NULL, r, shielded};
    r->echo = !quiet;
    buf_reset(&r->out);
    r->last[0] = '\0';
    return suite_exec_run(cmd->v, &io, status, err) < 0 ? SUITE_DEPLOY_ERR_FAILED : SUITE_DEPLOY_OK;
}

/* Runs verb for side k; 0 when it exited 0. */
static int suite_deploy_step(struct suite_deploy *d, const char *verb, int k, bool shielded,
                             struct buf *err) {
    struct suite_argv cmd;
    struct suite_deploy_run r = {.echo = false};
    int status = -1;
    suite_argv_init(&cmd);
    buf_init(&r.out, SUITE_DEPLOY_OUT_MAX);
    int rc = suite_deploy_command(d->o, d->program, verb, k, d->run, &cmd);
    if (!rc) rc = suite_deploy_exec(&cmd, shielded, false, &r, &status, err);
    if (!rc && status != 0)
        rc = buf_fail(err, status == 130 ? SUITE_DEPLOY_ERR_STOPPED : SUITE_DEPLOY_ERR_FAILED,
                      "sm-endpoint %s %s exited with status %d%s%s", verb, d->o->side[k].name,
                      status, r.last[0] ? ": " : "", r.last);
    suite_argv_free(&cmd);
    buf_free(&r.out);
    return rc;
}

int suite_deploy_up(struct suite_deploy *d, struct buf *err) {
    if (!d->program)
        return buf_fail(err, SUITE_DEPLOY_ERR_FAILED,
                        "--deploy runs sm-endpoint: not found beside sm-suite or on PATH (build "
                        "it, or set SM_ENDPOINT)");
    fprintf(stderr,
            "sm-suite: deploying %s (%s) and %s (%s) with sm-endpoint; they bill from "
            "now until they are deleted%s\n",
            d->o->side[0].name, d->o->model[0], d->o->side[1].name, d->o->model[1],
            d->o->delete_after ? " (--delete-after: at the end of the run)" : "");
    if (!d->run[0]) {
        time_t now = time(NULL);
        struct tm tm;
        char stamp[32] = "0";
        if (gmtime_r(&now, &tm)) strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
        snprintf(d->run, sizeof d->run, "suite-%s-%lx", stamp, (unsigned long)getpid());
    }
    fprintf(stderr, "sm-suite: run %s: what its deploys create is tagged wrk-sagemaker:run=%s\n",
            d->run, d->run);
    int rc = SUITE_DEPLOY_OK;
    for (int k = 0; !rc && k < 2; k++) {
        if (suite_exec_stopping()) return buf_fail(err, SUITE_DEPLOY_ERR_STOPPED, "interrupted");
        d->made[k] = true;
        rc = suite_deploy_step(d, "deploy", k, false, err);
        /* A failed deploy deleted what it had made itself, and one onto a name that exists
           made nothing: what is there under that name is not this run's to delete. */
        if (rc == SUITE_DEPLOY_ERR_FAILED) d->made[k] = false;
        if (rc == SUITE_DEPLOY_ERR_FAILED && d->o->delete_after)
            fprintf(stderr,
                    "sm-suite: --delete-after: nothing of %s to delete: its deploy failed and "
                    "created nothing; what exists under that name is not this run's and is "
                    "left as it is\n",
                    d->o->side[k].name);
    }
    for (int k = 0; !rc && k < 2; k++) rc = suite_deploy_step(d, "wait", k, false, err);
    if (rc && suite_exec_stopping()) rc = buf_fail(err, SUITE_DEPLOY_ERR_STOPPED, "interrupted");
    return rc;
}

int suite_deploy_down(struct suite_deploy *d) {
    int status = 0;
    struct buf err;
    buf_init(&err, 4096);
    if (d->made[0] || d->made[1])
        fprintf(stderr, "sm-suite: deleting the endpoints of the run (--delete-after)%s\n",
                suite_exec_stopping() ? "; stopping does not stop this" : "");
    for (int k = 0; k < 2; k++) {
        if (!d->made[k]) continue;
        if (suite_deploy_step(d, "delete", k, true, &err) < 0) {
            fprintf(stderr,
                    "sm-suite: %s: delete it by hand (sm-endpoint delete %s --region %s --run "
                    "%s)\n",
                    buf_str(&err), d->o->side[k].name, d->o->region, d->run);
            status = 1;
        }
    }
    buf_free(&err);
    return status;
}

/* Checks one endpoint (and variant); 0, NOT_READY or STOPPED. */
static int suite_deploy_check_one(const struct suite_opts *o, const char *program, int k,
                                  struct buf *err) {
    struct suite_argv cmd;
    struct suite_deploy_run r = {.echo = false};
    int status = -1;
    const char *name = o->side[o->variants ? 0 : k].name;
    suite_argv_init(&cmd);
    buf_init(&r.out, SUITE_DEPLOY_OUT_MAX);
    int rc = suite_deploy_command(o, program, "status", k, NULL, &cmd);
    if (!rc) rc = suite_deploy_exec(&cmd, false, true, &r, &status, err);
    if (!rc && status == 0)
        rc = suite_deploy_judge(buf_str(&r.out), r.out.len, name,
                                o->variants ? o->side[k].variant : NULL, err);
    else if (!rc && suite_exec_stopping())
        rc = buf_fail(err, SUITE_DEPLOY_ERR_STOPPED, "interrupted");
    else if (!rc && strstr(r.last, "Could not find endpoint"))
        rc = buf_fail(err, SUITE_DEPLOY_ERR_NOT_READY, "endpoint %s does not exist in %s (%s)",
                      name, o->region, r.last);
    else if (!rc)
        fprintf(stderr,
                "sm-suite: warning: endpoint %s not checked before the run (%s); going on\n", name,
                r.last[0] ? r.last : "sm-endpoint could not ask");
    if (rc == SUITE_DEPLOY_ERR_FAILED) {
        fprintf(stderr,
                "sm-suite: warning: endpoint %s not checked before the run (%s); going on\n", name,
                buf_str(err));
        rc = SUITE_DEPLOY_OK;
    }
    suite_argv_free(&cmd);
    buf_free(&r.out);
    return rc;
}

int suite_deploy_check(const struct suite_opts *o, const char *program, struct buf *err) {
    if (o->no_endpoint_check || (o->url && !o->endpoint_url)) return SUITE_DEPLOY_OK;
    if (!program) {
        fprintf(stderr, "sm-suite: warning: sm-endpoint not found: the endpoints are not checked "
                        "before the run (--no-endpoint-check says so quietly)\n");
        return SUITE_DEPLOY_OK;
    }
    int rc = suite_deploy_check_one(o, program, 0, err);
    if (!rc && (o->variants || strcmp(o->side[0].name, o->side[1].name) != 0))
        rc = suite_deploy_check_one(o, program, 1, err);
    if (!rc)
        fprintf(stderr, "sm-suite: checked: %s%s%s InService%s\n", o->side[0].name,
                o->variants ? "" : " and ", o->variants ? "" : o->side[1].name,
                o->variants ? " with both variants" : "");
    for (int k = 0; !rc && k < 2; k++) {
        if (!o->side[k].component[0] ||
            (k == 1 && strcmp(o->side[0].component, o->side[1].component) == 0))
            continue;
        rc = suite_deploy_check_component(o, k, err);
        if (!rc)
            fprintf(stderr, "sm-suite: checked: inference component %s of %s InService\n",
                    o->side[k].component, o->side[k].name);
    }
    return rc;
}
