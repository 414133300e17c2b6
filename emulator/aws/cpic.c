#include "cpic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpdesc.h"
#include "cpres.h"
#include "jsonw.h"
#include "smname.h"

#define CPIC_NAME_PATTERN "[a-zA-Z0-9]([\\-a-zA-Z0-9]*[a-zA-Z0-9])?"

/* What one instance of a type has: accelerator devices, vCPUs and memory
 * (MiB), as EC2 lists the instance families SageMaker hosts on. */
static const struct {
    const char *type;
    int accelerators, cpus;
    long mem_mb;
} cpic_types[] = {
    {"ml.g5.xlarge", 1, 4, 16384},       {"ml.g5.2xlarge", 1, 8, 32768},
    {"ml.g5.4xlarge", 1, 16, 65536},     {"ml.g5.12xlarge", 4, 48, 196608},
    {"ml.g5.48xlarge", 8, 192, 786432},  {"ml.g6.xlarge", 1, 4, 16384},
    {"ml.g6.2xlarge", 1, 8, 32768},      {"ml.g6.4xlarge", 1, 16, 65536},
    {"ml.g6.12xlarge", 4, 48, 196608},   {"ml.g6.48xlarge", 8, 192, 786432},
    {"ml.g6e.xlarge", 1, 4, 32768},      {"ml.g6e.2xlarge", 1, 8, 65536},
    {"ml.g6e.12xlarge", 4, 48, 393216},  {"ml.g6e.48xlarge", 8, 192, 1572864},
    {"ml.p4d.24xlarge", 8, 96, 1179648}, {"ml.p5.48xlarge", 8, 192, 2097152},
    {"ml.m5.xlarge", 0, 4, 16384},       {"ml.c5.xlarge", 0, 4, 8192},
};

void cpic_init(struct cpic *ic) {
    memset(ic, 0, sizeof *ic);
}

static void cpic_comp_free(struct cpic_comp *c) {
    if (c) cptag_free(&c->tags);
    free(c);
}

void cpic_free(struct cpic *ic) {
    for (size_t i = 0; i < ic->n; i++) cpic_comp_free(ic->c[i]);
    ic->n = 0;
}

const char *cpic_state_name(enum cpic_state s) {
    switch (s) {
    case CPIC_CREATING:
        return "Creating";
    case CPIC_UPDATING:
        return "Updating";
    case CPIC_IN_SERVICE:
        return "InService";
    case CPIC_DELETING:
        return "Deleting";
    case CPIC_FAILED:
        return "Failed";
    }
    return "Failed";
}

/* ---- requests ---- */

static int cpic_invalid(struct buf *err, const char *field, const char *value, const char *why) {
    return cpreq_invalid(err, field, value, why) ? CPIC_ERR_VALIDATION : CPIC_OK;
}

static int cpic_type_error(struct buf *err, const char *member, const char *want) {
    return buf_fail(err, CPIC_ERR_SERIALIZATION, "%s: expected %s", member, want);
}

/* The component's name member (InferenceComponentName, its own pattern). */
static int cpic_read_name(const cJSON *req, char out[CPREQ_NAME_MAX], struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, "InferenceComponentName");
    if (!v || cJSON_IsNull(v)) return cpic_invalid(err, "inferenceComponentName", NULL, NULL);
    if (!cJSON_IsString(v)) return cpic_type_error(err, "InferenceComponentName", "a string");
    size_t n = strlen(v->valuestring);
    if (n > 63)
        return cpic_invalid(err, "inferenceComponentName", v->valuestring,
                            "Member must have length less than or equal to 63");
    if (!smname_endpoint_ok(v->valuestring, n))
        return cpic_invalid(err, "inferenceComponentName", v->valuestring,
                            "Member must satisfy regular expression pattern: " CPIC_NAME_PATTERN);
    memcpy(out, v->valuestring, n + 1);
    return CPIC_OK;
}

/* An object member: NULL when absent or null. */
static int cpic_object(const cJSON *obj, const char *key, const cJSON **out, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!v || cJSON_IsNull(v)) return CPIC_OK;
    if (!cJSON_IsObject(v)) return cpic_type_error(err, key, "a structure");
    *out = v;
    return CPIC_OK;
}

