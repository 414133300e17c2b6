/* Fuzzes what the client reads of a conversation's replies: the value of
 * X-Amzn-SageMaker-New-Session-Id (conv_parse_new_session, conv_opened) and a
 * turn's reply text, which joins the history the next turn sends. Input: the
 * header's value up to the first newline, then the reply text (NUL-cut, as a C
 * string reaches conv_replied).
 *
 * An id taken is letters, digits and inner hyphens, at most 256 bytes, and the
 * conversation then asks for its first turn; a value refused leaves no id and
 * ends the conversation; the next turn's messages hold the reply cut to at
 * most CONV_TEXT_MAX bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"

static int fuzz_alnum(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void fuzz_check_id(const char *id) {
    size_t n = strlen(id);
    if (n == 0 || n > CONV_ID_MAX || !fuzz_alnum(id[0]) || !fuzz_alnum(id[n - 1])) abort();
    for (size_t i = 0; i < n; i++)
        if (!fuzz_alnum(id[i]) && id[i] != '-') abort();
}

/* The reply joins the history: the next turn's messages carry it, cut. */
static void fuzz_turns(struct conv *c, const char *text) {
    if (conv_replied(c, true, text, 2000) != CONV_OK) return;
    if (c->kind != CONV_TURN || c->turn != 2) abort();
    cJSON *m = conv_messages(c);
    if (!m) return;
    const cJSON *reply = cJSON_GetArrayItem(m, 1);
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(reply, "content");
    if (!cJSON_IsString(content) || strlen(content->valuestring) > CONV_TEXT_MAX) abort();
    cJSON_Delete(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *in = malloc(size + 1);
    if (!in) return 0;
    memcpy(in, data, size);
    in[size] = '\0';
    char *nl = memchr(in, '\n', size);
    size_t value_len = nl ? (size_t)(nl - in) : size;
    const char *text = nl ? nl + 1 : in + size;

    char id[CONV_ID_MAX + 1];
    int rc = conv_parse_new_session(in, value_len, id);
    if (rc == CONV_OK)
        fuzz_check_id(id);
    else if (rc != CONV_ERR_INPUT || id[0])
        abort();

    char *prompts[] = {"first", "second"};
    long long think[] = {1000};
    struct conv_spec spec = {prompts, 2, think, true};
    struct conv c = {0};
    conv_start(&c, &spec, 0);
    rc = conv_opened(&c, true, in, value_len);
    if (rc == CONV_OK) {
        if (strcmp(c.id, id) != 0 || c.kind != CONV_TURN) abort();
        fuzz_turns(&c, text);
    } else if (rc == CONV_ERR_INPUT && conv_active(&c)) {
        abort();
    }
    conv_clear(&c);
    free(in);
    return 0;
}
