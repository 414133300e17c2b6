/* jsonw: appends JSON text to a buf (the emulator builds its replies by hand,
 * which is faster than a cJSON tree on the hot path). */
#ifndef EMU_JSONW_H
#define EMU_JSONW_H

#include <stddef.h>

#include "buf.h"

/* Appends s[0..len) as a quoted JSON string (UTF-8 kept, controls escaped).
 * Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int jsonw_str(struct buf *b, const char *s, size_t len);

/* jsonw_str over a C string; NULL appends null. */
__attribute__((warn_unused_result)) int jsonw_cstr(struct buf *b, const char *s);

#endif
