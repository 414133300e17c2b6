/* rfield: the one owner of a result record's fields (docs/result-format.md,
 * Records): their names, and a table of each field's name, JSON type, unit and
 * meaning. The recorder writes records with these names (plugin/record.c),
 * sm-compare reads them (results/read/rfile.c) and sm-suite's rate reader too
 * (suite/suite_rate.c); nothing else in C spells a record field's name
 * (tests/common/test_rfield_literals.py), and the table is the document's
 * (tests/common/test_rfield_doc.py). The names are macros, so that a writer
 * can paste them into its literals: JSONW_PUT(p, ",\"" RFIELD_SEQ "\":").
 * A new field: its name and its row here, and its row in the document. */
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
#define RFIELD_CACHED_TOKENS     "cached_tokens"
#define RFIELD_FINISH_REASON     "finish_reason"
#define RFIELD_STATUS            "status"
#define RFIELD_OK                "ok"
#define RFIELD_ERROR             "error"
#define RFIELD_T_START_US        "t_start_us"
#define RFIELD_T_END_US          "t_end_us"
#define RFIELD_WALL_START_US     "wall_start_us"
#define RFIELD_SERVER_US         "server_us"
#define RFIELD_T_INTENDED_US     "t_intended_us"
#define RFIELD_CONNECT_US        "connect_us"
#define RFIELD_TLS_US            "tls_us"
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

/* The members of a record's error object, the values of itl_unit, and a phase's. */
#define RFIELD_ERROR_CODE            "code"
#define RFIELD_ERROR_MESSAGE         "message"
#define RFIELD_ERROR_ORIGINAL_STATUS "original_status"
#define RFIELD_ITL_TOKEN             "token"
#define RFIELD_ITL_CHUNK             "chunk"
/* error.code of a call an inference component refused for having no copy serving (a 400
 * ValidationError "... has no capacity to process this request ..."), both engines'. */
#define RFIELD_ERROR_NO_CAPACITY "no_capacity"
/* The phase of a warm-up request (a scenario's --warmup): in no figure. */
#define RFIELD_PHASE_WARMUP "warmup"

/* The largest server_us (model microseconds): 0 to this is in range. */
#define RFIELD_SERVER_US_MAX 100000000000LL

/* Units. */
#define RFIELD_UNIT_NONE     NULL
#define RFIELD_UNIT_US       "microseconds"
#define RFIELD_UNIT_MODEL_US "model microseconds" /* sm-emulator's model clock */
#define RFIELD_UNIT_TOKENS   "tokens"
#define RFIELD_UNIT_CHUNKS   "chunks"

/* The table, in the order the recorder writes the fields: X(name, JSON type as the
 * document writes it, unit, one-line meaning) for each field, a row of the document's
 * record tables (docs/result-format.md, Records). rfield_all gives it as an array. */
