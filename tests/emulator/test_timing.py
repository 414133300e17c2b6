#!/usr/bin/python3
"""The built-in profiles reproduce the article's timing, measured here the way the
reference method measures it (decode rate and per-call fixed cost from medians of
5 x 16 and 5 x 512 ignore_eos tokens; throughput of 1, 4 and 16 simultaneous
256-token requests, 2 batches each, median), by a client with no overhead of its own
(requests signed before the clock starts, raw sockets, one thread, select(), and the
round trip of an `instant` endpoint of the same emulator taken off every wall time:
at 20x the 0.2-0.5 ms a busy machine adds to a round trip would be 1-2% of the
per-call cost), at --time-scale 10:

- bf16-l4 and qat-l4, the article's servers: the article's figures with its client's
  cost C (the aws CLI's, tests/data/aws-cli-cost.json) taken out: the decode rate
  unchanged (within 1%), the per-call cost F - C, throughput c x 256 / (c x 256 / T - C)
  (within 2%);
- bf16-l4-awscli and qat-l4-awscli, the client model: the article's published figures
  (decode within 1%, the rest within 2%).

The per-call cost is checked within 2% of the article's (0.0127 and 0.0112 s), an
absolute bound: the server's is small (0.2 and 0.13 s), and a 2% bound on it would be
tighter than the test's own client. The machine is shared (builds, fuzzers, other
benchmarks): a measurement whose figures miss is taken again, up to 3 times; a real
error misses every time. Optional argument: the time scale (default 10)."""
import json
import os
import selectors
import socket
import statistics
import sys
import time
import urllib.parse

from emutest import chat, check, emulator, finish, signed_headers

TOLERANCE = 0.02
PROMPT = "Write a long, detailed story about a lighthouse keeper on a remote island."


def prepare(url, endpoint, tokens):
    """The bytes of one signed request for tokens ignore_eos tokens."""
    body = json.dumps(chat(PROMPT, tokens, ignore_eos=True)).encode()
    path = "/endpoints/%s/invocations" % endpoint
    headers = signed_headers(url, path, body)
    head = "POST %s HTTP/1.1\r\nHost: %s\r\n" % (path, urllib.parse.urlsplit(url).netloc) + "".join("%s: %s\r\n" % kv for kv in headers.items())
    return (head + "Content-Length: %d\r\n\r\n" % len(body)).encode() + body


