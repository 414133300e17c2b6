/* Byte-level BPE (common/bpe.h) on tokenizer.json files written here, with ids
 * derived by hand, step by step, in the comments. */
#include <stdint.h>
#include <string.h>

#include "../check.h"
#include "bpe.h"

/* Vocabulary: a=0 b=1 c=2 Ġ=3 ab=4 Ġc=5 abc=6 Ġab=7 Ġcab=8 Ċ=9 (Ġ stands for the
 * space byte 0x20, Ċ for the newline 0x0A: GPT-2's byte-to-unicode table).
 * Merges by rank: 0 "a b", 1 "Ġ c", 2 "ab c", 3 "Ġ ab" (one as a pair list). */
#define BPE_TEST_VOCAB                                                                             \
    "\"vocab\":{\"a\":0,\"b\":1,\"c\":2,\"\xC4\xA0\":3,\"ab\":4,\"\xC4\xA0"                        \
    "c\":5,\"abc\":6,\"\xC4\xA0"                                                                   \
    "ab\":7,\"\xC4\xA0"                                                                            \
    "cab\":8,\"\xC4\x8A\":9},"                                                                     \
    "\"merges\":[\"a b\",[\"\xC4\xA0\",\"c\"],\"ab c\",\"\xC4\xA0 ab\"]"

static const char gpt2_json[] =
    "{\"version\":\"1.0\",\"added_tokens\":[],\"normalizer\":null,"
    "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,"
    "\"use_regex\":true},"
    "\"model\":{\"type\":\"BPE\",\"dropout\":null," BPE_TEST_VOCAB "}}";

/* Llama 3's shape: a Split with the file's own pattern, then ByteLevel without
 * its regex, and ignore_merges: a piece that is a token is that token. */
static const char llama3_json[] =
    "{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":["
    "{\"type\":\"Split\",\"pattern\":{\"Regex\":"
    "\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}{1,3}| "
    "?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"},"
    "\"behavior\":\"Isolated\",\"invert\":false},"
    "{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,"
    "\"use_regex\":false}]},"
    "\"model\":{\"type\":\"BPE\",\"ignore_merges\":true," BPE_TEST_VOCAB "}}";

static const struct {
    const char *json, *text;
    int32_t ids[8];
    size_t n;
} rows[] = {
    /* "ab" | " abc" | " cab" (the split). "ab": a b -> ab (rank 0) = [4].
     * "Ġabc": Ġ a b c -> Ġ ab c (rank 0) -> Ġ abc (rank 2 beats "Ġ ab"'s 3) = [3 6].
     * "Ġcab": Ġ c a b -> Ġ c ab (rank 0 before rank 1, though Ġ c is leftmost)
     * -> Ġc ab (rank 1); no merge "Ġc ab" = [5 4]. */
    {gpt2_json, "ab abc cab", {4, 3, 6, 5, 4}, 5},
    /* "a" | "\n" | "b": the newline is its own piece, byte 0x0A is Ċ = [0 9 1]. */
    {gpt2_json, "a\nb", {0, 9, 1}, 3},
    /* The same file with ignore_merges: " cab" is the token Ġcab = [8]; " abc"
     * is merged as before (Ġabc is no token) = [3 6]. */
    {llama3_json, " cab abc", {8, 3, 6}, 3},
    /* Without ignore_merges " cab" goes through the merges = [5 4]. */
    {gpt2_json, " cab", {5, 4}, 2},
    {gpt2_json, "", {0}, 0},
};

static const struct {
    const char *json, *message;
} bad[] = {
    {"{\"model\":{\"type\":\"Unigram\",\"vocab\":[]}}", "t.json: model.type is not BPE"},
    {"{\"pre_tokenizer\":{\"type\":\"Metaspace\"},\"model\":{\"vocab\":{\"a\":0},\"merges\":[]}}",
     "t.json: pre_tokenizer Metaspace is not byte-level BPE's (Split, ByteLevel)"},
    {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"vocab\":{\"a\":0},"
     "\"merges\":[\"ab\"]}}",
     "t.json: model.merges[0] is not \"a b\" nor [\"a\", \"b\"]"},
    {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"vocab\":{\"a\":-1},\"merges\":[]}}",
     "t.json: model.vocab: an id that is no whole number from 0 to 16777216"},
    {"{\"model\":", "t.json: not JSON"},
    /* A string of the file quoted in the message is made one line. */
    {"{\"pre_tokenizer\":{\"type\":\"Byte\nLevel\"},\"model\":{\"vocab\":{\"a\":0},"
     "\"merges\":[]}}",
     "t.json: pre_tokenizer Byte?Level is not byte-level BPE's (Split, ByteLevel)"},
};

int main(void) {
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct buf err;
        buf_init(&err, 512);
        struct bpe *b = NULL;
        int rc = bpe_load(rows[i].json, strlen(rows[i].json), "t.json", &b, &err);
        CHECK_STR(buf_str(&err), "");
        if (rc) continue;
        int32_t ids[16] = {0};
        size_t n = 0;
        CHECK_INT(bpe_encode(b, rows[i].text, strlen(rows[i].text), ids, 16, &n, &err), 0);
        CHECK_INT(n, rows[i].n);
        for (size_t k = 0; k < rows[i].n; k++) CHECK_INT(ids[k], rows[i].ids[k]);
        CHECK_STR(bpe_token(b, 3), "\xC4\xA0");
        CHECK_INT(bpe_size(b), 10);
        bpe_free(b);
        buf_free(&err);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct buf err;
        buf_init(&err, 512);
        struct bpe *b = NULL;
        CHECK_INT(bpe_load(bad[i].json, strlen(bad[i].json), "t.json", &b, &err), BPE_ERR_FORMAT);
        CHECK(b == NULL);
        CHECK_STR(buf_str(&err), bad[i].message);
        buf_free(&err);
    }
    /* A split pattern that backtracks without end stops at PCRE2's match limit:
     * the text is refused, not cut wrongly. */
    static const char slow[] =
        "{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\","
        "\"pattern\":{\"Regex\":\"(a|aa)+(a|aa)+(a|aa)+b\"},\"behavior\":\"Isolated\"},"
        "{\"type\":\"ByteLevel\",\"use_regex\":false}]},\"model\":{\"vocab\":{\"a\":0},"
        "\"merges\":[]}}";
    struct buf err;
    buf_init(&err, 512);
    struct bpe *b = NULL;
    CHECK_INT(bpe_load(slow, strlen(slow), "t.json", &b, &err), 0);
    if (b) {
        char text[64];
        memset(text, 'a', sizeof text - 1);
        memcpy(text + sizeof text - 3, "cb", 3); /* a 'b' to look for, never after the a's */
        size_t n = 0;
        CHECK_INT(bpe_encode(b, text, strlen(text), NULL, 0, &n, &err), BPE_ERR_FORMAT);
        CHECK_STR(buf_str(&err), "the split pattern failed on the text: match limit exceeded");
        bpe_free(b);
    }
    buf_free(&err);
    return check_exit();
}
