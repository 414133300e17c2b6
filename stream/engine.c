#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "duewait.h"

struct engine_thread;

/* Slots per libcurl multi handle. libcurl 7.88 keeps a handle's transfers in a splay
 * tree of timeouts, finds a socket in a hash of 911 buckets and a connection to reuse
 * in a list per host: every read walks the first two, every new request the list. On
 * one handle, 1,000 streams spent 7% of the client's CPU in the splay tree and 10,000
 * 18% in the hash. */
#define ENGINE_MULTI_SLOTS 64

/* libevent's priorities: the socket of a stream that has not had its first token
 * yet is read before those of streams under way, whose tokens come in bursts (a
 * batch's step): in one loop turn with both, the time to first token would wait
 * for the burst. */
enum { ENGINE_PRIO_FIRST, ENGINE_PRIO_REST, ENGINE_PRIOS };

/* One multi handle of a thread and its timeout; its slots are a run of the thread's. */
struct engine_multi {
    struct engine_thread *t;
    CURLM *multi;
    struct event *timer; /* libcurl's timeout */
    bool kick;           /* a request was handed over: let libcurl start it (engine_harvest) */
};

/* A stream's socket is watched edge-triggered while libcurl only reads it: epoll
 * reports it once per arrival, not at every turn of the loop until libcurl has
 * read it. With level triggering, a turn that stops after ENGINE_DISPATCH_US
 * (below) with thousands of sockets still to read (10,000 streams' tokens of one
 * step) had the kernel poll every one of them again at the next turn's
 * epoll_wait, and libevent mark them active again: that was most of the
 * process's CPU per token. Nothing is lost: libcurl reads a socket until it is
 * empty (or asks to come back by a timeout), and a socket libevent has marked
 * active stays in its queue until its callback has run. */
#define ENGINE_READ_EDGE EV_ET

/* How long the loop reads streams under way before it looks for a due arrival. */
#define ENGINE_DISPATCH_US 200

/* A send that leaves more than this after its intended start is late (engine_sends). */
#define ENGINE_LATE_US 1000

/* A slot whose next request is due later (an open-loop arrival): its timer. */
struct engine_due {
    struct engine_thread *t;
    size_t i;
    const struct plan_entry *e;
    struct event *timer; /* an arrival's: before libcurl's sockets (ENGINE_PRIO_FIRST) */
    bool ready;          /* e is signed into the slot's request */
    long long due_us;    /* the handed request's intended start; -1: none (closed loop) */
    long long hand_us;   /* when it was handed to libcurl */
    bool listed;         /* in its thread's handed (once, however often it is handed) */
};

/* A socket libcurl watches: its event, and the slot whose transfer it carried when
 * libcurl last said what to watch for (a hint: libcurl may hand a connection on). */
struct engine_sock {
    struct event *ev;
    struct engine_multi *m;
    struct slot *slot;
};

struct engine_thread {
    size_t first;            /* the global number of its first slot */
    struct lsm_hooks *hooks; /* its Lua state's plan and check */
    struct sigcreds creds;
    struct event_base *base;
    struct engine_multi *multis; /* slot i's is multis[i / ENGINE_MULTI_SLOTS] */
    size_t n_multis;
    struct event *wake; /* a round started, or the run ends */
    struct slot *slots;
    struct disp **disps;
    struct engine_due *due;
    bool *waiting;
    size_t n_slots, active, ended;
    pthread_t tid;
    bool started;
    bool busy_poll; /* engine_config's */
    double cpu_s;   /* the thread's CPU over its loop */
    const struct slot_config *slot_cfg;
    CURL **warm;    /* an open loop's warm-ups, one per slot (engine_warm); NULL when done */
    size_t warming; /* of which still under way */
    struct engine_sends sends;
    size_t *handed, n_handed; /* open-loop slots handed in the current callback */
};

