/* Profile parameters from text and from a JSON profile file, and fault
 * schedules (rate and every N, seeded). Arg: a scratch directory. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model.h"

static const struct {
    const char *key, *value;
    int rc;
    const char *error; /* substring */
} sets[] = {
    {"overhead_s", "0.25", 0, NULL},
    {"overhead_s", "-1", MODEL_ERR_INVALID, "bad value '-1' for overhead_s"},
    {"overhead_s", "1s", MODEL_ERR_INVALID, "bad value"},
    {"step_ms", "1:10,4:16,16:20", 0, NULL},
    {"step_ms", "4:10,1:16", MODEL_ERR_INVALID, "bad value"},
    {"step_ms", "1:10,", 0, NULL},
    {"step_ms", "1-10", MODEL_ERR_INVALID, "bad value"},
    {"max_seqs", "0", MODEL_ERR_INVALID, "bad value"},
    {"max_seqs", "64", 0, NULL},
    {"jitter", "0.6", MODEL_ERR_INVALID, "bad value"},
    {"format", "tgi", 0, NULL},
    {"format", "openai", MODEL_ERR_INVALID, "body format: vllm"},
    {"quantization", "compressed-tensors", 0, NULL},
    {"model_id", "x", 0, NULL},
    {"answer.add:1:2:3", "7", 0, NULL},
    {"fault.throttle", "0.5", 0, NULL},
    {"fault.drop", "every:3", 0, NULL},
    {"fault.drop", "every:0", MODEL_ERR_INVALID, "'every:0' is not a fault rate"},
    {"fault.slow", "2", MODEL_ERR_INVALID, "is not a fault rate"},
    {"fault.meteor", "0.1", MODEL_ERR_INVALID, "unknown fault 'meteor'"},
    {"speed", "1", MODEL_ERR_INVALID, "unknown profile parameter 'speed'"},
};

