/* sm-emulator: sets up the endpoints, SageMaker Runtime and the server from the
 * command line, and runs the loop. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "awsapi.h"
#include "creds.h"
#include "fleet.h"
#include "rtcall.h"
#include "options.h"
#include "ptok.h"
#include "safeopen.h"
#include "server.h"
#include "smerr.h"

#define MAIN_ERR (-1) /* what main's steps return on failure; err says which */

/* What main owns. */
struct main_state {
    struct options opts;
    struct model_library lib;
    struct fleet fleet;
    struct invoke inv;
    struct server srv;
    struct awsapi api;         /* the control plane, ahead of SageMaker Runtime */
    struct cwlog cwlogs;       /* CloudWatch Logs of every container */
    struct cwmetric cwmetrics; /* CloudWatch metrics of every variant */
    struct event_base *base;
    struct event *sigint_ev, *sigterm_ev;
};

/* Accepts the credentials the chain finds in this process's environment. */
static int main_env_credentials(struct auth *a, time_t now, struct buf *err) {
    struct creds c = {0};
    struct creds_options copts = {0};
    struct buf why;
    buf_init(&why, 1024);
    int rc = creds_resolve(&copts, now, &c, &why);
    if (rc == CREDS_OK)
        rc = auth_add_key(a, c.access_key_id, c.secret_access_key, c.session_token, c.expiration)
                 ? buf_fail(err, MAIN_ERR, "out of memory")
                 : 0;
    else if (rc != CREDS_ERR_NOT_FOUND || a->n_keys == 0)
        rc = buf_fail(err, MAIN_ERR, "credentials from the environment: %s%s", buf_str(&why),
                      rc == CREDS_ERR_NOT_FOUND ? " (set AWS_ACCESS_KEY_ID and "
                                                  "AWS_SECRET_ACCESS_KEY, or use --credential)"
                                                : "");
    else
        rc = 0;
    creds_clear(&c);
    buf_free(&why);
    return rc;
}

static int main_auth(struct auth *a, const struct options *o, struct buf *err) {
    time_t now = time(NULL);
    if (auth_init(a, o->region)) return buf_fail(err, MAIN_ERR, "out of memory");
    for (size_t i = 0; i < o->n_credentials; i++)
        if (auth_add_text(a, o->credentials[i], now, err)) return MAIN_ERR;
    if (o->credentials_file && auth_add_file(a, o->credentials_file, now, err)) return MAIN_ERR;
    for (size_t i = 0; i < o->n_bearer_tokens; i++)
        if (auth_add_bearer(a, o->bearer_tokens[i], err)) return MAIN_ERR;
    if (!o->no_env_credentials && main_env_credentials(a, now, err)) return MAIN_ERR;
    if (a->n_keys) return 0;
    return buf_fail(err, MAIN_ERR,
                    "no credentials to accept: drop --no-env-credentials or give "
                    "--credential / --credentials-file");
}

static int main_port_file(const char *path, const char *url, struct buf *err) {
    struct buf text, why;
    buf_init(&text, BUF_NO_CAP);
    buf_init(&why, 1024);
    int rc = buf_addf(&text, "%s\n", url) == BUF_OK
                 ? safeopen_write(path, NULL, buf_str(&text), text.len, 0666, &why) /* no link */
                 : buf_fail(&why, SAFEOPEN_ERR_NOMEM, "out of memory");
    if (rc) (void)buf_fail(err, MAIN_ERR, "--port-file: %s", buf_str(&why));
    buf_free(&text);
    buf_free(&why);
    return rc ? MAIN_ERR : 0;
}

static void main_signal_cb(evutil_socket_t sig, short what, void *arg) {
    (void)sig;
    (void)what;
    event_base_loopbreak(arg);
}

/* Runs the loop until SIGINT or SIGTERM; returns the exit code. busy: never sleeps in the
 * poller but polls again and again (due timers run on each turn). */
static int main_run(struct event_base *base, bool busy) {
    if (!busy) return event_base_dispatch(base) < 0 ? 1 : 0;
    int rc = 0; /* 1: no events left, where event_base_dispatch ends too */
    while (rc == 0 && !event_base_got_break(base)) rc = event_base_loop(base, EVLOOP_NONBLOCK);
    return rc < 0 ? 1 : 0;
}

/* The endpoints, their variants and logs. */
static int main_fleet(struct main_state *m, struct buf *err) {
    const struct options *o = &m->opts;
    if (o->profile_file && model_library_load(&m->lib, o->profile_file, err)) return MAIN_ERR;
    for (size_t i = 0; i < o->n_endpoints; i++)
        if (fleet_add(&m->fleet, &o->endpoints[i], &m->lib, err)) return MAIN_ERR;
    for (size_t i = 0; i < o->n_sets; i++)
        if (fleet_set(&m->fleet, &o->sets[i], err)) return MAIN_ERR;
    if (fleet_seed(&m->fleet, o->seed)) return buf_fail(err, MAIN_ERR, "out of memory");
    if (o->log_file && fleet_open_logs(&m->fleet, o->log_file, o->log_subsecond, err))
        return MAIN_ERR;
    return 0;
}