static struct {
    atomic_bool ending;      /* drop what is in flight and stop */
    atomic_bool interrupted; /* the user asked (Ctrl-C) */
    struct engine_thread *threads;
    size_t n_threads;
    struct event *done; /* the main loop's: a worker finished */
    atomic_size_t finished;
    int sig_pipe[2]; /* the signal handler's wake-up for the main loop */
} engine;

/* ---- the run's host --------------------------------------------------------- */

static void engine_wake_all(void) {
    for (size_t i = 0; i < engine.n_threads; i++)
        if (engine.threads[i].wake) event_active(engine.threads[i].wake, EV_READ, 0);
}

static void engine_end(void *unused) {
    (void)unused;
    atomic_store(&engine.ending, true);
    engine_wake_all();
}

static void engine_wake(void *unused) {
    (void)unused;
    engine_wake_all();
}

static bool engine_interrupted(void *unused) {
    (void)unused;
    return atomic_load(&engine.interrupted);
}

struct run_host engine_host(void) {
    return (struct run_host){
        .end = engine_end, .wake = engine_wake, .interrupted = engine_interrupted};
}

/* ---- one worker ------------------------------------------------------------- */

static CURLM *engine_multi_of(const struct engine_thread *t, size_t i) {
    return t->multis[i / ENGINE_MULTI_SLOTS].multi;
}

static void engine_harvest(struct engine_multi *em);

/* Signs e into slot i's request; false (the run aborted) when it cannot. */
static bool engine_prepare(struct engine_thread *t, size_t i, const struct plan_entry *e) {
    struct buf err;
    buf_init(&err, 512);
    bool ok = slot_prepare(&t->slots[i], e, &t->creds, &err) == SLOT_OK;
    if (!ok) {
        disp_abort("cannot sign a request", err.len ? buf_str(&err) : "libcurl refused it");
        t->ended++;
    }
    buf_free(&err);
    return ok;
}

/* Hands slot i's prepared request to libcurl; the caller lets libcurl start it
 * (engine_start) before its callback returns. */
static bool engine_hand(struct engine_thread *t, size_t i) {
    struct slot *s = &t->slots[i];
    struct engine_multi *m = &t->multis[i / ENGINE_MULTI_SLOTS];
    struct engine_due *d = &t->due[i];
    slot_handed(s);
    d->due_us = disp_timed(t->disps[i]) ? disp_due(t->disps[i]) : -1;
    d->hand_us = s->t_handed_us;
    if (curl_multi_add_handle(m->multi, s->easy) == CURLM_OK) {
        t->active++; /* its send time is stamped as it leaves (slot.h) */
        if (d->due_us >= 0 && !d->listed) {
            d->listed = true;
            t->handed[t->n_handed++] = i;
        }
        return true;
    }
    disp_abort("cannot send a request", "libcurl refused it");
    t->ended++;
    return false;
}

/* Lets libcurl start what was handed to m now, not on the loop's next turn (by
 * m's timeout, after that turn's reads). */
static void engine_start(struct engine_multi *m) {
    int running;
    m->kick = false;
    curl_multi_socket_action(m->multi, CURL_SOCKET_TIMEOUT, 0, &running);
}

/* At a callback's end: each open-loop request it handed over that has not left
 * yet waits for a later turn (engine_sends.deferred). */
static void engine_settle(struct engine_thread *t) {
    for (; t->n_handed; t->n_handed--) {
        size_t i = t->handed[t->n_handed - 1];
        t->due[i].listed = false;
        if (!t->slots[i].left) t->sends.deferred++;
    }
}

/* Sends e on slot i now: the harvest under way, or the caller's engine_harvest_all,
 * starts it (engine_start). */
static void engine_send(struct engine_thread *t, size_t i, const struct plan_entry *e) {
    if (engine_prepare(t, i, e) && engine_hand(t, i)) t->multis[i / ENGINE_MULTI_SLOTS].kick = true;
}

