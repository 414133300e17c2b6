/* sm-compare: compares the saved results of two endpoints (or two runs of one). */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmp.h"
#include "comparison.h"
#include "datadir.h"
#include "esc.h"
#include "guard.h"
#include "inputs.h"
#include "notes.h"
#include "nway.h"
#include "nway_out.h"
#include "nway_report.h"
#include "out_csv.h"
#include "out_json.h"
#include "out_html.h"
#include "out_markdown.h"
#include "out_svg.h"
#include "out_text.h"
#include "peerread.h"
#include "peerview.h"
#include "quiz_plan.h"
#include "quizfile.h"
#include "report.h"
#include "safeopen.h"
#include "side.h"
#include "slo.h"
#include "warnings.h"

#define COMPARE_QUIZ_REL "scenarios/quiz-compare-py-40.json"
#define COMPARE_ERR_MAX  4096 /* bytes of an error line */

static const char compare_usage[] =
    "Usage: sm-compare [OPTIONS] BASELINE CANDIDATE\n"
    "       sm-compare [OPTIONS] BASELINE... -- CANDIDATE...    (options before the --)\n"
    "       sm-compare [OPTIONS] --baseline PATH... --candidate PATH...\n"
    "\n"
    "Compares the saved results of two endpoints (e.g. a bf16 checkpoint and its QAT\n"
    "build) the way the reference method does, and says how sure each figure is.\n"
    "Ratios are candidate / baseline.\n"
    "\n"
    "Each side is a run directory or one or more files:\n"
    "  *.json           result files of the decode, sweep, quiz, rate, replay and ramp\n"
    "                   scenarios (docs/result-format.md), or compare.py measure-*.json\n"
    "                   files\n"
    "  *.journal.jsonl  the journal of a run that never wrote its result file (killed):\n"
    "                   every completed record is recovered and the run marked partial;\n"
    "                   in a directory a journal is read only when its result file is missing\n"
    "  *.log            a vLLM container log: start-up facts (weights GiB, load seconds, KV\n"
    "                   cache tokens, maximum concurrency, quantization, vLLM version; last\n"
    "                   match wins), the periodic \"Avg generation throughput\" lines and\n"
    "                   the \"SpecDecoding metrics\" lines (speculative decoding's acceptance)\n"
    "  *.logs.json      CloudWatch log events as aws logs filter-log-events prints them:\n"
    "                   read as the container's log (facts, throughput and SpecDecoding lines)\n"
    "  *.metrics.json   CloudWatch metrics as aws cloudwatch get-metric-data prints them\n"
    "                   (sm-suite's queries.json Ids): the CloudWatch cross-check per step\n"
    "A directory contributes every such file in it and in its cloudwatch/ folder (other\n"
    "JSON files are skipped with a warning). Several runs on one side (A-B-A re-measures,\n"
    "several client machines) are pooled, and the agreement of their own figures is reported.\n"
    "\n"
    "N candidates (--candidates DIR): DIR is the folder of an sm-suite --candidates\n"
    "run. Its candidates.json gives each candidate's label, folder, instance and price\n"
    "and the SLO the capacities were searched at, so a whole run is one argument and\n"
    "the prices cannot be paired with the wrong folder (LABEL=files groups would need\n"
    "each price and instance again on the command line). Each candidate's folder is\n"
    "read and compared with the baseline's exactly as sm-compare BASELINE CANDIDATE\n"
    "does (two candidates give today's A/B numbers). The report: a table of the\n"
    "candidates (capacity at the SLO [the bracket: last rate held, first failed];\n"
    "latency at the SLO's percentile at the last rate held, from the candidate's own\n"
    "records there; tokens/s and USD per million tokens at capacity [at the bracket's\n"
    "ends]; USD/hour; quiz; the requests each figure rests on); the Pareto front of\n"
    "cost against that latency (on it: no other candidate is as cheap and as fast\n"
    "and better in one); each candidate's ratios to the baseline (capacity and cost\n"
    "with the brackets' range, not a confidence interval; the reference table's rows\n"
    "with their 95% intervals); and the recommendation: the cheapest candidate that\n"
    "met the SLO, its cost's range and the others whose range overlaps it. A\n"
    "candidate whose folder cannot be read, whose search found no rate within the SLO,\n"
    "that does not compare with the baseline or has no price is shown with why and\n"
    "left out of the choice. --slo replaces candidates.json's SLO (its first is the\n"
    "table's); --price-per-hour, --facts-*, --candidate and --view are refused with it.\n"
    "\n"
    "Options:\n"
    "      --candidates DIR     compare the N candidates of an sm-suite --candidates run\n"
    "                           (above); --baseline LABEL then names the baseline\n"
    "                           (default: the first candidate)\n"
    "  -b, --baseline PATH      add PATH (directory or file) to the baseline side; repeatable\n"
    "  -c, --candidate PATH     add PATH to the candidate side; repeatable\n"
    "      --facts-baseline LOG   vLLM log of the baseline's container (facts and throughput)\n"
    "      --facts-candidate LOG  the same for the candidate (overrides facts found elsewhere)\n"
    "      --price-per-hour USD   instance price: adds the cost per million output tokens\n"
    "                           at each concurrency level\n"
    "      --slo METRIC:pQ:SECONDS  an open-loop run's objective (repeatable): METRIC e2e,\n"
    "                           ttft, tpot or itl, measured from the intended start, at its\n"
    "                           Q-th percentile at most SECONDS (--slo ttft:p90:1 --slo\n"
    "                           tpot:p50:0.05): gives each rate's verdict, goodput and the\n"
    "                           capacity at the SLOs\n"
    "      --max-error-rate F   the share of a rate's requests that may fail, 0 to 1 (default\n"
    "                           0.01 when --slo is given)\n"
    "      --min-attainment PCT  the capacity's criterion becomes the SLO attainment: a rate\n"
    "                           holds when at least PCT% of its sent requests met every --slo\n"
    "                           bound at once (DistServe's), and the error rate its bound\n"
    "      --view PEER          instead of the comparison, each side's streamed requests by\n"
    "                           another tool's own definitions and statistics, with its\n"
    "                           names: vllm (vllm bench serve), aiperf (AIPerf/genai-perf),\n"
    "                           guidellm or llmperf; text or json; each metric says which\n"
    "                           of ours it equals, or how it differs (docs/compare.md); a\n"
    "                           side may be a vllm bench serve --save-detailed JSON file\n"
    "                           or AIPerf's profile_export.jsonl; it takes none of --slo,\n"
    "                           --max-error-rate, --min-attainment, --svg, --html,\n"
    "                           --price-per-hour, --margin (refused)\n"
    "      --allow-mixed        compare files measured by different clients, at different\n"
    "                           time scales or with different settings (a warning each)\n"
    "  -f, --format FORMAT      text (default), markdown, json, csv or html (one file that\n"
    "                           loads nothing: every table, the charts inline)\n"
    "  -o, --output FILE        write the report to FILE instead of standard output\n"
    "      --svg FILE           also write a chart of both sides with the ratios (SVG);\n"
    "                           with --candidates, the Pareto chart: USD per million\n"
    "                           tokens against latency at the SLO\n"
    "      --html FILE          also write the HTML report (as -f html) to FILE\n"
    "      --margin SHARE       the quiz's equivalence margin, as 2% or 0.02 (default 2%):\n"
    "                           with 100 or more questions both sides answered, each\n"
    "                           family is called different, equivalent within it, or\n"
    "                           inconclusive with the items still needed\n"
    "      --quiz FILE          the quiz (questions, answers, patterns) to score compare.py\n"
    "                           replies with (default: the reference quiz, in\n"
    "                           PREFIX/share/wrk-sagemaker/scenarios/ when installed, else\n"
    "                           in the source tree; --version names it)\n"
    "  -h, --help               this text\n"
    "  -V, --version            the version and the default quiz file\n"
    "\n"
    "What it computes:\n"
    "  decode_tokens_per_second  (L - S) / (median wall L - median wall S) for the shortest\n"
    "        S and longest L length; per_call_fixed_cost_seconds = median wall S - S / rate;\n"
    "        with three or more lengths also a least-squares line of wall on tokens. Failed\n"
    "        replies are left out.\n"
    "  load_cN_tokens_per_second  per batch: completion tokens of the batch's requests /\n"
    "        (latest end - earliest start of its requests); median over batches. A batch\n"
    "        with a failed request, or with fewer than N requests, is left out. Steady mode:\n"
    "        the successful requests' tokens / (last end - first start). Latency p50/p90/p99\n"
    "        of successful requests (linear interpolation between ranks).\n"
    "  streaming (sides measured by sm-stream)  per measurement (decode, each level), of the\n"
    "        successful requests: ttft = first content chunk - request sent; itl = the gaps\n"
    "        between content chunks, per token (a gap before a chunk of k tokens counts k\n"
    "        times, as gap / k), so its percentiles are over every token; tpot = (end -\n"
    "        first chunk) / (completion tokens - 1), requests of 2 tokens or more; e2e =\n"
    "        end - sent. p50/p90/p99 with n (requests; itl: tokens). 1 / median itl at c1 is\n"
    "        checked against decode_tokens_per_second (a warning above 2%). A side that did\n"
    "        not stream has no ttft, itl or tpot: comparing it is mixed (--allow-mixed).\n"
    "  open loop (rate.lua)  per side and asked rate: arrivals/s (requests over the seconds\n"
    "        of arrivals), done/s, tokens/s and goodput/s (successful requests, their tokens,\n"
    "        those that met every SLO, over first intended start to last reply), ok/sent, the\n"
    "        share of successful requests sent more than 1 ms late (client clock) and their\n"
    "        p99 lateness, and e2e (and ttft, tpot, itl when streamed) p50/p90/p99 measured\n"
    "        from the intended start. With --slo: whether every SLO holds at each rate (the\n"
    "        percentile of the successful requests within its bound, the failures within\n"
    "        --max-error-rate); capacity = the highest rate where they hold, interpolated\n"
    "        between the last rate that held and the first that failed, or \">= R\" (every\n"
    "        rate held) or \"< R\" (none did); its ratio; tokens/s and (--price-per-hour) USD\n"
    "        per million tokens at it. attained: the share of a rate's sent requests that\n"
    "        met every --slo bound at once (--min-attainment: the capacity's criterion).\n"
    "        No interval: a round's requests queue behind each\n"
    "        other (docs/compare.md).\n"
    "  scaling (ramp.lua)  a ramp is an open loop at its mean rate and, per load change\n"
    "        (each piece of its schedule): instances at the change, seconds to the first\n"
    "        scaling activity and to more instances serving (the sm-timeline file its\n"
    "        settings name, read from the result file's folder only), the transition's and\n"
    "        the steady state's requests with SLO attainment and goodput, failed and\n"
    "        refused (429, 503, throttled) requests, those refused for no capacity (an\n"
    "        inference component with no copy: error no_capacity), cold starts (from such\n"
    "        a refusal to the first call served after it: its seconds and refusals), and\n"
    "        instance-hours; a component's timeline (sm-timeline --inference-component)\n"
    "        counts copies for instances; --svg adds the rate, instances (or copies) and\n"
    "        p90 TTFT over the run (docs/compare.md, Scaling).\n"
    "  weights_gib, kv_cache_tokens, load_seconds  from the vLLM logs (or compare.py's\n"
    "        load_facts).\n"
    "  server_peak_tokens_per_second  compare.py files only: the peak of vLLM's \"Avg\n"
    "        generation throughput\" log lines while it loaded the endpoint, as it saved it\n"
    "        (server_throughput_during_load); a row only when a side has it.\n"
    "  quality_correct  correct replies of the questions answered (a failed request leaves\n"
    "        its question unanswered), per side and per kind; identical answers (byte for\n"
    "        byte) and McNemar's exact test over the questions both sides answered; the\n"
    "        disagreements (question, expected, each reply, which is right).\n"
    "  95% intervals (docs/compare.md): throughput, an order-statistic interval for the\n"
    "        median of the batches (5 or more) and Bonett-Price for the ratio (8 or more per\n"
    "        side); decode rate, Welch's t-interval of the mean walls; per-call cost, the\n"
    "        least-squares line's t-interval; their ratios, Fieller's (5 or more replies of\n"
    "        each length); streaming medians (and itl's p90), Woodruff's interval over the\n"
    "        batches (8 or more; a streamed decode's requests), never over tokens, and the\n"
    "        log ratio of the quantiles for their ratios; no p99 gets one. Fewer samples:\n"
    "        \"n = 2: no interval\". None from compare.py files.\n"
    "        A time-scaled run's intervals allow for 1 ms of real time per request.\n"
    "  server log cross-check  the client's generation throughput against the log's \"Avg\n"
    "        generation throughput\" over each sweep level's window; a warning above 5%.\n"
    "  client-limited  a figure measured while the client lagged is marked\n"
    "        [client-limited] with why (text, markdown; JSON client_limited; CSV note), and\n"
    "        the verdict says so of any ratio of one: more than 5% of an open-loop rate's\n"
    "        sends over 1 ms late, or (the files' client_rounds) client CPU over 90% of what\n"
    "        it could use in a round of 1 s or more, or its stalls over 1 ms adding up to\n"
    "        more than 5% of a round, or more than 5% of the host's CPU stolen by its\n"
    "        hypervisor in a round. ITL is given only where the reads resolved it: more\n"
    "        than 10% of chunk gaps under 1 us (chunks read together) gives \"ITL not\n"
    "        resolved\" instead (docs/compare.md, Client-limited figures).\n"
    "Time-scaled files (time_scale K != 1) are reported in real units: rates divided by K,\n"
    "times multiplied by K. Every figure carries its requests (ok/sent); failure rates,\n"
    "samples too small for an interval and time-scale bias bounds are warnings, and the\n"
    "verdict names a failure rate above 1%. Text from the files is escaped in every format.\n"
    "\n"
    "Output (text and markdown): the reference table (weights_gib, kv_cache_tokens,\n"
    "load_seconds, decode_tokens_per_second, load_cN_tokens_per_second, quality_correct,\n"
    "identical answers), the intervals, decode details, latency, streaming (when a side\n"
    "streamed), open loop, scaling, cost, requests, agreement of runs, quiz by kind,\n"
    "disagreements, the server log cross-check, container facts, warnings and a verdict.\n"
    "JSON keeps the reference's keys (a, b, columns, rows as [baseline, candidate, ratio],\n"
    "identical_answers, disagreements, quality_by_kind) at full precision and adds the rest\n"
    "(streaming_seconds: rows, samples, mixed; open_loop: settings, slos, per side each\n"
    "rate's figures and verdicts and the capacity, capacity_ratio; scaling: per side each\n"
    "ramp input's steps). CSV is one row per measurement (a streaming row's n in its _total\n"
    "columns; rate_R_... and capacity_... rows, a bound in the note; a ramp's scaling_...\n"
    "rows: calls refused for no capacity and cold starts), the warnings first as\n"
    "comment lines. --svg adds TTFT and ITL panels, open loop's latency against achieved\n"
    "rate with the SLO's bound, and a ramp's rate, instances and p90 TTFT over the run.\n"
    "HTML (-f html) is one file that loads nothing (no network, no other file): the text\n"
    "report's sections and every table, then the charts inline: the --svg chart, each\n"
    "side's p90 latency against tokens/s (sweep levels; open-loop rates), and each\n"
    "request's end-to-end latency against its start (at most 2000 a side, sampled evenly,\n"
    "said in the legend); hover a point for its values; it prints as it reads (a print\n"
    "stylesheet). Its policy runs no script but its own, and text from files is escaped.\n"
    "\n"
    "Exit status: 0 on success; 2 on bad input or usage (one line on standard error naming\n"
    "the file and the problem: malformed JSON, a field of the wrong type or out of range,\n"
    "unknown format version, a file of the wrong kind, sides measured with different\n"
    "lengths, levels, quiz, clients, time scales or settings; an --slo without an open-loop\n"
    "run, or on a metric a side did not measure; a symbolic link at the --output, --svg or\n"
    "--html file or as its folder, never followed); 1 when the output cannot be written.\n";

