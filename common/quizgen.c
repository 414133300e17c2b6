#include "quizgen.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "jsonw.h"

static const char *const quizgen_names[QUIZGEN_FAMILIES] = {"arith", "extract", "format"};

static const char *const quizgen_topics[] = {
    "rivers",  "mountains", "bread",  "winter",   "trains",  "gardens", "music",  "the sea",
    "bridges", "libraries", "coffee", "bicycles", "forests", "markets", "clocks", "islands",
};
static const char *const quizgen_words[] = {
    "quiet", "green", "stone", "river", "light", "warm",   "slow", "open",
    "small", "round", "clear", "early", "deep",  "bright", "soft", "plain",
};
static const char *const quizgen_cities[] = {
    "Lyon", "Porto", "Graz", "Gdansk", "Malmo", "Ghent", "Bergen", "Turin", "Seville", "Leeds",
};
static const char *const quizgen_people[] = {
    "Kim Park", "Ana Silva", "Omar Haddad", "Lena Berg", "Ravi Nair", "Mia Costa", "Tom Reid",
};
static const char *const quizgen_keys_s[] = {"name", "title", "place", "color", "label"};
static const char *const quizgen_keys_i[] = {"count", "year", "size", "rank", "total"};
/* required and forbidden words: never a word of the replies' own text */
static const char *const quizgen_use[] = {"anchor", "velvet", "copper", "lantern", "maple",
                                          "pebble", "ribbon", "saddle", "thimble", "walnut"};
static const char *const quizgen_endings[] = {"Is there anything else?", "That is all for now.",
                                              "Thank you for reading.", "End of answer."};

#define QUIZGEN_N(a)     (sizeof(a) / sizeof *(a))
#define QUIZGEN_SUBJECTS 2560u /* 16 words, 16 topics, 10 cities */

_Static_assert(QUIZGEN_N(quizgen_words) == 16 && QUIZGEN_N(quizgen_topics) == 16 &&
                   QUIZGEN_N(quizgen_cities) == 10,
               "the subjects' walk assumes 16 x 16 x 10");

static const char *const quizgen_questions[] = {
    "Which city was it shipped to?",
    "Who packed it?",
    "How many kilograms did it weigh?",
    "What is the order number?",
};

/* --- randomness: one splitmix64 stream per item --- */

static uint64_t quizgen_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned quizgen_below(uint64_t *s, unsigned n) {
    return (unsigned)(quizgen_next(s) % n);
}

static long quizgen_digits(uint64_t *s, unsigned digits) {
    long lo = 1;
    for (unsigned i = 1; i < digits; i++) lo *= 10;
    return lo + (long)(quizgen_next(s) % (uint64_t)(9 * lo));
}