/* A number member; absent: *out unchanged. integer: a whole number. */
static int cpic_number(const cJSON *obj, const char *key, bool integer, double *out,
                       struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v)) return CPIC_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
        (integer &&
         (v->valuedouble != floor(v->valuedouble) || fabs(v->valuedouble) > 2147483647.0)))
        return cpic_type_error(err, key, integer ? "an integer" : "a number");
    *out = v->valuedouble;
    return CPIC_OK;
}

/* A value under its minimum: the service's message. */
static int cpic_below(struct buf *err, const char *field, double value, const char *min) {
    char num[64];
    snprintf(num, sizeof num, "%g", value);
    return buf_fail(err, CPIC_ERR_VALIDATION,
                    "1 validation error detected: Value '%s' at '%s' failed to satisfy "
                    "constraint: Member must have value greater than or equal to %s",
                    num, field, min);
}

/* RuntimeConfig (member key, field its name in messages): CopyCount >= 0. */
static int cpic_read_copies(const cJSON *req, const char *key, const char *field, long *copies,
                            struct buf *err) {
    const cJSON *rc_obj;
    char where[96];
    double n = -1;
    int rc = cpic_object(req, key, &rc_obj, err);
    if (rc) return rc;
    if (!rc_obj) return cpic_invalid(err, field, NULL, NULL);
    snprintf(where, sizeof where, "%s.copyCount", field);
    if ((rc = cpic_number(rc_obj, "CopyCount", true, &n, err))) return rc;
    if (n < -0.5 && !cJSON_GetObjectItemCaseSensitive(rc_obj, "CopyCount"))
        return cpic_invalid(err, where, NULL, NULL);
    if (n < 0) return cpic_below(err, where, n, "0");
    *copies = (long)n;
    return CPIC_OK;
}

/* Specification: ModelName and ComputeResourceRequirements. */
static int cpic_read_spec(const cJSON *req, struct cpic_create *out, struct buf *err) {
    const cJSON *spec, *crr;
    int rc = cpic_object(req, "Specification", &spec, err);
    if (rc) return rc;
    if (!spec) {
        if (cJSON_GetObjectItemCaseSensitive(req, "Specifications"))
            return buf_fail(err, CPIC_ERR_VALIDATION,
                            "sm-emulator serves Specification, not Specifications: give one "
                            "specification");
        return cpic_invalid(err, "specification", NULL, NULL);
    }
    rc = cpreq_name(spec, "ModelName", "specification.modelName", out->model, err);
    if (rc) return rc == CPREQ_ERR_SERIALIZATION ? CPIC_ERR_SERIALIZATION : CPIC_ERR_VALIDATION;
    if ((rc = cpic_object(spec, "ComputeResourceRequirements", &crr, err))) return rc;
    if (!crr) return cpic_invalid(err, "specification.computeResourceRequirements", NULL, NULL);
    struct cpic_need *nd = &out->need;
    double mem = -1, max_mem = 0;
    if ((rc = cpic_number(crr, "NumberOfAcceleratorDevicesRequired", false, &nd->accelerators,
                          err)) ||
        (rc = cpic_number(crr, "NumberOfCpuCoresRequired", false, &nd->cpus, err)) ||
        (rc = cpic_number(crr, "MinMemoryRequiredInMb", true, &mem, err)) ||
        (rc = cpic_number(crr, "MaxMemoryRequiredInMb", true, &max_mem, err)))
        return rc;
    if (cJSON_GetObjectItemCaseSensitive(crr, "NumberOfAcceleratorDevicesRequired") &&
        nd->accelerators < 1)
        return cpic_below(err,
                          "specification.computeResourceRequirements."
                          "numberOfAcceleratorDevicesRequired",
                          nd->accelerators, "1");
    if (cJSON_GetObjectItemCaseSensitive(crr, "NumberOfCpuCoresRequired") && nd->cpus < 0.25)
        return cpic_below(err, "specification.computeResourceRequirements.numberOfCpuCoresRequired",
                          nd->cpus, "0.25");
    if (!cJSON_GetObjectItemCaseSensitive(crr, "MinMemoryRequiredInMb"))
        return cpic_invalid(err, "specification.computeResourceRequirements.minMemoryRequiredInMb",
                            NULL, NULL);
    if (mem < 128)
        return cpic_below(err, "specification.computeResourceRequirements.minMemoryRequiredInMb",
                          mem, "128");
    if (cJSON_GetObjectItemCaseSensitive(crr, "MaxMemoryRequiredInMb") && max_mem < 128)
        return cpic_below(err, "specification.computeResourceRequirements.maxMemoryRequiredInMb",
                          max_mem, "128");
    nd->min_mem_mb = (long)mem;
    nd->max_mem_mb = (long)max_mem;
    return CPIC_OK;
}

