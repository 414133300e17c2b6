#include "conv.h"

#include <stdlib.h>
#include <string.h>

static bool conv_alnum(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

bool conv_id_valid(const char *text, size_t n) {
    if (n == 0 || n > CONV_ID_MAX || !conv_alnum(text[0]) || !conv_alnum(text[n - 1])) return false;
    for (size_t i = 1; i < n; i++)
        if (!conv_alnum(text[i]) && text[i] != '-') return false;
    return true;
}

int conv_parse_new_session(const char *value, size_t n, char out[CONV_ID_MAX + 1]) {
    out[0] = '\0';
    if (!value) return CONV_ERR_INPUT;
    size_t a = 0;
    while (a < n && (value[a] == ' ' || value[a] == '\t')) a++;
    size_t b = a;
    while (b < n && value[b] != ';') b++;
    size_t end = b;
    while (end > a && (value[end - 1] == ' ' || value[end - 1] == '\t')) end--;
    if (!conv_id_valid(value + a, end - a)) return CONV_ERR_INPUT;
    memcpy(out, value + a, end - a);
    out[end - a] = '\0';
    return CONV_OK;
}

void conv_start(struct conv *c, const struct conv_spec *spec, long long due_us) {
    conv_clear(c);
    c->spec = spec;
    c->kind = spec->session ? CONV_OPEN : CONV_TURN;
    c->turn = spec->session ? 0 : 1;
    c->due_us = due_us;
}

void conv_clear(struct conv *c) {
    cJSON_Delete(c->history);
    *c = (struct conv){.kind = CONV_DONE};
}

bool conv_active(const struct conv *c) {
    return c->spec && c->kind != CONV_DONE;
}

/* Appends {"role": role, "content": text[0..n)} to list. */
static int conv_add(cJSON *list, const char *role, const char *text, size_t n) {
    char *copy = malloc(n + 1);
    if (!copy) return CONV_ERR_NOMEM;
    memcpy(copy, text, n);
    copy[n] = '\0';
    cJSON *m = cJSON_CreateObject();
    bool ok = m && cJSON_AddStringToObject(m, "role", role) &&
              cJSON_AddStringToObject(m, "content", copy);
    free(copy);
    if (!ok || !cJSON_AddItemToArray(list, m)) {
        cJSON_Delete(m);
        return CONV_ERR_NOMEM;
    }
    return CONV_OK;
}

cJSON *conv_messages(const struct conv *c) {
    if (!conv_active(c) || c->kind != CONV_TURN) return NULL;
    cJSON *list = c->history ? cJSON_Duplicate(c->history, true) : cJSON_CreateArray();
    const char *p = c->spec->prompts[c->turn - 1];
    if (list && conv_add(list, "user", p, strlen(p)) == CONV_OK) return list;
    cJSON_Delete(list);
    return NULL;
}

/* The step after the turns: CLOSE with a session, else DONE. */
static void conv_end_turns(struct conv *c, long long now_us) {
    c->kind = c->spec->session && c->id[0] ? CONV_CLOSE : CONV_DONE;
    c->due_us = now_us;
}

int conv_opened(struct conv *c, bool ok, const char *value, size_t n) {
    if (!ok || conv_parse_new_session(value, n, c->id)) {
        c->kind = CONV_DONE;
        return CONV_ERR_INPUT;
    }
    c->kind = CONV_TURN;
    c->turn = 1;
    return CONV_OK;
}

int conv_replied(struct conv *c, bool ok, const char *text, long long now_us) {
    if (!ok) {
        conv_end_turns(c, now_us);
        return CONV_OK;
    }
    const char *p = c->spec->prompts[c->turn - 1];
    size_t n = text ? strlen(text) : 0;
    if (n > CONV_TEXT_MAX) /* cut at a character's start */
        for (n = CONV_TEXT_MAX; n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80; n--) {
        }
    if (!c->history && !(c->history = cJSON_CreateArray())) return CONV_ERR_NOMEM;
    if (conv_add(c->history, "user", p, strlen(p)) ||
        conv_add(c->history, "assistant", text ? text : "", n))
        return CONV_ERR_NOMEM;
    if (c->turn >= c->spec->n_turns) {
        conv_end_turns(c, now_us);
        return CONV_OK;
    }
    c->due_us = now_us + c->spec->think_us[c->turn - 1];
    c->turn++;
    return CONV_OK;
}

void conv_closed(struct conv *c) {
    c->kind = CONV_DONE;
}
