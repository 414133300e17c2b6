#include "scaling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estim.h"
#include "openloop.h"
#include "rfield.h"
#include "stream.h"

/* A successful request's TTFT (seconds) in window w. */
struct scaling_ttft {
    size_t w;
    double v;
};

/* A call that counts for the cold starts: refused for no capacity, or served (2xx). */
struct scaling_call {
    double t; /* real seconds from the schedule's start */
    bool served;
};

/* What scaling_read works with. */
struct scaling_ctx {
    const struct rfile *rf;
    const struct src *s;
    struct scaling *x;
    struct timeline tl;
    double w0;                 /* Unix seconds of the schedule's start (NAN: unknown) */
    struct scaling_ttft *ttft; /* the successful requests' TTFTs with their windows */
    size_t nttft, capttft;
    struct scaling_call *calls; /* the calls the cold starts are cut from */
    size_t ncalls, capcalls;
    struct buf *err;
};

static int scaling_nomem(struct buf *err) {
    return buf_fail(err, SCALING_ERR_NOMEM, "out of memory");
}

/* settings.schedule into x->steps. */
static int scaling_schedule(struct scaling_ctx *c) {
    const cJSON *sch = cJSON_GetObjectItemCaseSensitive(c->s->settings, "schedule"), *p;
    int n = cJSON_GetArraySize(sch);
    if (!cJSON_IsArray(sch) || n < 1 || n > SCALING_MAX_PIECES)
        return buf_fail(c->err, SCALING_ERR_INPUT,
                        "%s: settings.schedule must list the ramp's pieces (1 to %d of them)",
                        c->rf->path, SCALING_MAX_PIECES);
    if (!(c->x->steps = calloc((size_t)n, sizeof *c->x->steps))) return scaling_nomem(c->err);
    double t = 0;
    cJSON_ArrayForEach(p, sch) {
        double v[3] = {0, 0, 0};
        int k = 0;
        const cJSON *e;
        if (cJSON_IsArray(p) && cJSON_GetArraySize(p) == 3) cJSON_ArrayForEach(e, p) {
                if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0 && e->valuedouble <= 1e9)) break;
                v[k++] = e->valuedouble;
            }
        if (k != 3 || !(v[0] > 0))
            return buf_fail(c->err, SCALING_ERR_INPUT,
                            "%s: settings.schedule[%zu] must be [SECONDS, FROM, TO] (seconds "
                            "above 0, rates at least 0, at most 1e9)",
                            c->rf->path, c->x->n);
        struct scaling_step *st = &c->x->steps[c->x->n++];
        *st = (struct scaling_step){.start_s = t,
                                    .end_s = t + v[0],
                                    .from = v[1],
                                    .to = v[2],
                                    .before = -1,
                                    .most = -1,
                                    .decision_s = NAN,
                                    .capacity_s = NAN,
                                    .instance_hours = NAN};
        t += v[0];
    }
    c->x->duration_s = t;
    return 0;
}

/* The inference component the result file's endpoint names (NULL: none). */
static const char *scaling_component_of(const struct scaling_ctx *c) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->s->endpoint, "inference_component");
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Whether the timeline samples a component other than the one the result file's
 * calls went to (a file that names none may have any). */
static bool scaling_other_component(const struct scaling_ctx *c) {
    const char *mine = scaling_component_of(c);
    return c->tl.component[0] && mine && strcmp(mine, c->tl.component) != 0;
}

