/* sm-emulator: sets up the server from the command line and runs the loop. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "creds.h"
#include "options.h"
#include "rng.h"
#include "server.h"
#include "smerr.h"

static struct srv_endpoint *main_find_endpoint(struct server *s, const char *name) {
    for (size_t i = 0; i < s->n_eps; i++)
        if (strcmp(s->eps[i].name, name) == 0) return &s->eps[i];
    return NULL;
}

/* Adds variant e (its profile from lib or the built-ins), creating its endpoint. */
static int main_add_variant(struct server *s, const struct opt_endpoint *e,
                            const struct model_library *lib, struct buf *err) {
    struct srv_endpoint *ep = main_find_endpoint(s, e->name);
    if (!ep) {
        struct srv_endpoint *eps = realloc(s->eps, (s->n_eps + 1) * sizeof *eps);
        if (!eps) return -1;
        s->eps = eps;
        ep = memset(&eps[s->n_eps++], 0, sizeof *ep);
        snprintf(ep->name, sizeof ep->name, "%s", e->name);
    }
    for (size_t i = 0; i < ep->n_variants; i++) {
        if (strcmp(ep->variants[i].name, e->variant) == 0) {
            (void)!buf_addf(err, "--endpoint %s/%s is given twice", e->name, e->variant);
            return -1;
        }
    }
    struct srv_variant *vs = realloc(ep->variants, (ep->n_variants + 1) * sizeof *vs);
    if (!vs) return -1;
    ep->variants = vs;
    struct srv_variant *var = memset(&vs[ep->n_variants], 0, sizeof *var);
    snprintf(var->name, sizeof var->name, "%s", e->variant);
    if (model_find(lib, e->profile, &var->profile)) {
        (void)!buf_addf(
            err, "--endpoint %s/%s=%s: unknown profile '%s' (bf16-l4, qat-l4, instant%s)", e->name,
            e->variant, e->profile, e->profile, lib->n ? " or one of --profile-file" : "");
        return -1;
    }
    ep->n_variants++;
    return 0;
}

/* Applies one --set to every variant it names. */
static int main_set(struct server *s, const struct opt_set *set, struct buf *err) {
    size_t hits = 0;
    for (size_t e = 0; e < s->n_eps; e++) {
        for (size_t v = 0; v < s->eps[e].n_variants; v++) {
            struct srv_variant *var = &s->eps[e].variants[v];
            char full[140];
            snprintf(full, sizeof full, "%s/%s", s->eps[e].name, var->name);
            if (strcmp(set->target, "*") != 0 && strcmp(set->target, s->eps[e].name) != 0 &&
                strcmp(set->target, full) != 0)
                continue;
            hits++;
            struct buf why;
            buf_init(&why, 512);
            int rc = model_set(&var->profile, set->key, set->value, &why);
            if (rc) (void)!buf_addf(err, "--set %s.%s: %s", set->target, set->key, buf_str(&why));
            buf_free(&why);
            if (rc) return -1;
        }
    }
    if (hits) return 0;
    (void)!buf_addf(err, "--set %s.%s: no endpoint or variant '%s'", set->target, set->key,
                    set->target);
    return -1;
}

/* Seeds, schedulers and back-pointers, once the variants no longer move. */
static void main_wire(struct server *s, uint64_t seed) {
    for (size_t e = 0; e < s->n_eps; e++) {
        for (size_t v = 0; v < s->eps[e].n_variants; v++) {
            struct srv_variant *var = &s->eps[e].variants[v];
            char full[140];
            snprintf(full, sizeof full, "%s/%s", s->eps[e].name, var->name);
            uint64_t base = var->profile.seed ? var->profile.seed : seed ^ rng_hash(full);
            var->srv = s;
            var->ep = &s->eps[e];
            batch_init(&var->batch, &var->profile, base ^ 0x5c4ed);
            var->faults.rng = base ^ 0xfa017;
            var->rng = base ^ 0x1d5;
        }
    }
    s->rng = seed;
}

