#!/usr/bin/python3
"""sm-emulator under hostile clients (issue 18): python3 test_hostile.py GROUP, one ctest
per group. Every group also shows that a well-behaved client is served meanwhile.

The bounds (emulator/README.md, "Bounds") are checked on the emulator's own memory, from
/proc: VmRSS after warm-up against VmHWM (the peak) at the end. Under AddressSanitizer the
emulator's quarantine of freed memory is kept small (ASAN_OPTIONS), so that what it holds
on purpose does not read as growth.

A client that trickles bytes paces itself with select() timeouts: that is the behaviour
under test, not a wait for the emulator; what the test waits for (a reply, a close, a log
line) it polls for, with a generous deadline that only a broken emulator reaches."""
import json
import os
import resource
import select
import socket
import sys
import tempfile
import time
import urllib.parse

from emutest import (AKID, SECRET, check, chat, curl, emulator, finish, invoke, isolated_env,
                     request, signed_headers)

MIB = 1 << 20
DEADLINE_S = 20  # what a working emulator does in well under a second or two
# AddressSanitizer's shadow memory and padded allocations make the same data take up to
# about 1.4 times the memory: the bounds are scaled by this in a sanitized build.
SANITIZED = os.environ.get("SM_SANITIZE", "").upper() in ("1", "ON", "TRUE", "YES")
SLACK = 1.5 if SANITIZED else 1.0


def sanitized_env():
    """The test's clean environment (the emulator's keys), with AddressSanitizer's
    quarantine kept small."""
    env = isolated_env(AWS_ACCESS_KEY_ID=AKID, AWS_SECRET_ACCESS_KEY=SECRET)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "quarantine_size_mb=4",
                                                 "thread_local_quarantine_size_kb=64"]))
    return env


def proc_status(pid, key):
    """A /proc/PID/status figure in bytes (VmRSS, VmHWM)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no %s for pid %d" % (key, pid))


def connect(url, timeout=10):
    u = urllib.parse.urlsplit(url)
    return socket.create_connection((u.hostname, u.port), timeout=timeout)


def read_reply(sock, deadline_s=DEADLINE_S):
    """Reads one reply (Content-Length framed): (status, head text, body), or
    (0, what came, b"") when the connection closed or the deadline passed first."""
    data, end = b"", time.monotonic() + deadline_s
    while True:
        head, sep, rest = data.partition(b"\r\n\r\n")
        if sep:
            length = 0
            for line in head.split(b"\r\n")[1:]:
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    length = int(v)
            if len(rest) >= length:
                return int(head.split()[1]), head.decode("latin-1"), rest[:length]
        left = end - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            return 0, data.decode("latin-1"), b""
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            chunk = b""
        if not chunk:
            return 0, data.decode("latin-1"), b""
        data += chunk


def closed_by_peer(sock, deadline_s=DEADLINE_S):
    """Whether the emulator closes sock within deadline_s (what it still sends is read)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if not select.select([sock], [], [], max(0, end - time.monotonic()))[0]:
            return False
        try:
            if not sock.recv(65536):
                return True
        except (ConnectionResetError, socket.timeout):
            return True
    return False


def ping_ok(url):
    return request(url, "/ping", method="GET", timeout=DEADLINE_S).status == 200


def until(what, cond, deadline_s=DEADLINE_S):
    """Polls cond() until true; records a failure after deadline_s."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.02)
    check(False, "gave up waiting for %s" % what)
    return None


def trickle(sock, first, piece, interval, limit_s):
    """Sends first, then piece every interval until the emulator answers or closes,
    or limit_s pass. Returns (seconds until it answered or closed, what it sent back)."""
    t0 = time.monotonic()
    got = b""
    sock.sendall(first)
    while time.monotonic() - t0 < limit_s:
        if select.select([sock], [], [], interval)[0]:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            got += chunk
            if chunk.startswith(b"HTTP/") or not chunk:
                return time.monotonic() - t0, got
            continue
        try:
            sock.sendall(piece)
        except (BrokenPipeError, ConnectionResetError):
            return time.monotonic() - t0, got
    return None, got


def trickle_until_closed(sock, piece, interval, limit_s):
    """Sends piece every interval until the emulator closes the connection (returns the
    seconds it took) or limit_s pass (None). What the emulator sends is read and dropped."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        if select.select([sock], [], [], interval)[0]:
            try:
                if not sock.recv(65536):
                    return time.monotonic() - t0
            except ConnectionResetError:
                return time.monotonic() - t0
            continue
        try:
            sock.sendall(piece)
        except (BrokenPipeError, ConnectionResetError):
            return time.monotonic() - t0
    return None


