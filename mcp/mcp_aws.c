#include "mcp_aws.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "creds.h"
#include "mcp_proc.h"

/* The hooks' argument: the call, and the progress sent so far. */
struct mcp_aws_call {
    struct mcp_tool_call *call;
    double sent;
};

static void mcp_aws_progress(void *ud, const char *line, double fraction) {
    struct mcp_aws_call *c = ud;
    (void)fraction;
    c->sent += 1;
    (void)!mcp_tool_progress(c->call, c->sent, -1, line);
}

static bool mcp_aws_stopped(void *ud) {
    return mcp_tool_cancelled(((struct mcp_aws_call *)ud)->call);
}

/* Sleeps in short steps, waking when the client cancels. */
static void mcp_aws_sleep(void *ud, double s) {
    long steps = s > 0 ? (long)ceil(s / 0.05) : 0;
    for (long i = 0; i < steps && !mcp_aws_stopped(ud); i++) {
        double left = s - (double)i * 0.05, d = left < 0.05 ? left : 0.05;
        struct timespec ts = {0, (long)(d * 1e9)};
        nanosleep(&ts, NULL);
    }
}

const char *mcp_aws_string(const cJSON *args, const char *key, const char *dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

double mcp_aws_number(const cJSON *args, const char *key, double dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

bool mcp_aws_bool(const cJSON *args, const char *key, bool dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

size_t mcp_aws_strings(const cJSON *args, const char *key, const char **list, size_t max) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(args, key), *e;
    const cJSON *list_arr = cJSON_IsArray(arr) ? arr : NULL;
    size_t n = 0;
    cJSON_ArrayForEach(e, list_arr) {
        if (cJSON_IsString(e) && n < max) list[n++] = e->valuestring;
    }
    return n;
}

size_t mcp_aws_regions(const cJSON *args, const char *region, const char **list) {
    size_t n = mcp_aws_strings(args, "regions", list, EPOPS_MAX_REGIONS);
    if (!n) list[n++] = region;
    return n;
}

void mcp_aws_deploy_req(const cJSON *args, const char *region, struct epops_deploy_req *r) {
    *r = (struct epops_deploy_req){
        .name = mcp_aws_string(args, "endpoint_name", ""),
        .model_id = mcp_aws_string(args, "model_id", ""),
        .image = mcp_aws_string(args, "image", NULL),
        .role = mcp_aws_string(args, "role_arn", NULL),
        .wait = mcp_aws_bool(args, "wait", true),
        .wait_timeout_s = mcp_aws_number(args, "wait_timeout_s", 0),
        .price = mcp_aws_number(args, "price_per_hour", 0),
        .max_model_len = (long)mcp_aws_number(args, "max_model_len", 0),
    };
    r->n_types = mcp_aws_strings(args, "instance_types", r->types, EPREQ_MAX_TYPES);
    r->n_regions = mcp_aws_regions(args, region, r->regions);
}

void mcp_aws_price_arg(const cJSON *args, char **argv, int *n, char text[32]) {
    double p = mcp_aws_number(args, "price_per_hour", 0);
    if (!(p > 0)) return;
    snprintf(text, 32, "%g", p);
    argv[(*n)++] = "--price-per-hour";
    argv[(*n)++] = text;
}

/* The hooks' argument of a program: the call, and the tool's line handler. */
struct mcp_aws_program {
    struct mcp_tool_call *call;
    void (*on_line)(void *ud, const char *line, bool is_stderr);
    void *ud;
};

static void mcp_aws_program_line(void *ud, const char *line, bool is_stderr) {
    const struct mcp_aws_program *p = ud;
    p->on_line(p->ud, line, is_stderr);
}

/* A program stops when the client cancels the call or leaves (the input ends). */
static bool mcp_aws_program_stop(void *ud) {
    struct mcp_tool_call *call = ((const struct mcp_aws_program *)ud)->call;
    return mcp_tool_cancelled(call) || mcp_tool_input_ended(call);
}

int mcp_aws_program(struct mcp_tool_call *call, char *const argv[],
                    void (*on_line)(void *ud, const char *line, bool is_stderr), void *ud,
                    int *status) {
    struct mcp_aws_program p = {call, on_line, ud};
    struct mcp_proc_io io = {mcp_aws_program_line, mcp_aws_program_stop, &p};
    struct buf err;
    bool stopped;
    buf_init(&err, 1024);
    int rc = mcp_proc_run(argv, &io, status, &stopped, &err);
    if (rc)
        rc = mcp_tool_fail(call, "%s", buf_str(&err));
    else if (stopped && mcp_tool_cancelled(call))
        rc = MCP_TOOL_CANCELLED;
    else if (stopped)
        rc = mcp_tool_fail(call,
                           "%s was stopped with every process it started: sm-mcp's input ended "
                           "(keep it open until the reply)",
                           argv[0]);
    buf_free(&err);
    return rc;
}

int mcp_aws_region(const struct mcp_aws *a, struct mcp_tool_call *call, const cJSON *args,
                   const char **region) {
    *region = NULL;
    if (!a) return mcp_tool_fail(call, "this server reaches no AWS API (registered without one)");
    const char *r = mcp_aws_string(args, "region", a->region);
    *region = r;
    if (!r)
        return mcp_tool_fail(call, "no region: give \"region\" (e.g. us-east-2), or start sm-mcp "
                                   "with --region");
    if (!creds_name_ok(r))
        return mcp_tool_fail(call, "\"%.40s\" is not a region such as us-east-2", r);
    return MCP_TOOL_OK;
}

double mcp_aws_price(const struct mcp_aws *a, double given, const char *type, const char *region,
                     const char **source) {
    struct epops_config cfg = {.region = region,
                               .endpoint_url = a->endpoint_url,
                               .profile = a->profile,
                               .facts_path = a->facts,
                               .time_scale = a->time_scale};
    struct epops *ops;
    struct buf err;
    buf_init(&err, 1024);
    double price = 0;
    *source = NULL;
    if (epops_new(&cfg, &ops, &err) == 0) {
        price = epops_price(ops, given, type, region, source);
        epops_free(ops);
    }
    buf_free(&err);
    return price;
}

int mcp_aws_join(const char *const *list, size_t n, struct buf *out) {
    int rc = BUF_OK;
    for (size_t i = 0; i < n && !rc; i++) rc = buf_addf(out, "%s%s", i ? ", " : "", list[i]);
    return rc ? MCP_TOOL_INTERNAL : MCP_TOOL_OK;
}

int mcp_aws_open(const struct mcp_aws *a, struct mcp_tool_call *call, const cJSON *args,
                 struct epops **ops, const char **region) {
    struct buf err;
    *ops = NULL;
    int rc0 = mcp_aws_region(a, call, args, region);
    if (rc0) return rc0;
    const char *r = *region;
    struct mcp_aws_call *c = calloc(1, sizeof *c);
    if (!c) return MCP_TOOL_INTERNAL;
    c->call = call;
    struct epops_config cfg = {r,
                               a->endpoint_url,
                               a->profile,
                               a->facts,
                               a->time_scale,
                               0,
                               {mcp_aws_progress, mcp_aws_stopped, mcp_aws_sleep, NULL, NULL, c},
                               NULL,
                               a->allow_plain_http};
    buf_init(&err, 1024);
    int rc = epops_new(&cfg, ops, &err);
    if (rc) {
        free(c);
        rc = rc == EPOPS_ERR_NOMEM ? MCP_TOOL_INTERNAL : mcp_tool_fail(call, "%s", buf_str(&err));
    }
    buf_free(&err);
    return rc;
}

int mcp_aws_close(struct mcp_tool_call *call, struct epops *ops, int rc, struct epops_out *out,
                  const struct buf *err) {
    int status;
    if (rc == EPOPS_ERR_STOPPED && mcp_tool_cancelled(call))
        status = MCP_TOOL_CANCELLED;
    else if (rc == EPOPS_ERR_NOMEM)
        status = MCP_TOOL_INTERNAL;
    else if (rc)
        status = mcp_tool_fail(call, "%s", err->len ? buf_str(err) : "the operation failed");
    else {
        status = mcp_tool_text_n(call, buf_str(&out->text), out->text.len);
        if (!status && out->json) {
            status = mcp_tool_structured(call, out->json);
            out->json = NULL; /* taken */
        }
    }
    void *hooks = ops ? epops_config(ops)->hooks.ud : NULL;
    epops_out_free(out);
    epops_free(ops);
    free(hooks);
    return status;
}

int mcp_aws_run(void *user, struct mcp_tool_call *call, const cJSON *args, mcp_aws_op_fn *op) {
    struct epops *ops;
    const char *region;
    struct epops_out out;
    struct buf err;
    int rc = mcp_aws_open(user, call, args, &ops, &region);
    if (rc) return rc;
    epops_out_init(&out);
    buf_init(&err, 4096);
    rc = op(ops, region, args, &out, &err);
    rc = mcp_aws_close(call, ops, rc, &out, &err);
    buf_free(&err);
    return rc;
}
