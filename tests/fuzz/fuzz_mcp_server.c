/* Fuzzes sm-mcp's message reader and JSON-RPC validator through whole
 * sessions: the input is what a client writes to the server's stdin (lines
 * of at most 256 bytes here, so the overlong-line path is near). The server
 * has the real tools (registered without their AWS context: those that would
 * reach AWS or run a program answer with an isError result) plus a
 * destructive one and one that reports progress and polls for its
 * cancellation.
 * Invariants: the session ends cleanly at the end of the input, and every
 * line written is one JSON-RPC 2.0 message object (or a batch array of them)
 * with no embedded newline. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mcp_server.h"
#include "tools.h"

static int wipe(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)user;
    return mcp_tool_text(call, "wiped %s", cJSON_GetObjectItem(args, "name")->valuestring);
}

/* What wipe would do, without "confirm": true. */
static int wipe_preview(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)user;
    return mcp_tool_text(call, "wipe %s", cJSON_GetObjectItem(args, "name")->valuestring);
}

static int slow(const cJSON *args, struct mcp_tool_call *call, void *user) {
    (void)args, (void)user;
    for (int i = 1; i <= 3; i++) {
        if (mcp_tool_cancelled(call)) return MCP_TOOL_CANCELLED;
        int rc = mcp_tool_progress(call, i, 3, "step");
        if (rc) return rc;
    }
    return mcp_tool_text(call, "done");
}

static const struct mcp_tool t_wipe = {
    .name = "wipe",
    .description = "Wipes.",
    .input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
                    "\"confirm\":{\"type\":\"boolean\"}},\"required\":[\"name\"],"
                    "\"additionalProperties\":false}",
    .call = wipe,
    .preview = wipe_preview,
};
static const struct mcp_tool t_slow = {
    .name = "slow",
    .description = "Slow.",
    .input_schema = "{\"type\":\"object\",\"additionalProperties\":false}",
    .annotations = {.read_only = MCP_TOOL_HINT_YES},
    .call = slow,
};

static struct mcp_server *server(void) {
    static const struct mcp_server_info info = {.name = "fuzz", .version = "0"};
    static struct mcp_server *s;
    if (s) return s;
    struct buf err;
    buf_init(&err, 1024);
    s = mcp_server_new(&info);
    if (!s || tools_register(s, NULL, &err) || mcp_server_add(s, &t_wipe, NULL, &err) ||
        mcp_server_add(s, &t_slow, NULL, &err)) {
        fprintf(stderr, "fuzz_mcp_server: %s\n", buf_str(&err));
        abort();
    }
    buf_free(&err);
    mcp_server_set_max_line(s, 256);
    mcp_server_set_page_size(s, 1);
    return s;
}

static bool message_ok(const cJSON *m) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "jsonrpc");
    return cJSON_IsObject(m) && cJSON_IsString(v) && strcmp(v->valuestring, "2.0") == 0;
}

static void check_output(const char *out, size_t n) {
    const char *p = out, *end = out + n;
    if (n && out[n - 1] != '\n') abort(); /* every message ends its line */
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        cJSON *m = cJSON_ParseWithLength(p, (size_t)(nl - p));
        bool ok = message_ok(m);
        if (cJSON_IsArray(m)) {
            const cJSON *e;
            ok = cJSON_GetArraySize(m) > 0;
            cJSON_ArrayForEach(e, m) ok = ok && message_ok(e);
        }
        cJSON_Delete(m);
        if (!ok) abort();
        p = nl + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int in = memfd_create("fuzz-in", 0), out = memfd_create("fuzz-out", 0);
    if (in < 0 || out < 0 || (size && write(in, data, size) != (ssize_t)size)) abort();
    lseek(in, 0, SEEK_SET);
    struct buf err;
    buf_init(&err, 1024);
    if (mcp_server_run(server(), in, out, &err) != MCP_SERVER_OK) abort();
    buf_free(&err);
    off_t n = lseek(out, 0, SEEK_END);
    char *text = malloc((size_t)n + 1);
    if (!text || pread(out, text, (size_t)n, 0) != n) abort();
    check_output(text, (size_t)n);
    free(text);
    close(in);
    close(out);
    return 0;
}
