#include "bpe.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <cjson/cJSON.h>
#include <limits.h>
#include <pcre2.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* GPT-2's split pattern: ByteLevel's own when use_regex is on. */
#define BPE_GPT2_PATTERN                                                                           \
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"
#define BPE_MAX_TOKEN 1024 /* the longest token text kept from the file, in bytes */

struct bpe_slot {
    char *key; /* owned; NULL: free */
    uint32_t len;
    int32_t val;
};

/* An open-addressing map from byte strings to numbers; a key may be looked up
 * as two parts joined by one space (a merge's pair). */
struct bpe_map {
    struct bpe_slot *slots;
    size_t mask;
    size_t n;
};

struct bpe {
    struct bpe_map vocab; /* token text -> id */
    struct bpe_map ranks; /* "left right" -> the merge's rank */
    const char **tokens;  /* id -> token text (in vocab's keys), NULL for a hole */
    size_t ntokens;       /* largest id + 1 */
    char bytes[256][3];   /* byte -> its unicode stand-in, UTF-8, NUL-terminated */
    uint8_t byte_len[256];
    bool add_prefix_space;
    bool ignore_merges;
    pcre2_code *re;
    pcre2_match_data *md;
    char *mapped;    /* a piece's bytes as stand-ins (grown as needed) */
    uint32_t *pos;   /* where each symbol of mapped starts, one past the end last */
    size_t work_cap; /* bytes of the piece mapped and pos hold room for */
};

static uint64_t bpe_hash(const char *a, size_t alen, const char *b, size_t blen) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < alen; i++) h = (h ^ (unsigned char)a[i]) * 1099511628211ull;
    if (b) {
        h = (h ^ ' ') * 1099511628211ull;
        for (size_t i = 0; i < blen; i++) h = (h ^ (unsigned char)b[i]) * 1099511628211ull;
    }
    return h ^ (h >> 29);
}

/* The slot of a (joined with b by a space when b is not NULL): the one holding
 * it, or the free one where it goes. */
static struct bpe_slot *bpe_map_slot(const struct bpe_map *m, const char *a, size_t alen,
                                     const char *b, size_t blen) {
    size_t len = alen + (b ? 1 + blen : 0);
    for (size_t i = bpe_hash(a, alen, b, blen) & m->mask;; i = (i + 1) & m->mask) {
        struct bpe_slot *s = &m->slots[i];
        if (!s->key) return s;
        if (s->len == len && memcmp(s->key, a, alen) == 0 &&
            (!b || (s->key[alen] == ' ' && memcmp(s->key + alen + 1, b, blen) == 0)))
            return s;
    }
}

static int bpe_map_init(struct bpe_map *m, size_t n) {
    size_t cap = 16;
    while (cap < 2 * n + 2) cap *= 2;
    m->slots = calloc(cap, sizeof *m->slots);
    m->mask = cap - 1;
    m->n = 0;
    return m->slots ? BPE_OK : BPE_ERR_NOMEM;
}

static void bpe_map_free(struct bpe_map *m) {
    if (!m->slots) return;
    for (size_t i = 0; i <= m->mask; i++) free(m->slots[i].key);
    free(m->slots);
    m->slots = NULL;
}

/* Puts a (joined with b) -> val unless the key is there; *slot says where it is. */
static int bpe_map_put(struct bpe_map *m, const char *a, size_t alen, const char *b, size_t blen,
                       int32_t val, struct bpe_slot **slot) {
    struct bpe_slot *s = bpe_map_slot(m, a, alen, b, blen);
    *slot = s;
    if (s->key) return BPE_OK;
    size_t len = alen + (b ? 1 + blen : 0);
    if (!(s->key = malloc(len + 1))) return BPE_ERR_NOMEM;
    memcpy(s->key, a, alen);
    if (b) {
        s->key[alen] = ' ';
        memcpy(s->key + alen + 1, b, blen);
    }
    s->key[len] = '\0';
    s->len = (uint32_t)len;
    s->val = val;
    m->n++;
    return BPE_OK;
}

/* GPT-2's byte-to-unicode table: printable Latin-1 bytes stand for themselves,
 * the others for U+0100 upwards in byte order. */
static void bpe_bytes_init(struct bpe *b) {
    unsigned next = 256;
    for (unsigned c = 0; c < 256; c++) {
        bool self = (c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE);
        unsigned cp = self ? c : next++;
        if (cp < 0x80) {
            b->bytes[c][0] = (char)cp;
            b->byte_len[c] = 1;
        } else {
            b->bytes[c][0] = (char)(0xC0 | (cp >> 6));
            b->bytes[c][1] = (char)(0x80 | (cp & 0x3F));
            b->byte_len[c] = 2;
        }
    }
}

