/* mcp_rpc: the capped line reader (with look-ahead), parsing and checking of
 * one message, and the writer. */
#include <fcntl.h>
#include <stdio.h>

#include "mcp_rpc.h"
#include "mcp_test.h"

/* Reads every line of input with a cap of max_line and writes what came out
 * as "line|" per line and "LONG|" per overlong one, ending with "EOF". */
static char *read_all(const char *input, size_t n, size_t max_line) {
    int fd = mt_memfile(input, n);
    struct mcp_rpc_in in;
    mcp_rpc_in_init(&in, fd, max_line);
    struct buf out;
    buf_init(&out, BUF_NO_CAP);
    int rc, guard = 0;
    const char *line;
    size_t len;
    while ((rc = mcp_rpc_in_next(&in, &line, &len)) != MCP_RPC_EOF && guard++ < 100) {
        if (rc == MCP_RPC_OK)
            rc = buf_add(&out, line, len) || buf_adds(&out, "|");
        else if (rc == MCP_RPC_ERR_LONG)
            rc = buf_adds(&out, "LONG|");
        CHECK_INT(rc, 0);
    }
    CHECK(buf_adds(&out, "EOF") == 0);
    CHECK_INT(mcp_rpc_in_next(&in, &line, &len), MCP_RPC_EOF); /* and it stays there */
    CHECK(mcp_rpc_in_eof(&in));
    mcp_rpc_in_free(&in);
    close(fd);
    return buf_take(&out);
}

static const struct reader_case {
    const char *name, *in;
    size_t max;
    const char *want;
} reader_cases[] = {
    {"lines_and_empty_lines", "a\nbb\n\nccc\n", 8, "a|bb||ccc|EOF"},
    {"last_line_without_newline", "a\nccc", 8, "a|ccc|EOF"},
    {"line_of_exactly_the_cap", "1234\n12345\n", 4, "1234|LONG|EOF"},
    {"overlong_lines_skipped_to_their_newline", "12345\nab\n123456789012345678\nxy", 4,
     "LONG|ab|LONG|xy|EOF"},
    {"overlong_last_line_without_newline", "ok\n123456789", 4, "ok|LONG|EOF"},
    {"carriage_returns_stay_in_the_line", "a\r\nb\n", 4, "a\r|b|EOF"},
    {"empty_input", "", 4, "EOF"},
};

static void test_reader_cases(void) {
    for (size_t i = 0; i < sizeof reader_cases / sizeof reader_cases[0]; i++) {
        const struct reader_case *c = &reader_cases[i];
        char *got = read_all(c->in, strlen(c->in), c->max);
        if (strcmp(got, c->want) != 0) fprintf(stderr, "-- reader case %s\n", c->name);
        CHECK_STR(got, c->want);
        free(got);
    }
}

/* A line longer than one read (64 KiB) under the default cap comes whole. */
static void test_reader_long_line_under_the_default_cap(void) {
    size_t n = 200000;
    char *in = malloc(n + 3);
    memset(in, 'x', n);
    memcpy(in + n, "\ny", 3);
    int fd = mt_memfile(in, n + 2);
    struct mcp_rpc_in r;
    mcp_rpc_in_init(&r, fd, 0);
    const char *line;
    size_t len;
    CHECK_INT(mcp_rpc_in_next(&r, &line, &len), MCP_RPC_OK);
    CHECK_INT(len, n);
    CHECK(len == n && memcmp(line, in, n) == 0);
    CHECK_INT(mcp_rpc_in_next(&r, &line, &len), MCP_RPC_OK);
    CHECK(len == 1 && line[0] == 'y');
    CHECK(r.data.cap <= 2 * (MCP_RPC_MAX_LINE_DEFAULT + 2)); /* the buffer stays capped */
    mcp_rpc_in_free(&r);
    close(fd);
    free(in);
}

/* The look-ahead a tool call uses to see its cancellation: peek sees the
 * complete lines after the current one, poll reads more without blocking,
 * and next still returns every line in order. */
