#include "shard_report.h"

#include <math.h>
#include <stdio.h>

#include <stdlib.h>

#include "esc.h"
#include "fmt.h"
#include "shards.h"

#define SHARD_REPORT_RIGHT 0x3e /* columns 1 to 5 right-aligned */

/* x with decimals, or "n/a". */
static void shard_report_num(double x, int decimals, char *out, size_t cap) {
    if (isfinite(x))
        fmt_num(x, decimals, out, cap);
    else
        snprintf(out, cap, "n/a");
}

static int shard_report_run(struct page *r, const struct shards_info *in) {
    char window[FMT_CELL], tps[FMT_CELL];
    shard_report_num(in->window_s, 2, window, sizeof window);
    shard_report_num(in->window_tokens_per_s, 2, tps, sizeof tps);
    if (page_text(r, PAGE_PARA,
                  "Run %s, %s (%s): %ld shards%s%s; first requests %.2f ms apart; all shards "
                  "sending for %s s, %s tokens/s over that window (%ld requests ended in it).",
                  in->run_id, in->label, in->scenario, in->count,
                  in->start_at ? ", --start-at " : "", in->start_at ? in->start_at : "",
                  in->skew_s * 1e3, window, tps, in->window_requests) < 0)
        return -1;
    static const char *const head[] = {"shard",    "start after --start-at (ms)",
                                       "ok/sent",  "requests/s",
                                       "tokens/s", "clock offset (ms)"};
    struct page_block *t = page_table(r, SHARD_REPORT_RIGHT, 6, head);
    if (!t) return -1;
    for (long k = 0; k < in->count; k++) {
        const struct shards_shard *s = &in->shards[k];
        char idx[32], late[FMT_CELL], ok[64], rate[FMT_CELL], tok[FMT_CELL], clk[96];
        snprintf(idx, sizeof idx, "%ld", s->index);
        shard_report_num(s->late_s * 1e3, 3, late, sizeof late);
        snprintf(ok, sizeof ok, "%ld/%ld", s->ok, s->sent);
        shard_report_num(s->rate, 3, rate, sizeof rate);
        shard_report_num(s->tokens_per_s, 2, tok, sizeof tok);
        if (s->clock)
            snprintf(clk, sizeof clk, "%+.3f +- %.3f", s->offset_ms, s->uncertainty_ms);
        else
            snprintf(clk, sizeof clk, "not measured");
        const char *cells[] = {idx, late, ok, rate, tok, clk};
        if (page_row(t, cells) < 0) return -1;
    }
    return 0;
}

int shard_report_build(struct page *r, const struct cmp *m) {
    bool heading = false;
    const struct side *sides[] = {m->b, m->c};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sides[k]->in.n; i++) {
            const struct shards_info *in = sides[k]->in.srcs[i].shards;
            if (!in) continue;
            if (!heading && page_text(r, PAGE_HEADING, "Shards (one run each, merged)") < 0)
                return -1;
            heading = true;
            if (shard_report_run(r, in) < 0) return -1;
        }
    return 0;
}

/* A string from a file as valid UTF-8 (esc.h). */
static cJSON *shard_report_str(const char *s) {
    char *valid = esc_utf8(s);
    cJSON *v = valid ? cJSON_CreateString(valid) : NULL;
    free(valid);
    return v;
}

static cJSON *shard_report_num_json(double x) {
    return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static cJSON *shard_report_shard_json(const struct shards_shard *s) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "shard", (double)s->index);
    cJSON_AddItemToObject(o, "path", shard_report_str(s->path));
    cJSON_AddItemToObject(o, "start_after_s", shard_report_num_json(s->late_s));
    cJSON_AddNumberToObject(o, "sent", (double)s->sent);
    cJSON_AddNumberToObject(o, "ok", (double)s->ok);
    cJSON_AddItemToObject(o, "requests_per_second", shard_report_num_json(s->rate));
    cJSON_AddItemToObject(o, "tokens_per_second", shard_report_num_json(s->tokens_per_s));
    cJSON_AddItemToObject(o, "clock_offset_ms",
                          s->clock ? cJSON_CreateNumber(s->offset_ms) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "clock_uncertainty_ms",
                          s->clock ? cJSON_CreateNumber(s->uncertainty_ms) : cJSON_CreateNull());
    return o;
}

static cJSON *shard_report_run_json(const struct shards_info *in) {
    cJSON *o = cJSON_CreateObject(), *list = cJSON_CreateArray();
    if (!o || !list) {
        cJSON_Delete(o);
        cJSON_Delete(list);
        return NULL;
    }
    cJSON_AddItemToObject(o, "run_id", shard_report_str(in->run_id));
    cJSON_AddItemToObject(o, "label", shard_report_str(in->label));
    cJSON_AddItemToObject(o, "scenario", shard_report_str(in->scenario));
    cJSON_AddItemToObject(o, "start_at",
                          in->start_at ? shard_report_str(in->start_at) : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "count", (double)in->count);
    cJSON_AddNumberToObject(o, "start_skew_s", in->skew_s);
    cJSON_AddItemToObject(o, "window_s", shard_report_num_json(in->window_s));
    cJSON_AddItemToObject(o, "window_tokens_per_second",
                          shard_report_num_json(in->window_tokens_per_s));
    cJSON_AddNumberToObject(o, "window_requests", (double)in->window_requests);
    for (long k = 0; k < in->count; k++)
        cJSON_AddItemToArray(list, shard_report_shard_json(&in->shards[k]));
    cJSON_AddItemToObject(o, "shards", list);
    return o;
}

cJSON *shard_report_json(const struct cmp *m) {
    cJSON *list = NULL;
    const struct side *sides[] = {m->b, m->c};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sides[k]->in.n; i++) {
            const struct shards_info *in = sides[k]->in.srcs[i].shards;
            if (!in) continue;
            if (!list && !(list = cJSON_CreateArray())) return NULL;
            cJSON_AddItemToArray(list, shard_report_run_json(in));
        }
    return list;
}