/* Sets d's timer wait_us ahead (0: the loop's next turn). libevent's clock is the
 * one its loop read last: it is read again, or the timer would fire early. */
static void engine_arm(struct engine_due *d, long long wait_us) {
    struct timeval tv = {(time_t)(wait_us / 1000000), (suseconds_t)(wait_us % 1000000)};
    event_base_update_cache_time(d->t->base);
    evtimer_add(d->timer, &tv);
}

/* An arrival's request: signed shortly before its time, the loop kept awake for
 * the last stretch, handed to libcurl at its time and started at once (duewait.h). */
static void engine_due_go(struct engine_due *d) {
    struct engine_thread *t = d->t;
    long long wait_us;
    enum duewait_step step;
    while ((step = duewait_step(disp_due(t->disps[d->i]), run_now_us(), d->ready, &wait_us)) ==
           DUEWAIT_SIGN)
        if (!(d->ready = engine_prepare(t, d->i, d->e))) return;
    if (step != DUEWAIT_SEND) {
        engine_arm(d, wait_us);
        return;
    }
    d->ready = false;
    if (!engine_hand(t, d->i)) return;
    struct engine_multi *m = &t->multis[d->i / ENGINE_MULTI_SLOTS];
    engine_start(m);
    engine_harvest(m);
}

/* An open-loop arrival's timer: it signs the request, or keeps the loop awake
 * for the last stretch, or sends (duewait.h). */
static void engine_on_due(evutil_socket_t fd, short kind, void *ud) {
    struct engine_due *d = ud;
    struct engine_thread *t = d->t;
    long long t0 = run_now_us();
    (void)fd, (void)kind;
    if (atomic_load(&engine.ending))
        t->ended++;
    else
        engine_due_go(d);
    engine_settle(t);
    run_watch_stall(run_now_us() - t0); /* a callback this long held the loop: a stall */
}

/* The next request of slot i, now or when it is due, or why there is none. */
static void engine_next(struct engine_thread *t, size_t i) {
    const struct plan_entry *e;
    if (atomic_load(&engine.ending)) {
        t->ended++;
        return;
    }
    int rc = disp_next(t->disps[i], false, &e);
    if (rc == DISP_WAIT) {
        t->waiting[i] = true;
        return;
    }
    if (rc != DISP_SEND) {
        t->ended++;
        return;
    }
    struct engine_due *d = &t->due[i];
    d->e = e;
    long long wait_us;
    if (disp_due(t->disps[i]) <= run_now_us()) {
        engine_send(t, i, e);
    } else if (!d->timer && (!(d->timer = evtimer_new(t->base, engine_on_due, d)) ||
                             event_priority_set(d->timer, ENGINE_PRIO_FIRST) < 0)) {
        disp_abort("cannot wait for an arrival", "out of memory");
        t->ended++;
    } else { /* signed on a later turn (not on this reply's), or when it is time to */
        (void)duewait_step(disp_due(t->disps[i]), run_now_us(), false, &wait_us);
        engine_arm(d, wait_us);
    }
}

/* Counts an open-loop send that ended (engine_sends). */
static void engine_count(struct engine_thread *t, const struct slot *s) {
    const struct engine_due *d = &t->due[s - t->slots];
    if (d->due_us < 0) return;
    t->sends.sends++;
    if ((s->left ? s->t_left_us : d->hand_us) - d->due_us <= ENGINE_LATE_US) return;
    t->sends.late++;
    if (d->hand_us - d->due_us > ENGINE_LATE_US) t->sends.late_handed++;
}

/* A warm-up ended (its connection stays in its multi handle's pool, or it
 * failed and the slot's request connects as it would have): the last one ends
 * the warm-up's loop. */
static void engine_warmed(struct engine_thread *t, CURL *easy) {
    for (size_t i = 0; i < t->n_slots; i++)
        if (t->warm[i] == easy) {
            curl_easy_cleanup(easy);
            t->warm[i] = NULL;
        }
    if (--t->warming == 0) event_base_loopbreak(t->base);
}