/* Reads one pre-tokenizer object into *pattern / the flags; *byte_level is set
 * when it is (or holds) ByteLevel. */
static int bpe_pretok(struct bpe *b, const cJSON *p, const char *name, const char **pattern,
                      bool *byte_level, int depth, struct buf *err) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(p, "type");
    if (!cJSON_IsString(type) || depth > 4)
        return buf_fail(err, BPE_ERR_FORMAT, "%s: pre_tokenizer without a \"type\"", name);
    const char *t = type->valuestring;
    if (strcmp(t, "Sequence") == 0) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(p, "pretokenizers"), *e;
        if (!cJSON_IsArray(list))
            return buf_fail(err, BPE_ERR_FORMAT, "%s: a Sequence pre_tokenizer needs a list", name);
        cJSON_ArrayForEach(e, list) {
            int rc = bpe_pretok(b, e, name, pattern, byte_level, depth + 1, err);
            if (rc) return rc;
        }
        return BPE_OK;
    }
    if (strcmp(t, "ByteLevel") == 0) {
        *byte_level = true;
        b->add_prefix_space = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "add_prefix_space"));
        const cJSON *re = cJSON_GetObjectItemCaseSensitive(p, "use_regex");
        if (!cJSON_IsFalse(re)) {
            if (*pattern)
                return buf_fail(err, BPE_ERR_FORMAT, "%s: two split patterns in pre_tokenizer",
                                name);
            *pattern = BPE_GPT2_PATTERN;
        }
        return BPE_OK;
    }
    if (strcmp(t, "Split") == 0) {
        const cJSON *pat = cJSON_GetObjectItemCaseSensitive(p, "pattern");
        const cJSON *re = cJSON_GetObjectItemCaseSensitive(pat, "Regex");
        const cJSON *beh = cJSON_GetObjectItemCaseSensitive(p, "behavior");
        if (!cJSON_IsString(re))
            return buf_fail(err, BPE_ERR_FORMAT, "%s: a Split pre_tokenizer without a Regex", name);
        if (!cJSON_IsString(beh) || strcmp(beh->valuestring, "Isolated") != 0 ||
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "invert")))
            return buf_fail(err, BPE_ERR_FORMAT,
                            "%s: a Split pre_tokenizer other than behavior Isolated, not "
                            "inverted",
                            name);
        if (*pattern)
            return buf_fail(err, BPE_ERR_FORMAT, "%s: two split patterns in pre_tokenizer", name);
        *pattern = re->valuestring;
        return BPE_OK;
    }
    return buf_fail(err, BPE_ERR_FORMAT,
                    "%s: pre_tokenizer %.40s is not byte-level BPE's (Split, ByteLevel)", name, t);
}

static int bpe_vocab(struct bpe *b, const cJSON *vocab, const char *name, struct buf *err) {
    const cJSON *e;
    int rc = bpe_map_init(&b->vocab, (size_t)cJSON_GetArraySize(vocab));
    if (rc) return rc;
    int32_t top = -1;
    cJSON_ArrayForEach(e, vocab) {
        double v = e->valuedouble;
        if (!cJSON_IsNumber(e) || v < 0 || v > 16777216 || v != (double)(int32_t)v)
            return buf_fail(err, BPE_ERR_FORMAT,
                            "%s: model.vocab: an id that is no whole number "
                            "from 0 to 16777216",
                            name);
        size_t klen = strlen(e->string);
        if (klen == 0 || klen > BPE_MAX_TOKEN)
            return buf_fail(err, BPE_ERR_FORMAT, "%s: model.vocab: a token of %zu bytes", name,
                            klen);
        struct bpe_slot *s;
        if ((rc = bpe_map_put(&b->vocab, e->string, klen, NULL, 0, (int32_t)v, &s))) return rc;
        if ((int32_t)v > top) top = (int32_t)v;
    }
    if (top < 0) return buf_fail(err, BPE_ERR_FORMAT, "%s: model.vocab is empty", name);
    b->ntokens = (size_t)top + 1;
    if (!(b->tokens = calloc(b->ntokens, sizeof *b->tokens))) return BPE_ERR_NOMEM;
    for (size_t i = 0; i <= b->vocab.mask; i++)
        if (b->vocab.slots[i].key) b->tokens[b->vocab.slots[i].val] = b->vocab.slots[i].key;
    return BPE_OK;
}