static void test_reader_poll_and_peek(void) {
    int p[2];
    CHECK(pipe(p) == 0);
    struct mcp_rpc_in in;
    mcp_rpc_in_init(&in, p[0], 64);
    const char *line;
    size_t len, cursor = 0;
    CHECK(write(p[1], "one\ntw", 6) == 6);
    CHECK_INT(mcp_rpc_in_next(&in, &line, &len), MCP_RPC_OK);
    CHECK(len == 3 && memcmp(line, "one", 3) == 0);
    CHECK(!mcp_rpc_in_peek(&in, &cursor, &line, &len)); /* "tw" is not a line yet */
    CHECK_INT(mcp_rpc_in_poll(&in), MCP_RPC_OK);        /* nothing more: returns at once */
    CHECK(write(p[1], "o\nthree\nfo", 10) == 10);
    CHECK_INT(mcp_rpc_in_poll(&in), MCP_RPC_OK);
    CHECK(mcp_rpc_in_peek(&in, &cursor, &line, &len));
    CHECK(len == 3 && memcmp(line, "two", 3) == 0);
    CHECK(mcp_rpc_in_peek(&in, &cursor, &line, &len));
    CHECK(len == 5 && memcmp(line, "three", 5) == 0);
    CHECK(!mcp_rpc_in_peek(&in, &cursor, &line, &len));
    CHECK(write(p[1], "ur\n", 3) == 3);
    close(p[1]);
    CHECK_INT(mcp_rpc_in_poll(&in), MCP_RPC_OK);
    CHECK(mcp_rpc_in_eof(&in));
    CHECK(mcp_rpc_in_peek(&in, &cursor, &line, &len)); /* the cursor survived the poll */
    CHECK(len == 4 && memcmp(line, "four", 4) == 0);
    const char *want[] = {"two", "three", "four"};
    for (int i = 0; i < 3; i++) {
        CHECK_INT(mcp_rpc_in_next(&in, &line, &len), MCP_RPC_OK);
        CHECK(len == strlen(want[i]) && memcmp(line, want[i], len) == 0);
    }
    CHECK_INT(mcp_rpc_in_next(&in, &line, &len), MCP_RPC_EOF);
    mcp_rpc_in_free(&in);
    close(p[0]);
}

/* poll never lets the buffer pass the cap, however much is waiting. */
static void test_reader_poll_stays_under_the_cap(void) {
    char big[1000];
    memset(big, 'z', sizeof big);
    int fd = mt_memfile(big, sizeof big);
    struct mcp_rpc_in in;
    mcp_rpc_in_init(&in, fd, 16);
    CHECK_INT(mcp_rpc_in_poll(&in), MCP_RPC_OK);
    CHECK(in.data.len - in.head <= 17);
    const char *line;
    size_t len;
    CHECK_INT(mcp_rpc_in_next(&in, &line, &len), MCP_RPC_ERR_LONG);
    CHECK_INT(mcp_rpc_in_next(&in, &line, &len), MCP_RPC_EOF);
    mcp_rpc_in_free(&in);
    close(fd);
}

static const struct parse_case {
    const char *in;
    size_t len; /* 0: strlen */
    int rc;
    const char *want; /* compact JSON, or NULL for no value */
} parse_cases[] = {
    {" {\"a\":1} \r", 0, MCP_RPC_OK, "{\"a\":1}"},
    {"[1,2]", 0, MCP_RPC_OK, "[1,2]"},
    {"  \t ", 0, MCP_RPC_OK, NULL},
    {"", 0, MCP_RPC_OK, NULL},
    {"{\"a\":1} x", 0, MCP_RPC_ERR_PARSE, NULL},
    {"{\"a\":1}{}", 0, MCP_RPC_ERR_PARSE, NULL},
    {"{\"a\":", 0, MCP_RPC_ERR_PARSE, NULL},
    {"{\"a\":1}\0", 8, MCP_RPC_ERR_PARSE, NULL}, /* a NUL is not white space */
    {"\"\xc3\xa9\xf0\x9f\x98\x80\"", 0, MCP_RPC_OK, "\"\xc3\xa9\xf0\x9f\x98\x80\""},
    {"\"\xff\"", 0, MCP_RPC_ERR_PARSE, NULL},             /* not UTF-8 */
    {"\"\xc0\xaf\"", 0, MCP_RPC_ERR_PARSE, NULL},         /* overlong form */
    {"\"\xed\xa0\x80\"", 0, MCP_RPC_ERR_PARSE, NULL},     /* a surrogate */
    {"\"\xf4\x90\x80\x80\"", 0, MCP_RPC_ERR_PARSE, NULL}, /* past U+10FFFF */
    {"\"\xe2\x82\"", 0, MCP_RPC_ERR_PARSE, NULL},         /* cut short */
    /* a NUL in a string is kept as C0 80 for mcp_schema, not a cut */
    {"\"team-prod\\u0000-scratch\"", 0, MCP_RPC_OK, "\"team-prod\xc0\x80-scratch\""},
    {"{\"k\\u0000x\":1}", 0, MCP_RPC_OK,
     "{\"k\xc0\x80"
     "x\":1}"},
    {"\"a\0b\"", 5, MCP_RPC_OK,
     "\"a\xc0\x80"
     "b\""},
    {"\"a\\\\u0000b\"", 0, MCP_RPC_OK, "\"a\\\\u0000b\""}, /* an escaped backslash */
    {"\"a\\u00001\"", 0, MCP_RPC_OK,
     "\"a\xc0\x80"
     "1\""},
};

