"""The host's stolen CPU while a part runs (issue 29): on a virtual machine the
hypervisor can give the host's processors to other guests (steal, the eighth number of
/proc/stat's "cpu" line), and then every process of the host waits, the client's sends
too, while the host's own load average stays low. A thread reads that line every
100 ms; a run says its steal share, and which wall-clock seconds had no steal at all, so
that a schedule's figure can be given apart for the seconds the host was its own."""
import threading
import time

PERIOD_S = 0.1


def read_ticks():
    """(total, steal) clock ticks of the host's processors so far; None when not known."""
    try:
        with open("/proc/stat") as f:
            v = f.readline().split()
        if v[0] != "cpu" or len(v) < 9:
            return None
        ticks = [int(x) for x in v[1:9]]
        return sum(ticks), ticks[7]
    except (OSError, ValueError, IndexError):
        return None


class StealWatch:
    """with StealWatch() as w: ...; then w.share() and w.clean_seconds()."""

    def __init__(self):
        self.samples = []  # (wall time, total, steal)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while True:
            t = read_ticks()
            if t:
                self.samples.append((time.time(), *t))
            if self.stop.wait(PERIOD_S):
                break

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        t = read_ticks()
        if t:
            self.samples.append((time.time(), *t))
        return False

    def share(self):
        """The stolen share of the host's CPU over the watch, 0 to 1; None: not known."""
        if len(self.samples) < 2 or self.samples[-1][1] <= self.samples[0][1]:
            return None
        return (self.samples[-1][2] - self.samples[0][2]) / (
            self.samples[-1][1] - self.samples[0][1])

    def clean_seconds(self):
        """The whole wall-clock seconds (int(time.time())) in which every sample interval
        that began in them saw no steal tick."""
        seen, stolen = set(), set()
        for (t0, _, s0), (_, _, s1) in zip(self.samples, self.samples[1:]):
            seen.add(int(t0))
            if s1 > s0:
                stolen.add(int(t0))
        return seen - stolen


def split_late(sends, clean):
    """sends: (wall start in seconds, late) pairs. The sends in clean seconds and the
    others: {"clean": (n, late), "stolen": (n, late)}."""
    out = {"clean": [0, 0], "stolen": [0, 0]}
    for wall, late in sends:
        k = out["clean" if int(wall) in clean else "stolen"]
        k[0] += 1
        k[1] += bool(late)
    return {k: tuple(v) for k, v in out.items()}
