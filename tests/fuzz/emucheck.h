/* emucheck: invariants the emulator's fuzz targets share. */
#ifndef SM_FUZZ_EMUCHECK_H
#define SM_FUZZ_EMUCHECK_H

#include "buf.h"
#include "model.h"

/* Aborts unless every parameter of p lies in its range and its step table
 * gives a finite, non-negative step time. */
void emucheck_profile(const struct model_profile *p);

/* Aborts unless err holds a message of one line: not empty, no control
 * characters. */
void emucheck_one_line(const struct buf *err);

#endif
