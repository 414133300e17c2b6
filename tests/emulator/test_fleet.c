/* The endpoints from the command line: variants and their profiles, --set by
 * endpoint, variant or all, the refusals (one line each), seeds, picking a
 * variant by name or weight, and the container logs' paths. Arg: a scratch
 * directory. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fleet.h"

static void add(struct fleet *f, const char *name, const char *variant, const char *profile) {
    struct fleet_spec e = {"", "", profile};
    struct buf err;
    snprintf(e.name, sizeof e.name, "%s", name);
    snprintf(e.variant, sizeof e.variant, "%s", variant);
    buf_init(&err, 1024);
    CHECK_INT(fleet_add(f, &e, NULL, &err), 0);
    buf_free(&err);
}

static int set(struct fleet *f, const char *target, const char *key, const char *value,
               struct buf *err) {
    struct fleet_setting s = {"", key, value};
    snprintf(s.target, sizeof s.target, "%s", target);
    return fleet_set(f, &s, err);
}

static void test_build(void) {
    struct fleet f = {0};
    struct buf err;
    buf_init(&err, 1024);
    add(&f, "a", "AllTraffic", "bf16-l4");
    add(&f, "b", "one", "instant");
    add(&f, "b", "two", "qat-l4");
    CHECK_INT(f.n_eps, 2);
    CHECK_INT(f.eps[1].n_variants, 2);
    struct fleet_spec twice = {"b", "two", "instant"}, unknown = {"c", "x", "gpt9"};
    CHECK_INT(fleet_add(&f, &twice, NULL, &err), FLEET_ERR_INVALID);
    CHECK_STR(buf_str(&err), "--endpoint b/two is given twice");
    CHECK_INT(fleet_add(&f, &unknown, NULL, &err), FLEET_ERR_INVALID);
    CHECK_STR(buf_str(&err), "--endpoint c/x=gpt9: unknown profile 'gpt9' (bf16-l4, qat-l4, "
                             "bf16-l4-awscli, qat-l4-awscli, bf16-a10g, qat-a10g, "
                             "bf16-l40s, qat-l40s, instant)");
    CHECK_INT(set(&f, "b", "jitter", "0.2", &err), 0); /* both variants of b */
    CHECK_INT(set(&f, "b/two", "weight", "3", &err), 0);
    CHECK_INT(set(&f, "*", "max_seqs", "8", &err), 0);
    CHECK(f.eps[1].variants[0].profile.jitter == 0.2 && f.eps[1].variants[1].profile.jitter == 0.2);
    CHECK(f.eps[0].variants[0].profile.jitter == 0.01);
    CHECK(f.eps[1].variants[1].profile.weight == 3 && f.eps[1].variants[0].profile.weight == 1);
    CHECK_INT(f.eps[0].variants[0].profile.max_seqs, 8);
    CHECK_INT(set(&f, "c", "jitter", "0", &err), FLEET_ERR_INVALID);
    CHECK_STR(buf_str(&err), "--set c.jitter: no endpoint or variant 'c'");
    CHECK_INT(set(&f, "a", "jitter", "2", &err), FLEET_ERR_INVALID);
    CHECK(strncmp(buf_str(&err), "--set a.jitter: bad value '2' for jitter", 40) == 0);
    CHECK_INT(fleet_seed(&f, 1), 0);
    struct fleet_variant *two = &f.eps[1].variants[FLEET_INSTANCES_MAX]; /* past one's entries */
    CHECK(two->ep == &f.eps[1]);
    CHECK(f.eps[1].variants[0].rng != two->rng); /* seeded by NAME/VARIANT */
    CHECK(fleet_find(&f, "b", 1) == &f.eps[1] && fleet_find(&f, "bb", 2) == NULL);
    CHECK(fleet_pick(&f.eps[1], "two", 3, NULL) == two);
    CHECK(fleet_pick(&f.eps[1], "three", 5, NULL) == NULL);
    uint64_t rng = 42;
    int twos = 0;
    for (int i = 0; i < 4000; i++) twos += fleet_pick(&f.eps[1], NULL, 0, &rng) == two;
    CHECK(twos > 2800 && twos < 3200); /* weight 3 of 4 */
    fleet_free(&f);
    CHECK_INT(f.n_eps, 0);
    buf_free(&err);
}

