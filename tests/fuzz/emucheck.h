/* emucheck: invariants the emulator's fuzz targets share. */
#ifndef SM_FUZZ_EMUCHECK_H
#define SM_FUZZ_EMUCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "model.h"

/* Aborts unless every parameter of p lies in its range and its step table
 * gives a finite, non-negative step time. */
void emucheck_profile(const struct model_profile *p);

/* Aborts unless err holds a message of one line: not empty, no control
 * characters. */
void emucheck_one_line(const struct buf *err);

/* Whether s[0..n) is valid UTF-8. */
bool emucheck_utf8(const char *s, size_t n);

/* Aborts unless s[0..n) is an XML document of the query protocol as the
 * emulator writes it: valid UTF-8 without control characters other than tab and
 * line ends, every '<' opening or closing an element (closings match their
 * openings, all closed at the end, "<?...?>" a declaration), every '&' one of the
 * five entities, no '>' outside a tag, and root (an element name) the first
 * element. */
void emucheck_xml(const char *s, size_t n, const char *root);

#endif
