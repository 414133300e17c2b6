#include "rscan.h"

#include <stdint.h>
#include <string.h>

/* A member read once: the first of its name counts. */
struct rscan_field {
    bool seen;
    bool is_string; /* its value was a string: str */
    struct jstr str;
};

struct rscan {
    const char *p, *end;
    bool choices, message, usage, prompt, completion; /* member seen */
    struct rscan_field content, text, finish;
    struct rscan_reply *out;
};

/* Whether a member name is the string literal lit. */
#define RSCAN_NAME_IS(name, lit)                                                                   \
    ((name)->n == sizeof(lit) - 1 && memcmp((name)->s, lit, sizeof(lit) - 1) == 0)

/* The next byte after white space, or 0 at the end. */
static int rscan_peek(struct rscan *s) {
    if (s->p < s->end && (unsigned char)*s->p > ' ') return (unsigned char)*s->p; /* compact JSON */
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
    return s->p < s->end ? (unsigned char)*s->p : 0;
}

static bool rscan_eat(struct rscan *s, char c) {
    if (rscan_peek(s) != c) return false;
    s->p++;
    return true;
}

#define RSCAN_SHORT 64 /* strings are searched 8 bytes at a time this far, then with memchr */

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RSCAN_ONES  0x0101010101010101ULL
#define RSCAN_HIGHS 0x8080808080808080ULL

/* The top bit of each zero byte of w (the lowest one is exact: a borrow only
 * runs upwards from a zero byte, so no false flag comes below it). */
static uint64_t rscan_zeros(uint64_t w) {
    return (w - RSCAN_ONES) & ~w & RSCAN_HIGHS;
}
#endif

/* The first quote or backslash in [p, end), or end. */
static const char *rscan_special(const char *p, const char *end) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t m = rscan_zeros(w ^ (RSCAN_ONES * '"')) | rscan_zeros(w ^ (RSCAN_ONES * '\\'));
        if (m) return p + __builtin_ctzll(m) / 8;
    }
#endif
    while (p < end && *p != '"' && *p != '\\') p++;
    return p;
}

/* Whether n bytes at p hold a NUL (a member name is short: no call to memchr). */
static bool rscan_has_nul(const char *p, size_t n) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        if (rscan_zeros(w)) return true;
    }
#endif
    for (; n > 0; p++, n--)
        if (*p == '\0') return true;
    return false;
}

/* The closing quote of a string starting at p when no backslash comes before
 * it, else NULL (or when there is none). */
static const char *rscan_plain_end(const char *p, const char *end) {
    const char *stop = end - p > RSCAN_SHORT ? p + RSCAN_SHORT : end;
    p = rscan_special(p, stop);
    if (p < stop) return *p == '"' ? p : NULL;
    if (p == end) return NULL;
    const char *quote = memchr(p, '"', (size_t)(end - p));
    return quote && !memchr(p, '\\', (size_t)(quote - p)) ? quote : NULL;
}

/* The string at s->p (its opening quote). */
static bool rscan_string(struct rscan *s, struct jstr *out) {
    const char *start = s->p + 1;
    const char *quote = rscan_plain_end(start, s->end);
    if (quote) {
        *out = (struct jstr){start, (size_t)(quote - start), false};
        s->p = quote + 1;
        return true;
    }
    struct jscan j;
    jscan_init(&j, s->p, (size_t)(s->end - s->p));
    if (jscan_string(&j, out) < 0) return false;
    s->p = j.p;
    return true;
}

/* The value at s->p read by jscan: skipped, or a number into *number. */
static bool rscan_jscan(struct rscan *s, double *number) {
    struct jscan j;
    jscan_init(&j, s->p, (size_t)(s->end - s->p));
    if ((number ? jscan_number(&j, number) : jscan_skip(&j)) < 0) return false;
    s->p = j.p;
    return true;
}

/* The number at s->p, into *out when out is not NULL: a plain integer (a
 * reply's numbers are) here, any other by jscan. */
static bool rscan_number(struct rscan *s, double *out) {
    const char *digits = s->p + (*s->p == '-'), *p = digits;
    while (p < s->end && *p >= '0' && *p <= '9') p++;
    size_t n = (size_t)(p - digits);
    if (n == 0 || n > 15 || (n > 1 && *digits == '0') ||
        (p < s->end && (*p == '.' || *p == 'e' || *p == 'E')))
        return rscan_jscan(s, out);
    long long v = 0;
    for (const char *d = digits; d < p; d++) v = v * 10 + (*d - '0');
    if (out) *out = *s->p == '-' ? -(double)v : (double)v;
    s->p = p;
    return true;
}

