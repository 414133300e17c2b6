/* Fuzzes the trace reader (plugin/trace.h). Input: a trace file's bytes.
 *
 * Read whole, with a window and cap, and at two speeds: a read either fails
 * with one line naming what and where, or gives a schedule whose requests are
 * in time order, inside the window, at most the cap, each intended start its
 * trace time from the window's start divided by the speed (rounded), every
 * captured body as long as it says and free of NUL bytes; the window and cap
 * keep a part of the whole read, and the speed changes only the starts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugcheck.h"
#include "trace.h"

static void fuzz_trace_check(const struct trace *t, const struct trace_spec *s) {
    if (!t || !t->n || t->n > t->n_read) abort();
    if (s->cap > 0 && t->n > (size_t)s->cap) abort();
    if (strcmp(trace_format_name(t->format), "unknown") == 0) abort();
    for (size_t i = 0; i < t->n; i++) {
        const struct trace_req *r = &t->reqs[i];
        if (r->t_us < s->from_us || (s->to_us >= 0 && r->t_us >= s->to_us)) abort();
        if (i && (r->t_us < r[-1].t_us || (r->t_us == r[-1].t_us && r->line <= r[-1].line)))
            abort();
        if (r->at_us != llround((double)(r->t_us - s->from_us) / s->speed)) abort();
        if (r->line < 1 || (r->n_hash_ids && !r->hash_ids)) abort();
        if ((t->format == TRACE_CAPTURE) != (r->body != NULL)) abort();
        if (r->body && (!r->body_len || strlen(r->body) != r->body_len)) abort();
        if (!r->body && (r->input_tokens < 0 || r->output_tokens < 0)) abort();
    }
}

static struct trace *fuzz_trace_read(const char *text, size_t len, const struct trace_spec *s) {
    struct trace *t = NULL;
    struct buf err;
    buf_init(&err, 4096);
    int rc = trace_parse("fuzz.trace", text, len, s, &t, &err);
    if (rc == TRACE_ERR_NOMEM) abort();
    if (rc) {
        if (t || rc != TRACE_ERR_INPUT || strncmp(buf_str(&err), "fuzz.trace", 10) != 0) abort();
        plugcheck_one_line(buf_str(&err), 4096);
    } else {
        fuzz_trace_check(t, s);
    }
    buf_free(&err);
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    static const struct trace_spec all = {1.0, 0, -1, 0};
    struct trace *whole = fuzz_trace_read(text, size, &all);
    struct trace_spec part = {3.0, 250000, 5000000, 3};
    struct trace *some = fuzz_trace_read(text, size, &part);
    struct trace_spec fast = {0.5, 0, -1, 0};
    struct trace *slow = fuzz_trace_read(text, size, &fast);
    if (!whole != !slow || (some && !whole)) abort();
    if (whole) {
        if (whole->n != whole->n_read || slow->n != whole->n || whole->format != slow->format)
            abort();
        for (size_t i = 0; i < whole->n; i++)
            if (whole->reqs[i].t_us != slow->reqs[i].t_us ||
                whole->reqs[i].line != slow->reqs[i].line)
                abort();
    }
    if (some) {
        size_t k = 0; /* the window's requests are the whole read's, in order */
        while (k < whole->n && whole->reqs[k].t_us < part.from_us) k++;
        for (size_t i = 0; i < some->n; i++, k++)
            if (k >= whole->n || whole->reqs[k].line != some->reqs[i].line) abort();
    }
    trace_free(whole);
    trace_free(some);
    trace_free(slow);
    return 0;
}