static int bpe_merges(struct bpe *b, const cJSON *merges, const char *name, struct buf *err) {
    const cJSON *e;
    int rc = bpe_map_init(&b->ranks, (size_t)cJSON_GetArraySize(merges));
    if (rc) return rc;
    int32_t rank = 0;
    cJSON_ArrayForEach(e, merges) {
        const char *l = NULL, *r = NULL;
        size_t llen = 0, rlen = 0;
        if (cJSON_IsString(e)) {
            const char *sp = strchr(e->valuestring, ' ');
            if (sp) {
                l = e->valuestring, llen = (size_t)(sp - l);
                r = sp + 1, rlen = strlen(r);
            }
        } else if (cJSON_IsArray(e) && cJSON_GetArraySize(e) == 2 && cJSON_IsString(e->child) &&
                   cJSON_IsString(e->child->next)) {
            l = e->child->valuestring, llen = strlen(l);
            r = e->child->next->valuestring, rlen = strlen(r);
        }
        if (!l || llen == 0 || rlen == 0 || llen + rlen > BPE_MAX_TOKEN || strchr(r, ' '))
            return buf_fail(err, BPE_ERR_FORMAT,
                            "%s: model.merges[%d] is not \"a b\" nor [\"a\", \"b\"]", name, rank);
        struct bpe_slot *s;
        if ((rc = bpe_map_put(&b->ranks, l, llen, r, rlen, rank, &s))) return rc;
        rank++;
    }
    return BPE_OK;
}

static int bpe_read(struct bpe *b, const cJSON *root, const char *name, struct buf *err) {
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(model, "type");
    if (!cJSON_IsObject(model) ||
        (type && !(cJSON_IsString(type) && strcmp(type->valuestring, "BPE") == 0)))
        return buf_fail(err, BPE_ERR_FORMAT, "%s: model.type is not BPE", name);
    const cJSON *vocab = cJSON_GetObjectItemCaseSensitive(model, "vocab");
    const cJSON *merges = cJSON_GetObjectItemCaseSensitive(model, "merges");
    if (!cJSON_IsObject(vocab) || !cJSON_IsArray(merges))
        return buf_fail(err, BPE_ERR_FORMAT,
                        "%s: model needs a \"vocab\" object and a "
                        "\"merges\" list",
                        name);
    b->ignore_merges = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(model, "ignore_merges"));
    const cJSON *pre = cJSON_GetObjectItemCaseSensitive(root, "pre_tokenizer");
    const char *pattern = NULL;
    bool byte_level = false;
    int rc;
    if (!cJSON_IsObject(pre))
        return buf_fail(err, BPE_ERR_FORMAT, "%s: no pre_tokenizer (byte-level BPE has one)", name);
    if ((rc = bpe_pretok(b, pre, name, &pattern, &byte_level, 0, err))) return rc;
    if (!byte_level)
        return buf_fail(err, BPE_ERR_FORMAT, "%s: the pre_tokenizer has no ByteLevel step", name);
    if (!pattern)
        return buf_fail(err, BPE_ERR_FORMAT, "%s: the pre_tokenizer states no split pattern", name);
    int code;
    PCRE2_SIZE at;
    b->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                          PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &code, &at, NULL);
    if (!b->re) {
        PCRE2_UCHAR why[120];
        pcre2_get_error_message(code, why, sizeof why);
        return buf_fail(err, BPE_ERR_FORMAT, "%s: the split pattern does not compile at %zu: %s",
                        name, (size_t)at, (const char *)why);
    }
    (void)pcre2_jit_compile(b->re, PCRE2_JIT_COMPLETE); /* the interpreter when JIT is absent */
    if (!(b->md = pcre2_match_data_create_from_pattern(b->re, NULL))) return BPE_ERR_NOMEM;
    if ((rc = bpe_vocab(b, vocab, name, err))) return rc;
    if ((rc = bpe_merges(b, merges, name, err))) return rc;
    bpe_bytes_init(b);
    return BPE_OK;
}

int bpe_load(const char *json, size_t len, const char *name, struct bpe **out, struct buf *err) {
    *out = NULL;
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!root) return buf_fail(err, BPE_ERR_FORMAT, "%s: not JSON", name);
    struct bpe *b = calloc(1, sizeof *b);
    int rc = b ? bpe_read(b, root, name, err) : BPE_ERR_NOMEM;
    cJSON_Delete(root);
    if (rc) {
        if (rc == BPE_ERR_NOMEM) (void)buf_fail(err, rc, "%s: out of memory", name);
        if (err) buf_one_line(err); /* it may quote the file's strings */
        bpe_free(b);
        return rc;
    }
    *out = b;
    return BPE_OK;
}

