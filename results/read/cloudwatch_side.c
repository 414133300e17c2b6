#include "cloudwatch_side.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cloudwatch_side_fail(struct buf *err, int rc, const struct buf *why) {
    return rc == CWDOC_ERR_FORMAT ? buf_fail(err, CLOUDWATCH_SIDE_ERR_INPUT, "%s", buf_str(why))
                                  : buf_fail(err, CLOUDWATCH_SIDE_ERR_NOMEM, "out of memory");
}

/* ---- log events ---- */

/* "ISO STREAM MESSAGE" with the stream's and the message's control characters as spaces. */
static char *cloudwatch_side_line(const struct cwdoc_event *e) {
    char when[CWDOC_TIME_LEN];
    cwdoc_time_format((double)e->timestamp_ms / 1000, true, when);
    size_t head = strlen(when) + strlen(e->stream) + 2, n = head + e->message_len;
    char *line = malloc(n + 1);
    if (!line) return NULL;
    snprintf(line, head + 1, "%s %s ", when, e->stream);
    memcpy(line + head, e->message, e->message_len);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f) line[i] = ' ';
    line[n] = '\0';
    return line;
}

static char *cloudwatch_side_key(const struct cwdoc_event *e) {
    if (*e->event_id) return strdup(e->event_id);
    size_t n = strlen(e->stream) + e->message_len + 32;
    char *key = malloc(n);
    if (key)
        snprintf(key, n, "%s|%lld|%.*s", e->stream, e->timestamp_ms, (int)e->message_len,
                 e->message);
    return key;
}

/* Room for one more of n items of size bytes in *items (capacity *cap). */
static bool cloudwatch_side_room(void **items, size_t size, size_t n, size_t *cap) {
    if (n < *cap) return true;
    size_t grown = *cap ? 2 * *cap : 64;
    void *p = realloc(*items, grown * size);
    if (p) {
        *items = p;
        *cap = grown;
    }
    return p != NULL;
}

static int cloudwatch_side_event(void *ud, const struct cwdoc_event *e) {
    struct cloudwatch_side *s = ud;
    void *ev = s->ev;
    bool room = cloudwatch_side_room(&ev, sizeof *s->ev, s->nev, &s->cap);
    s->ev = ev;
    if (!room) return CWDOC_ERR_NOMEM;
    struct cloudwatch_side_event *x = &s->ev[s->nev];
    x->t_ms = e->timestamp_ms;
    x->key = cloudwatch_side_key(e);
    x->line = cloudwatch_side_line(e);
    if (!x->key || !x->line) {
        free(x->key);
        free(x->line);
        return CWDOC_ERR_NOMEM;
    }
    s->nev++;
    return 0;
}

int cloudwatch_side_logs(struct cloudwatch_side *s, const char *json, size_t len, struct buf *err) {
    struct buf why;
    buf_init(&why, 1024);
    int rc = cwdoc_events(json, len, cloudwatch_side_event, s, &why);
    if (rc) rc = cloudwatch_side_fail(err, rc, &why);
    buf_free(&why);
    if (!rc) s->log_files++;
    return rc;
}

/* ---- metric data ---- */

static int cloudwatch_side_series(void *ud, const struct cwdoc_series *x) {
    struct cloudwatch_side *s = ud;
    int k = cwdoc_metric_find(x->id);
    if (k < 0) return 0;
    struct cloudwatch_side_points *p = &s->m[k];
    for (size_t i = 0; i < x->n; i++) {
        size_t cap_t = p->cap, cap_v = p->cap;
        void *t = p->t, *v = p->v;
        bool room = cloudwatch_side_room(&t, sizeof *p->t, p->n, &cap_t);
        p->t = t;
        room = room && cloudwatch_side_room(&v, sizeof *p->v, p->n, &cap_v);
        p->v = v;
        if (!room) return CWDOC_ERR_NOMEM;
        p->cap = cap_v;
        p->t[p->n] = x->t[i];
        p->v[p->n++] = x->v[i];
    }
    return 0;
}

