#include "jmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int jmap_open(struct jmap *j, const char *path) {
    *j = (struct jmap){.fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666)};
    return j->fd < 0 ? -1 : 0;
}

void jmap_adopt(struct jmap *j, int fd) {
    *j = (struct jmap){.fd = fd};
}

/* Reserves whole chunks until the file holds n more bytes. */
static int jmap_reserve(struct jmap *j, size_t n) {
    if (j->used + n <= j->reserved) return 0;
    size_t grow = (j->used + n - j->reserved + JMAP_CHUNK - 1) / JMAP_CHUNK * JMAP_CHUNK;
    int rc = posix_fallocate(j->fd, (off_t)j->reserved, (off_t)grow);
    if (rc) {
        errno = rc;
        return -1;
    }
    j->reserved += grow;
    return 0;
}

/* Maps the chunk that holds offset at, unless it is mapped. */
static int jmap_map(struct jmap *j, size_t at) {
    at -= at % JMAP_CHUNK;
    if (j->chunk && j->chunk_at == at) return 0;
    if (j->chunk) munmap(j->chunk, JMAP_CHUNK);
    j->chunk = mmap(NULL, JMAP_CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, j->fd, (off_t)at);
    j->chunk_at = at;
    if (j->chunk == MAP_FAILED) {
        j->chunk = NULL;
        return -1;
    }
    /* One call makes every page writable (one file time update), where each
     * first write would fault; a kernel before 5.14 refuses it, and then they do. */
    (void)madvise(j->chunk, JMAP_CHUNK, MADV_POPULATE_WRITE);
    return 0;
}

/* Copies n bytes into the file at offset at (reserved). */
static int jmap_copy(struct jmap *j, size_t at, const char *p, size_t n) {
    while (n > 0) {
        if (jmap_map(j, at) != 0) return -1;
        size_t room = j->chunk_at + JMAP_CHUNK - at, k = n < room ? n : room;
        memcpy(j->chunk + (at - j->chunk_at), p, k);
        at += k;
        p += k;
        n -= k;
    }
    return 0;
}

int jmap_append(struct jmap *j, const void *p, size_t n) {
    const char *s = p;
    if (jmap_reserve(j, n) != 0 || jmap_copy(j, j->used, s, n - 1) != 0) return -1;
    atomic_thread_fence(memory_order_release); /* a crash keeps the last byte only after the rest */
    if (jmap_copy(j, j->used + n - 1, s + n - 1, 1) != 0) return -1;
    j->used += n;
    return 0;
}

int jmap_view(const struct jmap *j, const char **out) {
    *out = NULL;
    if (j->used == 0) return 0;
    void *view = mmap(NULL, j->used, PROT_READ, MAP_SHARED, j->fd, 0);
    if (view == MAP_FAILED) return -1;
    *out = view;
    return 0;
}

void jmap_unview(const char *view, size_t used) {
    if (view) munmap((void *)view, used);
}

int jmap_close(struct jmap *j) {
    if (j->fd < 0) return 0;
    int first = 0; /* the errno of the first failure */
    if (j->chunk && munmap(j->chunk, JMAP_CHUNK) != 0) first = errno;
    if (ftruncate(j->fd, (off_t)j->used) != 0 && !first) first = errno;
    if (close(j->fd) != 0 && !first) first = errno;
    *j = (struct jmap){.fd = -1};
    errno = first;
    return first ? -1 : 0;
}
