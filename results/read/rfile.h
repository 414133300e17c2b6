/* rfile: reads one JSON document or one journal (docs/result-format.md).
 *
 * A document's top-level members go into a cJSON object (head), except the
 * "records" array, which is scanned record by record into a compact array
 * (cJSON would need seconds and gigabytes for a million records). A journal's
 * first line is the head; every further line is one record. The caller decides
 * what kind of file the head describes. Only regular files are read (a FIFO
 * or a directory is refused at once, never waited on). */
#ifndef SM_RFILE_H
#define SM_RFILE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "strtab.h"

#define RFILE_NONE      (-1)       /* an integer field that was null or absent */
#define RFILE_ITL_TOKEN 1          /* itl_unit "token": every chunk's tokens were known */
#define RFILE_ITL_CHUNK 2          /* itl_unit "chunk": a chunk of unsaid tokens counted as one */
#define RFILE_NO_CTOKS  SIZE_MAX   /* a streamed record without chunk_tokens */
#define RFILE_MAX_GAP   UINT32_MAX /* microseconds: a larger gap is bad input */

enum rfile_err {
    RFILE_OK = 0,
    RFILE_ERR_NOMEM = -1,
    RFILE_ERR_READ = -2,  /* the file cannot be read (missing, not a regular file) */
    RFILE_ERR_INPUT = -3, /* the file is not what it should be (malformed JSON, a bad record) */
};

/* One record (docs/result-format.md, "Records"). */
struct rfile_rec {
    int64_t seq;
    int64_t t_start_us, t_end_us; /* as measured (not time-scaled) */
    int64_t t_intended_us;     /* an open-loop request's intended start, RFILE_NONE when absent */
    int64_t wall_start_us;     /* Unix microseconds, RFILE_NONE when absent */
    int64_t batch;             /* RFILE_NONE when absent */
    int32_t max_tokens;        /* RFILE_NONE when null */
    int32_t completion_tokens; /* RFILE_NONE when the reply did not say */
    int32_t reasoning_tokens;  /* of them, reasoning; 0 when absent */
    int32_t prompt_tokens;     /* RFILE_NONE when the reply did not say */
    int32_t cached_tokens;     /* of them, the prefix cache's; RFILE_NONE when absent */
    int8_t itl_unit;           /* RFILE_ITL_TOKEN, RFILE_ITL_CHUNK, or 0: the record did not say */
    int32_t status;
    uint32_t phase, kind, question, error; /* ids in rfile.strs, 0 when null */
    uint32_t text, answer;                 /* offsets + 1 into rfile.texts, 0 when absent */
    bool ok;
    int8_t correct; /* 1, 0, or -1 when absent */
    /* A streamed reply's fields, checked against each other (docs/result-format.md). */
    bool stream;          /* the record has them: t_first_token_us, chunks, chunk_gaps_us */
    int32_t chunks;       /* content chunks (RFILE_NONE when not streamed) */
    int64_t t_headers_us; /* RFILE_NONE when absent */
    int64_t server_us;    /* the emulator's service time (model us, tscale.h); RFILE_NONE: none */
    int64_t connect_us;   /* opening its connection (sm-stream); 0: reused; RFILE_NONE: absent */
    int64_t tls_us;       /* the TLS handshake after it; 0: reused or plain HTTP; RFILE_NONE */
    int64_t t_first_us;   /* t_first_token_us; RFILE_NONE when null (no content came) */
    int64_t t_first_output_us; /* the first answer chunk (t_first_output_us; absent: t_first_us);
                                * RFILE_NONE when none came */
    size_t gaps;               /* its chunks - 1 gaps (microseconds) start at rfile.gaps[gaps] */
    size_t ctoks; /* its chunks' tokens start at rfile.ctoks[ctoks], or RFILE_NO_CTOKS */
};

struct rfile {
    char *path;             /* owned copy of the path it was read from */
    bool journal;           /* read as JSON lines */
    bool cut_tail;          /* journal: the last line was incomplete and was left out */
    cJSON *head;            /* owned: top-level members without records / the header line */
    bool has_records;       /* the document had a "records" member */
    struct rfile_rec *recs; /* owned, in file order */
    size_t nrecs;
    struct strtab strs; /* phases, kinds, question ids, error codes */
    char **errmsg;      /* errmsg[id - 1]: first message seen for error code id, or NULL */
    size_t nerrmsg;
    struct buf texts; /* texts and answers, each NUL-terminated */
    uint32_t *gaps;   /* owned: the streamed records' chunk_gaps_us, one after another */
    size_t ngaps;
    uint16_t *ctoks; /* owned: their chunk_tokens (1 to 65535 each) */
    size_t nctoks;
};

/* Reads path: a journal when the name ends in ".jsonl", else one JSON
 * document. Returns 0 and *out (the caller frees it with rfile_free), or a
 * negative enum rfile_err with one line naming the file in err. */
__attribute__((warn_unused_result)) int rfile_read(const char *path, struct rfile **out,
                                                   struct buf *err);
void rfile_free(struct rfile *rf);

/* A read-only view of a whole regular file (data is NULL for an empty file). */
struct rfile_map {
    char *data;
    size_t len;
};

/* Maps path. Returns 0, or RFILE_ERR_READ with "PATH: cannot read: reason" in
 * err (a FIFO, a device or a directory is refused without waiting). */
__attribute__((warn_unused_result)) int rfile_map_open(const char *path, struct rfile_map *m,
                                                       struct buf *err);
void rfile_map_close(struct rfile_map *m);

/* A record's text or answer (NULL when absent); a string id's text. */
const char *rfile_text(const struct rfile *rf, uint32_t off);
const char *rfile_str(const struct rfile *rf, uint32_t id);
/* The first message recorded for error code id, or NULL. */
const char *rfile_errmsg(const struct rfile *rf, uint32_t id);

#endif
