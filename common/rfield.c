#include "rfield.h"

#define RFIELD_US  "microseconds"
#define RFIELD_TOK "tokens"

/* The document's record tables (docs/result-format.md, Records), row by row. */
static const struct rfield_row rfield_table[] = {
    {RFIELD_SEQ, "integer", NULL, "completion order within the run, across all endpoints"},
    {RFIELD_THREAD, "integer", NULL, "the sender (a wrk thread, an sm-stream sender)"},
    {RFIELD_ENDPOINT, "string", NULL, "the endpoint's name"},
    {RFIELD_VARIANT, "string or null", NULL, "the target variant"},
    {RFIELD_PHASE, "string", NULL, "the scenario's phase"},
    {RFIELD_BATCH, "integer", NULL, "the repetition, batch, round or rate the request belongs to"},
    {RFIELD_QUESTION, "string or null", NULL, "the quiz question's id"},
    {RFIELD_KIND, "string or null", NULL, "the quiz question's kind"},
    {RFIELD_MAX_TOKENS, "integer", RFIELD_TOK, "the tokens asked for"},
    {RFIELD_PROMPT_TOKENS, "integer or null", RFIELD_TOK, "the prompt's tokens, as the reply said"},
    {RFIELD_COMPLETION_TOKENS, "integer or null", RFIELD_TOK,
     "the generated tokens (reasoning included), as the reply said"},
    {RFIELD_REASONING_TOKENS, "integer", RFIELD_TOK,
     "the reasoning tokens among completion_tokens; absent: none said or seen"},
    {RFIELD_FINISH_REASON, "string or null", NULL, "why the generation stopped, as the reply said"},
    {RFIELD_STATUS, "integer", NULL, "the HTTP status; 0 when no reply arrived"},
    {RFIELD_OK, "boolean", NULL, "the request counts as a measurement"},
    {RFIELD_ERROR, "null or object", NULL, "why it failed: code, message, original_status"},
    {RFIELD_T_START_US, "integer", RFIELD_US, "when it left, on the run's monotonic clock"},
    {RFIELD_T_END_US, "integer", RFIELD_US, "when its reply ended, on the run's monotonic clock"},
    {RFIELD_WALL_START_US, "integer", RFIELD_US, "the wall clock at the start, since the epoch"},
    {RFIELD_SERVER_US, "integer", "model microseconds",
     "sm-emulator's service time up to the reply's head"},
    {RFIELD_T_INTENDED_US, "integer", RFIELD_US, "an open-loop request's intended start"},
    {RFIELD_TEXT, "string", NULL, "quiz: the stripped reply"},
    {RFIELD_ANSWER, "string", NULL, "quiz: the expected answer"},
    {RFIELD_CORRECT, "boolean", NULL, "quiz: the pattern matched the reply"},
    {RFIELD_TURN, "integer", NULL, "a conversation's turn, from 1"},
    {RFIELD_SESSION, "string", NULL, "the sticky session the request was sent in"},
    {RFIELD_T_HEADERS_US, "integer", RFIELD_US, "a streamed reply's headers arrived"},
    {RFIELD_T_FIRST_TOKEN_US, "integer or null", RFIELD_US,
     "a streamed reply's first chunk of content or reasoning arrived"},
    {RFIELD_T_FIRST_OUTPUT_US, "integer or null", RFIELD_US,
     "a reasoning reply's first answer chunk arrived"},
    {RFIELD_CHUNKS, "integer", "chunks", "a streamed reply's chunks of content or reasoning"},
    {RFIELD_CHUNKS_RECEIVED, "integer", "chunks", "the chunks that came, when more than kept"},
    {RFIELD_CHUNK_GAPS_US, "array of integers", RFIELD_US, "the time between consecutive chunks"},
    {RFIELD_ITL_UNIT, "\"" RFIELD_ITL_TOKEN "\" or \"" RFIELD_ITL_CHUNK "\"", NULL,
     "what one gap of chunk_gaps_us is per: a token or a chunk"},
    {RFIELD_CHUNK_TOKENS, "array of integers", RFIELD_TOK, "each chunk's tokens"},
};

const struct rfield_row *rfield_all(size_t *n) {
    *n = sizeof rfield_table / sizeof rfield_table[0];
    return rfield_table;
}
