#include "srvlog.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "estim.h"

#define SRVLOG_GEN    "Avg generation throughput: "
#define SRVLOG_PROMPT "Avg prompt throughput: "

/* The rate after key in line[0..n) ("12.3 tokens/s"), or -1. */
static double srvlog_rate(const char *line, size_t n, const char *key) {
    char num[32];
    size_t k = strlen(key);
    for (size_t i = 0; i + k < n; i++) {
        if (memcmp(line + i, key, k) != 0) continue;
        size_t j = 0;
        for (i += k;
             i < n && j + 1 < sizeof num && (isdigit((unsigned char)line[i]) || line[i] == '.');)
            num[j++] = line[i++];
        num[j] = '\0';
        char *end;
        double v = strtod(num, &end);
        bool unit = n - i >= 9 && memcmp(line + i, " tokens/s", 9) == 0;
        return j && !*end && unit && isfinite(v) ? v : -1;
    }
    return -1;
}

/* n digits at s as a number, or -1. */
static int srvlog_digits(const char *s, int n) {
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* "YYYY-MM-DDTHH:MM:SS[.frac](Z|+00:00)" at the start of line (a CloudWatch
 * timestamp): the time and its resolution; false when there is none. */
static bool srvlog_iso(const char *line, size_t n, double *t, double *res) {
    if (n < 20 || line[4] != '-' || line[7] != '-' || line[10] != 'T' || line[13] != ':' ||
        line[16] != ':')
        return false;
    struct tm tm = {0};
    tm.tm_year = srvlog_digits(line, 4) - 1900;
    tm.tm_mon = srvlog_digits(line + 5, 2) - 1;
    tm.tm_mday = srvlog_digits(line + 8, 2);
    tm.tm_hour = srvlog_digits(line + 11, 2);
    tm.tm_min = srvlog_digits(line + 14, 2);
    tm.tm_sec = srvlog_digits(line + 17, 2);
    if (tm.tm_year < 0 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_hour < 0 ||
        tm.tm_min < 0 || tm.tm_sec < 0)
        return false;
    double frac = 0, scale = 1;
    size_t i = 19;
    if (i < n && line[i] == '.')
        for (i++; i < n && isdigit((unsigned char)line[i]) && scale > 1e-9; i++) {
            scale /= 10;
            frac += (line[i] - '0') * scale;
        }
    if (i < n && line[i] != 'Z' && !(n - i >= 6 && memcmp(line + i, "+00:00", 6) == 0))
        return false; /* another time zone: not a CloudWatch timestamp */
    *t = (double)timegm(&tm) + frac;
    *res = scale;
    return true;
}

/* vLLM's "INFO MM-DD HH:MM:SS " in line: l's month, day and seconds into the day
 * (UTC); false when there is none. */
static bool srvlog_vllm_time(const char *line, size_t n, struct srvlog_line *l) {
    for (size_t i = 0; i + 20 <= n; i++) {
        const char *p = line + i;
        if (memcmp(p, "INFO ", 5) != 0 || p[7] != '-' || p[10] != ' ' || p[13] != ':' ||
            p[16] != ':')
            continue;
        int mon = srvlog_digits(p + 5, 2), day = srvlog_digits(p + 8, 2);
        int hh = srvlog_digits(p + 11, 2), mm = srvlog_digits(p + 14, 2);
        int ss = srvlog_digits(p + 17, 2);
        if (mon < 1 || mon > 12 || day < 1 || day > 31 || hh < 0 || hh > 23 || mm < 0 || mm > 59 ||
            ss < 0 || ss > 60)
            return false;
        l->mon = mon;
        l->mday = day;
        l->t = hh * 3600.0 + mm * 60.0 + ss; /* srvlog_place adds the date */
        return true;
    }
    return false;
}

static int srvlog_add(struct srvlog *log, const struct srvlog_line *l) {
    if ((log->n & (log->n - 1)) == 0) { /* grows at powers of two */
        struct srvlog_line *p = realloc(log->lines, (log->n ? 2 * log->n : 1) * sizeof *p);
        if (!p) return -1;
        log->lines = p;
    }
    log->lines[log->n++] = *l;
    return 0;
}

/* One line of the log: added when it is a throughput line with a time. */
static int srvlog_line(struct srvlog *log, const char *line, size_t n) {
    struct srvlog_line l = {.res = 1};
    l.gen_tps = srvlog_rate(line, n, SRVLOG_GEN);
    l.prompt_tps = srvlog_rate(line, n, SRVLOG_PROMPT);
    if (l.gen_tps < 0 || l.prompt_tps < 0) return 0;
    l.year_known = srvlog_iso(line, n, &l.t, &l.res);
    if (!l.year_known && !srvlog_vllm_time(line, n, &l)) return 0;
    return srvlog_add(log, &l);
}

int srvlog_scan(struct srvlog *log, const char *text, size_t n, struct buf *err) {
    const char *p = text, *end = text + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if (srvlog_line(log, p, (size_t)(eol - p)) < 0)
            return buf_fail(err, SRVLOG_ERR_NOMEM, "out of memory");
        p = eol + 1;
    }
    return SRVLOG_OK;
}

/* Unix seconds of the start of day mday of month mon (1..12) of year y (UTC). */
static double srvlog_day(int y, int mon, int mday) {
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mon - 1, .tm_mday = mday};
    return (double)timegm(&tm);
}

static int srvlog_cmp(const void *a, const void *b) {
    double x = ((const struct srvlog_line *)a)->t, y = ((const struct srvlog_line *)b)->t;
    return (x > y) - (x < y);
}

void srvlog_place(struct srvlog *log, double near) {
    time_t at = (time_t)near;
    struct tm tm;
    gmtime_r(&at, &tm);
    int year = tm.tm_year + 1900;
    for (size_t i = 0; i < log->n; i++) {
        struct srvlog_line *l = &log->lines[i];
        if (l->year_known) continue;
        double best = 0;
        for (int y = year - 1; y <= year + 1; y++) {
            double t = srvlog_day(y, l->mon, l->mday) + l->t;
            if (y == year - 1 || fabs(t - near) < fabs(best - near)) best = t;
        }
        l->t = best;
        l->year_known = true;
    }
    if (log->n > 1) qsort(log->lines, log->n, sizeof *log->lines, srvlog_cmp);
}

double srvlog_interval(const struct srvlog *log) {
    if (log->n < 3) return 0;
    double *gaps = malloc((log->n - 1) * sizeof *gaps);
    if (!gaps) return 0;
    for (size_t i = 1; i < log->n; i++) gaps[i - 1] = log->lines[i].t - log->lines[i - 1].t;
    double med = estim_median(gaps, log->n - 1);
    free(gaps);
    if (!(med > 0)) return 0;
    /* the longest run of consecutive lines about med apart gives the gap to a finer grain */
    size_t best_from = 0, best_len = 0, from = 0;
    for (size_t i = 1; i <= log->n; i++) {
        double gap = i < log->n ? log->lines[i].t - log->lines[i - 1].t : -1;
        if (gap > med * 0.5 && gap < med * 1.5) continue;
        if (i - 1 - from > best_len) {
            best_len = i - 1 - from;
            best_from = from;
        }
        from = i;
    }
    if (best_len < 2) return med;
    return (log->lines[best_from + best_len].t - log->lines[best_from].t) / (double)best_len;
}

void srvlog_free(struct srvlog *log) {
    free(log->lines);
    log->lines = NULL;
    log->n = 0;
}