int cloudwatch_side_metrics(struct cloudwatch_side *s, const char *json, size_t len,
                            struct buf *err) {
    struct buf why;
    buf_init(&why, 1024);
    int rc = cwdoc_metrics(json, len, cloudwatch_side_series, s, &why);
    if (rc) rc = cloudwatch_side_fail(err, rc, &why);
    buf_free(&why);
    if (!rc) s->metric_files++;
    return rc;
}

/* ---- ordering ---- */

static int cloudwatch_side_event_cmp(const void *a, const void *b) {
    const struct cloudwatch_side_event *x = a, *y = b;
    if (x->t_ms != y->t_ms) return (x->t_ms > y->t_ms) - (x->t_ms < y->t_ms);
    return strcmp(x->key, y->key);
}

/* A point and where it came from, so equal times keep the one read last. */
struct cloudwatch_side_pair {
    double t, v;
    size_t at;
};

static int cloudwatch_side_pair_cmp(const void *a, const void *b) {
    const struct cloudwatch_side_pair *x = a, *y = b;
    if (x->t != y->t) return (x->t > y->t) - (x->t < y->t);
    return (x->at > y->at) - (x->at < y->at);
}

static void cloudwatch_side_points_finish(struct cloudwatch_side_points *p) {
    struct cloudwatch_side_pair *q = malloc((p->n ? p->n : 1) * sizeof *q);
    if (!q) return; /* left as read */
    for (size_t i = 0; i < p->n; i++) q[i] = (struct cloudwatch_side_pair){p->t[i], p->v[i], i};
    qsort(q, p->n, sizeof *q, cloudwatch_side_pair_cmp);
    size_t out = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (out && p->t[out - 1] == q[i].t) out--; /* the later value wins */
        p->t[out] = q[i].t;
        p->v[out++] = q[i].v;
    }
    p->n = out;
    free(q);
}

void cloudwatch_side_finish(struct cloudwatch_side *s) {
    if (s->nev > 1) qsort(s->ev, s->nev, sizeof *s->ev, cloudwatch_side_event_cmp);
    size_t out = 0;
    for (size_t i = 0; i < s->nev; i++) {
        /* equal keys sort together within one time (an id names one event) */
        if (out && s->ev[out - 1].t_ms == s->ev[i].t_ms &&
            strcmp(s->ev[out - 1].key, s->ev[i].key) == 0) {
            free(s->ev[i].key);
            free(s->ev[i].line);
            continue;
        }
        s->ev[out++] = s->ev[i];
    }
    s->nev = out;
    for (int k = 0; k < CWDOC_N_METRICS; k++) cloudwatch_side_points_finish(&s->m[k]);
}

int cloudwatch_side_log_text(const struct cloudwatch_side *s, struct buf *out) {
    for (size_t i = 0; i < s->nev; i++)
        if (buf_adds(out, s->ev[i].line) || buf_addc(out, '\n')) return CLOUDWATCH_SIDE_ERR_NOMEM;
    return CLOUDWATCH_SIDE_OK;
}

double cloudwatch_side_sum(const struct cloudwatch_side *s, int metric, double t0, double t1,
                           size_t *count, double *mean) {
    const struct cloudwatch_side_points *p = &s->m[metric];
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i] >= t0 && p->t[i] < t1) {
            sum += p->v[i];
            n++;
        }
    if (count) *count = n;
    if (mean) *mean = n ? sum / (double)n : NAN;
    return sum;
}

bool cloudwatch_side_has_metrics(const struct cloudwatch_side *s) {
    for (int k = 0; k < CWDOC_N_METRICS; k++)
        if (s->m[k].n) return true;
    return false;
}

void cloudwatch_side_free(struct cloudwatch_side *s) {
    for (size_t i = 0; i < s->nev; i++) {
        free(s->ev[i].key);
        free(s->ev[i].line);
    }
    free(s->ev);
    for (int k = 0; k < CWDOC_N_METRICS; k++) {
        free(s->m[k].t);
        free(s->m[k].v);
    }
    memset(s, 0, sizeof *s);
}