int cpic_read_create(const cJSON *req, struct cpic_create *out, struct buf *err) {
    const cJSON *variant = cJSON_GetObjectItemCaseSensitive(req, "VariantName");
    memset(out, 0, sizeof *out);
    int rc = cpic_read_name(req, out->name, err);
    if (rc) return rc;
    rc = cpreq_name(req, "EndpointName", "endpointName", out->endpoint, err);
    if (!rc && variant && !cJSON_IsNull(variant))
        rc = cpreq_name(req, "VariantName", "variantName", out->variant, err);
    if (rc) return rc == CPREQ_ERR_SERIALIZATION ? CPIC_ERR_SERIALIZATION : CPIC_ERR_VALIDATION;
    if ((rc = cpic_read_spec(req, out, err))) return rc;
    return cpic_read_copies(req, "RuntimeConfig", "runtimeConfig", &out->copies, err);
}

int cpic_read_update(const cJSON *req, bool runtime, struct cpic_update *out, struct buf *err) {
    memset(out, 0, sizeof *out);
    out->copies = -1;
    int rc = cpic_read_name(req, out->name, err);
    if (rc) return rc;
    if (runtime)
        return cpic_read_copies(req, "DesiredRuntimeConfig", "desiredRuntimeConfig", &out->copies,
                                err);
    if (!cJSON_GetObjectItemCaseSensitive(req, "RuntimeConfig")) return CPIC_OK;
    return cpic_read_copies(req, "RuntimeConfig", "runtimeConfig", &out->copies, err);
}

/* ---- the components ---- */

struct cpic_comp *cpic_find(const struct cpic *ic, const char *region, const char *name) {
    for (size_t i = 0; i < ic->n; i++)
        if (strcmp(ic->c[i]->region, region) == 0 && strcasecmp(ic->c[i]->name, name) == 0)
            return ic->c[i];
    return NULL;
}

static size_t cpic_type_at(const char *type) {
    for (size_t i = 0; i < sizeof cpic_types / sizeof cpic_types[0]; i++)
        if (strcmp(cpic_types[i].type, type) == 0) return i;
    return (size_t)-1;
}

long cpic_fit(const char *type, const struct cpic_need *need) {
    size_t t = cpic_type_at(type);
    if (t == (size_t)-1) return -1;
    long n = cpic_types[t].mem_mb / (need->min_mem_mb > 0 ? need->min_mem_mb : 1);
    if (need->accelerators > 0) {
        long by = (long)floor(cpic_types[t].accelerators / need->accelerators);
        n = by < n ? by : n;
    }
    if (need->cpus > 0) {
        long by = (long)floor(cpic_types[t].cpus / need->cpus);
        n = by < n ? by : n;
    }
    return n;
}

