#!/usr/bin/python3
"""Resource use of a long run: 50 minutes of steady load at 64 connections (wrk
-t64 -c64, the sweep's steady mode) against the bf16 profile, time-scaled 60 times
(50 s). wrk's and the emulator's resident memory and open descriptors are sampled
from /proc every SAMPLE_S (a measurement timer, not a synchronization).

The bound: a record is appended to the journal as its request completes, through the
mapping of the journal's current 1 MiB chunk (plugin/jmap.h: the whole chunk is resident
from the start, and only one is mapped at a time); nothing of it stays in memory but the
counts (three integers, plus one entry per distinct error code): 0 bytes per request. What does grow at first is
each thread's LuaJIT heap until its garbage collector reaches its steady cycle (the
heap grows to 4 times its live size first, lua/sm/run.lua), and the allocator's
per-thread arenas: with 64 threads at ~7 requests a second each that takes ~190
requests per thread (measured: wrk grows from 26 to 46 MiB in the first 28 s, then
stays within its collection cycles' sawtooth for the next 32 s and 13,000 requests). So
after warm-up (WARM_S, past that) memory may not rise by more than SLACK_MIB above its
highest level during warm-up,
whatever the number of requests: over the ~6,000 requests after warm-up, a leak of
350 bytes a request already exceeds it. Descriptors: the same count in every sample
after warm-up (64 sockets, the journal, the pollers).

Also: no request failed, the records agree with the emulator one to one, and no
secret is in anything written.

usage: test_resources.py steady_64"""
import os
import sys
import threading
import time

import harness
from harness import check

SCALE = 60
DURATION_S = 50  # real seconds: 50 model minutes
THREADS = 64
SAMPLE_S = 0.25
WARM_S = 35  # the heap settles after ~28 s; the emulator, not the CPU, sets the pace
SLACK_MIB = 2


def sample(pid):
    """(RSS bytes, open descriptors) of pid, or None once it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            rss = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))
        return rss, len(os.listdir("/proc/%d/fd" % pid))
    except (FileNotFoundError, ProcessLookupError, StopIteration):
        return None


class Sampler(threading.Thread):
    """Samples pids every SAMPLE_S until stopped: samples[pid] = [(t, rss, fds)]."""

    def __init__(self, pids):
        super().__init__(daemon=True)
        self.pids = pids
        self.samples = {p: [] for p in pids}
        self.halt = threading.Event()
        self.t0 = time.monotonic()

    def run(self):
        while not self.halt.wait(SAMPLE_S):
            t = time.monotonic() - self.t0
            for p in self.pids:
                s = sample(p)
                if s:
                    self.samples[p].append((t, s[0], s[1]))


def check_flat(name, samples, end_s, sanitized):
    """After warm-up: memory no more than SLACK_MIB above its highest level before
    (the heaps' collection cycles make a sawtooth: a level taken at one instant may be
    a trough), fds constant."""
    steady = [s for s in samples if WARM_S <= s[0] <= end_s]
    check(len(steady) >= 20, "%s: only %d samples after warm-up" % (name, len(steady)))
    fds = sorted({s[2] for s in steady})
    check(len(fds) == 1, "%s: open descriptors changed during the run: %s" % (name, fds))
    base = max(s[1] for s in samples if s[0] < WARM_S)
    peak = max(s[1] for s in steady)
    growth = (peak - base) / 2**20
    print("%s: RSS peak %.1f MiB during warm-up, %.1f MiB after (%+.2f MiB), %d fds"
          % (name, base / 2**20, peak / 2**20, growth, fds[0]))
    if not sanitized:  # ASan's quarantine holds freed memory on purpose
        check(growth <= SLACK_MIB, "%s: memory grew %.2f MiB after warm-up (bound %d MiB)"
              % (name, growth, SLACK_MIB))


def case_steady_64():
    work = harness.Work("resources")
    keys = work.new_keys()
    emu = harness.Emu(work, ["--endpoint", "a=bf16-l4", "--time-scale", str(SCALE)], [keys])
    try:
        w = harness.Wrk(work, "sweep", emu.url,
                        ["--endpoint", "a", "--mode", "steady", "--duration", str(DURATION_S),
                         "--time-scale", str(SCALE), "--progress", "0"],
                        threads=THREADS, env=keys.env())
        sampler = Sampler([w.proc.pid, emu.proc.pid])
        sampler.start()
        w.wait()
        ended = time.monotonic() - sampler.t0
        sampler.halt.set()
        sampler.join()
        st = emu.stats()
    finally:
        emu.stop()
    check(w.rc == 0, "wrk exited %s:\n%s" % (w.rc, w.stderr()))
    res = w.result("a")
    harness.check_counts(res)
    records = res["records"]
    check(all(r["ok"] for r in records), "failed requests in a fault-free run")
    entries = harness.served(emu.requests())
    harness.check_stats(records, entries, st)
    harness.check_one_to_one(records, entries)
    after = sum(1 for r in records if r["t_start_us"] >= WARM_S * 1e6)
    print("%d requests, %d after warm-up (%.0f model minutes)"
          % (len(records), after, DURATION_S * SCALE / 60))
    check(after >= 4000, "only %d requests after warm-up: too few to show a leak" % after)
    sanitized = bool(os.environ.get("WRK_PRELOAD"))
    # The run's last second (the connections closing, done() writing the result file)
    # is not the steady state.
    end_s = min(ended, DURATION_S) - 1
    check_flat("wrk", sampler.samples[w.proc.pid], end_s, sanitized)
    check_flat("sm-emulator", sampler.samples[emu.proc.pid], end_s, sanitized)
    work.scan()
    work.clean()


CASES = {"steady_64": case_steady_64}

if __name__ == "__main__":
    sys.exit(harness.run_cases(CASES, sys.argv))
