#include "scaling_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "scaling.h"

/* "n/a" for a value that is not there, else x with decimals. */
static void scaling_report_num(double x, int decimals, char *out, size_t cap) {
    if (isfinite(x))
        fmt_num(x, decimals, out, cap);
    else
        snprintf(out, cap, "n/a");
}

/* "sent / attained / goodput" cells of a window of counts. */
static void scaling_report_count(const struct scaling_count *k, char *sent, char *att, char *good) {
    snprintf(sent, FMT_CELL, "%ld", k->sent);
    double a = scaling_attainment(k);
    if (isfinite(a))
        snprintf(att, FMT_CELL, "%.1f%%", 100 * a);
    else
        snprintf(att, FMT_CELL, "n/a");
    scaling_report_num(scaling_goodput(k), 3, good, FMT_CELL);
}

static int scaling_report_row(struct page_block *t, const struct scaling_step *st, size_t i) {
    char piece[FMT_CELL], secs[FMT_CELL], rate[FMT_CELL], inst[FMT_CELL], dec[FMT_CELL],
        cap[FMT_CELL], ts[FMT_CELL], ta[FMT_CELL], tg[FMT_CELL], ss[FMT_CELL], sa[FMT_CELL],
        sg[FMT_CELL], fail[FMT_CELL], hours[FMT_CELL], nocap[FMT_CELL], cold[FMT_CELL],
        a[FMT_CELL / 2 - 2], b[FMT_CELL / 2 - 2];
    snprintf(piece, sizeof piece, "%zu", i + 1);
    fmt_num(st->start_s, 3, a, sizeof a);
    fmt_num(st->end_s, 3, b, sizeof b);
    snprintf(secs, sizeof secs, "%s-%s", a, b);
    fmt_num(st->from, 3, a, sizeof a);
    fmt_num(st->to, 3, b, sizeof b);
    if (st->from == st->to)
        snprintf(rate, sizeof rate, "%s", a);
    else
        snprintf(rate, sizeof rate, "%s..%s", a, b);
    if (st->before < 0)
        snprintf(inst, sizeof inst, "n/a");
    else
        snprintf(inst, sizeof inst, "%ld -> %ld", st->before, st->most < 0 ? st->before : st->most);
    scaling_report_num(st->decision_s, 3, dec, sizeof dec);
    scaling_report_num(st->capacity_s, 3, cap, sizeof cap);
    scaling_report_count(&st->transition, ts, ta, tg);
    scaling_report_count(&st->steady, ss, sa, sg);
    snprintf(fail, sizeof fail, "%ld (%ld)", st->transition.failed + st->steady.failed,
             st->transition.refused + st->steady.refused);
    scaling_report_num(st->instance_hours, 4, hours, sizeof hours);
    snprintf(nocap, sizeof nocap, "%ld", st->transition.no_capacity + st->steady.no_capacity);
    snprintf(cold, sizeof cold, "%ld", st->cold_starts);
    const char *cells[] = {piece, secs, rate, inst, dec,  cap,   ts,   ta,
                           tg,    ss,   sa,   sg,   fail, nocap, cold, hours};
    return page_row(t, cells);
}

/* The cost of a ramp's instance-hours at --price-per-hour, as a sentence ("" without). */
static void scaling_report_cost(const struct cmp *m, const struct scaling *x, char *out,
                                size_t size) {
    *out = '\0';
    if (m->open.have_price && isfinite(x->instance_hours))
        snprintf(out, size, " (%.4g USD at %g USD per instance-hour)",
                 x->instance_hours * m->open.price, m->open.price);
}

/* The cold starts of x as a table (none: nothing). */
static int scaling_report_cold(struct page *r, const struct scaling *x) {
    if (!x->ncold) return 0;
    const char *head[] = {"cold start", "piece", "from s", "seconds", "refused"};
    struct page_block *t = page_table(r, 0x1f, 5, head);
    if (!t) return -1;
    for (size_t i = 0; i < x->ncold; i++) {
        const struct scaling_cold *k = &x->cold[i];
        char n[FMT_CELL], piece[FMT_CELL], from[FMT_CELL], secs[FMT_CELL], refused[FMT_CELL];
        snprintf(n, sizeof n, "%zu", i + 1);
        snprintf(piece, sizeof piece, "%zu", k->step + 1);
        fmt_num(k->start_s, 3, from, sizeof from);
        if (isfinite(k->seconds))
            fmt_num(k->seconds, 3, secs, sizeof secs);
        else
            snprintf(secs, sizeof secs, "not served");
        snprintf(refused, sizeof refused, "%ld", k->refused);
        const char *cells[] = {n, piece, from, secs, refused};
        if (page_row(t, cells) < 0) return -1;
    }
    return 0;
}

