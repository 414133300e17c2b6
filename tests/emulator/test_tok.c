/* The tokenizer counts and filler lengths every usage figure depends on. */
#include <string.h>

#include "check.h"
#include "tok.h"

static const struct {
    const char *text;
    size_t tokens;
} counts[] = {
    {"", 0},
    {"  \n\t ", 0},
    {"hello", 1},
    {"hello world", 2},
    {"1512", 1},
    {"-275", 2},
    {"Brasília", 1},
    {"a,b", 3},
    {"x\n\ny", 2},
    {"What is 54 * 28? Reply with the number only.", 12},
    {"Write a long, detailed story about a lighthouse keeper on a remote island.", 15},
};

int main(void) {
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        CHECK_INT(tok_count(counts[i].text, strlen(counts[i].text)), counts[i].tokens);

    /* tok_next: the end of the next token, its white space before it */
    CHECK_INT(tok_next("a, bc ", 6, 0), 1);
    CHECK_INT(tok_next("a, bc ", 6, 1), 2);
    CHECK_INT(tok_next("a, bc ", 6, 2), 5);
    CHECK_INT(tok_next("a, bc ", 6, 5), 5); /* only white space left */
    CHECK_INT(tok_next(" Bras\xc3\xadlia.", 11, 0), 10);
    const char *story = "Write a long, detailed story about a lighthouse keeper.";
    size_t at = 0, n = 0;
    for (size_t end; (end = tok_next(story, strlen(story), at)) != at; at = end) n++;
    CHECK_INT(n, tok_count(story, strlen(story)));
    CHECK_INT(tok_prefix("a b c", 5, 2), 3);
    CHECK_INT(tok_prefix("a, b", 4, 2), 2);
    CHECK_INT(tok_prefix("ab", 2, 5), 2);
    CHECK_INT(tok_prefix("  x", 3, 0), 0);

    struct buf a, b;
    buf_init(&a, BUF_NO_CAP);
    buf_init(&b, BUF_NO_CAP);
    for (size_t n = 0; n <= 700; n++) {
        buf_reset(&a);
        CHECK_INT(tok_filler(&a, n, 42 + n), 0);
        if (tok_count(a.data, a.len) != n) CHECK_INT(tok_count(a.data, a.len), n);
    }
    buf_reset(&a);
    CHECK_INT(tok_filler(&a, 50, 7), 0);
    CHECK_INT(tok_filler(&b, 50, 7), 0);
    CHECK_STR(buf_str(&a), buf_str(&b));
    buf_reset(&b);
    CHECK_INT(tok_filler(&b, 50, 8), 0);
    CHECK(strcmp(buf_str(&a), buf_str(&b)) != 0);
    buf_free(&a);
    buf_free(&b);
    return check_exit();
}