/* The command line. */
struct compare_args {
    char **paths[2]; /* baseline, candidate */
    size_t npaths[2];
    const char *facts[2];
    const char *format, *output, *svg, *html, *quiz;
    bool have_price, allow_mixed;
    double margin; /* --margin, 0: the default */
    double price;
    struct slo_set slo;               /* --slo, --max-error-rate */
    const struct peerview_view *view; /* --view: a peer's figures instead of the comparison */
    const char *candidates;           /* --candidates DIR: the N-way report */
};

/* Prints "sm-compare: LINE" with everything from a file escaped. */
static void compare_say(const char *prefix, const char *line) {
    struct buf b;
    buf_init(&b, COMPARE_ERR_MAX);
    if (esc_text(&b, line) != BUF_OK) buf_reset(&b);
    fprintf(stderr, "sm-compare: %s%s\n", prefix, b.len ? buf_str(&b) : "out of memory");
    buf_free(&b);
}

static int compare_usage_error(const char *msg, const char *arg) {
    char line[COMPARE_ERR_MAX];
    snprintf(line, sizeof line, "%s%s%s (see sm-compare --help)", msg, arg ? ": " : "",
             arg ? arg : "");
    compare_say("", line);
    return -1;
}

/* --view computes the peer's figures by the peer's definitions alone: an option it
 * would not use is refused, never silently dropped. */