static int scaling_report_input(struct page *r, const struct cmp *m, const char *side,
                                const struct src *s) {
    const struct scaling *x = s->scaling;
    char hours[FMT_CELL], cost[96];
    scaling_report_num(x->instance_hours, 4, hours, sizeof hours);
    scaling_report_cost(m, x, cost, sizeof cost);
    int rc =
        x->timeline
            ? page_text(r, PAGE_PARA,
                        "%s (%s): timeline %s%s%s, %zu samples, %zu scaling activit%s, %s "
                        "instance-hours over the samples%s; %ld requests sent, %ld failed "
                        "(%ld refused, %ld for no capacity), %zu cold start%s.",
                        side, s->path, x->timeline_name,
                        x->component[0] ? " of inference component " : "", x->component, x->samples,
                        x->activities, x->activities == 1 ? "y" : "ies", hours, cost, x->sent,
                        x->failed, x->refused, x->no_capacity, x->ncold, x->ncold == 1 ? "" : "s")
            : page_text(r, PAGE_PARA,
                        "%s (%s): no timeline (run the ramp under sm-timeline to sample "
                        "its scaling); %ld requests sent, %ld failed (%ld refused, %ld for "
                        "no capacity), %zu cold start%s.",
                        side, s->path, x->sent, x->failed, x->refused, x->no_capacity, x->ncold,
                        x->ncold == 1 ? "" : "s");
    if (rc < 0) return -1;
    const char *head[] = {"piece",
                          "seconds",
                          "rate/s",
                          x->component[0] ? "copies" : "instances",
                          "decision s",
                          "capacity s",
                          "trans. n",
                          "attained",
                          "goodput/s",
                          "steady n",
                          "attained",
                          "goodput/s",
                          "failed (refused)",
                          "no capacity",
                          "cold starts",
                          "instance-h"};
    struct page_block *t = page_table(r, 0xfff5, 16, head);
    if (!t) return -1;
    for (size_t i = 0; i < x->n; i++)
        if (scaling_report_row(t, &x->steps[i], i) < 0) return -1;
    return scaling_report_cold(r, x);
}

int scaling_report_build(struct page *r, const struct cmp *m) {
    const struct side *sides[2] = {m->b, m->c};
    const char *names[2] = {m->bname, m->cname};
    bool any = false;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sides[k]->in.n; i++) any |= sides[k]->in.srcs[i].scaling != NULL;
    if (!any) return 0;
    if (page_text(r, PAGE_HEADING, "Scaling (ramp.lua)") < 0 ||
        page_text(r, PAGE_PARA,
                  "Per load change (each piece of the ramp's schedule; seconds of real time "
                  "from its start): instances serving at the change and the most during the "
                  "piece (sm-timeline's samples); decision: seconds to the first scaling "
                  "activity that started in the piece; capacity: seconds to the first sample "
                  "with more instances serving; trans.: the piece's requests from the change "
                  "to the capacity (none when no capacity came), steady: the rest of the "
                  "piece; attained: the share of those sent that met every SLO; goodput/s: "
                  "those per second; failed (refused: HTTP 429 or 503, or throttled); "
                  "no capacity: of the failed, those an inference component refused for having "
                  "no copy serving (error no_capacity); cold starts: those that began in the "
                  "piece, each from a call refused for no capacity to the first call served "
                  "after it (by intended start; its length and refusals in the table after); "
                  "instance-h: the samples' instances over the piece, in hours. A timeline of "
                  "an inference component counts its copies where a variant's counts "
                  "instances.") < 0)
        return -1;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sides[k]->in.n; i++)
            if (sides[k]->in.srcs[i].scaling &&
                scaling_report_input(r, m, names[k], &sides[k]->in.srcs[i]) < 0)
                return -1;
    return 0;
}