/* Every transfer one multi handle finished: its record, then the slot's next
 * request, which libcurl starts before the harvest returns (a request due
 * already, of an open loop that fell behind, does not wait for a turn). */
static void engine_harvest(struct engine_multi *em) {
    struct engine_thread *t = em->t;
    CURLMsg *m;
    int left;
    for (;;) {
        while ((m = curl_multi_info_read(em->multi, &left))) {
            if (m->msg != CURLMSG_DONE) continue;
            struct slot *s;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&s);
            CURLcode result = m->data.result;
            curl_multi_remove_handle(em->multi, m->easy_handle);
            if (!s) { /* a warm-up's */
                engine_warmed(t, m->easy_handle);
                continue;
            }
            t->active--;
            engine_count(t, s);
            slot_done(s, result);
            engine_next(t, (size_t)(s - t->slots));
        }
        if (!em->kick) break;
        engine_start(em);
    }
    if (t->ended == t->n_slots && t->active == 0) event_base_loopbreak(t->base);
}

static void engine_harvest_all(struct engine_thread *t) {
    for (size_t i = 0; i < t->n_multis; i++) engine_harvest(&t->multis[i]);
}

/* The slot's state is fetched into the cache while libcurl reads the socket: with
 * thousands of streams it is out of the cache, and its chunks' decoding would wait. */
static void engine_on_event(evutil_socket_t fd, short kind, void *ud) {
    struct engine_sock *k = ud;
    struct engine_multi *m = k->m; /* k goes if libcurl closes the socket */
    long long t0 = run_now_us();
    int running,
        flags = (kind & EV_READ ? CURL_CSELECT_IN : 0) | (kind & EV_WRITE ? CURL_CSELECT_OUT : 0);
    if ((kind & EV_READ) && k->slot) { /* a warm-up has no slot */
        slot_prefetch(k->slot);
        if (event_get_priority(k->ev) == ENGINE_PRIO_FIRST && k->slot->t_first_us)
            event_priority_set(k->ev, ENGINE_PRIO_REST); /* from the next token on */
    }
    curl_multi_socket_action(m->multi, fd, flags, &running);
    engine_harvest(m);
    engine_settle(m->t);
    run_watch_stall(run_now_us() - t0);
}

static void engine_on_timeout(evutil_socket_t fd, short kind, void *ud) {
    struct engine_multi *m = ud;
    long long t0 = run_now_us();
    int running;
    (void)fd, (void)kind;
    curl_multi_socket_action(m->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    engine_harvest(m);
    engine_settle(m->t);
    run_watch_stall(run_now_us() - t0);
}

/* libcurl's socket callback: one libevent event per socket it watches. */
static int engine_on_socket(CURL *easy, curl_socket_t fd, int what, void *ud, void *sockp) {
    struct engine_multi *m = ud;
    struct engine_thread *t = m->t;
    struct engine_sock *k = sockp;
    if (what == CURL_POLL_REMOVE) {
        if (k) event_free(k->ev);
        free(k);
        curl_multi_assign(m->multi, fd, NULL);
        return 0;
    }
    short kind = (short)((what & CURL_POLL_IN ? EV_READ : 0) |
                         (what & CURL_POLL_OUT ? EV_WRITE : 0) | EV_PERSIST);
    if (what == CURL_POLL_IN) kind |= ENGINE_READ_EDGE;
    if (k) {
        event_del(k->ev);
        event_assign(k->ev, t->base, fd, kind, engine_on_event, k);
    } else if ((k = calloc(1, sizeof *k))) {
        k->m = m;
        if (!(k->ev = event_new(t->base, fd, kind, engine_on_event, k))) {
            free(k);
            return -1;
        }
        curl_multi_assign(m->multi, fd, k);
    }
    if (!k) return -1;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&k->slot);
    event_priority_set(k->ev,
                       k->slot && k->slot->t_first_us ? ENGINE_PRIO_REST : ENGINE_PRIO_FIRST);
    return event_add(k->ev, NULL) == 0 ? 0 : -1;
}

