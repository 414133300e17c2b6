/* sm-stream: wrk's command line and wrk's scenarios, with libcurl in wrk's
 * place, so that a reply's tokens are seen as they arrive (luahost.h runs the
 * scenario, engine.h the senders). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "engine.h"
#include "luahost.h"
#include "sargs.h"
#include "scrub.h"

#define SMS_EXIT_USAGE 2
#define SMS_TIMEOUT_MS 70000ULL /* SageMaker gives the model 60 s */

static const char stream_help[] =
    "Usage: sm-stream [wrk's options] [engine options] -s SCENARIO.lua URL [-- scenario options]\n"
    "\n"
    "Runs a wrk-sagemaker scenario (scenarios/*.lua, or one you wrote for wrk) with a\n"
    "streaming client in wrk's place: every request asks for a streamed reply, and the\n"
    "result files record when the headers, the first token and every later chunk arrived\n"
    "(time to first token, inter-token latency), and apart how long opening a connection\n"
    "took (connect_us, tls_us; 0 when reused). The command is wrk's with one word changed.\n"
    "\n"
    "wrk's options:\n"
    "  -t, --threads N      OS threads, each driving its share of the connections (default 2)\n"
    "  -c, --connections N  concurrent streams, each on its own keep-alive connection; the\n"
    "                       scenario sees one sender per connection (default 10)\n"
    "  -d, --duration T     a cap on the run (default 10s); the run ends by itself when its\n"
    "                       work is done, so give a generous one (e.g. -d 1h)\n"
    "  --timeout T          a reply that takes longer is cut and recorded as a timeout\n"
    "                       (default 70s, wrk's is 2s)\n"
    "  -s, --script FILE    the scenario\n"
    "  -H, --header H       accepted as wrk does and not sent: requests are built and signed\n"
    "                       by the scenario\n"
    "\n"
    "engine options (anywhere before the '--'):\n"
    "  --api stream         InvokeEndpointWithResponseStream:\n"
    "                       POST /endpoints/NAME/invocations-response-stream (the default)\n"
    "  --api openai         SageMaker's OpenAI-compatible route:\n"
    "                       POST /endpoints/NAME/openai/v1/chat/completions (SSE)\n"
    "                       (the scenarios' own --api, after the '--', is wrk's)\n"
    "  --bearer-token-env VAR  with --api openai: send 'Authorization: Bearer' with the token\n"
    "                       in environment variable VAR instead of signing with SigV4\n"
    "                       (a token of 16 characters or more is scrubbed from every output)\n"
    "  --cacert FILE        HTTPS: trust the CA certificates in FILE (PEM)\n"
    "  --insecure           HTTPS: do not verify the server's certificate\n"
    "  --busy-poll          the threads never sleep waiting for the network (each keeps a\n"
    "                       CPU at 100%): no reply waits for a sleeping CPU to wake up,\n"
    "                       for the finest time to first token on a client of its own\n"
    "  -h, --help           this help; '-s SCENARIO URL -- --help' gives the scenario's\n"
    "  -v, --version        the version\n"
    "\n"
    "Example (the local emulator):\n"
    "  sm-stream -t1 -c4 -d1h -s scenarios/sweep.lua http://127.0.0.1:8080 \\\n"
    "      -- --endpoint gemma-4-e2b --endpoint gemma-4-e2b-qat --out 'runs/{label}.json'\n"
    "\n"
    "At its end, with tokens received, it prints its own cost on standard error: the CPU\n"
    "of its threads per token, and the time it spent decoding and recording them (a client\n"
    "near a whole core per thread may have delayed what it measured: add threads). An open\n"
    "loop (rate.lua, replay.lua) adds how its sends kept their times: how many left more\n"
    "than 1 ms after their intended start, how many of those the thread got to that late\n"
    "(it woke late, was busy, or the run fell behind), and how many libcurl left for a\n"
    "later turn of the loop. Each thread stays awake for the last 300 us before a send\n"
    "(its CPU busy meanwhile) rather than sleeping until the very time.\n"
    "\n"
    "Credentials come from the AWS chain (environment, ~/.aws, credential_process, the\n"
    "container, the instance), as for wrk. Exit status: the scenario's (0 done, 2 bad usage,\n"
    "3 stopped early, 4 partial: Ctrl-C or -d, 5 started later than --start-at allows).\n";

/* scheme://authority of url, without its path. */
static char *sms_origin(const char *url) {
    const char *p = strstr(url, "://");
    size_t n = p ? (size_t)(p + 3 - url) + strcspn(p + 3, "/?#") : strlen(url);
    char *out = malloc(n + 1);
    if (out) {
        memcpy(out, url, n);
        out[n] = '\0';
    }
    return out;
}

struct sms_run {
    struct sargs a;
    struct wrkargs seen; /* what the scenario sees: one sender per connection */
    struct lsm_client client;
    struct luahost lua;
    struct lsm_hooks **hooks;
    char *origin;
};

