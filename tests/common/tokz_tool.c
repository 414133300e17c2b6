/* tokz_tool: common/tokz.h from the command line, for test_tokz.py.
 *   tokz_tool FILE encode        the ids of stdin's text, one line
 *   tokz_tool FILE count         their number
 *   tokz_tool FILE prompt N SEED a text of exactly N tokens
 *   tokz_tool FILE kind          sentencepiece or bpe, and the builder's words */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readall.h"
#include "tokz.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: tokz_tool FILE encode|count|prompt N SEED|kind\n");
        return 2;
    }
    struct buf err, in, out;
    buf_init(&err, 1024);
    buf_init(&in, BUF_NO_CAP);
    buf_init(&out, BUF_NO_CAP);
    struct tokz *t = NULL;
    if (tokz_open(argv[1], &t, &err)) {
        fprintf(stderr, "tokz_tool: %s\n", buf_str(&err));
        buf_free(&err);
        return 2;
    }
    int rc = 0;
    if (strcmp(argv[2], "kind") == 0) {
        printf("%s %zu\n", tokz_kind_name(t), tokz_words(t));
    } else if (strcmp(argv[2], "prompt") == 0 && argc == 5) {
        rc = tokz_prompt(t, strtoul(argv[3], NULL, 10), strtoull(argv[4], NULL, 10), &out);
        fwrite(out.data, 1, out.len, stdout);
    } else if (readall_fd(0, &in) == 0) {
        size_t n = 0, cap = in.len + 16;
        int32_t *ids = malloc(cap * sizeof *ids);
        rc = !ids || tokz_encode(t, in.data ? in.data : "", in.len, ids, cap, &n, &err);
        if (rc == 0 && strcmp(argv[2], "count") == 0) {
            printf("%zu\n", n);
        } else if (rc == 0) {
            for (size_t i = 0; i < n; i++) printf("%s%d", i ? " " : "", (int)ids[i]);
            printf("\n");
        }
        free(ids);
    } else {
        rc = 1;
    }
    if (rc) fprintf(stderr, "tokz_tool: failed: %s\n", buf_str(&err));
    tokz_free(t);
    buf_free(&err);
    buf_free(&in);
    buf_free(&out);
    return rc ? 1 : 0;
}
