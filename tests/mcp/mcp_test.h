/* What the sm-mcp unit tests share: JSON written with single quotes, and
 * running a session of the server over in-memory files. */
#ifndef SM_MCP_TEST_H
#define SM_MCP_TEST_H

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "mcp_server.h"

/* A copy of s with every ' turned into " (the caller frees it): test JSON
 * reads better without escapes. */
static inline char *mt_q(const char *s) {
    char *c = strdup(s);
    for (char *p = c; p && *p; p++)
        if (*p == '\'') *p = '"';
    return c;
}

/* An in-memory file holding n bytes of data, positioned at its start. */
static inline int mt_memfile(const char *data, size_t n) {
    int fd = memfd_create("mcp-test", 0);
    size_t off = 0;
    while (fd >= 0 && off < n) {
        ssize_t w = write(fd, data + off, n - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    if (fd >= 0) lseek(fd, 0, SEEK_SET);
    return fd;
}

/* The whole content of fd (malloc'ed, NUL-terminated). */
static inline char *mt_slurp(int fd) {
    off_t n = lseek(fd, 0, SEEK_END);
    char *s = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (!s) return NULL;
    lseek(fd, 0, SEEK_SET);
    size_t got = 0;
    while (got < (size_t)n) {
        ssize_t r = read(fd, s + got, (size_t)n - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    s[got] = '\0';
    return s;
}

/* Runs one session of s over input (raw bytes, not quote-converted) and
 * returns everything it wrote (the caller frees it); *rc gets the status. */
static inline char *mt_session_raw(struct mcp_server *s, const char *input, size_t n, int *rc) {
    int in = mt_memfile(input, n), out = mt_memfile("", 0);
    struct buf err;
    buf_init(&err, 1024);
    *rc = mcp_server_run(s, in, out, &err);
    if (*rc) fprintf(stderr, "session: %s\n", buf_str(&err));
    char *got = mt_slurp(out);
    buf_free(&err);
    close(in);
    close(out);
    return got;
}

#endif
