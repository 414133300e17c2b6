#include "tmpdir.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TMPDIR_MAX_FILES 4

static char tmpdir_dir[256];
static char tmpdir_paths[TMPDIR_MAX_FILES][320];
static size_t tmpdir_n;

static void tmpdir_remove(void) {
    for (size_t i = 0; i < tmpdir_n; i++) unlink(tmpdir_paths[i]);
    rmdir(tmpdir_dir);
}

/* The path of name in the directory, made (with the directory) on first use. */
static const char *tmpdir_path(const char *name) {
    if (!tmpdir_dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir_dir, sizeof tmpdir_dir, "%s/sm-fuzz-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(tmpdir_dir)) abort();
        atexit(tmpdir_remove);
    }
    for (size_t i = 0; i < tmpdir_n; i++) {
        const char *slash = strrchr(tmpdir_paths[i], '/');
        if (strcmp(slash + 1, name) == 0) return tmpdir_paths[i];
    }
    if (tmpdir_n == TMPDIR_MAX_FILES) abort();
    snprintf(tmpdir_paths[tmpdir_n], sizeof tmpdir_paths[0], "%s/%s", tmpdir_dir, name);
    return tmpdir_paths[tmpdir_n++];
}

const char *tmpdir_write(const char *name, const uint8_t *data, size_t size) {
    const char *path = tmpdir_path(name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) abort();
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) abort();
        done += (size_t)n;
    }
    close(fd);
    return path;
}
