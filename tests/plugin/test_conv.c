/* conv (conv.h): the session id of X-Amzn-SageMaker-New-Session-Id checked
 * against SessionId's pattern and length, the history each turn carries (the
 * earlier prompts and the replies the server gave), the think-time schedule,
 * a refused NEW_SESSION and a failed turn ending the conversation. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "conv.h"

static void test_ids(void) {
    char id[CONV_ID_MAX + 1];
    const char *v = "3eac0518-6466-41f8-8819-8b1a87ad906a; Expires=2026-05-01T12:00:00Z";
    CHECK_INT(conv_parse_new_session(v, strlen(v), id), CONV_OK);
    CHECK_STR(id, "3eac0518-6466-41f8-8819-8b1a87ad906a");
    CHECK_INT(conv_parse_new_session(" abc ", 5, id), CONV_OK);
    CHECK_STR(id, "abc");
    const char *bad[] = {"", "-abc", "abc-", "a b", "a\"b", "NEW_SESSION", "a\r\nX: y", "; x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(conv_parse_new_session(bad[i], strlen(bad[i]), id), CONV_ERR_INPUT);
        CHECK_STR(id, "");
    }
    CHECK_INT(conv_parse_new_session(NULL, 0, id), CONV_ERR_INPUT);
    char longest[CONV_ID_MAX + 2];
    memset(longest, 'a', sizeof longest);
    CHECK(conv_id_valid(longest, CONV_ID_MAX));
    CHECK(!conv_id_valid(longest, CONV_ID_MAX + 1));
    CHECK(conv_id_valid("a--b", 4));
}

static const char *text_of(const cJSON *m, int i, const char *field) {
    return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(m, i), field));
}

static void test_session_conversation(void) {
    char *prompts[] = {"one", "two", "three"};
    long long think[] = {500, 700};
    struct conv_spec spec = {prompts, 3, think, true};
    struct conv c = {0};
    conv_start(&c, &spec, 100);
    CHECK(conv_active(&c));
    CHECK_INT(c.kind, CONV_OPEN);
    CHECK_INT(c.due_us, 100);
    CHECK(conv_messages(&c) == NULL);
    CHECK_INT(conv_opened(&c, true, "s-1; Expires=x", 14), CONV_OK);
    CHECK_STR(c.id, "s-1");
    CHECK_INT(c.kind, CONV_TURN);
    CHECK_INT(c.turn, 1);
    CHECK_INT(c.due_us, 100); /* the conversation's arrival: the session's making counts */
    cJSON *m = conv_messages(&c);
    CHECK_INT(cJSON_GetArraySize(m), 1);
    CHECK_STR(text_of(m, 0, "content"), "one");
    cJSON_Delete(m);
    CHECK_INT(conv_replied(&c, true, "reply one", 2000), CONV_OK);
    CHECK_INT(c.turn, 2);
    CHECK_INT(c.due_us, 2500); /* the reply, then the think time */
    CHECK_INT(conv_replied(&c, true, "reply two", 3000), CONV_OK);
    CHECK_INT(c.due_us, 3700);
    m = conv_messages(&c);
    CHECK_INT(cJSON_GetArraySize(m), 5);
    const char *want[][2] = {{"user", "one"},
                             {"assistant", "reply one"},
                             {"user", "two"},
                             {"assistant", "reply two"},
                             {"user", "three"}};
    for (int i = 0; i < 5; i++) {
        CHECK_STR(text_of(m, i, "role"), want[i][0]);
        CHECK_STR(text_of(m, i, "content"), want[i][1]);
    }
    cJSON_Delete(m);
    CHECK_INT(conv_replied(&c, true, "reply three", 4000), CONV_OK);
    CHECK_INT(c.kind, CONV_CLOSE);
    CHECK(conv_active(&c));
    conv_closed(&c);
    CHECK(!conv_active(&c));
    conv_clear(&c);
}

static void test_failures(void) {
    char *prompts[] = {"one", "two"};
    long long think[] = {0};
    struct conv_spec spec = {prompts, 2, think, true};
    struct conv c = {0};
    conv_start(&c, &spec, -1);
    CHECK_INT(conv_opened(&c, false, NULL, 0), CONV_ERR_INPUT); /* refused */
    CHECK(!conv_active(&c));
    conv_start(&c, &spec, -1);
    CHECK_INT(conv_opened(&c, true, "bad id", 6), CONV_ERR_INPUT); /* no valid id */
    CHECK(!conv_active(&c));
    conv_start(&c, &spec, -1);
    CHECK_INT(conv_opened(&c, true, "ok1", 3), CONV_OK);
    CHECK_INT(conv_replied(&c, false, NULL, 20), CONV_OK); /* a failed turn: close */
    CHECK_INT(c.kind, CONV_CLOSE);
    spec.session = false;
    conv_start(&c, &spec, -1);
    CHECK_INT(c.kind, CONV_TURN);
    CHECK_INT(conv_replied(&c, false, NULL, 20), CONV_OK); /* no session: over */
    CHECK(!conv_active(&c));
    conv_clear(&c);
}

int main(void) {
    test_ids();
    test_session_conversation();
    test_failures();
    return check_exit();
}