/* Replaces {endpoint} and {variant} in pattern. */
static int main_log_path(const char *pattern, const char *ep, const char *var, struct buf *out) {
    int rc = 0;
    for (const char *p = pattern; !rc && *p; p++) {
        if (strncmp(p, "{endpoint}", 10) == 0) {
            rc = buf_adds(out, ep);
            p += 9;
        } else if (strncmp(p, "{variant}", 9) == 0) {
            rc = buf_adds(out, var);
            p += 8;
        } else {
            rc = buf_addc(out, *p);
        }
    }
    return rc;
}

static int main_logs(struct server *s, const char *pattern, struct buf *err) {
    size_t total = 0;
    for (size_t e = 0; e < s->n_eps; e++) total += s->eps[e].n_variants;
    bool by_endpoint = strstr(pattern, "{endpoint}"), by_variant = strstr(pattern, "{variant}");
    if (total > 1 && !by_variant && !(by_endpoint && s->n_eps == total)) {
        (void)!buf_addf(err,
                        "--log-file %s: %zu containers would share one file; put {endpoint} "
                        "(and {variant}) in the path",
                        pattern, total);
        return -1;
    }
    for (size_t e = 0; e < s->n_eps; e++) {
        for (size_t v = 0; v < s->eps[e].n_variants; v++) {
            struct buf path;
            buf_init(&path, 4096);
            int rc = main_log_path(pattern, s->eps[e].name, s->eps[e].variants[v].name, &path);
            if (!rc) rc = vlog_open(&s->eps[e].variants[v].log, buf_str(&path), err);
            buf_free(&path);
            if (rc) return -1;
        }
    }
    return 0;
}

static int main_auth(struct server *s, const struct options *o, struct buf *err) {
    time_t now = time(NULL);
    if (auth_init(&s->auth, o->region)) return -1;
    for (size_t i = 0; i < o->n_credentials; i++)
        if (auth_add_text(&s->auth, o->credentials[i], now, err)) return -1;
    if (o->credentials_file && auth_add_file(&s->auth, o->credentials_file, now, err)) return -1;
    if (o->no_env_credentials) goto check;
    struct creds c = {0};
    struct buf why;
    buf_init(&why, 1024);
    struct creds_options copts = {0};
    int rc = creds_resolve(&copts, now, &c, &why);
    if (rc == CREDS_OK)
        rc = auth_add_key(&s->auth, c.access_key_id, c.secret_access_key, c.session_token,
                          c.expiration);
    else if (rc != CREDS_ERR_NOT_FOUND || s->auth.n_keys == 0)
        (void)!buf_addf(err, "credentials from the environment: %s%s", buf_str(&why),
                        rc == CREDS_ERR_NOT_FOUND ? " (set AWS_ACCESS_KEY_ID and "
                                                    "AWS_SECRET_ACCESS_KEY, or use --credential)"
                                                  : "");
    else
        rc = CREDS_OK;
    creds_clear(&c);
    buf_free(&why);
    if (rc) return -1;
check:
    if (s->auth.n_keys) return 0;
    (void)!buf_adds(err, "no credentials to accept: drop --no-env-credentials or give "
                         "--credential / --credentials-file");
    return -1;
}

static int main_port_file(const char *path, const char *url, struct buf *err) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f && fprintf(f, "%s\n", url) > 0 && fclose(f) == 0 && rename(tmp, path) == 0) return 0;
    (void)!buf_addf(err, "--port-file %s: %s", path, strerror(errno));
    if (f) unlink(tmp);
    return -1;
}

static void main_signal_cb(evutil_socket_t sig, short what, void *arg) {
    (void)sig;
    (void)what;
    event_base_loopbreak(arg);
}

/* Runs the loop until SIGINT or SIGTERM; returns the exit code. busy: never sleeps in the
 * poller but polls again and again (due timers run on each turn). */
static int main_run(struct server *s, bool busy) {
    if (!busy) return event_base_dispatch(s->base) < 0 ? 1 : 0;
    int rc = 0; /* 1: no events left, where event_base_dispatch ends too */
    while (rc == 0 && !event_base_got_break(s->base))
        rc = event_base_loop(s->base, EVLOOP_NONBLOCK);
    return rc < 0 ? 1 : 0;
}

