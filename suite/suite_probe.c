#include "suite_probe.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

int suite_probe_command(const struct suite_opts *o, const char *compare, const char *file,
                        struct suite_argv *out) {
    int rc = suite_argv_add(out, compare);
    rc |= suite_argv_add(out, "--format") | suite_argv_add(out, "json");
    for (int i = 0; i < o->nslo; i++)
        rc |= suite_argv_add(out, "--slo") | suite_argv_add(out, o->slo[i]);
    if (o->max_error_rate)
        rc |= suite_argv_add(out, "--max-error-rate") | suite_argv_add(out, o->max_error_rate);
    rc |= suite_argv_add(out, file) | suite_argv_add(out, file);
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
