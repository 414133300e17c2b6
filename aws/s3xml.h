/* s3xml: the few parts of Amazon S3's XML replies the S3 client reads, found
 * in a bounded reply without a general XML parser: the text of an element by
 * its name, and each element of a name in turn (a ListBucketResult's
 * Contents). S3 writes no CDATA, comments or nested elements of one name in
 * these replies; a name is matched with or without a namespace prefix. Text
 * comes back with the five predefined entities and character references
 * (&#N; &#xN;) decoded; a reference that is no character, or bytes that are
 * not UTF-8, are kept as they came (callers check what they keep).
 *
 * Pure C over common/buf.h; never reads past len. */
#ifndef SM_S3XML_H
#define SM_S3XML_H

#include <stddef.h>

#include "buf.h"

enum s3xml_error {
    S3XML_OK = 0,
    S3XML_ABSENT = 1,        /* no such element */
    S3XML_ERR_NOMEM = -1,    /* out's cap, or memory */
    S3XML_ERR_MALFORMED = -2 /* an element that never closes */
};

/* The inner text of the first element called name in xml[0..len), decoded,
 * appended to out. Returns 0, S3XML_ABSENT, or an error. */
__attribute__((warn_unused_result)) int s3xml_text(const char *xml, size_t len, const char *name,
                                                   struct buf *out);

/* Receives an element's inner bytes (not decoded); returns 0 to go on, else
 * stops s3xml_each with that value. */
typedef int s3xml_each_fn(void *ud, const char *inner, size_t len);

/* Calls fn with the inner bytes of each element called name, in order.
 * Returns 0, fn's value, or S3XML_ERR_MALFORMED. */
__attribute__((warn_unused_result)) int s3xml_each(const char *xml, size_t len, const char *name,
                                                   s3xml_each_fn *fn, void *ud);

/* Appends s[0..n) to out with &, <, >, " and ' escaped (for the emulator's
 * replies). Returns BUF_OK or a buf error. */
__attribute__((warn_unused_result)) int s3xml_escape(struct buf *out, const char *s, size_t n);

#endif