static int engine_on_timer(CURLM *multi, long ms, void *ud) {
    struct engine_multi *m = ud;
    (void)multi;
    if (ms < 0) return evtimer_del(m->timer);
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    return evtimer_add(m->timer, &tv);
}

/* A round started, or the run ends: waiting slots go on, or everything stops. */
static void engine_on_wake(evutil_socket_t fd, short kind, void *ud) {
    struct engine_thread *t = ud;
    (void)fd, (void)kind;
    if (atomic_load(&engine.ending)) {
        for (size_t i = 0; i < t->n_slots; i++)
            if (t->slots[i].entry)
                curl_multi_remove_handle(engine_multi_of(t, i), t->slots[i].easy);
        event_base_loopbreak(t->base); /* what is in flight is dropped, as wrk drops it */
        return;
    }
    if (t->warming) return; /* the slots ask once the warm-up is over */
    long long t0 = run_now_us();
    for (size_t i = 0; i < t->n_slots; i++)
        if (t->waiting[i]) {
            t->waiting[i] = false;
            engine_next(t, i);
        }
    engine_harvest_all(t);
    engine_settle(t);
    run_watch_stall(run_now_us() - t0);
}

/* Busy polling spares each reply the wake-up of a sleeping CPU (tens of microseconds on
 * a virtual machine), at the cost of that CPU. */
static void engine_loop(struct engine_thread *t) {
    if (!t->busy_poll) {
        event_base_loop(t->base, EVLOOP_NO_EXIT_ON_EMPTY);
        return;
    }
    int rc; /* each call clears the last loop's break (the warm-up's), so one comes first */
    do rc = event_base_loop(t->base, EVLOOP_NONBLOCK | EVLOOP_NO_EXIT_ON_EMPTY);
    while (rc >= 0 && !event_base_got_break(t->base));
}

static double engine_thread_cpu_s(void) {
    struct timespec c;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
    return (double)c.tv_sec + (double)c.tv_nsec / 1e9;
}

/* Whether the plan has an open-loop round (requests at times set in advance). */
static bool engine_open_loop(const struct plan *p) {
    size_t n = plan_n_rounds(p);
    struct rounds_round *r = calloc(n ? n : 1, sizeof *r);
    bool open = false;
    if (r) plan_schedule(p, r);
    for (size_t i = 0; r && i < n; i++) open |= r[i].at_us != NULL;
    free(r);
    return open;
}

/* An open loop's requests leave at set times: a connection opened then (TCP and
 * the TLS handshake, milliseconds on a busy host) would make its request late
 * by that much, and libcurl opens one for every request the pool has no idle
 * connection for. So before its slots ask for their first request (and with it
 * before the run's first round can start), the thread opens one connection per
 * slot that sends for this process (not another shard's), each into the pool of
 * the slot's multi handle, with a warm-up request
 * (slot_warm_new) that is not a request of the run; the sends reuse them. */
static void engine_warm(struct engine_thread *t, const struct slot_config *cfg) {
    if (!t->n_slots || !engine_open_loop(t->hooks->plan) ||
        !(t->warm = calloc(t->n_slots, sizeof *t->warm)))
        return;
    for (size_t i = 0; i < t->n_slots; i++) {
        if (!run_is_sender((int)(t->first + i))) continue; /* another shard's: never sends */
        if (slot_warm_new(cfg, &t->warm[i]) != SLOT_OK) break;
        if (curl_multi_add_handle(engine_multi_of(t, i), t->warm[i]) != CURLM_OK) {
            curl_easy_cleanup(t->warm[i]);
            t->warm[i] = NULL;
            break;
        }
        t->warming++;
    }
    if (t->warming && !atomic_load(&engine.ending)) engine_loop(t);
    for (size_t i = 0; i < t->n_slots; i++) /* what Ctrl-C left under way */
        if (t->warm[i]) {
            curl_multi_remove_handle(engine_multi_of(t, i), t->warm[i]);
            curl_easy_cleanup(t->warm[i]);
        }
    free(t->warm);
    t->warm = NULL;
    t->warming = 0;
}

