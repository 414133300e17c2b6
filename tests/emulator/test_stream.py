#!/usr/bin/python3
"""sm-emulator's streamed replies over real HTTP: python3 test_stream.py GROUP, one
ctest per group. The oracle for the event stream is Debian's python3-botocore
(botocore.eventstream.EventStreamBuffer checks every prelude and message CRC); the
bodies are read with raw sockets, each chunk stamped as it arrives.

Groups: botocore (every container format, split PayloadParts, a reply that did
not stream), timing (a token at each decode step, as the request log shows and
the model says; both routes' model times agree), batch (streams share the batch:
their steps grow with it), faults (each stream fault and the 60-second limit),
openai (the OpenAI-compatible route: SSE, bearer tokens, SigV4, the envelope),
logs (the request log's token times, --log-subsecond)."""
import json
import os
import re
import socket
import sys
import tempfile
import time
import urllib.parse

from botocore.eventstream import EventStreamBuffer, ChecksumMismatch

from emutest import AKID, chat, check, control, emulator, finish, request, signed_headers

STREAM = "/endpoints/%s/invocations-response-stream"
OPENAI = "/endpoints/%s/openai/v1/chat/completions"
TOKEN_RE = re.compile(r"[A-Za-z0-9\u0080-\U0010FFFF]+|[^ \t\n\r\f\vA-Za-z0-9\u0080-\U0010FFFF]")


def tokens(text):
    """The emulator's tokenizer, written again (tok.h)."""
    return len(TOKEN_RE.findall(text))


class Reply:
    """A reply read off a raw socket: status, headers, and the body's pieces with
    the time each arrived (monotonic); ended: the body's framing ended cleanly."""

    def __init__(self):
        self.status, self.headers, self.pieces, self.ended, self.t_sent = 0, {}, [], False, 0

    @property
    def body(self):
        return b"".join(p for _, p in self.pieces)


