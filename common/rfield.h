/* rfield: the one owner of a result record's fields (docs/result-format.md,
 * Records): their names, and a table of each field's name, JSON type, unit and
 * meaning. The recorder writes records with these names (plugin/record.c),
 * sm-compare reads them (results/rfile.c) and sm-suite's rate reader too
 * (suite/suite_rate.c); nothing else in C spells a record field's name
 * (tests/common/test_rfield_literals.py), and the table is the document's
 * (tests/common/test_rfield_doc.py). The names are macros, so that a writer
 * can paste them into its literals: JSONW_PUT(p, ",\"" RFIELD_SEQ "\":").
 * A new field: a name here, a row in rfield.c, a row in the document. */
#ifndef SM_RFIELD_H
#define SM_RFIELD_H

#include <stddef.h>

/* The fields, in the order the recorder writes them. */
#define RFIELD_SEQ               "seq"
#define RFIELD_THREAD            "thread"
#define RFIELD_ENDPOINT          "endpoint"
#define RFIELD_VARIANT           "variant"
#define RFIELD_PHASE             "phase"
#define RFIELD_BATCH             "batch"
#define RFIELD_QUESTION          "question"
#define RFIELD_KIND              "kind"
#define RFIELD_MAX_TOKENS        "max_tokens"
#define RFIELD_PROMPT_TOKENS     "prompt_tokens"
#define RFIELD_COMPLETION_TOKENS "completion_tokens"
#define RFIELD_REASONING_TOKENS  "reasoning_tokens"
#define RFIELD_FINISH_REASON     "finish_reason"
#define RFIELD_STATUS            "status"
#define RFIELD_OK                "ok"
#define RFIELD_ERROR             "error"
#define RFIELD_T_START_US        "t_start_us"
#define RFIELD_T_END_US          "t_end_us"
#define RFIELD_WALL_START_US     "wall_start_us"
#define RFIELD_SERVER_US         "server_us"
#define RFIELD_T_INTENDED_US     "t_intended_us"
#define RFIELD_TEXT              "text"
#define RFIELD_ANSWER            "answer"
#define RFIELD_CORRECT           "correct"
#define RFIELD_TURN              "turn"
#define RFIELD_SESSION           "session"
#define RFIELD_T_HEADERS_US      "t_headers_us"
#define RFIELD_T_FIRST_TOKEN_US  "t_first_token_us"
#define RFIELD_T_FIRST_OUTPUT_US "t_first_output_us"
#define RFIELD_CHUNKS            "chunks"
#define RFIELD_CHUNKS_RECEIVED   "chunks_received"
#define RFIELD_CHUNK_GAPS_US     "chunk_gaps_us"
#define RFIELD_ITL_UNIT          "itl_unit"
#define RFIELD_CHUNK_TOKENS      "chunk_tokens"

/* The members of a record's error object, and the values of itl_unit. */
#define RFIELD_ERROR_CODE            "code"
#define RFIELD_ERROR_MESSAGE         "message"
#define RFIELD_ERROR_ORIGINAL_STATUS "original_status"
#define RFIELD_ITL_TOKEN             "token"
#define RFIELD_ITL_CHUNK             "chunk"

/* One field as the document's table describes it. */
struct rfield_row {
    const char *name;    /* RFIELD_... */
    const char *type;    /* its JSON type, as the document writes it: "integer or null" */
    const char *unit;    /* "microseconds", "tokens", "chunks", or NULL: none */
    const char *meaning; /* one line */
};

/* The fields, in the order the recorder writes them; *n their count. */
const struct rfield_row *rfield_all(size_t *n);

#endif