static void *engine_worker(void *ud) {
    struct engine_thread *t = ud;
    double cpu0 = engine_thread_cpu_s();
    engine_warm(t, t->slot_cfg);
    for (size_t i = 0; i < t->n_slots; i++) engine_next(t, i);
    engine_harvest_all(t);
    engine_settle(t);
    /* The loop waits even with nothing to watch: slots at a barrier wait for wake. */
    if (t->ended < t->n_slots || t->active) engine_loop(t);
    t->cpu_s = engine_thread_cpu_s() - cpu0;
    atomic_fetch_add(&engine.finished, 1);
    event_active(engine.done, EV_READ, 0);
    return NULL;
}

/* ---- setting up --------------------------------------------------------------- */

/* A loop whose timers fire to the microsecond (timerfd), for open-loop arrivals. */
static struct event_base *engine_base(void) {
    struct event_config *c = event_config_new();
    if (!c) return NULL;
    event_config_set_flag(c, EVENT_BASE_FLAG_PRECISE_TIMER);
    /* A turn of the loop runs its streams' reads (tens of microseconds each) for
     * at most ENGINE_DISPATCH_US before it looks again for an arrival come due. */
    struct timeval most = {0, ENGINE_DISPATCH_US};
    event_config_set_max_dispatch_interval(c, &most, -1, ENGINE_PRIO_REST);
    struct event_base *base = event_base_new_with_config(c);
    event_config_free(c);
    if (base && event_base_priority_init(base, ENGINE_PRIOS)) {
        event_base_free(base);
        return NULL;
    }
    return base;
}

static int engine_multi_init(struct engine_multi *m, struct engine_thread *t, size_t n) {
    m->t = t;
    if (!(m->multi = curl_multi_init()) || !(m->timer = evtimer_new(t->base, engine_on_timeout, m)))
        return ENGINE_ERR_NOMEM;
    curl_multi_setopt(m->multi, CURLMOPT_SOCKETFUNCTION, engine_on_socket);
    curl_multi_setopt(m->multi, CURLMOPT_SOCKETDATA, m);
    curl_multi_setopt(m->multi, CURLMOPT_TIMERFUNCTION, engine_on_timer);
    curl_multi_setopt(m->multi, CURLMOPT_TIMERDATA, m);
    curl_multi_setopt(m->multi, CURLMOPT_MAXCONNECTS, (long)n + 1);
    return ENGINE_OK;
}

static int engine_thread_init(struct engine_thread *t, const struct engine_config *cfg,
                              struct lsm_hooks *hooks, size_t first, size_t n) {
    *t = (struct engine_thread){.first = first,
                                .hooks = hooks,
                                .n_slots = n,
                                .busy_poll = cfg->busy_poll,
                                .slot_cfg = &cfg->slot};
    t->slots = calloc(n ? n : 1, sizeof *t->slots);
    t->disps = calloc(n ? n : 1, sizeof *t->disps); // NOLINT(bugprone-sizeof-expression): pointers
    t->waiting = calloc(n ? n : 1, sizeof *t->waiting);
    t->due = calloc(n ? n : 1, sizeof *t->due);
    t->handed = calloc(n ? n : 1, sizeof *t->handed);
    t->n_multis = (n + ENGINE_MULTI_SLOTS - 1) / ENGINE_MULTI_SLOTS;
    t->multis = calloc(t->n_multis ? t->n_multis : 1, sizeof *t->multis);
    if (!t->slots || !t->disps || !t->waiting || !t->due || !t->handed || !t->multis ||
        !(t->base = engine_base()) ||
        !(t->wake = event_new(t->base, -1, EV_PERSIST, engine_on_wake, t)))
        return ENGINE_ERR_NOMEM;
    for (size_t i = 0; i < t->n_multis; i++)
        if (engine_multi_init(&t->multis[i], t, ENGINE_MULTI_SLOTS)) return ENGINE_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        t->due[i] = (struct engine_due){.t = t, .i = i, .due_us = -1};
        struct disp_config dc = {.plan = hooks->plan,
                                 .thread = (int)(first + i),
                                 .check = hooks->check ? lsm_check : NULL,
                                 .check_ud = hooks,
                                 .want_text = hooks->check};
        if (disp_new(&dc, &t->disps[i]) ||
            slot_init(&t->slots[i], &cfg->slot, t->disps[i], hooks->check))
            return ENGINE_ERR_NOMEM;
    }
    return ENGINE_OK;
}