static void test_logs(const char *dir) {
    struct fleet f = {0};
    struct buf err;
    char pattern[4096], path[4200];
    buf_init(&err, 1024);
    add(&f, "a", "AllTraffic", "instant");
    add(&f, "b", "v1", "instant");
    add(&f, "b", "v2", "instant");
    snprintf(pattern, sizeof pattern, "%s/{endpoint}.log", dir);
    CHECK_INT(fleet_open_logs(&f, pattern, false, &err), FLEET_ERR_INVALID);
    CHECK(strstr(buf_str(&err), ": 3 containers would share one file; put {endpoint}") != NULL);
    snprintf(pattern, sizeof pattern, "%s/{endpoint}-{variant}.log", dir);
    CHECK_INT(fleet_open_logs(&f, pattern, false, &err), 0);
    snprintf(path, sizeof path, "%s/b-v2.log", dir);
    CHECK(access(path, F_OK) == 0);
    fleet_free(&f);
    unlink(path);
    snprintf(path, sizeof path, "%s/b-v1.log", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/a-AllTraffic.log", dir);
    unlink(path);
    add(&f, "a", "AllTraffic", "instant");
    CHECK_INT(fleet_open_logs(&f, "/nonexistent/dir/x.log", false, &err), FLEET_ERR_IO);
    CHECK(strncmp(buf_str(&err), "--log-file: cannot write /nonexistent/dir/x.log: ", 49) == 0);
    fleet_free(&f);
    buf_free(&err);
}

/* With subsecond, every line starts with a CloudWatch timestamp to the
 * microsecond (what sm-compare's cross-check reads), then vLLM's own line. */
static void test_subsecond(const char *dir) {
    struct fleet f = {0};
    struct buf err;
    char pattern[4096], line[1024];
    buf_init(&err, 1024);
    add(&f, "a", "AllTraffic", "instant");
    snprintf(pattern, sizeof pattern, "%s/sub-{endpoint}.log", dir);
    CHECK_INT(fleet_open_logs(&f, pattern, true, &err), 0);
    struct vlog *v = &f.eps[0].variants[0].log;
    vlog_metrics(v, 1790361612.345678, 10, 100, 512, 2, 0, 0.25, 0.875);
    vlog_access(v, 1790361613.5, "/v1/chat/completions", 200);
    fleet_free(&f);
    snprintf(pattern, sizeof pattern, "%s/sub-a.log", dir);
    FILE *in = fopen(pattern, "r");
    CHECK(in && fgets(line, sizeof line, in));
    CHECK_STR(line, "2026-09-25T18:40:12.345678+00:00 AllTraffic/i-emulator (APIServer pid=1) "
                    "INFO 09-25 18:40:12 [loggers.py:123] Engine 000: Avg prompt throughput: "
                    "10.0 tokens/s, Avg generation throughput: 51.2 tokens/s, Running: 2 reqs, "
                    "Waiting: 0 reqs, GPU KV cache usage: 25.0%, Prefix cache hit rate: 87.5%\n");
    CHECK(in && fgets(line, sizeof line, in));
    CHECK_STR(line, "2026-09-25T18:40:13.500000+00:00 AllTraffic/i-emulator (APIServer pid=1) "
                    "INFO:     169.254.178.2:8080 - \"POST /v1/chat/completions HTTP/1.1\" 200 "
                    "OK\n");
    if (in) fclose(in);
    unlink(pattern);
    buf_free(&err);
}

/* --set NAME.instances=3: three instances of one variant, each its own batch
 * and seed, picked by routing; the stats show the variant once, with the sum. */
static void test_instances_routed(void) {
    struct fleet f = {0};
    struct buf err, out;
    buf_init(&err, 1024);
    buf_init(&out, 1 << 16);
    add(&f, "e", "AllTraffic", "instant");
    add(&f, "e", "canary", "instant");
    CHECK_INT(set(&f, "e/AllTraffic", "instances", "3", &err), 0);
    CHECK_INT(set(&f, "e/AllTraffic", "instances", "65", &err), FLEET_ERR_INVALID);
    CHECK_STR(buf_str(&err),
              "--set e/AllTraffic.instances: '65' is not a whole number from 1 to 64");
    CHECK_INT(set(&f, "e", "routing", "ROUND_ROBIN", &err), FLEET_ERR_INVALID);
    CHECK_STR(buf_str(&err),
              "--set e.routing: 'ROUND_ROBIN' is not RANDOM or LEAST_OUTSTANDING_REQUESTS");
    CHECK_INT(set(&f, "e/canary", "weight", "0", &err), 0);
    CHECK_INT(fleet_seed(&f, 1), 0);
    struct fleet_endpoint *ep = &f.eps[0];
    /* AllTraffic x3 and its spares, canary and its spares */
    CHECK_INT(ep->n_variants, 2 * FLEET_INSTANCES_MAX);
    CHECK_INT(ep->variants[2].instance, 2);
    CHECK_INT(ep->variants[2].state, FLEET_SERVING);
    CHECK_INT(ep->variants[3].state, FLEET_SPARE);
    CHECK_STR(ep->variants[FLEET_INSTANCES_MAX].name, "canary");
    CHECK(ep->variants[1].rng != ep->variants[0].rng && ep->variants[2].rng != ep->variants[1].rng);
    CHECK(&ep->variants[1].batch != &ep->variants[0].batch);
    /* RANDOM: every instance drawn; the canary of weight 0 never */
    uint64_t rng = 7;
    unsigned hits[2 * FLEET_INSTANCES_MAX] = {0};
    for (int i = 0; i < 300; i++) hits[fleet_pick(ep, NULL, 0, &rng) - ep->variants]++;
    CHECK(hits[0] > 50 && hits[1] > 50 && hits[2] > 50 && hits[0] + hits[1] + hits[2] == 300);
    /* LEAST_OUTSTANDING_REQUESTS: the one with the fewest in flight */
    f.eps[0].variants[0].routing = f.eps[0].variants[1].routing = f.eps[0].variants[2].routing =
        FLEET_ROUTE_LEAST_BUSY;
    ep->variants[0].counts.in_flight = 4;
    ep->variants[1].counts.in_flight = 1;
    ep->variants[2].counts.in_flight = 3;
    for (int i = 0; i < 20; i++) CHECK(fleet_pick(ep, "AllTraffic", 10, &rng) == &ep->variants[1]);
    CHECK(fleet_pick(ep, "AllTraffic", 10, NULL) == &ep->variants[0]);
    ep->variants[0].counts.requests = 2;
    ep->variants[2].counts.requests = 5;
    CHECK_INT(fleet_json(&out, &f, 0), 0);
    CHECK(strstr(buf_str(&out), "\"AllTraffic\":{\"requests\":7,") != NULL);
    CHECK(strstr(buf_str(&out), "\"routing\":\"LEAST_OUTSTANDING_REQUESTS\",\"instances\":[{"
                                "\"requests\":2,") != NULL);
    CHECK(strstr(buf_str(&out), "\"canary\":{\"requests\":0,") != NULL);
    buf_free(&out);
    buf_free(&err);
    fleet_free(&f);
}

/* Scaling a variant: launched instances serve from their serving_at and are routed
 * to only then, drained ones take no new call and are released once their calls
 * ended; instance-seconds bill the serving and draining ones from the start. */
static void test_launch_drain_and_instance_seconds(void) {
    struct fleet f = {0};
    struct buf err, out;
    buf_init(&err, 1024);
    buf_init(&out, BUF_NO_CAP);
    add(&f, "e", "AllTraffic", "instant");
    CHECK_INT(fleet_seed(&f, 1), 0);
    fleet_start_billing(&f, 100);
    struct fleet_variant *head = &f.eps[0].variants[0], *made[4];
    CHECK_INT(head->slots, FLEET_INSTANCES_MAX);
    CHECK_INT(fleet_launch(head, 2, 110, 200, made), 2);
    CHECK(made[0] == head + 1 && made[1] == head + 2);
    CHECK(made[0]->batch.profile == &made[0]->profile && made[0]->rng != head->rng);
    struct fleet_census c = fleet_census(head);
    CHECK(c.serving == 1 && c.launching == 2 && c.draining == 0);
    uint64_t rng = 3;
    for (int i = 0; i < 50; i++) CHECK(fleet_pick(f.eps, "AllTraffic", 10, &rng) == head);
    CHECK_INT(fleet_advance(head, 199), 0);
    CHECK_INT(fleet_advance(head, 250), 2); /* serving from 200 */
    CHECK_INT(head->instances, 3);
    CHECK(head->instance_s == 1 * 100 + 3 * 50);
    unsigned hits[3] = {0};
    for (int i = 0; i < 300; i++) hits[fleet_pick(f.eps, "AllTraffic", 10, &rng) - head]++;
    CHECK(hits[0] > 50 && hits[1] > 50 && hits[2] > 50);
    head[2].counts.in_flight = 1; /* a call still running on the last one */
    char sid[SESS_ID_LEN + 1];
    CHECK_INT(sess_open(&head[2].sessions, &rng, 250, 1200, sid), 0);
    CHECK(sess_holds(&head[2].sessions, sid, SESS_ID_LEN));
    CHECK_INT(fleet_drain(head, 2, 300), 2);
    c = fleet_census(head);
    CHECK(c.serving == 1 && c.draining == 2 && head->instances == 1);
    for (int i = 0; i < 50; i++) CHECK(fleet_pick(f.eps, "AllTraffic", 10, &rng) == head);
    CHECK_INT(fleet_advance(head, 300), 0);
    CHECK(head[1].state == FLEET_RELEASED && head[2].state == FLEET_DRAINING);
    head[2].counts.in_flight = 0;
    CHECK_INT(fleet_advance(head, 320), 0);
    CHECK_INT(head[2].state, FLEET_RELEASED);
    CHECK(!sess_holds(&head[2].sessions, sid, SESS_ID_LEN)); /* gone with it */
    CHECK_INT(head[2].sessions.c.created, 1);                /* still counted */
    CHECK(head->instance_s == 1 * 100 + 3 * 100 + 2 * 20);
    CHECK_INT(fleet_launch(head, 1, 400, 400, made), 1); /* a released one first */
    CHECK(made[0] == head + 1);
    CHECK_INT(head->changes, 2 + 2 + 2 + 2 + 1);
    CHECK_INT(fleet_json(&out, &f, 410), 0);
    CHECK(strstr(buf_str(&out), "\"scaling\":{\"serving\":1,\"launching\":1,\"draining\":0,"
                                "\"changes\":9,\"instance_seconds\":530.000000,"
                                "\"model_time\":410.000000}") != NULL);
    buf_free(&out);
    buf_free(&err);
    fleet_free(&f);
}

/* An inference component's copies (issue 33): each copy a container of its own
 * made from its variant's profile, not one of the variant's instances; routed
 * among by the variant's routing, a session's calls to the copy holding it;
 * fewer copies drain (no new call) and are released once their calls ended;
 * the stats list each copy's counts under its variant's "components". */
static void test_component_copies(void) {
    struct fleet f = {0};
    struct buf err, out;
    buf_init(&err, 1024);
    buf_init(&out, BUF_NO_CAP);
    add(&f, "e", "AllTraffic", "instant");
    add(&f, "e", "canary", "instant");
    CHECK_INT(set(&f, "e/AllTraffic", "instances", "2", &err), 0);
    CHECK_INT(set(&f, "e/AllTraffic", "routing", "LEAST_OUTSTANDING_REQUESTS", &err), 0);
    CHECK_INT(set(&f, "e/AllTraffic", "max_seqs", "3", &err), 0);
    CHECK_INT(set(&f, "e/canary", "max_seqs", "5", &err), 0);
    CHECK_INT(fleet_seed(&f, 1), 0);
    struct fleet_endpoint *ep = &f.eps[0];
    struct fleet_variant *host = &ep->variants[0];
    uint64_t rng = 5;
    CHECK(fleet_copies_pick(ep, "AllTraffic", "ic", NULL, 0, &rng) == NULL); /* none yet */
    CHECK(fleet_copies_head(ep, "AllTraffic", "ic") == NULL);
    CHECK_INT(fleet_copies_set(ep, "none", "ic", NULL, 1), FLEET_ERR_INVALID);
    CHECK_INT(fleet_copies_set(ep, "AllTraffic", "ic", NULL, 0), 0); /* nothing to make */
    CHECK_INT(ep->n_copies, 0);
    CHECK_INT(fleet_copies_set(ep, "AllTraffic", "ic", NULL, 1), 0);
    CHECK_INT(ep->n_copies, 1);
    struct fleet_variant *copy = ep->copies[0].entries;
    CHECK(fleet_copies_head(ep, "AllTraffic", "ic") == copy); /* its entries, slots and all */
    CHECK(copy->slots == FLEET_COPIES_MAX && fleet_copies_head(ep, "canary", "ic") == NULL);
    CHECK(copy->host == host && copy->ep == ep && copy != host && copy != host + 1);
    CHECK_STR(copy->name, "AllTraffic");  /* the variant that answers */
    CHECK_INT(copy->profile.max_seqs, 3); /* its variant's profile, as --set it */
    CHECK(copy->batch.profile == &copy->profile && copy->rng != host->rng);
    CHECK_INT(host->instances, 2); /* the variant's instances are not its copies */
    /* one copy: every call on it, whatever the instances hold */
    host->counts.in_flight = 0;
    copy->counts.in_flight = 9;
    for (int i = 0; i < 20; i++)
        CHECK(fleet_copies_pick(ep, "AllTraffic", "ic", NULL, 0, &rng) == copy);
    /* two copies, LEAST_OUTSTANDING_REQUESTS as the variant: the fewer in flight */
    CHECK_INT(fleet_copies_set(ep, "AllTraffic", "ic", NULL, 2), 0);
    CHECK_INT(copy->instances, 2);
    CHECK(copy[1].state == FLEET_SERVING && copy[1].rng != copy[0].rng);
    for (int i = 0; i < 20; i++)
        CHECK(fleet_copies_pick(ep, "AllTraffic", "ic", NULL, 0, &rng) == &copy[1]);
    copy[0].counts.in_flight = copy[1].counts.in_flight = 0;
    unsigned hits[2] = {0};
    for (int i = 0; i < 200; i++)
        hits[fleet_copies_pick(ep, "AllTraffic", "ic", NULL, 0, &rng) - copy]++;
    CHECK(hits[0] > 40 && hits[1] > 40); /* ties: either one */
    /* a session stays on the copy that holds it, draining too */
    char sid[SESS_ID_LEN + 1];
    CHECK_INT(sess_open(&copy[1].sessions, &rng, 0, 1200, sid), 0);
    copy[1].counts.in_flight = 1;
    for (int i = 0; i < 20; i++)
        CHECK(fleet_copies_pick(ep, "AllTraffic", "ic", sid, SESS_ID_LEN, &rng) == &copy[1]);
    /* back to one: the highest drains, finishes its call, then is released */
    CHECK_INT(fleet_copies_set(ep, "AllTraffic", "ic", NULL, 1), 0);
    CHECK(copy[1].state == FLEET_DRAINING && copy->instances == 1);
    for (int i = 0; i < 20; i++)
        CHECK(fleet_copies_pick(ep, "AllTraffic", "ic", NULL, 0, &rng) == copy);
    CHECK(fleet_copies_pick(ep, "AllTraffic", "ic", sid, SESS_ID_LEN, &rng) == &copy[1]);
    copy[0].counts.requests = 4;
    copy[1].counts.requests = 3;
    CHECK_INT(fleet_json(&out, &f, 0), 0);
    CHECK(strstr(buf_str(&out),
                 "\"components\":{\"ic\":{\"profile\":\"instant\","
                 "\"routing\":\"LEAST_OUTSTANDING_REQUESTS\","
                 "\"serving\":1,\"draining\":1,\"copies\":[{\"requests\":4,") != NULL);
    CHECK(strstr(buf_str(&out), ",\"running\":0,\"waiting\":0,\"state\":\"serving\"},"
                                "{\"requests\":3,") != NULL);
    CHECK(strstr(buf_str(&out), "\"AllTraffic\":{\"requests\":0,") != NULL); /* not the copies' */
    copy[1].counts.in_flight = 0;
    CHECK_INT(fleet_copies_set(ep, "AllTraffic", "ic", NULL, 1), 0);
    CHECK_INT(copy[1].state, FLEET_RELEASED);
    CHECK(!sess_holds(&copy[1].sessions, sid, SESS_ID_LEN)); /* gone with its container */
    /* scaled to zero (or deleted): no copy serves */
    CHECK_INT(fleet_copies_set(ep, "AllTraffic", "ic", NULL, 0), 0);
    CHECK(fleet_copies_pick(ep, "AllTraffic", "ic", NULL, 0, &rng) == NULL);
    /* up again: released copies first; more than FLEET_COPIES_MAX serve as that many */
    CHECK_INT(fleet_copies_set(ep, "AllTraffic", "ic", NULL, FLEET_COPIES_MAX + 5), 0);
    CHECK_INT(copy->instances, FLEET_COPIES_MAX);
    /* another component, and one on the canary: copies of their own */
    CHECK_INT(fleet_copies_set(ep, "canary", "ic2", "bf16-l4", 1), 0);
    CHECK_INT(ep->n_copies, 2);
    CHECK(ep->copies[1].host == &ep->variants[FLEET_INSTANCES_MAX]);
    CHECK_STR(ep->copies[1].entries[0].name, "canary");
    /* its model's profile, with its variant's --set on top (not the other variant's) */
    CHECK_STR(ep->copies[1].entries[0].profile.name, "bf16-l4");
    CHECK_INT(ep->copies[1].entries[0].profile.max_seqs, 5);
    CHECK(ep->copies[1].entries[0].profile.load_s > 80); /* bf16-l4's own */
    CHECK_INT(fleet_copies_set(ep, "canary", "ic3", "no-such-profile", 1), 0);
    CHECK_STR(ep->copies[2].entries[0].profile.name, "instant"); /* the variant's */
    buf_reset(&out);
    CHECK_INT(fleet_json(&out, &f, 0), 0);
    CHECK(strstr(buf_str(&out), "\"ic2\":{\"profile\":\"bf16-l4\",") != NULL);
    buf_free(&out);
    buf_free(&err);
    fleet_free(&f);
}

int main(int argc, char **argv) {
    test_build();
    test_launch_drain_and_instance_seconds();
    test_instances_routed();
    test_component_copies();
    if (argc != 2) return 2;
    test_logs(argv[1]);
    test_subsecond(argv[1]);
    return check_exit();
}
