#include "jsonw.h"

#include <string.h>

int jsonw_str(struct buf *b, const char *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    int rc = buf_addc(b, '"');
    size_t run = 0; /* bytes copied as they are, pending */
    for (size_t i = 0; !rc && i <= len; i++) {
        unsigned char c = i < len ? (unsigned char)s[i] : 0;
        if (i < len && c >= 0x20 && c != '"' && c != '\\') {
            run++;
            continue;
        }
        rc = buf_add(b, s + i - run, run);
        run = 0;
        if (rc || i == len) break;
        if (c == '"' || c == '\\')
            rc = buf_addf(b, "\\%c", c);
        else if (c == '\n')
            rc = buf_adds(b, "\\n");
        else if (c == '\r')
            rc = buf_adds(b, "\\r");
        else if (c == '\t')
            rc = buf_adds(b, "\\t");
        else
            rc = buf_addf(b, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
    }
    return rc ? rc : buf_addc(b, '"');
}

int jsonw_cstr(struct buf *b, const char *s) {
    return s ? jsonw_str(b, s, strlen(s)) : buf_adds(b, "null");
}
