/* tty (common/tty.h): what a terminal obeys (ESC and the other C0 controls, DEL,
 * the C1 controls as UTF-8, bytes that are no UTF-8) is escaped visibly, in text
 * and in JSON, newlines and tabs kept only when asked; printable text and UTF-8
 * past U+009F kept; buf_one_line replaces the same bytes with '?'; tty_write
 * scrubs before it escapes. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "scrub.h"
#include "tty.h"

static const struct {
    const char *text;
    unsigned flags;
    const char *want, *one_line;
} rows[] = {
    {"plain text, caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, NULL, NULL}, /* kept */
    {"\x1b]0;title\x07", 0, "\\x1b]0;title\\x07", "?]0;title?"},              /* ESC, BEL */
    {"\x1b[2J\x1b[31mred", 0, "\\x1b[2J\\x1b[31mred", "?[2J?[31mred"},        /* CSI */
    {"a\xc2\x9b"
     "31mb",
     0, "a\\u009b31mb", "a??31mb"}, /* U+009B */
    {"\xc2\x9d"
     "8;;http://x\xc2\x9c",
     0, "\\u009d8;;http://x\\u009c", "??8;;http://x??"},
    {"\xc2\x80\xc2\x9f\xc2\xa0", 0, "\\u0080\\u009f\xc2\xa0", "????\xc2\xa0"}, /* C1 ends at 9F */
    {"del\x7f", 0, "del\\x7f", "del?"},
    {"bad \x9b"
     "2J \xff \xc3",
     0, "bad \\x9b2J \\xff \\xc3", "bad ?2J ? ?"},                        /* no UTF-8 */
    {"\xed\xa0\x80 \xc0\xaf", 0, "\\xed\\xa0\\x80 \\xc0\\xaf", "??? ??"}, /* surrogate, overlong */
    {"l1\r\nl2\tx", 0, "l1\\x0d\\x0al2\\x09x", "l1??l2?x"},
    {"l1\r\nl2\tx", TTY_LINES, "l1\\x0d\nl2\tx", NULL},
    {"\"\\u001b\x7f\xc2\x9b\x9b\"", TTY_JSON, "\"\\u001b\\u007f\\u009b\\ufffd\"", NULL},
    {"", 0, "", ""},
};

int main(void) {
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *want = rows[i].want ? rows[i].want : rows[i].text;
        buf_reset(&b);
        CHECK_INT(tty_escape(&b, rows[i].text, strlen(rows[i].text), rows[i].flags), 0);
        CHECK_STR(buf_str(&b), want);
        if (rows[i].flags) continue;
        buf_reset(&b);
        CHECK_INT(buf_adds(&b, rows[i].text), 0);
        buf_one_line(&b);
        CHECK_STR(buf_str(&b), rows[i].one_line ? rows[i].one_line : rows[i].text);
    }
    buf_reset(&b);
    CHECK_INT(tty_escape(&b, "a\0b", 3, 0), 0); /* a NUL in the middle */
    CHECK_INT((int)b.len, 6);
    CHECK_STR(buf_str(&b), "a\\x00b");
    CHECK_INT(scrub_add("IQoJb3JpZ2luX2VjEXAMPLE+/TOKEN=="), 0);
    const char *echo = "\x1b[1mtoken IQoJb3JpZ2luX2VjEXAMPLE+/TOKEN==\n";
    FILE *f = tmpfile();
    CHECK(f != NULL);
    CHECK_INT(tty_write(f, echo, strlen(echo), TTY_LINES), 0);
    char got[128] = {0};
    rewind(f);
    CHECK_INT((int)fread(got, 1, sizeof got - 1, f), 24);
    CHECK_STR(got, "\\x1b[1mtoken <redacted>\n");
    fclose(f);
    buf_free(&b);
    return check_exit();
}
