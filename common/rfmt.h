/* rfmt: the result format's one owner (docs/result-format.md): its name and
 * version, the names of its top-level fields, and the writer and the reader of
 * a result file's head (every top-level field but what the end of a run adds:
 * ended_at, partial, partial_reason, counts and records). The recorder writes
 * the head with rfmt_head_json, sm-compare and sm-suite read it with
 * rfmt_head_parse. Over cJSON; no I/O. */
#ifndef SM_RFMT_H
#define SM_RFMT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"

#define RFMT_NAME    "wrk-sagemaker-result"
#define RFMT_VERSION 2 /* 2: the client and api fields, streamed records' times */

/* Top-level field names. */
#define RFMT_FORMAT         "format"
#define RFMT_FORMAT_VERSION "version"
#define RFMT_TOOL           "tool"
#define RFMT_SCENARIO       "scenario"
#define RFMT_RUN_ID         "run_id"
#define RFMT_LABEL          "label"
#define RFMT_ENDPOINT       "endpoint"
#define RFMT_TARGET         "target"
#define RFMT_CLIENT         "wrk"
#define RFMT_CLIENT_NAME    "client"
#define RFMT_API            "api"
#define RFMT_TIME_SCALE     "time_scale"
#define RFMT_STARTED_AT     "started_at"
#define RFMT_SEED           "seed"
#define RFMT_SHARD          "shard"
#define RFMT_START_AT       "start_at"
#define RFMT_START_TOL      "start_tolerance_s"
#define RFMT_CLOCK          "clock"
#define RFMT_SETTINGS_HASH  "settings_sha256"
#define RFMT_SETTINGS       "settings"
#define RFMT_ENDED_AT       "ended_at"
#define RFMT_PARTIAL        "partial"
#define RFMT_PARTIAL_REASON "partial_reason"
#define RFMT_COUNTS         "counts"
#define RFMT_COUNTS_SENT    "sent" /* counts' members */
#define RFMT_COUNTS_OK      "ok"
#define RFMT_COUNTS_FAILED  "failed"
#define RFMT_COUNTS_ERRORS  "errors"
#define RFMT_RECORDS        "records"
#define RFMT_START_LATE_US  "start_late_us" /* added at the end: how late the first request left */

#define RFMT_CLIENT_ROUNDS "client_rounds" /* added at the end: how the client fared, per round */

/* Added at the end with --tokenizer: the chat template's overhead measured from
 * usage.prompt_tokens (docs/result-format.md, Top level), and its members. */
#define RFMT_TEMPLATE             "template_overhead"
#define RFMT_TEMPLATE_TOKENS      "tokens"
#define RFMT_TEMPLATE_FIRST       "first_prompt_tokens"
#define RFMT_TEMPLATE_EXACT       "exact_tokens"
#define RFMT_TEMPLATE_TOKENIZER   "tokenizer"
#define RFMT_TEMPLATE_REPLIES     "replies"
#define RFMT_TEMPLATE_DIFFER      "replies_differing"
#define RFMT_TEMPLATE_TEXTS       "reply_texts"
#define RFMT_TEMPLATE_TEXT_DIFFER "reply_texts_differing"
#define RFMT_TEMPLATE_PER_TURN    "per_turn" /* conversations: one object per turn */

#define RFMT_SHARDS_MAX 10000 /* shards of one run */

/* A client's stall: one piece of its own work that held its event loop longer
 * than this (sm-stream: an event callback; wrk: a Lua hook), microseconds. */
#define RFMT_STALL_US 1000

enum rfmt_error {
    RFMT_OK = 0,
    RFMT_ERR_NOMEM = -1,
    RFMT_ERR_INPUT = -2, /* not a head of this format: err names the field */
};

/* The host's clock against the endpoint's, measured before a run ("clock"). */
struct rfmt_clock {
    bool have;                /* measured (absent from the head: not) */
    long long offset_us;      /* the endpoint's clock minus this host's */
    long long uncertainty_us; /* +- around offset_us */
    long probes;              /* replies it was measured from */
};

/* A head. Strings may be NULL where the format allows null (variant,
 * inference_component); the writer copies them, the reader's point into the
 * parsed object and live as long as it. */
