#include "tok.h"

#include <stdbool.h>

#include "splitmix.h"

static bool tok_word(unsigned char c) {
    return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool tok_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Moves past the token that starts at s[i] (not white space); returns the end. */
static size_t tok_skip(const char *s, size_t len, size_t i) {
    if (!tok_word((unsigned char)s[i])) return i + 1;
    while (i < len && tok_word((unsigned char)s[i])) i++;
    return i;
}

size_t tok_prefix(const char *s, size_t len, size_t n) {
    size_t i = 0, end = 0;
    for (size_t seen = 0; seen < n; seen++) {
        while (i < len && tok_space((unsigned char)s[i])) i++;
        if (i == len) break;
        end = i = tok_skip(s, len, i);
    }
    return end;
}

size_t tok_next(const char *s, size_t len, size_t at) {
    size_t i = at;
    while (i < len && tok_space((unsigned char)s[i])) i++;
    return i < len ? tok_skip(s, len, i) : at;
}

size_t tok_count(const char *s, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        if (tok_space((unsigned char)s[i])) {
            i++;
            continue;
        }
        i = tok_skip(s, len, i);
        n++;
    }
    return n;
}

static const char *const tok_words[] = {
    "the",     "keeper",  "climbed", "stairs", "of",     "old",    "lighthouse", "and",
    "watched", "waves",   "break",   "on",     "black",  "rocks",  "while",      "gulls",
    "circled", "above",   "a",       "lamp",   "turned", "slowly", "in",         "salt",
    "wind",    "night",   "fell",    "over",   "quiet",  "island", "ships",      "passed",
    "far",     "beyond",  "reef",    "he",     "wrote",  "every",  "storm",      "into",
    "his",     "logbook", "before",  "dawn",   "grey",   "fog",    "rolled",     "across",
    "harbour", "where",   "boats",   "rested", "near",   "cliffs",
};

int tok_filler(struct buf *out, size_t n, uint64_t seed) {
    const size_t nwords = sizeof tok_words / sizeof *tok_words;
    uint64_t state = seed;
    size_t in_sentence = 0, sentence_len = 8 + splitmix_next(&state) % 7;
    for (size_t i = 0; i < n; i++) {
        int rc;
        if (in_sentence == sentence_len || (i + 1 == n && in_sentence > 0)) {
            rc = buf_addc(out, '.');
            in_sentence = 0;
            sentence_len = 8 + splitmix_next(&state) % 7;
        } else {
            const char *w = tok_words[splitmix_next(&state) % nwords];
            rc = buf_addf(out, "%s%s", (i > 0) ? " " : "", w);
            in_sentence++;
        }
        if (rc) return rc;
    }
    return 0;
}
