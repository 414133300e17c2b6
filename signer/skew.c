#include "skew.h"

#include <string.h>
#include <strings.h>

static const char *const skew_months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const char *const skew_days[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
static const char *const skew_long_days[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                             "Friday", "Saturday", "Sunday"};

bool skew_is_time_error(int status, const char *code, const char *message) {
    static const char *const codes[] = {"RequestTimeTooSkewed", "RequestExpired",
                                        "RequestInTheFuture"};
    if (status != 403 && status != 400) return false;
    for (size_t i = 0; code && i < sizeof codes / sizeof *codes; i++)
        if (strcmp(code, codes[i]) == 0) return true;
    return message && (strcasestr(message, "Signature expired") ||
                       strcasestr(message, "Signature not yet current"));
}

/* Parses exactly n digits at *p and moves past them; -1 when they are not digits. */
static int skew_num(const char **p, int n) {
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9') return -1;
        v = v * 10 + (**p - '0');
    }
    return v;
}

/* Matches one of names (3 letters or whole words) at *p and moves past it; -1 if none. */
static int skew_name(const char **p, const char *const *names, int count) {
    for (int i = 0; i < count; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(*p, names[i], n) == 0) {
            *p += n;
            return i;
        }
    }
    return -1;
}

static bool skew_lit(const char **p, const char *lit) {
    size_t n = strlen(lit);
    if (strncmp(*p, lit, n) != 0) return false;
    *p += n;
    return true;
}

/* "HH:MM:SS" into tm. */
static bool skew_clock(const char **p, struct tm *tm) {
    tm->tm_hour = skew_num(p, 2);
    if (!skew_lit(p, ":")) return false;
    tm->tm_min = skew_num(p, 2);
    if (!skew_lit(p, ":")) return false;
    tm->tm_sec = skew_num(p, 2);
    return tm->tm_hour >= 0 && tm->tm_hour < 24 && tm->tm_min >= 0 && tm->tm_min < 60 &&
           tm->tm_sec >= 0 && tm->tm_sec <= 60;
}

/* "06 Nov 1994 08:49:37 GMT" */
static bool skew_imf(const char *p, struct tm *tm) {
    tm->tm_mday = skew_num(&p, 2);
    if (!skew_lit(&p, " ") || (tm->tm_mon = skew_name(&p, skew_months, 12)) < 0 ||
        !skew_lit(&p, " "))
        return false;
    tm->tm_year = skew_num(&p, 4) - 1900;
    return skew_lit(&p, " ") && skew_clock(&p, tm) && skew_lit(&p, " GMT") && !*p;
}

/* "06-Nov-94 08:49:37 GMT"; two-digit years from 70 are 19xx, the rest 20xx. */
static bool skew_rfc850(const char *p, struct tm *tm) {
    tm->tm_mday = skew_num(&p, 2);
    if (!skew_lit(&p, "-") || (tm->tm_mon = skew_name(&p, skew_months, 12)) < 0 ||
        !skew_lit(&p, "-"))
        return false;
    int yy = skew_num(&p, 2);
    tm->tm_year = yy < 0 ? -1 : yy >= 70 ? yy : yy + 100;
    return skew_lit(&p, " ") && skew_clock(&p, tm) && skew_lit(&p, " GMT") && !*p;
}

/* "Nov  6 08:49:37 1994" */
static bool skew_asctime(const char *p, struct tm *tm) {
    if ((tm->tm_mon = skew_name(&p, skew_months, 12)) < 0 || !skew_lit(&p, " ")) return false;
    if (*p == ' ') {
        p++;
        tm->tm_mday = skew_num(&p, 1);
    } else {
        tm->tm_mday = skew_num(&p, 2);
    }
    if (!skew_lit(&p, " ") || !skew_clock(&p, tm) || !skew_lit(&p, " ")) return false;
    tm->tm_year = skew_num(&p, 4) - 1900;
    return !*p;
}

int skew_parse_http_date(const char *s, time_t *out) {
    struct tm tm = {0};
    const char *p = s, *q = s;
    bool ok = false;
    if (!s) return -1;
    if (skew_name(&p, skew_long_days, 7) >= 0 && skew_lit(&p, ", "))
        ok = skew_rfc850(p, &tm);
    else if (skew_name(&q, skew_days, 7) >= 0)
        ok = skew_lit(&q, ", ") ? skew_imf(q, &tm) : skew_lit(&q, " ") && skew_asctime(q, &tm);
    if (!ok || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_year < 70) return -1;
    *out = timegm(&tm);
    return 0;
}

int skew_offset(int status, const char *code, const char *message, const char *date,
                time_t local_now, long long *offset) {
    time_t server;
    if (!skew_is_time_error(status, code, message) || skew_parse_http_date(date, &server))
        return -1;
    *offset = (long long)server - (long long)local_now;
    return 0;
}