def test_pipeline():
    """A client pipelines GET /emulator/stats and never reads: the emulator stops reading
    from it once its unsent replies pass 1 MiB or 16 replies, so memory stays bounded (was:
    26 MB of requests took the emulator from 23 MB to 1 GB), and serves others meanwhile;
    once the client reads, the rest of its requests are answered."""
    with emulator.Emulator(["--endpoint", "ep=instant"], env=sanitized_env()) as emu:
        for _ in range(3):
            check(ping_ok(emu.url) and emu.stats()["totals"]["requests"] >= 0, "warm-up")
        base = proc_status(emu.proc.pid, "VmRSS")
        hostile = connect(emu.url)
        one = b"GET /emulator/stats HTTP/1.1\r\nHost: x\r\n\r\n"
        block, sent, budget = one * 4096, 0, 8 * MIB
        hostile.setblocking(False)
        while sent < budget:
            if not select.select([], [hostile], [], 2.0)[1]:
                break  # the emulator stopped reading: the socket buffers are full
            try:
                sent += hostile.send(block[sent % len(block):])
            except BlockingIOError:
                continue
        check(sent < budget, "the emulator read all %d bytes of requests nobody reads" % sent)
        check(ping_ok(emu.url), "a normal client is served while the pipeline is stalled")
        growth = proc_status(emu.proc.pid, "VmHWM") - base
        print("pipelined %.1f MiB, the emulator's peak grew %.1f MiB" % (sent / MIB, growth / MIB))
        check(growth < 32 * MIB * SLACK, "memory grew %.1f MiB (bound %d MiB)"
              % (growth / MIB, 32 * SLACK))
        hostile.setblocking(True)
        hostile.settimeout(DEADLINE_S)
        replies, data = 0, b""
        while replies < 200:  # more than a pause's worth: the emulator reads again
            chunk = hostile.recv(1 << 20)
            if not chunk:
                break
            data += chunk
            replies = data.count(b"HTTP/1.1 200 OK\r\n")
        check(replies >= 200 and data.startswith(b"HTTP/1.1 200 OK"),
              "the client reads again and is answered: %d replies" % replies)
        hostile.close()
        check(ping_ok(emu.url), "still serving")


def test_descriptors():
    """Out of file descriptors, the emulator stops accepting (was: 100% CPU and 75 MB of
    accept() warnings in 4 s), says so in one line, and serves again once connections close."""
    soft = 64

    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, soft))

    with tempfile.TemporaryFile() as err:
        emu = emulator.Emulator(["--endpoint", "ep=instant"], stderr=err, preexec_fn=low_limit,
                                env=sanitized_env())
        emu.start()
        try:
            fds = len(os.listdir("/proc/%d/fd" % emu.proc.pid))
            conns = [connect(emu.url) for _ in range(soft - fds + 16)]  # the rest wait in the backlog

            def logged():
                err.seek(0)
                return b"Too many open files" in err.read()
            until("the emulator to run out of descriptors", logged)
            # it stays out of descriptors while these are open; a few retries pass meanwhile
            check(not ping_fits(emu.url), "a connection past the limit is not served yet")
            for c in conns:
                c.close()
            check(until("the emulator to serve again", lambda: ping_ok(emu.url)),
                  "served again once the connections closed")
            st = emu.stats()
            check(st["limits"]["accept_failures"] == 1, "one episode: %s" % st["limits"])
        finally:
            code = emu.stop()
        err.seek(0)
        lines = [x for x in err.read().decode("utf-8", "replace").splitlines() if x]
        print("stderr: %d lines, first: %s" % (len(lines), lines[:1]))
        check(len(lines) == 1 and lines[0].startswith("sm-emulator: cannot accept connections: "),
              "one line for the episode, got %d" % len(lines))
        check(code == 0, "exit %s" % code)


def ping_fits(url):
    """Whether a ping is answered within a second (a connection stuck in the backlog is not)."""
    s = connect(url)
    try:
        s.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
        return read_reply(s, 1.0)[0] == 200
    finally:
        s.close()