class Conn:
    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((u.hostname, u.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def reply_done(self):
        """(status, body) once the reply is complete, else None."""
        head, sep, rest = self.buf.partition(b"\r\n\r\n")
        if not sep:
            return None
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        if len(rest) < length:
            return None
        self.buf = rest[length:]
        return int(head.split()[1]), rest[:length]


def batch(conns, requests):
    """Sends requests[i] on conns[i] at once; returns (wall seconds, completion tokens)."""
    sel = selectors.DefaultSelector()
    for c in conns:
        sel.register(c.sock, selectors.EVENT_READ, c)
    t0 = time.monotonic()
    for c, r in zip(conns, requests):
        c.sock.sendall(r)
    pending, tokens = len(conns), 0
    while pending:
        for key, _ in sel.select(timeout=0.0005):  # short naps: a VM wakes a long sleeper late
            c = key.data
            c.buf += c.sock.recv(1 << 20)
            done = c.reply_done()
            if done:
                status, body = done
                check(status == 200, "status %d" % status)
                tokens += json.loads(body)["usage"]["completion_tokens"]
                sel.unregister(c.sock)
                pending -= 1
    wall = time.monotonic() - t0
    sel.close()
    return wall, tokens


SIDES = (("bf16", "bf16-l4", False), ("qat", "qat-l4", False),
         ("bf16-cli", "bf16-l4-awscli", True), ("qat-cli", "qat-l4-awscli", True))


def expected(article, cli_cost, side, through_cli):
    """[(figure, the article's value for it, tolerance as a fraction of the article's)]:
    the published figures through the aws CLI, else the server's (the CLI's cost out)."""
    ref = article["results"][side]
    fixed = ref["per_call_fixed_cost_seconds"]
    load = {c: ref["load_tokens_per_second"][str(c)] for c in (1, 4, 16)}
    out = [("decode tokens/s", ref["decode_tokens_per_second"], 0.01)]
    if through_cli:
        out.append(("per-call fixed cost s", fixed, TOLERANCE))
        out += [("c%d tokens/s" % c, t, TOLERANCE) for c, t in load.items()]
    else:
        out.append(("per-call fixed cost s", fixed - cli_cost,
                    TOLERANCE * fixed / (fixed - cli_cost)))
        out += [("c%d tokens/s" % c, c * 256 / (c * 256 / t - cli_cost), TOLERANCE)
                for c, t in load.items()]
    return out


def measure(scale, article, cli_cost):
    """One measurement of the four profiles: [(label, measured, wanted, tolerance)]."""
    sides = tuple(name for name, _, _ in SIDES)
    args = ["--time-scale", str(scale), "--endpoint", "rtt=instant"]
    for name, profile, _ in SIDES:
        args += ["--endpoint", "%s=%s" % (name, profile)]
    with emulator.Emulator(args) as emu:
        conns = {s: [Conn(emu.url) for _ in range(16)] for s in sides + ("rtt",)}
        rtt = statistics.median(batch(conns["rtt"][:1], [prepare(emu.url, "rtt", 16)])[0]
                                for _ in range(9))
        print("round trip of an instant reply: %.3f ms" % (rtt * 1000))
        walls = {(s, n): [] for s in sides for n in (16, 512)}
        for rep in range(5):  # alternate which endpoint goes first, as the reference does
            for s in (sides if rep % 2 == 0 else sides[::-1]):
                for n in (16, 512):
                    wall, got = batch(conns[s][:1], [prepare(emu.url, s, n)])
                    check(got == n, "%s: %d tokens asked, %d sent" % (s, n, got))
                    walls[s, n].append((wall - rtt) * scale)
        load = {}
        for s in sides:
            for c in (1, 4, 16):
                tps = []
                for _ in range(2):
                    reqs = [prepare(emu.url, s, 256) for _ in range(c)]
                    wall, got = batch(conns[s][:c], reqs)
                    check(got == 256 * c, "%s c%d tokens %d" % (s, c, got))
                    tps.append(got / ((wall - rtt) * scale))
                load[s, c] = statistics.median(tps)
        stats = emu.stats()
    out = []
    for s, _, through_cli in SIDES:
        w16, w512 = statistics.median(walls[s, 16]), statistics.median(walls[s, 512])
        got = [496 / (w512 - w16), w16 - 16 * (w512 - w16) / 496] + [load[s, c] for c in (1, 4, 16)]
        want = expected(article, cli_cost, s.split("-")[0], through_cli)
        out += [("%-8s %-22s" % (s, name), g, w, tol) for g, (name, w, tol) in zip(got, want)]
        sent = 5 * (16 + 512) + 2 * 256 * (1 + 4 + 16)
        check(stats["endpoints"][s]["completion_tokens"] == sent, "%s stats tokens" % s)
    return out


def main():
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 10
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
    article = json.load(open(os.path.join(data, "article-2026-09-25.json")))
    cli_cost = json.load(open(os.path.join(data, "aws-cli-cost.json")))["calibration_seconds"]
    for attempt in range(1, 4):
        figures = measure(scale, article, cli_cost)
        for label, got, want, tol in figures:
            print("%s %9.3f  want %9.3f  %+6.2f%% (within %.1f%%)" %
                  (label, got, want, 100 * (got / want - 1), 100 * tol))
        missed = [f for f in figures if abs(f[1] / f[2] - 1) > f[3]]
        if not missed:
            break
        print("attempt %d: %d figures off by more than their bound" % (attempt, len(missed)))
    for label, got, want, tol in missed:
        check(False, "%s: %.3f vs %.3f (bound %.1f%%)" % (label.strip(), got, want, 100 * tol))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
