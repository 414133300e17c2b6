/* Unit tests of the N-way choice (pareto): the front of cost against latency,
 * ties on either figure, the recommendation and the candidates within its cost
 * range, a candidate left out (its search failed), one candidate, none left;
 * and the candidates.json reader (candfile): what it keeps and its one-line
 * refusals. */
#include <math.h>

#include "../check.h"
#include "candfile.h"
#include "pareto.h"

/* A candidate that met the SLO: cost with its range, latency. */
static struct pareto_item pareto_t_item(double usd, double lo, double hi, double lat) {
    return (struct pareto_item){false, usd, lo, hi, lat};
}

static void test_front_keeps_those_no_other_beats_on_both(void) {
    struct pareto_item it[4] = {
        pareto_t_item(1.0, 0.9, 1.1, 0.50),  /* cheapest, slowest */
        pareto_t_item(2.0, 1.9, 2.1, 0.20),  /* fastest, dearest */
        pareto_t_item(1.5, 1.4, 1.6, 0.60),  /* dearer and slower than 0: dominated */
        pareto_t_item(1.2, 1.05, 1.3, 0.30), /* between: on the front */
    };
    struct pareto_result r;
    pareto_choose(it, 4, &r);
    CHECK(r.front[0] && r.front[1] && !r.front[2] && r.front[3]);
    CHECK_INT(r.best, 0);
    CHECK_INT(r.none, PARETO_NONE_FOUND);
    /* 3's range [1.05, 1.3] reaches below 0's upper end 1.1; 2's and 1's do not */
    CHECK(r.within[3] && !r.within[2] && !r.within[1] && !r.within[0]);
    CHECK_INT(r.nwithin, 1);
}

static void test_ties_equal_cost_faster_wins_equal_both_stay(void) {
    struct pareto_item it[3] = {
        pareto_t_item(1.0, 1.0, 1.0, 0.50),
        pareto_t_item(1.0, 1.0, 1.0, 0.40), /* as cheap, faster: 0 is off the front */
        pareto_t_item(1.0, 1.0, 1.0, 0.40), /* the same as 1: both stay */
    };
    struct pareto_result r;
    pareto_choose(it, 3, &r);
    CHECK(!r.front[0] && r.front[1] && r.front[2]);
    CHECK_INT(r.best, 1); /* a tie on cost goes to the faster, on both to the first */
    CHECK(r.within[0] && r.within[2]);
}

static void test_failed_candidate_never_on_front_nor_recommended(void) {
    struct pareto_item it[3] = {
        pareto_t_item(2.0, 1.8, 2.2, 0.50),
        {true, 0.5, 0.4, 0.6, 0.10}, /* cheapest and fastest, but its search failed */
        pareto_t_item(3.0, 2.1, 3.3, 0.40),
    };
    struct pareto_result r;
    pareto_choose(it, 3, &r);
    CHECK(r.front[0] && !r.front[1] && r.front[2]);
    CHECK_INT(r.best, 0);
    CHECK(!r.within[1] && r.within[2]);
}

static void test_ranges_that_only_touch_do_not_overlap(void) {
    /* 1's capacity is below the rate where 0's held: its cost is above 0's upper end */
    struct pareto_item it[2] = {pareto_t_item(4.0, NAN, 4.89, 0.4),
                                pareto_t_item(8.1, 4.89, 9.78, 0.5)};
    struct pareto_result r;
    pareto_choose(it, 2, &r);
    CHECK_INT(r.best, 0);
    CHECK(!r.within[1]);
    CHECK(r.front[0] && !r.front[1]);
}

static void test_one_candidate_is_its_own_front_and_choice(void) {
    struct pareto_item it[1] = {pareto_t_item(1.0, 0.8, 1.2, 0.3)};
    struct pareto_result r;
    pareto_choose(it, 1, &r);
    CHECK(r.front[0]);
    CHECK_INT(r.best, 0);
    CHECK_INT(r.nwithin, 0);
}

static void test_every_rate_held_range_open_below(void) {
    /* 1 held at every rate: its cost is at most 2.0, so it may be below 0's 1.5 */
    struct pareto_item it[2] = {pareto_t_item(1.5, 1.2, 1.8, 0.3),
                                pareto_t_item(2.0, NAN, 2.0, 0.2)};
    struct pareto_result r;
    pareto_choose(it, 2, &r);
    CHECK_INT(r.best, 0);
    CHECK(r.within[1]);
}

