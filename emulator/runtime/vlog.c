#include "vlog.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "safeopen.h"
#include "smerr.h"

#define VLOG_API    "(APIServer pid=1) "
#define VLOG_ENGINE "(EngineCore_DP0 pid=81) "

int vlog_open(struct vlog *v, const char *path, bool subsecond, const char *variant,
              struct buf *err) {
    memset(v, 0, sizeof *v);
    v->subsecond = subsecond;
    snprintf(v->stream, sizeof v->stream, "%s/i-emulator", variant);
    v->f = safeopen_stream(path, SAFEOPEN_APPEND, "--log-file", err); /* never via a link */
    return v->f ? VLOG_OK : VLOG_ERR_IO;
}

void vlog_close(struct vlog *v) {
    if (v->f) fclose(v->f);
    v->f = NULL;
}

void vlog_attach(struct vlog *v, struct cwlog *cw, const char *endpoint, const char *variant) {
    v->cw = cw;
    snprintf(v->endpoint, sizeof v->endpoint, "%s", endpoint);
    snprintf(v->stream, sizeof v->stream, "%s/i-emulator", variant);
}

static bool vlog_on(const struct vlog *v) {
    return v->f || v->cw;
}

/* With subsecond: the CloudWatch timestamp and stream that start a line. */
static void vlog_cloudwatch(struct vlog *v, double now) {
    time_t whole = (time_t)now;
    long micros = (long)((now - (double)whole) * 1e6);
    struct tm tm;
    char stamp[32];
    if (!v->subsecond) return;
    if (micros > 999999) micros = 999999;
    gmtime_r(&whole, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(v->f, "%s.%06ld+00:00 %s ", stamp, micros, v->stream);
}

/* Writes one line, text[0..n), written at now: to the file (after the
 * CloudWatch prefix, with subsecond) and as an event of CloudWatch Logs
 * (pinned: a start-up line, kept for good). */
static void vlog_emit(struct vlog *v, double now, const char *text, size_t n, bool pinned) {
    if (v->f) {
        vlog_cloudwatch(v, now);
        fwrite(text, 1, n, v->f);
        fputc('\n', v->f);
        fflush(v->f);
    }
    if (v->cw) (void)!cwlog_add(v->cw, v->endpoint, v->stream, now, text, n, pinned);
}

/* One line: prefix, "INFO MM-DD HH:MM:SS [where] ", then the text. */
__attribute__((format(printf, 6, 7))) static void vlog_line(struct vlog *v, const char *who,
                                                            double now, bool pinned,
                                                            const char *where, const char *fmt,
                                                            ...) {
    time_t whole = (time_t)now;
    struct tm tm;
    char stamp[32];
    struct buf line;
    va_list ap;
    gmtime_r(&whole, &tm);
    strftime(stamp, sizeof stamp, "%m-%d %H:%M:%S", &tm);
    buf_init(&line, BUF_NO_CAP);
    int rc = buf_addf(&line, "%sINFO %s [%s] ", who, stamp, where);
    va_start(ap, fmt);
    if (!rc) rc = buf_vaddf(&line, fmt, ap);
    va_end(ap);
    if (!rc) vlog_emit(v, now, buf_str(&line), line.len, pinned);
    buf_free(&line);
}

/* 723484 -> "723,484". */
static void vlog_thousands(unsigned long n, char out[32]) {
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%lu", n), o = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0) out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
}

void vlog_startup(struct vlog *v, const struct model_profile *p, double now) {
    char kv[32], len[32];
    const char *quant = *p->quantization ? p->quantization : "None";
    if (!vlog_on(v)) return;
    vlog_thousands(p->kv_cache_tokens, kv);
    vlog_thousands(p->max_model_len, len);
    vlog_line(v, VLOG_API, now, true, "api_server.py:1885", "vLLM API server version %s",
              p->vllm_version);
    vlog_line(v, VLOG_API, now, true, "utils.py:326",
              "non-default args: {'model': '%s', 'port': 8080, "
              "'max_model_len': %u}",
              p->model_id, p->max_model_len);
    vlog_line(v, VLOG_ENGINE, now, true, "core.py:77",
              "Initializing a V1 LLM engine (v%s) with config: model='%s', tokenizer='%s', "
              "dtype=%s, max_seq_len=%u, tensor_parallel_size=1, quantization=%s, "
              "enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, "
              "served_model_name=%s, enable_prefix_caching=True",
              p->vllm_version, p->model_id, p->model_id, p->dtype, p->max_model_len, quant,
              p->model_id);
    vlog_line(v, VLOG_ENGINE, now, true, "gpu_model_runner.py:2345",
              "Model loading took %.2f GiB memory and %.6f seconds", p->weights_gib, p->load_s);
    vlog_line(v, VLOG_ENGINE, now, true, "kv_cache_utils.py:1087", "GPU KV cache size: %s tokens",
              kv);
    vlog_line(v, VLOG_ENGINE, now, true, "kv_cache_utils.py:1091",
              "Maximum concurrency for %s tokens per request: %.2fx", len,
              (double)p->kv_cache_tokens / p->max_model_len);
    vlog_line(v, VLOG_API, now, true, "api_server.py:1971",
              "Starting vLLM API server 0 on http://0.0.0.0:8080");
    static const char *const uvicorn[] = {"Started server process [1]",
                                          "Waiting for application startup.",
                                          "Application startup complete."};
    for (size_t i = 0; i < sizeof uvicorn / sizeof *uvicorn; i++) {
        char text[128];
        int n = snprintf(text, sizeof text, VLOG_API "INFO:     %s", uvicorn[i]);
        vlog_emit(v, now, text, (size_t)n, true);
    }
}

void vlog_access(struct vlog *v, double now, const char *path, int status) {
    char text[256];
    if (!vlog_on(v)) return;
    int n = snprintf(text, sizeof text,
                     VLOG_API "INFO:     169.254.178.2:8080 - \"POST %s HTTP/1.1\" %d %s", path,
                     status, smerr_reason(status));
    vlog_emit(v, now, text, n < (int)sizeof text ? (size_t)n : sizeof text - 1, false);
}

void vlog_spec(struct vlog *v, double now, double model_seconds, const struct batch_spec *total) {
    struct batch_spec d = *total;
    const struct batch_spec *was = &v->spec_logged;
    d.drafts -= was->drafts;
    d.draft_tokens -= was->draft_tokens;
    d.accepted -= was->accepted;
    for (size_t i = 0; i < BATCH_SPEC_MAX; i++) d.pos[i] -= was->pos[i];
    v->spec_logged = *total;
    if (!vlog_on(v) || !d.drafts) return;
    char rates[BATCH_SPEC_MAX * 8 + 1] = "";
    for (size_t i = 0, at = 0; i < d.k && i < BATCH_SPEC_MAX; i++)
        at += (size_t)snprintf(rates + at, sizeof rates - at, "%s%.3f", i ? ", " : "",
                               (double)d.pos[i] / (double)d.drafts);
    double secs = model_seconds > 0 ? model_seconds : 1;
    vlog_line(v, VLOG_API, now, false, "metrics.py:113",
              "SpecDecoding metrics: Mean acceptance length: %.2f, Accepted throughput: %.2f "
              "tokens/s, Drafted throughput: %.2f tokens/s, Accepted: %llu tokens, Drafted: %llu "
              "tokens, Per-position acceptance rate: %s, Avg Draft acceptance rate: %.1f%%",
              1 + (double)d.accepted / (double)d.drafts, (double)d.accepted / secs,
              (double)d.draft_tokens / secs, (unsigned long long)d.accepted,
              (unsigned long long)d.draft_tokens, rates,
              d.draft_tokens ? 100.0 * (double)d.accepted / (double)d.draft_tokens : 0.0);
}

void vlog_metrics(struct vlog *v, double now, double model_seconds, unsigned long prompt_tokens,
                  unsigned long gen_tokens, size_t running, size_t waiting, double kv_usage,
                  double prefix_hit_rate) {
    double prompt_rate = model_seconds > 0 ? (double)prompt_tokens / model_seconds : 0;
    double gen_rate = model_seconds > 0 ? (double)gen_tokens / model_seconds : 0;
    bool idle = !prompt_rate && !gen_rate && !v->last_prompt_rate && !v->last_gen_rate;
    v->last_prompt_rate = prompt_rate;
    v->last_gen_rate = gen_rate;
    if (!vlog_on(v) || idle) return;
    vlog_line(v, VLOG_API, now, false, "loggers.py:123",
              "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f "
              "tokens/s, Running: %zu reqs, Waiting: %zu reqs, GPU KV cache usage: %.1f%%, Prefix "
              "cache hit rate: %.1f%%",
              prompt_rate, gen_rate, running, waiting, kv_usage * 100, prefix_hit_rate * 100);
}
