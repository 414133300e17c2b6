/* quizgen: quiz items generated from a seed, in families, each checkable by a
 * program.
 *
 * Item i of family f under seed s is the same on every machine (its own
 * splitmix64 stream from s, f and i). Every item's check is a Python-style
 * regular expression (its "pattern"), so the one scorer both engines already
 * use (quiz.h: the reply stripped, its first 64 KiB, PCRE2 with match limits)
 * scores it; the family is the item's "kind", so results break down by it.
 *
 *   arith    arithmetic at a stated difficulty (level 1 to 3: operands of 2 to
 *            4 digits): "Compute 4821 * 37. ..." or "Compute A + B - C. ..."
 *   extract  a fact taken from a given record (a city, a name, a weight, an
 *            order number)
 *   format   instruction following in the spirit of IFEval: an exact word
 *            count in lowercase, a JSON object of a stated shape, a required
 *            and a forbidden word, an exact bullet count, a fixed ending,
 *            capital letters only
 *
 * Every check is linear in the reply (possessive quantifiers, anchored
 * lookaheads), so a hostile 64 KiB reply is scored within PCRE2's limits.
 *
 * A family's prompts do not repeat within its first 9000 items (the pairs of
 * level-1 products, the order numbers and the 2560 subjects of each kind of
 * format check are walked through, not drawn).
 *
 * quizgen_reply recognises a prompt quizgen wrote and writes a reply that
 * passes its check or one that fails it: the emulator answers with it, and
 * tests prove every check both ways. */
#ifndef SM_QUIZGEN_H
#define SM_QUIZGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum quizgen_family { QUIZGEN_ARITH, QUIZGEN_EXTRACT, QUIZGEN_FORMAT, QUIZGEN_FAMILIES };

enum quizgen_error { QUIZGEN_OK = 0, QUIZGEN_ERR_NOMEM = -1, QUIZGEN_ERR_INPUT = -2 };

#define QUIZGEN_ITEMS_MAX 100000u /* items of one family in one file */

struct quizgen_item {
    char id[40];                /* "format-17" */
    enum quizgen_family family; /* its name is the item's "kind" */
    struct buf prompt, answer;  /* answer: the expected reply, or an example of one */
    struct buf pattern;         /* the check */
};

/* "arith", "extract" or "format". */
const char *quizgen_family_name(enum quizgen_family f);
/* The family called name; false when there is none. */
bool quizgen_family_find(const char *name, enum quizgen_family *f);

void quizgen_item_init(struct quizgen_item *it);
void quizgen_item_free(struct quizgen_item *it);
/* Item index of family f under seed. Returns 0 or QUIZGEN_ERR_NOMEM. */
__attribute__((warn_unused_result)) int quizgen_make(uint64_t seed, enum quizgen_family f,
                                                     unsigned index, struct quizgen_item *it);

/* Recognises a prompt quizgen wrote (prompt[0..len)); when it is one, sets *f
 * and writes into out a reply that passes its check (right) or fails it
 * (!right), and returns true. False for any other prompt or out of memory
 * (out then holds nothing useful). */
bool quizgen_reply(const char *prompt, size_t len, bool right, enum quizgen_family *f,
                   struct buf *out);

/* Appends a quiz file (the layout quiz.lua and sm-compare --quiz read) with n
 * items of each family in fams[0..nf), under seed. Returns 0 or
 * QUIZGEN_ERR_NOMEM. */
__attribute__((warn_unused_result)) int quizgen_file(uint64_t seed, const enum quizgen_family *fams,
                                                     size_t nf, unsigned n, struct buf *out);

#endif