#define RFIELD_TABLE(X)                                                                            \
    X(RFIELD_SEQ, "integer", RFIELD_UNIT_NONE,                                                     \
      "completion order within the run, across all endpoints")                                     \
    X(RFIELD_THREAD, "integer", RFIELD_UNIT_NONE,                                                  \
      "the sender (a wrk thread, an sm-stream sender)")                                            \
    X(RFIELD_ENDPOINT, "string", RFIELD_UNIT_NONE, "the endpoint's name")                          \
    X(RFIELD_VARIANT, "string or null", RFIELD_UNIT_NONE, "the target variant")                    \
    X(RFIELD_PHASE, "string", RFIELD_UNIT_NONE, "the scenario's phase")                            \
    X(RFIELD_BATCH, "integer", RFIELD_UNIT_NONE,                                                   \
      "the repetition, batch, round or rate the request belongs to")                               \
    X(RFIELD_QUESTION, "string or null", RFIELD_UNIT_NONE, "the quiz question's id")               \
    X(RFIELD_KIND, "string or null", RFIELD_UNIT_NONE, "the quiz question's kind")                 \
    X(RFIELD_MAX_TOKENS, "integer", RFIELD_UNIT_TOKENS, "the tokens asked for")                    \
    X(RFIELD_PROMPT_TOKENS, "integer or null", RFIELD_UNIT_TOKENS,                                 \
      "the prompt's tokens, as the reply said")                                                    \
    X(RFIELD_COMPLETION_TOKENS, "integer or null", RFIELD_UNIT_TOKENS,                             \
      "the generated tokens (reasoning included), as the reply said")                              \
    X(RFIELD_REASONING_TOKENS, "integer", RFIELD_UNIT_TOKENS,                                      \
      "the reasoning tokens among completion_tokens; absent: none said or seen")                   \
    X(RFIELD_CACHED_TOKENS, "integer", RFIELD_UNIT_TOKENS,                                         \
      "the prompt tokens the server's prefix cache served; absent: not said")                      \
    X(RFIELD_FINISH_REASON, "string or null", RFIELD_UNIT_NONE,                                    \
      "why the generation stopped, as the reply said")                                             \
    X(RFIELD_STATUS, "integer", RFIELD_UNIT_NONE, "the HTTP status; 0 when no reply arrived")      \
    X(RFIELD_OK, "boolean", RFIELD_UNIT_NONE, "the request counts as a measurement")               \
    X(RFIELD_ERROR, "null or object", RFIELD_UNIT_NONE,                                            \
      "why it failed: code, message, original_status")                                             \
    X(RFIELD_T_START_US, "integer", RFIELD_UNIT_US, "when it left, on the run's monotonic clock")  \
    X(RFIELD_T_END_US, "integer", RFIELD_UNIT_US,                                                  \
      "when its reply ended, on the run's monotonic clock")                                        \
    X(RFIELD_WALL_START_US, "integer", RFIELD_UNIT_US,                                             \
      "the wall clock at the start, since the epoch")                                              \
    X(RFIELD_SERVER_US, "integer", RFIELD_UNIT_MODEL_US,                                           \
      "sm-emulator's service time up to the reply's head")                                         \
    X(RFIELD_T_INTENDED_US, "integer", RFIELD_UNIT_US, "an open-loop request's intended start")    \
    X(RFIELD_CONNECT_US, "integer", RFIELD_UNIT_US,                                                \
      "sm-stream: opening its connection took (lookup, TCP); 0: a kept one was reused")            \
    X(RFIELD_TLS_US, "integer", RFIELD_UNIT_US,                                                    \
      "sm-stream: the TLS handshake after the connect; 0: reused, or plain HTTP")                  \
    X(RFIELD_TEXT, "string", RFIELD_UNIT_NONE, "quiz: the stripped reply")                         \
    X(RFIELD_ANSWER, "string", RFIELD_UNIT_NONE, "quiz: the expected answer")                      \
    X(RFIELD_CORRECT, "boolean", RFIELD_UNIT_NONE, "quiz: the pattern matched the reply")          \
    X(RFIELD_TURN, "integer", RFIELD_UNIT_NONE, "a conversation's turn, from 1")                   \
    X(RFIELD_SESSION, "string", RFIELD_UNIT_NONE, "the sticky session the request was sent in")    \
    X(RFIELD_T_HEADERS_US, "integer", RFIELD_UNIT_US, "a streamed reply's headers arrived")        \
    X(RFIELD_T_FIRST_TOKEN_US, "integer or null", RFIELD_UNIT_US,                                  \
      "a streamed reply's first chunk of content or reasoning arrived")                            \
    X(RFIELD_T_FIRST_OUTPUT_US, "integer or null", RFIELD_UNIT_US,                                 \
      "a reasoning reply's first answer chunk arrived")                                            \
    X(RFIELD_CHUNKS, "integer", RFIELD_UNIT_CHUNKS,                                                \
      "a streamed reply's chunks of content or reasoning")                                         \
    X(RFIELD_CHUNKS_RECEIVED, "integer", RFIELD_UNIT_CHUNKS,                                       \
      "the chunks that came, when more than kept")                                                 \
    X(RFIELD_CHUNK_GAPS_US, "array of integers", RFIELD_UNIT_US,                                   \
      "the time between consecutive chunks")                                                       \
    X(RFIELD_ITL_UNIT, "\"" RFIELD_ITL_TOKEN "\" or \"" RFIELD_ITL_CHUNK "\"", RFIELD_UNIT_NONE,   \
      "what one gap of chunk_gaps_us is per: a token or a chunk")                                  \
    X(RFIELD_CHUNK_TOKENS, "array of integers", RFIELD_UNIT_TOKENS, "each chunk's tokens")

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
