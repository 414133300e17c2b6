/* Fuzzes what sm-suite reads from outside: a scenario's list of options (the
 * output of `-- --options-json`), a run's manifest.json, a candidates run's
 * deployments.json, sm-endpoint quotas --json's output and a
 * DescribeInferenceComponent reply. The first byte chooses: 'M' the rest is a
 * manifest, 'D' a deployments.json (of a fixed candidates file), 'Q' a quotas
 * reply, 'I' a component's reply, anything else the rest is a list of
 * options. Every option read takes a few values through its check, every
 * message is one line, and a manifest's options and target are read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "suite_cdep.h"
#include "suite_deploy.h"
#include "suite_manifest.h"
#include "suite_spec.h"
#include "tmpdir.h"

static const char *const fuzz_values[] = {"", "0", "3", "-1", "1.5", "16,512", "x", "1e3", ",,"};

static void fuzz_one_line(const struct buf *err) {
    if (memchr(buf_str(err), '\n', err->len)) abort();
}

static void fuzz_spec(const char *text, size_t len) {
    struct suite_spec s;
    struct buf err;
    buf_init(&err, 4096);
    if (suite_spec_parse(text, len, &s, &err) == 0) {
        if (!s.scenario) abort();
        for (size_t i = 0; i < s.n; i++) {
            const struct suite_spec_opt *o = &s.opts[i];
            if (strncmp(o->name, "--", 2) != 0 || suite_spec_find(&s, o->name) != o) abort();
            if (o->type == SUITE_SPEC_BOOL) continue;
            for (size_t v = 0; v < sizeof fuzz_values / sizeof *fuzz_values; v++) {
                int rc = suite_spec_check(o, o->name + 2, fuzz_values[v], &err);
                if (rc != 0 && rc != SUITE_SPEC_ERR_VALUE) abort();
                fuzz_one_line(&err);
            }
        }
    }
    fuzz_one_line(&err);
    suite_spec_free(&s);
    buf_free(&err);
}

static void fuzz_manifest(const uint8_t *data, size_t size) {
    const char *path = tmpdir_write("manifest.json", data, size);
    char *dir = strdup(path);
    struct suite_manifest m;
    struct suite_seal seal;
    struct suite_argv saved, guarded;
    struct buf err;
    if (!dir) abort();
    *strrchr(dir, '/') = '\0';
    memset(&seal, 0, sizeof seal);
    buf_init(&err, 4096);
    suite_argv_init(&saved);
    suite_argv_init(&guarded);
    suite_manifest_init(&m);
    if (suite_manifest_load(&m, dir, &err) == 0) {
        if (suite_manifest_verify(&m, &seal, &err) != SUITE_MANIFEST_ERR_SEAL) abort();
        if (suite_manifest_options(&m, &saved, &err) == 0 &&
            (suite_opts_guarded(&saved, true, &guarded) != 0 ||
             suite_opts_guarded(&saved, false, &guarded) != 0 || guarded.n != saved.n))
            abort();
        struct suite_manifest_target t, now;
        suite_manifest_target(&m, &t);
        memset(&now, 0, sizeof now);
        if (suite_manifest_check_target(&m, &t, &err) != 0) abort();
        if (suite_manifest_check_target(&m, &now, &err) > 0) abort();
        for (size_t i = 0; i < 4; i++) (void)suite_manifest_output(&m, i);
    } else if (strncmp(buf_str(&err), path, strlen(path)) != 0) {
        abort();
    }
    fuzz_one_line(&err);
    suite_manifest_free(&m);
    suite_argv_free(&saved);
    suite_argv_free(&guarded);
    buf_free(&err);
    free(dir);
}

/* deployments.json read back for a fixed candidates file: what it names is that
 * file's deploy specs, and it writes out as JSON that reads back the same. */
static void fuzz_deployments(const char *text, size_t len) {
    static const char cands[] =
        "{\"candidates\": [{\"label\": \"a\", \"deploy\": {\"model\": \"m\", "
        "\"instance_type\": \"ml.g6.xlarge\"}}, {\"label\": \"b\", \"endpoint\": \"e\"}, "
        "{\"label\": \"c_d.e\", \"deploy\": {\"model\": \"m\", \"instance_type\": "
        "\"ml.g5.xlarge\", \"instance_count\": 3}}]}";
    struct suite_cand_list l;
    struct suite_cdep_manifest m, back;
    struct buf err, json;
    buf_init(&err, 4096);
    buf_init(&json, 1u << 16);
    if (suite_cand_parse(cands, sizeof cands - 1, "c.json", &l, &err) != 0) abort();
    if (suite_cdep_manifest_read(text, len, "d.json", &l, &m, &err) == 0) {
        for (size_t i = 0; i < l.n; i++)
            if (m.named[i] && !l.c[i].deploy) abort();
        if (suite_cdep_manifest_json(&l, &m, &json) != 0 ||
            suite_cdep_manifest_read(buf_str(&json), json.len, "d.json", &l, &back, &err) != 0 ||
            memcmp(&m, &back, sizeof m) != 0)
            abort();
    }
    fuzz_one_line(&err);
    struct suite_cdep_quota q[4];
    size_t nq = 0;
    if (suite_cdep_quotas_read(text, len, q, 4, &nq, &err) == 0 && nq > 4) abort();
    fuzz_one_line(&err);
    buf_free(&json);
    buf_free(&err);
}

/* A DescribeInferenceComponent reply judged for component ic of endpoint e: ready,
 * or not with one line. */
static void fuzz_component(const char *text, size_t len) {
    struct buf err;
    buf_init(&err, 4096);
    int rc = suite_deploy_judge_component(text, len, "e", "ic", &err);
    if (rc != 0 && rc != SUITE_DEPLOY_ERR_NOT_READY) abort();
    if ((rc == 0) != (err.len == 0)) abort();
    fuzz_one_line(&err);
    buf_free(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    if (data[0] == 'I')
        fuzz_component((const char *)data + 1, size - 1);
    else if (data[0] == 'M')
        fuzz_manifest(data + 1, size - 1);
    else if (data[0] == 'D' || data[0] == 'Q')
        fuzz_deployments((const char *)data + 1, size - 1);
    else
        fuzz_spec((const char *)data + 1, size - 1);
    return 0;
}