/* SageMaker Runtime's settings, keys and request log. */
static int main_invoke(struct main_state *m, struct buf *err) {
    const struct options *o = &m->opts;
    struct invoke *inv = &m->inv;
    inv->fleet = &m->fleet;
    inv->rng = o->seed;
    snprintf(inv->region, sizeof inv->region, "%s", o->region);
    snprintf(inv->account, sizeof inv->account, "%s", o->account);
    inv->time_scale = o->time_scale;
    inv->max_duration = o->max_duration;
    inv->log_interval = o->log_interval;
    inv->stream_split = o->stream_split;
    cwlog_init(&m->cwlogs, o->region);
    cwmetric_init(&m->cwmetrics, o->region, o->time_scale);
    inv->cwlogs = &m->cwlogs;
    inv->cwmetrics = &m->cwmetrics;
    if (o->request_log && reqlog_open(&inv->reqlog, o->request_log, err)) return MAIN_ERR;
    if (main_auth(&inv->auth, o, err)) return MAIN_ERR;
    char hex[SIGV4_HEX_LEN + 1]; /* warm up: the first digest loads OpenSSL's configuration */
    return sigv4_sha256_hex("", 0, hex) ? buf_fail(err, MAIN_ERR, "out of memory") : 0;
}

/* The event loop, the server, the signals. */
static int main_serve(struct main_state *m, struct buf *err) {
    const struct options *o = &m->opts;
    struct event_config *cfg = event_config_new();
    if (cfg) event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
    m->base = cfg ? event_base_new_with_config(cfg) : NULL;
    if (cfg) event_config_free(cfg);
    if (!m->base) return buf_fail(err, MAIN_ERR, "libevent failed to start");
    m->inv.base = m->base;
    struct server_config sc = {o->idle_timeout, o->head_timeout, o->body_timeout,
                               o->max_connections, o->max_body_buffer};
    if (server_init(&m->srv, m->base, &m->inv, &sc))
        return buf_fail(err, MAIN_ERR, "out of memory");
    if (o->tls_cert && server_tls(&m->srv, o->tls_cert, o->tls_key, err)) return MAIN_ERR;
    if (server_listen(&m->srv, o->listen, err)) return MAIN_ERR;
    if (o->port_file && main_port_file(o->port_file, m->srv.url, err)) return MAIN_ERR;
    m->sigint_ev = evsignal_new(m->base, SIGINT, main_signal_cb, m->base);
    m->sigterm_ev = evsignal_new(m->base, SIGTERM, main_signal_cb, m->base);
    if (!m->sigint_ev || !m->sigterm_ev || evsignal_add(m->sigint_ev, NULL) ||
        evsignal_add(m->sigterm_ev, NULL))
        return buf_fail(err, MAIN_ERR, "libevent failed to start");
    return rtcall_start(&m->inv) ? buf_fail(err, MAIN_ERR, "out of memory") : 0;
}

/* The control plane (awsapi.h): it sees every request first. */
static int main_control(struct main_state *m, struct buf *err) {
    if (awsapi_init(&m->api, &m->inv, &m->opts, &m->lib, err)) return MAIN_ERR;
    m->srv.route = awsapi_route;
    m->srv.route_ud = &m->api;
    return 0;
}

static void main_teardown(struct main_state *m) {
    server_close(&m->srv);
    if (m->base) event_base_loop(m->base, EVLOOP_NONBLOCK); /* finishes the freed bufferevents */
    awsapi_free(&m->api);
    rtcall_stop(&m->inv);
    fleet_free(&m->fleet);
    if (m->sigint_ev) event_free(m->sigint_ev);
    if (m->sigterm_ev) event_free(m->sigterm_ev);
    if (m->base) event_base_free(m->base);
    auth_free(&m->inv.auth);
    reqlog_close(&m->inv.reqlog);
    cwlog_free(&m->cwlogs);
    cwmetric_free(&m->cwmetrics);
    model_library_free(&m->lib);
    ptok_close();
    options_free(&m->opts);
}

int main(int argc, char **argv) {
    static struct main_state m;
    struct buf err;
    int code = 2;
    buf_init(&err, 4096);
    signal(SIGPIPE, SIG_IGN);
    int rc = options_parse(argc, argv, &m.opts, &err);
    if (rc || m.opts.done) {
        code = rc ? 2 : 0;
    } else if (ptok_open(m.opts.tokenizer, &err) || main_fleet(&m, &err) || main_invoke(&m, &err) ||
               main_serve(&m, &err) || main_control(&m, &err)) {
        if (!err.len) (void)buf_fail(&err, MAIN_ERR, "out of memory");
    } else {
        printf("%s\n", m.srv.url);
        fflush(stdout);
        code = main_run(m.base, m.opts.busy_poll);
    }
    buf_one_line(&err);
    if (err.len) fprintf(stderr, "sm-emulator: %s\n", buf_str(&err));
    main_teardown(&m);
    buf_free(&err);
    return code;
}
