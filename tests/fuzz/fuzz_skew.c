/* Fuzzes the clock-skew reply reader: the input is a Date header's value and
 * an error message at once. A date that parses must give the same time again
 * from its IMF-fixdate form, and skew_offset must agree with it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skew.h"

#define FUZZ_NOW 1790000000 /* 2026-09-21T14:13:20Z */

static void fuzz_round_trip(time_t t) {
    struct tm tm;
    char again[64];
    time_t t2;
    if (!gmtime_r(&t, &tm) || tm.tm_year > 9999 - 1900) return;
    strftime(again, sizeof again, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (skew_parse_http_date(again, &t2) != 0 || t2 != t) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    time_t t;
    long long offset;
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    int parsed = skew_parse_http_date(s, &t) == 0;
    if (parsed) fuzz_round_trip(t);
    int rc = skew_offset(403, "RequestTimeTooSkewed", NULL, s, FUZZ_NOW, &offset);
    if (rc != (parsed ? 0 : -1) || (parsed && offset != (long long)t - FUZZ_NOW)) abort();
    bool time_error = skew_is_time_error(400, s, s);
    if (skew_offset(400, s, s, "Sun, 06 Nov 1994 08:49:37 GMT", FUZZ_NOW, &offset) !=
        (time_error ? 0 : -1))
        abort();
    free(s);
    return 0;
}
