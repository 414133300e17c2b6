#include "gate.h"

void gate_init(struct gate *g, size_t max_connections, size_t max_body_buffer) {
    *g = (struct gate){.max_connections = max_connections, .max_body_buffer = max_body_buffer};
}

enum gate_verdict gate_open(struct gate *g) {
    g->n.accepted++;
    if (g->open++ - g->overflow < g->max_connections) return GATE_SERVE;
    g->overflow++;
    g->n.over_connections++;
    return GATE_REFUSE;
}

void gate_close(struct gate *g, enum gate_verdict verdict) {
    if (g->open) g->open--;
    if (verdict == GATE_REFUSE && g->overflow) g->overflow--;
}

bool gate_listening(const struct gate *g) {
    return g->overflow < GATE_OVERFLOW_MAX;
}

bool gate_reserve(struct gate *g, size_t n) {
    if (n > g->max_body_buffer - g->body_buffered) {
        g->n.over_body_buffer++;
        return false;
    }
    g->body_buffered += n;
    return true;
}

void gate_release(struct gate *g, size_t n) {
    g->body_buffered -= n < g->body_buffered ? n : g->body_buffered;
}

bool gate_accept_failed(struct gate *g, double now) {
    bool starts = !g->failing || now - g->last_failure >= GATE_EPISODE_GAP_S;
    g->failing = true;
    g->last_failure = now;
    if (starts) g->n.accept_failures++;
    return starts;
}

int gate_json(struct buf *out, const struct gate *g) {
    const struct gate_counts *n = &g->n;
    return buf_addf(
        out,
        "\"open_connections\":%zu,\"full_outputs\":%zu,\"limits\":{\"head_timeouts\":%lu,"
        "\"body_timeouts\":%lu,\"over_connections\":%lu,\"over_body_buffer\":%lu,"
        "\"accept_failures\":%lu}",
        g->open, g->full_outputs, n->head_timeouts, n->body_timeouts, n->over_connections,
        n->over_body_buffer, n->accept_failures);
}