int cpic_fits(const struct cpic *ic, const char *region, const char *endpoint, const char *variant,
              const char *type, long instances, const char *name, const struct cpic_need *need,
              long copies, const struct cpic_comp *skip, struct buf *err) {
    size_t t = cpic_type_at(type);
    if (t == (size_t)-1)
        return buf_fail(err, CPIC_ERR_VALIDATION,
                        "Inference component %s: sm-emulator does not know the accelerators and "
                        "memory of instance type %s (variant %s of endpoint %s)",
                        name, type, variant, endpoint);
    long per = cpic_fit(type, need);
    double accel = copies * need->accelerators, cpus = copies * need->cpus;
    double mem = (double)copies * (double)need->min_mem_mb;
    for (size_t i = 0; i < ic->n; i++) {
        const struct cpic_comp *o = ic->c[i];
        if (o == skip || o->state == CPIC_DELETING || strcmp(o->region, region) != 0 ||
            strcasecmp(o->endpoint, endpoint) != 0 || strcmp(o->variant, variant) != 0)
            continue;
        accel += o->desired * o->need.accelerators;
        cpus += o->desired * o->need.cpus;
        mem += (double)o->desired * (double)o->need.min_mem_mb;
    }
    if (copies <= per * instances && accel <= (double)instances * cpic_types[t].accelerators &&
        cpus <= (double)instances * cpic_types[t].cpus &&
        mem <= (double)instances * (double)cpic_types[t].mem_mb)
        return CPIC_OK;
    return buf_fail(err, CPIC_ERR_VALIDATION,
                    "Inference component %s: %ld copies of %g accelerator devices, %g CPU cores "
                    "and %ld MB do not fit, with the other components' copies, on the %ld "
                    "instances of variant %s of endpoint %s (%s: %d accelerator devices, %d CPU "
                    "cores and %ld MB each)",
                    name, copies, need->accelerators, need->cpus, need->min_mem_mb, instances,
                    variant, endpoint, type, cpic_types[t].accelerators, cpic_types[t].cpus,
                    cpic_types[t].mem_mb);
}

int cpic_add(struct cpic *ic, const struct cpic_create *c, const char *region, const char *type,
             double load_s, double now_model, double now_wall, struct cptag_list *tags,
             struct buf *err) {
    if (ic->n == CPIC_MAX)
        return buf_fail(err, CPIC_ERR_LIMIT,
                        "sm-emulator holds at most %d inference components: delete some", CPIC_MAX);
    struct cpic_comp *k = calloc(1, sizeof *k);
    if (!k) return CPIC_ERR_NOMEM;
    snprintf(k->name, sizeof k->name, "%s", c->name);
    snprintf(k->region, sizeof k->region, "%s", region);
    snprintf(k->endpoint, sizeof k->endpoint, "%s", c->endpoint);
    snprintf(k->variant, sizeof k->variant, "%s", c->variant);
    snprintf(k->model, sizeof k->model, "%s", c->model);
    snprintf(k->instance_type, sizeof k->instance_type, "%s", type);
    snprintf(k->profile, sizeof k->profile, "%s", c->profile);
    k->need = c->need;
    k->desired = c->copies;
    k->state = CPIC_CREATING;
    k->load_s = load_s;
    k->ready_at = now_model + load_s;
    k->created = k->modified = now_wall;
    if (load_s <= 0) { /* nothing to load: its copies serve at once */
        k->state = CPIC_IN_SERVICE;
        k->current = k->desired;
        k->ready_at = -1;
    }
    k->tags = *tags;
    memset(tags, 0, sizeof *tags);
    ic->c[ic->n++] = k;
    return CPIC_OK;
}

void cpic_set_copies(struct cpic_comp *c, long copies, double now_model, double now_wall) {
    c->desired = copies;
    c->modified = now_wall;
    if (copies <= c->current) {
        c->current = copies;
        if (c->state == CPIC_UPDATING) c->state = CPIC_IN_SERVICE;
        return;
    }
    if (c->load_s <= 0) {
        c->current = copies;
        return;
    }
    if (c->state == CPIC_IN_SERVICE) c->state = CPIC_UPDATING;
    c->ready_at = now_model + c->load_s;
}

void cpic_scaled(struct cpic_comp *c, long current, long desired, double now_wall) {
    if (c->state != CPIC_IN_SERVICE && c->state != CPIC_UPDATING) return;
    if (c->current != current || c->desired != desired) c->modified = now_wall;
    c->current = current;
    c->desired = desired;
    c->state = desired > current ? CPIC_UPDATING : CPIC_IN_SERVICE;
    c->ready_at = -1; /* scaling launches its own copies */
}