/* FNV-1a of a prompt: the replies' own choices, the same for the same prompt. */
static uint64_t quizgen_hash(const char *s, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

const char *quizgen_family_name(enum quizgen_family f) {
    return (unsigned)f < QUIZGEN_FAMILIES ? quizgen_names[f] : "?";
}

bool quizgen_family_find(const char *name, enum quizgen_family *f) {
    for (unsigned i = 0; i < QUIZGEN_FAMILIES; i++)
        if (strcmp(name, quizgen_names[i]) == 0) {
            *f = (enum quizgen_family)i;
            return true;
        }
    return false;
}

void quizgen_item_init(struct quizgen_item *it) {
    memset(it, 0, sizeof *it);
    buf_init(&it->prompt, BUF_NO_CAP);
    buf_init(&it->answer, BUF_NO_CAP);
    buf_init(&it->pattern, BUF_NO_CAP);
}

void quizgen_item_free(struct quizgen_item *it) {
    buf_free(&it->prompt);
    buf_free(&it->answer);
    buf_free(&it->pattern);
}

/* The pattern of an exact number: not part of a longer number. */
static int quizgen_num_pattern(struct buf *b, long v) {
    return v < 0 ? buf_addf(b, "(?<![\\d.])%ld(?![\\d.])", v)
                 : buf_addf(b, "(?<![\\d.-])%ld(?![\\d.])", v);
}

/* --- making items --- */

/* A number that walks 0..n-1 without repeating as k does (step coprime to n),
 * from an offset of the seed: what keeps a family's prompts distinct. */
static unsigned quizgen_walk(uint64_t seed, unsigned k, unsigned step, unsigned n) {
    uint64_t g = seed;
    return (unsigned)(((uint64_t)k * step + quizgen_next(&g) % n) % n);
}

static int quizgen_arith(uint64_t seed, uint64_t *s, unsigned index, struct quizgen_item *it) {
    unsigned level = 1 + index % 3;
    long v;
    int rc;
    if (index / 3 % 2 == 0) {
        long a = quizgen_digits(s, level + 1), b = quizgen_digits(s, level + 1);
        if (level == 1) { /* the 8100 pairs of two digits, each once */
            unsigned pair = quizgen_walk(seed, index / 6, 4099, 8100);
            a = 10 + pair % 90;
            b = 10 + pair / 90;
        }
        v = a * b;
        rc = buf_addf(&it->prompt,
                      "Compute %ld * %ld (difficulty level %u of 3). Reply with the number only.",
                      a, b, level);
    } else {
        long a = quizgen_digits(s, level + 2), b = quizgen_digits(s, level + 2),
             c = quizgen_digits(s, level + 2);
        v = a + b - c;
        rc = buf_addf(&it->prompt,
                      "Compute %ld + %ld - %ld (difficulty level %u of 3). Reply with the number "
                      "only.",
                      a, b, c, level);
    }
    return rc | buf_addf(&it->answer, "%ld", v) | quizgen_num_pattern(&it->pattern, v);
}

static int quizgen_extract(uint64_t seed, uint64_t *s, unsigned index, struct quizgen_item *it) {
    unsigned order = 1000 + quizgen_walk(seed, index, 7919, 9000), kg = 2 + quizgen_below(s, 60);
    const char *who = quizgen_people[quizgen_below(s, QUIZGEN_N(quizgen_people))];
    const char *city = quizgen_cities[quizgen_below(s, QUIZGEN_N(quizgen_cities))];
    unsigned q = index % QUIZGEN_N(quizgen_questions);
    int rc = buf_addf(&it->prompt,
                      "Read the record, then answer. Record: \"Order %u was packed by %s and "
                      "shipped to %s; it weighed %u kg.\" Question: %s Reply with the answer only.",
                      order, who, city, kg, quizgen_questions[q]);
    switch (q) {
    case 0:
    case 1: {
        const char *t = q == 0 ? city : who;
        return rc | buf_adds(&it->answer, t) | buf_addf(&it->pattern, "(?i)\\b%s\\b", t);
    }
    default: {
        long v = q == 2 ? (long)kg : (long)order;
        return rc | buf_addf(&it->answer, "%ld", v) | quizgen_num_pattern(&it->pattern, v);
    }
    }
}

/* The checks of an exact count: n drawn from lo to lo + span - 1; the prompt
 * takes the subject and n (n first when count_first), the pattern n - 1. */
struct quizgen_count {
    const char *prompt, *pattern;
    unsigned lo, span;
    bool count_first;
};

static const struct quizgen_count quizgen_counts[] = {
    {"Write about %s in exactly %u words, all in lowercase letters, with no punctuation.",
     "^\\p{Ll}++(?:\\s++\\p{Ll}++){%u}$", 5, 11, false},
    {"List exactly %u ideas about %s as a bulleted list: each line starts with \"- \", and "
     "nothing else.",
     "^(?:- [^\\n]++\\n){%u}- [^\\n]++$", 3, 4, true},
};

static int quizgen_counted(struct quizgen_item *it, const struct quizgen_count *c, uint64_t *s,
                           const char *topic) {
    unsigned n = c->lo + quizgen_below(s, c->span);
    int rc = c->count_first ? buf_addf(&it->prompt, c->prompt, n, topic)
                            : buf_addf(&it->prompt, c->prompt, topic, n);
    return rc | buf_addf(&it->pattern, c->pattern, n - 1);
}

static int quizgen_format(uint64_t seed, uint64_t *s, unsigned index, struct quizgen_item *it,
                          struct buf *scratch) {
    /* the subject, "quiet rivers in Porto": each of the 2560 once per kind of check */
    unsigned j = quizgen_walk(seed, index / 6, 2053, QUIZGEN_SUBJECTS);
    char topic[80];
    snprintf(topic, sizeof topic, "%s %s in %s", quizgen_words[j % 16], quizgen_topics[j / 16 % 16],
             quizgen_cities[j / 256]);
    int rc = 0;
    switch (index % 6) {
    case 0:
        rc = quizgen_counted(it, &quizgen_counts[0], s, topic);
        break;
    case 1: {
        const char *ks = quizgen_keys_s[quizgen_below(s, QUIZGEN_N(quizgen_keys_s))];
        const char *ki = quizgen_keys_i[quizgen_below(s, QUIZGEN_N(quizgen_keys_i))];
        rc = buf_addf(&it->prompt,
                      "Describe %s as a JSON object with exactly two keys: \"%s\" (a string) and "
                      "\"%s\" (an integer). Reply with the JSON object only.",
                      topic, ks, ki) |
             buf_addf(&it->pattern,
                      "^\\{\\s*(?:\"%s\"\\s*:\\s*\"[^\"\\\\]*+\"\\s*,\\s*\"%s\"\\s*:\\s*-?\\d+|"
                      "\"%s\"\\s*:\\s*-?\\d+\\s*,\\s*\"%s\"\\s*:\\s*\"[^\"\\\\]*+\")\\s*\\}$",
                      ks, ki, ki, ks);
        break;
    }
    case 2: {
        unsigned u = quizgen_below(s, QUIZGEN_N(quizgen_use));
        unsigned x =
            (u + 1 + quizgen_below(s, QUIZGEN_N(quizgen_use) - 1)) % QUIZGEN_N(quizgen_use);
        rc = buf_addf(&it->prompt,
                      "Name three things that belong to %s in one sentence. Use the word \"%s\" "
                      "and do not use the word \"%s\".",
                      topic, quizgen_use[u], quizgen_use[x]) |
             buf_addf(&it->pattern, "(?is)^(?=.*\\b%s\\b)(?!.*\\b%s\\b)", quizgen_use[u],
                      quizgen_use[x]);
        break;
    }
    case 3:
        rc = quizgen_counted(it, &quizgen_counts[1], s, topic);
        break;
    case 4: {
        const char *end = quizgen_endings[quizgen_below(s, QUIZGEN_N(quizgen_endings))];
        rc = buf_addf(&it->prompt,
                      "Say something about %s in one sentence, and end your reply with the exact "
                      "words \"%s\".",
                      topic, end) |
             buf_addf(&it->pattern, "\\Q%s\\E$", end);
        break;
    }
    default:
        rc = buf_addf(&it->prompt, "Write one sentence about %s in capital letters only.", topic) |
             buf_adds(&it->pattern, "^[^\\p{Ll}\\p{Lu}]*+\\p{Lu}[^\\p{Ll}]*+$");
        break;
    }
    /* the answer: an example of a reply that passes */
    enum quizgen_family f;
    buf_reset(scratch);
    if (rc || !quizgen_reply(it->prompt.data, it->prompt.len, true, &f, scratch)) return -1;
    return buf_add(&it->answer, scratch->data, scratch->len);
}

int quizgen_make(uint64_t seed, enum quizgen_family f, unsigned index, struct quizgen_item *it) {
    uint64_t s = seed ^ ((uint64_t)(f + 1) * 0xd1b54a32d192ed03ULL) ^
                 ((uint64_t)index * 0x8cb92ba72f3d8dd7ULL);
    (void)quizgen_next(&s);
    buf_reset(&it->prompt);
    buf_reset(&it->answer);
    buf_reset(&it->pattern);
    it->family = f;
    snprintf(it->id, sizeof it->id, "%s-%u", quizgen_family_name(f), index);
    int rc;
    if (f == QUIZGEN_ARITH)
        rc = quizgen_arith(seed, &s, index, it);
    else if (f == QUIZGEN_EXTRACT)
        rc = quizgen_extract(seed, &s, index, it);
    else {
        struct buf scratch;
        buf_init(&scratch, BUF_NO_CAP);
        rc = quizgen_format(seed, &s, index, it, &scratch);
        buf_free(&scratch);
    }
    return rc ? QUIZGEN_ERR_NOMEM : QUIZGEN_OK;
}

/* --- reading a prompt back --- */

struct quizgen_cur {
    const char *p, *end;
};

/* Matches the literal lit at the cursor; advances it. */
static bool quizgen_lit(struct quizgen_cur *c, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0) return false;
    c->p += n;
    return true;
}