/* The timeline settings.timeline names, from the result file's folder only. */
static void scaling_timeline(struct scaling_ctx *c, struct warnings *w) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->s->settings, "timeline");
    if (!cJSON_IsString(v)) return;
    const char *base = strrchr(v->valuestring, '/');
    base = base ? base + 1 : v->valuestring;
    size_t n = strlen(base);
    bool ok = n > 0 && n < sizeof c->x->timeline_name && strcmp(base, ".") != 0 &&
              strcmp(base, "..") != 0;
    for (size_t i = 0; ok && i < n; i++) ok = (unsigned char)base[i] >= 0x20 && base[i] != 0x7f;
    if (!ok) {
        warnings_add(w, "%s: settings.timeline is not a file name; the scaling goes without it",
                     c->rf->path);
        return;
    }
    const char *slash = strrchr(c->rf->path, '/');
    int dir = slash ? (int)(slash - c->rf->path) : 1;
    char path[4096 + 256];
    snprintf(path, sizeof path, "%.*s/%s", dir, slash ? c->rf->path : ".", base);
    struct buf err;
    buf_init(&err, 1024);
    const cJSON *ep = cJSON_GetObjectItemCaseSensitive(c->s->endpoint, "name");
    if (timeline_load(path, &c->tl, &err)) {
        warnings_add(w, "%s: the scaling goes without its timeline: %s", c->rf->path,
                     err.len ? buf_str(&err) : "out of memory");
    } else if (!cJSON_IsString(ep) || strcmp(ep->valuestring, c->tl.endpoint) != 0) {
        warnings_add(w,
                     "%s: the timeline %s samples endpoint %s, not this file's; the scaling "
                     "goes without it",
                     c->rf->path, base, c->tl.endpoint);
        timeline_free(&c->tl);
    } else if (scaling_other_component(c)) {
        warnings_add(w,
                     "%s: the timeline %s samples inference component %s, not this file's "
                     "(%s); the scaling goes without it",
                     c->rf->path, base, c->tl.component, scaling_component_of(c));
        timeline_free(&c->tl);
    } else if (!isfinite(c->w0)) {
        warnings_add(w,
                     "%s: no record has wall_start_us to place the timeline's samples; the "
                     "scaling goes without them",
                     c->rf->path);
        timeline_free(&c->tl);
    } else {
        c->x->timeline = true;
        snprintf(c->x->timeline_name, sizeof c->x->timeline_name, "%s", base);
        c->x->samples = c->tl.n;
        c->x->activities = c->tl.na;
        snprintf(c->x->component, sizeof c->x->component, "%s", c->tl.component);
    }
    buf_free(&err);
}

/* A Unix time as real seconds from the schedule's start. */
static double scaling_at(const struct scaling_ctx *c, double unix_s) {
    return (unix_s - c->w0) * c->s->time_scale;
}

/* The instance-hours of the samples between a and b (real seconds). */
static double scaling_hours(const struct scaling_ctx *c, double a, double b) {
    double sum = 0;
    for (size_t k = 0; k + 1 < c->tl.n; k++) {
        if (c->tl.s[k].current < 0) continue;
        double lo = fmax(a, scaling_at(c, c->tl.s[k].t)),
               hi = fmin(b, scaling_at(c, c->tl.s[k + 1].t));
        if (hi > lo) sum += (double)c->tl.s[k].current * (hi - lo);
    }
    return sum / 3600;
}

/* What sample k counts serving: a component's copies, else the variant's instances. */
static long scaling_serving(const struct scaling_ctx *c, size_t k) {
    return c->tl.component[0] ? c->tl.s[k].copies : c->tl.s[k].current;
}

/* The instances, decision and capacity of each step. */
static void scaling_steps(struct scaling_ctx *c) {
    c->x->instance_hours = scaling_hours(c, -INFINITY, INFINITY);
    for (size_t i = 0; i < c->x->n; i++) {
        struct scaling_step *st = &c->x->steps[i];
        for (size_t k = 0; k < c->tl.n; k++) {
            double t = scaling_at(c, c->tl.s[k].t);
            long cur = scaling_serving(c, k);
            if (k == 0 || t <= st->start_s) st->before = cur;
            if (t >= st->start_s && t < st->end_s) {
                if (cur > st->most) st->most = cur;
                if (isnan(st->capacity_s) && st->before >= 0 && cur > st->before)
                    st->capacity_s = t - st->start_s;
            }
        }
        for (size_t k = 0; k < c->tl.na && isnan(st->decision_s); k++) {
            double t = scaling_at(c, c->tl.a[k].start);
            if (t >= st->start_s && t < st->end_s) st->decision_s = t - st->start_s;
        }
        st->instance_hours = scaling_hours(c, st->start_s, st->end_s);
        double cut = isnan(st->capacity_s) ? 0 : st->capacity_s;
        st->transition.seconds = cut;
        st->steady.seconds = st->end_s - st->start_s - cut;
    }
}

