/* scrub: the secrets of this process kept out of everything it stores or
 * prints. Text that came from outside (a server's error message, a reply, a
 * log) may echo a request's headers, and with them the session token; every
 * program hands such text through scrub before it keeps it. The credential
 * chain registers the secret access key and the session token of every set it
 * finds (signer/creds.h), so no caller has to.
 *
 * An echo is a secret's first SCRUB_PREFIX characters (the whole secret when
 * shorter) and as many more as go on matching it, raw or URL-encoded (as a
 * token appears in a query or a form); it becomes SCRUB_REDACTED, and so does
 * a signed request's Authorization value (AWS4-HMAC-SHA256 Credential=...
 * Signature=...), which can be replayed for minutes, and a bearer one ("Bearer "
 * and a token of SCRUB_MIN or more token68 characters, registered or not).
 * Secrets shorter than SCRUB_MIN are not registered: they would redact common
 * text. Every program registers the secrets it reads itself (sm-stream its
 * --bearer-token-env token), and hands every byte from a server that reaches a
 * file or a terminal through here (a terminal's also through tty.h).
 * Thread-safe. */
#ifndef SM_SCRUB_H
#define SM_SCRUB_H

#include <stddef.h>

#include "buf.h"

#define SCRUB_PREFIX   12
#define SCRUB_MIN      16
#define SCRUB_REDACTED "<redacted>"

/* Registers secret (copied; NULL or short ones are ignored). Returns 0 or BUF_ERR_NOMEM. */
__attribute__((warn_unused_result)) int scrub_add(const char *secret);
/* Forgets every secret, wiping the copies. */
void scrub_forget(void);

/* Appends n bytes of text to out with every echo replaced. Returns 0 or BUF_ERR_*. */
__attribute__((warn_unused_result)) int scrub_append(struct buf *out, const char *text, size_t n);
/* Scrubs the C string s in place (an echo is never shorter than its replacement). */
void scrub_in_place(char *s);

#endif
