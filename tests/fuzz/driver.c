/* Runs a fuzz target over files, for builds without libFuzzer: every corpus
 * file and every crash found becomes a regression test in ctest.
 * Usage: fuzz_x FILE_OR_DIR... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
    size_t got = data ? fread(data, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!data || got != (size_t)n) {
        free(data);
        fprintf(stderr, "%s: cannot read\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(data, got);
    free(data);
    return 0;
}

static int run_path(const char *path, int *count) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: no such file\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        ++*count;
        return run_file(path);
    }
    DIR *d = opendir(path);
    struct dirent *e;
    int rc = d ? 0 : 1;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        rc |= run_path(sub, count);
    }
    if (d) closedir(d);
    return rc;
}

int main(int argc, char **argv) {
    int rc = 0, count = 0;
    for (int i = 1; i < argc; i++) rc |= run_path(argv[i], &count);
    printf("%d inputs\n", count);
    return rc || count == 0;
}