struct rfmt_head {
    const char *tool;     /* "wrk-sagemaker 0.1.0" */
    const char *scenario; /* decode, sweep, quiz, ... */
    const char *run_id;
    const char *label;
    struct {
        const char *name, *variant, *format, *component;
    } endpoint;
    struct {
        const char *url, *host, *region, *service;
    } target;
    struct {
        long threads, connections;    /* < 0: null */
        double duration_s, timeout_s; /* < 0: null */
    } client;
    const char *client_name; /* the load generator: "wrk" or "sm-stream" (absent in v1: wrk) */
    const char *api;         /* "invoke", "stream" or "openai" (absent in v1: invoke) */
    double time_scale;       /* > 0 */
    const char *started_at;
    bool has_seed;
    long long seed; /* the seed the schedule was drawn from ("seed"; null: none) */
    struct {
        long index, count; /* "shard": this file's shard of count; count 0: not sharded (absent) */
    } shard;
    const char *start_at;     /* "start_at": the start barrier's wall-clock time, or NULL */
    double start_tolerance_s; /* "start_tolerance_s": how late a start may be; < 0: absent */
    struct rfmt_clock clock;
    const char *settings_sha256; /* rfmt_settings_hash of the head; NULL when absent (older) */
    const cJSON *settings;       /* an object: the scenario's settings, in its order */
};

/* The head as a JSON object, its fields in the format's order (malloc'ed cJSON;
 * settings copied). The optional fields (seed, shard, start_at, start_tolerance_s,
 * clock, settings_sha256) are written only when set. NULL when out of memory. */
cJSON *rfmt_head_json(const struct rfmt_head *h);

/* The head from what a scenario gives: the head's fields but format, version,
 * tool and settings_sha256, with settings as a list of [name, value] pairs in
 * their order. Checked as rfmt_head_parse checks a head; *out is the head in
 * the format's order with its settings_sha256 (malloc'ed cJSON). Returns 0,
 * RFMT_ERR_INPUT with err, or RFMT_ERR_NOMEM. */
__attribute__((warn_unused_result)) int rfmt_head_make(const cJSON *given, const char *tool,
                                                       cJSON **out, struct buf *err);

/* The SHA-256 (lower-case hex) of what defines a run's load, for telling whether
 * result files may be shards of one run: scenario, label, endpoint, target,
 * the client's senders (wrk.connections), client, api, time_scale, seed, the
 * shard count and settings, printed as unformatted JSON in that order. Not in
 * it: the run id, times, the shard's index, threads, durations. Returns 0 or
 * RFMT_ERR_NOMEM. */
__attribute__((warn_unused_result)) int rfmt_settings_hash(const struct rfmt_head *h, char hex[65]);

/* Reads an ISO 8601 UTC time as the format writes it ("2026-11-30T10:28:46Z",
 * with up to 6 digits of fraction): microseconds since the Unix epoch.
 * Returns 0, or RFMT_ERR_INPUT for anything else. */
__attribute__((warn_unused_result)) int rfmt_time_parse(const char *s, long long *us);
/* Writes us (microseconds since the epoch) as "2026-11-30T10:28:46.123456Z". */
void rfmt_time_format(long long us, char out[32]);

/* How the client fared in one round of a run (docs/result-format.md,
 * client_rounds): what the client itself may have disturbed. */
struct rfmt_round {
    long round;            /* the schedule's round, 0-based */
    long batch;            /* the records' batch in it; -1: none recorded */
    double wall_s;         /* the round's wall time, from its first send to the next round's */
    double cpu_s;          /* the process's CPU (user + system, getrusage) in that time */
    long cpus;             /* the host's online processors */
    long threads;          /* the client's OS threads that send (-t) */
    bool busy_poll;        /* the client polls without sleeping: its CPU says nothing */
    const char *stalls_of; /* what a stall is measured on: "event loop", "lua hooks" */
    long stalls;           /* pieces of work longer than RFMT_STALL_US */
    long long stall_max_us, stall_us; /* the longest, and all of them together */
    long reads;                       /* reads that brought content chunks (streams only) */
    long chunks;                      /* content chunks they brought */
    long burst_chunks;                /* chunks read with the one before them, in one read */
    double steal_share; /* of the host's CPU time its hypervisor took; < 0: not known (null) */
};

/* r as an object of client_rounds, in the format's order; NULL when out of memory. */
cJSON *rfmt_round_json(const struct rfmt_round *r);

/* Reads client_rounds[i] (obj, an object) of path: each field checked for its
 * type and range. Returns 0, or RFMT_ERR_INPUT with one line in err naming
 * the file and the field. stalls_of points into obj. */
__attribute__((warn_unused_result)) int rfmt_round_parse(const cJSON *obj, const char *path,
                                                         size_t i, struct rfmt_round *out,
                                                         struct buf *err);

/* Reads the head of a result file or journal (the whole top-level object) at
 * path (named in messages): the format's name, a version from 1 to
 * RFMT_VERSION, and every field of the head checked for its type and range
 * (field.h). Fields a version-1 file lacks read as their defaults (time_scale
 * 1, client "wrk", api "invoke"). Returns 0, or RFMT_ERR_INPUT with one line
 * in err: "PATH: time_scale: \"fast\" is not a number". The strings point into obj. */
__attribute__((warn_unused_result)) int rfmt_head_parse(const cJSON *obj, const char *path,
                                                        struct rfmt_head *out, struct buf *err);

#endif
