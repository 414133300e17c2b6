#include "rscan.h"

#include <math.h>

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* A member read once: the first of its name counts. */
struct rscan_field {
    bool seen;
    bool is_string; /* its value was a string: str */
    struct jscan_str str;
};

struct rscan {
    const char *p, *end;
    bool choices, message, usage, prompt, completion, reasoning, cached; /* member seen */
    bool details, prompt_details; /* the usage's *_details seen */
    struct rscan_field content, text, finish;
    struct rscan_reply *out;
};

/* Whether a member name is the string literal lit. */
#define RSCAN_NAME_IS(name, lit)                                                                   \
    ((name)->n == sizeof(lit) - 1 && memcmp((name)->s, lit, sizeof(lit) - 1) == 0)

/* White space skipped: the next byte, or 0 at the end. */
static int rscan_peek_blank(struct rscan *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
    return s->p < s->end ? (unsigned char)*s->p : 0;
}

/* The next byte after white space, or 0 at the end. */
static inline int rscan_peek(struct rscan *s) {
    if (s->p < s->end && (unsigned char)*s->p > ' ') return (unsigned char)*s->p; /* compact JSON */
    return rscan_peek_blank(s);
}

static inline bool rscan_eat(struct rscan *s, char c) {
    if (rscan_peek(s) != c) return false;
    s->p++;
    return true;
}

#define RSCAN_SHORT 64 /* strings are searched 16 bytes at a time this far, then with memchr */

/* The first quote, backslash or NUL in [p, stop), or stop. */
static inline const char *rscan_special(const char *p, const char *stop) {
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    for (; stop - p >= 16; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                         _mm_cmpeq_epi8(v, _mm_setzero_si128()));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m) return p + __builtin_ctz(m);
    }
#endif
    while (p < stop && *p != '"' && *p != '\\' && *p != '\0') p++;
    return p;
}

/* rscan_plain_end past the first RSCAN_SHORT bytes, from p: memchr's turn. */
static const char *rscan_plain_long(const char *p, const char *end, bool name) {
    const char *quote = memchr(p, '"', (size_t)(end - p));
    if (!quote || memchr(p, '\\', (size_t)(quote - p))) return NULL;
    return name && memchr(p, '\0', (size_t)(quote - p)) ? NULL : quote;
}

/* The closing quote of a string whose text starts at p when no backslash
 * comes before it (nor, in a member name, a NUL), else NULL (or when there
 * is none). */
static inline const char *rscan_plain_end(const char *p, const char *end, bool name) {
    const char *stop = end - p > RSCAN_SHORT ? p + RSCAN_SHORT : end;
    for (p = rscan_special(p, stop); p < stop; p = rscan_special(p + 1, stop))
        if (*p != '\0' || name) return *p == '"' ? p : NULL;
    return p == end ? NULL : rscan_plain_long(p, end, name);
}

/* The string at s->p (its opening quote). */
static bool rscan_string(struct rscan *s, struct jscan_str *out) {
    const char *start = s->p + 1;
    const char *quote = rscan_plain_end(start, s->end, false);
    if (quote) {
        *out = (struct jscan_str){start, (size_t)(quote - start), false};
        s->p = quote + 1;
        return true;
    }
    struct jscan j;
    jscan_init(&j, s->p, (size_t)(s->end - s->p));
    if (jscan_string(&j, out) < 0) return false;
    s->p = j.p;
    return true;
}

/* A member name at s->p: a string without escapes or NUL bytes (cJSON would
 * cut it there), or false. */
static bool rscan_name(struct rscan *s, struct jscan_str *out) {
    if (rscan_peek(s) != '"') return false;
    const char *start = s->p + 1;
    const char *quote = rscan_plain_end(start, s->end, true);
    if (!quote) return false;
    *out = (struct jscan_str){start, (size_t)(quote - start), false};
    s->p = quote + 1;
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
    unsigned long long v = 0; /* wraps past 19 digits, and is then not used */
    while (p < s->end && *p >= '0' && *p <= '9') v = v * 10 + (unsigned)(*p++ - '0');
    size_t n = (size_t)(p - digits);
    if (n == 0 || n > 15 || (n > 1 && *digits == '0') ||
        (p < s->end && (*p == '.' || *p == 'e' || *p == 'E')))
        return rscan_jscan(s, out);
    if (out) *out = *s->p == '-' ? -(double)v : (double)v;
    s->p = p;
    return true;
}

