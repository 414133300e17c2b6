/* jmap: an append-only file written through a shared memory mapping.
 *
 * An append is a copy into the page cache, not a system call, and it is in the
 * file at once: the death of the process (even by SIGKILL) loses nothing
 * appended. The file grows a chunk at a time, reserved with posix_fallocate (a
 * full disk is an error of jmap_append, never a SIGBUS later), and only the
 * chunk being written is mapped, so the process's resident memory does not grow
 * with the file. Until jmap_close cuts the file to what was appended, its end
 * is NUL bytes; the last byte of each append is stored last, so when it is a
 * newline the line before it is whole.
 *
 * No lock: the caller serialises every call. */
#ifndef SM_JMAP_H
#define SM_JMAP_H

#include <stddef.h>

#define JMAP_CHUNK ((size_t)1 << 20) /* the file grows by this much at a time */

struct jmap {
    int fd;          /* -1: closed */
    char *chunk;     /* the mapping of the chunk last written, or NULL */
    size_t chunk_at; /* its offset in the file */
    size_t used;     /* bytes appended */
    size_t reserved; /* the file's size: bytes appended, then NUL bytes */
};

/* Creates the file at path, which must not exist (nor be a symbolic link: EEXIST
 * or ELOOP); 0 or -1 with errno set. */
__attribute__((warn_unused_result)) int jmap_open(struct jmap *j, const char *path);
/* Takes fd, a new empty file open for reading and writing (safeopen.h). */
void jmap_adopt(struct jmap *j, int fd);
/* Appends n > 0 bytes; 0 or -1 with errno set (nothing appended). */
__attribute__((warn_unused_result)) int jmap_append(struct jmap *j, const void *p, size_t n);
/* Maps the bytes appended so far, read-only, into *out (NULL when there are
 * none); 0 or -1 with errno set. Unmap with jmap_unview(*out, j->used). */
__attribute__((warn_unused_result)) int jmap_view(const struct jmap *j, const char **out);
void jmap_unview(const char *view, size_t used);
/* Cuts the file to the bytes appended and closes it; 0 or -1 with errno set.
 * A closed jmap may be closed again. */
int jmap_close(struct jmap *j);

#endif