void cpic_delete(struct cpic_comp *c, double now_model, double delete_s, double now_wall) {
    if (c->state == CPIC_DELETING) return;
    c->state = CPIC_DELETING;
    c->current = 0;
    c->gone_at = now_model + delete_s;
    c->modified = now_wall;
}

/* The time of c's next change, or -1. */
static double cpic_due(const struct cpic_comp *c) {
    if (c->state == CPIC_DELETING) return c->gone_at;
    if ((c->state == CPIC_CREATING || c->state == CPIC_UPDATING) && c->ready_at >= 0)
        return c->ready_at;
    return -1;
}

double cpic_next(const struct cpic *ic) {
    double best = -1;
    for (size_t i = 0; i < ic->n; i++) {
        double t = cpic_due(ic->c[i]);
        if (t >= 0 && (best < 0 || t < best)) best = t;
    }
    return best;
}

void cpic_advance(struct cpic *ic, double now_model, double now_wall) {
    for (size_t i = 0; i < ic->n;) {
        struct cpic_comp *c = ic->c[i];
        double t = cpic_due(c);
        if (t < 0 || t > now_model) {
            i++;
            continue;
        }
        if (c->state == CPIC_DELETING) {
            cpic_comp_free(c);
            for (size_t j = i; j + 1 < ic->n; j++) ic->c[j] = ic->c[j + 1];
            ic->n--;
            continue;
        }
        c->current = c->desired;
        c->state = CPIC_IN_SERVICE;
        c->ready_at = -1;
        c->modified = now_wall;
        i++;
    }
}

/* ---- replies ---- */

static int cpic_key(struct buf *out, bool first, const char *key) {
    return buf_addf(out, "%s\"%s\":", first ? "" : ",", key);
}

static int cpic_str(struct buf *out, bool first, const char *key, const char *value) {
    int rc = cpic_key(out, first, key);
    return rc ? rc : jsonw_cstr(out, value);
}

/* The members every reply of a component has (name, ARNs, status, times). */
static int cpic_summary_members(struct buf *out, const char *account, const struct cpic_comp *c) {
    int rc = cpic_str(out, true, "InferenceComponentName", c->name);
    if (!rc) rc = cpic_key(out, false, "InferenceComponentArn");
    if (!rc) rc = cpres_arn_json(out, account, c->region, "inference-component", c->name);
    if (!rc) rc = cpic_str(out, false, "EndpointName", c->endpoint);
    if (!rc) rc = cpic_key(out, false, "EndpointArn");
    if (!rc) rc = cpres_arn_json(out, account, c->region, "endpoint", c->endpoint);
    if (!rc) rc = cpic_str(out, false, "VariantName", c->variant);
    if (!rc) rc = cpic_str(out, false, "InferenceComponentStatus", cpic_state_name(c->state));
    if (!rc)
        rc = buf_addf(out, ",\"CreationTime\":%.3f,\"LastModifiedTime\":%.3f", c->created,
                      c->modified);
    return rc;
}

int cpic_describe(struct buf *out, const char *account, const struct cpic_comp *c) {
    int rc = cpic_summary_members(out, account, c);
    if (!rc) rc = buf_adds(out, ",\"Specification\":{");
    if (!rc) rc = cpic_str(out, true, "ModelName", c->model);
    if (!rc)
        rc = buf_addf(out, ",\"ComputeResourceRequirements\":{\"MinMemoryRequiredInMb\":%ld",
                      c->need.min_mem_mb);
    if (!rc && c->need.accelerators > 0)
        rc = buf_addf(out, ",\"NumberOfAcceleratorDevicesRequired\":%g", c->need.accelerators);
    if (!rc && c->need.cpus > 0)
        rc = buf_addf(out, ",\"NumberOfCpuCoresRequired\":%g", c->need.cpus);
    if (!rc && c->need.max_mem_mb > 0)
        rc = buf_addf(out, ",\"MaxMemoryRequiredInMb\":%ld", c->need.max_mem_mb);
    if (!rc)
        rc =
            buf_addf(out, "}},\"RuntimeConfig\":{\"DesiredCopyCount\":%ld,\"CurrentCopyCount\":%ld",
                     c->desired, c->current);
    if (!rc && c->current > 0) {
        rc = buf_adds(out, ",\"PlacementStatus\":[{");
        if (!rc) rc = cpic_str(out, true, "InstanceType", c->instance_type);
        if (!rc) rc = buf_addf(out, ",\"CurrentCopyCount\":%ld}]", c->current);
    }
    return rc ? rc : buf_addc(out, '}');
}