static void test_no_choice_when_all_left_out_or_none(void) {
    struct pareto_item it[2] = {{true, 1.0, 1.0, 1.0, 0.1}, pareto_t_item(NAN, NAN, NAN, 0.2)};
    struct pareto_result r;
    pareto_choose(it, 2, &r);
    CHECK_INT(r.best, -1);
    CHECK_INT(r.none, PARETO_NONE_ALL_OUT);
    CHECK(!r.front[0] && !r.front[1]);
    pareto_choose(it, 0, &r);
    CHECK_INT(r.none, PARETO_NONE_EMPTY);
}

#define CANDFILE_T_HEAD "{\"format\": \"wrk-sagemaker-candidates\", \"version\": 1, "

static void test_candfile_keeps_labels_folders_prices_and_slo(void) {
    static const char text[] =
        CANDFILE_T_HEAD "\"slo\": \"ttft:p90:1\", \"candidates\": [{\"label\": \"qat-l4\", "
                        "\"folder\": \"qat-l4\", \"instance_type\": \"ml.g6.xlarge\", "
                        "\"instance_count\": 2, \"cost_at_capacity\": {\"usd_per_hour\": 1.6}}, "
                        "{\"label\": \"bf16\", \"folder\": \"bf16\", \"cost_at_capacity\": null}]}";
    struct candfile f;
    struct buf err;
    buf_init(&err, 1024);
    CHECK_INT(candfile_parse(text, sizeof text - 1, "c.json", &f, &err), 0);
    CHECK_INT(f.n, 2);
    CHECK_STR(f.slo, "ttft:p90:1");
    CHECK_STR(f.c[0].label, "qat-l4");
    CHECK_STR(f.c[0].instance_type, "ml.g6.xlarge");
    CHECK_INT(f.c[0].instance_count, 2);
    CHECK(f.c[0].usd_per_hour == 1.6);
    CHECK(isnan(f.c[1].usd_per_hour));
    CHECK_STR(f.c[1].instance_type, "");
    buf_free(&err);
}

static void test_candfile_refuses_in_one_line(void) {
    static const struct {
        const char *text, *want;
    } rows[] = {
        {"[", "c.json: not valid JSON"},
        {"{\"format\": \"other\"}", "c.json: format is not \"wrk-sagemaker-candidates\""},
        {CANDFILE_T_HEAD "\"candidates\": []}", "c.json: candidates must be a list of 1 to 16"},
        {CANDFILE_T_HEAD "\"candidates\": [{\"label\": \"../x\", \"folder\": \"x\"}]}",
         "c.json: candidates[0].label is not a label (1 to 64 letters, digits, '-', '_', '.')"},
        {CANDFILE_T_HEAD "\"candidates\": [{\"label\": \"a\", \"folder\": \"/etc\"}]}",
         "c.json: candidate a: folder must be a name in the run folder"},
        {CANDFILE_T_HEAD "\"candidates\": [{\"label\": \"a\", \"folder\": \"a\"}, {\"label\": "
                         "\"a\", \"folder\": \"b\"}]}",
         "c.json: label a is given twice"},
        {CANDFILE_T_HEAD "\"candidates\": [{\"label\": \"a\", \"folder\": \"a\", "
                         "\"cost_at_capacity\": {\"usd_per_hour\": -1}}]}",
         "c.json: candidate a: cost_at_capacity.usd_per_hour must be a price above 0 (USD)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct candfile f;
        struct buf err;
        buf_init(&err, 1024);
        CHECK_INT(candfile_parse(rows[i].text, strlen(rows[i].text), "c.json", &f, &err),
                  CANDFILE_ERR_INPUT);
        CHECK_STR(buf_str(&err), rows[i].want);
        buf_free(&err);
    }
}

int main(void) {
    test_front_keeps_those_no_other_beats_on_both();
    test_ties_equal_cost_faster_wins_equal_both_stay();
    test_failed_candidate_never_on_front_nor_recommended();
    test_ranges_that_only_touch_do_not_overlap();
    test_one_candidate_is_its_own_front_and_choice();
    test_every_rate_held_range_open_below();
    test_no_choice_when_all_left_out_or_none();
    test_candfile_keeps_labels_folders_prices_and_slo();
    test_candfile_refuses_in_one_line();
    return check_exit();
}
