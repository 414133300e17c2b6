#include "mcp_tool.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

bool mcp_tool_destructive(const struct mcp_tool *t) {
    return t->annotations.read_only != MCP_TOOL_HINT_YES &&
           t->annotations.destructive != MCP_TOOL_HINT_NO;
}

bool mcp_tool_needs_confirm(const struct mcp_tool *t) {
    return t->annotations.read_only != MCP_TOOL_HINT_YES;
}

int mcp_tool_call_init(struct mcp_tool_call *call) {
    memset(call, 0, sizeof *call);
    call->content = cJSON_CreateArray();
    return call->content ? MCP_TOOL_OK : MCP_TOOL_INTERNAL;
}

void mcp_tool_call_free(struct mcp_tool_call *call) {
    cJSON_Delete(call->content);
    cJSON_Delete(call->structured);
    call->content = call->structured = NULL;
}

int mcp_tool_text_n(struct mcp_tool_call *call, const char *text, size_t len) {
    char *copy = malloc(len + 1);
    cJSON *block = cJSON_CreateObject();
    int rc = MCP_TOOL_INTERNAL;
    if (!copy || !block || !cJSON_AddStringToObject(block, "type", "text")) goto out;
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (!cJSON_AddStringToObject(block, "text", copy)) goto out;
    cJSON_AddItemToArray(call->content, block);
    block = NULL;
    rc = MCP_TOOL_OK;
out:
    free(copy);
    cJSON_Delete(block);
    return rc;
}

static int mcp_tool_text_v(struct mcp_tool_call *call, const char *fmt, va_list ap) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    int rc = buf_vaddf(&b, fmt, ap) ? MCP_TOOL_INTERNAL : mcp_tool_text_n(call, buf_str(&b), b.len);
    buf_free(&b);
    return rc;
}

int mcp_tool_text(struct mcp_tool_call *call, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = mcp_tool_text_v(call, fmt, ap);
    va_end(ap);
    return rc;
}

int mcp_tool_fail(struct mcp_tool_call *call, const char *fmt, ...) {
    while (cJSON_GetArraySize(call->content)) cJSON_DeleteItemFromArray(call->content, 0);
    cJSON_Delete(call->structured);
    call->structured = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = mcp_tool_text_v(call, fmt, ap);
    va_end(ap);
    return rc ? rc : MCP_TOOL_FAILED;
}

int mcp_tool_structured(struct mcp_tool_call *call, cJSON *obj) {
    if (!cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        return MCP_TOOL_INTERNAL;
    }
    cJSON_Delete(call->structured);
    call->structured = obj;
    return MCP_TOOL_OK;
}

int mcp_tool_progress(struct mcp_tool_call *call, double progress, double total,
                      const char *message) {
    if (!call->progress_token || !call->notify || !isfinite(progress)) return MCP_TOOL_OK;
    if (call->progressed && !(progress > call->last_progress)) return MCP_TOOL_OK;
    cJSON *p = cJSON_CreateObject();
    cJSON *token = cJSON_Duplicate(call->progress_token, 0);
    if (!p || !token) goto nomem;
    cJSON_AddItemToObject(p, "progressToken", token);
    token = NULL;
    if (!cJSON_AddNumberToObject(p, "progress", progress)) goto nomem;
    if (total >= 0 && !cJSON_AddNumberToObject(p, "total", total)) goto nomem;
    if (message && call->progress_message && !cJSON_AddStringToObject(p, "message", message))
        goto nomem;
    call->progressed = true;
    call->last_progress = progress;
    return call->notify(call->io, "notifications/progress", p) ? MCP_TOOL_INTERNAL : MCP_TOOL_OK;
nomem:
    cJSON_Delete(p);
    cJSON_Delete(token);
    return MCP_TOOL_INTERNAL;
}

bool mcp_tool_cancelled(struct mcp_tool_call *call) {
    return call->cancelled && call->cancelled(call->io);
}

bool mcp_tool_input_ended(struct mcp_tool_call *call) {
    return call->input_ended && call->input_ended(call->io);
}

const char *mcp_tool_version(const struct mcp_tool_call *call) {
    return call->version;
}

size_t mcp_tool_count(const struct mcp_tool_call *call) {
    return call->ntools;
}

const struct mcp_tool *mcp_tool_at(const struct mcp_tool_call *call, size_t i) {
    return i < call->ntools ? call->tools[i] : NULL;
}