/* An optional string member of ListInferenceComponents: NULL when absent. */
static int cpic_opt_str(const cJSON *req, const char *key, const char **out, struct buf *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);
    *out = NULL;
    if (!v || cJSON_IsNull(v)) return CPIC_OK;
    if (!cJSON_IsString(v)) return cpic_type_error(err, key, "a string");
    *out = v->valuestring;
    return CPIC_OK;
}

/* A component's sort key in a listing. */
static struct cpdesc_key cpic_key_of(const struct cpic_comp *c) {
    return (struct cpdesc_key){c->name, cpic_state_name(c->state), c->created};
}

int cpic_list(struct buf *out, const char *account, const struct cpic *ic, const char *region,
              const cJSON *req, struct buf *err) {
    struct cpreq_list l; /* ListEndpoints' members, the same shapes */
    const char *ep, *variant;
    int rc = cpreq_list(req, &l, err);
    if (rc) return rc == CPREQ_ERR_SERIALIZATION ? CPIC_ERR_SERIALIZATION : CPIC_ERR_VALIDATION;
    rc = cpic_opt_str(req, "EndpointNameEquals", &ep, err);
    if (!rc) rc = cpic_opt_str(req, "VariantNameEquals", &variant, err);
    if (rc) return rc;
    const struct cpic_comp *sel[CPIC_MAX];
    size_t n = 0;
    for (size_t i = 0; i < ic->n; i++) {
        const struct cpic_comp *c = ic->c[i];
        if (strcmp(c->region, region) != 0 ||
            (l.name_contains && !cpdesc_contains(c->name, l.name_contains)) ||
            (l.status && strcmp(l.status, cpic_state_name(c->state)) != 0) ||
            (ep && strcasecmp(ep, c->endpoint) != 0) ||
            (variant && strcmp(variant, c->variant) != 0))
            continue;
        size_t j = n++;
        struct cpdesc_key k = cpic_key_of(c), o;
        for (; j > 0 && (o = cpic_key_of(sel[j - 1]), cpdesc_before(&k, &o, &l)); j--)
            sel[j] = sel[j - 1];
        sel[j] = c;
    }
    size_t start = (size_t)l.start, end = start + (size_t)l.max_results;
    rc = buf_adds(out, "\"InferenceComponents\":[");
    for (size_t i = start; !rc && i < n && i < end; i++) {
        rc = (i > start && buf_addc(out, ',')) || buf_addc(out, '{') ||
             cpic_summary_members(out, account, sel[i]) || buf_addc(out, '}');
    }
    if (!rc) rc = buf_addc(out, ']');
    if (!rc && end < n) rc = buf_addf(out, ",\"NextToken\":\"t%zu\"", end);
    return rc ? CPIC_ERR_NOMEM : CPIC_OK;
}

int cpic_stats_json(struct buf *out, const struct cpic *ic, const char *region) {
    int rc = buf_adds(out, "\"inference_components\":{");
    bool first = true;
    for (size_t i = 0; !rc && i < ic->n; i++) {
        const struct cpic_comp *c = ic->c[i];
        if (strcmp(c->region, region) != 0) continue;
        rc = (!first && buf_addc(out, ',')) || jsonw_cstr(out, c->name) || buf_adds(out, ":{") ||
             cpic_str(out, true, "endpoint", c->endpoint);
        first = false;
        if (!rc) rc = cpic_str(out, false, "variant", c->variant);
        if (!rc) rc = cpic_str(out, false, "status", cpic_state_name(c->state));
        if (!rc)
            rc = buf_addf(out,
                          ",\"copies\":%ld,\"desired_copies\":%ld,\"invocations\":%lu,"
                          "\"no_capacity_invocation_failures\":%lu}",
                          c->current, c->desired, c->invocations, c->no_capacity);
    }
    return rc ? rc : buf_addc(out, '}');
}