static bool compare_view_refuses(const struct compare_args *a) {
    const char *unused = a->slo.n              ? "--slo"
                         : a->slo.error_given  ? "--max-error-rate"
                         : a->slo.attain_given ? "--min-attainment"
                         : a->svg              ? "--svg"
                         : a->html             ? "--html"
                         : a->have_price       ? "--price-per-hour"
                         : a->margin > 0       ? "--margin"
                                               : NULL;
    if (!unused) return false;
    compare_usage_error("--view shows the peer's own figures; it takes no", unused);
    return true;
}

static int compare_add_path(struct compare_args *a, int side, char *path) {
    char **p = realloc(a->paths[side], (a->npaths[side] + 1) * sizeof *p);
    if (!p) return compare_usage_error("out of memory", NULL);
    a->paths[side] = p;
    p[a->npaths[side]++] = path;
    return 0;
}

static int compare_number(const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

enum {
    COMPARE_OPT_FACTS_B = 256,
    COMPARE_OPT_FACTS_C,
    COMPARE_OPT_PRICE,
    COMPARE_OPT_SVG,
    COMPARE_OPT_HTML,
    COMPARE_OPT_QUIZ,
    COMPARE_OPT_MARGIN,
    COMPARE_OPT_MIXED,
    COMPARE_OPT_SLO,
    COMPARE_OPT_ERRORS,
    COMPARE_OPT_ATTAIN,
    COMPARE_OPT_VIEW,
    COMPARE_OPT_CANDIDATES,
};

/* --slo and --max-error-rate: their one-line error, as a usage error. */
static int compare_slo(struct compare_args *a, int c, const char *arg) {
    struct buf err;
    buf_init(&err, COMPARE_ERR_MAX);
    int rc = c == COMPARE_OPT_SLO      ? slo_parse(&a->slo, arg, &err)
             : c == COMPARE_OPT_ERRORS ? slo_parse_error_rate(&a->slo, arg, &err)
                                       : slo_parse_attainment(&a->slo, arg, &err);
    if (rc < 0) compare_usage_error(err.len ? buf_str(&err) : "out of memory", NULL);
    buf_free(&err);
    return rc < 0 ? -1 : 0;
}

static int compare_format(struct compare_args *a, const char *arg) {
    static const char *const formats[] = {"text", "markdown", "json", "csv", "html"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(arg, formats[i]) == 0) {
            a->format = formats[i];
            return 0;
        }
    return compare_usage_error("--format must be text, markdown, json, csv or html", arg);
}

static int compare_option(struct compare_args *a, int c, char *arg) {
    switch (c) {
    case 'b':
        return compare_add_path(a, 0, arg);
    case 'c':
        return compare_add_path(a, 1, arg);
    case COMPARE_OPT_FACTS_B:
    case COMPARE_OPT_FACTS_C:
        a->facts[c == COMPARE_OPT_FACTS_C] = arg;
        return 0;
    case COMPARE_OPT_PRICE:
        if (compare_number(arg, 0, 1e9, &a->price) < 0 || !(a->price > 0))
            return compare_usage_error("--price-per-hour needs a positive number of USD", arg);
        a->have_price = true;
        return 0;
    case COMPARE_OPT_MIXED:
        a->allow_mixed = true;
        return 0;
    case COMPARE_OPT_SLO:
    case COMPARE_OPT_ERRORS:
    case COMPARE_OPT_ATTAIN:
        return compare_slo(a, c, arg);
    case COMPARE_OPT_VIEW:
        if (!(a->view = peerview_find(arg)))
            return compare_usage_error("--view must be vllm, aiperf, guidellm or llmperf", arg);
        return 0;
    case COMPARE_OPT_CANDIDATES:
        a->candidates = arg;
        return 0;
    case 'f':
        return compare_format(a, arg);
    case 'o':
        a->output = arg;
        return 0;
    case COMPARE_OPT_SVG:
        a->svg = arg;
        return 0;
    case COMPARE_OPT_HTML:
        a->html = arg;
        return 0;
    case COMPARE_OPT_QUIZ:
        a->quiz = arg;
        return 0;
    case COMPARE_OPT_MARGIN:
        if (!quiz_plan_share(arg, &a->margin) || a->margin > 0.5)
            return compare_usage_error("--margin must be a share in (0, 50%], as 2% or 0.02", arg);
        return 0;
    default:
        return compare_usage_error("unknown option", NULL);
    }
}

static int compare_version(void) {
    char *quiz = datadir_path(SM_SOURCE_DIR, COMPARE_QUIZ_REL);
    int n = printf("sm-compare %s\ndefault quiz: %s\n", SM_VERSION, quiz ? quiz : "?");
    free(quiz);
    return n < 0 ? -1 : 1;
}

/* --candidates DIR: --baseline is a label, and the options that the file gives
 * (or that compare two sides only) are refused. */
static int compare_nway_args(const struct compare_args *a, int argc, char **argv, int split) {
    const char *unused = a->view         ? "--view"
                         : a->npaths[1]  ? "--candidate"
                         : a->have_price ? "--price-per-hour (candidates.json has each price)"
                         : a->facts[0] || a->facts[1] ? "--facts-baseline or --facts-candidate"
                                                      : NULL;
    if (unused) return compare_usage_error("--candidates takes no", unused);
    if (a->npaths[0] > 1)
        return compare_usage_error("--candidates takes one --baseline LABEL", NULL);
    if (optind < split || split < argc)
        return compare_usage_error("--candidates DIR takes no other paths",
                                   argv[optind < split ? optind : split]);
    return 0;
}

/* The sides as positional arguments: BASELINE CANDIDATE, or BASELINE... -- CANDIDATE... */
static int compare_positional(struct compare_args *a, int argc, char **argv, int split,
                              bool flagged) {
    int npos = split - optind;
    if (flagged && (npos || split < argc))
        return compare_usage_error(
            "give the sides either with --baseline/--candidate or as arguments", NULL);
    if (split < argc) {
        for (int i = optind; i < split; i++)
            if (compare_add_path(a, 0, argv[i]) < 0) return -1;
        for (int i = split + 1; i < argc; i++)
            if (compare_add_path(a, 1, argv[i]) < 0) return -1;
    } else if (!flagged) {
        if (npos != 2)
            return compare_usage_error(
                "give a BASELINE and a CANDIDATE (or use -- between the sides)", NULL);
        if (compare_add_path(a, 0, argv[optind]) < 0 ||
            compare_add_path(a, 1, argv[optind + 1]) < 0)
            return -1;
    }
    if (!a->npaths[0] || !a->npaths[1])
        return compare_usage_error(a->npaths[0] ? "no candidate given" : "no baseline given", NULL);
    return 0;
}

/* Returns 0, 1 after --help or --version, or -1 on a usage error. */
static int compare_parse(int argc, char **argv, struct compare_args *a) {
    static const struct option opts[] = {
        {"baseline", required_argument, NULL, 'b'},
        {"candidate", required_argument, NULL, 'c'},
        {"facts-baseline", required_argument, NULL, COMPARE_OPT_FACTS_B},
        {"facts-candidate", required_argument, NULL, COMPARE_OPT_FACTS_C},
        {"price-per-hour", required_argument, NULL, COMPARE_OPT_PRICE},
        {"allow-mixed", no_argument, NULL, COMPARE_OPT_MIXED},
        {"slo", required_argument, NULL, COMPARE_OPT_SLO},
        {"max-error-rate", required_argument, NULL, COMPARE_OPT_ERRORS},
        {"min-attainment", required_argument, NULL, COMPARE_OPT_ATTAIN},
        {"view", required_argument, NULL, COMPARE_OPT_VIEW},
        {"candidates", required_argument, NULL, COMPARE_OPT_CANDIDATES},
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"svg", required_argument, NULL, COMPARE_OPT_SVG},
        {"html", required_argument, NULL, COMPARE_OPT_HTML},
        {"quiz", required_argument, NULL, COMPARE_OPT_QUIZ},
        {"margin", required_argument, NULL, COMPARE_OPT_MARGIN},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int split = argc, c;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            split = i;
            break;
        }
    bool flagged = false;
    opterr = 0;
    while ((c = getopt_long(split, argv, ":b:c:f:o:hV", opts, NULL)) != -1) {
        if (c == 'h') return fputs(compare_usage, stdout) == EOF ? -1 : 1;
        if (c == 'V') return compare_version();
        if (c == ':') return compare_usage_error("option needs a value", argv[optind - 1]);
        if (c == '?') return compare_usage_error("unknown option", argv[optind - 1]);
        flagged |= c == 'b' || c == 'c';
        if (compare_option(a, c, optarg) < 0) return -1;
    }
    struct buf err;
    buf_init(&err, COMPARE_ERR_MAX);
    int rc = slo_check(&a->slo, &err);
    if (rc < 0) compare_usage_error(err.len ? buf_str(&err) : "out of memory", NULL);
    buf_free(&err);
    if (rc < 0) return -1;
    if (a->view && strcmp(a->format, "text") != 0 && strcmp(a->format, "json") != 0)
        return compare_usage_error("--view writes text or json", a->format);
    if (a->view && compare_view_refuses(a)) return -1;
    if (a->candidates) return compare_nway_args(a, argc, argv, split);
    return compare_positional(a, argc, argv, split, flagged);
}

