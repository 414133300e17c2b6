#include "tokreport.h"

#include <math.h>
#include <stdio.h>

#include "fmt.h"
#include "sidetally.h"
#include "specdec.h"

size_t tokreport_figs(const struct cmp *m, struct tokreport_fig out[TOKREPORT_FIGS]) {
    const struct side *s[2] = {m->b, m->c};
    struct rtally t[2];
    const struct specdec *sd[2];
    for (int k = 0; k < 2; k++) {
        t[k] = sidetally_of(s[k]);
        sd[k] = &s[k]->in.spec;
    }
    struct tokreport_fig all[TOKREPORT_FIGS] = {
        {"prefix_cache_hit_ratio",
         "requests",
         "cached / prompt tokens, summed over the successful requests whose reply said "
         "usage.prompt_tokens_details.cached_tokens",
         {rtally_hit_ratio(&t[0]), rtally_hit_ratio(&t[1])},
         {t[0].cache_n, t[1].cache_n}},
        {"tokens_per_chunk",
         "requests",
         "completion tokens / chunks, summed over the successful streamed requests (above 1: "
         "several tokens a chunk, as speculative decoding's accepted drafts)",
         {rtally_tokens_per_chunk(&t[0]), rtally_tokens_per_chunk(&t[1])},
         {t[0].chunk_n, t[1].chunk_n}},
        {"spec_acceptance_rate",
         "log lines",
         "vLLM's SpecDecoding metrics lines: accepted / drafted tokens, summed over the lines",
         {specdec_acceptance_rate(sd[0]), specdec_acceptance_rate(sd[1])},
         {sd[0]->lines, sd[1]->lines}},
        {"spec_mean_acceptance_length",
         "log lines",
         "vLLM's SpecDecoding metrics lines: 1 + accepted tokens per draft, the lines' mean "
         "acceptance length weighted by their drafted tokens",
         {specdec_mean_length(sd[0]), specdec_mean_length(sd[1])},
         {sd[0]->lines, sd[1]->lines}},
    };
    size_t n = 0;
    for (size_t i = 0; i < TOKREPORT_FIGS; i++)
        if (isfinite(all[i].v[0]) || isfinite(all[i].v[1])) out[n++] = all[i];
    return n;
}

int tokreport_build(struct page *r, const struct cmp *m) {
    struct tokreport_fig f[TOKREPORT_FIGS];
    size_t n = tokreport_figs(m, f);
    if (!n) return 0;
    char nb[200], nc[200];
    snprintf(nb, sizeof nb, "%s n", m->bname);
    snprintf(nc, sizeof nc, "%s n", m->cname);
    const char *head[] = {"measurement", m->bname, m->cname, nb, nc};
    if (page_text(r, PAGE_HEADING, "Prefix cache and speculative decoding (server side)") < 0)
        return -1;
    struct page_block *t = page_table(r, 0x1e, 5, head);
    if (!t) return -1;
    for (size_t i = 0; i < n; i++) {
        char v[2][FMT_CELL], c[2][64];
        for (int k = 0; k < 2; k++) {
            if (isfinite(f[i].v[k]))
                fmt_num(f[i].v[k], 4, v[k], sizeof v[k]);
            else
                snprintf(v[k], sizeof v[k], "n/a");
            snprintf(c[k], sizeof c[k], "%zu %s", f[i].n[k], f[i].n_what);
        }
        const char *cells[] = {f[i].name, v[0], v[1], c[0], c[1]};
        if (page_row(t, cells) < 0) return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (page_text(r, PAGE_ITEM, "%s: %s", f[i].name, f[i].means) < 0) return -1;
    return 0;
}

static cJSON *tokreport_side(const struct tokreport_fig *f, int k) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "value",
                          isfinite(f->v[k]) ? cJSON_CreateNumber(f->v[k]) : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "n", (double)f->n[k]);
    return o;
}

cJSON *tokreport_json(const struct cmp *m) {
    struct tokreport_fig f[TOKREPORT_FIGS];
    size_t n = tokreport_figs(m, f);
    if (!n) return NULL;
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; o && i < n; i++) {
        cJSON *x = cJSON_AddObjectToObject(o, f[i].name);
        if (!x) break;
        cJSON_AddStringToObject(x, "n_counts", f[i].n_what);
        cJSON_AddStringToObject(x, "means", f[i].means);
        cJSON_AddItemToObject(x, "baseline", tokreport_side(&f[i], 0));
        cJSON_AddItemToObject(x, "candidate", tokreport_side(&f[i], 1));
    }
    return o;
}