/* A number, or null when it is not there. */
static cJSON *scaling_report_jnum(double x) {
    return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

static cJSON *scaling_report_jcount(const struct scaling_count *k) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "sent", (double)k->sent);
    cJSON_AddNumberToObject(o, "ok", (double)k->ok);
    cJSON_AddNumberToObject(o, "good", (double)k->good);
    cJSON_AddNumberToObject(o, "failed", (double)k->failed);
    cJSON_AddNumberToObject(o, "refused", (double)k->refused);
    cJSON_AddNumberToObject(o, "no_capacity", (double)k->no_capacity);
    cJSON_AddNumberToObject(o, "seconds", k->seconds);
    cJSON_AddItemToObject(o, "attainment", scaling_report_jnum(scaling_attainment(k)));
    cJSON_AddItemToObject(o, "goodput", scaling_report_jnum(scaling_goodput(k)));
    return o;
}

static cJSON *scaling_report_jinput(const struct cmp *m, const struct src *s) {
    const struct scaling *x = s->scaling;
    cJSON *o = cJSON_CreateObject(), *steps = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "path", s->path);
    cJSON_AddItemToObject(o, "timeline",
                          x->timeline ? cJSON_CreateString(x->timeline_name) : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "samples", (double)x->samples);
    cJSON_AddNumberToObject(o, "activities", (double)x->activities);
    cJSON_AddItemToObject(o, "instance_hours", scaling_report_jnum(x->instance_hours));
    cJSON_AddItemToObject(
        o, "cost_usd",
        scaling_report_jnum(m->open.have_price ? x->instance_hours * m->open.price : NAN));
    cJSON_AddNumberToObject(o, "sent", (double)x->sent);
    cJSON_AddNumberToObject(o, "failed", (double)x->failed);
    cJSON_AddNumberToObject(o, "refused", (double)x->refused);
    cJSON_AddNumberToObject(o, "no_capacity", (double)x->no_capacity);
    cJSON_AddItemToObject(o, "inference_component",
                          x->component[0] ? cJSON_CreateString(x->component) : cJSON_CreateNull());
    cJSON *cold = cJSON_CreateArray();
    for (size_t i = 0; i < x->ncold; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "piece", (double)x->cold[i].step + 1);
        cJSON_AddNumberToObject(e, "start_s", x->cold[i].start_s);
        cJSON_AddItemToObject(e, "seconds", scaling_report_jnum(x->cold[i].seconds));
        cJSON_AddNumberToObject(e, "refused", (double)x->cold[i].refused);
        cJSON_AddItemToArray(cold, e);
    }
    cJSON_AddItemToObject(o, "cold_starts", cold);
    for (size_t i = 0; i < x->n; i++) {
        const struct scaling_step *st = &x->steps[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "start_s", st->start_s);
        cJSON_AddNumberToObject(e, "end_s", st->end_s);
        cJSON_AddNumberToObject(e, "from", st->from);
        cJSON_AddNumberToObject(e, "to", st->to);
        cJSON_AddItemToObject(e, "instances_before",
                              st->before < 0 ? cJSON_CreateNull()
                                             : cJSON_CreateNumber((double)st->before));
        cJSON_AddItemToObject(e, "instances_most",
                              st->most < 0 ? cJSON_CreateNull()
                                           : cJSON_CreateNumber((double)st->most));
        cJSON_AddItemToObject(e, "decision_s", scaling_report_jnum(st->decision_s));
        cJSON_AddItemToObject(e, "capacity_s", scaling_report_jnum(st->capacity_s));
        cJSON_AddItemToObject(e, "transition", scaling_report_jcount(&st->transition));
        cJSON_AddItemToObject(e, "steady", scaling_report_jcount(&st->steady));
        cJSON_AddItemToObject(e, "instance_hours", scaling_report_jnum(st->instance_hours));
        cJSON_AddNumberToObject(e, "cold_starts", (double)st->cold_starts);
        cJSON_AddItemToArray(steps, e);
    }
    cJSON_AddItemToObject(o, "steps", steps);
    return o;
}

cJSON *scaling_report_json(const struct cmp *m) {
    const struct side *sides[2] = {m->b, m->c};
    static const char *const keys[2] = {"baseline", "candidate"};
    cJSON *o = NULL;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sides[k]->in.n; i++) {
            const struct src *s = &sides[k]->in.srcs[i];
            if (!s->scaling) continue;
            if (!o) {
                o = cJSON_CreateObject();
                cJSON_AddItemToObject(o, keys[0], cJSON_CreateArray());
                cJSON_AddItemToObject(o, keys[1], cJSON_CreateArray());
            }
            cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(o, keys[k]),
                                 scaling_report_jinput(m, s));
        }
    return o;
}