/* Whether the bytes at s->p begin with the string literal lit. */
#define RSCAN_AT(s, lit)                                                                           \
    ((size_t)((s)->end - (s)->p) >= sizeof(lit) - 1 && memcmp((s)->p, lit, sizeof(lit) - 1) == 0)

/* A literal, [] or {} at s->p (its first byte c), skipped; else false. */
static bool rscan_word(struct rscan *s, int c) {
    size_t n = (c == 'n' && RSCAN_AT(s, "null")) || (c == 't' && RSCAN_AT(s, "true")) ? 4
               : c == 'f' && RSCAN_AT(s, "false")                                     ? 5
               : RSCAN_AT(s, "[]") || RSCAN_AT(s, "{}")                               ? 2
                                                                                      : 0;
    s->p += n;
    return n > 0;
}

static bool rscan_skip(struct rscan *s) {
    struct jscan_str str;
    int c = rscan_peek(s);
    if (c == '"') return rscan_string(s, &str);
    if (c == '-' || (c >= '0' && c <= '9')) return rscan_number(s, NULL);
    return rscan_word(s, c) || rscan_jscan(s, NULL);
}

/* Calls member(s, name) for each member of the object at s->p; a member
 * function reads its value or skips it. */
static bool rscan_object(struct rscan *s,
                         bool (*member)(struct rscan *s, const struct jscan_str *name)) {
    if (!rscan_eat(s, '{')) return false;
    if (rscan_eat(s, '}')) return true;
    do {
        struct jscan_str name;
        if (!rscan_name(s, &name) || !rscan_eat(s, ':') || !member(s, &name)) return false;
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
    if (first && c != 'n' && !(c == '-' || (c >= '0' && c <= '9'))) *out = -1; /* another type */
    if (!first || !(c == '-' || (c >= '0' && c <= '9'))) return rscan_skip(s);
    return rscan_number(s, out);
}

static bool rscan_details_member(struct rscan *s, const struct jscan_str *name) {
    if (RSCAN_NAME_IS(name, "reasoning_tokens"))
        return rscan_count(s, &s->reasoning, &s->out->reasoning_tokens);
    return rscan_skip(s);
}

static bool rscan_prompt_details_member(struct rscan *s, const struct jscan_str *name) {
    if (RSCAN_NAME_IS(name, "cached_tokens"))
        return rscan_count(s, &s->cached, &s->out->cached_tokens);
    return rscan_skip(s);
}

static bool rscan_usage_member(struct rscan *s, const struct jscan_str *name) {
    if (RSCAN_NAME_IS(name, "prompt_tokens"))
        return rscan_count(s, &s->prompt, &s->out->prompt_tokens);
    if (RSCAN_NAME_IS(name, "completion_tokens"))
        return rscan_count(s, &s->completion, &s->out->completion_tokens);
    if (RSCAN_NAME_IS(name, "completion_tokens_details") && !s->details) {
        s->details = true; /* the first, as cJSON finds it */
        return rscan_peek(s) == '{' ? rscan_object(s, rscan_details_member) : rscan_skip(s);
    }
    if (RSCAN_NAME_IS(name, "prompt_tokens_details") && !s->prompt_details) {
        s->prompt_details = true;
        return rscan_peek(s) == '{' ? rscan_object(s, rscan_prompt_details_member) : rscan_skip(s);
    }
    return rscan_skip(s);
}

static bool rscan_message_member(struct rscan *s, const struct jscan_str *name) {
    return RSCAN_NAME_IS(name, "content") ? rscan_field(s, &s->content) : rscan_skip(s);
}

static bool rscan_choice_member(struct rscan *s, const struct jscan_str *name) {
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

static bool rscan_root_member(struct rscan *s, const struct jscan_str *name) {
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
    *out = (struct rscan_reply){.prompt_tokens = NAN,
                                .completion_tokens = NAN,
                                .reasoning_tokens = NAN,
                                .cached_tokens = NAN};
    if (!rscan_object(&s, rscan_root_member) || rscan_peek(&s) != 0 || !s.choices) return false;
    const struct rscan_field *text = s.message ? &s.content : &s.text;
    out->message = s.message;
    out->has_text = text->is_string;
    out->text = text->str;
    out->has_finish = s.finish.is_string;
    out->finish = s.finish.str;
    return true;
}
