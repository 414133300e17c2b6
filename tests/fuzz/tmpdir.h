/* tmpdir: files for the fuzz targets whose parser reads a path. */
#ifndef SM_FUZZ_TMPDIR_H
#define SM_FUZZ_TMPDIR_H

#include <stddef.h>
#include <stdint.h>

/* Writes size bytes to the file name in a private temporary directory (made
 * on the first call; it and its files are removed at exit) and returns the
 * file's path, valid until exit. Aborts when the file cannot be written. */
const char *tmpdir_write(const char *name, const uint8_t *data, size_t size);

#endif