/* The text up to the literal stop (at most 80 bytes, no NUL): *s, *n; advances past stop. */
static bool quizgen_upto(struct quizgen_cur *c, const char *stop, const char **s, size_t *n) {
    size_t k = strlen(stop);
    for (const char *q = c->p; q + k <= c->end && q - c->p <= 80; q++) {
        if (*q == '\0') return false;
        if (memcmp(q, stop, k) == 0) {
            *s = c->p;
            *n = (size_t)(q - c->p);
            c->p = q + k;
            return *n > 0;
        }
    }
    return false;
}

static bool quizgen_num(struct quizgen_cur *c, long *v) {
    bool neg = quizgen_lit(c, "-");
    long x = 0;
    const char *start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && c->p - start < 9)
        x = x * 10 + (*c->p++ - '0');
    *v = neg ? -x : x;
    return c->p > start;
}

/* A number within [lo, hi] followed by the literal stop. */
static bool quizgen_count(struct quizgen_cur *c, long lo, long hi, const char *stop, long *v) {
    return quizgen_num(c, v) && *v >= lo && *v <= hi && quizgen_lit(c, stop);
}

static bool quizgen_reply_arith(struct quizgen_cur *c, bool right, struct buf *out) {
    long a, b, x, v;
    if (!quizgen_num(c, &a)) return false;
    if (quizgen_lit(c, " * ") && quizgen_num(c, &b))
        v = a * b;
    else if (quizgen_lit(c, " + ") && quizgen_num(c, &b) && quizgen_lit(c, " - ") &&
             quizgen_num(c, &x))
        v = a + b - x;
    else
        return false;
    if (!quizgen_lit(c, " (difficulty level ")) return false;
    return buf_addf(out, "%ld", right ? v : v + 10) == 0;
}