void bpe_free(struct bpe *b) {
    if (!b) return;
    bpe_map_free(&b->vocab);
    bpe_map_free(&b->ranks);
    free(b->tokens);
    pcre2_match_data_free(b->md);
    pcre2_code_free(b->re);
    free(b->mapped);
    free(b->pos);
    free(b);
}

size_t bpe_size(const struct bpe *b) {
    return b->ntokens;
}

const char *bpe_token(const struct bpe *b, size_t id) {
    return id < b->ntokens ? b->tokens[id] : NULL;
}

static void bpe_emit(int32_t id, int32_t *ids, size_t cap, size_t *n) {
    if (*n < cap) ids[*n] = id;
    (*n)++;
}

/* Encodes one piece p[0..len) of the pre-tokenizer's split. */
static int bpe_piece(struct bpe *b, const char *p, size_t len, int32_t *ids, size_t cap, size_t *n,
                     struct buf *err) {
    if (len > b->work_cap) {
        char *m = realloc(b->mapped, 2 * len + 1);
        if (m) b->mapped = m;
        uint32_t *pos = realloc(b->pos, (len + 1) * sizeof *pos);
        if (pos) b->pos = pos;
        if (!m || !pos || len > UINT32_MAX / 2) return BPE_ERR_NOMEM;
        b->work_cap = len;
    }
    size_t mlen = 0, ns = len;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        b->pos[i] = (uint32_t)mlen;
        memcpy(b->mapped + mlen, b->bytes[c], b->byte_len[c]);
        mlen += b->byte_len[c];
    }
    b->pos[ns] = (uint32_t)mlen;
    const char *m = b->mapped;
    if (b->ignore_merges) {
        const struct bpe_slot *s = bpe_map_slot(&b->vocab, m, mlen, NULL, 0);
        if (s->key) {
            bpe_emit(s->val, ids, cap, n);
            return BPE_OK;
        }
    }
    while (ns > 1) {
        int32_t best = INT32_MAX;
        size_t at = 0;
        for (size_t i = 0; i + 1 < ns; i++) {
            const uint32_t *q = b->pos + i;
            const struct bpe_slot *s =
                bpe_map_slot(&b->ranks, m + q[0], q[1] - q[0], m + q[1], q[2] - q[1]);
            if (s->key && s->val < best) best = s->val, at = i;
        }
        if (best == INT32_MAX) break;
        memmove(b->pos + at + 1, b->pos + at + 2, (ns - at - 1) * sizeof *b->pos);
        ns--;
    }
    for (size_t i = 0; i < ns; i++) {
        const struct bpe_slot *s =
            bpe_map_slot(&b->vocab, m + b->pos[i], b->pos[i + 1] - b->pos[i], NULL, 0);
        if (!s->key)
            return buf_fail(err, BPE_ERR_VOCAB, "the vocabulary has no token for '%.*s'",
                            (int)(b->pos[i + 1] - b->pos[i]), m + b->pos[i]);
        bpe_emit(s->val, ids, cap, n);
    }
    return BPE_OK;
}

int bpe_encode(struct bpe *b, const char *text, size_t len, int32_t *ids, size_t cap, size_t *n,
               struct buf *err) {
    *n = 0;
    char *owned = NULL;
    if (b->add_prefix_space && len > 0 && text[0] != ' ') {
        if (!(owned = malloc(len + 1))) return BPE_ERR_NOMEM;
        owned[0] = ' ';
        memcpy(owned + 1, text, len);
        text = owned, len++;
    }
    int rc = BPE_OK;
    size_t at = 0, done = 0;
    while (at <= len && rc == BPE_OK) {
        int m = pcre2_match(b->re, (PCRE2_SPTR)text, len, at, 0, b->md, NULL);
        if (m == PCRE2_ERROR_NOMATCH) break;
        if (m < 0) { /* PCRE2's match limit (a pattern that backtracks without end) */
            PCRE2_UCHAR why[120];
            pcre2_get_error_message(m, why, sizeof why);
            rc = buf_fail(err, BPE_ERR_FORMAT, "the split pattern failed on the text: %s",
                          (const char *)why);
            break;
        }
        const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(b->md);
        if (ov[0] > done) rc = bpe_piece(b, text + done, ov[0] - done, ids, cap, n, err);
        if (rc == BPE_OK && ov[1] > ov[0])
            rc = bpe_piece(b, text + ov[0], ov[1] - ov[0], ids, cap, n, err);
        done = ov[1];
        at = ov[1] > ov[0] ? ov[1] : ov[1] + 1; /* an empty match moves on a byte */
    }
    if (rc == BPE_OK && done < len) rc = bpe_piece(b, text + done, len - done, ids, cap, n, err);
    free(owned);
    if (rc && err) buf_one_line(err);
    return rc;
}
