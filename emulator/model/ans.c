#include "ans.h"

#include <stdio.h>
#include <string.h>

struct ans_capital {
    const char *country;
    const char *city;
};

static const struct ans_capital ans_capitals[] = {
    {"Argentina", "Buenos Aires"},
    {"Australia", "Canberra"},
    {"Austria", "Vienna"},
    {"Brazil", "Brasília"},
    {"Canada", "Ottawa"},
    {"Chile", "Santiago"},
    {"China", "Beijing"},
    {"Egypt", "Cairo"},
    {"France", "Paris"},
    {"Germany", "Berlin"},
    {"Greece", "Athens"},
    {"India", "New Delhi"},
    {"Indonesia", "Jakarta"},
    {"Ireland", "Dublin"},
    {"Italy", "Rome"},
    {"Japan", "Tokyo"},
    {"Kenya", "Nairobi"},
    {"Mexico", "Mexico City"},
    {"Morocco", "Rabat"},
    {"New Zealand", "Wellington"},
    {"Nigeria", "Abuja"},
    {"Norway", "Oslo"},
    {"Pakistan", "Islamabad"},
    {"Peru", "Lima"},
    {"Poland", "Warsaw"},
    {"Portugal", "Lisbon"},
    {"South Korea", "Seoul"},
    {"Spain", "Madrid"},
    {"Sweden", "Stockholm"},
    {"Switzerland", "Bern"},
    {"Thailand", "Bangkok"},
    {"Turkey", "Ankara"},
    {"Vietnam", "Hanoi"},
};

/* Reads an optionally signed decimal at *p; advances *p. */
static bool ans_number(const char **p, const char *end, long *out) {
    const char *s = *p;
    bool neg = s < end && *s == '-';
    if (neg) s++;
    if (s == end || *s < '0' || *s > '9') return false;
    long v = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        if (v > 100000000L) return false;
        v = v * 10 + (*s - '0');
    }
    *out = neg ? -v : v;
    *p = s;
    return true;
}

/* Matches the literal lit at *p; advances *p. */
static bool ans_lit(const char **p, const char *end, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0) return false;
    *p += n;
    return true;
}

static bool ans_arith(const char *p, const char *end, struct ans_question *q) {
    if (!ans_number(&p, end, &q->a)) return false;
    if (ans_lit(&p, end, " * ") && ans_number(&p, end, &q->b) && ans_lit(&p, end, "?")) {
        q->kind = ANS_MUL;
        snprintf(q->key, sizeof q->key, "mul:%ld:%ld", q->a, q->b);
        return true;
    }
    if (ans_lit(&p, end, " + ") && ans_number(&p, end, &q->b) && ans_lit(&p, end, " - ") &&
        ans_number(&p, end, &q->c) && ans_lit(&p, end, "?")) {
        q->kind = ANS_ADD;
        snprintf(q->key, sizeof q->key, "add:%ld:%ld:%ld", q->a, q->b, q->c);
        return true;
    }
    return false;
}

bool ans_parse(const char *prompt, size_t len, struct ans_question *q) {
    const char *p = prompt, *end = prompt + len;
    memset(q, 0, sizeof *q);
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) p++;
    if (!ans_lit(&p, end, "What is ")) return false;
    if (ans_lit(&p, end, "the capital of ")) {
        const char *mark = memchr(p, '?', (size_t)(end - p));
        size_t n = mark ? (size_t)(mark - p) : 0;
        if (!n || n + 4 >= sizeof q->key || memchr(p, '\0', n))
            return false; /* the key must hold the whole name */
        q->kind = ANS_CAP;
        snprintf(q->key, sizeof q->key, "cap:%.*s", (int)n, p);
        return true;
    }
    if (ans_arith(p, end, q)) return true;
    q->kind = ANS_NONE;
    return false;
}

bool ans_correct(const struct ans_question *q, struct buf *out) {
    switch (q->kind) {
    case ANS_MUL:
        return buf_addf(out, "%ld", q->a * q->b) == 0;
    case ANS_ADD:
        return buf_addf(out, "%ld", q->a + q->b - q->c) == 0;
    case ANS_CAP:
        for (size_t i = 0; i < sizeof ans_capitals / sizeof *ans_capitals; i++)
            if (strcmp(q->key + 4, ans_capitals[i].country) == 0)
                return buf_adds(out, ans_capitals[i].city) == 0;
        return false;
    case ANS_NONE:
        break;
    }
    return false;
}
