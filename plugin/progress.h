/* progress: the one-line progress of a run on standard error. On a terminal
 * the line is redrawn in place at most every PROGRESS_TTY_US; elsewhere a line
 * is printed every progress_s seconds. The last line ends with a newline before
 * the client prints its summary. Not thread-safe: the caller holds its lock. */
#ifndef SM_PROGRESS_H
#define SM_PROGRESS_H

#include <stdbool.h>

#define PROGRESS_TTY_US 250000

struct progress {
    char scenario[64];
    double every_s;  /* between lines off a terminal; 0: none */
    bool tty;        /* standard error is a terminal */
    long long at_us; /* when the last line was printed */
    bool shown;      /* a line was printed */
    bool closed;     /* the last line is out */
};

/* Starts the progress of scenario on standard error. */
void progress_init(struct progress *p, const char *scenario, double every_s);

/* Prints a line at now_us when it is due (last: the final line, printed when
 * any was): sent and failed requests so far, of total (< 0: unknown). */
void progress_show(struct progress *p, long long now_us, bool last, long sent, long failed,
                   long total);

/* From a signal handler (async-signal-safe): ends an open terminal line, so that
 * what the client prints next starts on a line of its own. */
void progress_break_line(void);

#endif