static void test_parse(void) {
    for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
        const struct parse_case *c = &parse_cases[i];
        cJSON *v = NULL;
        int rc = mcp_rpc_parse(c->in, c->len ? c->len : strlen(c->in), &v);
        if (rc != c->rc) fprintf(stderr, "-- parse case %zu\n", i);
        CHECK_INT(rc, c->rc);
        char *got = v ? cJSON_PrintUnformatted(v) : NULL;
        if (c->want)
            CHECK_STR(got, c->want);
        else
            CHECK(got == NULL);
        cJSON_free(got);
        cJSON_Delete(v);
    }
}

static const struct check_case {
    const char *json; /* single quotes */
    int rc, kind;
    const char *id;  /* the id read, compact JSON, or NULL */
    const char *why; /* for MCP_RPC_ERR_INVALID */
} check_cases[] = {
    {"{'jsonrpc':'2.0','id':1,'method':'m'}", MCP_RPC_OK, MCP_RPC_REQUEST, "1", NULL},
    {"{'jsonrpc':'2.0','id':'x','method':'m','params':{}}", MCP_RPC_OK, MCP_RPC_REQUEST, "'x'",
     NULL},
    {"{'jsonrpc':'2.0','id':-7,'method':'m'}", MCP_RPC_OK, MCP_RPC_REQUEST, "-7", NULL},
    {"{'jsonrpc':'2.0','id':2.0,'method':'m'}", MCP_RPC_OK, MCP_RPC_REQUEST, "2", NULL},
    {"{'jsonrpc':'2.0','method':'m'}", MCP_RPC_OK, MCP_RPC_NOTIFICATION, NULL, NULL},
    {"{'jsonrpc':'2.0','id':3,'result':{}}", MCP_RPC_OK, MCP_RPC_RESPONSE, "3", NULL},
    {"{'jsonrpc':'2.0','id':3,'error':{'code':1,'message':'m'}}", MCP_RPC_OK, MCP_RPC_RESPONSE, "3",
     NULL},
    {"{'jsonrpc':'2.0','id':null,'method':'m'}", MCP_RPC_ERR_INVALID, 0, NULL,
     "id must be a string or an integer"},
    {"{'jsonrpc':'2.0','id':0.5,'method':'m'}", MCP_RPC_ERR_INVALID, 0, NULL,
     "id must be a string or an integer"},
    {"{'jsonrpc':'2.0','id':[1],'method':'m'}", MCP_RPC_ERR_INVALID, 0, NULL,
     "id must be a string or an integer"},
    {"{'jsonrpc':2,'id':4,'method':'m'}", MCP_RPC_ERR_INVALID, 0, "4", "jsonrpc must be \"2.0\""},
    {"{'id':4,'method':'m'}", MCP_RPC_ERR_INVALID, 0, "4", "jsonrpc must be \"2.0\""},
    {"{'jsonrpc':'2.0','id':4,'method':null}", MCP_RPC_ERR_INVALID, 0, "4",
     "method must be a string"},
    {"{'jsonrpc':'2.0','id':4,'method':'m','params':'p'}", MCP_RPC_ERR_INVALID, 0, "4",
     "params must be an object"},
    {"{'jsonrpc':'2.0','method':'m','params':[1]}", MCP_RPC_ERR_INVALID, 0, NULL,
     "params must be an object"},
    {"{'jsonrpc':'2.0','id':5}", MCP_RPC_ERR_INVALID, 0, "5", "a request needs a method"},
    {"{'jsonrpc':'2.0','result':{}}", MCP_RPC_ERR_INVALID, 0, NULL, "a request needs a method"},
    {"[]", MCP_RPC_ERR_INVALID, 0, NULL, "a message must be a JSON object"},
    {"'s'", MCP_RPC_ERR_INVALID, 0, NULL, "a message must be a JSON object"},
};

