#include "smerr.h"

#include <string.h>

#include "jsonw.h"

int smerr_message(struct buf *out, const char *message) {
    int rc = buf_adds(out, "{\"message\":");
    if (!rc) rc = jsonw_cstr(out, message);
    return rc ? rc : buf_addc(out, '}');
}

/* The ModelError's "Message": a sentence around the container's body. */
static int smerr_model_message(struct buf *msg, const char *region, const char *account,
                               const char *endpoint, int orig_status, const char *orig,
                               size_t orig_len) {
    const char *side = orig_status >= 400 && orig_status < 500 ? "client" : "server";
    return buf_addf(msg,
                    "Received %s error (%d) from primary with message \"%.*s\". See "
                    "https://%s.console.aws.amazon.com/cloudwatch/home?region=%s"
                    "#logEventViewer:group=/aws/sagemaker/Endpoints/%s in account %s for "
                    "more information.",
                    side, orig_status, (int)orig_len, orig, region, region, endpoint, account);
}

int smerr_model(struct buf *out, const char *region, const char *account, const char *endpoint,
                int orig_status, const char *orig, size_t orig_len) {
    struct buf msg, arn;
    buf_init(&msg, BUF_NO_CAP);
    buf_init(&arn, BUF_NO_CAP);
    int rc = smerr_model_message(&msg, region, account, endpoint, orig_status, orig, orig_len);
    if (!rc)
        rc = buf_addf(&arn, "arn:aws:logs:%s:%s:log-group:/aws/sagemaker/Endpoints/%s", region,
                      account, endpoint);
    if (!rc)
        rc = buf_addf(out, "{\"ErrorCode\":\"%s_ERROR_FROM_MODEL\",\"LogStreamArn\":",
                      orig_status >= 400 && orig_status < 500 ? "CLIENT" : "SERVER");
    if (!rc) rc = jsonw_str(out, buf_str(&arn), arn.len);
    if (!rc) rc = buf_adds(out, ",\"Message\":");
    if (!rc) rc = jsonw_str(out, buf_str(&msg), msg.len);
    if (!rc) rc = buf_adds(out, ",\"OriginalMessage\":");
    if (!rc) rc = jsonw_str(out, orig, orig_len);
    if (!rc) rc = buf_addf(out, ",\"OriginalStatusCode\":%d}", orig_status);
    buf_free(&msg);
    buf_free(&arn);
    return rc;
}

/* "ThrottlingException" -> "throttling"; "ModelError" -> "model_error". */
static int smerr_snake(struct buf *out, const char *type) {
    size_t n = strlen(type), k = strlen("Exception");
    if (n > k && strcmp(type + n - k, "Exception") == 0) n -= k;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char c = type[i];
        if (c >= 'A' && c <= 'Z') {
            if (i > 0) rc = buf_addc(out, '_');
            c = (char)(c - 'A' + 'a');
        }
        if (!rc) rc = buf_addc(out, c);
    }
    return rc;
}

int smerr_openai(struct buf *out, int status, const char *sm_type, const char *code,
                 const char *message) {
    struct buf snake;
    buf_init(&snake, BUF_NO_CAP);
    int rc = !code && sm_type ? smerr_snake(&snake, sm_type) : 0;
    if (!code && sm_type && !rc) code = buf_str(&snake);
    if (!rc) rc = buf_adds(out, "{\"error\":{\"message\":");
    if (!rc) rc = jsonw_cstr(out, message ? message : "");
    if (!rc)
        rc = buf_addf(out, ",\"type\":\"%s\",\"param\":null,\"code\":",
                      status < 500 ? "invalid_request_error" : "server_error");
    if (!rc) rc = jsonw_cstr(out, code);
    if (!rc) rc = buf_adds(out, "}}");
    buf_free(&snake);
    return rc;
}

int smerr_openai_model(struct buf *out, const char *region, const char *account,
                       const char *endpoint, int orig_status, const char *orig, size_t orig_len) {
    struct buf msg;
    buf_init(&msg, BUF_NO_CAP);
    int rc = smerr_model_message(&msg, region, account, endpoint, orig_status, orig, orig_len);
    if (!rc) rc = smerr_openai(out, 424, "ModelError", NULL, buf_str(&msg));
    buf_free(&msg);
    return rc;
}

const char *smerr_read_why(int rd, const char *too_large) {
    if (rd == BUF_ERR_CAP) return too_large;
    return rd > 0 ? strerror(rd) : "out of memory";
}

const char *smerr_reason(int status) {
    static const struct {
        int status;
        const char *reason;
    } reasons[] = {
        {100, "Continue"},
        {200, "OK"},
        {400, "Bad Request"},
        {403, "Forbidden"},
        {404, "Not Found"},
        {405, "Method Not Allowed"},
        {408, "Request Timeout"},
        {411, "Length Required"},
        {413, "Payload Too Large"},
        {415, "Unsupported Media Type"},
        {422, "Unprocessable Entity"},
        {424, "Failed Dependency"},
        {429, "Too Many Requests"},
        {431, "Request Header Fields Too Large"},
        {500, "Internal Server Error"},
        {503, "Service Unavailable"},
    };
    for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
        if (reasons[i].status == status) return reasons[i].reason;
    return "Unknown";
}
