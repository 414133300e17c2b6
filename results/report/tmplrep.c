#include "tmplrep.h"

#include <math.h>
#include <stdio.h>

#include "rfmt.h"

/* The member name of o when it is a whole number from 0 (below 2^31), else -1. */
static long tmplrep_count(const cJSON *o, const char *name) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < 2147483648.0) ||
        v->valuedouble != floor(v->valuedouble))
        return -1;
    return (long)v->valuedouble;
}

/* A conversation's overhead per turn (RFMT_TEMPLATE_PER_TURN), one item a turn. */
static int tmplrep_turns(struct page *r, const char *side, const struct src *s,
                         const cJSON *turns) {
    const cJSON *t;
    int k = 0;
    cJSON_ArrayForEach(t, turns) {
        const cJSON *over = cJSON_GetObjectItemCaseSensitive(t, RFMT_TEMPLATE_TOKENS);
        long replies = tmplrep_count(t, RFMT_TEMPLATE_REPLIES);
        long differ = tmplrep_count(t, RFMT_TEMPLATE_DIFFER);
        char n[48] = "not measured";
        if (++k > 1000) break;
        if (cJSON_IsNumber(over) && fabs(over->valuedouble) <= 1e9)
            snprintf(n, sizeof n, "%.0f tokens", over->valuedouble);
        if (page_text(r, PAGE_ITEM, "%s: %s: turn %d: %s; %ld of %ld replies differ from it", side,
                      src_name(s), k, n, differ, replies) < 0)
            return -1;
    }
    return 0;
}

/* One input's lines; an object with neither a whole number of tokens nor
 * per_turn is said to be unreadable. */
static int tmplrep_line(struct page *r, const char *side, const struct src *s) {
    const cJSON *t = s->template_overhead;
    const cJSON *turns = cJSON_GetObjectItemCaseSensitive(t, RFMT_TEMPLATE_PER_TURN);
    if (cJSON_IsArray(turns) && !cJSON_HasObjectItem(t, RFMT_TEMPLATE_TOKENS))
        return tmplrep_turns(r, side, s, turns);
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(t, RFMT_TEMPLATE_TOKENIZER);
    const cJSON *over = cJSON_GetObjectItemCaseSensitive(t, RFMT_TEMPLATE_TOKENS);
    long first = tmplrep_count(t, RFMT_TEMPLATE_FIRST),
         exact = tmplrep_count(t, RFMT_TEMPLATE_EXACT);
    long replies = tmplrep_count(t, RFMT_TEMPLATE_REPLIES);
    long differ = tmplrep_count(t, RFMT_TEMPLATE_DIFFER);
    long texts = tmplrep_count(t, RFMT_TEMPLATE_TEXTS);
    long tdiffer = tmplrep_count(t, RFMT_TEMPLATE_TEXT_DIFFER);
    if (!cJSON_IsNumber(over) || over->valuedouble != floor(over->valuedouble) ||
        fabs(over->valuedouble) > 1e9 || first < 0 || exact < 0 || replies < 0 || differ < 0)
        return page_text(r, PAGE_ITEM, "%s: %s: " RFMT_TEMPLATE " unreadable (not the format's)",
                         side, src_name(s));
    if (page_text(r, PAGE_ITEM,
                  "%s: %s: %.0f tokens (usage.prompt_tokens %ld for a prompt of exactly %ld by "
                  "%.80s); %ld of %ld replies differ from it",
                  side, src_name(s), over->valuedouble, first, exact,
                  cJSON_IsString(tok) ? tok->valuestring : "?", differ, replies) < 0)
        return -1;
    if (texts > 0 && tdiffer >= 0 &&
        page_text(r, PAGE_ITEM,
                  "%s: %s: %ld of %ld replies' texts are not usage.completion_tokens long by "
                  "the tokenizer",
                  side, src_name(s), tdiffer, texts) < 0)
        return -1;
    return cJSON_IsArray(turns) ? tmplrep_turns(r, side, s, turns) : 0;
}

int tmplrep_build(struct page *r, const struct cmp *m) {
    const struct side *sides[2] = {m->b, m->c};
    const char *names[2] = {m->bname, m->cname};
    bool any = false;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; sides[k] && i < sides[k]->in.n; i++)
            any = any || sides[k]->in.srcs[i].template_overhead;
    if (!any) return 0;
    if (page_text(r, PAGE_HEADING, "Chat template overhead (--tokenizer)") < 0 ||
        page_text(r, PAGE_PARA,
                  "What each server added to the exact prompts (its chat template), measured "
                  "from usage.prompt_tokens of the first reply; a reply that differs means the "
                  "server counts another tokenizer's tokens or its template varies.") < 0)
        return -1;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; sides[k] && i < sides[k]->in.n; i++)
            if (sides[k]->in.srcs[i].template_overhead &&
                tmplrep_line(r, names[k], &sides[k]->in.srcs[i]) < 0)
                return -1;
    return 0;
}