static void test_check(void) {
    for (size_t i = 0; i < sizeof check_cases / sizeof check_cases[0]; i++) {
        const struct check_case *c = &check_cases[i];
        char *text = mt_q(c->json);
        cJSON *v = cJSON_Parse(text);
        struct mcp_rpc_msg m;
        const char *why = "unset";
        int rc = mcp_rpc_check(v, &m, &why);
        if (rc != c->rc) fprintf(stderr, "-- check case %s\n", text);
        CHECK_INT(rc, c->rc);
        if (rc == MCP_RPC_OK)
            CHECK_INT(m.kind, c->kind);
        else
            CHECK_STR(why, c->why);
        char *id = m.id ? cJSON_PrintUnformatted(m.id) : NULL;
        char *want = c->id ? mt_q(c->id) : NULL;
        if (want)
            CHECK_STR(id, want);
        else
            CHECK(id == NULL);
        if (rc == MCP_RPC_OK && c->kind != MCP_RPC_RESPONSE) CHECK_STR(m.method, "m");
        cJSON_free(id);
        free(want);
        free(text);
        cJSON_Delete(v);
    }
}

/* Each message is one line; a string's newlines are escaped; an unreadable
 * id is left out; a batch collects responses but not notifications. */
static void test_writer(void) {
    int fd = mt_memfile("", 0);
    struct mcp_rpc_out out = {.fd = fd};
    cJSON *id = cJSON_CreateNumber(12);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "text", "two\nlines\r\x01");
    CHECK_INT(mcp_rpc_result(&out, id, r), MCP_RPC_OK);
    CHECK_INT(mcp_rpc_error(&out, NULL, MCP_RPC_PARSE_ERROR, "Parse error", NULL), MCP_RPC_OK);
    out.batch = cJSON_CreateArray();
    CHECK_INT(mcp_rpc_error(&out, id, -32601, "no", cJSON_CreateString("d")), MCP_RPC_OK);
    CHECK_INT(mcp_rpc_notify(&out, "notifications/progress", NULL), MCP_RPC_OK);
    CHECK_INT(mcp_rpc_result(&out, id, cJSON_CreateObject()), MCP_RPC_OK);
    CHECK_INT(mcp_rpc_write(fd, out.batch), MCP_RPC_OK);
    cJSON_Delete(out.batch);
    cJSON_Delete(id);
    char *got = mt_slurp(fd);
    char *want =
        mt_q("{'jsonrpc':'2.0','id':12,'result':{'text':'two\\nlines\\r\\u0001'}}\n"
             "{'jsonrpc':'2.0','error':{'code':-32700,'message':'Parse error'}}\n"
             "{'jsonrpc':'2.0','method':'notifications/progress'}\n"
             "[{'jsonrpc':'2.0','id':12,'error':{'code':-32601,'message':'no','data':'d'}},"
             "{'jsonrpc':'2.0','id':12,'result':{}}]\n");
    CHECK_STR(got, want);
    free(got);
    free(want);
    close(fd);
    /* A write that fails says so. */
    int ro = open("/dev/null", O_RDONLY);
    cJSON *one = cJSON_CreateObject();
    CHECK_INT(mcp_rpc_write(ro, one), MCP_RPC_ERR_IO);
    cJSON_Delete(one);
    close(ro);
}

int main(void) {
    test_reader_cases();
    test_reader_long_line_under_the_default_cap();
    test_reader_poll_and_peek();
    test_reader_poll_stays_under_the_cap();
    test_parse();
    test_check();
    test_writer();
    return check_exit();
}