/* The quiz to score compare.py files with: --quiz, else the default when present. */
static int compare_load_quiz(const struct compare_args *a, struct quizfile **qz, struct buf *err) {
    struct stat st;
    *qz = NULL;
    if (a->quiz) return quizfile_read(a->quiz, qz, err);
    char *quiz = datadir_path(SM_SOURCE_DIR, COMPARE_QUIZ_REL);
    int rc = quiz && stat(quiz, &st) == 0 ? quizfile_read(quiz, qz, err) : 0;
    free(quiz);
    return rc;
}

static int compare_render(const struct compare_args *a, const struct cmp *m,
                          const struct warnings *w, struct buf *out) {
    if (strcmp(a->format, "json") == 0) return out_json_render(m, w, out);
    if (strcmp(a->format, "csv") == 0) return out_csv_render(m, w, out);
    if (strcmp(a->format, "html") == 0) return out_html_render(m, w, out);
    struct page r;
    if (report_build(m, w, &r) < 0) return BUF_ERR_NOMEM;
    int rc = strcmp(a->format, "markdown") == 0 ? out_markdown_render(&r, out)
                                                : out_text_render(&r, out);
    page_free(&r);
    return rc;
}

/* Writes b to path (replaced whole, never through a link: safeopen.h), or to
 * standard output: 0, or 2 for a link on the way, 1 for another failure (err
 * says which). */