def test_head_deadline():
    """One header line every 0.2 s: --head-timeout (1 s here) answers 408 and closes, long
    before --idle-timeout (was: open for as long as lines keep coming); the close does not
    wait for the client to stop sending either."""
    with emulator.Emulator(["--endpoint", "ep=instant", "--head-timeout", "1",
                            "--idle-timeout", "300"]) as emu:
        s = connect(emu.url)
        took, got = trickle(s, b"GET /ping HTTP/1.1\r\n", b"X-Slow: 1\r\n", 0.2, 15)
        check(took is not None and got.startswith(b"HTTP/1.1 408 Request Timeout\r\n") and
              b"Connection: close" in got, "408 after a trickled head: %s %r" % (took, got[:40]))
        check(took is not None and took >= 1, "not before the deadline: %s" % took)
        took = trickle_until_closed(s, b"X-Slow: 1\r\n", 0.2, 15)
        check(took is not None, "closed while the client still trickles")
        s.close()
        s = connect(emu.url)
        check(read_reply(s, 1.5)[0] == 0 and ping_ok(emu.url),
              "an idle connection is not a slow head (no 408 for it)")
        s.close()
        check(emu.stats()["limits"]["head_timeouts"] == 1, "counted: %s" % emu.stats()["limits"])


def test_body_deadline():
    """A Content-Length larger than what is sent, trickled or stalled: --body-timeout (1 s
    here) answers 408 and closes (was: open as long as bytes trickle in)."""
    with emulator.Emulator(["--endpoint", "ep=instant", "--body-timeout", "1",
                            "--idle-timeout", "300"]) as emu:
        head = (b"POST /endpoints/ep/invocations HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"a\":")
        for what, piece in (("trickled", b" "), ("stalled", b"")):
            s = connect(emu.url)
            took, got = trickle(s, head, piece, 0.2, 15)
            check(took is not None and got.startswith(b"HTTP/1.1 408 ") and took >= 1,
                  "%s body: 408 after %s s: %r" % (what, took, got[:40]))
            check(closed_by_peer(s, 10), "%s body: closed after the 408" % what)
            s.close()
        check(ping_ok(emu.url), "still serving")
        st = emu.stats()
        check(st["limits"]["body_timeouts"] == 2 and st["totals"]["replies"].get("408") == 2,
              "counted: %s %s" % (st["limits"], st["totals"]["replies"]))


def test_connections():
    """--max-connections 3: a fourth connection is answered 503 and closed at once (was:
    no limit), and once one closes a new connection is served."""
    with emulator.Emulator(["--endpoint", "ep=instant", "--max-connections", "3"]) as emu:
        held = []
        for _ in range(3):
            s = connect(emu.url)
            s.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
            check(read_reply(s)[0] == 200, "one of the first three is served")
            held.append(s)
        extra = connect(emu.url)
        extra.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
        status, head, body = read_reply(extra)
        check(status == 503 and "Connection: close" in head and
              json.loads(body) == {"message": "Too many open connections"},
              "the fourth: %s %r" % (status, body))
        check(closed_by_peer(extra), "the fourth is closed")
        extra.close()
        held.pop().close()
        check(until("a free connection", lambda: ping_fits(emu.url)), "served once one closed")
        for s in held:
            s.close()
        st = until("the stats", lambda: ping_ok(emu.url) and emu.stats())
        check(st and st["limits"]["over_connections"] >= 1, "counted: %s" % (st and st["limits"]))


def expect_continue(url, length):
    """A request head announcing length bytes and waiting for 100 Continue: (socket, status)."""
    s = connect(url)
    s.sendall(b"POST /endpoints/ep/invocations HTTP/1.1\r\nHost: x\r\n"
              b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
              b"Content-Length: %d\r\n\r\n" % length)
    status, _, _ = read_reply(s)
    return s, status


def test_bodies():
    """--max-body-buffer 6291456: a body that would take more than what is left of it is
    answered 503 (was: no limit); small requests pass; closing gives the budget back."""
    with emulator.Emulator(["--endpoint", "ep=instant", "--max-body-buffer", "6291456"]) as emu:
        first, status = expect_continue(emu.url, 4000000)
        check(status == 100, "the first 4 MB body may come: %s" % status)
        second, status = expect_continue(emu.url, 4000000)
        check(status == 503, "the second does not fit: %s" % status)
        second.close()
        check(invoke(emu.url, "ep", chat("hi")).status == 200, "a small request passes")
        first.close()

        def fits():
            s, status = expect_continue(emu.url, 4000000)
            if status == 100:
                s.sendall(b"x" * 4000000)
                status = read_reply(s)[0]
            s.close()
            return status == 403  # unsigned: SageMaker's answer, once the body is in
        check(until("the budget to come back", fits), "a 4 MB body fits once the first closed")
        check(emu.stats()["limits"]["over_body_buffer"] >= 1, "counted")