static int main_setup(struct server *s, const struct options *o, struct model_library *lib,
                      struct buf *err) {
    if (o->profile_file && model_library_load(lib, o->profile_file, err)) return -1;
    for (size_t i = 0; i < o->n_endpoints; i++)
        if (main_add_variant(s, &o->endpoints[i], lib, err)) return -1;
    for (size_t i = 0; i < o->n_sets; i++)
        if (main_set(s, &o->sets[i], err)) return -1;
    main_wire(s, o->seed);
    snprintf(s->region, sizeof s->region, "%s", o->region);
    snprintf(s->account, sizeof s->account, "%s", o->account);
    s->time_scale = o->time_scale;
    s->max_duration = o->max_duration;
    s->log_interval = o->log_interval;
    s->idle_timeout_real = o->idle_timeout;
    if (o->log_file && main_logs(s, o->log_file, err)) return -1;
    if (o->request_log && reqlog_open(&s->reqlog, o->request_log, err)) return -1;
    if (main_auth(s, o, err)) return -1;
    char hex[SIGV4_HEX_LEN + 1]; /* warm up: the first digest loads OpenSSL's configuration */
    if (sigv4_sha256_hex("", 0, hex)) return -1;
    (void)server_date(s); /* and the first gmtime_r reads the time zone files */
    struct event_config *cfg = event_config_new();
    if (cfg) event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
    s->base = cfg ? event_base_new_with_config(cfg) : NULL;
    if (cfg) event_config_free(cfg);
    if (!s->base) return -1;
    if (o->tls_cert && server_tls(s, o->tls_cert, o->tls_key, err)) return -1;
    if (server_listen(s, o->listen, err)) return -1;
    if (o->port_file && main_port_file(o->port_file, s->url, err)) return -1;
    s->sigint_ev = evsignal_new(s->base, SIGINT, main_signal_cb, s->base);
    s->sigterm_ev = evsignal_new(s->base, SIGTERM, main_signal_cb, s->base);
    if (!s->sigint_ev || !s->sigterm_ev || evsignal_add(s->sigint_ev, NULL) ||
        evsignal_add(s->sigterm_ev, NULL))
        return -1;
    return invoke_start(s);
}

static void main_teardown(struct server *s, struct model_library *lib) {
    server_close(s);
    if (s->base) event_base_loop(s->base, EVLOOP_NONBLOCK); /* finishes the freed bufferevents */
    invoke_stop(s);
    for (size_t e = 0; e < s->n_eps; e++) {
        for (size_t v = 0; v < s->eps[e].n_variants; v++) {
            model_free(&s->eps[e].variants[v].profile);
            vlog_close(&s->eps[e].variants[v].log);
        }
        free(s->eps[e].variants);
    }
    free(s->eps);
    if (s->sigint_ev) event_free(s->sigint_ev);
    if (s->sigterm_ev) event_free(s->sigterm_ev);
    if (s->base) event_base_free(s->base);
    auth_free(&s->auth);
    reqlog_close(&s->reqlog);
    model_library_free(lib);
}

int main(int argc, char **argv) {
    struct options o;
    struct server s = {0};
    struct model_library lib = {0};
    struct buf err;
    int code = 2;
    buf_init(&err, 4096);
    signal(SIGPIPE, SIG_IGN);
    int rc = opt_parse(argc, argv, &o, &err);
    if (rc == OPT_EXIT) code = 0;
    if (rc != OPT_RUN) goto done;
    if (main_setup(&s, &o, &lib, &err)) {
        if (!err.len) (void)!buf_adds(&err, "out of memory or libevent failure");
        goto done;
    }
    printf("%s\n", s.url);
    fflush(stdout);
    code = main_run(&s, o.busy_poll);
done:
    smerr_one_line(&err);
    if (err.len) fprintf(stderr, "sm-emulator: %s\n", buf_str(&err));
    main_teardown(&s, &lib);
    opt_free(&o);
    buf_free(&err);
    return code;
}