def send(url, path, body, headers, timeout=30, http10=False):
    """POSTs body; reads the reply piece by piece, de-chunked, each piece stamped."""
    u = urllib.parse.urlsplit(url)
    s = socket.create_connection((u.hostname, u.port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    head = "POST %s HTTP/1.%d\r\nHost: %s\r\n" % (path, 0 if http10 else 1, u.netloc)
    head += "".join("%s: %s\r\n" % kv for kv in headers.items())
    head += "Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
    r = Reply()
    r.t_sent = time.monotonic()
    s.sendall(head.encode() + body)
    raw, pending = b"", b""
    try:
        while b"\r\n\r\n" not in raw:
            got = s.recv(65536)
            if not got:
                return r
            raw += got
        top, _, rest = raw.partition(b"\r\n\r\n")
        lines = top.decode().split("\r\n")
        r.status = int(lines[0].split()[1])
        r.headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
        chunked = r.headers.get("transfer-encoding") == "chunked"
        length = int(r.headers.get("content-length", -1))
        pending, now = rest, time.monotonic()
        while True:
            if chunked:
                pending = dechunk(r, pending, now)
            elif pending:
                r.pieces.append((now, pending))
                pending = b""
            if r.ended or (length >= 0 and len(r.body) >= length):
                r.ended = True
                return r
            got = s.recv(65536)
            now = time.monotonic()
            if not got:
                r.ended = r.ended or (not chunked and length < 0)
                return r
            pending += got
    except (ConnectionResetError, socket.timeout):
        return r
    finally:
        s.close()


def dechunk(r, data, now):
    """Takes the complete chunks off data into r.pieces; returns the rest."""
    while True:
        line, sep, rest = data.partition(b"\r\n")
        if not sep:
            return data
        size = int(line.split(b";")[0], 16)
        if size == 0:
            r.ended = rest.startswith(b"\r\n")
            return b""
        if len(rest) < size + 2:
            return data
        r.pieces.append((now, rest[:size]))
        data = rest[size + 2:]


def signed(url, path, payload, **kw):
    body = json.dumps(payload).encode()
    return body, signed_headers(url, path, body, **kw)


def stream(url, endpoint, payload, **kw):
    body, headers = signed(url, STREAM % endpoint, payload)
    return send(url, STREAM % endpoint, body, headers, **kw)


def messages(data):
    """(messages, error): botocore's decoding of an event-stream body, every CRC checked."""
    buf = EventStreamBuffer()
    buf.add_data(data)
    out = []
    try:
        for m in buf:
            out.append(m)
    except ChecksumMismatch as e:
        return out, e
    return out, None


def timed_messages(r):
    """[(arrival time, message)]: each message when its last byte arrived."""
    buf, out = EventStreamBuffer(), []
    for t, piece in r.pieces:
        buf.add_data(piece)
        out += [(t, m) for m in buf]
    return out


def sse_events(text):
    """The data of each SSE event (either "data:" form), as the WHATWG rules join them."""
    events, data = [], []
    for line in text.split("\n"):
        if line == "":
            if data:
                events.append("\n".join(data))
            data = []
        elif line.startswith("data:"):
            data.append(line[5:][1:] if line[5:].startswith(" ") else line[5:])
    return events


def payload_of(ms):
    """The PayloadParts' bytes joined, and the exception messages."""
    parts = [m for m in ms if m.headers.get(":message-type") == "event"]
    for m in parts:
        check(m.headers.get(":event-type") == "PayloadPart", "event type %s" % m.headers)
    return b"".join(m.payload for m in parts), [m for m in ms if m.headers.get(":message-type") == "exception"]


def vllm_content(events):
    """(content text, content chunks, usage, finish_reason, [DONE] last) of vLLM chunks."""
    text, chunks, usage, finish = "", 0, None, None
    for e in events:
        if e == "[DONE]":
            continue
        doc = json.loads(e)
        usage = doc.get("usage") or usage
        for c in doc["choices"]:
            piece = c["delta"].get("content") if "delta" in c else c.get("text")
            if piece:
                text, chunks = text + piece, chunks + 1
            finish = c.get("finish_reason") or finish
    return text, chunks, usage, finish, bool(events) and events[-1] == "[DONE]"


def test_botocore():
    """Every format, through botocore's decoder: the CRCs hold, the payloads join into
    the container's stream, which has max_tokens content tokens and a usage to match."""
    args = ["--endpoint", "v=instant", "--endpoint", "t=instant", "--set", "t.format=tgi",
            "--endpoint", "l=instant", "--set", "l.format=lmi", "--endpoint", "s=instant",
            "--set", "*.step_ms=1:1"]
    with emulator.Emulator(args) as emu:
        u = emu.url
        chat_body = chat("Write a long story.", 48, ignore_eos=True, stream=True,
                         stream_options={"include_usage": True})
        for split in (False, True):
            ep = "v"
            r = stream(u, ep, chat_body)
            check(r.status == 200 and r.ended, "vllm stream status %s ended %s" % (r.status, r.ended))
            check(r.headers.get("content-type") == "application/vnd.amazon.eventstream" and
                  r.headers.get("x-amzn-sagemaker-content-type") == "text/event-stream" and
                  r.headers.get("transfer-encoding") == "chunked" and
                  r.headers.get("x-amzn-invoked-production-variant") == "AllTraffic",
                  "stream headers %s" % r.headers)
            ms, err = messages(r.body)
            check(err is None and len(ms) >= 50, "botocore decodes %d messages, %s" % (len(ms), err))
            data, exc = payload_of(ms)
            check(not exc, "no exception")
            events = sse_events(data.decode())
            text, chunks, usage, finish, done = vllm_content(events)
            check(tokens(text) == 48 and chunks == 48 and usage["completion_tokens"] == 48 and
                  usage["prompt_tokens"] > 0 and finish == "length" and done,
                  "vllm chat: %d tokens in %d chunks, usage %s, %s, done %s"
                  % (tokens(text), chunks, usage, finish, done))
            first = json.loads(events[0])
            check(first["object"] == "chat.completion.chunk" and
                  first["choices"][0]["delta"] == {"role": "assistant", "content": ""},
                  "the first chunk names the role: %s" % events[0])
            if not split:
                check(len(ms) == len(events), "one PayloadPart an event: %d vs %d"
                      % (len(ms), len(events)))
                emu.stop()
                emu.args += ["--stream-split", "5"]
                emu.start()
                u = emu.url
            else:
                check(max(len(m.payload) for m in ms) == 5, "parts of at most 5 bytes")
        r = stream(u, "v", {"prompt": "Go on.", "max_tokens": 20, "ignore_eos": True, "stream": True})
        ms, err = messages(r.body)
        text, chunks, usage, finish, done = vllm_content(sse_events(payload_of(ms)[0].decode()))
        check(err is None and tokens(text) == 20 and usage is None and done,
              "completions without include_usage: %d tokens, usage %s" % (tokens(text), usage))
        r = stream(u, "t", {"inputs": "Tell me.", "parameters": {"max_new_tokens": 20, "details": True},
                            "stream": True})
        ms, err = messages(r.body)
        events = [json.loads(e) for e in sse_events(payload_of(ms)[0].decode())]
        text = "".join(e["token"]["text"] for e in events)
        check(err is None and len(events) == 20 and [e["index"] for e in events] == list(range(1, 21))
              and events[-1]["details"]["generated_tokens"] == 20 and
              events[-1]["generated_text"] == text and events[0]["details"] is None and
              r.headers.get("x-amzn-sagemaker-content-type") == "text/event-stream",
              "tgi: %d events, last %s" % (len(events), events[-1] if events else None))
        r = stream(u, "l", {"inputs": "Tell me.", "parameters": {"max_new_tokens": 12, "details": True,
                                                                 "ignore_eos_token": True},
                            "stream": True})
        ms, err = messages(r.body)
        lines = payload_of(ms)[0].decode().splitlines()
        last = json.loads(lines[-1])
        check(err is None and len(lines) == 12 and last["details"]["generated_tokens"] == 12 and
              r.headers.get("x-amzn-sagemaker-content-type") == "application/jsonlines",
              "lmi: %d lines, last %s" % (len(lines), last))
        r = stream(u, "s", chat("What is 6 * 7?", 8))  # no "stream": the JSON reply (split in 5s)
        ms, err = messages(r.body)
        data = payload_of(ms)[0]
        doc = json.loads(data)
        check(err is None and len(ms) == -(-len(data) // 5) and
              doc["choices"][0]["message"]["content"] == "42" and
              r.headers.get("x-amzn-sagemaker-content-type") == "application/json",
              "a body without stream: the JSON reply in PayloadParts: %s" % doc)
        r = stream(u, "v", chat_body, http10=True)
        ms, err = messages(r.body)
        check(r.status == 200 and "transfer-encoding" not in r.headers and err is None and
              vllm_content(sse_events(payload_of(ms)[0].decode()))[2]["completion_tokens"] == 48,
              "HTTP/1.0: the body ends when the connection closes")
        st = emu.stats()["endpoints"]
        check(st["v"]["completion_tokens"] == 48 + 20 + 48 and st["t"]["completion_tokens"] == 20,
              "the stats count streamed tokens: %s" % {k: v["completion_tokens"] for k, v in st.items()})


def read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def test_timing():
    """Fixed steps, no jitter: no token leaves before the model says (the request log's
    first token after the overhead and the first step, the last n - 1 steps later, the
    steps planned on a fixed schedule); /invocations plans the same model time (its
    service time, less its wait for the batch, is n steps exactly); the client receives
    one message per token. How close to the plan the tokens leave on a busy machine is
    the benchmark's (tests/bench/run, stream: TTFT and ITL against the model)."""
    step, overhead, n, scale = 0.040, 0.2, 26, 2.0
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        args = ["--endpoint", "ep=instant", "--set", "ep.step_ms=1:%g" % (step * 1000),
                "--set", "ep.overhead_s=%g" % overhead, "--time-scale", str(scale),
                "--request-log", log]
        with emulator.Emulator(args) as emu:
            body = chat("Write a long story.", n, ignore_eos=True, stream=True)
            r = stream(emu.url, "ep", body)
            plain = chat("Write a long story.", n, ignore_eos=True)
            b, h = signed(emu.url, "/endpoints/ep/invocations", plain)
            whole = send(emu.url, "/endpoints/ep/invocations", b, h)
        entries = read_log(log)
    s = [e for e in entries if e["api"] == "stream"][0]
    w = [e for e in entries if e["api"] == "invoke"][0]
    model_ttft = (overhead + step) / scale
    span = (n - 1) * step / scale
    # never early: 1 ms for the wall clock's slew against the monotonic one the plan is on
    slew = 0.001
    check(s["first_token"] - s["received"] >= model_ttft - slew,
          "TTFT %.4f s, model %.4f s" % (s["first_token"] - s["received"], model_ttft))
    check(s["last_token"] - s["admitted"] >= (span + step / scale) - slew,
          "last token %.4f s after admission, model %.4f s"
          % (s["last_token"] - s["admitted"], span + step / scale))
    check(w["replied"] - w["received"] >= (overhead + n * step) / scale - slew,
          "/invocations' reply %.4f s, model %.4f s" % (w["replied"] - w["received"],
                                                      (overhead + n * step) / scale))
    service = int(whole.headers.get("x-sm-emulator-service-us", -1)) / 1e6
    # The header runs from the call's start, the log's admission from the request's
    # arrival: what lies between (the call's set-up, real time) is at most the log's
    # received-to-admitted less the overhead, so the model time after admission is n
    # steps exactly, less at most that (2 us for the log's and the header's rounding).
    setup = (w["admitted"] - w["received"]) * scale - overhead
    decode = service - (w["admitted"] - w["received"]) * scale  # model seconds
    check(n * step - setup - 2e-6 * scale <= decode <= n * step + 2e-6 * scale,
          "/invocations: %.6f s of model time after admission (set-up %.6f s), %d steps of "
          "%g s" % (decode, setup, n, step))
    check(s["completion_tokens"] == n == w["completion_tokens"], "both logged %d tokens" % n)
    tm = timed_messages(r)
    content = [t for t, m in tm if b'"content":"' in m.payload and b'"content":""' not in m.payload]
    check(len(content) == n, "the client got %d content messages of %d" % (len(content), n))
    check(whole.status == 200 and json.loads(whole.body)["usage"]["completion_tokens"] == n,
          "the /invocations reply")


def batch_plan(admitted, n, step):
    """The model's schedule of sequences admitted at the logged times (planned step
    boundaries, back to back), n tokens each: {admitted time: planned end of its last
    step}, or None when a logged admission is no step boundary of that schedule."""
    pending = sorted(admitted)  # each sequence once: two admitted at one boundary are two
    t, running, ends = pending[0], [], {}
    while pending or running:
        while pending and abs(pending[0] - t) <= 2e-6:
            running += [[pending.pop(0), n]]
        if pending and not running:  # idle until the next arrival
            t = pending[0]
            continue
        if pending and pending[0] < t - 2e-6:
            return None
        t += step(len(running))
        for r in running:
            r[1] -= 1
            if r[1] == 0:
                ends[r[0]] = t
        running = [r for r in running if r[1] > 0]
    return ends


def test_batch():
    """Eight streams at once share the batch: the request log's admissions are boundaries
    of the model's schedule whose steps last step(b) for the b sequences in flight, and no
    stream's last token leaves before that schedule says (with 8 in flight, three times a
    lone stream's); a call alone gets step(1): its service time after admission is n steps
    of step(1) exactly."""
    steps = {1: 0.010, 8: 0.030}
    n, k = 60, 8

    def step(b):  # the step_ms table 1:10,8:30, linear between
        return steps[1] + (steps[8] - steps[1]) * (min(b, 8) - 1) / 7

    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "requests.jsonl")
        args = ["--endpoint", "ep=instant", "--set", "ep.step_ms=1:10,8:30", "--request-log", log]
        with emulator.Emulator(args) as emu:
            u = emu.url
            prepared = [signed(u, STREAM % "ep", chat("Story %d." % i, n, ignore_eos=True,
                                                      stream=True)) for i in range(k)]
            socks = []
            p = urllib.parse.urlsplit(u)
            for body, headers in prepared:  # all sent before any is read
                s = socket.create_connection((p.hostname, p.port))
                head = "POST %s HTTP/1.1\r\nHost: %s\r\n" % (STREAM % "ep", p.netloc)
                head += "".join("%s: %s\r\n" % kv for kv in headers.items())
                s.sendall((head + "Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
                          .encode() + body)
                socks.append(s)
            for s in socks:
                while s.recv(65536):
                    pass
                s.close()
            b, h = signed(u, "/endpoints/ep/invocations", chat("Alone.", n, ignore_eos=True))
            alone = send(u, "/endpoints/ep/invocations", b, h)
            check(alone.status == 200, "the call alone")
        entries = [e for e in read_log(log) if e["api"] in ("stream", "invoke")]
    streams = [e for e in entries if e["api"] == "stream"]
    check(len(streams) == k and all(e["completion_tokens"] == n for e in streams),
          "%d streams logged complete" % len(streams))
    ends = batch_plan([e["admitted"] for e in streams], n, step)
    check(ends is not None, "the admissions are no boundaries of the model's schedule: %s"
          % sorted(e["admitted"] for e in streams))
    for e in streams:
        want = (ends or {}).get(min((ends or {0: 0}), key=lambda a: abs(a - e["admitted"])), 0)
        check(e["last_token"] >= want - 0.001,
              "a stream among 8: last token at +%.4f s, the schedule's +%.4f s"
              % (e["last_token"] - e["admitted"], want - e["admitted"]))
    common = max(sum(1 for x in streams if abs(x["admitted"] - e["admitted"]) <= 2e-6)
                 for e in streams)
    print("admitted together: %d of %d; last tokens %s s after admission" % (
        common, k, ", ".join("%.3f" % (e["last_token"] - e["admitted"]) for e in streams)))
    w = [e for e in entries if e["api"] == "invoke"][0]
    service = int(alone.headers.get("x-sm-emulator-service-us", -1)) / 1e6
    setup = w["admitted"] - w["received"]  # no overhead: the call's set-up at most
    decode = service - setup
    check(n * steps[1] - setup - 2e-6 <= decode <= n * steps[1] + 2e-6,
          "the call alone: %.6f s after admission (set-up %.6f s), %d steps of step(1) %g s"
          % (decode, setup, n, steps[1]))


def test_faults():
    """Each stream fault, on its schedule (every second stream), at the middle step."""
    kinds = ["stream_error", "stream_failure", "stream_stall", "stream_crc", "stream_cut"]
    args = ["--set", "*.step_ms=1:2"]
    for kind in kinds:
        ep = kind.replace("_", "-")
        args += ["--endpoint", "%s=instant" % ep, "--set", "%s.fault.%s=every:2" % (ep, kind)]
    # a stall far longer than any late wake-up of a busy machine
    args += ["--set", "stream-stall.stream_stall_s=1", "--endpoint", "limit=instant",
             "--set", "limit.step_ms=1:150", "--max-duration", "2"]
    n = 10
    body = chat("Write.", n, ignore_eos=True, stream=True, stream_options={"include_usage": True})
    with emulator.Emulator(args) as emu:
        u = emu.url
        for kind in kinds:
            ep = kind.replace("_", "-")
            fine = stream(u, ep, body)
            ms, err = messages(fine.body)
            check(fine.ended and err is None and
                  vllm_content(sse_events(payload_of(ms)[0].decode()))[2]["completion_tokens"] == n,
                  "%s: the first stream is whole" % kind)
            r = stream(u, ep, body)
            ms, err = messages(r.body)
            data, exc = payload_of(ms)
            text = vllm_content(sse_events(data.decode(errors="replace")))[0] if not err else ""
            if kind in ("stream_error", "stream_failure"):
                want = ("ModelStreamError", "StreamBroken") if kind == "stream_error" else \
                    ("InternalStreamFailure", None)
                doc = json.loads(exc[0].payload) if exc else {}
                check(r.ended and err is None and len(exc) == 1 and
                      exc[0].headers.get(":exception-type") == want[0] and
                      exc[0].headers.get(":content-type") == "application/json" and
                      doc.get("ErrorCode") == want[1] and doc.get("Message") and
                      tokens(text) == (n - 1) // 2, "%s: %s after %d tokens" % (kind, doc, tokens(text)))
            elif kind == "stream_stall":
                tm = timed_messages(r)
                gaps = [b[0] - a[0] for a, b in zip(tm, tm[1:])]
                check(r.ended and err is None and max(gaps) >= 0.995 and sorted(gaps)[-2] < 0.5,
                      "stall: the largest gap %.3f s, the next %.3f s" % (max(gaps), sorted(gaps)[-2]))
            elif kind == "stream_crc":
                check(r.ended and isinstance(err, ChecksumMismatch) and len(ms) == (n - 1) // 2 + 1,
                      "crc: botocore stops at message %d: %r" % (len(ms), err))
            elif kind == "stream_cut":
                whole = sum(m.prelude.total_length for m in ms)
                check(not r.ended and r.status == 200 and err is None and
                      len(ms) == (n - 1) // 2 + 1 and len(r.body) > whole,
                      "cut: %d whole messages, %d bytes of a frame, ended %s"
                      % (len(ms), len(r.body) - whole, r.ended))
        r = stream(u, "limit", chat("Write.", 200, ignore_eos=True, stream=True))
        ms, err = messages(r.body)
        data, exc = payload_of(ms)
        doc = json.loads(exc[0].payload) if exc else {}
        got = tokens(vllm_content(sse_events(data.decode()))[0])
        check(r.ended and len(exc) == 1 and exc[0].headers[":exception-type"] == "ModelStreamError" and
              doc.get("ErrorCode") == "ModelInvocationTimeExceeded" and 5 < got < 20,
              "the limit ends the stream with ModelInvocationTimeExceeded after %d tokens: %s"
              % (got, doc))
        st = emu.stats()["endpoints"]
        for kind in kinds:
            f = st[kind.replace("_", "-")]["faults"]
            check(f[kind] == 1 and sum(f.values()) == 1, "%s counted once: %s" % (kind, f))
        check(st["stream-cut"]["dropped"] == 1, "the cut stream counted dropped")


def openai_send(u, path, payload, token=None, sigv4=False, **kw):
    body = json.dumps(payload).encode()
    if sigv4:
        headers = signed_headers(u, path, body)
    else:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = "Bearer " + token
    return send(u, path, body, headers, **kw)


def test_openai():
    """The OpenAI-compatible route: SSE in the body, a bearer token given or SigV4;
    refusals in the OpenAI envelope; an inference component's path."""
    tok = "sagemaker-api-key-" + "QUJD" * 8
    with emulator.Emulator(["--endpoint", "ep=instant", "--set", "ep.step_ms=1:1",
                            "--bearer-token", tok, "--bearer-token", "second"]) as emu:
        u = emu.url
        body = chat("Write.", 16, ignore_eos=True, stream=True, stream_options={"include_usage": True})
        for kw in (dict(token=tok), dict(token="second"), dict(sigv4=True)):
            r = openai_send(u, OPENAI % "ep", body, **kw)
            events = sse_events(r.body.decode())
            text, chunks, usage, finish, done = vllm_content(events)
            check(r.status == 200 and r.headers.get("content-type") == "text/event-stream" and
                  "x-amzn-sagemaker-content-type" not in r.headers and tokens(text) == 16 and
                  usage["completion_tokens"] == 16 and done, "openai stream with %s" % list(kw))
        # the component the path names exists (the control plane's, on ep)
        st1 = control(u, "CreateModel", {"ModelName": "m", "ExecutionRoleArn":
                                         "arn:aws:iam::123456789012:role/r",
                                         "PrimaryContainer": {"Image": "img:1"}})[0]
        st2 = control(u, "CreateInferenceComponent", {
            "InferenceComponentName": "ic-1", "EndpointName": "ep", "Specification": {
                "ModelName": "m", "ComputeResourceRequirements": {"MinMemoryRequiredInMb": 1024}},
            "RuntimeConfig": {"CopyCount": 1}})[0]
        check(st1 == 200 and st2 == 200, "the component ic-1 created: %s %s" % (st1, st2))
        r = openai_send(u, "/endpoints/ep/inference-components/ic-1/openai/v1/chat/completions",
                        chat("What is 6 * 7?", 8), token=tok)
        doc = json.loads(r.body)
        check(r.status == 200 and r.headers.get("content-type") == "application/json" and
              doc["choices"][0]["message"]["content"] == "42", "the component's path, not streamed")
        cases = [  # (what, path, kwargs, status, code)
            ("wrong token", OPENAI % "ep", dict(token="nope"), 401, "invalid_api_key"),
            ("no auth", OPENAI % "ep", dict(), 401, "missing_authentication_token"),
            ("unknown endpoint", OPENAI % "nope", dict(token=tok), 400, "validation_error"),
            ("bad component", "/endpoints/ep/inference-components/a_b/openai/v1/chat/completions",
             dict(token=tok), 400, "validation_error"),
        ]
        for what, path, kw, status, code in cases:
            r = openai_send(u, path, body, **kw)
            doc = json.loads(r.body)
            check(r.status == status and doc["error"]["code"] == code and
                  doc["error"]["type"] == "invalid_request_error" and doc["error"]["message"] and
                  tok not in r.body.decode(), "%s: %s %s" % (what, r.status, doc))
        b = json.dumps(body).encode()
        h = signed_headers(u, OPENAI % "ep", b, secret="wrong-secret")
        r = send(u, OPENAI % "ep", b, h)
        doc = json.loads(r.body)
        check(r.status == 403 and doc["error"]["code"] == "invalid_signature" and
              r.headers.get("x-amzn-errortype", "").startswith("InvalidSignatureException"),
              "a wrong SigV4 signature: %s %s" % (r.status, doc))
        r = openai_send(u, OPENAI % "ep", {"prompt": "x", "stream": True}, token=tok)
        doc = json.loads(r.body)
        check(r.status == 424 and doc["error"]["code"] == "model_error" and
              "Field required" in doc["error"]["message"], "a completions body: %s" % doc)
        r = openai_send(u, OPENAI % "ep", dict(chat("x"), model="other"), token=tok)
        check(r.status == 424 and "does not exist" in json.loads(r.body)["error"]["message"],
              "another model's name")
        check(emu.stats()["endpoints"]["ep"]["completion_tokens"] == 3 * 16 + 1, "tokens counted")
    # leaving the block scans the emulator's stderr for the token (tests/lib/emulator.py)


def test_logs():
    """The request log of a streamed request: api, its first and last token's times;
    with --log-subsecond the container log's lines carry CloudWatch timestamps."""
    with tempfile.TemporaryDirectory() as d:
        log, clog = os.path.join(d, "requests.jsonl"), os.path.join(d, "{endpoint}.log")
        args = ["--endpoint", "ep=instant", "--set", "ep.step_ms=1:20", "--time-scale", "4",
                "--request-log", log, "--log-file", clog, "--log-subsecond", "--log-interval", "0.2",
                "--bearer-token", "tok"]
        with emulator.Emulator(args) as emu:
            r = stream(emu.url, "ep", chat("Write.", 12, ignore_eos=True, stream=True))
            check(r.status == 200, "stream")
            r = openai_send(emu.url, OPENAI % "ep", chat("Write.", 12, ignore_eos=True, stream=True),
                            token="tok")
            check(r.status == 200, "openai")
            deadline = time.monotonic() + 10
            text = ""
            while time.monotonic() < deadline and "Avg generation throughput" not in text:
                text = open(clog.replace("{endpoint}", "ep")).read()
                time.sleep(0.02)
        entries = read_log(log)
        text = open(clog.replace("{endpoint}", "ep")).read()
    s = [e for e in entries if e["api"] == "stream"]
    o = [e for e in entries if e["api"] == "openai"]
    check(len(s) == 1 and len(o) == 1, "one line each: %s" % [e["api"] for e in entries])
    for e in s + o:
        check(e["received"] < e["first_token"] < e["last_token"] <= e["replied"] and
              e["completion_tokens"] == 12 and e["status"] == 200, "token times: %s" % e)
    check(o[0]["access_key_id"] is None and s[0]["access_key_id"] == AKID, "who signed")
    stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00 AllTraffic/i-emulator "
                       r"\((APIServer|EngineCore_DP0) pid=\d+\) INFO")
    lines = text.splitlines()
    check(lines and all(stamp.match(line) for line in lines), "every line stamped: %s" % lines[:2])
    check('"POST /v1/chat/completions HTTP/1.1" 200' in text and
          '"POST /invocations HTTP/1.1" 200' in text, "access lines name the container's path")
    check(re.search(r"\.\d{6}\+00:00 .*Avg generation throughput: [0-9.]+ tokens/s", text),
          "a throughput line to the microsecond")


GROUPS = {"botocore": test_botocore, "timing": test_timing, "batch": test_batch,
          "faults": test_faults, "openai": test_openai, "logs": test_logs}

if __name__ == "__main__":
    GROUPS[sys.argv[1]]()
    sys.exit(finish())