def test_body_memory():
    """30 clients send most of a 6 MB body and stall (was: 166 MB): with the default
    --max-body-buffer (64 MiB) memory grows by at most that and a little, and a normal
    client is served meanwhile."""
    with emulator.Emulator(["--endpoint", "ep=instant"], env=sanitized_env()) as emu:
        check(ping_ok(emu.url), "warm-up")
        base = proc_status(emu.proc.pid, "VmRSS")
        held, refused = [], 0
        for _ in range(30):
            s, status = expect_continue(emu.url, 6000000)
            if status == 100:
                s.sendall(b"x" * 5900000)
                held.append(s)
            else:
                refused += status == 503
                s.close()
        check(ping_ok(emu.url), "a normal client is served meanwhile")
        growth = proc_status(emu.proc.pid, "VmHWM") - base
        print("%d bodies held, %d refused; the peak grew %.1f MiB"
              % (len(held), refused, growth / MIB))
        check(len(held) == 11 and refused == 19, "64 MiB holds 11 bodies of 6 MB")
        check(growth < 80 * MIB * SLACK, "memory grew %.1f MiB (bound (64 + 16) x %g MiB)"
              % (growth / MIB, SLACK))
        for s in held:
            s.close()


def test_utf8():
    """A byte that is not UTF-8 (\\xff) in a prompt, the Target-Variant header, a profile's
    name and --account-id: every JSON the emulator writes (request log, error bodies,
    ModelError, stats) is valid UTF-8 JSON with U+FFFD in its place."""
    with tempfile.TemporaryDirectory() as d:
        log, profiles = os.path.join(d, "requests.log"), os.path.join(d, "profiles.json")
        with open(profiles, "wb") as f:
            f.write(b'{"profiles": {"odd\xff\\"name": {"base": "instant"}}}')
        args = ["--endpoint", b"ep=odd\xff\"name", "--request-log", log, "--profile-file",
                profiles, "--account-id", b'12"34\xff']
        with emulator.Emulator(args) as emu:
            body = b'{"messages":[{"role":"user","content":"hi \xff there"}],"max_tokens":3}'
            check(invoke(emu.url, "ep", body).status == 200, "a prompt with \\xff is answered")
            s, h, b, _ = curl(emu.url, "ep", json.dumps(chat("hi")),
                              extra=["-H", b"X-Amzn-SageMaker-Target-Variant: v\xff"])
            doc = json.loads(b.decode("utf-8"))
            check(s == 400 and doc["message"] == "Variant v\ufffd not found for Endpoint ep of "
                  "account 12\"34\ufffd.", "ValidationError: %s %r" % (s, b))
            s, h, b, _ = curl(emu.url, "ep", "{not json")
            doc = json.loads(b.decode("utf-8"))
            check(s == 424 and doc["LogStreamArn"] == "arn:aws:logs:us-east-1:12\"34\ufffd:"
                  "log-group:/aws/sagemaker/Endpoints/ep", "ModelError: %r" % b[:120])
            with urllib_open(emu.url + "/emulator/stats") as raw:
                st = json.loads(raw.decode("utf-8"))
            check(st["endpoints"]["ep"]["variants"]["AllTraffic"]["profile"] == "odd\ufffd\"name",
                  "stats: the profile's name")
        with open(log, "rb") as f:
            lines = [json.loads(x.decode("utf-8")) for x in f]
        check(lines[0]["prompt"] == "hi \ufffd there", "request log: %r" % lines[0]["prompt"])
        check(len(lines) == 3, "three requests logged: %d" % len(lines))


def urllib_open(url):
    """The raw bytes of a GET (json.loads of bytes would guess an encoding)."""
    import urllib.request

    class Raw:
        def __enter__(self):
            with urllib.request.urlopen(url, timeout=10) as r:
                return r.read()

        def __exit__(self, *exc):
            return False
    return Raw()