static void engine_thread_add(const struct engine_thread *t, struct engine_stats *stats) {
    for (size_t i = 0; i < t->n_slots; i++) {
        const struct slot_cost *c = &t->slots[i].cost;
        stats->cost.decode_ns += c->decode_ns;
        stats->cost.record_ns += c->record_ns;
        stats->cost.tokens += c->tokens;
        stats->cost.records += c->records;
    }
    stats->cpu_s += t->cpu_s;
    stats->sends.sends += t->sends.sends;
    stats->sends.late += t->sends.late;
    stats->sends.late_handed += t->sends.late_handed;
    stats->sends.deferred += t->sends.deferred;
}

static void engine_thread_free(struct engine_thread *t) {
    for (size_t i = 0; t->slots && i < t->n_slots; i++) {
        if (t->slots[i].entry && t->multis)
            curl_multi_remove_handle(engine_multi_of(t, i), t->slots[i].easy);
        slot_free(&t->slots[i]);
        disp_free(t->disps ? t->disps[i] : NULL);
        if (t->due && t->due[i].timer) event_free(t->due[i].timer);
    }
    for (size_t i = 0; t->multis && i < t->n_multis; i++) {
        if (t->multis[i].multi) curl_multi_cleanup(t->multis[i].multi);
        if (t->multis[i].timer) event_free(t->multis[i].timer);
    }
    free(t->multis);
    if (t->wake) event_free(t->wake);
    if (t->base) event_base_free(t->base);
    sigcreds_clear(&t->creds);
    free(t->slots);
    free(t->disps);
    free(t->waiting);
    free(t->due);
    free(t->handed);
}

/* ---- the main thread ----------------------------------------------------------- */

/* The flag is set in the handler itself, not later in the loop: a run whose requests all
   fail at the same moment (the server got the same Ctrl-C) still ends as interrupted. */
static void engine_on_sigint(int sig) {
    (void)sig;
    int saved = errno;
    atomic_store(&engine.interrupted, true);
    ssize_t n = write(engine.sig_pipe[1], "", 1);
    (void)n; /* a full pipe already holds a wake-up */
    errno = saved;
}

static void engine_on_signal(evutil_socket_t fd, short kind, void *ud) {
    (void)kind, (void)ud;
    char drain[16];
    while (read(fd, drain, sizeof drain) > 0) {
    }
    engine_end(NULL);
}

static void engine_on_cap(evutil_socket_t fd, short kind, void *ud) {
    (void)fd, (void)kind, (void)ud;
    engine_end(NULL); /* the run says "duration cap": its clock passed -d */
}

static void engine_on_done(evutil_socket_t fd, short kind, void *ud) {
    (void)fd, (void)kind;
    if (atomic_load(&engine.finished) == engine.n_threads) event_base_loopbreak(ud);
}

