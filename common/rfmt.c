#include "rfmt.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "field.h"

#define RFMT_SCALE_MIN 1e-3 /* time_scale: slower than this is not an emulator setting */
#define RFMT_SCALE_MAX 1e6
#define RFMT_SEED_MAX  9007199254740992.0 /* 2^53: a seed JSON carries exactly */
#define RFMT_US_MAX    1e15               /* microseconds: 31 years */

static cJSON *rfmt_str(const char *s) {
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *rfmt_num(double v) {
    return v < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

/* Adds v (NULL: out of memory) to o as name; false when either failed. */
static bool rfmt_add(cJSON *o, const char *name, cJSON *v) {
    if (v && cJSON_AddItemToObject(o, name, v)) return true;
    cJSON_Delete(v);
    return false;
}

static cJSON *rfmt_endpoint(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    if (o && rfmt_add(o, "name", rfmt_str(h->endpoint.name)) &&
        rfmt_add(o, "variant", rfmt_str(h->endpoint.variant)) &&
        rfmt_add(o, "format", rfmt_str(h->endpoint.format)) &&
        rfmt_add(o, "inference_component", rfmt_str(h->endpoint.component)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *rfmt_target(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    if (o && rfmt_add(o, "url", rfmt_str(h->target.url)) &&
        rfmt_add(o, "host", rfmt_str(h->target.host)) &&
        rfmt_add(o, "region", rfmt_str(h->target.region)) &&
        rfmt_add(o, "service", rfmt_str(h->target.service)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *rfmt_client(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    if (o && rfmt_add(o, "threads", rfmt_num((double)h->client.threads)) &&
        rfmt_add(o, "connections", rfmt_num((double)h->client.connections)) &&
        rfmt_add(o, "duration_s", rfmt_num(h->client.duration_s)) &&
        rfmt_add(o, "timeout_s", rfmt_num(h->client.timeout_s)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *rfmt_shard(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    if (o && rfmt_add(o, "index", cJSON_CreateNumber((double)h->shard.index)) &&
        rfmt_add(o, "count", cJSON_CreateNumber((double)h->shard.count)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *rfmt_clock(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    if (o && rfmt_add(o, "offset_us", cJSON_CreateNumber((double)h->clock.offset_us)) &&
        rfmt_add(o, "uncertainty_us", cJSON_CreateNumber((double)h->clock.uncertainty_us)) &&
        rfmt_add(o, "probes", cJSON_CreateNumber((double)h->clock.probes)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* The optional fields of the head that are set, added to o. */
static bool rfmt_add_run(cJSON *o, const struct rfmt_head *h) {
    return (!h->has_seed || rfmt_add(o, RFMT_SEED, cJSON_CreateNumber((double)h->seed))) &&
           (h->shard.count <= 0 || rfmt_add(o, RFMT_SHARD, rfmt_shard(h))) &&
           (!h->start_at || rfmt_add(o, RFMT_START_AT, cJSON_CreateString(h->start_at))) &&
           (h->start_tolerance_s < 0 ||
            rfmt_add(o, RFMT_START_TOL, cJSON_CreateNumber(h->start_tolerance_s))) &&
           (!h->clock.have || rfmt_add(o, RFMT_CLOCK, rfmt_clock(h))) &&
           (!h->settings_sha256 ||
            rfmt_add(o, RFMT_SETTINGS_HASH, cJSON_CreateString(h->settings_sha256)));
}

cJSON *rfmt_head_json(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    cJSON *settings = h->settings ? cJSON_Duplicate(h->settings, true) : cJSON_CreateObject();
    if (o && rfmt_add(o, RFMT_FORMAT, cJSON_CreateString(RFMT_NAME)) &&
        rfmt_add(o, RFMT_FORMAT_VERSION, cJSON_CreateNumber(RFMT_VERSION)) &&
        rfmt_add(o, RFMT_TOOL, rfmt_str(h->tool)) &&
        rfmt_add(o, RFMT_SCENARIO, rfmt_str(h->scenario)) &&
        rfmt_add(o, RFMT_RUN_ID, rfmt_str(h->run_id)) &&
        rfmt_add(o, RFMT_LABEL, rfmt_str(h->label)) &&
        rfmt_add(o, RFMT_ENDPOINT, rfmt_endpoint(h)) && rfmt_add(o, RFMT_TARGET, rfmt_target(h)) &&
        rfmt_add(o, RFMT_CLIENT, rfmt_client(h)) &&
        rfmt_add(o, RFMT_CLIENT_NAME,
                 cJSON_CreateString(h->client_name ? h->client_name : "wrk")) &&
        rfmt_add(o, RFMT_API, cJSON_CreateString(h->api ? h->api : "invoke")) &&
        rfmt_add(o, RFMT_TIME_SCALE, cJSON_CreateNumber(h->time_scale)) &&
        rfmt_add(o, RFMT_STARTED_AT, rfmt_str(h->started_at)) && rfmt_add_run(o, h)) {
        if (rfmt_add(o, RFMT_SETTINGS, settings)) return o;
        settings = NULL;
    }
    cJSON_Delete(settings);
    cJSON_Delete(o);
    return NULL;
}

/* ---- reading ------------------------------------------------------------ */

// clang-format off
static const struct field_rule rfmt_head_rules[] = {
    {RFMT_TOOL, FIELD_STR, 0, 0},
    {RFMT_SCENARIO, FIELD_STR, 0, 0},
    {RFMT_RUN_ID, FIELD_STR | FIELD_NULL, 0, 0},
    {RFMT_LABEL, FIELD_STR | FIELD_NULL, 0, 0},
    {RFMT_ENDPOINT, FIELD_OBJ, 0, 0},
    {RFMT_TARGET, FIELD_OBJ | FIELD_NULL, 0, 0},
    {RFMT_CLIENT, FIELD_OBJ | FIELD_NULL, 0, 0},
    {RFMT_CLIENT_NAME, FIELD_STR | FIELD_NULL, 0, 0},
    {RFMT_API, FIELD_STR | FIELD_NULL, 0, 0},
    {RFMT_TIME_SCALE, FIELD_NUM, RFMT_SCALE_MIN, RFMT_SCALE_MAX},
    {RFMT_STARTED_AT, FIELD_STR | FIELD_NULL, 0, 0},
    {RFMT_SEED, FIELD_INT | FIELD_NULL, -RFMT_SEED_MAX, RFMT_SEED_MAX},
    {RFMT_SHARD, FIELD_OBJ | FIELD_NULL, 0, 0},
    {RFMT_START_AT, FIELD_STR | FIELD_NULL, 0, 0},
    {RFMT_START_TOL, FIELD_NUM | FIELD_NULL, 0, 1e6},
    {RFMT_CLOCK, FIELD_OBJ | FIELD_NULL, 0, 0},
    {RFMT_SETTINGS_HASH, FIELD_STR | FIELD_NULL, 0, 0},
    {RFMT_SETTINGS, FIELD_OBJ, 0, 0},
};
static const struct field_rule rfmt_shard_rules[] = {
    {"index", FIELD_INT, 0, RFMT_SHARDS_MAX - 1},
    {"count", FIELD_INT, 1, RFMT_SHARDS_MAX},
};
static const struct field_rule rfmt_clock_rules[] = {
    {"offset_us", FIELD_INT, -RFMT_US_MAX, RFMT_US_MAX},
    {"uncertainty_us", FIELD_INT, 0, RFMT_US_MAX},
    {"probes", FIELD_INT, 0, 1e9},
};
static const struct field_rule rfmt_endpoint_rules[] = {
    {"name", FIELD_STR, 0, 0},
    {"variant", FIELD_STR | FIELD_NULL, 0, 0},
    {"format", FIELD_STR | FIELD_NULL, 0, 0},
    {"inference_component", FIELD_STR | FIELD_NULL, 0, 0},
};
static const struct field_rule rfmt_target_rules[] = {
    {"url", FIELD_STR | FIELD_NULL, 0, 0},
    {"host", FIELD_STR | FIELD_NULL, 0, 0},
    {"region", FIELD_STR | FIELD_NULL, 0, 0},
    {"service", FIELD_STR | FIELD_NULL, 0, 0},
};
static const struct field_rule rfmt_client_rules[] = {
    {"threads", FIELD_INT | FIELD_NULL, 1, 1e7},
    {"connections", FIELD_INT | FIELD_NULL, 1, 1e7},
    {"duration_s", FIELD_NUM | FIELD_NULL, 0, 1e9},
    {"timeout_s", FIELD_NUM | FIELD_NULL, 0, 1e9},
};
// clang-format on
#define RFMT_N(rules) (sizeof(rules) / sizeof((rules)[0]))

static const char *rfmt_str_of(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double rfmt_num_of(const cJSON *o, const char *key, double dflt) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* The format's name and a version this reader knows. */
static int rfmt_check_version(const cJSON *obj, const char *path, struct buf *err) {
    const char *name = rfmt_str_of(obj, RFMT_FORMAT);
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(obj, RFMT_FORMAT_VERSION);
    if (!name || strcmp(name, RFMT_NAME) != 0)
        return buf_fail(err, RFMT_ERR_INPUT, "%s: format is not \"%s\"", path, RFMT_NAME);
    if (!cJSON_IsNumber(ver))
        return buf_fail(err, RFMT_ERR_INPUT,
                        "%s: no format version (a wrk-sagemaker result needs \"version\")", path);
    if (ver->valuedouble != floor(ver->valuedouble) || ver->valuedouble < 1 ||
        ver->valuedouble > RFMT_VERSION)
        return buf_fail(err, RFMT_ERR_INPUT,
                        "%s: unknown format version %g (this reader reads versions 1 to %d)", path,
                        ver->valuedouble, RFMT_VERSION);
    return RFMT_OK;
}

/* The fields of the head, all checked first. */
static int rfmt_check_fields(const cJSON *obj, const char *path, struct buf *err) {
    int rc = field_check(obj, rfmt_head_rules, RFMT_N(rfmt_head_rules), path, "", err);
    const cJSON *part;
    if (!rc && (part = cJSON_GetObjectItemCaseSensitive(obj, RFMT_ENDPOINT)))
        rc = field_check(part, rfmt_endpoint_rules, RFMT_N(rfmt_endpoint_rules), path,
                         RFMT_ENDPOINT ".", err);
    if (!rc && (part = cJSON_GetObjectItemCaseSensitive(obj, RFMT_TARGET)))
        rc = field_check(part, rfmt_target_rules, RFMT_N(rfmt_target_rules), path, RFMT_TARGET ".",
                         err);
    if (!rc && (part = cJSON_GetObjectItemCaseSensitive(obj, RFMT_CLIENT)))
        rc = field_check(part, rfmt_client_rules, RFMT_N(rfmt_client_rules), path, RFMT_CLIENT ".",
                         err);
    if (!rc && (part = cJSON_GetObjectItemCaseSensitive(obj, RFMT_SHARD)) && cJSON_IsObject(part))
        rc = field_check(part, rfmt_shard_rules, RFMT_N(rfmt_shard_rules), path, RFMT_SHARD ".",
                         err);
    if (!rc && (part = cJSON_GetObjectItemCaseSensitive(obj, RFMT_CLOCK)) && cJSON_IsObject(part))
        rc = field_check(part, rfmt_clock_rules, RFMT_N(rfmt_clock_rules), path, RFMT_CLOCK ".",
                         err);
    if (!rc && !cJSON_GetObjectItemCaseSensitive(obj, RFMT_SCENARIO))
        rc = buf_fail(err, RFMT_ERR_INPUT, "%s: no scenario", path);
    return rc ? RFMT_ERR_INPUT : RFMT_OK;
}

/* The run's fields that fields.h cannot check alone: both parts of shard, the
 * shard below its count, a start_at that is a time, a hash of 64 hex digits. */
static int rfmt_check_run(const cJSON *obj, const char *path, struct buf *err) {
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(obj, RFMT_SHARD);
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(sh, "index");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(sh, "count");
    const cJSON *clk = cJSON_GetObjectItemCaseSensitive(obj, RFMT_CLOCK);
    const char *at = rfmt_str_of(obj, RFMT_START_AT), *hash = rfmt_str_of(obj, RFMT_SETTINGS_HASH);
    long long us;
    if (cJSON_IsObject(sh) && (!k || !n || k->valuedouble >= n->valuedouble))
        return buf_fail(err, RFMT_ERR_INPUT, "%s: shard: want {\"index\": K, \"count\": N}, K < N",
                        path);
    if (cJSON_IsObject(clk) && (!cJSON_GetObjectItemCaseSensitive(clk, "offset_us") ||
                                !cJSON_GetObjectItemCaseSensitive(clk, "uncertainty_us")))
        return buf_fail(err, RFMT_ERR_INPUT, "%s: clock: want offset_us and uncertainty_us", path);
    if (at && rfmt_time_parse(at, &us))
        return buf_fail(err, RFMT_ERR_INPUT, "%s: start_at: \"%.40s\" is not a UTC time", path, at);
    bool hex = hash && strlen(hash) == 64;
    for (size_t i = 0; hex && i < 64; i++)
        hex = isdigit((unsigned char)hash[i]) || (hash[i] >= 'a' && hash[i] <= 'f');
    if (hash && !hex)
        return buf_fail(err, RFMT_ERR_INPUT, "%s: settings_sha256 is not 64 hex digits", path);
    return RFMT_OK;
}

int rfmt_head_parse(const cJSON *obj, const char *path, struct rfmt_head *out, struct buf *err) {
    *out = (struct rfmt_head){.client = {-1, -1, -1, -1}, .time_scale = 1};
    if (!cJSON_IsObject(obj))
        return buf_fail(err, RFMT_ERR_INPUT, "%s: not a JSON object (a result file is one)", path);
    int rc = rfmt_check_version(obj, path, err);
    if (!rc) rc = rfmt_check_fields(obj, path, err);
    if (!rc) rc = rfmt_check_run(obj, path, err);
    if (rc) return rc;
    const cJSON *ep = cJSON_GetObjectItemCaseSensitive(obj, RFMT_ENDPOINT);
    const cJSON *tg = cJSON_GetObjectItemCaseSensitive(obj, RFMT_TARGET);
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(obj, RFMT_CLIENT);
    *out = (struct rfmt_head){
        .tool = rfmt_str_of(obj, RFMT_TOOL),
        .scenario = rfmt_str_of(obj, RFMT_SCENARIO),
        .run_id = rfmt_str_of(obj, RFMT_RUN_ID),
        .label = rfmt_str_of(obj, RFMT_LABEL),
        .endpoint = {rfmt_str_of(ep, "name"), rfmt_str_of(ep, "variant"), rfmt_str_of(ep, "format"),
                     rfmt_str_of(ep, "inference_component")},
        .target = {rfmt_str_of(tg, "url"), rfmt_str_of(tg, "host"), rfmt_str_of(tg, "region"),
                   rfmt_str_of(tg, "service")},
        .client = {(long)rfmt_num_of(cl, "threads", -1), (long)rfmt_num_of(cl, "connections", -1),
                   rfmt_num_of(cl, "duration_s", -1), rfmt_num_of(cl, "timeout_s", -1)},
        .client_name = rfmt_str_of(obj, RFMT_CLIENT_NAME),
        .api = rfmt_str_of(obj, RFMT_API),
        .time_scale = rfmt_num_of(obj, RFMT_TIME_SCALE, 1),
        .started_at = rfmt_str_of(obj, RFMT_STARTED_AT),
        .has_seed = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(obj, RFMT_SEED)),
        .seed = (long long)rfmt_num_of(obj, RFMT_SEED, 0),
        .start_at = rfmt_str_of(obj, RFMT_START_AT),
        .start_tolerance_s = rfmt_num_of(obj, RFMT_START_TOL, -1),
        .settings_sha256 = rfmt_str_of(obj, RFMT_SETTINGS_HASH),
        .settings = cJSON_GetObjectItemCaseSensitive(obj, RFMT_SETTINGS),
    };
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(obj, RFMT_SHARD);
    if (cJSON_IsObject(sh)) {
        out->shard.index = (long)rfmt_num_of(sh, "index", 0);
        out->shard.count = (long)rfmt_num_of(sh, "count", 0);
    }
    const cJSON *clk = cJSON_GetObjectItemCaseSensitive(obj, RFMT_CLOCK);
    if (cJSON_IsObject(clk))
        out->clock = (struct rfmt_clock){true, (long long)rfmt_num_of(clk, "offset_us", 0),
                                         (long long)rfmt_num_of(clk, "uncertainty_us", 0),
                                         (long)rfmt_num_of(clk, "probes", 0)};
    if (!out->client_name) out->client_name = "wrk";
    if (!out->api) out->api = "invoke";
    return RFMT_OK;
}

/* The [name, value] pairs of list as an object in their order (NULL: not pairs). */
static cJSON *rfmt_pairs(const cJSON *list) {
    cJSON *o = cJSON_CreateObject(), *pair;
    if (list && !cJSON_IsArray(list) && !(cJSON_IsObject(list) && !list->child))
        goto fail; /* an empty Lua table is an empty object */
    cJSON_ArrayForEach(pair, list) {
        const cJSON *name = cJSON_GetArrayItem(pair, 0);
        cJSON *value = cJSON_Duplicate(cJSON_GetArrayItem(pair, 1), true);
        if (!cJSON_IsString(name) || cJSON_GetArraySize(pair) > 2) {
            cJSON_Delete(value);
            goto fail;
        }
        if (!value) value = cJSON_CreateNull();
        if (!rfmt_add(o, name->valuestring, value)) goto fail;
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

int rfmt_head_make(const cJSON *given, const char *tool, cJSON **out, struct buf *err) {
    *out = NULL;
    cJSON *head = cJSON_IsObject(given) ? cJSON_Duplicate(given, true) : cJSON_CreateObject();
    cJSON *settings = rfmt_pairs(cJSON_GetObjectItemCaseSensitive(given, RFMT_SETTINGS));
    int rc = head ? RFMT_OK : RFMT_ERR_NOMEM;
    if (!rc && !settings)
        rc = buf_fail(err, RFMT_ERR_INPUT, "\"settings\" must be a list of [name, value] pairs");
    cJSON_DeleteItemFromObjectCaseSensitive(head, RFMT_SETTINGS);
    cJSON_DeleteItemFromObjectCaseSensitive(head, RFMT_SETTINGS_HASH);
    if (!rc && !(rfmt_add(head, RFMT_SETTINGS, settings) &&
                 rfmt_add(head, RFMT_FORMAT, cJSON_CreateString(RFMT_NAME)) &&
                 rfmt_add(head, RFMT_FORMAT_VERSION, cJSON_CreateNumber(RFMT_VERSION)) &&
                 rfmt_add(head, RFMT_TOOL, cJSON_CreateString(tool))))
        rc = RFMT_ERR_NOMEM;
    else if (rc)
        cJSON_Delete(settings);
    struct rfmt_head h = {0};
    char hash[65] = "";
    if (!rc) rc = rfmt_head_parse(head, "the head", &h, err);
    if (!rc) rc = rfmt_settings_hash(&h, hash);
    h.settings_sha256 = hash;
    if (!rc && !(*out = rfmt_head_json(&h))) rc = RFMT_ERR_NOMEM;
    cJSON_Delete(head);
    return rc;
}

/* ---- the settings hash and times --------------------------------------------- */

/* What rfmt_settings_hash covers, as an object in its order (NULL: out of memory). */
static cJSON *rfmt_load_of(const struct rfmt_head *h) {
    cJSON *o = cJSON_CreateObject();
    cJSON *settings = h->settings ? cJSON_Duplicate(h->settings, true) : cJSON_CreateObject();
    bool ok = o && rfmt_add(o, RFMT_SCENARIO, rfmt_str(h->scenario)) &&
              rfmt_add(o, RFMT_LABEL, rfmt_str(h->label)) &&
              rfmt_add(o, RFMT_ENDPOINT, rfmt_endpoint(h)) &&
              rfmt_add(o, RFMT_TARGET, rfmt_target(h)) &&
              rfmt_add(o, "connections", rfmt_num((double)h->client.connections)) &&
              rfmt_add(o, RFMT_CLIENT_NAME, rfmt_str(h->client_name ? h->client_name : "wrk")) &&
              rfmt_add(o, RFMT_API, rfmt_str(h->api ? h->api : "invoke")) &&
              rfmt_add(o, RFMT_TIME_SCALE, cJSON_CreateNumber(h->time_scale)) &&
              rfmt_add(o, RFMT_SEED,
                       h->has_seed ? cJSON_CreateNumber((double)h->seed) : cJSON_CreateNull()) &&
              rfmt_add(o, "shards", cJSON_CreateNumber(h->shard.count > 0 ? h->shard.count : 1));
    if (ok && rfmt_add(o, RFMT_SETTINGS, settings)) return o;
    if (ok) settings = NULL;
    cJSON_Delete(settings);
    cJSON_Delete(o);
    return NULL;
}

int rfmt_settings_hash(const struct rfmt_head *h, char hex[65]) {
    cJSON *load = rfmt_load_of(h);
    char *text = load ? cJSON_PrintUnformatted(load) : NULL;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    int rc = text && EVP_Digest(text, strlen(text), md, &n, EVP_sha256(), NULL) == 1 && n == 32
                 ? RFMT_OK
                 : RFMT_ERR_NOMEM;
    for (unsigned i = 0; rc == RFMT_OK && i < 32; i++)
        snprintf(hex + (size_t)2 * i, 3, "%02x", md[i]);
    cJSON_free(text);
    cJSON_Delete(load);
    return rc;
}

/* The n digits at s as a number, or -1 when they are not n digits. */
static long rfmt_digits(const char *s, int n) {
    long v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

int rfmt_time_parse(const char *s, long long *us) {
    static const char shape[] = "0000-00-00T00:00:00";
    size_t len = strlen(s);
    if (len < sizeof shape || len > sizeof shape + 7) return RFMT_ERR_INPUT;
    for (size_t i = 0; i + 1 < sizeof shape; i++)
        if (shape[i] == '0' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
            return RFMT_ERR_INPUT;
    struct tm tm = {.tm_year = (int)rfmt_digits(s, 4) - 1900,
                    .tm_mon = (int)rfmt_digits(s + 5, 2) - 1,
                    .tm_mday = (int)rfmt_digits(s + 8, 2),
                    .tm_hour = (int)rfmt_digits(s + 11, 2),
                    .tm_min = (int)rfmt_digits(s + 14, 2),
                    .tm_sec = (int)rfmt_digits(s + 17, 2)};
    if (tm.tm_year < 70 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 59)
        return RFMT_ERR_INPUT;
    const char *p = s + sizeof shape - 1;
    long frac = 0;
    int digits = 0;
    if (*p == '.') {
        for (p++; isdigit((unsigned char)*p) && digits < 6; p++, digits++)
            frac = frac * 10 + (*p - '0');
        if (!digits) return RFMT_ERR_INPUT;
    }
    if (p[0] != 'Z' || p[1] != '\0') return RFMT_ERR_INPUT;
    for (; digits < 6; digits++) frac *= 10;
    struct tm check = tm;
    time_t t = timegm(&tm);
    if (t == (time_t)-1 || tm.tm_mday != check.tm_mday) return RFMT_ERR_INPUT; /* 31 Feb */
    *us = (long long)t * 1000000 + frac;
    return RFMT_OK;
}

void rfmt_time_format(long long us, char out[32]) {
    long long s = us >= 0 ? us / 1000000 : (us - 999999) / 1000000;
    time_t t = (time_t)s;
    struct tm tm;
    gmtime_r(&t, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%06lldZ", us - s * 1000000);
}

cJSON *rfmt_round_json(const struct rfmt_round *r) {
    cJSON *o = cJSON_CreateObject();
    if (o && rfmt_add(o, "round", cJSON_CreateNumber((double)r->round)) &&
        rfmt_add(o, "batch",
                 r->batch < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)r->batch)) &&
        rfmt_add(o, "wall_s", cJSON_CreateNumber(r->wall_s)) &&
        rfmt_add(o, "cpu_s", cJSON_CreateNumber(r->cpu_s)) &&
        rfmt_add(o, "cpus", cJSON_CreateNumber((double)r->cpus)) &&
        rfmt_add(o, "threads", cJSON_CreateNumber((double)r->threads)) &&
        rfmt_add(o, "busy_poll", cJSON_CreateBool(r->busy_poll)) &&
        rfmt_add(o, "stalls_of", rfmt_str(r->stalls_of)) &&
        rfmt_add(o, "stalls", cJSON_CreateNumber((double)r->stalls)) &&
        rfmt_add(o, "stall_max_us", cJSON_CreateNumber((double)r->stall_max_us)) &&
        rfmt_add(o, "stall_us", cJSON_CreateNumber((double)r->stall_us)) &&
        rfmt_add(o, "reads", cJSON_CreateNumber((double)r->reads)) &&
        rfmt_add(o, "chunks", cJSON_CreateNumber((double)r->chunks)) &&
        rfmt_add(o, "burst_chunks", cJSON_CreateNumber((double)r->burst_chunks)) &&
        rfmt_add(o, "host_steal_share",
                 r->steal_share < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(r->steal_share)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

#define RFMT_COUNT_MAX 9007199254740992.0 /* 2^53: counts a JSON number carries exactly */

static const struct field_rule rfmt_round_rules[] = {
    {"round", FIELD_INT, 0, RFMT_COUNT_MAX},
    {"batch", FIELD_INT | FIELD_NULL, 0, RFMT_COUNT_MAX},
    {"wall_s", FIELD_NUM, 0, RFMT_US_MAX / 1e6},
    {"cpu_s", FIELD_NUM, 0, RFMT_US_MAX / 1e6},
    {"cpus", FIELD_INT, 1, 1e6},
    {"threads", FIELD_INT, 1, 1e6},
    {"busy_poll", FIELD_BOOL, 0, 0},
    {"stalls_of", FIELD_STR | FIELD_NULL, 0, 0},
    {"stalls", FIELD_INT, 0, RFMT_COUNT_MAX},
    {"stall_max_us", FIELD_INT, 0, RFMT_US_MAX},
    {"stall_us", FIELD_INT, 0, RFMT_US_MAX},
    {"reads", FIELD_INT, 0, RFMT_COUNT_MAX},
    {"chunks", FIELD_INT, 0, RFMT_COUNT_MAX},
    {"burst_chunks", FIELD_INT, 0, RFMT_COUNT_MAX},
    {"host_steal_share", FIELD_NUM | FIELD_NULL, 0, 1}, /* the last: files before it lack it */
};

int rfmt_round_parse(const cJSON *obj, const char *path, size_t i, struct rfmt_round *out,
                     struct buf *err) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, RFMT_CLIENT_ROUNDS "[%zu].", i);
    if (!cJSON_IsObject(obj))
        return buf_fail(err, RFMT_ERR_INPUT, "%s: %s is not an object", path, prefix);
    if (field_check(obj, rfmt_round_rules, RFMT_N(rfmt_round_rules), path, prefix, err))
        return RFMT_ERR_INPUT;
    for (size_t k = 0; k + 1 < RFMT_N(rfmt_round_rules); k++)
        if (!cJSON_GetObjectItemCaseSensitive(obj, rfmt_round_rules[k].key))
            return buf_fail(err, RFMT_ERR_INPUT, "%s: %s%s is missing", path, prefix,
                            rfmt_round_rules[k].key);
    const cJSON *batch = cJSON_GetObjectItemCaseSensitive(obj, "batch");
    *out = (struct rfmt_round){
        .round = (long)rfmt_num_of(obj, "round", 0),
        .batch = cJSON_IsNull(batch) ? -1 : (long)batch->valuedouble,
        .wall_s = rfmt_num_of(obj, "wall_s", 0),
        .cpu_s = rfmt_num_of(obj, "cpu_s", 0),
        .cpus = (long)rfmt_num_of(obj, "cpus", 1),
        .threads = (long)rfmt_num_of(obj, "threads", 1),
        .busy_poll = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, "busy_poll")),
        .stalls_of = rfmt_str_of(obj, "stalls_of"),
        .stalls = (long)rfmt_num_of(obj, "stalls", 0),
        .stall_max_us = (long long)rfmt_num_of(obj, "stall_max_us", 0),
        .stall_us = (long long)rfmt_num_of(obj, "stall_us", 0),
        .reads = (long)rfmt_num_of(obj, "reads", 0),
        .chunks = (long)rfmt_num_of(obj, "chunks", 0),
        .burst_chunks = (long)rfmt_num_of(obj, "burst_chunks", 0),
        .steal_share = rfmt_num_of(obj, "host_steal_share", -1), /* null or absent: not known */
    };
    if (out->burst_chunks > out->chunks)
        return buf_fail(err, RFMT_ERR_INPUT, "%s: %sburst_chunks: %ld is more than chunks (%ld)",
                        path, prefix, out->burst_chunks, out->chunks);
    return RFMT_OK;
}