def test_probes():
    """Malformed framing is answered and closed, and serving goes on: two Content-Lengths
    that differ (400), a chunked body with a bad chunk size (411: chunked is refused before
    any chunk is read), more than 100 headers (431: was 400), a 70 KB header line sent a
    byte at a time (431)."""
    with emulator.Emulator(["--endpoint", "ep=instant"]) as emu:
        cases = [
            (b"POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
            (b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
             411),
            (b"GET /ping HTTP/1.1\r\n" + b"".join(b"X-%d: v\r\n" % i for i in range(101)) +
             b"\r\n", 431),
        ]
        for data, want in cases:
            s = connect(emu.url)
            s.sendall(data)
            status, head, _ = read_reply(s)
            check(status == want and "Connection: close" in head, "%r -> %s" % (data[:30], status))
            check(closed_by_peer(s), "closed after %s" % want)
            s.close()
        s = connect(emu.url)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(b"GET /ping HTTP/1.1\r\nX-Long: ")
        for _ in range(70000):
            s.send(b"y")
        status, _, _ = read_reply(s)
        check(status == 431, "the long line: %s" % status)
        s.close()
        check(ping_ok(emu.url), "still serving")
        st = emu.stats()
        check(st["bad_requests"] == 4, "bad requests: %s" % st["bad_requests"])


# What a client that reads none of its replies may hold in the emulator (emulator/README.md,
# "Memory of replies"): its unsent replies stop at 1 MiB, with its requests and state.
PER_SLOW_READER = 1.25 * MIB


def test_slow_streams():
    """300 clients pipeline streamed InvokeEndpointWithResponseStream calls of 2,000 tokens
    and never read: once a connection holds 1 MiB of unsent replies, its stream's next steps
    are made only when the client reads (the model runs on), so each costs the emulator at
    most PER_SLOW_READER (was about 1.5 MiB: the stream being sent went to the buffer whole,
    300 clients took it from 11 to 475 MB); others are served meanwhile, and a client that
    reads at last gets whole replies."""
    n, per_client = (60 if SANITIZED else 300), 8  # a sanitized emulator formats 5x slower
    with emulator.Emulator(["--endpoint", "ep=instant"], env=sanitized_env()) as emu:
        for _ in range(3):
            check(ping_ok(emu.url) and emu.stats()["totals"]["requests"] >= 0, "warm-up")
        base = proc_status(emu.proc.pid, "VmRSS")
        u = urllib.parse.urlsplit(emu.url)
        path = "/endpoints/ep/invocations-response-stream"
        body = json.dumps(chat("Write a story.", 2000, ignore_eos=True, stream=True)).encode()
        headers = signed_headers(emu.url, path, body)
        one = ("POST %s HTTP/1.1\r\nHost: %s\r\n" % (path, u.netloc)).encode() + b"".join(
            ("%s: %s\r\n" % kv).encode() for kv in headers.items()) + (
            "Content-Length: %d\r\n\r\n" % len(body)).encode() + body
        clients = []
        for _ in range(n):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the kernel keeps little
            sock.connect((u.hostname, u.port))
            sock.sendall(one * per_client)
            clients.append(sock)
        budget = base + n * PER_SLOW_READER * SLACK

        def settled():  # every output full, or the emulator past its budget
            return (emu.stats().get("full_outputs", 0) >= n
                    or proc_status(emu.proc.pid, "VmRSS") > budget)
        until("every client's unsent replies at their bound", settled)
        growth = proc_status(emu.proc.pid, "VmHWM") - base
        print("%d clients that read nothing: the emulator's peak grew %.1f MiB, %.2f MiB each"
              % (n, growth / MIB, growth / n / MIB))
        check(growth < n * PER_SLOW_READER * SLACK, "memory grew %.2f MiB per client (bound %.2f)"
              % (growth / n / MIB, PER_SLOW_READER * SLACK / MIB))
        check(ping_ok(emu.url), "a normal client is served while %d stall" % n)
        # one reads at last: its first reply is whole (the owed steps were made as it read)
        reader = clients.pop()
        reader.settimeout(DEADLINE_S)
        data = b""
        while data.count(b"\r\n0\r\n\r\n") < 1:
            chunk = reader.recv(65536)
            if not chunk:
                break
            data += chunk
        check(data.startswith(b"HTTP/1.1 200") and b"\r\n0\r\n\r\n" in data,
              "the reader's first reply: %r" % data[:200])
        for sock in clients + [reader]:
            sock.close()


GROUPS = {"pipeline": test_pipeline, "descriptors": test_descriptors,
          "head_deadline": test_head_deadline, "body_deadline": test_body_deadline,
          "connections": test_connections, "bodies": test_bodies,
          "body_memory": test_body_memory, "slow_streams": test_slow_streams, "utf8": test_utf8, "probes": test_probes}

if __name__ == "__main__":
    GROUPS[sys.argv[1]]()
    sys.exit(finish())