/* SIGINT and SIGTERM set the flag and wake the main loop; old receives what was there. */
static bool engine_catch_signals(struct sigaction old[2]) {
    struct sigaction mine = {.sa_handler = engine_on_sigint};
    sigemptyset(&mine.sa_mask);
    return pipe2(engine.sig_pipe, O_NONBLOCK | O_CLOEXEC) == 0 &&
           sigaction(SIGINT, &mine, &old[0]) == 0 && sigaction(SIGTERM, &mine, &old[1]) == 0;
}

static void engine_release_signals(const struct sigaction old[2]) {
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    for (int i = 0; i < 2; i++)
        if (engine.sig_pipe[i] >= 0) close(engine.sig_pipe[i]);
}

/* The main loop: signals, the cap, and the workers' ends. */
static int engine_wait(const struct engine_config *cfg, struct event_base *base, struct buf *err) {
    struct sigaction old[2] = {{.sa_handler = SIG_DFL}, {.sa_handler = SIG_DFL}};
    engine.sig_pipe[0] = engine.sig_pipe[1] = -1;
    bool caught = engine_catch_signals(old);
    struct event *sig =
        caught ? event_new(base, engine.sig_pipe[0], EV_READ | EV_PERSIST, engine_on_signal, NULL)
               : NULL;
    struct event *cap = evtimer_new(base, engine_on_cap, NULL);
    struct timeval tv = {(time_t)(cfg->duration_us / 1000000), (long)(cfg->duration_us % 1000000)};
    int rc =
        sig && cap && !event_add(sig, NULL) && (cfg->duration_us <= 0 || !evtimer_add(cap, &tv))
            ? ENGINE_OK
            : buf_fail(err, ENGINE_ERR_START, "cannot watch signals and the -d cap");
    for (size_t i = 0; rc == ENGINE_OK && i < engine.n_threads; i++)
        if (pthread_create(&engine.threads[i].tid, NULL, engine_worker, &engine.threads[i]) == 0)
            engine.threads[i].started = true;
        else
            rc = buf_fail(err, ENGINE_ERR_START, "cannot start engine thread %zu", i);
    if (rc == ENGINE_OK)
        event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY);
    else
        engine_end(NULL);
    for (size_t i = 0; i < engine.n_threads; i++)
        if (engine.threads[i].started) pthread_join(engine.threads[i].tid, NULL);
    if (sig) event_free(sig);
    if (cap) event_free(cap);
    engine_release_signals(old);
    return rc;
}

int engine_run(const struct engine_config *cfg, struct lsm_hooks *const *hooks, size_t n_threads,
               struct engine_stats *stats, struct buf *err) {
    *stats = (struct engine_stats){0};
    if (evthread_use_pthreads() != 0) return buf_fail(err, ENGINE_ERR_START, "libevent threads");
    struct event_base *base = event_base_new();
    engine.threads = calloc(n_threads, sizeof *engine.threads);
    engine.n_threads = n_threads;
    int rc = base && engine.threads &&
                     (engine.done = event_new(base, -1, EV_PERSIST, engine_on_done, base))
                 ? ENGINE_OK
                 : ENGINE_ERR_NOMEM;
    for (size_t i = 0, first = 0; rc == ENGINE_OK && i < n_threads; i++) {
        size_t n = cfg->n_slots * (i + 1) / n_threads - first;
        rc = engine_thread_init(&engine.threads[i], cfg, hooks[i], first, n);
        first += n;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (rc == ENGINE_OK) rc = engine_wait(cfg, base, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    stats->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    stats->threads = n_threads;
    for (size_t i = 0; engine.threads && i < n_threads; i++) {
        if (engine.threads[i].slots) engine_thread_add(&engine.threads[i], stats);
        engine_thread_free(&engine.threads[i]);
    }
    free(engine.threads);
    engine.threads = NULL;
    engine.n_threads = 0;
    if (engine.done) event_free(engine.done);
    if (base) event_base_free(base);
    if (rc == ENGINE_ERR_NOMEM) return buf_fail(err, rc, "out of memory");
    return rc;
}
