/* jmap: appends land in the file through the mapping, across chunks, with one
 * chunk mapped at a time; closing
 * cuts the file to them; a killed writer leaves its lines and NUL bytes only;
 * a file size limit is an error of the append, not a signal. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "jmap.h"

static char path[] = "/tmp/test_jmap_XXXXXX";

/* The file's bytes (malloc'ed) and their count. */
static char *slurp(size_t *n) {
    FILE *f = fopen(path, "rb");
    struct stat st;
    char *data = f && fstat(fileno(f), &st) == 0 ? malloc((size_t)st.st_size + 1) : NULL;
    *n = data ? fread(data, 1, (size_t)st.st_size, f) : 0;
    if (f) fclose(f);
    return data;
}

/* The bytes of the file this process has mapped. */
static size_t mapped_bytes(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    size_t total = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *dash;
        unsigned long lo = strtoul(line, &dash, 16), hi = strtoul(dash + 1, NULL, 16);
        if (strstr(line, path)) total += hi - lo;
    }
    if (f) fclose(f);
    return total;
}

/* A line of n bytes (its newline included) made of c. */
static char *line_of(size_t n, char c) {
    char *s = malloc(n);
    memset(s, c, n - 1);
    s[n - 1] = '\n';
    return s;
}

static void test_appends_across_chunks(void) {
    static const size_t sizes[] = {1, 100, JMAP_CHUNK - 101, 1, JMAP_CHUNK + JMAP_CHUNK / 2, 7};
    size_t n_sizes = sizeof sizes / sizeof sizes[0], total = 0;
    struct jmap j;
    unlink(path);
    CHECK_INT(jmap_open(&j, path), 0);
    for (size_t i = 0; i < n_sizes; i++) {
        char *s = line_of(sizes[i], (char)('a' + i));
        CHECK_INT(jmap_append(&j, s, sizes[i]), 0);
        free(s);
        total += sizes[i];
        CHECK(j.reserved >= total && j.reserved % JMAP_CHUNK == 0);
        CHECK(mapped_bytes() <= JMAP_CHUNK);
    }
    const char *view;
    CHECK_INT(jmap_view(&j, &view), 0);
    CHECK(view && view[0] == '\n' && view[1] == 'b' && view[total - 1] == '\n' &&
          view[total - 2] == 'f');
    jmap_unview(view, j.used);
    CHECK_INT(jmap_close(&j), 0);
    CHECK_INT(jmap_close(&j), 0);
    size_t n;
    char *data = slurp(&n);
    CHECK_INT(n, total);
    for (size_t i = 0, at = 0; data && n == total && i < n_sizes; at += sizes[i++]) {
        char *s = line_of(sizes[i], (char)('a' + i));
        CHECK(memcmp(data + at, s, sizes[i]) == 0);
        free(s);
    }
    free(data);
}

/* An existing file is never opened again (an earlier run's journal), nor a
 * symbolic link followed (a pre-placed link to a victim). */
static void test_open_refuses_what_exists(void) {
    struct jmap j;
    unlink(path);
    CHECK_INT(jmap_open(&j, path), 0);
    CHECK_INT(jmap_append(&j, "old\n", 4), 0);
    CHECK_INT(jmap_close(&j), 0);
    errno = 0;
    CHECK_INT(jmap_open(&j, path), -1);
    CHECK_INT(errno, EEXIST);
    size_t n;
    char *data = slurp(&n);
    CHECK(n == 4 && data && memcmp(data, "old\n", 4) == 0);
    free(data);
    char link_path[sizeof path + 8];
    snprintf(link_path, sizeof link_path, "%s.link", path);
    unlink(link_path);
    CHECK_INT(symlink(path, link_path), 0);
    errno = 0;
    CHECK_INT(jmap_open(&j, link_path), -1);
    CHECK(errno == EEXIST || errno == ELOOP);
    data = slurp(&n);
    CHECK(n == 4 && data && memcmp(data, "old\n", 4) == 0); /* the victim is untouched */
    free(data);
    unlink(link_path);
}

/* What a SIGKILL leaves: every line appended, then NUL bytes to the chunk's end. */
static void test_killed_writer(void) {
    unlink(path);
    pid_t pid = fork();
    if (pid == 0) {
        struct jmap j;
        if (jmap_open(&j, path) != 0) _exit(1);
        for (int i = 0; i < 1000; i++)
            if (jmap_append(&j, "{\"seq\":1}\n", 10) != 0) _exit(1);
        raise(SIGKILL);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    size_t n;
    char *data = slurp(&n);
    CHECK_INT(n, JMAP_CHUNK);
    size_t lines = 0, at = 0;
    while (data && at + 10 <= n && memcmp(data + at, "{\"seq\":1}\n", 10) == 0) lines++, at += 10;
    CHECK_INT(lines, 1000);
    while (data && at < n && data[at] == '\0') at++;
    CHECK_INT(at, n);
    free(data);
}

/* A file that may not grow (the limit stands in for a full disk). */
static void test_no_room(void) {
    struct rlimit old, small = {JMAP_CHUNK + JMAP_CHUNK / 2, 0};
    CHECK_INT(getrlimit(RLIMIT_FSIZE, &old), 0);
    small.rlim_max = old.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    CHECK_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
    struct jmap j;
    unlink(path);
    CHECK_INT(jmap_open(&j, path), 0);
    char *s = line_of(JMAP_CHUNK - 2, 'x');
    CHECK_INT(jmap_append(&j, s, JMAP_CHUNK - 2), 0);
    errno = 0;
    CHECK_INT(jmap_append(&j, s, JMAP_CHUNK - 2), -1);
    CHECK_INT(errno, EFBIG);
    CHECK_INT(jmap_append(&j, "y\n", 2), 0);
    free(s);
    CHECK_INT(jmap_close(&j), 0);
    CHECK_INT(setrlimit(RLIMIT_FSIZE, &old), 0);
    size_t n;
    char *data = slurp(&n);
    CHECK_INT(n, JMAP_CHUNK);
    CHECK(data && n == JMAP_CHUNK && memcmp(data + n - 4, "x\ny\n", 4) == 0);
    free(data);
}

static void test_unwritable(void) {
    struct jmap j;
    errno = 0;
    CHECK_INT(jmap_open(&j, "/nonexistent/folder/journal.jsonl"), -1);
    CHECK_INT(errno, ENOENT);
    CHECK_INT(jmap_close(&j), 0);
}

int main(void) {
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    test_appends_across_chunks();
    test_open_refuses_what_exists();
    test_killed_writer();
    test_no_room();
    test_unwritable();
    unlink(path);
    return check_exit();
}