static bool quizgen_reply_extract(struct quizgen_cur *c, bool right, struct buf *out) {
    long order, kg;
    const char *who, *city;
    size_t nw, nc;
    if (!quizgen_count(c, 1, 99999, " was packed by ", &order) ||
        !quizgen_upto(c, " and shipped to ", &who, &nw) ||
        !quizgen_upto(c, "; it weighed ", &city, &nc) ||
        !quizgen_count(c, 0, 99999, " kg.\" Question: ", &kg))
        return false;
    for (unsigned q = 0; q < QUIZGEN_N(quizgen_questions); q++) {
        if (!quizgen_lit(c, quizgen_questions[q])) continue;
        switch (q) {
        case 0:
            return (right ? buf_add(out, city, nc)
                          : buf_adds(out, strncmp(city, "Leeds", nc) ? "Leeds" : "Lyon")) == 0;
        case 1:
            return (right ? buf_add(out, who, nw)
                          : buf_adds(out,
                                     strncmp(who, "Tom Reid", nw) ? "Tom Reid" : "Kim Park")) == 0;
        default:
            return buf_addf(out, "%ld", (q == 2 ? kg : order) + (right ? 0 : 1)) == 0;
        }
    }
    return false;
}

/* n words of the filler list, chosen by h, in lowercase. */
static int quizgen_filler(struct buf *out, uint64_t h, long n) {
    int rc = 0;
    for (long i = 0; i < n; i++)
        rc |= buf_addf(out, "%s%s", i ? " " : "",
                       quizgen_words[(h >> (i % 8 * 4)) % QUIZGEN_N(quizgen_words)]);
    return rc;
}

static bool quizgen_reply_format(struct quizgen_cur *c, uint64_t h, bool right, struct buf *out) {
    const char *t, *a, *b;
    size_t nt, na, nb;
    long n;
    int rc;
    if (quizgen_lit(c, "Write about ")) {
        if (!quizgen_upto(c, " in exactly ", &t, &nt) ||
            !quizgen_count(c, 1, 99, " words, all", &n))
            return false;
        rc = quizgen_filler(out, h, right ? n : n + 1);
    } else if (quizgen_lit(c, "Describe ")) {
        if (!quizgen_upto(c, " as a JSON object with exactly two keys: \"", &t, &nt) ||
            !quizgen_upto(c, "\" (a string) and \"", &a, &na) ||
            !quizgen_upto(c, "\" (an integer).", &b, &nb))
            return false;
        rc = buf_addf(out,
                      right ? "{\"%.*s\": \"%.*s\", \"%.*s\": %u}"
                            : "{\"%.*s\": \"%.*s\", \"%.*s\": \"%u\"}",
                      (int)na, a, (int)nt, t, (int)nb, b, (unsigned)(h % 90 + 1));
    } else if (quizgen_lit(c, "Name three things that belong to ")) {
        if (!quizgen_upto(c, " in one sentence. Use the word \"", &t, &nt) ||
            !quizgen_upto(c, "\" and do not use the word \"", &a, &na) ||
            !quizgen_upto(c, "\".", &b, &nb))
            return false;
        rc = buf_addf(out, "A %.*s, a cup and a %.*s.", (int)na, a, right ? 4 : (int)nb,
                      right ? "lamp" : b);
    } else if (quizgen_lit(c, "List exactly ")) {
        if (!quizgen_count(c, 1, 99, " ideas about ", &n) ||
            !quizgen_upto(c, " as a bulleted", &t, &nt))
            return false;
        rc = 0;
        for (long i = 0; i < (right ? n : n + 1); i++)
            rc |=
                buf_addf(out, "%s- %s %.*s", i ? "\n" : "",
                         quizgen_words[(h >> (i % 8 * 4)) % QUIZGEN_N(quizgen_words)], (int)nt, t);
    } else if (quizgen_lit(c, "Say something about ")) {
        if (!quizgen_upto(c, " in one sentence, and end your reply with the exact words \"", &t,
                          &nt) ||
            !quizgen_upto(c, "\".", &a, &na))
            return false;
        rc = right ? buf_addf(out, "There is much to say about %.*s. %.*s", (int)nt, t, (int)na, a)
                   : buf_addf(out, "%.*s There is much to say about %.*s.", (int)na, a, (int)nt, t);
    } else if (quizgen_lit(c, "Write one sentence about ")) {
        if (!quizgen_upto(c, " in capital letters only.", &t, &nt)) return false;
        size_t at = out->len;
        rc = buf_addf(out, "%.*s are a fine subject.", (int)nt, t);
        for (size_t i = at; right && !rc && i < out->len; i++)
            out->data[i] = (char)toupper((unsigned char)out->data[i]);
        if (!rc && !right) out->data[at] = (char)toupper((unsigned char)out->data[at]);
    } else
        return false;
    return rc == 0;
}

