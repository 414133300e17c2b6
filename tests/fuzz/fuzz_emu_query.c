/* Fuzzes the emulator's query-protocol services (qproto.h, stssrv.h, iamsrv.h)
 * with the form bodies a client posts. Input: one control byte, then the body.
 * Bits 0-1 of the control byte: which: STS, IAM, or qproto_param alone (a
 * parameter name from bits 4-5, the value's cap from bits 6-7). Bit 2: the
 * Action is the body's first field as the router cuts it (raw bytes up to '&',
 * at most 64, up to a NUL as a C string) instead of the service's operation.
 *
 * Every reply has status 200 or 400 (r->type NULL just when 200) and is a
 * well-formed XML document of the protocol, in valid UTF-8: the operation's
 * response, or an ErrorResponse with a Code. A parameter read stays within its
 * cap, and reading back the percent-encoding of what it decoded gives the same
 * bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emucheck.h"
#include "iamsrv.h"
#include "qproto.h"
#include "stssrv.h"

#define FUZZ_ACCOUNT "123456789012"
#define FUZZ_OP_MAX  64

static void fuzz_reply(const struct cplane_reply *r, const char *root) {
    const char *b = buf_str(&r->body);
    if (r->status == 200) {
        if (r->type) abort();
        emucheck_xml(b, r->body.len, root);
    } else {
        if (r->status != 400 || !r->type || !strstr(b, "<Code>")) abort();
        emucheck_xml(b, r->body.len, "ErrorResponse");
    }
}

/* Decodes name's value in body, then reads it back from the percent-encoding of
 * every byte decoded: the two must agree. */
static void fuzz_param(const char *body, size_t len, const char *name, size_t cap) {
    struct buf out, form, again;
    buf_init(&out, cap);
    buf_init(&form, BUF_NO_CAP);
    buf_init(&again, BUF_NO_CAP);
    int rc = qproto_param(body, len, name, &out);
    if (rc != 1 && rc != 0 && rc != BUF_ERR_CAP && rc != BUF_ERR_NOMEM) abort();
    if (rc == 1) {
        if (out.len > cap || out.len > len) abort();
        int w = buf_addf(&form, "Other=%%41&%s=", name);
        for (size_t i = 0; !w && i < out.len; i++)
            w = buf_addf(&form, "%%%02X", (unsigned char)out.data[i]);
        if (!w && buf_adds(&form, "&Tail=1") == 0 &&
            qproto_param(form.data, form.len, name, &again) == 1 &&
            (again.len != out.len || (out.len && memcmp(again.data, out.data, out.len) != 0)))
            abort();
    }
    buf_free(&out);
    buf_free(&form);
    buf_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const names[4] = {"RoleName", "Action", "Version", "R"};
    static const size_t caps[4] = {0, 8, 64, BUF_NO_CAP};
    if (size < 1) return 0;
    const char *body = (const char *)data + 1;
    size_t len = size - 1;
    char op[FUZZ_OP_MAX + 1];
    size_t n = 0;
    while (n < len && n < FUZZ_OP_MAX && body[n] != '&') n++;
    memcpy(op, body, n);
    op[n] = '\0';
    bool raw = data[0] & 4;
    struct cplane_reply r = {0};
    buf_init(&r.body, BUF_NO_CAP);
    switch (data[0] & 3) {
    case 0:
        if (stssrv_call(raw ? op : "GetCallerIdentity", body, len, FUZZ_ACCOUNT, size, &r) == 0)
            fuzz_reply(&r, "GetCallerIdentityResponse");
        break;
    case 1:
        if (iamsrv_call(raw ? op : "GetRole", body, len, FUZZ_ACCOUNT, size, &r) == 0)
            fuzz_reply(&r, "GetRoleResponse");
        break;
    default:
        fuzz_param(body, len, names[(data[0] >> 4) & 3], caps[data[0] >> 6]);
    }
    buf_free(&r.body);
    return 0;
}
