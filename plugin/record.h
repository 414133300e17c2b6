/* record: the recorder of a run. One result file per endpoint label, each with
 * its journal (docs/result-format.md): the journal gets its header line when
 * the file is added and one JSON line per record, copied into the file's shared
 * mapping (plugin/jmap.h) as the record is written: no system call, no fsync,
 * and a crash of the process loses no completed request; rec_finish writes each
 * result file atomically (a temporary file in the same directory, then rename)
 * from the header, the counts and the journal's records.
 *
 * Pure C over cJSON and stdio; no clock (times come in the records) and no
 * lock: the caller serialises every call (plugin/shared.c holds the lock). */
#ifndef SM_RECORD_H
#define SM_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include <stdint.h>

#include "buf.h"

enum rec_error {
    REC_OK = 0,
    REC_ERR_NOMEM = -1,
    REC_ERR_IO = -2,     /* a file could not be opened, written or renamed; err says which */
    REC_ERR_INPUT = -3,  /* no such file index, or a header that is not an object */
    REC_ERR_EXISTS = -4, /* the result or its journal exists already: err says which */
    REC_ERR_LINK = -5,   /* a symbolic link on the way to a file (safeopen.h): err names it */
};

/* One completed request. Strings may be NULL where the format allows null;
 * the recorder copies what it keeps. */
struct rec_record {
    int thread;
    const char *endpoint;
    const char *variant; /* NULL: null */
    const char *phase;
    long batch;
    const char *question; /* NULL: null */
    const char *kind;     /* NULL: null */
    long max_tokens;
    long prompt_tokens;        /* < 0: null */
    long completion_tokens;    /* < 0: null */
    long reasoning_tokens;     /* of completion_tokens, a thinking model's; <= 0: omitted */
    long cached_tokens;        /* of prompt_tokens, the prefix cache's, when has_cached_tokens */
    bool has_cached_tokens;    /* the reply said them (else omitted) */
    const char *finish_reason; /* NULL: null */
    int status;                /* 0: no reply */
    bool ok;
    const char *error_code; /* NULL: "error": null */
    const char *error_message;
    int original_status; /* > 0: written as error.original_status */
    long long t_start_us, t_end_us, wall_start_us;
    bool has_server_us;      /* the emulator said its service time: */
    long long server_us;     /* its model microseconds to the head (emulator/README.md) */
    long long t_intended_us; /* an open-loop request's intended start; <= 0: omitted (the run's
                              * clock starts before its first round) */
    bool has_conn;           /* the client timed the connection (sm-stream's libcurl; wrk does
                              * not say): connect_us and tls_us are written */
    long long connect_us;    /* opening the connection: name lookup and TCP; 0: reused */
    long long tls_us;        /* the TLS handshake after it; 0: reused, or plain HTTP */
    const char *text;        /* NULL: omitted */
    const char *answer;      /* NULL: omitted */
    int correct;             /* < 0: omitted; 0 or 1 */
    int turn;                /* a conversation's turn, 1-based; <= 0: omitted */
    const char *session;     /* the sticky session's id; NULL: omitted */
    /* A streamed reply (the streaming engine's): t_headers_us > 0. Times on the
     * run's clock; the gaps between content chunks, n_chunks - 1 of them; the
     * tokens of each chunk, or NULL when every chunk carried one. */
    long long t_headers_us, t_first_token_us;
    long long t_first_output_us; /* the first answer chunk; written when reasoning came first
                                  * (past t_first_token_us, or 0 with reasoning: null) */
    const uint32_t *chunk_gaps_us;
    const uint16_t *chunk_tokens;
    size_t n_chunks;
    size_t n_received;  /* chunks that came, written as chunks_received when more than n_chunks */
    bool itl_per_token; /* written as itl_unit "token" (every chunk's tokens known) or "chunk" */
    /* Not NULL: the fields from endpoint to max_tokens as rec_fixed_json wrote
     * them, written in their place (a call's records share them). */
    const char *fixed_json;
};

/* One error code and how often it was recorded. */
struct rec_error_count {
    char *code;
    long count;
};

struct rec_counts {
    long sent, ok, failed;
    struct rec_error_count *errors; /* n_errors entries, in order of first appearance */
    size_t n_errors;
    char *first_error; /* "<status> <code>: <message>" of the first failure, or NULL */
};

struct rec_recorder;

__attribute__((warn_unused_result)) int rec_new(struct rec_recorder **out);
/* Closes the journals (cut to their lines) and frees everything; NULL is fine. */
void rec_free(struct rec_recorder *r);

/* Adds a result file (its directory is created when missing) and starts its
 * journal with header (an object; copied). *index_out numbers the file. A
 * result or journal that exists is an error (REC_ERR_EXISTS), never overwritten
 * nor followed if a symbolic link, unless force: then both are removed first. *
 * root: the folder the user named, of which the paths are below (--out's
 * folder before its first placeholder), or NULL: the result's own folder. It
 * is made as named; every folder below it and the files are reached without
 * following a symbolic link (safeopen.h): a link there is REC_ERR_LINK. */
__attribute__((warn_unused_result)) int
rec_add_file(struct rec_recorder *r, const char *result_path, const char *journal_path,
             const char *root, const cJSON *header, bool force, size_t *index_out, struct buf *err);

/* The JSON rec_write writes for rec's fields from endpoint to max_tokens
 * (malloc'ed), for rec_record.fixed_json; NULL when out of memory. */
char *rec_fixed_json(const struct rec_record *rec);

/* Gives rec the run's next seq, appends it to file's journal and counts it. */
__attribute__((warn_unused_result)) int rec_write(struct rec_recorder *r, size_t file,
                                                  const struct rec_record *rec, struct buf *err);

/* The counts of file so far (owned by r); NULL for a bad index. */
const struct rec_counts *rec_counts(const struct rec_recorder *r, size_t file);
size_t rec_n_files(const struct rec_recorder *r);

/* Gives file a top-level member name = v (copied; one of that name replaces
 * it) that rec_finish writes after more's: what only this file gets. */
__attribute__((warn_unused_result)) int rec_set_more(struct rec_recorder *r, size_t file,
                                                     const char *name, const cJSON *v);

/* Writes every result file: the header plus ended_at, partial, partial_reason
 * (NULL: null), the members of more (NULL: none; copied), counts and records.
 * Stops at the first failure. */
__attribute__((warn_unused_result)) int rec_finish(struct rec_recorder *r, const char *ended_at,
                                                   bool partial, const char *partial_reason,
                                                   const cJSON *more, struct buf *err);

/* "2026-11-30T10:28:46.123456Z" for wall_us microseconds since the epoch. */
void rec_iso8601(long long wall_us, char out[32]);

/* The journal path for a result path: ".json" replaced by ".journal.jsonl", or
 * ".journal.jsonl" appended. Appends to out. */
__attribute__((warn_unused_result)) int rec_journal_path(const char *result_path, struct buf *out);

#endif