bool quizgen_reply(const char *prompt, size_t len, bool right, enum quizgen_family *f,
                   struct buf *out) {
    struct quizgen_cur c = {prompt, prompt + len};
    uint64_t h = quizgen_hash(prompt, len);
    if (quizgen_lit(&c, "Compute ")) {
        *f = QUIZGEN_ARITH;
        return quizgen_reply_arith(&c, right, out);
    }
    if (quizgen_lit(&c, "Read the record, then answer. Record: \"Order ")) {
        *f = QUIZGEN_EXTRACT;
        return quizgen_reply_extract(&c, right, out);
    }
    *f = QUIZGEN_FORMAT;
    return quizgen_reply_format(&c, h, right, out);
}

/* --- the file --- */

static int quizgen_question(struct buf *out, const struct quizgen_item *it, bool first) {
    return buf_adds(out, first ? "\n  {\"id\": " : ",\n  {\"id\": ") | jsonw_cstr(out, it->id) |
           buf_adds(out, ", \"kind\": ") | jsonw_cstr(out, quizgen_family_name(it->family)) |
           buf_adds(out, ", \"prompt\": ") | jsonw_str(out, it->prompt.data, it->prompt.len) |
           buf_adds(out, ", \"answer\": ") | jsonw_str(out, it->answer.data, it->answer.len) |
           buf_adds(out, ", \"pattern\": ") | jsonw_str(out, it->pattern.data, it->pattern.len) |
           buf_adds(out, "}");
}

int quizgen_file(uint64_t seed, const enum quizgen_family *fams, size_t nf, unsigned n,
                 struct buf *out) {
    struct quizgen_item it;
    int rc = buf_addf(out,
                      "{\"about\": \"Generated by sm-quiz make: %u items of each family, seed "
                      "%llu. A reply is stripped of surrounding white space and scored correct "
                      "when 'pattern' matches anywhere in it; 'kind' is the item's family and "
                      "'answer' the expected reply or an example of one.\",\n \"generator\": "
                      "{\"seed\": %llu, \"items_per_family\": %u, \"families\": [",
                      n, (unsigned long long)seed, (unsigned long long)seed, n);
    for (size_t k = 0; k < nf; k++)
        rc |= buf_adds(out, k ? ", " : "") | jsonw_cstr(out, quizgen_family_name(fams[k]));
    rc |= buf_adds(out, "]},\n \"settings\": {\"max_tokens\": 128, \"temperature\": 0.0},\n "
                        "\"questions\": [");
    quizgen_item_init(&it);
    /* interleaved: a run cut short still holds as many items of each family */
    for (unsigned i = 0; i < n && !rc; i++)
        for (size_t k = 0; k < nf && !rc; k++)
            rc =
                quizgen_make(seed, fams[k], i, &it) || quizgen_question(out, &it, i == 0 && k == 0);
    quizgen_item_free(&it);
    rc |= buf_adds(out, "\n]}\n");
    return rc ? QUIZGEN_ERR_NOMEM : QUIZGEN_OK;
}