int main(int argc, char **argv) {
    struct model_profile p;
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(model_builtin("gpt-9", &p), MODEL_ERR_UNKNOWN);
    CHECK_INT(model_builtin("bf16-l4", &p), 0);
    CHECK(!model_is_instant(&p));
    CHECK_STR(model_answer(&p, "add:876:608:558"), "1026");
    CHECK(model_answer(&p, "add:257:388:290") == NULL);
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        buf_reset(&err);
        int rc = model_set(&p, sets[i].key, sets[i].value, &err);
        if (rc != sets[i].rc)
            fprintf(stderr, "%s=%s: %s\n", sets[i].key, sets[i].value, buf_str(&err));
        CHECK_INT(rc, sets[i].rc);
        if (sets[i].error) CHECK(strstr(buf_str(&err), sets[i].error) != NULL);
    }
    CHECK_INT(p.n_steps, 1); /* the last valid step_ms was "1:10," */
    CHECK_STR(model_answer(&p, "add:1:2:3"), "7");
    CHECK_INT(p.faults[FAULT_DROP].every, 3);
    CHECK(p.faults[FAULT_THROTTLE].rate == 0.5);
    model_free(&p);

    /* the -awscli profiles are the servers with the aws CLI's cost per call added */
    const char *pairs[][2] = {{"bf16-l4", "bf16-l4-awscli"}, {"qat-l4", "qat-l4-awscli"}};
    for (size_t i = 0; i < 2; i++) {
        struct model_profile server, cli;
        CHECK_INT(model_builtin(pairs[i][0], &server), 0);
        CHECK_INT(model_builtin(pairs[i][1], &cli), 0);
        CHECK(server.client_s == 0 && cli.client_s == 0.43);
        CHECK(cli.overhead_s == server.overhead_s && cli.n_steps == server.n_steps);
        CHECK(cli.steps[2].seconds == server.steps[2].seconds);
        CHECK_STR(cli.model_id, server.model_id);
        CHECK_INT(cli.n_answers, server.n_answers);
        model_free(&server);
        model_free(&cli);
    }
    CHECK_INT(model_builtin("instant", &p), 0);
    CHECK(model_is_instant(&p));
    CHECK_INT(model_set(&p, "client_s", "0.5", &err), 0);
    CHECK(!model_is_instant(&p)); /* a client's cost is waited out, not skipped */
    model_free(&p);

    /* every:N fires on N, 2N, ...; rates are seeded and near their value */
    struct fault_spec specs[FAULT_KINDS] = {0};
    specs[FAULT_TRUNCATE].every = 4;
    specs[FAULT_THROTTLE].rate = 0.25;
    struct fault_state st = {.rng = 99}, again = {.rng = 99};
    int throttles = 0;
    for (int i = 1; i <= 4000; i++) {
        int k = fault_pick(specs, &st);
        CHECK_INT(k, fault_pick(specs, &again));
        if (i % 4 == 0 && k != FAULT_THROTTLE) CHECK_INT(k, FAULT_TRUNCATE);
        if (i % 4 != 0 && k != FAULT_THROTTLE) CHECK_INT(k, FAULT_NONE);
        throttles += k == FAULT_THROTTLE;
    }
    CHECK(throttles > 900 && throttles < 1100);

    /* a profile file: a derived profile and its errors */
    if (argc != 2) return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/profiles.json", argv[1]);
    FILE *f = fopen(path, "w");
    fputs("{\"profiles\": {\"fast\": {\"base\": \"qat-l4\", \"overhead_s\": 0.1, "
          "\"step_ms\": [[1, 5], [8, 6]], \"format\": \"lmi\", \"answers\": {\"cap:Brazil\": "
          "\"Rio\"}, \"faults\": {\"throttle\": \"every:2\"}}, \"plain\": {}}}",
          f);
    fclose(f);
    struct model_library lib = {0};
    buf_reset(&err);
    CHECK_INT(model_library_load(&lib, path, &err), 0);
    CHECK_INT(model_find(&lib, "fast", &p), 0);
    CHECK(p.overhead_s == 0.1 && p.n_steps == 2 && p.steps[1].batch == 8 && p.format == MODEL_LMI);
    CHECK_STR(model_answer(&p, "cap:Brazil"), "Rio");
    CHECK_STR(model_answer(&p, "add:257:388:290"), "655"); /* kept from qat-l4 */
    CHECK_INT(p.faults[FAULT_THROTTLE].every, 2);
    CHECK_STR(p.quantization, "compressed-tensors");
    model_free(&p);
    CHECK_INT(model_find(&lib, "plain", &p), 0);
    CHECK(model_is_instant(&p));
    model_free(&p);
    model_library_free(&lib);

    f = fopen(path, "w");
    fputs("{\"profiles\": {\"x\": {\"overhead_s\": \"soon\"}}}", f);
    fclose(f);
    buf_reset(&err);
    CHECK_INT(model_library_load(&lib, path, &err), MODEL_ERR_INVALID);
    CHECK(strstr(buf_str(&err), "profile 'x': bad value 'soon' for overhead_s") != NULL);
    model_library_free(&lib);
    f = fopen(path, "w");
    fputs("{\"profiles\": {\"y\": {\"base\": \"nope\"}}}", f);
    fclose(f);
    CHECK_INT(model_library_load(&lib, path, &err), MODEL_ERR_UNKNOWN);
    CHECK(strstr(buf_str(&err), "profile 'y': unknown base profile 'nope'") != NULL);
    model_library_free(&lib);
    f = fopen(path, "w");
    fputs("{\"profiles\": {\"z\": {\"answers\": [1]}}}", f);
    fclose(f);
    CHECK_INT(model_library_load(&lib, path, &err), MODEL_ERR_INVALID);
    CHECK(strstr(buf_str(&err), "profile 'z': bad value for 'answers'") != NULL);
    model_library_free(&lib);
    buf_reset(&err);
    CHECK_INT(model_library_load(&lib, "/nonexistent/p.json", &err), MODEL_ERR_IO);
    CHECK(strstr(buf_str(&err), "/nonexistent/p.json: cannot read") != NULL);
    buf_free(&err);
    return check_exit();
}