static int compare_write(const char *path, const struct buf *b, struct buf *err) {
    int rc = path ? safeopen_write(path, NULL, buf_str(b), b->len, 0666, err) : 0;
    if (!path && (fwrite(buf_str(b), 1, b->len, stdout) != b->len || fflush(stdout) != 0))
        rc = buf_fail(err, SAFEOPEN_ERR_IO, "standard output: cannot write: %s", strerror(errno));
    return rc == SAFEOPEN_ERR_LINK ? 2 : rc < 0 ? 1 : 0;
}

/* Reading one side (the two sides are read at the same time). */
struct compare_job {
    const struct compare_args *a;
    const struct quizfile *qz;
    int k; /* 0 baseline, 1 candidate */
    struct inputs in;
    struct side side;
    struct warnings w;
    struct buf err;
    int rc;
};

static void *compare_read_side(void *arg) {
    static const char *const roles[] = {"baseline", "candidate"};
    struct compare_job *j = arg;
    j->rc = inputs_read(j->a->paths[j->k], j->a->npaths[j->k], j->a->facts[j->k], j->qz, &j->a->slo,
                        &j->in, &j->w, &j->err);
    if (j->rc == 0) j->rc = side_build(&j->side, roles[j->k], &j->in, &j->w, &j->err);
    return NULL;
}

