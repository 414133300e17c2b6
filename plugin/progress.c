#include "progress.h"

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t progress_line_open; /* a terminal line awaits its newline */

void progress_init(struct progress *p, const char *scenario, double every_s) {
    *p = (struct progress){.every_s = every_s, .tty = isatty(STDERR_FILENO)};
    snprintf(p->scenario, sizeof p->scenario, "%s", scenario);
    progress_line_open = 0;
}

void progress_show(struct progress *p, long long now_us, bool last, long sent, long failed,
                   long total) {
    long long every = p->tty ? PROGRESS_TTY_US : (long long)(p->every_s * 1e6);
    if (p->closed) return;
    if (!last && (every <= 0 || now_us - p->at_us < every)) return;
    if (last && !p->shown) return;
    char of[32] = "";
    if (total >= 0) snprintf(of, sizeof of, "/%ld", total);
    fprintf(stderr, "%s%s: %ld%s done, %ld failed, %.1f s%s", p->tty ? "\r" : "", p->scenario, sent,
            of, failed, now_us / 1e6,
            !p->tty ? "\n"
            : last  ? "\033[K\n"
                    : "\033[K");
    p->at_us = now_us;
    p->shown = true;
    p->closed = last;
    progress_line_open = p->tty && !last;
}

void progress_break_line(void) {
    if (progress_line_open && write(STDERR_FILENO, "\n", 1) == 1) progress_line_open = 0;
}