static bool rscan_skip(struct rscan *s) {
    struct jstr str;
    int c = rscan_peek(s);
    if (c == '"') return rscan_string(s, &str);
    if (c == '-' || (c >= '0' && c <= '9')) return rscan_number(s, NULL);
    if (c == 'n' && s->end - s->p >= 4 && memcmp(s->p, "null", 4) == 0) {
        s->p += 4;
        return true;
    }
    return rscan_jscan(s, NULL);
}

/* Calls member(s, name) for each member of the object at s->p; a member
 * function reads its value or skips it. */
static bool rscan_object(struct rscan *s,
                         bool (*member)(struct rscan *s, const struct jstr *name)) {
    if (!rscan_eat(s, '{')) return false;
    if (rscan_eat(s, '}')) return true;
    do {
        struct jstr name;
        if (rscan_peek(s) != '"' || !rscan_string(s, &name) || name.escaped ||
            rscan_has_nul(name.s, name.n) || !rscan_eat(s, ':') || !member(s, &name))
            return false;
    } while (rscan_eat(s, ','));
    return rscan_eat(s, '}');
}

/* A string member; a value of another type counts as none. */
static bool rscan_field(struct rscan *s, struct rscan_field *f) {
    bool first = !f->seen;
    f->seen = true;
    if (!first || rscan_peek(s) != '"') return rscan_skip(s);
    f->is_string = true;
    return rscan_string(s, &f->str);
}

/* A count; a value that is not a number counts as none. */
static bool rscan_count(struct rscan *s, bool *seen, double *out) {
    int c = rscan_peek(s);
    bool first = !*seen;
    *seen = true;
    if (!first || !(c == '-' || (c >= '0' && c <= '9'))) return rscan_skip(s);
    return rscan_number(s, out);
}

static bool rscan_usage_member(struct rscan *s, const struct jstr *name) {
    if (RSCAN_NAME_IS(name, "prompt_tokens"))
        return rscan_count(s, &s->prompt, &s->out->prompt_tokens);
    if (RSCAN_NAME_IS(name, "completion_tokens"))
        return rscan_count(s, &s->completion, &s->out->completion_tokens);
    return rscan_skip(s);
}

static bool rscan_message_member(struct rscan *s, const struct jstr *name) {
    return RSCAN_NAME_IS(name, "content") ? rscan_field(s, &s->content) : rscan_skip(s);
}

static bool rscan_choice_member(struct rscan *s, const struct jstr *name) {
    if (RSCAN_NAME_IS(name, "message") && !s->message) {
        s->message = true; /* any value; only an object's content is text */
        return rscan_peek(s) == '{' ? rscan_object(s, rscan_message_member) : rscan_skip(s);
    }
    if (RSCAN_NAME_IS(name, "text")) return rscan_field(s, &s->text);
    if (RSCAN_NAME_IS(name, "finish_reason")) return rscan_field(s, &s->finish);
    return rscan_skip(s);
}

/* choices: an array whose first element is an object. */
static bool rscan_choices(struct rscan *s) {
    if (!rscan_eat(s, '[') || rscan_peek(s) != '{' || !rscan_object(s, rscan_choice_member))
        return false;
    while (rscan_eat(s, ','))
        if (!rscan_skip(s)) return false;
    return rscan_eat(s, ']');
}

static bool rscan_root_member(struct rscan *s, const struct jstr *name) {
    if (RSCAN_NAME_IS(name, "choices") && !s->choices) {
        s->choices = true;
        return rscan_choices(s);
    }
    if (RSCAN_NAME_IS(name, "usage") && !s->usage) {
        s->usage = true; /* not an object: no counts, as with cJSON */
        return rscan_peek(s) == '{' ? rscan_object(s, rscan_usage_member) : rscan_skip(s);
    }
    return rscan_skip(s);
}

bool rscan_vllm(const char *body, size_t len, struct rscan_reply *out) {
    struct rscan s = {.p = body, .end = body + len, .out = out};
    *out = (struct rscan_reply){.prompt_tokens = -1, .completion_tokens = -1};
    if (!rscan_object(&s, rscan_root_member) || rscan_peek(&s) != 0 || !s.choices) return false;
    const struct rscan_field *text = s.message ? &s.content : &s.text;
    out->message = s.message;
    out->has_text = text->is_string;
    out->text = text->str;
    out->has_finish = s.finish.is_string;
    out->finish = s.finish.str;
    return true;
}
