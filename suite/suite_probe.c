#include "suite_probe.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "suite_exec.h"

int suite_probe_command(const struct suite_opts *o, const char *compare, const char *file,
                        struct suite_argv *out) {
    int rc = suite_argv_add(out, compare);
    rc |= suite_argv_add(out, "--format") | suite_argv_add(out, "json");
    for (int i = 0; i < o->nslo; i++)
        rc |= suite_argv_add(out, "--slo") | suite_argv_add(out, o->slo[i]);
    if (o->max_error_rate)
        rc |= suite_argv_add(out, "--max-error-rate") | suite_argv_add(out, o->max_error_rate);
    if (o->min_attainment)
        rc |= suite_argv_add(out, "--min-attainment") | suite_argv_add(out, o->min_attainment);
    for (int side = 0; side < 2; side++) rc |= suite_argv_add(out, file); /* as both sides */
    return rc ? SUITE_PROBE_ERR_NOMEM : SUITE_PROBE_OK;
}

bool suite_probe_same_rate(double a, double b) {
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

int suite_probe_verdict(const char *json, size_t len, double rate, bool *held, struct buf *err) {
    cJSON *root = len <= SUITE_PROBE_JSON_MAX ? cJSON_ParseWithLength(json, len) : NULL;
    const cJSON *ol = cJSON_GetObjectItemCaseSensitive(root, "open_loop");
    const cJSON *sides = cJSON_GetObjectItemCaseSensitive(ol, "sides");
    const cJSON *side = cJSON_GetObjectItemCaseSensitive(sides, "baseline");
    const cJSON *rates = cJSON_GetObjectItemCaseSensitive(side, "rates"), *p;
    bool found = false;
    cJSON_ArrayForEach(p, rates) {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(p, "rate");
        const cJSON *slos = cJSON_GetObjectItemCaseSensitive(p, "slos");
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(slos, "held");
        if (!cJSON_IsNumber(r) || !suite_probe_same_rate(r->valuedouble, rate) || !cJSON_IsBool(h))
            continue;
        *held = cJSON_IsTrue(h);
        found = true;
        break;
    }
    cJSON_Delete(root);
    return found ? SUITE_PROBE_OK
                 : buf_fail(err, SUITE_PROBE_ERR_FORMAT,
                            "sm-compare's report has no verdict at %g requests/s (no request "
                            "at that rate?)",
                            rate);
}

int suite_probe_rate(const char *json, size_t len, double *rate, struct buf *err) {
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *settings = cJSON_GetObjectItemCaseSensitive(root, "settings");
    const cJSON *rates = cJSON_GetObjectItemCaseSensitive(settings, "rates");
    const cJSON *r = cJSON_GetArrayItem(rates, 0);
    bool ok = cJSON_IsArray(rates) && cJSON_GetArraySize(rates) == 1 && cJSON_IsNumber(r) &&
              r->valuedouble > 0;
    if (ok) *rate = r->valuedouble;
    cJSON_Delete(root);
    return ok ? SUITE_PROBE_OK
              : buf_fail(err, SUITE_PROBE_ERR_FORMAT,
                         "not a probe's result file (settings.rates is not one rate)");
}

/* What sm-compare printed: its JSON, and its messages. */
struct suite_probe_out {
    struct buf out, msg;
};

static void suite_probe_on_line(void *ctx, const char *line, bool is_stderr) {
    struct suite_probe_out *v = ctx;
    struct buf *b = is_stderr ? &v->msg : &v->out;
    if (buf_adds(b, line) != BUF_OK || buf_addc(b, '\n') != BUF_OK) b->len = b->cap; /* full */
}

int suite_probe_run(char *const argv[], double rate, bool *held, struct buf *err) {
    struct suite_probe_out v;
    buf_init(&v.out, SUITE_PROBE_JSON_MAX);
    buf_init(&v.msg, 4096);
    struct suite_exec_io io = {-1, -1, suite_probe_on_line, NULL, &v, false};
    int status = -1;
    int rc = suite_exec_run(argv, &io, &status, err) < 0 ? SUITE_PROBE_ERR_RUN : SUITE_PROBE_OK;
    if (rc == SUITE_PROBE_OK && status != 0)
        rc = buf_fail(err, SUITE_PROBE_ERR_RUN, "sm-compare failed (status %d): %s", status,
                      buf_str(&v.msg));
    if (rc == SUITE_PROBE_OK) rc = suite_probe_verdict(buf_str(&v.out), v.out.len, rate, held, err);
    buf_free(&v.out);
    buf_free(&v.msg);
    return rc;
}