/* Reads both sides, the baseline on a second thread; returns the first error
 * (baseline before candidate) in err, and merges the warnings in that order. */
static int compare_read_sides(struct compare_job *jobs, struct warnings *w, struct buf *err) {
    pthread_t t;
    bool threaded = pthread_create(&t, NULL, compare_read_side, &jobs[0]) == 0;
    if (!threaded) compare_read_side(&jobs[0]);
    compare_read_side(&jobs[1]);
    if (threaded) pthread_join(t, NULL);
    warnings_merge(w, &jobs[0].w);
    warnings_merge(w, &jobs[1].w);
    for (int k = 0; k < 2; k++)
        if (jobs[k].rc < 0) return buf_fail(err, jobs[k].rc, "%s", buf_str(&jobs[k].err));
    return 0;
}

/* Reads, checks and compares both sides, and writes the report; returns the exit status. */
static int compare_run(const struct compare_args *a, struct buf *out, struct buf extra[2],
                       struct compare_job *jobs, struct warnings *w, struct buf *err) {
    struct quizfile *qz = NULL;
    struct cmp m = {0};
    struct cmp_opts o = {a->have_price, a->price, &a->slo, a->margin};
    int status = 2;
    if (compare_load_quiz(a, &qz, err) < 0) goto done;
    jobs[0].qz = jobs[1].qz = qz;
    if (compare_read_sides(jobs, w, err) < 0 ||
        guard_check(&jobs[0].side, &jobs[1].side, a->allow_mixed, w, err) < 0 ||
        comparison_build(&m, &jobs[0].side, &jobs[1].side, &o, err) < 0)
        goto done;
    notes_add(&m, w); /* what the reader should know of the figures */
    status = 1;
    if (w->nomem || compare_render(a, &m, w, out) != BUF_OK ||
        (a->svg && out_svg_render(&m, &extra[0]) != BUF_OK) ||
        (a->html && out_html_render(&m, w, &extra[1]) != BUF_OK)) {
        buf_fail(err, BUF_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((status = compare_write(a->output, out, err)) == 0 && a->svg)
        status = compare_write(a->svg, &extra[0], err);
    if (status == 0 && a->html) status = compare_write(a->html, &extra[1], err);
done:
    cmp_free(&m);
    quizfile_free(qz);
    return status;
}

/* --view: each side's records by a peer's definitions; returns the exit status. */
static int compare_view(const struct compare_args *a) {
    static const char *const roles[] = {"baseline", "candidate"};
    struct peerview_side sides[2] = {{0}};
    const struct peerview_side *ps[2] = {&sides[0], &sides[1]};
    struct buf out, err;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&err, COMPARE_ERR_MAX);
    int status = 2;
    for (int k = 0; k < 2; k++)
        if (peerread_paths(&sides[k], a->paths[k], a->npaths[k], &err) < 0) goto done;
    status = 1;
    if (peerview_render(a->view, ps, roles, strcmp(a->format, "json") == 0, &out) < 0) {
        buf_fail(&err, BUF_ERR_NOMEM, "out of memory");
        goto done;
    }
    status = compare_write(a->output, &out, &err);
done:
    if (status && err.len) compare_say("", buf_str(&err));
    for (int k = 0; k < 2; k++) peerview_side_free(&sides[k]);
    buf_free(&out);
    buf_free(&err);
    return status;
}

/* The N-way report in a's format (and --svg's chart, --html's report); BUF_OK or BUF_ERR_*. */
static int compare_nway_render(const struct compare_args *a, const struct nway *n,
                               const struct warnings *w, struct buf *out, struct buf extra[2]) {
    int rc = a->svg ? nway_out_svg(n, &extra[0]) : BUF_OK;
    if (!rc && a->html) rc = nway_out_html(n, w, &extra[1]);
    if (rc) return rc;
    if (strcmp(a->format, "json") == 0) return nway_out_json(n, w, out);
    if (strcmp(a->format, "html") == 0) return nway_out_html(n, w, out);
    if (strcmp(a->format, "csv") == 0) return nway_out_csv(n, w, out);
    struct page r;
    if (nway_report_build(n, w, &r) < 0) {
        page_free(&r);
        return BUF_ERR_NOMEM;
    }
    rc = strcmp(a->format, "markdown") == 0 ? out_markdown_render(&r, out)
                                            : out_text_render(&r, out);
    page_free(&r);
    return rc;
}

/* --candidates DIR: reads, compares and writes the N-way report; the exit status. */
static int compare_nway(const struct compare_args *a) {
    struct nway n = {0};
    struct quizfile *qz = NULL;
    struct warnings w;
    struct buf out, extra[2], err; /* extra: --svg, --html */
    buf_init(&out, BUF_NO_CAP);
    buf_init(&extra[0], BUF_NO_CAP);
    buf_init(&extra[1], BUF_NO_CAP);
    buf_init(&err, COMPARE_ERR_MAX);
    warnings_init(&w);
    struct nway_opts o = {a->candidates, a->npaths[0] ? a->paths[0][0] : NULL,
                          &a->slo,       a->allow_mixed,
                          a->margin,     NULL};
    int status = 2;
    if (compare_load_quiz(a, &qz, &err) < 0) goto done;
    o.qz = qz;
    int rc = nway_build(&n, &o, &w, &err);
    if (rc == NWAY_ERR_NOMEM) status = 1;
    if (rc < 0) goto done;
    for (size_t i = 0; i < n.n; i++) /* what the reader should know of each pair's figures */
        if (n.c[i].compared && (i != n.base || n.n == 1)) notes_add(&n.c[i].m, &w);
    status = 1;
    if (w.nomem || compare_nway_render(a, &n, &w, &out, extra) != BUF_OK) {
        buf_fail(&err, BUF_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((status = compare_write(a->output, &out, &err)) == 0 && a->svg)
        status = compare_write(a->svg, &extra[0], &err);
    if (status == 0 && a->html) status = compare_write(a->html, &extra[1], &err);
done:
    if (status) compare_say("", err.len ? buf_str(&err) : "out of memory");
    nway_free(&n);
    quizfile_free(qz);
    warnings_free(&w);
    buf_free(&out);
    buf_free(&extra[0]);
    buf_free(&extra[1]);
    buf_free(&err);
    return status;
}

static int compare_main(const struct compare_args *a) {
    if (a->view) return compare_view(a);
    if (a->candidates) return compare_nway(a);
    struct compare_job jobs[2] = {{.a = a, .k = 0}, {.a = a, .k = 1}};
    struct buf out, extra[2], err; /* extra: --svg, --html */
    struct warnings w;
    buf_init(&out, BUF_NO_CAP);
    buf_init(&extra[0], BUF_NO_CAP);
    buf_init(&extra[1], BUF_NO_CAP);
    buf_init(&err, COMPARE_ERR_MAX);
    warnings_init(&w);
    for (int k = 0; k < 2; k++) {
        warnings_init(&jobs[k].w);
        buf_init(&jobs[k].err, COMPARE_ERR_MAX);
    }
    int status = compare_run(a, &out, extra, jobs, &w, &err);
    if (status && err.len)
        compare_say("", buf_str(&err));
    else if (status == 2)
        compare_say("", "out of memory");
    for (int k = 0; k < 2; k++) {
        side_free(&jobs[k].side);
        inputs_free(&jobs[k].in);
        warnings_free(&jobs[k].w);
        buf_free(&jobs[k].err);
    }
    warnings_free(&w);
    buf_free(&out);
    buf_free(&extra[0]);
    buf_free(&extra[1]);
    buf_free(&err);
    return status;
}

int main(int argc, char **argv) {
    struct compare_args a = {.format = "text"};
    slo_init(&a.slo);
    int rc = compare_parse(argc, argv, &a);
    int status = rc != 0 ? (rc < 0 ? 2 : 0) : compare_main(&a);
    free(a.paths[0]);
    free(a.paths[1]);
    return status;
}