/* The engine's reading of the command line, told to the module. */
static int sms_client(struct sms_run *r, struct buf *err) {
    const char *bearer = NULL;
    if (r->a.bearer_env && !((bearer = getenv(r->a.bearer_env)) && *bearer))
        return buf_fail(err, SMS_EXIT_USAGE, "--bearer-token-env %s: the variable is not set",
                        r->a.bearer_env);
    if (bearer && scrub_add(bearer)) /* a server may echo it: kept out of every output */
        return buf_fail(err, 1, "out of memory");
    if (!r->a.w.timeout_set) r->a.w.timeout_ms = SMS_TIMEOUT_MS;
    r->seen = r->a.w;
    r->seen.threads = r->seen.connections;
    r->client = (struct lsm_client){.name = "sm-stream",
                                    .args = &r->seen,
                                    .host = engine_host(),
                                    .route = r->a.route,
                                    .api = r->a.api,
                                    .bearer = bearer,
                                    .os_threads = r->a.w.threads,
                                    .busy_poll = r->a.busy_poll};
    lsm_set_client(&r->client);
    if (!(r->origin = sms_origin(r->a.w.url))) return buf_fail(err, 1, "out of memory");
    return 0;
}

/* The exit status after luahost's rc: the script's own (os.exit), else
 * failed (the script failed) or 0. */
static int sms_exit(const struct luahost *h, int rc, int failed) {
    return rc == LUAHOST_EXIT ? h->exit_code : rc ? failed : 0;
}

/* The client's own cost, so that a user can tell whether it kept up. */
static void sms_cost(const struct engine_stats *st) {
    const struct slot_cost *c = &st->cost;
    if (!c->tokens || !c->records) return;
    fprintf(stderr,
            "sm-stream: client CPU %.2f s in %.2f s on %zu thread(s) for %llu tokens (%.2f us a "
            "token); decoding and recording them %.3f us a token, making the %llu records %.1f "
            "us each\n",
            st->cpu_s, st->wall_s, st->threads, (unsigned long long)c->tokens,
            st->cpu_s * 1e6 / (double)c->tokens, (double)c->decode_ns / 1e3 / (double)c->tokens,
            (unsigned long long)c->records, (double)c->record_ns / 1e3 / (double)c->records);
}

/* How the open loop's sends kept their times (engine_sends), when it had any. */
static void sms_sends(const struct engine_sends *s) {
    if (!s->sends) return;
    fprintf(stderr,
            "sm-stream: open loop: %zu sends, %zu left more than 1 ms after their time (%zu "
            "of them handed to libcurl that late: the thread got to them late); %zu left on a "
            "later turn of the loop than the one that handed them\n",
            s->sends, s->late, s->late_handed, s->deferred);
}

/* The scenario in every state, then the engine. */
static int sms_go(struct sms_run *r, struct buf *err) {
    size_t n = (size_t)r->a.w.threads;
    int rc = luahost_open(&r->lua, r->a.w.script, r->a.w.url, n, err);
    if (!rc && !(r->hooks = calloc(n, sizeof *r->hooks))) // NOLINT(bugprone-sizeof-expression)
        return buf_fail(err, 1, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) rc = luahost_thread(&r->lua, i, &r->hooks[i], err);
    if (rc) return sms_exit(&r->lua, rc, SMS_EXIT_USAGE);
    struct engine_config cfg = {
        .slot = {.base_url = r->origin,
                 .route = r->a.route,
                 .cacert = r->a.cacert,
                 .insecure = r->a.insecure,
                 .timeout_ms = (long)r->a.w.timeout_ms},
        .n_slots = (size_t)r->a.w.connections,
        .duration_us = (long long)r->a.w.duration_s * 1000000,
        .busy_poll = r->a.busy_poll,
    };
    struct engine_stats st;
    if (engine_run(&cfg, r->hooks, n, &st, err)) return 1;
    rc = sms_exit(&r->lua, luahost_done(&r->lua, err), 1);
    sms_cost(&st);
    sms_sends(&st.sends);
    return rc;
}

int main(int argc, char **argv) {
    struct sms_run r = {0};
    struct buf err;
    buf_init(&err, 1024);
    signal(SIGPIPE, SIG_IGN);
    int rc = sargs_parse(argc, argv, &r.a, &err);
    if (rc == SARGS_HELP) {
        fputs(stream_help, stdout);
        rc = 0;
    } else if (rc == SARGS_VERSION) {
        printf("sm-stream (wrk-sagemaker) %s, %s\n", SM_VERSION, curl_version());
        rc = 0;
    } else if (rc) {
        fprintf(stderr, "sm-stream: %s (see sm-stream --help)\n",
                rc == SARGS_ERR_NOMEM ? "out of memory" : buf_str(&err));
        rc = SMS_EXIT_USAGE;
    } else if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fputs("sm-stream: libcurl cannot start\n", stderr);
        rc = 1;
    } else {
        if ((rc = sms_client(&r, &err)) == 0) rc = sms_go(&r, &err);
        if (rc && err.len) fprintf(stderr, "sm-stream: %s\n", buf_str(&err));
        luahost_close(&r.lua);
        curl_global_cleanup();
    }
    free(r.hooks);
    free(r.origin);
    sargs_free(&r.a);
    buf_free(&err);
    return rc;
}
