#include "datadir.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* PREFIX/share/wrk-sagemaker/rel when the executable is PREFIX/bin/x and that exists. */
static char *datadir_installed(const char *rel) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    char *path;
    if (asprintf(&path, "%s/../share/wrk-sagemaker/%s", dirname(exe), rel) < 0) return NULL;
    char *real = realpath(path, NULL); /* NULL when it does not exist */
    free(path);
    return real;
}

char *datadir_path(const char *source_dir, const char *rel) {
    char *path = datadir_installed(rel);
    if (path) return path;
    if (asprintf(&path, "%s/%s", source_dir, rel) < 0) return NULL;
    return path;
}