/* The step holding real second t (the last for t past the end). */
static size_t scaling_step_of(const struct scaling *x, double t) {
    size_t lo = 0, hi = x->n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (x->steps[mid].start_s <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static bool scaling_no_capacity(const struct rfile *rf, const struct rfile_rec *r) {
    const char *code = rfile_str(rf, r->error);
    return !r->ok && code && strcmp(code, RFIELD_ERROR_NO_CAPACITY) == 0;
}

/* Room for one more element of size in the array *p of *n (capacity *cap). */
static int scaling_room(void **p, size_t n, size_t *cap, size_t size) {
    if (n < *cap) return 0;
    size_t grown = *cap ? 2 * *cap : 256;
    void *g = realloc(*p, grown * size);
    if (!g) return -1;
    *p = g;
    *cap = grown;
    return 0;
}

static int scaling_by_time(const void *a, const void *b) {
    const struct scaling_call *x = a, *y = b;
    if (x->t != y->t) return (x->t > y->t) - (x->t < y->t);
    return (int)x->served - (int)y->served; /* a refusal before a call served with it */
}

/* The cold starts: from a refusal with none open to the next call served. */
static int scaling_cold_starts(struct scaling_ctx *c) {
    struct scaling *x = c->x;
    size_t cap = 0;
    struct scaling_cold *open = NULL;
    if (c->ncalls) qsort(c->calls, c->ncalls, sizeof *c->calls, scaling_by_time);
    for (size_t i = 0; i < c->ncalls; i++) {
        const struct scaling_call *k = &c->calls[i];
        if (k->served) {
            if (open) open->seconds = k->t - open->start_s;
            open = NULL;
            continue;
        }
        if (!open) {
            void *p = x->cold;
            if (scaling_room(&p, x->ncold, &cap, sizeof *x->cold) < 0) return -1;
            x->cold = p;
            size_t st = x->n && x->steps ? scaling_step_of(x, k->t) : 0;
            open = &x->cold[x->ncold++];
            *open = (struct scaling_cold){.start_s = k->t, .seconds = NAN, .step = st};
            if (x->n && x->steps) x->steps[st].cold_starts++;
        }
        open->refused++;
    }
    return 0;
}

static bool scaling_refused(const struct rfile *rf, const struct rfile_rec *r) {
    const char *code = rfile_str(rf, r->error);
    return r->status == 429 || r->status == 503 ||
           (code && strcmp(code, "ThrottlingException") == 0);
}

static int scaling_push(struct scaling_ctx *c, size_t wi, double v) {
    void *p = c->ttft;
    if (scaling_room(&p, c->nttft, &c->capttft, sizeof *c->ttft) < 0) return -1;
    c->ttft = p;
    c->ttft[c->nttft++] = (struct scaling_ttft){wi, v};
    return 0;
}

static int scaling_by_window(const void *a, const void *b) {
    const struct scaling_ttft *x = a, *y = b;
    if (x->w != y->w) return (x->w > y->w) - (x->w < y->w);
    return (x->v > y->v) - (x->v < y->v);
}

/* One record of the phase, t its real seconds from the schedule's start. */
static int scaling_record(struct scaling_ctx *c, const struct slo_set *slo,
                          const struct rfile_rec *r, double t) {
    struct scaling *x = c->x;
    if (!x->n || !x->steps) return 0;
    struct scaling_step *st = &x->steps[scaling_step_of(x, t)];
    bool in_transition = !isnan(st->capacity_s) && t < st->start_s + st->capacity_s;
    struct scaling_count *k = in_transition ? &st->transition : &st->steady;
    bool good = false, refused = !r->ok && scaling_refused(c->rf, r),
         no_capacity = scaling_no_capacity(c->rf, r);
    if (r->ok && openloop_record_good(c->rf, c->s, slo, r, &good) < 0) return -1;
    k->sent++;
    k->ok += r->ok;
    k->good += good;
    k->failed += !r->ok;
    k->refused += refused;
    k->no_capacity += no_capacity;
    x->sent++;
    x->failed += !r->ok;
    x->refused += refused;
    x->no_capacity += no_capacity;
    if (no_capacity || (r->status >= 200 && r->status < 300)) { /* for the cold starts */
        void *p = c->calls;
        if (scaling_room(&p, c->ncalls, &c->capcalls, sizeof *c->calls) < 0) return -1;
        c->calls = p;
        c->calls[c->ncalls++] = (struct scaling_call){t, !no_capacity};
    }
    size_t wi = x->duration_s > 0 ? (size_t)fmax(0, t / x->duration_s * SCALING_WINDOWS) : 0;
    if (wi >= SCALING_WINDOWS) wi = SCALING_WINDOWS - 1;
    x->w[wi].n++;
    if (r->ok) {
        struct rfile_rec y = *r;
        double v;
        if (r->t_intended_us != RFILE_NONE) y.t_start_us = r->t_intended_us;
        y.server_us = RFILE_NONE;
        if (stream_ttft(&y, c->s->time_scale, &v) && scaling_push(c, wi, v) < 0) return -1;
    }
    return 0;
}

/* The schedule's rate at real second t. */
static double scaling_rate(const struct scaling *x, double t) {
    if (!x->n || !x->steps) return NAN;
    const struct scaling_step *st = &x->steps[scaling_step_of(x, t)];
    double f = (t - st->start_s) / (st->end_s - st->start_s);
    return st->from + (st->to - st->from) * fmin(fmax(f, 0), 1);
}

/* Each window's p90 TTFT, from the TTFTs sorted by window and value. */
static int scaling_ttft_p90(struct scaling_ctx *c) {
    double *v = malloc((c->nttft ? c->nttft : 1) * sizeof *v);
    if (!v) return -1;
    if (c->nttft) qsort(c->ttft, c->nttft, sizeof *c->ttft, scaling_by_window);
    for (size_t i = 0, k; i < c->nttft; i = k) {
        size_t n = 0;
        for (k = i; k < c->nttft && c->ttft[k].w == c->ttft[i].w; k++) v[n++] = c->ttft[k].v;
        c->x->w[c->ttft[i].w].ttft_p90 = estim_quantile(v, n, 0.9);
    }
    free(v);
    return 0;
}

static void scaling_windows(struct scaling_ctx *c) {
    struct scaling *x = c->x;
    x->nw = SCALING_WINDOWS;
    for (size_t i = 0; i < SCALING_WINDOWS; i++) {
        struct scaling_window *win = &x->w[i];
        win->mid_s = ((double)i + 0.5) * x->duration_s / SCALING_WINDOWS;
        win->rate = scaling_rate(x, win->mid_s);
        win->instances = win->copies = NAN;
        for (size_t k = 0; k < c->tl.n && scaling_at(c, c->tl.s[k].t) <= win->mid_s; k++) {
            win->instances = c->tl.s[k].current < 0 ? NAN : (double)c->tl.s[k].current;
            if (c->tl.component[0])
                win->copies = c->tl.s[k].copies < 0 ? NAN : (double)c->tl.s[k].copies;
        }
        win->ttft_p90 = NAN;
    }
}

/* The Unix time of the schedule's start: the first intended start's. */
static double scaling_w0(const struct rfile *rf, uint32_t phase, int64_t first) {
    for (size_t i = 0; i < rf->nrecs; i++) {
        const struct rfile_rec *r = &rf->recs[i];
        int64_t at = r->t_intended_us != RFILE_NONE ? r->t_intended_us : r->t_start_us;
        if (r->phase != phase || r->wall_start_us == RFILE_NONE) continue;
        return ((double)r->wall_start_us - (double)(r->t_start_us - at) - (double)(at - first)) /
               1e6;
    }
    return NAN;
}

int scaling_read(const struct rfile *rf, uint32_t phase, const struct src *s,
                 const struct slo_set *slo, struct scaling **out, struct warnings *w,
                 struct buf *err) {
    struct scaling_ctx c = {.rf = rf, .s = s, .err = err};
    int64_t first = INT64_MAX;
    int rc;
    if (!(*out = c.x = calloc(1, sizeof *c.x))) return scaling_nomem(err);
    if ((rc = scaling_schedule(&c)) < 0) goto done;
    for (size_t i = 0; i < rf->nrecs; i++) {
        const struct rfile_rec *r = &rf->recs[i];
        int64_t at = r->t_intended_us != RFILE_NONE ? r->t_intended_us : r->t_start_us;
        if (r->phase == phase && at < first) first = at;
    }
    c.w0 = first == INT64_MAX ? NAN : scaling_w0(rf, phase, first);
    scaling_timeline(&c, w);
    scaling_steps(&c);
    if (!c.x->timeline) c.x->instance_hours = NAN;
    for (size_t i = 0; i < rf->nrecs && !rc; i++) {
        const struct rfile_rec *r = &rf->recs[i];
        int64_t at = r->t_intended_us != RFILE_NONE ? r->t_intended_us : r->t_start_us;
        if (r->phase != phase) continue;
        if (scaling_record(&c, slo, r, (double)(at - first) * s->time_scale / 1e6) < 0)
            rc = scaling_nomem(err);
    }
    if (!rc) scaling_windows(&c);
    if (!rc && scaling_cold_starts(&c) < 0) rc = scaling_nomem(err);
    if (!rc && scaling_ttft_p90(&c) < 0) rc = scaling_nomem(err);
done:
    free(c.ttft);
    free(c.calls);
    timeline_free(&c.tl);
    return rc;
}

void scaling_free(struct scaling *x) {
    if (!x) return;
    free(x->steps);
    free(x->cold);
    free(x);
}

double scaling_attainment(const struct scaling_count *c) {
    return c->sent ? (double)c->good / (double)c->sent : NAN;
}

double scaling_goodput(const struct scaling_count *c) {
    return c->seconds > 0 ? (double)c->good / c->seconds : NAN;
}
